"""How well and how fast the board is located: the figures of ``companion bench vision``.

:func:`bench_locate` renders each game's board from a fixed set of camera poses
(elevation 35 to 90 degrees, all around the table, slight barrel distortion, sensor
noise, a little blur), at each frame size, and locates it by each method: ``markers``
(the board with its corner markers) and ``reference`` (the board without markers,
matched against a picture of it taken with the camera turned 0.5 degrees round the
table). It measures against the renderer's own view:

- the localisation error in millimetres on the board plane (over a grid of board
  points in the picture: median, 95th percentile and largest), with and without the
  lens profile;
- the height error in pixels: where a point 20 mm above the board (a stacked tile's
  top) is put, against where it is (largest);
- milliseconds per frame for a full search (of the whole frame) and
  for a tracked frame (the view confirmed from the previous frame, the camera turned by
  0.05 degrees and new sensor noise): processor time of the one thread doing the work
  (OpenCV limited to one thread), so other programs on the machine do not inflate it.

Everything follows ``seed``, so the same call gives the same errors; times are this
machine's.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.boards import board_geometry, load_boards
from calibration.intrinsics import CameraProfile
from engines.observation import Observation
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected
from engines.shendao import ShendaoRules
from engines.shendao.observation import expected as shendao_expected
from engines.shenshi import ShenshiRules
from engines.shenshi.observation import expected as shenshi_expected
from vision.locate import BoardReference, Locator
from vision.models import load_model
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table
from vision.view import BoardView, Lens, truth_view

FloatArray = NDArray[np.float64]
GAMES = ("shangrila", "shendao", "shenshi")
SIZES = ((1280, 720), (1920, 1080))
# The camera: a 60-degree webcam with slight barrel distortion, sensor noise and a
# little blur, 1.1 m from the board's centre.
HFOV_DEG = 60.0
K1 = -0.05
DISTANCE_MM = 1100.0
IMAGING = Imaging(supersample=1, noise_sigma=2.0, blur_sigma=0.5)
# Height of the points whose projection is checked: two stacked tiles and a bit.
HEIGHT_MM = 20.0
# Timed repetitions of each measurement; the median is reported.
REPEATS = 3
METHODS = ("markers", "reference")
# The tracked frame: the camera turned this much round the table since the last one.
TRACKED_TURN_DEG = 0.05
# The reference picture was taken with the camera turned this much the other way.
REFERENCE_TURN_DEG = 0.5


@dataclass(frozen=True)
class LocateFigure:
    """One game at one frame size: errors over ``frames`` rendered frames."""

    game: str
    size: tuple[int, int]
    method: str
    lens_profile: bool
    frames: int
    found: int
    error_median_mm: float
    error_p95_mm: float
    error_max_mm: float
    height_error_max_px: float
    full_ms: float
    tracked_ms: float


def bench_locate(
    games: Sequence[str] = GAMES,
    sizes: Sequence[tuple[int, int]] = SIZES,
    frames: int = 6,
    seed: int = 0,
) -> list[LocateFigure]:
    """Measure localisation (see the module docstring) on ``frames`` poses per game and
    size, with and without a lens profile; a row per game, size and lens."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        figures = []
        for game in games:
            for size in sizes:
                figures.extend(_measure(game, size, frames, seed))
        return figures
    finally:
        cv2.setNumThreads(threads)


def _poses(count: int, seed: int) -> list[Pose]:
    rng = np.random.default_rng(seed)
    elevations = np.linspace(35.0, 90.0, count)
    return [Pose(float(e), float(rng.uniform(0.0, 360.0)), DISTANCE_MM) for e in elevations]


