"""Rendered Shangri-La tables with stacks, for the appearance reader's stack heights:
the fit of its weights and the benchmark (``companion bench appearance --heights``,
or ``companion bench heights-fit``).

A *setup* is one world (:mod:`vision.synth.world`) photographed by one camera at a
chosen elevation, at the ``medium`` level's imaging (noise, blur, JPEG, pieces off
their spots, glare): the player's calibration pictures (the empty board, the
calibration position) under one light, then pictures of tables with tiles laid on
about a third of the spaces, each a stack of one or two, under another light; the second
picture of each setup has a hand over the table.

Sets, separate by world kind and seed as for the colours (``vision.evaluate.appearance``):
``train``: ``painted`` worlds, seeds 1 on, elevations drawn from 45 to 90 degrees and
picture sizes from 1280x720 to 2560x1440 (the weights are fitted on them);
``validation``: ``painted`` worlds, seeds 1000 on, at 55 and 70 degrees, with the whole
tables of the appearance bench's validation set at its hardest level (the chances are
calibrated on them);
``test``: ``landscape`` worlds (never used to fit or choose anything), seeds 2000 on,
each seed at every elevation asked for (default straight above, 70 and 55 degrees).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from engines.observation import Observation
from vision.evaluate import appearance as ba
from vision.evaluate.appearance import (
    Pictures,
    Setup,
    cached_pictures,
    calibrated_reader,
    store_pictures,
)
from vision.evaluate.sets import LEVEL_SPECS
from vision.models import HEIGHT_SUFFIX, load_model, referee_schema

GAME = "shangrila"
SETS = {"train": ("painted", 1), "validation": ("painted", 1000), "test": ("landscape", 2000)}
TRAIN_ELEVATIONS = (45.0, 90.0)
TRAIN_SIZES = ((1280, 720), (1920, 1080), (2560, 1440))
"""Picture sizes of the training set: one tile's step spans from one to three pixels."""
BENCH_ELEVATIONS = (90.0, 70.0, 55.0)
PLAYS = 2
LEVEL = "medium"
CACHE_VERSION = 1
TILED_SHARE = 0.35
"""The share of spaces with a stack in a play picture."""


@dataclass(frozen=True)
class HeightSetup:
    kind: str
    seed: int
    elevation: float
    size: tuple[int, int] = (1280, 720)

    @property
    def key(self) -> str:
        return (
            f"h{CACHE_VERSION}-{self.kind}-{self.seed}-{self.elevation:.1f}-"
            f"{self.size[0]}x{self.size[1]}"
        )


def setups(
    name: str,
    count: int,
    elevations: Sequence[float] | None = None,
    size: tuple[int, int] = (1280, 720),
) -> list[HeightSetup]:
    """``count`` world seeds of set ``name``, each at every one of ``elevations`` (the
    training set: one elevation per seed, drawn with the seed)."""
    kind, first = SETS[name]
    if elevations is None:
        out = []
        for seed in range(first, first + count):
            rng = np.random.default_rng([seed, 7])
            elevation = float(rng.uniform(*TRAIN_ELEVATIONS))
            out.append(
                HeightSetup(kind, seed, elevation, TRAIN_SIZES[int(rng.integers(len(TRAIN_SIZES)))])
            )
        return out
    return [HeightSetup(kind, first + i, e, size) for i in range(count) for e in elevations]


def _camera(
    setup: HeightSetup, rng: np.random.Generator, board_mm: tuple[float, float]
) -> tuple[Any, Any]:
    """A camera at the setup's elevation framing the whole board (as the colours'
    bench frames it)."""
    from vision.synth.camera import Camera, Pose  # deferred: loads OpenCV
    from vision.view import truth_view  # deferred: loads OpenCV

    camera = Camera.from_fov(setup.size[0], setup.size[1], 60.0, k1=float(rng.uniform(-0.08, 0.0)))
    rotation = float(rng.uniform(0.0, 360.0))
    look = (float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20)))
    w, h = board_mm
    corners = np.array([(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)])
    distance = 600.0
    while True:
        pose = Pose(setup.elevation, rotation, distance, look)
        if (
            bool(truth_view(camera, pose, board_mm).visible(corners, 0.04 * setup.size[1]).all())
            or distance > 3000
        ):
            return camera, pose
        distance *= 1.05


