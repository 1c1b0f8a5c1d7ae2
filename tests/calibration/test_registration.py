"""Board registration on rendered boards at 1280x720: under a millimetre on the board,
moves noticed, wrong boards and foreign files refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from calibration.boards import board_geometry, draw_board
from calibration.config import CalibrationConfig
from calibration.errors import NotFoundError, ProfileError
from calibration.evaluate import (
    BOARD_PX_PER_MM,
    REGISTRATION_TOLERANCE_MM,
    bench_camera,
    exact_profile,
    registration_accuracy,
)
from calibration.registration import (
    board_to_image,
    check_registration,
    draw_overlay,
    find_board_outline,
    image_to_board,
    load_board_profile,
    load_reference_image,
    register_with_markers,
    register_with_outline,
    save_board_profile,
)
from engines.registry import GAMES
from vision.synth import (
    LIGHTS,
    Imaging,
    PlanarTexture,
    Pose,
    Scene,
    project_points,
    render,
    table_texture,
)


@pytest.mark.parametrize("game", GAMES)
def test_registration_error_is_under_a_millimetre_at_720p(
    config: CalibrationConfig, game: str
) -> None:
    lens = exact_profile(bench_camera())
    figure = registration_accuracy(config, game, lens, seed=2)
    assert figure.max_mm < REGISTRATION_TOLERANCE_MM
    assert figure.check_max_mm < config.registration.check_limit_mm


def shangrila_scene(offset_mm: tuple[float, float] = (0.0, 0.0), markers: bool = True) -> Scene:
    board = board_geometry("shangrila")
    layer = PlanarTexture(
        draw_board(board, BOARD_PX_PER_MM, with_markers=markers), board.size_mm, offset_mm
    )
    return Scene((table_texture(5), layer), LIGHTS["warm"])


POSE = Pose(70.0, 5.0, 900.0, (0.0, 20.0))
IMAGING = Imaging(noise_sigma=1.5, blur_sigma=0.6, supersample=1)


@pytest.fixture(scope="module")
def frames() -> dict[str, np.ndarray]:
    camera = bench_camera()
    return {
        "board": render(camera, POSE, shangrila_scene(), IMAGING, 1),
        "moved": render(camera, POSE, shangrila_scene((6.0, 0.0)), IMAGING, 2),
        "plain": render(camera, POSE, shangrila_scene(markers=False), IMAGING, 3),
        "plain moved": render(camera, POSE, shangrila_scene((5.0, 0.0), markers=False), IMAGING, 4),
    }


def test_check_notices_a_moved_board(
    config: CalibrationConfig, frames: dict[str, np.ndarray]
) -> None:
    lens = exact_profile(bench_camera())
    profile = register_with_markers(
        config.registration, board_geometry("shangrila"), frames["board"], lens
    ).profile
    still = check_registration(config.registration, profile, lens, frames["board"])
    assert still.max_mm < 0.5 and still.points == 16
    moved = check_registration(config.registration, profile, lens, frames["moved"])
    assert moved.rms_mm == pytest.approx(6.0, abs=0.5)
    assert moved.max_mm > config.registration.check_limit_mm
    overlay = draw_overlay(config.registration, profile, lens, frames["moved"], moved)
    assert overlay.shape == frames["moved"].shape
    assert not np.array_equal(overlay, frames["moved"])


def test_the_board_maps_both_ways(config: CalibrationConfig, frames: dict[str, np.ndarray]) -> None:
    lens = exact_profile(bench_camera())
    profile = register_with_markers(
        config.registration, board_geometry("shangrila"), frames["board"], lens
    ).profile
    points = np.array([[100.0, 100.0], [250.0, 250.0], [480.0, 30.0]])
    np.testing.assert_allclose(
        image_to_board(profile, lens, board_to_image(profile, lens, points)), points, atol=1e-6
    )


def test_wrong_game_names_the_right_one(
    config: CalibrationConfig, frames: dict[str, np.ndarray]
) -> None:
    with pytest.raises(NotFoundError, match="belong to shangrila: is --game right"):
        register_with_markers(config.registration, board_geometry("shendao"), frames["board"], None)


def test_without_a_lens_profile_the_user_is_warned(
    config: CalibrationConfig, frames: dict[str, np.ndarray]
) -> None:
    result = register_with_markers(
        config.registration, board_geometry("shangrila"), frames["board"], None
    )
    assert any("no camera profile" in w for w in result.warnings)
    assert result.profile.camera is None


def test_marker_free_registration_finds_the_outline_and_notices_moves(
    config: CalibrationConfig, frames: dict[str, np.ndarray]
) -> None:
    camera = bench_camera()
    lens = exact_profile(camera)
    board = board_geometry("shangrila")
    layer = shangrila_scene(markers=False).layers[1]
    truth = project_points(camera, POSE, layer.to_table(board.outline_mm()))
    registration, png = register_with_outline(config.registration, board, frames["plain"], lens)
    found = board_to_image(registration.profile, lens, board.outline_mm())
    assert np.abs(found - truth).max() < 1.0
    assert png.startswith(b"\x89PNG")
    still = check_registration(
        config.registration, registration.profile, lens, frames["plain"], frames["plain"]
    )
    assert still.max_mm < 0.5
    moved = check_registration(
        config.registration, registration.profile, lens, frames["plain moved"], frames["plain"]
    )
    assert moved.rms_mm == pytest.approx(5.0, abs=1.0)


def test_given_corners_override_the_outline(
    config: CalibrationConfig, frames: dict[str, np.ndarray]
) -> None:
    camera = bench_camera()
    board = board_geometry("shangrila")
    layer = shangrila_scene(markers=False).layers[1]
    corners = project_points(camera, POSE, layer.to_table(board.outline_mm()))
    registration, _ = register_with_outline(
        config.registration, board, frames["plain"], exact_profile(camera), corners
    )
    seen = project_points(camera, POSE, layer.to_table(np.array([[250.0, 250.0]])))
    centre = image_to_board(registration.profile, exact_profile(camera), seen)
    np.testing.assert_allclose(centre, [[250.0, 250.0]], atol=0.05)


def test_no_outline_in_a_blank_picture(config: CalibrationConfig) -> None:
    with pytest.raises(NotFoundError, match="no board outline"):
        find_board_outline(config.registration, np.full((720, 1280, 3), 90, np.uint8))


def test_board_profile_round_trip_and_refusals(
    config: CalibrationConfig, tmp_path: Path, frames: dict[str, np.ndarray]
) -> None:
    lens = exact_profile(bench_camera())
    board = board_geometry("shangrila")
    registration, png = register_with_outline(config.registration, board, frames["plain"], lens)
    profile = registration.profile
    path = tmp_path / "board-shangrila.json"
    save_board_profile(profile, path)
    assert load_board_profile(path, "shangrila") == profile
    with pytest.raises(ProfileError, match="registers the shangrila board, not shendao"):
        load_board_profile(path, "shendao")
    image_path = tmp_path / "reference.png"
    image_path.write_bytes(png)
    assert load_reference_image(image_path, profile).shape == frames["plain"].shape
    image_path.write_bytes(png[:-10])
    with pytest.raises(ProfileError, match="not the one the board was registered with"):
        load_reference_image(image_path, profile)
    other_lens = dataclasses.replace(lens, distortion=(0.0,) * 5)
    with pytest.raises(ProfileError, match="another camera profile"):
        check_registration(
            config.registration, profile, other_lens, frames["plain"], frames["plain"]
        )
    with pytest.raises(ProfileError, match="registered at 1280x720"):
        check_registration(
            config.registration, profile, lens, np.zeros((480, 640, 3), np.uint8), frames["plain"]
        )