def _measure(game: str, size: tuple[int, int], frames: int, seed: int) -> list[LocateFigure]:
    model = load_model(game)
    camera = Camera.from_fov(size[0], size[1], HFOV_DEG, k1=K1)
    profile = synthetic_profile(camera)
    results = {(method, lens): _Samples() for method in METHODS for lens in (False, True)}
    observation = _observation(game)

    def picture(pose: Pose, markers: bool, picture_seed: int) -> NDArray[np.uint8]:
        return render_table(
            observation,
            camera,
            pose,
            imaging=IMAGING,
            options=TableOptions(px_per_mm=2.0, markers=markers),
            seed=picture_seed,
        ).image

    for index, pose in enumerate(_poses(frames, seed)):
        truth = truth_view(camera, pose, model.size_mm)
        nudged = _turned(pose, TRACKED_TURN_DEG)
        for method in METHODS:
            markers = method == "markers"
            frame = picture(pose, markers, seed + index)
            next_frame = picture(nudged, markers, seed + index + 1000)
            reference = None
            if not markers:
                # registered earlier, from a camera standing a little elsewhere
                registered = _turned(pose, -REFERENCE_TURN_DEG)
                reference = BoardReference(
                    picture(registered, False, seed + index + 2000),
                    truth_view(camera, registered, model.size_mm).homography,
                )
            for lens in (False, True):
                if reference is not None:
                    reference = BoardReference(
                        reference.image, reference.homography, Lens.of(camera) if lens else None
                    )
                locator = Locator(game, camera=profile if lens else None, reference=reference)
                results[method, lens].add(locator, frame, next_frame, truth, model.size_mm)
    return [results[key].figure(game, size, *key) for key in results]


def _turned(pose: Pose, degrees: float) -> Pose:
    return Pose(pose.elevation_deg, pose.rotation_deg + degrees, pose.distance_mm)


@dataclass
class _Samples:
    frames: int = 0
    found: int = 0

    def __post_init__(self) -> None:
        self.errors: list[float] = []
        self.heights: list[float] = []
        self.full_ms: list[float] = []
        self.tracked_ms: list[float] = []

    def add(
        self,
        locator: Locator,
        frame: NDArray[np.uint8],
        next_frame: NDArray[np.uint8],
        truth: BoardView,
        size_mm: tuple[float, float],
    ) -> None:
        """Locate ``frame`` afresh, then ``next_frame`` tracked from it, ``REPEATS``
        times for the times; record the errors of the first."""
        full, tracked = [], []
        location = None
        for _ in range(REPEATS):
            locator.reset()
            start = time.thread_time()
            location = locator.locate(frame)
            middle = time.thread_time()
            locator.locate(next_frame)
            tracked.append((time.thread_time() - middle) * 1000.0)
            full.append((middle - start) * 1000.0)
        self.frames += 1
        self.full_ms.append(float(np.median(full)))
        if location is None or location.view is None:
            return
        self.found += 1
        self.tracked_ms.append(float(np.median(tracked)))
        errors, height = localisation_errors(location.view, truth, size_mm)
        self.errors.extend(errors)
        self.heights.append(height)

    def figure(self, game: str, size: tuple[int, int], method: str, lens: bool) -> LocateFigure:
        errors = np.array(self.errors) if self.errors else np.array([np.nan])
        return LocateFigure(
            game,
            size,
            method,
            lens,
            self.frames,
            self.found,
            round(float(np.median(errors)), 3),
            round(float(np.percentile(errors, 95)), 3),
            round(float(errors.max()), 3),
            round(float(max(self.heights)) if self.heights else float("nan"), 2),
            round(float(np.median(self.full_ms)), 1),
            round(float(np.median(self.tracked_ms)) if self.tracked_ms else float("nan"), 1),
        )


def localisation_errors(
    view: BoardView,
    truth: BoardView,
    size_mm: tuple[float, float],
) -> tuple[list[float], float]:
    """Errors of ``view`` against ``truth``: for a grid of board points in the picture,
    the distance in mm on the board between each point and where ``view`` puts the
    pixel where it truly is; and the largest error in pixels of points ``HEIGHT_MM``
    above the board (``nan`` when the view has no heights)."""
    grid = np.linspace(0.0, 1.0, 11)
    points = np.stack(np.meshgrid(grid * size_mm[0], grid * size_mm[1]), -1).reshape(-1, 2)
    points = points[truth.visible(points)]
    if len(points) == 0:
        return [], float("nan")
    errors = np.linalg.norm(view.to_board(truth.to_image(points)) - points, axis=1)
    if view.projection is None:
        return errors.tolist(), float("nan")
    lifted = np.column_stack([points, np.full(len(points), HEIGHT_MM)])
    height = np.linalg.norm(view.to_image(lifted) - truth.to_image(lifted), axis=1).max()
    return errors.tolist(), float(height)


