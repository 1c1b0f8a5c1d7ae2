"""``companion bench vision``: how well the camera reads the table, on rendered pictures
with known truth.

For each game with a board model, a fixed-seed held-out set of tables (states after
random engine play of several lengths, from a setup drawn anew for each table: ShenShi's
tiles on the marked squares) is photographed by the renderer
(:mod:`vision.synth`) at three difficulty levels:

- **easy**: camera 70-90 degrees above the table, daylight, little noise;
- **medium**: 50-90 degrees, daylight, warm or dim light, noise, some blur, JPEG;
- **hardest**: down to 35 degrees, the "hardest" light (warm lamp one side, cold window
  the other, one side four times darker) turned any way, strong noise, blur, JPEG,
  glare, clutter and, in half the pictures, a hand over the board.

Each picture is read with its exact view (:func:`vision.view.truth_view`): this bench
measures reading; locating the board has its own bench. For every element the truth
can show (a hand hides less than half of it) the reading is *right*, *wrong* or an
*abstention* (unknown: not an error, counted apart). Elements a hand hides in the truth
are left out and counted as *hidden*. A board is *perfect* when no element is wrong.

Speed is the reader's time per frame on one core, at 1280x720 and 1920x1080, with the
board's view unchanged from the frame before (as when the camera stands still), with
and without the stillness detector.

Rendering takes one to several seconds a picture (the full set of 270 pictures and 18
for timing took about 45 minutes on a shared two-core machine): the pictures are kept
under ``--cache`` (default ``~/.cache/companion/bench-vision``), so a second run only
reads (under a minute).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

LEVELS = ("easy", "medium", "hardest")
# Render set version: bump when the renderer or the sets change, so caches refresh.
SET_VERSION = 1
# A game's own set version where its sets changed alone (its pictures refresh, the other
# games' stay): ShenShi 2, the tiles drawn anew for every table.
GAME_SET_VERSIONS = {"shenshi": 2}
FRAME_SIZE = (1920, 1080)
TIMING_SIZES = ((1280, 720), (1920, 1080))
TIMING_FRAMES = 3
TIMING_REPEATS = 7
# The pictures with corner markers (through localisation) are numbered from here, apart
# from the timing pictures (1000...) and the sets (0...).
LOCATED_FIRST = 2000
LOCATED_FRAMES = 10
# Random moves played before a picture: several depths of the game.
DEPTHS = (4, 12, 25, 45, 80)
PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 2}
SHENSHI_SET_OPTIONS = {"orange_lifts": 1, "lift_put_down": "also-orange-square"}
"""The ShenShi rule options the bench's tables are played by."""


@dataclass(frozen=True)
class LevelSpec:
    """How one difficulty level photographs the table."""

    elevation: tuple[float, float]
    lights: tuple[str, ...]
    noise: float
    blur: float
    jpeg: int | None
    placement_mm: float
    hand_share: float
    glare: float
    clutter: int


LEVEL_SPECS = {
    "easy": LevelSpec((70.0, 90.0), ("daylight",), 1.0, 0.3, None, 0.5, 0.0, 0.0, 0),
    "medium": LevelSpec((50.0, 90.0), ("daylight", "warm", "dim"), 3.0, 0.6, 92, 1.0, 0.0, 0.1, 1),
    "hardest": LevelSpec((35.0, 90.0), ("hardest",), 4.0, 0.9, 85, 1.0, 0.5, 0.3, 3),
}


