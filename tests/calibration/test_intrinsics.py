"""Camera intrinsics: real photographs agree with OpenCV's reference, rendered views
recover the rendered lens, and views that hurt the fit are left out with a reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from calibration.config import CalibrationConfig
from calibration.errors import FitError, ProfileError
from calibration.evaluate import (
    FOCAL_TOLERANCE_PCT,
    REAL_INTRINSICS_TOLERANCE_PCT,
    REAL_PHOTO_REFERENCE,
    REAL_PHOTOS_DIR,
    REAL_RMS_TOLERANCE_PX,
    bench_camera,
    exact_profile,
    real_photos,
    rendered_intrinsics,
)
from calibration.intrinsics import (
    CameraProfile,
    calibrate_camera,
    distort_points,
    load_camera_profile,
    save_camera_profile,
    undistort_image,
    undistort_points,
)
from calibration.targets import (
    ChessboardTarget,
    RejectedView,
    TargetView,
    collect_views,
    detect_target,
)
from vision.synth import Camera, PlanarTexture, Pose, Scene, project_points, render


def test_real_photographs_agree_with_opencvs_reference(config: CalibrationConfig) -> None:
    if not REAL_PHOTOS_DIR.is_dir():
        pytest.skip(f"the real photographs are not at {REAL_PHOTOS_DIR}")
    figure = real_photos(config, REAL_PHOTOS_DIR)
    assert figure.views == 13
    assert abs(figure.rms_difference_px) < REAL_RMS_TOLERANCE_PX
    assert figure.worst_intrinsics_pct < REAL_INTRINSICS_TOLERANCE_PCT
    assert figure.rms_px == pytest.approx(REAL_PHOTO_REFERENCE["rms_px"], abs=1e-4)


def test_rendered_charuco_views_recover_the_lens(config: CalibrationConfig) -> None:
    # Eight views keep the test quick; over seeds 1-5 they recover the focal lengths
    # within 0.1% and the principal point within 0.3%.
    figure, profile = rendered_intrinsics(config, views=8, seed=3)
    assert figure.used == 8
    assert figure.focal_error_pct < FOCAL_TOLERANCE_PCT
    assert max(abs(figure.cx_error_pct), abs(figure.cy_error_pct)) < 1.0
    assert profile.rms_px < 0.2
    assert profile.image_size == (1280, 720)


def synthetic_views(camera: Camera, count: int, seed: int) -> list[TargetView]:
    """Exact corner projections of a 9x6 chessboard (25 mm) with a little noise."""
    target = ChessboardTarget((9, 6), 25.0)
    rng = np.random.default_rng(seed)
    views = []
    for i in range(count):
        pose = Pose(
            float(rng.uniform(45, 80)),
            float(rng.uniform(-180, 180)),
            float(rng.uniform(350, 600)),
            (float(rng.uniform(-80, 80)), float(rng.uniform(-60, 60))),
            float(rng.uniform(-180, 180)),
        )
        board = target.object_points()[:, :2] - np.array([100.0, 62.5])
        pixels = project_points(camera, pose, board) + rng.normal(0, 0.1, (len(board), 2))
        views.append(
            TargetView(
                f"view {i}",
                camera.size,
                np.arange(len(board), dtype=np.int32),
                target.object_points(),
                pixels.astype(np.float32),
            )
        )
    return views


def test_a_view_that_hurts_the_fit_is_left_out_with_its_reason(config: CalibrationConfig) -> None:
    camera = bench_camera()
    views = synthetic_views(camera, 8, seed=2)
    bad = views[3]
    shaken = bad.image_points + np.random.default_rng(0).normal(0, 4.0, bad.image_points.shape)
    views[3] = dataclasses.replace(bad, image_points=shaken.astype(np.float32))
    result = calibrate_camera(config.camera, views)
    profile = result.profile
    assert [r.label for r in profile.rejected] == ["view 3"]
    assert "reprojection error" in profile.rejected[0].reason
    assert "median" in profile.rejected[0].reason
    assert len(profile.views) == 7
    assert abs(profile.fx - camera.fx) / camera.fx < 0.005


def test_too_few_views_is_a_fit_error(config: CalibrationConfig) -> None:
    views = synthetic_views(bench_camera(), 3, seed=1)
    with pytest.raises(FitError, match="only 3 usable views"):
        calibrate_camera(config.camera, views)


def test_detection_says_why_an_image_is_of_no_use(config: CalibrationConfig) -> None:
    blank = np.full((480, 640, 3), 200, np.uint8)
    outcome = detect_target(config.camera, ChessboardTarget((9, 6), 25.0), "blank.png", blank)
    assert isinstance(outcome, RejectedView)
    assert "chessboard was not found" in outcome.reason
    views, rejected = collect_views(
        config.camera,
        ChessboardTarget((9, 6), 25.0),
        [("broken.jpg", None), ("blank.png", blank)],
        stream=False,
    )
    assert views == [] and [r.label for r in rejected] == ["broken.jpg", "blank.png"]
    assert "could not be read" in rejected[0].reason


def test_stream_skips_near_duplicate_views(config: CalibrationConfig) -> None:
    camera = Camera.from_fov(640, 480, 60.0)
    target = ChessboardTarget((9, 6), 20.0)
    cells = (np.indices((7, 10)).sum(axis=0) % 2).astype(np.uint8) * 255
    sheet = np.pad(np.kron(cells, np.ones((40, 40), np.uint8)), 40, constant_values=255)
    layer = PlanarTexture(sheet, (sheet.shape[1] / 2.0, sheet.shape[0] / 2.0))
    frames = [
        (f"frame {i}", render(camera, Pose(80.0, 0.0, 450.0, (x, 0.0)), Scene((layer,))))
        for i, x in enumerate((0.0, 1.0, 30.0))
    ]
    views, rejected = collect_views(config.camera, target, frames, stream=True)
    assert [v.label for v in views] == ["frame 0", "frame 2"]
    assert "too similar to frame 0" in rejected[0].reason


def test_profile_round_trip_and_undistortion(config: CalibrationConfig, tmp_path: Path) -> None:
    camera = bench_camera()
    profile = exact_profile(camera)
    path = tmp_path / "camera.json"
    save_camera_profile(profile, path)
    loaded = load_camera_profile(path)
    assert loaded == profile
    pixels = np.array([[5.0, 7.0], [640.0, 360.0], [1270.0, 710.0]])
    np.testing.assert_allclose(
        distort_points(loaded, undistort_points(loaded, pixels)), pixels, atol=1e-6
    )
    with pytest.raises(ProfileError, match="made at 1280x720"):
        undistort_image(loaded, np.zeros((480, 640, 3), np.uint8))


def test_undistorted_image_has_straight_lines() -> None:
    camera = Camera(640, 480, 420.0, 420.0, 320.0, 240.0, k1=-0.3, k2=0.09)
    stripes = np.full((200, 800), 255, np.uint8)
    stripes[95:105, :] = 0
    layer = PlanarTexture(stripes, (800.0, 200.0))
    pose = Pose(90.0, 0.0, 300.0, (0.0, -60.0))
    image = render(camera, pose, Scene((layer,)))
    straight = undistort_image(exact_profile(camera), image)

    def line_rows(picture: np.ndarray) -> np.ndarray:
        """The dark line's centre row in each column, weighted by darkness within 12
        rows of the column's darkest pixel."""
        grey = picture[:, 80:560].mean(axis=2)
        centres = []
        for column in grey.T:
            near = int(np.argmin(column))
            rows = np.arange(near - 12, near + 13)
            darkness = np.clip(128.0 - column[rows], 0.0, None)
            centres.append(float((darkness * rows).sum() / darkness.sum()))
        return np.array(centres)

    # The lens bends the line by about 10 px; straightened, what is left is within the
    # resampling and the centre estimate's own wobble.
    assert np.ptp(line_rows(image)) > 5.0
    assert np.ptp(line_rows(straight)) < 0.6


def test_a_profile_with_a_bad_matrix_is_refused(tmp_path: Path) -> None:
    profile = exact_profile(bench_camera())
    broken = CameraProfile(
        profile.image_size, ((0.0, 0.0, 0.0),) * 3, profile.distortion, 0.1, (), (), "x", "today"
    )
    path = tmp_path / "camera.json"
    save_camera_profile(broken, path)
    with pytest.raises(ProfileError, match="camera_matrix"):
        load_camera_profile(path)