def synthetic_profile(camera: Camera) -> CameraProfile:
    """A lens profile holding the rendering camera's exact lens, as a perfect
    ``companion calibrate camera`` would measure it."""
    return CameraProfile(
        camera.size,
        tuple(tuple(float(v) for v in row) for row in camera.matrix),
        tuple(float(v) for v in camera.distortion),
        0.0,
        (),
        (),
        "synthetic",
        "synthetic",
    )


def _observation(game: str) -> Observation:
    if game == "shangrila":
        return expected(ShangrilaRules().initial_state())
    if game == "shenshi":
        return shenshi_expected(ShenshiRules().initial_state())
    return shendao_expected(ShendaoRules().initial_state())


def format_figures(figures: Sequence[LocateFigure]) -> str:
    """The figures as a plain-text table."""
    lines = [
        "game       size       method     lens  found  error mm (median/p95/max)  "
        "height px  full ms  tracked ms"
    ]
    for f in figures:
        lines.append(
            f"{f.game:<10} {f.size[0]}x{f.size[1]:<5} {f.method:<10} "
            f"{'yes' if f.lens_profile else 'no':<5} "
            f"{f.found}/{f.frames:<4} {f.error_median_mm:>6.2f} / {f.error_p95_mm:5.2f} / "
            f"{f.error_max_mm:5.2f}      {f.height_error_max_px:6.2f}   {f.full_ms:6.1f}  "
            f"{f.tracked_ms:8.1f}"
        )
    return "\n".join(lines)


# --- small markers ----------------------------------------------------------------------

# Imaging of the small-marker bench, by level: the blur, noise, vignetting and JPEG of
# ``companion bench vision``'s levels (its "hardest" is the renderer's hardest setting
# the project uses), and "beyond", harsher than any level there.
MARKER_LEVELS: dict[str, Imaging] = {
    "easy": Imaging(blur_sigma=0.3, noise_sigma=1.0, shot_noise=0.3, vignetting=0.15),
    "medium": Imaging(
        blur_sigma=0.6, noise_sigma=3.0, shot_noise=0.3, vignetting=0.15, jpeg_quality=92
    ),
    "hardest": Imaging(
        blur_sigma=0.9, noise_sigma=4.0, shot_noise=0.3, vignetting=0.15, jpeg_quality=85
    ),
    "beyond": Imaging(
        blur_sigma=1.2, noise_sigma=5.0, shot_noise=0.5, vignetting=0.15, jpeg_quality=75
    ),
}
MARKER_SIDES_PX = (12.0, 15.0, 20.0, 25.0, 35.0)
# Seeds of the pictures the detector's settings were chosen on; the figures are measured
# on seeds from ``MARKER_TEST_FIRST`` on, which took no part in any choice.
MARKER_TUNING_SEEDS = range(0, 40)
MARKER_TEST_FIRST = 1000


@dataclass(frozen=True)
class MarkerShot:
    """One rendered picture of the small-marker bench: ``game``'s empty board with its
    corner markers, at ``size``, the camera standing where the markers' mean side in
    the picture is ``side_px`` (the square root of each marker's area in the picture,
    so a marker seen at a slant counts by its area)."""

    game: str
    size: tuple[int, int]
    side_px: float
    level: str
    seed: int


@dataclass(frozen=True)
class MarkerPicture:
    image: NDArray[np.uint8]
    camera: Camera
    pose: Pose
    truth: BoardView
    sides_px: dict[int, float]
    """Each marker's side in the picture (square root of its area)."""
    covered: dict[int, float]
    """The share of each marker (its white card) hidden: behind clutter standing in
    front, or (all of it) when part of it lies outside the picture."""