@dataclass
class Tally:
    """Counts of one group of elements."""

    right: int = 0
    wrong: int = 0
    abstained: int = 0
    unseen: int = 0
    """Of the abstentions, those of elements the view cannot show (a hand over them,
    a view too steep to show the side of the tiles, a piece in front)."""
    hidden: int = 0

    @property
    def seen(self) -> int:
        return self.right + self.wrong + self.abstained

    def accuracy(self) -> float | None:
        """Right among the elements read (abstentions apart)."""
        read = self.right + self.wrong
        return self.right / read if read else None

    @property
    def unsure(self) -> int:
        """Abstentions on elements the reader could see but would not decide."""
        return self.abstained - self.unseen

    def abstention(self) -> float | None:
        return self.abstained / self.seen if self.seen else None

    def unseen_share(self) -> float | None:
        return self.unseen / self.seen if self.seen else None

    def unsure_share(self) -> float | None:
        return self.unsure / self.seen if self.seen else None

    def add(self, other: Tally) -> None:
        self.right += other.right
        self.wrong += other.wrong
        self.abstained += other.abstained
        self.unseen += other.unseen
        self.hidden += other.hidden


@dataclass
class LevelResult:
    game: str
    level: str
    boards: int
    perfect: int = 0
    complete: int = 0
    kinds: dict[str, Tally] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    located: int = 0
    """Boards the Locator found (the run through localisation only)."""
    reasons: dict[str, int] = field(default_factory=dict)
    """Why elements were not read: reason -> count, for the unsure abstentions."""
    unseen_reasons: dict[str, int] = field(default_factory=dict)
    """The same for the elements the view cannot show."""
    by_seed: list[tuple[int, LevelResult]] = field(default_factory=list)
    """Each set's own figures, when several sets were pooled."""

    def add(self, other: LevelResult) -> None:
        """Pool ``other`` (the same game and level, another set) into this one."""
        self.boards += other.boards
        self.perfect += other.perfect
        self.complete += other.complete
        self.located += other.located
        for kind, tally in other.kinds.items():
            self.kinds.setdefault(kind, Tally()).add(tally)
        self.errors.extend(other.errors[: max(0, 40 - len(self.errors))])
        for mine, theirs in (
            (self.reasons, other.reasons),
            (self.unseen_reasons, other.unseen_reasons),
        ):
            for why, n in theirs.items():
                mine[why] = mine.get(why, 0) + n

    def total(self) -> Tally:
        out = Tally()
        for tally in self.kinds.values():
            out.add(tally)
        return out


@dataclass
class Timing:
    game: str
    size: str
    read_ms: float
    read_and_stillness_ms: float
    new_view_ms: float


# --- the held-out sets -------------------------------------------------------------------


def _cache_dir(path: Path | None) -> Path:
    if path is not None:
        return path
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "companion" / "bench-vision"


@dataclass(frozen=True)
class Shot:
    """One picture of the held-out set: what it shows and how it was taken."""

    game: str
    level: str
    index: int
    seed: int
    size: tuple[int, int]
    markers: bool = False
    """With the printed corner markers on the board (the run through localisation)."""

    @property
    def key(self) -> str:
        return (
            f"v{set_version(self.game)}-{self.game}-{self.level}-s{self.seed}-{self.index}-"
            f"{self.size[0]}x{self.size[1]}" + ("-markers" if self.markers else "")
        )


def set_version(game: str) -> int:
    """The version of ``game``'s sets (part of its pictures' cache keys)."""
    return GAME_SET_VERSIONS.get(game, SET_VERSION)


def _set_rules(game: str) -> Any:
    """The rules every table of ``game``'s set is played by (what is in play)."""
    from engines import rules_class

    cls = rules_class(game)
    return cls(cls.default_players(PLAYERS[game]))


def table_rules(game: str, seed: int) -> Any:
    """The rules of the table dealt with ``seed``: the set's, and for ShenShi the
    setup's random draw made with ``seed`` (which tiles lie on the marked squares,
    as the rules option ``seed`` draws them), so that the set shows many layouts
    rather than the one of seed 0."""
    if game != "shenshi":
        return _set_rules(game)
    from engines import rules_class

    cls = rules_class(game)
    # The sets are fixed data: dealt by the rules they were made with, whatever the
    # game's defaults become (one lift per orange hover, put down anywhere free).
    return cls(cls.default_players(PLAYERS[game]), seed=seed, **SHENSHI_SET_OPTIONS)


