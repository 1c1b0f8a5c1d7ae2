"""The calibration's figures (lens, board, colours), measured on rendered views
(``vision.synth``) and on real photographs; ``companion bench calibration`` prints them.
The tests check the same functions at smaller sizes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from calibration.boards import board_geometry, draw_board, draw_pieces
from calibration.colours import EMPTY, capture_samples, classify_patches, fit_colour_model
from calibration.intrinsics import CameraProfile, calibrate_camera
from calibration.registration import check_registration, image_to_board, register_with_markers
from calibration.sheets import charuco_sheet
from calibration.sources import folder_frames
from calibration.targets import CharucoTarget, ChessboardTarget, collect_views
from vision.synth import (
    HARDEST_LIGHT,
    LIGHTS,
    Camera,
    Imaging,
    PlanarTexture,
    Pose,
    Scene,
    project_points,
    render,
    table_texture,
)

if TYPE_CHECKING:
    from calibration.config import CalibrationConfig


# The tolerances the calibration must meet.
FOCAL_TOLERANCE_PCT = 0.5
REAL_RMS_TOLERANCE_PX = 0.05
REAL_INTRINSICS_TOLERANCE_PCT = 1.0
REGISTRATION_TOLERANCE_MM = 1.0
# The real photographs, beside the repository (see their README for provenance).
# A copy lives in the repository (tests/data/calib-real, with its README), so the
# figure and its test never depend on where the repository was cloned.
REAL_PHOTOS_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "calib-real"
# OpenCV 5.0.0's calibration of those photographs, from their README (unit squares,
# default flags, cornerSubPix window 11).
REAL_PHOTO_REFERENCE = {
    "rms_px": 0.4086947659,
    "fx": 536.07345314,
    "fy": 536.01636274,
    "cx": 342.37046827,
    "cy": 235.53687064,
}
# sRGB of the Shangri-La players' flat tiles, as BGR for drawing.
PIECE_BGR = {
    "red": (35, 35, 200),
    "blue": (185, 75, 35),
    "yellow": (35, 200, 235),
    "violet": (165, 60, 125),
}
# Board pictures are drawn at 4 px/mm: finer than the camera sees the board, and whole
# pixels for every marker edge of boards.json.
BOARD_PX_PER_MM = 4.0


def bench_camera() -> Camera:
    """The rendered camera: a 1280x720 webcam, 69 degrees across, with clear barrel
    distortion and a principal point off centre, so nothing is found by symmetry."""

    return Camera(1280, 720, 930.0, 925.0, 652.0, 351.0, k1=-0.18, k2=0.06, p1=0.001, p2=-0.0008)


def exact_profile(camera: Camera) -> CameraProfile:
    """A camera profile holding a rendered camera's true intrinsics."""

    return CameraProfile(
        camera.size,
        tuple(tuple(row) for row in camera.matrix.tolist()),
        tuple(camera.distortion.tolist()),
        0.0,
        (),
        (),
        "exact (rendered camera)",
        "",
    )


@dataclass(frozen=True)
class IntrinsicsFigure:
    views: int
    used: int
    rms_px: float
    fx_error_pct: float
    fy_error_pct: float
    cx_error_pct: float
    cy_error_pct: float

    @property
    def focal_error_pct(self) -> float:
        return max(abs(self.fx_error_pct), abs(self.fy_error_pct))