def marker_sides_px(view: BoardView, game: str) -> dict[int, float]:
    """Each of ``game``'s markers' side in the picture of ``view``: the square root of
    the area it covers, in pixels."""
    geometry = board_geometry(game)
    return {
        i: math.sqrt(
            abs(cv2.contourArea(view.to_image(geometry.marker_corners_mm(i)).astype(np.float32)))
        )
        for i in geometry.marker_ids
    }


def render_marker_shot(shot: MarkerShot) -> MarkerPicture:
    """Render ``shot``: a 55 to 70 degree lens with slight barrel distortion, 35 to 90
    degrees above the table, all round it, the board anywhere in the picture, the
    "hardest" light (warm lamp one side, cold window the other) turned any way, glare
    and clutter, and the level's blur, noise and JPEG. Everything follows the shot."""
    rng = np.random.default_rng(
        [
            shot.seed,
            GAMES.index(shot.game),
            shot.size[0],
            round(shot.side_px * 10),
            list(MARKER_LEVELS).index(shot.level),
        ]
    )
    camera = Camera.from_fov(
        shot.size[0],
        shot.size[1],
        float(rng.uniform(55.0, 70.0)),
        k1=float(rng.uniform(-0.08, 0.0)),
    )
    model = load_model(shot.game)
    elevation = float(rng.uniform(35.0, 90.0))
    rotation = float(rng.uniform(0.0, 360.0))
    outline = np.array(
        [[0.0, 0.0], [model.size_mm[0], 0.0], list(model.size_mm), [0.0, model.size_mm[1]]]
    )
    # the board anywhere in the picture, all of it in view: the look-at point is moved
    # off the board's centre by a random share of what the picture allows
    reach = float(rng.uniform(0.0, 1.0))
    angle = float(rng.uniform(0.0, 2.0 * math.pi))
    for _ in range(12):
        distance = camera.fx * 30.0 / shot.side_px
        offset = reach * 0.5 * distance * math.tan(math.radians(25.0))
        look = (offset * math.cos(angle), offset * math.sin(angle))
        for _ in range(5):
            view = truth_view(camera, Pose(elevation, rotation, distance, look), model.size_mm)
            distance *= (
                float(np.mean(list(marker_sides_px(view, shot.game).values()))) / shot.side_px
            )
        view = truth_view(camera, Pose(elevation, rotation, distance, look), model.size_mm)
        if view.visible(outline, 0.02 * shot.size[1]).all() or reach == 0.0:
            break
        reach = 0.0 if reach < 0.05 else reach * 0.6
    pose = Pose(elevation, rotation, distance, look)
    light = replace(
        LIGHTS["hardest"],
        direction_deg=float(rng.uniform(0.0, 360.0)),
        key_level=float(rng.uniform(0.45, 0.7)),
    )
    options = TableOptions(markers=True, glare=0.3, clutter=3)
    render = render_table(
        _observation(shot.game),
        camera,
        pose,
        light=light,
        imaging=MARKER_LEVELS[shot.level],
        options=options,
        seed=int(rng.integers(2**31)),
        model=model,
    )
    truth = truth_view(camera, pose, model.size_mm)
    return MarkerPicture(
        render.image,
        camera,
        pose,
        truth,
        marker_sides_px(truth, shot.game),
        _covered(truth, shot.game, render.occluded),
    )


def _covered(view: BoardView, game: str, occluded: NDArray[np.bool_]) -> dict[int, float]:
    geometry = board_geometry(game)
    shares = {}
    for marker_id in geometry.marker_ids:
        card = geometry.card_mm(marker_id) / geometry.marker_mm
        corners = geometry.marker_corners_mm(marker_id)
        centre = corners.mean(axis=0)
        outline = view.to_image(centre + (corners - centre) * card)
        height, width = occluded.shape
        if not ((outline >= 0.0) & (outline <= [width - 1.0, height - 1.0])).all():
            shares[marker_id] = 1.0
            continue
        mask = np.zeros(occluded.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.rint(outline).astype(np.int32), 1)
        inside = mask.astype(bool)
        shares[marker_id] = float(occluded[inside].mean()) if inside.any() else 1.0
    return shares