def _state_observation(game: str, seed: int, depth: int) -> Any:
    """The observation of a table of ``game`` after ``depth`` random moves (fewer if
    the game ends first) from the setup of :func:`table_rules`, all drawn with
    ``seed``."""
    from engines import Dice

    rules = table_rules(game, seed)
    state = rules.initial_state()
    dice = Dice(seed)
    for _ in range(depth):
        if state.is_over():
            break
        draw = getattr(state, "playout_move", state.random_move)
        state.play(draw(dice))
    return importlib.import_module(f"engines.{game}.observation").expected(state)


def _camera_and_pose(shot: Shot, rng: Any, board_mm: tuple[float, float]) -> tuple[Any, Any]:
    """A camera framing the whole board: the distance grows until every corner of the
    board lies inside the picture, 4% from its edges."""
    from vision.synth.camera import Camera, Pose
    from vision.view import truth_view

    spec = LEVEL_SPECS[shot.level]
    camera = Camera.from_fov(shot.size[0], shot.size[1], 60.0, k1=float(rng.uniform(-0.08, 0.0)))
    elevation = float(rng.uniform(*spec.elevation))
    rotation = float(rng.uniform(0.0, 360.0))
    look = (float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20)))
    w, h = board_mm
    corners = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]
    import numpy as np

    distance = 600.0
    while True:
        pose = Pose(elevation, rotation, distance, look)
        view = truth_view(camera, pose, board_mm)
        if bool(view.visible(np.array(corners), 0.04 * shot.size[1]).all()) or distance > 3000:
            return camera, pose
        distance *= 1.05


def render_shot(shot: Shot) -> tuple[Any, dict[str, Any]]:
    """Render one picture of the set: (image, truth) with the truth as JSON-ready data
    (observation, visible elements, camera and pose)."""
    import numpy as np

    from vision.models import load_model
    from vision.synth.camera import LIGHTS, Imaging
    from vision.synth.table import TableOptions, render_table

    spec = LEVEL_SPECS[shot.level]
    rng = np.random.default_rng([shot.seed, LEVELS.index(shot.level), shot.index])
    depth = DEPTHS[shot.index % len(DEPTHS)] + int(rng.integers(0, 4))
    observation = _state_observation(shot.game, int(rng.integers(2**31)), depth)
    model = load_model(shot.game)
    camera, pose = _camera_and_pose(shot, rng, model.size_mm)
    light = LIGHTS[spec.lights[int(rng.integers(len(spec.lights)))]]
    if shot.level == "hardest":
        light = replace(
            light, direction_deg=float(rng.uniform(0, 360)), key_level=float(rng.uniform(0.45, 0.7))
        )
    imaging = Imaging(
        blur_sigma=spec.blur,
        noise_sigma=spec.noise,
        shot_noise=0.3,
        vignetting=0.15,
        jpeg_quality=spec.jpeg,
    )
    hands = 1 if rng.random() < spec.hand_share else 0
    options = TableOptions(
        hands=hands,
        clutter=spec.clutter,
        glare=spec.glare,
        markers=shot.markers,
        placement_mm=spec.placement_mm,
        placement_deg=3.0 * spec.placement_mm,
    )
    picture = render_table(
        observation,
        camera,
        pose,
        light=light,
        imaging=imaging,
        options=options,
        seed=int(rng.integers(2**31)),
        model=model,
    )
    truth = {
        "game": shot.game,
        "level": shot.level,
        "index": shot.index,
        "depth": depth,
        "observation": observation.to_json()["readings"],
        "visible": picture.visible().to_json()["readings"],
        "hands": hands,
        "camera": asdict(camera),
        "pose": asdict(pose),
    }
    return picture.image, truth