def stacked_table(schema: Any, model: Any, colours: Sequence[str], rng: np.random.Generator) -> Any:
    """A table with a stack of one or two tiles of a random colour on about
    ``TILED_SHARE`` of the spaces (no game's position: the reader knows no rules),
    and bridges and stones in place or not."""

    readings: dict[str, Any] = {}
    for element in model.elements.values():
        if element.name not in schema.elements:
            continue
        if element.kind == "space":
            if rng.random() < TILED_SHARE:
                readings[element.name] = str(colours[int(rng.integers(len(colours)))])
                readings[element.name + HEIGHT_SUFFIX] = int(rng.integers(1, 3))
            else:
                readings[element.name] = "empty"
                readings[element.name + HEIGHT_SUFFIX] = 0
        elif element.kind in ("bridge", "stone"):
            readings[element.name] = bool(rng.random() < 0.5)
    return Observation(schema, readings)


def render(setup: HeightSetup) -> Any:
    """The setup's pictures (``vision.evaluate.appearance.Pictures``)."""
    from calibration.boards import board_geometry  # deferred: loads OpenCV
    from vision.appearance import calibration_layout  # deferred: loads OpenCV
    from vision.appearance_core import bare_value  # deferred: loads OpenCV
    from vision.synth.camera import LIGHTS, Imaging  # deferred: loads OpenCV
    from vision.synth.table import TableOptions, render_table  # deferred: loads OpenCV
    from vision.synth.world import make_world  # deferred: loads OpenCV

    spec = LEVEL_SPECS[LEVEL]
    rng = np.random.default_rng([setup.seed, round(setup.elevation * 10), 43])
    world = make_world(GAME, setup.kind, setup.seed)
    model = world.model
    camera, pose = _camera(setup, rng, model.size_mm)
    imaging = Imaging(
        blur_sigma=spec.blur,
        noise_sigma=spec.noise,
        shot_noise=0.3,
        vignetting=0.15,
        jpeg_quality=spec.jpeg,
    )

    def light() -> Any:
        return LIGHTS[spec.lights[int(rng.integers(len(spec.lights)))]]

    schema = referee_schema(GAME)
    colours = board_geometry(GAME).player_colours
    empty_obs = Observation(
        schema,
        {
            e: (0 if e.endswith("^") else bare_value(schema.values[e]))
            for e in schema.elements
            if model.on_board(e)
        },
    )
    layout = calibration_layout(schema, model, colours)
    calm = light()
    common = {
        "camera": camera,
        "pose": pose,
        "imaging": imaging,
        "model": model,
        "art": world.art(),
        "colours": world.colours,
    }
    empty = render_table(
        empty_obs, light=calm, seed=setup.seed, options=TableOptions(clutter=spec.clutter), **common
    )
    calibration = render_table(
        layout,
        light=calm,
        seed=setup.seed + 1,
        options=TableOptions(clutter=spec.clutter, placement_mm=spec.placement_mm),
        **common,
    )
    pictures = Pictures(
        Setup(setup.kind, setup.seed, LEVEL, setup.size, GAME),
        empty.image,
        calibration.image,
        layout.to_json()["readings"],
        camera=asdict(camera),
        pose=asdict(pose),
    )
    for index in range(PLAYS):
        table = stacked_table(schema, model, colours, rng)
        options = TableOptions(
            hands=index % 2,
            clutter=spec.clutter,
            glare=spec.glare,
            placement_mm=spec.placement_mm,
            placement_deg=3.0 * spec.placement_mm,
        )
        picture = render_table(
            table, light=light(), seed=int(rng.integers(2**31)), options=options, **common
        )
        pictures.plays.append(
            (
                picture.image,
                {
                    "observation": table.to_json()["readings"],
                    "visible": picture.visible().to_json()["readings"],
                    "hands": index % 2,
                },
            )
        )
    return pictures