@dataclass(frozen=True)
class MarkerFigure:
    """Small markers at one frame size, level and marker side, over ``pictures``
    rendered pictures of the boards (the games pooled)."""

    size: tuple[int, int]
    level: str
    side_px: float
    pictures: int
    markers: int
    """Markers in the picture and uncovered (one with clutter standing in front of it,
    or partly outside the picture, is left out)."""
    read: int
    """Of those, read with the right id and every corner within 1.5 px of the truth."""
    misplaced: int
    """Read with a right id but a corner farther than 1.5 px, or with a wrong id."""
    located: int
    """Pictures where the board was located from its markers (a fresh locator)."""
    corner_error_median_mm: float
    corner_error_max_mm: float
    """The board's corners where the located view puts them, against the truth (mm on
    the board), over the pictures located."""
    ms_median: float
    ms_max: float
    """Processor time to locate the board in the whole picture (one core)."""

    @property
    def rate(self) -> float:
        return self.read / self.markers if self.markers else float("nan")


def bench_small_markers(
    games: Sequence[str] = GAMES,
    sizes: Sequence[tuple[int, int]] = SIZES,
    sides_px: Sequence[float] = MARKER_SIDES_PX,
    levels: Sequence[str] = ("hardest",),
    pictures: int = 20,
    first_seed: int = MARKER_TEST_FIRST,
    lens_profile: bool = False,
) -> list[MarkerFigure]:
    """Find the markers and locate the board in ``pictures`` rendered pictures per
    game, size, level and marker side (seeds ``first_seed`` on; the detector's settings
    were chosen on ``MARKER_TUNING_SEEDS``, never on these), as a fresh
    :class:`~vision.locate.Locator` does on a first frame. A row per size, level and
    side, the games pooled."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        figures = []
        for size in sizes:
            for level in levels:
                for side in sides_px:
                    shots = [
                        MarkerShot(game, size, side, level, first_seed + index)
                        for game in games
                        for index in range(pictures)
                    ]
                    figures.append(_marker_figure(shots, lens_profile))
        return figures
    finally:
        cv2.setNumThreads(threads)


def _marker_figure(shots: Sequence[MarkerShot], lens_profile: bool) -> MarkerFigure:
    markers = read = misplaced = located = 0
    errors: list[float] = []
    times: list[float] = []
    for shot in shots:
        picture = render_marker_shot(shot)
        geometry = board_geometry(shot.game)
        profile = synthetic_profile(picture.camera) if lens_profile else None
        locator = Locator(shot.game, camera=profile)
        start = time.thread_time()
        location = locator.locate(picture.image)
        times.append((time.thread_time() - start) * 1000.0)
        found = locator.find_markers(picture.image)
        for marker_id in geometry.marker_ids:
            if picture.covered[marker_id] > 0.0:
                continue
            markers += 1
            truth = picture.truth.to_image(geometry.marker_corners_mm(marker_id))
            if profile is not None:
                truth = Lens.of(picture.camera).undistort(truth)
            if marker_id not in found:
                continue
            if float(np.linalg.norm(found[marker_id] - truth, axis=1).max()) <= 1.5:
                read += 1
            else:
                misplaced += 1
        misplaced += sum(
            1 for i in found if i not in geometry.marker_ids and i in _all_game_markers()
        )
        if location.view is not None:
            located += 1
            outline = geometry.outline_mm()
            where = location.view.to_board(picture.truth.to_image(outline))
            errors.append(float(np.linalg.norm(where - outline, axis=1).max()))
    first = shots[0]
    return MarkerFigure(
        first.size,
        first.level,
        first.side_px,
        len(shots),
        markers,
        read,
        misplaced,
        located,
        round(float(np.median(errors)), 2) if errors else float("nan"),
        round(float(np.max(errors)), 2) if errors else float("nan"),
        round(float(np.median(times)), 1),
        round(float(np.max(times)), 1),
    )


def _all_game_markers() -> set[int]:
    return {i for board in load_boards().values() for i in board.marker_ids}


MARKER_HEADER = (
    "size       level    side px  pictures  markers read        misplaced  "
    "boards located  corner mm (median/max)  ms (median/max)"
)


def format_marker_figures(figures: Sequence[MarkerFigure]) -> str:
    """The small-marker figures as a plain-text table."""
    return "\n".join([MARKER_HEADER, *(format_marker_row(f) for f in figures)])


def format_marker_row(f: MarkerFigure) -> str:
    """One row of :func:`format_marker_figures`."""
    return (
        f"{f.size[0]}x{f.size[1]:<5} {f.level:<8} {f.side_px:>5.0f}   {f.pictures:>6}    "
        f"{f.read:>4}/{f.markers:<4} {100 * f.rate:5.1f}%  {f.misplaced:>5}      "
        f"{f.located:>4}/{f.pictures:<4}      {f.corner_error_median_mm:5.2f} / "
        f"{f.corner_error_max_mm:5.2f}        {f.ms_median:5.0f} / {f.ms_max:4.0f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vision.bench_locate``: the small-marker figures (default) or the
    localisation figures (``--poses``)."""
    parser = argparse.ArgumentParser(
        prog="python -m vision.bench_locate",
        description="How small the board's corner markers may be: the share read and "
        "the boards located against the markers' side in the picture and the blur, "
        "noise and JPEG level, on rendered pictures (seeds never used to choose the "
        "detector's settings). With --poses: localisation error and time from fixed "
        "camera poses instead.",
    )
    parser.add_argument(
        "--game",
        action="append",
        choices=GAMES,
        help="only this game (repeatable; default all three)",
    )
    parser.add_argument(
        "--size",
        action="append",
        metavar="WxH",
        help="picture size (repeatable; default 1280x720 and 1920x1080)",
    )
    parser.add_argument(
        "--side",
        action="append",
        type=float,
        metavar="PX",
        help="marker side in the picture (repeatable; default "
        f"{', '.join(f'{s:.0f}' for s in MARKER_SIDES_PX)})",
    )
    parser.add_argument(
        "--level",
        action="append",
        choices=list(MARKER_LEVELS),
        help="blur, noise and JPEG level (repeatable; default hardest)",
    )
    parser.add_argument(
        "--pictures",
        type=int,
        default=20,
        help="pictures per game, size, level and side (default 20)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=MARKER_TEST_FIRST,
        help=f"first picture seed (default {MARKER_TEST_FIRST}; seeds "
        f"{MARKER_TUNING_SEEDS.start}-{MARKER_TUNING_SEEDS.stop - 1} chose "
        "the settings)",
    )
    parser.add_argument(
        "--lens-profile",
        action="store_true",
        help="give the locator the camera's exact lens profile",
    )
    parser.add_argument(
        "--poses", action="store_true", help="the localisation figures from fixed poses instead"
    )
    args = parser.parse_args(argv)
    games = tuple(args.game or GAMES)
    sizes = tuple(_size(s) for s in args.size) if args.size else SIZES
    if args.poses:
        print(format_figures(bench_locate(games, sizes)))
        return 0
    # a row printed as soon as it is measured: a full run takes an hour or more
    print(MARKER_HEADER, flush=True)
    for size in sizes:
        for level in tuple(args.level or ("hardest",)):
            for side in tuple(args.side or MARKER_SIDES_PX):
                for figure in bench_small_markers(
                    games, (size,), (side,), (level,), args.pictures, args.seed, args.lens_profile
                ):
                    print(format_marker_row(figure), flush=True)
    return 0


def _size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


if __name__ == "__main__":
    raise SystemExit(main())