def load_shot(
    shot: Shot, cache: Path | None, progress: Callable[[str], None]
) -> tuple[Any, dict[str, Any]]:
    """The picture and truth of ``shot``: from the cache, or rendered (and cached)."""
    import cv2

    if cache is not None:
        image_path = cache / f"{shot.key}.png"
        truth_path = cache / f"{shot.key}.json"
        if image_path.exists() and truth_path.exists():
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            if image is not None:
                return image, json.loads(truth_path.read_text(encoding="utf-8"))
    progress(f"rendering {shot.game} {shot.level} #{shot.index}")
    image, truth = render_shot(shot)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(cache / f"{shot.key}.png"), image)
        (cache / f"{shot.key}.json").write_text(json.dumps(truth), encoding="utf-8")
    return image, truth


def shot_view(truth: dict[str, Any], board_mm: tuple[float, float]) -> Any:
    """The exact view of a picture from its recorded camera and pose."""
    from vision.synth.camera import Camera, Pose
    from vision.view import truth_view

    pose = truth["pose"]
    return truth_view(
        Camera(**truth["camera"]),
        Pose(
            pose["elevation_deg"],
            pose["rotation_deg"],
            pose["distance_mm"],
            tuple(pose["look_at_mm"]),
            pose["roll_deg"],
        ),
        board_mm,
    )


# --- scoring -------------------------------------------------------------------------------


def element_group(game: str, element: str, kind: str) -> str:
    """The group an element is reported under: its kind, or ``stack`` for heights."""
    return "stack" if element.endswith("^") else kind


def score(
    result: LevelResult,
    reader: Any,
    image: Any,
    truth: dict[str, Any],
    label: str,
    view: Any = None,
) -> None:
    """Read one picture and add it to ``result``, where ``view`` puts the board
    (default: the picture's exact view)."""
    from engines.observation import Observation

    schema = reader.schema
    if view is None:
        view = shot_view(truth, reader.model.size_mm)
    reading = reader.read(image, view)
    visible = Observation.from_json(schema, {"readings": truth["visible"]})
    wrong = 0
    complete = True
    for element in schema.elements:
        try:
            kind = reader.model.region(element).kind
        except KeyError:  # off the board (ShenShi's path tokens): not the camera's
            continue
        group = element_group(schema.game, element, kind)
        tally = result.kinds.setdefault(group, Tally())
        if not visible[element].known:
            tally.hidden += 1
            continue
        got = reading.observation[element]
        if not got.known:
            tally.abstained += 1
            complete = False
            why = reading.abstained.get(element, "?")
            counts = result.reasons
            if element in reading.unseen:
                tally.unseen += 1
                counts = result.unseen_reasons
            counts[why] = counts.get(why, 0) + 1
            continue
        want = visible[element].value
        if got.value == want and type(got.value) is type(want):
            tally.right += 1
        else:
            tally.wrong += 1
            wrong += 1
            if len(result.errors) < 40:
                result.errors.append(
                    f"{label}: {element} is {want!r}, read {got.value!r} ({got.confidence:.2f})"
                )
    result.boards += 1
    result.perfect += wrong == 0
    result.complete += wrong == 0 and complete


def lens_profile(truth: dict[str, Any]) -> Any:
    """The renderer's camera of a picture as a calibration profile: the bench's camera
    was calibrated, as a player's would be (``companion calibrate camera``)."""
    from calibration.intrinsics import CameraProfile
    from vision.synth.camera import Camera

    camera = Camera(**truth["camera"])
    matrix = tuple(tuple(float(v) for v in row) for row in camera.matrix)
    return CameraProfile(
        (camera.width, camera.height),
        matrix,
        tuple(float(v) for v in camera.distortion),
        0.0,
        (),
        (),
        "the bench's renderer",
        "",
    )