def load(setup: HeightSetup, cache: Path | None) -> Any:
    """A setup's pictures, from the cache or rendered (and cached)."""

    folder = None if cache is None else cache / setup.key
    if folder is not None:
        cached = cached_pictures(folder, Setup(setup.kind, setup.seed, LEVEL, setup.size, GAME))
        if cached is not None:
            return cached
    print(
        f"  rendering {setup.kind} world {setup.seed} at {setup.elevation:.0f} degrees", flush=True
    )
    pictures = render(setup)
    if folder is not None:
        store_pictures(folder, pictures)
    return pictures


def default_cache() -> Path:
    return Path("~/.cache/companion/heights").expanduser()


# --- fitting ---------------------------------------------------------------------------------


def examples(pictures: Any) -> list[Any]:
    """Labelled rows of every stack the height reader would weigh (its lines show
    both edges, the board hidden fits some height), read after the colours of the
    appearance reader (its heights left aside)."""
    from vision import appearance_heights as ah  # deferred: loads OpenCV
    from vision.appearance import fit_light  # deferred: loads OpenCV

    reader, view = calibrated_reader(pictures)
    # the player knows the pieces' nominal sizes, not this world's
    stacks = ah.HeightReader(
        replace(reader.model, pieces=load_model(GAME).pieces),
        reader.appearance,
        reader.schema,
        ah.HeightModel(GAME, np.zeros(len(ah.FEATURES)), {}),
    )
    ah._READERS[reader] = None  # the colours only
    plan = stacks.plan(view)
    assert plan is not None
    index = {s: i for i, s in enumerate(stacks.spaces)}
    out = []
    for image, truth in pictures.plays:
        colours = reader.read(image, view).observation
        below = {e: colours[e] for e in colours if not e.endswith(HEIGHT_SUFFIX)}
        wanted = [
            s
            for s in stacks.spaces
            if colours[s].known
            and colours[s].value != "empty"
            and truth["visible"].get(s + HEIGHT_SUFFIX) in stacks.heights
        ]
        light = fit_light(image, view, reader.appearance, reader.model.size_mm)
        for space, result in stacks.measure(image, view, light, below, wanted).items():
            if result is None or not stacks.plausible(result, plan.lines[index[space]]):
                continue
            lines = plan.lines[index[space]]
            out.append(
                ah.Example(
                    ah.rows(result, lines, stacks.heights),
                    stacks.heights.index(truth["visible"][space + HEIGHT_SUFFIX]),
                    lines.step_mm * lines.px_per_mm,
                )
            )
    return out


VALIDATION_SETUPS = 4
"""Worlds of the validation set the chances are calibrated on, each at the elevations
of :data:`VALIDATION_ELEVATIONS` and both sizes of :data:`VALIDATION_SIZES`."""
VALIDATION_ELEVATIONS = (55.0, 70.0)
VALIDATION_SIZES = ((1280, 720), (1920, 1080))
VALIDATION_TABLES = 48
"""Setups of the appearance bench's validation set at its hardest level (whole tables
of play, cameras from 35 to 90 degrees) calibrated on too, at each size. Nine of them
left the chances too sure for the hardest imaging: on the 48 worlds in 1920x1080, 3 of
279 heights read at 0.9 or more were wrong."""