def rendered_intrinsics(
    config: CalibrationConfig, views: int, seed: int
) -> tuple[IntrinsicsFigure, CameraProfile]:
    """Render ``views`` photographs of the printed ChArUco sheet lying on a table from
    seeded poses, calibrate from them, and compare with the rendered camera."""

    camera = bench_camera()
    sheet, target = charuco_sheet(
        CharucoTarget.from_config(config.charuco), config.charuco.paper, config.charuco.dpi
    )
    scene = Scene((table_texture(seed), PlanarTexture(sheet.image, sheet.size_mm)), LIGHTS["warm"])
    rng = np.random.default_rng(seed)
    imaging = Imaging(noise_sigma=1.5, blur_sigma=0.6)
    frames = []
    for i in range(views):
        pose = Pose(
            float(rng.uniform(45.0, 80.0)),
            float(rng.uniform(-180.0, 180.0)),
            float(rng.uniform(380.0, 650.0)),
            (float(rng.uniform(-120.0, 120.0)), float(rng.uniform(-80.0, 80.0))),
            float(rng.uniform(-180.0, 180.0)),
        )
        frames.append((f"view {i}", render(camera, pose, scene, imaging, seed + i)))
    found, rejected = collect_views(config.camera, target, frames, stream=False)
    profile = calibrate_camera(config.camera, found, rejected, target.describe()).profile

    def error(value: float, truth: float) -> float:
        return (value - truth) / truth * 100.0

    figure = IntrinsicsFigure(
        views,
        len(profile.views),
        profile.rms_px,
        error(profile.fx, camera.fx),
        error(profile.fy, camera.fy),
        error(profile.cx, camera.cx),
        error(profile.cy, camera.cy),
    )
    return figure, profile


@dataclass(frozen=True)
class RealPhotoFigure:
    views: int
    rms_px: float
    rms_difference_px: float
    intrinsics_difference_pct: dict[str, float]

    @property
    def worst_intrinsics_pct(self) -> float:
        return max(abs(v) for v in self.intrinsics_difference_pct.values())


def real_photos(config: CalibrationConfig, folder: Path) -> RealPhotoFigure:
    """Calibrate the OpenCV chessboard photographs as ``companion calibrate camera
    --target chessboard`` does, and compare with OpenCV's reference calibration."""

    target = ChessboardTarget((9, 6), 1.0)
    views, rejected = collect_views(config.camera, target, folder_frames(folder), stream=False)
    profile = calibrate_camera(config.camera, views, rejected, target.describe()).profile
    found = {"fx": profile.fx, "fy": profile.fy, "cx": profile.cx, "cy": profile.cy}
    differences = {
        k: (v - REAL_PHOTO_REFERENCE[k]) / REAL_PHOTO_REFERENCE[k] * 100.0 for k, v in found.items()
    }
    return RealPhotoFigure(
        len(profile.views),
        profile.rms_px,
        profile.rms_px - REAL_PHOTO_REFERENCE["rms_px"],
        differences,
    )


@dataclass(frozen=True)
class RegistrationFigure:
    game: str
    poses: int
    points: int
    rms_mm: float
    max_mm: float
    check_max_mm: float


def _board_poses(camera: Camera, size_mm: tuple[float, float]) -> list[Any]:
    """Camera poses over a board: straight down, and from a player's side at 65 and 55
    degrees, at a distance where the board fills about three quarters of the picture."""

    distance = camera.fy * max(size_mm) / (0.75 * camera.height)
    return [
        Pose(90.0, 0.0, distance),
        Pose(65.0, 12.0, distance * 1.05, (0.0, 25.0), 3.0),
        Pose(55.0, -20.0, distance * 1.1, (15.0, 40.0), -4.0),
    ]


def registration_accuracy(
    config: CalibrationConfig, game: str, lens: CameraProfile, seed: int
) -> RegistrationFigure:
    """Render ``game``'s board with its markers at 1280x720 from three poses, register
    it with the lens figures ``lens``, and measure, over a 21x21 grid covering the whole
    board, how far (mm on the board) the registration sends each true image point from
    its true position. ``check_max_mm`` is what ``check`` reports on a fresh frame."""

    camera = bench_camera()
    geometry = board_geometry(game)
    layer = PlanarTexture(draw_board(geometry, BOARD_PX_PER_MM), geometry.size_mm)
    scene = Scene((table_texture(seed), layer), LIGHTS["warm"])
    w, h = geometry.size_mm
    xs, ys = np.meshgrid(np.linspace(0.0, w, 21), np.linspace(0.0, h, 21))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    errors = []
    poses = _board_poses(camera, geometry.size_mm)
    imaging = Imaging(noise_sigma=2.0, blur_sigma=0.7)
    profiles = []
    for i, pose in enumerate(poses):
        image = render(camera, pose, scene, imaging, seed + i)
        profile = register_with_markers(config.registration, geometry, image, lens).profile
        truth_px = project_points(camera, pose, layer.to_table(grid))
        errors.append(np.linalg.norm(image_to_board(profile, lens, truth_px) - grid, axis=1))
        profiles.append(profile)
    # The check runs on a fresh frame (new sensor noise) from the first pose.
    again = render(camera, poses[0], scene, imaging, seed + len(poses))
    check = check_registration(config.registration, profiles[0], lens, again)
    distances = np.concatenate(errors)
    return RegistrationFigure(
        game,
        len(poses),
        len(distances),
        float(np.sqrt(np.mean(distances**2))),
        float(distances.max()),
        check.max_mm,
    )