def score_located(
    result: LevelResult, reader: Any, image: Any, truth: dict[str, Any], label: str
) -> None:
    """Locate the board in a picture with corner markers (a fresh Locator: no
    tracking from another picture), read it there and add it to ``result``. A board
    not found counts every visible element abstained (unsure)."""
    from engines.observation import Observation
    from vision.locate import Locator

    location = Locator(result.game, camera=lens_profile(truth)).locate(image)
    if location.view is not None:
        result.located += 1
        score(result, reader, image, truth, label, location.view)
        return
    visible = Observation.from_json(reader.schema, {"readings": truth["visible"]})
    why = location.message or "board not found"
    for element in reader.schema.elements:
        try:
            kind = reader.model.region(element).kind
        except KeyError:
            continue
        tally = result.kinds.setdefault(element_group(result.game, element, kind), Tally())
        if visible[element].known:
            tally.abstained += 1
            result.reasons[why] = result.reasons.get(why, 0) + 1
        else:
            tally.hidden += 1
    result.boards += 1


# --- timing ----------------------------------------------------------------------------------


def time_reading(
    game: str, seed: int, cache: Path | None, progress: Callable[[str], None]
) -> list[Timing]:
    """Milliseconds per frame on one core, per picture size (median over pictures of
    the hardest level and repeats)."""
    from companion.bench import one_core
    from vision.pipeline import reader_for
    from vision.stillness import StillnessDetector

    out = []
    for size in TIMING_SIZES:
        reader = reader_for(game, rules=_set_rules(game))
        shots = [Shot(game, "hardest", 1000 + i, seed, size) for i in range(TIMING_FRAMES)]
        pictures = [load_shot(s, cache, progress) for s in shots]
        read_ms, both_ms, new_ms = [], [], []
        with one_core():
            for image, truth in pictures:
                view = shot_view(truth, reader.model.size_mm)
                began = time.perf_counter()
                reader.read(image, view)
                new_ms.append((time.perf_counter() - began) * 1000)
                stillness = StillnessDetector(reader.model.size_mm, reader.model)
                for _ in range(TIMING_REPEATS):
                    began = time.perf_counter()
                    reader.read(image, view)
                    read_ms.append((time.perf_counter() - began) * 1000)
                    began = time.perf_counter()
                    state = stillness.update(image, view)
                    reader.read(image, view, state.covered_elements)
                    both_ms.append((time.perf_counter() - began) * 1000)
        out.append(
            Timing(
                game,
                f"{size[0]}x{size[1]}",
                statistics.median(read_ms),
                statistics.median(both_ms),
                statistics.median(new_ms),
            )
        )
    return out


# --- the command -------------------------------------------------------------------------------


