"""The synthetic camera: geometry exact to a small fraction of a pixel, light as named,
every image replayable from its seed."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.synth import (
    HARDEST_LIGHT,
    LIGHTS,
    Camera,
    Imaging,
    Light,
    PlanarTexture,
    Pose,
    Scene,
    plane_homography,
    project_points,
    render,
    table_texture,
)

CAMERA = Camera(1280, 720, 930.0, 925.0, 652.0, 351.0, k1=-0.18, k2=0.06, p1=0.001, p2=-0.0008)
# A chessboard of 9x7 squares of 20 mm, drawn at 10 px per mm.
SQUARE_MM = 20.0
COLS, ROWS = 9, 7


def chessboard() -> PlanarTexture:
    px = 10
    cells = (np.indices((ROWS, COLS)).sum(axis=0) % 2).astype(np.uint8) * 255
    image = np.kron(cells, np.ones((int(SQUARE_MM) * px, int(SQUARE_MM) * px), np.uint8))
    padded = np.pad(image, 100, constant_values=255)
    size = (padded.shape[1] / px, padded.shape[0] / px)
    return PlanarTexture(padded, size)


def inner_corners_mm(layer: PlanarTexture) -> np.ndarray:
    xs, ys = np.meshgrid(
        np.arange(1, COLS) * SQUARE_MM + 10.0, np.arange(1, ROWS) * SQUARE_MM + 10.0
    )
    return layer.to_table(np.column_stack([xs.ravel(), ys.ravel()]))


@pytest.mark.parametrize(
    "pose", [Pose(90.0, 0.0, 450.0), Pose(55.0, 30.0, 500.0, (40.0, -30.0), 15.0)]
)
def test_rendered_corners_land_where_project_points_says(pose: Pose) -> None:
    layer = chessboard()
    image = render(CAMERA, pose, Scene((table_texture(1), layer)))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    truth = project_points(CAMERA, pose, inner_corners_mm(layer)).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 100, 1e-4)
    found = cv2.cornerSubPix(
        grey, truth.reshape(-1, 1, 2).copy(), (6, 6), (-1, -1), criteria
    ).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((found - truth) ** 2, axis=1))))
    # Measured: 0.064 px straight down, 0.059 px at 55 degrees (cornerSubPix's own bias
    # included); a lens model off by a tenth of a percent would move corners by 0.3 px.
    assert rms < 0.08


def test_top_down_view_shows_the_texture_upright_and_unmirrored() -> None:
    pose = Pose(90.0, 0.0, 600.0)
    corners = project_points(
        Camera.from_fov(640, 480, 60.0),
        pose,
        np.array([[-100.0, -50.0], [100.0, -50.0], [100.0, 50.0]]),
    )
    top_left, top_right, bottom_right = corners
    assert top_left[0] < top_right[0] and abs(top_left[1] - top_right[1]) < 1e-9
    assert bottom_right[1] > top_right[1]


def test_homography_matches_projection_without_distortion() -> None:
    camera = Camera.from_fov(800, 600, 65.0)
    pose = Pose(60.0, -25.0, 700.0, (30.0, 20.0), 8.0)
    points = np.array([[0.0, 0.0], [120.0, -40.0], [-200.0, 90.0]])
    h = plane_homography(camera, pose)
    mapped = np.column_stack([points, np.ones(3)]) @ h.T
    np.testing.assert_allclose(
        mapped[:, :2] / mapped[:, 2:], project_points(camera, pose, points), atol=1e-9
    )


def test_camera_figures() -> None:
    camera = Camera.from_fov(1000, 500, 90.0)
    assert camera.fx == pytest.approx(500.0)
    assert (camera.cx, camera.cy) == (499.5, 249.5)
    scaled = camera.scaled(2)
    assert scaled.size == (2000, 1000)
    assert scaled.cx == pytest.approx(999.5) and scaled.fx == pytest.approx(1000.0)
    with pytest.raises(ValueError, match="field of view"):
        Camera.from_fov(10, 10, 180.0)
    with pytest.raises(ValueError, match="elevation"):
        Pose(0.0)
    with pytest.raises(ValueError, match="supersample"):
        Imaging(supersample=0)


def test_same_seed_same_image_and_noise_follows_the_seed() -> None:
    camera = Camera.from_fov(160, 120, 60.0)
    scene = Scene((table_texture(3),))
    imaging = Imaging(noise_sigma=3.0, blur_sigma=0.5, jpeg_quality=80)
    first = render(camera, Pose(70.0, 10.0, 500.0), scene, imaging, seed=4)
    again = render(camera, Pose(70.0, 10.0, 500.0), scene, imaging, seed=4)
    other = render(camera, Pose(70.0, 10.0, 500.0), scene, imaging, seed=5)
    assert first.shape == (120, 160, 3) and first.dtype == np.uint8
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_a_view_above_the_horizon_sees_the_background() -> None:
    camera = Camera.from_fov(200, 150, 90.0)
    pose = Pose(20.0, 0.0, 800.0)
    one = render(camera, pose, Scene((table_texture(1),)))
    two = render(camera, pose, Scene((table_texture(2),)))
    # The top rows look above the horizon at the plain background, whatever the table;
    # the bottom rows see the table's grain.
    assert np.array_equal(one[:5], two[:5])
    assert np.ptp(one[:5].reshape(-1, 3), axis=0).max() == 0
    assert not np.array_equal(one[-5:], two[-5:])


def test_hardest_light_changes_colour_and_level_across_the_table() -> None:
    grey = PlanarTexture(np.full((100, 100, 3), 180, np.uint8), (800.0, 800.0))
    camera = Camera.from_fov(320, 240, 60.0)
    image = render(camera, Pose(90.0, 0.0, 700.0), Scene((grey,), LIGHTS[HARDEST_LIGHT]))
    # The key light comes from direction 200 degrees: the -X side (left of the picture).
    left = image[100:140, 20:60].reshape(-1, 3).mean(axis=0)
    right = image[100:140, 260:300].reshape(-1, 3).mean(axis=0)
    assert left.mean() > 1.4 * right.mean()
    # Warm on the lit side (more red than blue), cold on the other.
    assert left[2] > left[0] and right[0] > right[2]


def test_even_light_is_even() -> None:
    grey = PlanarTexture(np.full((10, 10, 3), 128, np.uint8), (800.0, 800.0))
    image = render(
        Camera.from_fov(160, 120, 50.0),
        Pose(90.0, 0.0, 700.0),
        Scene((grey,), Light(key_level=1.0, fill_level=0.0)),
    )
    assert np.ptp(image.reshape(-1, 3), axis=0).max() <= 1


def test_texture_placement_turns_clockwise_in_a_top_down_view() -> None:
    layer = PlanarTexture(np.zeros((10, 20), np.uint8), (200.0, 100.0), (50.0, 0.0), 90.0)
    # The texture's top-left corner (0, 0) lies at (-100, -50) from its centre; turned by
    # 90 degrees it goes to (50, -100) from the centre.
    np.testing.assert_allclose(layer.to_table(np.array([[0.0, 0.0]])), [[100.0, -100.0]], atol=1e-9)
    assert math.isclose(layer.to_table(np.array([[100.0, 50.0]]))[0, 0], 50.0)