@dataclass(frozen=True)
class ColourFigure:
    light: str
    classes: tuple[str, ...]
    closest: tuple[str, str]
    separation: float
    training_accuracy: float
    test_patches: int
    test_correct: int
    smallest_margin: float


def _spread(
    rng: np.random.Generator, count: int, low: float, high: float, gap: float
) -> list[tuple[float, float]]:
    """``count`` random board positions in [low, high]^2 at least ``gap`` apart."""
    points: list[tuple[float, float]] = []
    while len(points) < count:
        x, y = (float(v) for v in rng.uniform(low, high, 2))
        if all((x - a) ** 2 + (y - b) ** 2 >= gap**2 for a, b in points):
            points.append((x, y))
    return points


def colour_separation(
    config: CalibrationConfig,
    seed: int,
    light_name: str | None = None,
) -> ColourFigure:
    """The guided colour capture of Shangri-La's four colours, rendered under the
    renderer's hardest light (a warm lamp on one side, cold window light on the other),
    then a new frame with every colour and empty spots at fresh positions, classified."""

    light_name = light_name or HARDEST_LIGHT
    camera = bench_camera()
    lens = exact_profile(camera)
    geometry = board_geometry("shangrila")
    board = draw_board(geometry, BOARD_PX_PER_MM)
    table = table_texture(seed)
    pose = Pose(65.0, 10.0, 800.0, (0.0, 20.0))
    # Colours are averaged over patches: one ray per pixel is enough, and twice as fast.
    imaging = Imaging(
        noise_sigma=2.5, shot_noise=0.5, blur_sigma=0.7, vignetting=0.25, supersample=1
    )
    rng = np.random.default_rng(seed)
    inner = geometry.border_mm + geometry.piece_mm
    low, high = 2.0 * inner, min(geometry.size_mm) - 2.0 * inner

    def photograph(
        pieces: list[tuple[tuple[float, float], tuple[int, int, int]]], shot: int
    ) -> Any:
        texture = draw_pieces(board, BOARD_PX_PER_MM, pieces, geometry.piece_mm)
        scene = Scene((table, PlanarTexture(texture, geometry.size_mm)), LIGHTS[light_name])
        return render(camera, pose, scene, imaging, seed + shot)

    empty = photograph([], 0)
    profile = register_with_markers(config.registration, geometry, empty, lens).profile
    gap = geometry.piece_mm * 1.6
    captures = {
        name: photograph([(p, bgr) for p in _spread(rng, 8, low, high, gap)], k + 1)
        for k, (name, bgr) in enumerate(PIECE_BGR.items())
    }
    capture = capture_samples(config.colours, profile, lens, empty, captures, rng)
    model, separation = fit_colour_model(config.colours, profile, capture)
    spots = _spread(rng, 24, low, high, gap)
    names = list(PIECE_BGR)
    truth = [names[i % len(names)] for i in range(20)] + [EMPTY] * 4
    frame = photograph(
        [(spot, PIECE_BGR[name]) for spot, name in zip(spots, truth, strict=True) if name != EMPTY],
        50,
    )
    matches = classify_patches(
        config.colours, model, profile, lens, frame, np.array(spots), geometry.piece_mm * 0.35
    )
    correct = sum(m.name == t for m, t in zip(matches, truth, strict=True))
    margin = min(m.runner_up_distance - m.distance for m in matches)
    return ColourFigure(
        light_name,
        model.names,
        separation.closest,
        separation.distance,
        separation.training_accuracy,
        len(truth),
        correct,
        margin,
    )