def parse_seeds(text: str) -> list[int]:
    """Set seeds from ``"1"``, ``"1,2,7-13"``; raises ``ValueError`` naming the fault."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            raise ValueError(
                f"{part.strip()!r} is not a seed or a range of seeds (1, 2,5 or 7-13)"
            ) from None
        if low < 0 or high < low:
            raise ValueError(f"{part.strip()!r} is not a range of seeds from low to high")
        seeds += [s for s in range(low, high + 1) if s not in seeds]
    return seeds


def run_bench(
    games: list[str],
    levels: list[str],
    frames: int,
    seed: int | Sequence[int],
    cache: Path | None,
    timing: bool,
    progress: Callable[[str], None],
    size: tuple[int, int] = FRAME_SIZE,
    located_frames: int = 0,
) -> tuple[list[LevelResult], list[Timing], list[LevelResult]]:
    """The figures: per game and level with the exact view (``frames`` pictures of each
    set ``seed``, pooled, with each set's own kept in ``by_seed`` when there are
    several), the timings, and per game at the hardest level (when among ``levels``)
    through localisation (``located_frames`` pictures with corner markers, numbered
    apart from the others); the timings and localisation use the first set."""
    from vision.pipeline import reader_for

    seeds = [seed] if isinstance(seed, int) else list(seed)
    seed = seeds[0]
    results = []
    located = []
    timings: list[Timing] = []
    for game in games:
        reader = reader_for(game, rules=_set_rules(game))
        for level in levels:
            result = LevelResult(game, level, 0)
            for set_seed in seeds:
                part = LevelResult(game, level, 0)
                for index in range(frames):
                    shot = Shot(game, level, index, set_seed, size)
                    image, truth = load_shot(shot, cache, progress)
                    label = (
                        f"{level} #{index}"
                        if len(seeds) == 1
                        else f"{level} set {set_seed} #{index}"
                    )
                    score(part, reader, image, truth, label)
                result.add(part)
                if len(seeds) > 1:
                    result.by_seed.append((set_seed, part))
                    progress(f"set {set_seed}: {_summary_line(part)}")
            results.append(result)
            progress(_summary_line(result))
        if located_frames and "hardest" in levels:
            exact = LevelResult(game, "hardest, exact view", 0)
            result = LevelResult(game, "hardest, located", 0)
            for index in range(located_frames):
                shot = Shot(game, "hardest", LOCATED_FIRST + index, seed, size, markers=True)
                image, truth = load_shot(shot, cache, progress)
                label = f"hardest with markers #{LOCATED_FIRST + index}"
                score(exact, reader, image, truth, f"{label} (exact view)")
                exact.located = exact.boards
                score_located(result, reader, image, truth, f"{label} (located)")
            located += [exact, result]
            progress(_summary_line(exact))
            progress(_summary_line(result))
        if timing:
            timings.extend(time_reading(game, seed, cache, progress))
    return results, timings, located


def _percent(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{100 * value:.{digits}f}%"


def _summary_line(result: LevelResult) -> str:
    total = result.total()
    return (
        f"{result.game} {result.level}: {_percent(total.accuracy())} right, "
        f"{result.perfect}/{result.boards} boards perfect, "
        f"{_percent(total.abstention())} abstained "
        f"({_percent(total.unsure_share())} unsure)"
    )


def report_markdown(
    results: list[LevelResult],
    timings: list[Timing],
    command: str,
    size: tuple[int, int] = FRAME_SIZE,
    located: list[LevelResult] | None = None,
) -> str:
    """The figures as a Markdown document (``located``: the same boards read through
    the Locator, when measured)."""
    lines = [
        "# Camera reading bench",
        "",
        f"Command: `{command}`",
        "",
        f"Pictures of {size[0]}x{size[1]} pixels, read with their exact view.",
        "",
        "Accuracy counts the elements read (abstentions apart); abstention is the "
        "share of the visible elements not read, split into *not shown* (the view "
        "cannot show the element: a hand over it, a view too steep to show the side "
        "of the tiles, a piece standing in front) and *unsure* (the reader could "
        "see it but would not decide; the goal of under 1% is on these). Elements "
        "a hand hides in the truth are left out (column *hidden*). A board is "
        "perfect when no element is wrong, complete when also none is abstained.",
        "",
    ]
    lines += _level_table(results)
    lines += [
        "",
        "By kind of element:",
        "",
        "| game | level | kind | elements | accuracy | wrong | abstained | not shown | unsure |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for kind, t in sorted(r.kinds.items()):
            lines.append(
                f"| {r.game} | {r.level} | {kind} | {t.seen} | "
                f"{_percent(t.accuracy(), 3)} | {t.wrong} | "
                f"{_percent(t.abstention())} | {_percent(t.unseen_share())} | "
                f"{_percent(t.unsure_share())} |"
            )
    if any(r.by_seed for r in results):
        lines += [
            "",
            "By set (each its own seed; the tables above pool them):",
            "",
            "| game | level | set | boards | wrong | perfect boards | unsure |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in results:
            for set_seed, part in r.by_seed:
                t = part.total()
                lines.append(
                    f"| {r.game} | {r.level} | {set_seed} | {part.boards} | "
                    f"{t.wrong} | {part.perfect}/{part.boards} | "
                    f"{_percent(t.unsure_share())} |"
                )
    if located:
        lines += [
            "",
            "Through localisation: other boards at the hardest level, "
            "photographed with the printed corner markers; each picture read once "
            "with its exact view and once where the Locator (with the camera's "
            "lens profile, a fresh Locator per picture: no tracking) finds the "
            "board from the picture alone. *Located*: boards the Locator found; "
            "a board not found counts every element abstained (unsure).",
            "",
        ]
        lines += _level_table(located, located=True)
    if timings:
        lines += [
            "",
            "Milliseconds per frame on one core (median; the board's view "
            "unchanged from the frame before; *new view*: the first frame of a "
            "view, when the sample points are projected):",
            "",
            "| game | frame | read | stillness + read | new view |",
            "|---|---|---|---|---|",
        ]
        for timing in timings:
            lines.append(
                f"| {timing.game} | {timing.size} | {timing.read_ms:.1f} | "
                f"{timing.read_and_stillness_ms:.1f} | {timing.new_view_ms:.1f} |"
            )
    for title, key in (
        ("Why elements the reader could see were not read (unsure):", "reasons"),
        ("Why elements were not shown by the view:", "unseen_reasons"),
    ):
        reasons: dict[str, int] = {}
        for r in [*results, *(located or [])]:
            for why, n in getattr(r, key).items():
                reasons[why] = reasons.get(why, 0) + n
        if reasons:
            lines += ["", title, ""]
            for why, n in sorted(reasons.items(), key=lambda item: -item[1]):
                lines.append(f"- {n}: {why}")
    errors = [e for r in [*results, *(located or [])] for e in (f"{r.game} {x}" for x in r.errors)]
    if errors:
        lines += ["", "Wrong readings (first ones):", ""]
        lines += [f"- {e}" for e in errors[:60]]
    return "\n".join(lines) + "\n"


def _level_table(results: list[LevelResult], located: bool = False) -> list[str]:
    head = (
        "| game | level | boards | "
        + ("located | " if located else "")
        + "elements | right | wrong | accuracy | perfect boards | complete boards | "
        "abstained | not shown | unsure | hidden |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        t = r.total()
        found = f"{r.located} | " if located else ""
        lines.append(
            f"| {r.game} | {r.level} | {r.boards} | {found}{t.seen} | "
            f"{t.right} | {t.wrong} | {_percent(t.accuracy(), 3)} | "
            f"{_percent(r.perfect / r.boards if r.boards else None, 1)} | "
            f"{_percent(r.complete / r.boards if r.boards else None, 1)} | "
            f"{_percent(t.abstention())} | {_percent(t.unseen_share())} | "
            f"{_percent(t.unsure_share())} | {t.hidden} |"
        )
    return lines


def report_json(
    results: list[LevelResult],
    timings: list[Timing],
    command: str,
    size: tuple[int, int] = FRAME_SIZE,
    located: list[LevelResult] | None = None,
) -> dict[str, Any]:
    def tally(t: Tally) -> dict[str, Any]:
        return {
            **asdict(t),
            "seen": t.seen,
            "unsure": t.unsure,
            "accuracy": t.accuracy(),
            "abstention": t.abstention(),
            "unseen_share": t.unseen_share(),
            "unsure_share": t.unsure_share(),
        }

    def level(r: LevelResult) -> dict[str, Any]:
        return {
            "game": r.game,
            "level": r.level,
            "boards": r.boards,
            "located": r.located,
            "perfect": r.perfect,
            "complete": r.complete,
            "total": tally(r.total()),
            "kinds": {k: tally(t) for k, t in r.kinds.items()},
            "reasons": r.reasons,
            "unseen_reasons": r.unseen_reasons,
            "errors": r.errors,
            "by_seed": [{"seed": seed, **level(part)} for seed, part in r.by_seed],
        }

    return {
        "command": command,
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "set_version": SET_VERSION,
        "frame_size": list(size),
        "game_set_versions": {r.game: set_version(r.game) for r in [*results, *(located or [])]},
        "levels": {name: asdict(spec) for name, spec in LEVEL_SPECS.items()},
        "results": [level(r) for r in results],
        "located": [level(r) for r in located or []],
        "timing_ms": [asdict(t) for t in timings],
    }


def vision_command(args: argparse.Namespace) -> int:
    from companion.cli import UsageError
    from vision.models import GAMES

    games = args.game or list(GAMES)
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise UsageError(f"no board model for {', '.join(unknown)}; known: {', '.join(GAMES)}")
    if args.frames < 1:
        raise UsageError("--frames must be at least 1")
    levels = args.level or list(LEVELS)
    try:
        seeds = parse_seeds(args.seed)
    except ValueError as error:
        raise UsageError(f"--seed: {error}") from None
    cache = None if args.no_cache else _cache_dir(args.cache)
    command = " ".join(
        [
            "companion bench vision",
            *(f"--game {g}" for g in args.game or ()),
            *(f"--level {v}" for v in args.level or ()),
            f"--frames {args.frames}",
            f"--seed {args.seed}",
            *([f"--size {args.size}"] if args.size != "1920x1080" else []),
            *(
                [f"--located-frames {args.located_frames}"]
                if args.located_frames != LOCATED_FRAMES
                else []
            ),
        ]
    )

    def progress(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {args.size!r} is not WIDTHxHEIGHT") from None
    if not (160 <= width <= 4000 and 120 <= height <= 4000):
        raise UsageError(f"--size {args.size!r} is out of range")
    if args.located_frames < 0:
        raise UsageError("--located-frames must be 0 or more")
    results, timings, located = run_bench(
        games,
        levels,
        args.frames,
        seeds,
        cache,
        not args.no_timing,
        progress,
        (width, height),
        args.located_frames,
    )
    markdown = report_markdown(results, timings, command, (width, height), located)
    print(markdown, end="")
    if args.out is not None:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(markdown, encoding="utf-8")
            json_path = args.out.with_suffix(".json")
            json_path.write_text(
                json.dumps(
                    report_json(results, timings, command, (width, height), located), indent=1
                ),
                encoding="utf-8",
            )
        except OSError as error:
            raise UsageError(f"cannot write {args.out}: {error.strerror or error}") from None
        print(f"wrote {args.out} and {json_path}", file=sys.stderr)
    return 0


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion bench vision``."""
    parser = bench_sub.add_parser(
        "vision",
        help="how well the camera reads the table (rendered pictures)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        action="append",
        help="only this game (repeatable; default every game with a board model)",
    )
    parser.add_argument(
        "--level",
        action="append",
        choices=LEVELS,
        help="only this level (repeatable; default all three)",
    )
    parser.add_argument(
        "--frames", type=int, default=30, help="pictures per game and level (default 30)"
    )
    parser.add_argument(
        "--seed",
        default="1",
        metavar="SEEDS",
        help="set seed (default 1), or several pooled: 1,2,7-13 (the "
        "timings and the run through localisation use the first)",
    )
    parser.add_argument(
        "--size",
        default="1920x1080",
        metavar="WxH",
        help="picture size of the sets (default 1920x1080)",
    )
    parser.add_argument(
        "--located-frames",
        type=int,
        default=LOCATED_FRAMES,
        metavar="N",
        help="pictures per game at the hardest level with corner markers, "
        f"read through the Locator (default {LOCATED_FRAMES}; 0: none)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE.md",
        help="also write the table there, and the figures as JSON beside it (FILE.json)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="where rendered pictures are kept (default ~/.cache/companion/bench-vision)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="render every picture again and keep none"
    )
    parser.add_argument("--no-timing", action="store_true", help="skip the one-core speed figures")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(handler=vision_command)