def validation_pictures(
    heights_cache: Path, tables_cache: Path | None = None
) -> list[tuple[str, Any]]:
    """The validation pictures the chances are calibrated on: the heights' own
    setups, then whole tables at the hardest level (names and loaders)."""

    tables = tables_cache if tables_cache is not None else ba.default_cache()
    out: list[tuple[str, Any]] = []
    for size in VALIDATION_SIZES:
        for setup in setups("validation", VALIDATION_SETUPS, VALIDATION_ELEVATIONS, size):
            out.append(
                (
                    f"{setup.kind} world {setup.seed} at {setup.elevation:.0f} degrees, "
                    f"{size[0]}x{size[1]}",
                    lambda s=setup: load(s, heights_cache),
                )
            )
    for size in VALIDATION_SIZES:
        for table in ba.setups("validation", VALIDATION_TABLES, ("hardest",), size, GAME):
            out.append(
                (
                    f"{table.kind} world {table.seed} (hardest), {size[0]}x{size[1]}",
                    lambda t=table: ba.load_setup(t, tables, print),
                )
            )
    return out


# --- the benchmark ---------------------------------------------------------------------------


@dataclass
class HeightScore:
    stacks: int = 0
    right: int = 0
    wrong: int = 0
    right_sure: int = 0
    wrong_sure: int = 0
    abstained: int = 0
    unseen: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        shown = max(1, self.right + self.wrong)
        total = max(1, self.stacks)
        return (
            f"{self.stacks:5d} stacks: read {self.right + self.wrong} "
            f"({100 * (self.right + self.wrong) / total:5.1f}%), "
            f"right {self.right} ({100 * self.right / shown:6.2f}% of read); "
            f"read at >= 0.9: {self.right_sure + self.wrong_sure}, right "
            f"{self.right_sure}, wrong {self.wrong_sure}; abstained {self.abstained} "
            f"({self.unseen} not shown by the view)"
        )

    def why(self) -> str:
        return "; ".join(
            f"{why}: {n}" for why, n in sorted(self.reasons.items(), key=lambda x: -x[1])
        )


@dataclass
class HeightFigures:
    """What :func:`measure` found: the scores per elevation and height, and the reader's
    processor times (the first frame of a view; the same frame again, once the view and
    what lies on the table are known)."""

    scores: dict[str, HeightScore] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    known: list[float] = field(default_factory=list)


def measure(
    set_name: str,
    count: int,
    elevations: Sequence[float],
    size: tuple[int, int],
    cache: Path | None,
    progress: Callable[[str], None] = lambda line: print(line, flush=True),
) -> HeightFigures:
    """The heights of stacks of one and two tiles on ``count`` setups of set
    ``set_name`` at ``elevations``, per elevation and height."""
    import cv2  # deferred: loads OpenCV

    cv2.setNumThreads(1)
    figures = HeightFigures()
    scores, times, known = figures.scores, figures.times, figures.known
    for setup in setups(set_name, count, tuple(elevations), size):
        pictures = load(setup, cache)
        reader, view = calibrated_reader(pictures)
        for index, (image, truth) in enumerate(pictures.plays):
            started = time.process_time()
            reading = reader.read(image, view)
            if index == 0:
                times.append(time.process_time() - started)
            # once the view and what lies on the table are known: the same picture again
            started = time.process_time()
            reader.read(image, view)
            known.append(time.process_time() - started)
            for name, value in truth["visible"].items():
                if not name.endswith(HEIGHT_SUFFIX) or value not in (1, 2):
                    continue
                for key in (
                    f"{setup.elevation:4.0f} deg, height {value}",
                    f"{setup.elevation:4.0f} deg, all",
                ):
                    score = scores.setdefault(key, HeightScore())
                    score.stacks += 1
                    got = reading.observation[name]
                    if not got.known:
                        score.abstained += 1
                        score.unseen += name in reading.unseen
                        why = reading.abstained.get(name, "?")
                        score.reasons[why] = score.reasons.get(why, 0) + 1
                        continue
                    ok = got.value == value
                    score.right += ok
                    score.wrong += not ok
                    score.right_sure += ok and got.confidence >= 0.9
                    score.wrong_sure += (not ok) and got.confidence >= 0.9
        progress(f"{setup.kind} world {setup.seed} at {setup.elevation:.0f} degrees read")
    return figures
