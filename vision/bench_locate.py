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

import time
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.intrinsics import CameraProfile
from engines.observation import Observation
from vision.locate import BoardReference, Locator
from vision.models import load_model
from vision.synth.camera import Camera, Imaging, Pose
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


def bench_locate(games: Sequence[str] = GAMES,
                 sizes: Sequence[tuple[int, int]] = SIZES,
                 frames: int = 6, seed: int = 0) -> list[LocateFigure]:
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
        return render_table(observation, camera, pose, imaging=IMAGING,
                            options=TableOptions(px_per_mm=2.0, markers=markers),
                            seed=picture_seed).image

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
                reference = BoardReference(picture(registered, False, seed + index + 2000),
                                           truth_view(camera, registered,
                                                      model.size_mm).homography)
            for lens in (False, True):
                if reference is not None:
                    reference = BoardReference(reference.image, reference.homography,
                                               Lens.of(camera) if lens else None)
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

    def add(self, locator: Locator, frame: NDArray[np.uint8], next_frame: NDArray[np.uint8],
            truth: BoardView, size_mm: tuple[float, float]) -> None:
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

    def figure(self, game: str, size: tuple[int, int], method: str,
               lens: bool) -> LocateFigure:
        errors = np.array(self.errors) if self.errors else np.array([np.nan])
        return LocateFigure(
            game, size, method, lens, self.frames, self.found,
            round(float(np.median(errors)), 3), round(float(np.percentile(errors, 95)), 3),
            round(float(errors.max()), 3),
            round(float(max(self.heights)) if self.heights else float("nan"), 2),
            round(float(np.median(self.full_ms)), 1),
            round(float(np.median(self.tracked_ms)) if self.tracked_ms else float("nan"), 1))


def localisation_errors(view: BoardView, truth: BoardView, size_mm: tuple[float, float],
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
    return CameraProfile(camera.size, tuple(tuple(float(v) for v in row) for row in camera.matrix),
                         tuple(float(v) for v in camera.distortion), 0.0, (), (), "synthetic",
                         "synthetic")


def _observation(game: str) -> Observation:
    if game == "shangrila":
        from engines.shangrila import ShangrilaRules
        from engines.shangrila.observation import expected

        return expected(ShangrilaRules().initial_state())
    if game == "shenshi":
        from engines.shenshi import ShenshiRules
        from engines.shenshi.observation import expected as shenshi_expected

        return shenshi_expected(ShenshiRules().initial_state())
    from engines.shendao import ShendaoRules
    from engines.shendao.observation import expected as shendao_expected

    return shendao_expected(ShendaoRules().initial_state())


def format_figures(figures: Sequence[LocateFigure]) -> str:
    """The figures as a plain-text table."""
    lines = ["game       size       method     lens  found  error mm (median/p95/max)  "
             "height px  full ms  tracked ms"]
    for f in figures:
        lines.append(
            f"{f.game:<10} {f.size[0]}x{f.size[1]:<5} {f.method:<10} "
            f"{'yes' if f.lens_profile else 'no':<5} "
            f"{f.found}/{f.frames:<4} {f.error_median_mm:>6.2f} / {f.error_p95_mm:5.2f} / "
            f"{f.error_max_mm:5.2f}      {f.height_error_max_px:6.2f}   {f.full_ms:6.1f}  "
            f"{f.tracked_ms:8.1f}")
    return "\n".join(lines)
