"""Rendered tables of many worlds for the appearance reader: the sets it is fitted on,
validated on and tested on, the fit (``companion vision fit``) and the benchmark
(``companion bench appearance``).

A *setup* is one world (:mod:`vision.synth.world`) photographed by one camera at one
difficulty level: the player's calibration pictures (the empty board; the calibration
position with every bridge, stone and a few tiles of each colour, or ShenShi's with every
monk, cushion colour and tile face) and then pictures of
the game at several depths, under the level's light, with its hands, glare and clutter.
The light of play differs from the light of calibration.

Sets are separate by world seed and by kind of world:

- ``train``: the project's world and ``painted`` worlds, setup seeds 1-999;
- ``validation``: ``painted`` worlds, setup seeds 1000-1999 (used to choose nothing
  but to check the fit);
- ``test``: ``landscape`` worlds (a kind never used for fitting or choosing anything),
  setup seeds 2000 on, and the project's world at seeds 2000 on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from engines.observation import Observation
from vision.evaluate import LEVELS
from vision.evaluate.sets import LEVEL_SPECS, Shot, _camera_and_pose, _state_observation, shot_view
from vision.models import referee_schema

GAMES = ("shangrila", "shendao", "shenshi")
"""Games the appearance reader reads (those with worlds other than the project's)."""
KINDS_OF = {
    "shangrila": ("space", "bridge", "stone"),
    "shendao": ("square", "gate"),
    "shenshi": ("tile", "cushion", "monk"),
}
SETS = {
    "train": (("project", "painted"), 1),
    "validation": (("painted",), 1000),
    "test": (("landscape", "project"), 2000),
}
PLAYS_PER_SETUP = 3
CACHE_VERSION = 1
DEPTHS = (6, 20, 45, 80)


@dataclass(frozen=True)
class Setup:
    """One world, camera and level; its pictures follow from these alone."""

    kind: str
    seed: int
    level: str
    size: tuple[int, int]
    game: str = "shangrila"
    markers: bool = False
    """The printed corner markers stuck on the board (to find it in every picture)."""

    @property
    def key(self) -> str:
        return (
            f"a{CACHE_VERSION}-{self.game}-{self.kind}-{self.seed}-{self.level}-"
            f"{self.size[0]}x{self.size[1]}" + ("-markers" if self.markers else "")
        )


def setups(
    name: str,
    count: int,
    levels: Sequence[str] = LEVELS,
    size: tuple[int, int] = (1280, 720),
    game: str = "shangrila",
    markers: bool = False,
    first_seed: int | None = None,
) -> list[Setup]:
    """``count`` setups of set ``name``, spread over its kinds of world and ``levels``,
    their seeds from the set's first (or ``first_seed``) on."""
    kinds, first = SETS[name]
    if first_seed is not None:
        beyond = min((f for _, f in SETS.values() if f > first), default=None)
        if first_seed < first or (beyond is not None and first_seed + count > beyond):
            raise ValueError(f"seeds from {first_seed} are not all of the {name} set")
        first = first_seed
    return [
        Setup(
            kinds[i % len(kinds)],
            first + i,
            levels[(i // len(kinds)) % len(levels)],
            size,
            game,
            markers,
        )
        for i in range(count)
    ]


@dataclass
class Pictures:
    """A setup's pictures: calibration (empty, position) and play, with their truth."""

    setup: Setup
    empty: Any
    calibration: Any
    calibration_truth: Any
    plays: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    camera: dict[str, Any] = field(default_factory=dict)
    pose: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Scene:
    """What a setup's pictures share: the world, the camera in place, its imaging, the
    light of calibration, the calibration's positions, and the random draws still to
    come (the pictures of play)."""

    setup: Setup
    world: Any
    camera: Any
    pose: Any
    imaging: Any
    calm_light: Any
    empty: Observation
    layout: Observation
    light: Callable[[], Any]
    rng: np.random.Generator


def _scene(setup: Setup) -> _Scene:
    from calibration.boards import board_geometry  # deferred: loads OpenCV
    from vision.appearance import calibration_layout  # deferred: loads OpenCV
    from vision.appearance_core import bare_value  # deferred: loads OpenCV
    from vision.synth.camera import LIGHTS, Imaging  # deferred: loads OpenCV
    from vision.synth.world import make_world  # deferred: loads OpenCV

    spec = LEVEL_SPECS[setup.level]
    rng = np.random.default_rng([setup.seed, LEVELS.index(setup.level), 41])
    game = setup.game
    world = make_world(game, setup.kind, setup.seed)
    model = world.model
    shot = Shot(game, setup.level, 0, setup.seed, setup.size)
    camera, pose = _camera_and_pose(shot, rng, model.size_mm)
    imaging = Imaging(
        blur_sigma=spec.blur,
        noise_sigma=spec.noise,
        shot_noise=0.3,
        vignetting=0.15,
        jpeg_quality=spec.jpeg,
    )

    def light() -> Any:
        chosen = LIGHTS[spec.lights[int(rng.integers(len(spec.lights)))]]
        if setup.level == "hardest":
            chosen = replace(
                chosen,
                direction_deg=float(rng.uniform(0, 360)),
                key_level=float(rng.uniform(0.45, 0.7)),
            )
        return chosen

    schema = referee_schema(game)
    empty = Observation(
        schema,
        {
            e: (0 if e.endswith("^") else bare_value(schema.values[e]))
            for e in schema.elements
            if model.on_board(e)
        },
    )
    layout = calibration_layout(schema, model, board_geometry(game).player_colours)
    # calibration happens once, under one light, with the camera in place
    calm_light = light()
    return _Scene(setup, world, camera, pose, imaging, calm_light, empty, layout, light, rng)


def _calibration_pictures(scene: _Scene, seed: int) -> tuple[Any, Any]:
    """The empty board and the calibration position, photographed under the light of
    calibration; ``seed`` places everything random (the table's clutter among it)."""
    from vision.synth.table import TableOptions, render_table  # deferred: loads OpenCV

    setup, world = scene.setup, scene.world
    spec = LEVEL_SPECS[setup.level]
    pictures = []
    for observation, options, offset in (
        (scene.empty, TableOptions(clutter=spec.clutter, markers=setup.markers), 0),
        (
            scene.layout,
            TableOptions(
                clutter=spec.clutter, placement_mm=spec.placement_mm, markers=setup.markers
            ),
            1,
        ),
    ):
        pictures.append(
            render_table(
                observation,
                scene.camera,
                scene.pose,
                light=scene.calm_light,
                imaging=scene.imaging,
                options=options,
                seed=seed + offset,
                model=world.model,
                art=world.art(),
                colours=world.colours,
            ).image
        )
    return pictures[0], pictures[1]


def render_setup(setup: Setup) -> Pictures:
    from vision.synth.table import TableOptions, render_table  # deferred: loads OpenCV

    spec = LEVEL_SPECS[setup.level]
    scene = _scene(setup)
    rng, world = scene.rng, scene.world

    def photograph(observation: Any, hands: int, calm: bool) -> Any:
        options = TableOptions(
            hands=hands,
            clutter=spec.clutter,
            markers=setup.markers,
            glare=0.0 if calm else spec.glare,
            placement_mm=spec.placement_mm,
            placement_deg=3.0 * spec.placement_mm,
        )
        return render_table(
            observation,
            scene.camera,
            scene.pose,
            light=scene.light(),
            imaging=scene.imaging,
            options=options,
            seed=int(rng.integers(2**31)),
            model=world.model,
            art=world.art(),
            colours=world.colours,
        )

    empty, calibration = _calibration_pictures(scene, setup.seed)
    pictures = Pictures(
        setup,
        empty,
        calibration,
        scene.layout.to_json()["readings"],
        camera=asdict(scene.camera),
        pose=asdict(scene.pose),
    )
    for index in range(PLAYS_PER_SETUP):
        depth = DEPTHS[(setup.seed + index) % len(DEPTHS)] + int(rng.integers(0, 4))
        observation = _state_observation(setup.game, int(rng.integers(2**31)), depth)
        hands = 1 if rng.random() < spec.hand_share else 0
        picture = photograph(observation, hands, calm=False)
        pictures.plays.append(
            (
                picture.image,
                {
                    "observation": observation.to_json()["readings"],
                    "visible": picture.visible().to_json()["readings"],
                    "hands": hands,
                },
            )
        )
    return pictures


RETAKES = 3
"""How many times the player takes the calibration pictures again when the calibration
says something is over the board, at most."""
RETAKE_SEED = 7919
"""Seeds of the pictures taken again: the setup's, plus this times the attempt (the
player moved what stood over the board; the table's clutter lies elsewhere)."""


def clear_calibration(pictures: Pictures) -> tuple[Pictures, list[list[str]]]:
    """The setup's pictures with calibration pictures the check of a clear board
    (:func:`vision.appearance_clear.obstructions`) is happy with: as a player told
    "something lay over the board" clears it and takes both pictures again, up to
    :data:`RETAKES` times. The board is placed in the empty board's picture by its
    markers, as the app places it (the exact view when it has no markers or they are
    not found). Also the warnings each attempt brought (none: taken once)."""
    from vision.appearance_clear import describe, obstructions  # deferred: loads OpenCV
    from vision.evaluate.score import lens_profile  # deferred: loads OpenCV
    from vision.locate import Locator  # deferred: loads OpenCV

    setup = pictures.setup
    model = _model(setup)
    layout = Observation.from_json(
        referee_schema(setup.game), {"readings": pictures.calibration_truth}
    )
    warnings: list[list[str]] = []
    scene = None
    for attempt in range(RETAKES + 1):
        view = _view(pictures, model.size_mm)
        if setup.markers:
            found = Locator(setup.game, camera=lens_profile({"camera": pictures.camera}))
            view = found.locate(pictures.empty).view or view
        said = describe(
            obstructions(model, pictures.empty, view, pictures.calibration, view, layout),
            model.size_mm,
        )
        if not said or attempt == RETAKES:
            return pictures, warnings
        warnings.append(said)
        scene = scene or _scene(setup)
        empty, calibration = _calibration_pictures(scene, setup.seed + RETAKE_SEED * (attempt + 1))
        pictures = replace(pictures, empty=empty, calibration=calibration)
    return pictures, warnings


def cached_pictures(folder: Path, setup: Setup) -> Pictures | None:
    """The pictures :func:`store_pictures` kept in ``folder``; ``None`` when they are
    not all there."""
    import cv2  # deferred: loads OpenCV

    if not (folder / "truth.json").exists():
        return None
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    images = [
        cv2.imread(str(folder / f"{i}.png"), cv2.IMREAD_COLOR)
        for i in range(2 + len(truth["plays"]))
    ]
    if any(image is None for image in images):
        return None
    return Pictures(
        setup,
        images[0],
        images[1],
        truth["calibration"],
        list(zip(images[2:], truth["plays"], strict=True)),
        truth["camera"],
        truth["pose"],
    )


def store_pictures(folder: Path, pictures: Pictures) -> None:
    """Keep a setup's pictures and their truth in ``folder``."""
    import cv2  # deferred: loads OpenCV

    folder.mkdir(parents=True, exist_ok=True)
    for i, image in enumerate(
        [pictures.empty, pictures.calibration, *(p[0] for p in pictures.plays)]
    ):
        cv2.imwrite(str(folder / f"{i}.png"), image)
    (folder / "truth.json").write_text(
        json.dumps(
            {
                "calibration": pictures.calibration_truth,
                "plays": [p[1] for p in pictures.plays],
                "camera": pictures.camera,
                "pose": pictures.pose,
            }
        ),
        encoding="utf-8",
    )


def load_setup(setup: Setup, cache: Path | None, progress: Callable[[str], None]) -> Pictures:
    """A setup's pictures, from the cache or rendered (and cached)."""
    folder = None if cache is None else cache / setup.key
    if folder is not None and (cached := cached_pictures(folder, setup)) is not None:
        return cached
    progress(f"rendering {setup.kind} world {setup.seed} ({setup.level})")
    pictures = render_setup(setup)
    if folder is not None:
        store_pictures(folder, pictures)
    return pictures


def _view(pictures: Pictures, size_mm: tuple[float, float]) -> Any:
    return shot_view({"camera": pictures.camera, "pose": pictures.pose}, size_mm)


def calibrated_reader(
    pictures: Pictures, fitted: Any = None, view: Any = None, fit_layout: bool = False
) -> Any:
    """The appearance reader of a setup, calibrated on its calibration pictures seen
    through ``view`` (default: their exact view), and that view. With ``fit_layout``,
    the board's layout is the one ``companion calibrate layout`` fits from the same
    pictures, starting from the project's model, as a player's calibration has it
    (``calibration.layout.LayoutError`` when it cannot); else the world's true one."""
    from calibration.layout import fit_layout as fit  # deferred: loads OpenCV
    from vision.appearance import AppearanceReader, calibrate, load_fitted  # deferred: loads OpenCV
    from vision.models import load_model  # deferred: loads OpenCV
    from vision.synth.world import make_world  # deferred: loads OpenCV

    game = pictures.setup.game
    world = make_world(game, pictures.setup.kind, pictures.setup.seed)
    model = world.model
    schema = referee_schema(game)
    view = view if view is not None else _view(pictures, model.size_mm)
    layout = Observation.from_json(schema, {"readings": pictures.calibration_truth})
    if fit_layout:
        model = fit(
            game, load_model(game), pictures.empty, view, [(pictures.calibration, view, layout)]
        ).model
    appearance = calibrate(
        game, model, pictures.empty, view, [(pictures.calibration, view, layout)]
    )
    fitted = fitted if fitted is not None else _untrained_or(load_fitted, game)
    return AppearanceReader(game, model, appearance, fitted, schema), view


def _untrained_or(load: Callable[[str], Any], game: str) -> Any:
    """The shipped weights of ``game``; untrained ones (every weight 0) before the first
    fit, which the fit's own examples are computed with (the weights play no part in
    the features)."""
    from vision.appearance import FittedModel  # deferred: loads OpenCV
    from vision.appearance_core import FEATURES, AppearanceError  # deferred: loads OpenCV

    try:
        return load(game)
    except AppearanceError:
        return FittedModel(game, {k: np.zeros(len(FEATURES)) for k in KINDS_OF[game]}, {})


FOREIGN_PER_FRAME = 8
"""Foreign objects laid over each training picture (see :func:`with_foreign_objects`)."""


def with_foreign_objects(
    image: Any, reader: Any, view: Any, seed: int, count: int = FOREIGN_PER_FRAME
) -> tuple[Any, set[str]]:
    """A copy of ``image`` with ``count`` opaque blobs of random colour and grain laid
    over random elements (a hand, a phone, a cup: *something else*), and the elements
    they cover. Colours near one of the set's piece colours are not used, so that the
    label "something else" is never a piece's colour."""
    import cv2  # deferred: loads OpenCV

    from vision.appearance_core import (  # deferred: loads OpenCV
        distance,
        linear,
        log_colour,
        sample,
    )

    rng = np.random.default_rng(seed)
    out = image.copy()
    sampling = reader.sampling(view)
    covered: set[str] = set()
    prototypes = [c for values in reader.appearance.colours.values() for c in values.values()]
    for _ in range(count):
        for _attempt in range(20):
            bgr = rng.integers(0, 256, 3)
            colour = log_colour(linear(bgr.astype(np.uint8)[None, :]))[0]
            if all(float(np.min(distance(colour, p))) > 0.8 for p in prototypes):
                break
        target = int(rng.integers(len(sampling.elements)))
        points = sampling.pixels[sampling.owner == target]
        centre = points.mean(axis=0)
        radius = float(np.linalg.norm(points - centre, axis=1).max()) * rng.uniform(1.1, 2.5)
        mask = np.zeros(out.shape[:2], np.uint8)
        axes = (max(2, int(radius)), max(2, int(radius * rng.uniform(0.6, 1.0))))
        cv2.ellipse(
            mask,
            (int(centre[0]), int(centre[1])),
            axes,
            float(rng.uniform(0, 180)),
            0,
            360,
            255,
            -1,
        )
        grain = rng.normal(0, 12, out.shape).astype(np.float32)
        blob = np.clip(bgr[None, None, :].astype(np.float32) + grain, 0, 255).astype(np.uint8)
        out[mask > 0] = blob[mask > 0]
        inside = sample(mask, sampling.pixels)[:, 0] > 127
        for index, name in enumerate(sampling.elements):
            if inside[sampling.owner == index].mean() >= 0.6:
                covered.add(name)
    return out, covered


def labelled_frames(
    pictures: Pictures, reader: Any, view: Any, foreign: bool = False
) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Each play picture with what it shows of each element (an element it hides, a
    hand over more than half of it, is None: *something else*); with ``foreign``, after
    each, the picture with foreign objects laid over it, the elements they cover None."""
    for number, (image, truth) in enumerate(pictures.plays):
        labels = {k: truth["visible"].get(k) for k in truth["observation"]}
        yield image, labels
        if foreign:
            changed, covered = with_foreign_objects(
                image, reader, view, pictures.setup.seed * 100 + number
            )
            yield changed, {k: (None if k in covered else v) for k, v in labels.items()}


def iter_examples(pictures: Pictures, foreign: bool = False) -> Iterator[Any]:
    """The labelled examples of a setup's play pictures; with ``foreign``, also of each
    picture with foreign objects laid over it (the elements they cover labelled
    *something else*)."""
    from vision.appearance import examples  # deferred: loads OpenCV

    reader, view = calibrated_reader(pictures)
    for frame, labels in labelled_frames(pictures, reader, view, foreign):
        yield from examples(reader.element_features(frame, view), labels)


def iter_square_examples(pictures: Pictures, foreign: bool = False) -> Iterator[Any]:
    """The square network's labelled examples of a setup's play pictures (and, with
    ``foreign``, of each with foreign objects laid over it, as :func:`iter_examples`):
    per picture, the maps of every square and, per square, each kind's true alternative
    (-1 where the element is not shown, or its set's calibration left a value out)."""
    from vision.appearance import fit_light  # deferred: loads OpenCV
    from vision.appearance_core import OTHER  # deferred: loads OpenCV
    from vision.appearance_stacks import ALTERNATIVES, STACK  # deferred: loads OpenCV

    reader, view = calibrated_reader(pictures)
    for frame, truths in labelled_frames(pictures, reader, view, foreign):
        light = fit_light(frame, view, reader.appearance, reader.model.size_mm)
        items = {i.element: i for i in reader.element_features(frame, view, light, context=False)}
        maps = reader.square_maps(frame, view, light)
        table = np.full((len(maps), len(STACK)), -1, dtype=np.intp)
        for row, square in enumerate(reader.squares):
            for k, kind in enumerate(STACK):
                name = f"{square} {kind}"
                item = items.get(name)
                if item is None or item.seen_share < 0.5 or name not in truths:
                    continue
                value = truths[name]
                label = OTHER if value is None else value
                found = [
                    i for i, v in enumerate(item.values) if v == label and type(v) is type(label)
                ]
                if found and len(item.values) == ALTERNATIVES[kind]:
                    table[row, k] = found[0]
        yield maps, table


def iter_flat_examples(pictures: Pictures, foreign: bool = False) -> Iterator[Any]:
    """The flat square network's labelled examples of a setup's play pictures (and, with
    ``foreign``, of each with foreign objects laid over it, as :func:`iter_examples`):
    per picture, the maps of its shown flat squares and each one's true alternative
    among the reader's (bare, each tile value, something else), and those alternatives.
    A square whose set's calibration left a tile value out gives none."""
    from vision.appearance import fit_light  # deferred: loads OpenCV
    from vision.appearance_core import OTHER  # deferred: loads OpenCV

    reader, view = calibrated_reader(pictures)
    if not reader.flat_squares:
        return
    for frame, truths in labelled_frames(pictures, reader, view, foreign):
        light = fit_light(frame, view, reader.appearance, reader.model.size_mm)
        items = {i.element: i for i in reader.element_features(frame, view, light, context=False)}
        rows, chosen = [], []
        for row, square in enumerate(reader.flat_squares):
            item = items[square]
            if item.seen_share < 0.5 or square not in truths:
                continue
            value = truths[square]
            label = OTHER if value is None else value
            found = [i for i, v in enumerate(item.values) if v == label]
            if found:
                rows.append(row)
                chosen.append(found[0])
        first = items[reader.flat_squares[0]]
        tiles = [str(v) for v in first.values[1:-1]]
        shown = {str(v) for v in reader.appearance.colours.get(first.kind, {})}
        if not rows or not shown.issuperset(tiles):
            continue
        maps = reader.flat_maps(frame, view, light, rows, tiles)
        yield maps, np.array(chosen, dtype=np.intp), [str(v) for v in first.values]


def default_cache() -> Path:
    return Path("~/.cache/companion/appearance").expanduser()


# --- the benchmark ---------------------------------------------------------------------------


@dataclass
class Score:
    elements: int = 0
    right: int = 0
    wrong: int = 0
    wrong_sure: int = 0
    not_shown: int = 0
    unsure: int = 0
    boards: int = 0
    perfect: int = 0
    sure: int = 0
    sure_right: int = 0

    def line(self) -> str:
        shown = max(1, self.right + self.wrong)
        return (
            f"{self.boards} boards, {self.elements} elements: "
            f"{100 * self.right / shown:.2f}% of shown right, "
            f"{100 * self.wrong_sure / max(1, self.elements):.3f}% wrong at >= 0.9, "
            f"unsure {100 * self.unsure / max(1, self.elements):.2f}%, "
            f"not shown {100 * self.not_shown / max(1, self.elements):.2f}%, "
            f"perfect {self.perfect}/{self.boards}, "
            f"right at >= 0.9: {100 * self.sure_right / max(1, self.sure):.2f}%"
        )

    def add(self, other: Score) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


def score_reading(
    score: Score,
    reading: Any,
    visible: dict[str, Any],
    schema: Any,
    elements: Sequence[str],
    read: bool = True,
) -> None:
    """Add one picture's reading to ``score``; ``read=False``: the picture was not read
    at all (the board not placed, its layout not fitted), so it is not a perfect board
    however few of its elements are wrong."""
    truth = Observation.from_json(schema, {"readings": visible})
    wrong = 0
    for name in elements:
        if not truth[name].known:
            continue
        score.elements += 1
        got = reading.observation[name]
        if not got.known:
            if name in reading.unseen:
                score.not_shown += 1
            else:
                score.unsure += 1
            continue
        ok = got.value == truth[name].value and type(got.value) is type(truth[name].value)
        score.right += ok
        score.wrong += not ok
        wrong += not ok
        if got.confidence >= 0.9:
            score.sure += 1
            score.sure_right += ok
            score.wrong_sure += not ok
    score.boards += 1
    score.perfect += wrong == 0 and read


LOCATE_MODES = {
    "truth": ("exact",),
    "markers": ("markers",),
    "calibrated": ("calibrated",),
    "both": ("exact", "markers"),
    "all": ("exact", "markers", "calibrated"),
}
"""``--locate``: where the board is taken to be, each mode a row of the figures: ``exact``
(the picture's exact view); ``markers`` (found by its corner markers in the calibration
pictures as in the pictures of play, each picture by a locator of its own: a cold start,
every picture a first frame); ``calibrated`` (as the app finds it once the set is
calibrated: one locator for the setup sees the empty board the player calibrated with,
then the pictures of play one after the other, each followed from the view before it,
as :class:`vision.pipeline.Pipeline` keeps its locator between frames)."""
MODE_ORDER = ("exact", "markers", "calibrated")
MODE_NAMES = {
    "exact": "exact view",
    "markers": "markers",
    "calibrated": "markers, after calibration",
}
"""How the tables name each way of finding the board."""
RELIABLE_MARKER_PX = 20.0
"""Markers of this side and more must be found (the goal the boards located are held to)."""


@dataclass
class Cell:
    """The figures of one row: a kind of world, a level, a picture size, a way to
    locate the board and a reader."""

    score: Score = field(default_factory=Score)
    pictures: int = 0
    located: int = 0
    """Pictures where the board was found (``markers``: by a fresh locator, a first frame;
    ``calibrated``: by the setup's locator, which saw the empty board and the pictures
    before)."""
    pictures_reliable: int = 0
    located_reliable: int = 0
    """The same, over the pictures whose smallest marker in the picture is at least
    ``RELIABLE_MARKER_PX`` a side."""
    calibrations: int = 0
    calibrations_located: int = 0
    """Setups whose empty-board picture was located by its markers (the others are
    calibrated with the exact view and counted here)."""
    layouts_failed: int = 0
    """Setups whose layout, fitted as the player's calibration fits it (``--layout
    fitted``), could not be fitted: their pictures count as not read."""
    setups: int = 0
    retaken: int = 0
    """Of the setups read, those whose calibration pictures were taken again because the
    calibration said something lay over the board (:func:`clear_calibration`)."""
    marker_px: list[float] = field(default_factory=list)
    """The smallest marker side in each picture (the square root of its area, px)."""
    known_ms: list[float] = field(default_factory=list)
    """Processor time of a frame once the view is known: the picture read again with
    the view kept (its sample plan and the view's own work made), tracking included
    when the board is found by its markers."""
    first_ms: list[float] = field(default_factory=list)
    """Processor time of the first frame of a view: locating the board in the whole
    picture (by its markers) and the first reading there, the sample plan made."""

    def add(self, other: Cell) -> None:
        self.score.add(other.score)
        for name in (
            "pictures",
            "located",
            "pictures_reliable",
            "located_reliable",
            "calibrations",
            "calibrations_located",
            "setups",
            "retaken",
            "layouts_failed",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.marker_px += other.marker_px
        self.known_ms += other.known_ms
        self.first_ms += other.first_ms

    def figures(self) -> dict[str, Any]:
        """The row's figures (shares in percent, times in ms), as the tables show them."""
        s = self.score
        shown = s.right + s.wrong
        return {
            "boards": s.boards,
            "elements": s.elements,
            "located": _share(self.located, self.pictures),
            "calibrations_retaken": f"{self.retaken}/{self.setups}",
            "layouts_failed": f"{self.layouts_failed}/{self.setups}",
            "located_reliable": _share(self.located_reliable, self.pictures_reliable),
            "marker_px_median": _median(self.marker_px),
            "marker_px_smallest": round(min(self.marker_px), 1) if self.marker_px else None,
            "right": _share(s.right, shown),
            "wrong_sure": _share(s.wrong_sure, s.elements, 3),
            "unsure": _share(s.unsure, s.elements),
            "not_shown": _share(s.not_shown, s.elements),
            "perfect": f"{s.perfect}/{s.boards}",
            "right_sure": _share(s.sure_right, s.sure),
            "known_ms": _median(self.known_ms),
            "first_ms": _median(self.first_ms),
            "first_ms_max": round(max(self.first_ms), 1) if self.first_ms else None,
        }


def _share(part: int, whole: int, digits: int = 2) -> float | None:
    return round(100.0 * part / whole, digits) if whole else None


def _median(values: Sequence[float]) -> float | None:
    return round(float(np.median(values)), 1) if values else None


def _marker_px(view: Any, game: str) -> float:
    """The smallest of the board's markers in the picture of ``view`` (side, px)."""
    from vision.bench_locate import marker_sides_px  # deferred: loads OpenCV

    return min(marker_sides_px(view, game).values())


def bench_setup(
    pictures: Pictures,
    modes: Sequence[str],
    fitted: Any = None,
    colour: bool = False,
    layout: str = "true",
) -> dict[tuple[str, str], Cell]:
    """Read one setup's pictures of play in each ``mode`` (``exact``, ``markers``,
    ``calibrated``: see :data:`LOCATE_MODES`), the board's layout the world's true one
    or, with ``layout="fitted"``, the one the player's calibration fits:
    a :class:`Cell` per (reader, mode); the reader ``appearance``, and ``colour`` (the
    colour reader given the same views) when asked."""

    from calibration.layout import LayoutError  # deferred: loads OpenCV
    from vision.evaluate.score import lens_profile  # deferred: loads OpenCV
    from vision.locate import Locator  # deferred: loads OpenCV

    setup = pictures.setup
    cells: dict[tuple[str, str], Cell] = {}
    exact = _view(pictures, _model(setup).size_mm)
    smallest = _marker_px(exact, setup.game) if setup.markers else float("nan")
    profile = lens_profile({"camera": pictures.camera})
    for mode in modes:
        cell = cells.setdefault(("appearance", mode), Cell())
        calibration_view = exact
        follower = None
        if mode in ("markers", "calibrated"):
            # the player calibrates where the markers put the board, as the app does
            calibrating = Locator(setup.game, camera=profile)
            found = calibrating.locate(pictures.empty)
            cell.calibrations += 1
            if found.view is not None:
                cell.calibrations_located += 1
                calibration_view = found.view
            if mode == "calibrated":
                # the app keeps this locator: it follows the board from the calibration's
                # view and from the frames before (never from the truth)
                follower = calibrating
        try:
            reader, _ = calibrated_reader(pictures, fitted, calibration_view, layout == "fitted")
        except LayoutError:
            # the player's layout fit failed: nothing of the setup is read
            cell.layouts_failed += 1
            schema, model = referee_schema(setup.game), _model(setup)
            nothing = SimpleNamespace(observation=Observation(schema, {}), unseen=frozenset())
            elements = [e for e in schema.elements if e.removesuffix("^") in model.elements]
            for _, truth in pictures.plays:
                score_reading(cell.score, nothing, truth["visible"], schema, elements, read=False)
            continue
        elements = [
            e for e in reader.schema.elements if e.removesuffix("^") in reader.model.elements
        ]
        colour_reader = None
        if colour:
            from vision.pipeline import reader_for  # deferred: loads OpenCV

            colour_reader = reader_for(setup.game, reader.model)
            cells.setdefault(("colour", mode), Cell())
        for number, (image, truth) in enumerate(pictures.plays):
            cell.pictures += 1
            if setup.markers:
                cell.marker_px.append(round(smallest, 1))
                cell.pictures_reliable += smallest >= RELIABLE_MARKER_PX
            started = time.process_time()
            view, locator = exact, None
            if mode == "markers":
                locator = Locator(setup.game, camera=profile)
                view = locator.locate(image).view
            elif follower is not None:
                locator = follower
                view = locator.locate(image).view
            if view is None:
                # not found: every element the picture shows counts as not read (unsure)
                nothing = SimpleNamespace(
                    observation=Observation(reader.schema, {}), unseen=frozenset()
                )
                for name in ("appearance", "colour") if colour else ("appearance",):
                    score_reading(
                        cells[name, mode].score,
                        nothing,
                        truth["visible"],
                        reader.schema,
                        elements,
                        read=False,
                    )
                continue
            cell.located += 1
            cell.located_reliable += setup.markers and smallest >= RELIABLE_MARKER_PX
            read = reader.read(image, view)
            if number == 0:
                cell.first_ms.append(1000.0 * (time.process_time() - started))
            started = time.process_time()
            if locator is not None:
                view = locator.locate(image).view or view  # tracked from the search
            reader.read(image, view)
            cell.known_ms.append(1000.0 * (time.process_time() - started))
            score_reading(cell.score, read, truth["visible"], reader.schema, elements)
            if colour_reader is not None:
                score_reading(
                    cells["colour", mode].score,
                    colour_reader.read(image, view),
                    truth["visible"],
                    reader.schema,
                    elements,
                )
    return cells


def _model(setup: Setup) -> Any:
    from vision.synth.world import make_world  # deferred: loads OpenCV

    return make_world(setup.game, setup.kind, setup.seed).model


def row_key(setup: Setup, reader: str, mode: str) -> str:
    """The row a setup's figures go to: ``reader | world | level | size | mode``."""
    return f"{reader}|{setup.kind}|{setup.level}|{setup.size[0]}x{setup.size[1]}|{mode}"


def bench_table(
    game: str,
    set_name: str,
    count: int,
    levels: Sequence[str],
    sizes: Sequence[tuple[int, int]],
    locate: str,
    cache: Path | None,
    progress: Callable[[str], None],
    fitted: Any = None,
    colour: bool = False,
    done: Callable[[dict[str, Cell]], None] | None = None,
    first_seed: int | None = None,
    retake: bool = True,
    layout: str = "true",
) -> dict[str, Cell]:
    """The figures of ``count`` setups of ``set_name`` at each size in ``sizes`` (each
    size its own pictures: the same worlds, cameras and positions), each picture read in
    every mode of ``locate`` (a key of :data:`LOCATE_MODES`): a :class:`Cell` per
    :func:`row_key`. ``done`` is given the figures so far after every setup. With
    ``retake``, the calibration pictures are taken again while the calibration warns of
    something over the board, as the player is told to (:func:`clear_calibration`)."""
    import cv2  # deferred: loads OpenCV

    cv2.setNumThreads(1)  # the figures are for one core
    modes = LOCATE_MODES[locate]
    rows: dict[str, Cell] = {}
    chosen = [
        s
        for size in sizes
        for s in setups(set_name, count, levels, size, game, modes != ("exact",), first_seed)
    ]
    started = time.time()
    for number, setup in enumerate(chosen, 1):
        pictures = load_setup(setup, cache, lambda m: progress(f"  {m}"))
        warnings: list[list[str]] = []
        if retake:
            pictures, warnings = clear_calibration(pictures)
            for attempt, said in enumerate(warnings, 1):
                progress(f"  calibration {attempt} warned: {'; '.join(said)}: taken again")
        for (reader, mode), cell in bench_setup(pictures, modes, fitted, colour, layout).items():
            cell.setups += 1
            cell.retaken += bool(warnings)
            rows.setdefault(row_key(setup, reader, mode), Cell()).add(cell)
        elapsed = time.time() - started
        left = elapsed / number * (len(chosen) - number)
        progress(
            f"[{number}/{len(chosen)}] {game} {setup.kind} world {setup.seed} "
            f"({setup.level}, {setup.size[0]}x{setup.size[1]}) read; "
            f"{elapsed / 60:.1f} min, about {left / 60:.0f} min left"
        )
        if done is not None:
            done(rows)
    return rows


TABLE_COLUMNS = (
    ("world", None),
    ("level", None),
    ("size", None),
    ("board found by", None),
    ("boards", "boards"),
    ("located", "located"),
    ("markers px (median / smallest)", None),
    ("elements", "elements"),
    ("right", "right"),
    ("wrong at >= 0.9", "wrong_sure"),
    ("unsure", "unsure"),
    ("not shown", "not_shown"),
    ("perfect boards", "perfect"),
    ("right at >= 0.9", "right_sure"),
    ("ms a frame, view known", "known_ms"),
    ("ms first frame (median / largest)", None),
)


def _percent(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}%"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def table_rows(rows: dict[str, Cell], reader: str = "appearance") -> list[dict[str, Any]]:
    """The figures of ``reader``'s rows, in order (world, level, size, mode), each with
    its key's parts."""
    ORDER = LEVELS

    out = []
    for key, cell in rows.items():
        name, world, level, size, mode = key.split("|")
        if name == reader:
            out.append(
                {"world": world, "level": level, "size": size, "mode": mode, **cell.figures()}
            )
    return sorted(
        out,
        key=lambda r: (
            r["world"] != "landscape",
            ORDER.index(r["level"]),
            int(r["size"].split("x")[0]),
            MODE_ORDER.index(r["mode"]) if r["mode"] in MODE_ORDER else len(MODE_ORDER),
            r["mode"],
        ),
    )


def format_markdown(rows: dict[str, Cell], reader: str = "appearance") -> str:
    """The figures as a markdown table (see :data:`TABLE_COLUMNS`)."""
    lines = [
        "| " + " | ".join(name for name, _ in TABLE_COLUMNS) + " |",
        "|" + "---|" * len(TABLE_COLUMNS),
    ]
    for r in table_rows(rows, reader):
        markers = r["mode"] != "exact"
        cells = [
            r["world"],
            r["level"],
            r["size"],
            MODE_NAMES.get(r["mode"], r["mode"]),
            str(r["boards"]),
            _percent(r["located"], 1) if markers else "-",
            f"{_number(r['marker_px_median'])} / {_number(r['marker_px_smallest'])}"
            if r["marker_px_median"] is not None
            else "-",
            str(r["elements"]),
            _percent(r["right"]),
            _percent(r["wrong_sure"], 3),
            _percent(r["unsure"]),
            _percent(r["not_shown"]),
            r["perfect"],
            _percent(r["right_sure"]),
            _number(r["known_ms"]),
            f"{_number(r['first_ms'])} / {_number(r['first_ms_max'])}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


GOALS = {
    "located": 99.0,
    "right": 99.5,
    "wrong_sure": 0.05,
    "unsure": 3.0,
    "known_ms": 30.0,
    "first_ms": 150.0,
}
"""The goals at the hardest level: boards located (pictures whose markers are at least
``RELIABLE_MARKER_PX``), right among the elements read, wrong at 0.9 or more and unsure
among the elements shown (percent), a frame once the view is known and the first frame
(ms, one core; the largest first frame counts)."""


def summary_row(
    rows: dict[str, Cell],
    size: str,
    world: str = "landscape",
    level: str = "hardest",
    mode: str = "markers",
) -> dict[str, Any] | None:
    """The figures of one world, level and size found ``mode``'s way, and which goals
    they meet (:data:`GOALS`); ``None`` when nothing was measured there."""
    key = f"appearance|{world}|{level}|{size}|{mode}"
    if key not in rows:
        return None
    f = rows[key].figures()
    located = f["located_reliable"] if mode != "exact" else 100.0
    met = {
        "located": located is not None and located >= GOALS["located"],
        "right": f["right"] is not None and f["right"] >= GOALS["right"],
        "wrong_sure": f["wrong_sure"] is not None and f["wrong_sure"] <= GOALS["wrong_sure"],
        "unsure": f["unsure"] is not None and f["unsure"] < GOALS["unsure"],
        "known_ms": f["known_ms"] is not None and f["known_ms"] <= GOALS["known_ms"],
        "first_ms": f["first_ms_max"] is not None and f["first_ms_max"] <= GOALS["first_ms"],
    }
    return {**f, "located_goal": located, "met": met}


SUMMARY_HEADER = (
    "| game | size | boards | located | right | wrong at >= 0.9 | unsure | "
    "not shown | perfect boards | right at >= 0.9 | ms a frame | first frame ms "
    "(median / largest) | goals met |\n|" + "---|" * 13
)


def format_summary(
    rows: dict[str, Cell],
    game: str,
    world: str = "landscape",
    level: str = "hardest",
    mode: str = "markers",
) -> str:
    """A markdown row per picture size of ``world`` at ``level`` (see :func:`summary_row`),
    the goals missed named."""
    names = {
        "located": "located",
        "right": "right",
        "wrong_sure": "wrong at >= 0.9",
        "unsure": "unsure",
        "known_ms": "ms a frame",
        "first_ms": "first frame",
    }
    lines = []
    sizes = sorted({key.split("|")[3] for key in rows}, key=lambda s: int(s.split("x")[0]))
    for size in sizes:
        r = summary_row(rows, size, world, level, mode)
        if r is None:
            continue
        missed = [names[k] for k, ok in r["met"].items() if not ok]
        lines.append(
            " | ".join(
                [
                    f"| {game}",
                    size,
                    str(r["boards"]),
                    _percent(r["located"], 1),
                    _percent(r["right"]),
                    _percent(r["wrong_sure"], 3),
                    _percent(r["unsure"]),
                    _percent(r["not_shown"]),
                    r["perfect"],
                    _percent(r["right_sure"]),
                    _number(r["known_ms"]),
                    f"{_number(r['first_ms'])} / {_number(r['first_ms_max'])}",
                    "yes |" if not missed else f"no: {', '.join(missed)} |",
                ]
            )
        )
    return "\n".join(lines)


def rows_from_json(path: Path) -> dict[str, Cell]:
    """The rows a run wrote with ``--json``."""
    document = json.loads(path.read_text(encoding="utf-8"))
    rows = {}
    for key, data in document["rows"].items():
        fields = {k: v for k, v in data.items() if k not in ("figures", "score")}
        rows[key] = Cell(Score(**data["score"]), **fields)
    return rows
