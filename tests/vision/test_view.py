"""The board view: board millimetres to frame pixels and back, heights above the board,
the rectified board, and the pose recovered from a homography."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth.camera import Camera, PlanarTexture, Pose, project_points
from vision.view import BoardView, Lens, in_picture, pose_from_homography, truth_view

CAMERA = Camera.from_fov(1280, 720, 60.0, k1=-0.08, k2=0.02)
POSE = Pose(45.0, 30.0, 800.0)
SIZE = (500.0, 500.0)
BOARD = PlanarTexture(np.zeros((2, 2, 3), np.uint8), SIZE, (10.0, -20.0), 15.0)
POINTS = np.array([[0.0, 0.0], [250.0, 250.0], [480.0, 30.0], [100.0, 400.0]])


def _view() -> BoardView:
    return truth_view(CAMERA, POSE, SIZE, (10.0, -20.0), 15.0)


def test_truth_view_puts_board_points_where_the_renderer_does() -> None:
    table = BOARD.to_table(POINTS)
    expected = project_points(CAMERA, POSE, table)
    assert np.abs(_view().to_image(POINTS) - expected).max() < 1e-6
    # 10 mm up from the board is 10 mm towards the camera (the table's Z points down)
    above = project_points(CAMERA, POSE, np.column_stack([table, np.full(4, -10.0)]))
    lifted = _view().to_image(np.column_stack([POINTS, np.full(4, 10.0)]))
    assert np.abs(lifted - above).max() < 1e-6


def test_the_view_knows_where_the_camera_is() -> None:
    camera = _view().camera_mm()
    assert camera is not None
    # the camera's height above the board, and a board point below it seen straight
    # along the ray from it
    assert camera[2] == pytest.approx(800.0 * np.sin(np.radians(45.0)), rel=1e-6)
    point = np.array([250.0, 250.0])
    ray = np.array([*(point + 0.5 * (camera[:2] - point)), 0.5 * camera[2]])
    assert np.abs(_view().to_image(ray[None]) - _view().to_image(point[None])).max() < 1e-6
    plane_only = BoardView(_view().homography, (1280, 720))
    assert plane_only.camera_mm() is None


def test_to_board_inverts_to_image() -> None:
    view = _view()
    assert np.abs(view.to_board(view.to_image(POINTS)) - POINTS).max() < 1e-4


def test_pose_from_homography_recovers_the_projection() -> None:
    view = _view()
    projection = pose_from_homography(view.homography, CAMERA.matrix)
    assert view.projection is not None
    ratio = projection / view.projection
    assert np.allclose(ratio, ratio[2, 3], rtol=1e-6)


def test_rectify_shows_the_board_from_above() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    spot = _view().to_image(np.array([[250.0, 250.0]]))[0]
    frame[round(spot[1]) - 2 : round(spot[1]) + 3, round(spot[0]) - 2 : round(spot[0]) + 3] = 255
    top = _view().rectify(frame, SIZE, 1.0)
    assert top.shape == (500, 500, 3)
    y, x = np.unravel_index(np.argmax(top[:, :, 0]), top.shape[:2])
    assert abs(x - 249.5) <= 2 and abs(y - 249.5) <= 2


def test_lens_undistort_inverts_distort() -> None:
    lens = Lens.of(CAMERA)
    ideal = np.array([[10.0, 20.0], [640.0, 360.0], [1200.0, 700.0]])
    assert np.abs(lens.undistort(lens.distort(ideal)) - ideal).max() < 1e-4


def test_visible_says_which_points_are_in_the_frame() -> None:
    view = _view()
    far = np.array([[250.0, 250.0], [-5000.0, 250.0]])
    assert view.visible(far).tolist() == [True, False]


def test_in_picture_keeps_the_pixels_inside_the_frame_and_its_margin() -> None:
    pixels = np.array([[0.0, 0.0], [1279.0, 719.0], [1279.5, 10.0], [-0.1, 10.0], [5.0, 5.0]])
    assert in_picture(pixels, (1280, 720)).tolist() == [True, True, False, False, True]
    assert in_picture(pixels, (1280, 720), margin_px=6.0).tolist() == [False] * 5
    grid = pixels.reshape(1, 5, 2)  # any leading shape
    assert in_picture(grid, (1280, 720)).shape == (1, 5)
