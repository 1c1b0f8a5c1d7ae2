"""The colour model separates the four players' colours under the renderer's hardest
light, and is stored and refused like every profile."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.boards import board_geometry, draw_board, draw_pieces
from calibration.colours import (
    UNKNOWN,
    ColourClass,
    ColourModel,
    capture_samples,
    classify_features,
    classify_patches,
    fit_colour_model,
    load_colour_model,
    save_colour_model,
    white_balance_gains,
)
from calibration.config import CalibrationConfig
from calibration.errors import NotFoundError, ProfileError
from calibration.evaluate import (
    BOARD_PX_PER_MM,
    PIECE_BGR,
    bench_camera,
    colour_separation,
    exact_profile,
)
from calibration.registration import register_with_markers
from vision.synth import HARDEST_LIGHT, LIGHTS, Imaging, PlanarTexture, Pose, Scene, render


def test_four_colours_separate_under_the_hardest_light(config: CalibrationConfig) -> None:
    figure = colour_separation(config, seed=4)
    assert figure.light == HARDEST_LIGHT
    assert set(figure.classes) == {"empty", "red", "blue", "yellow", "violet"}
    assert figure.test_correct == figure.test_patches == 24
    assert figure.separation >= config.colours.min_separation
    assert figure.smallest_margin > 1.0


def model(names: tuple[str, ...] = ("red", "blue")) -> ColourModel:
    classes = tuple(
        ColourClass(
            name,
            (50.0, 60.0 * (-1) ** i, 0.0),
            ((4.0, 0.0, 0.0), (0.0, 4.0, 0.0), (0.0, 0.0, 4.0)),
            10,
        )
        for i, name in enumerate(names)
    )
    return ColourModel("shangrila", classes, "border", (1.0, 1.0, 1.0), 2.0, "then", "now")


def test_a_far_colour_is_unknown(config: CalibrationConfig) -> None:
    matches = classify_features(
        config.colours, model(), np.array([[50.0, 59.0, 1.0], [50.0, 0.0, 0.0]])
    )
    assert matches[0].name == "red" and matches[0].runner_up == "blue"
    assert matches[1].name == UNKNOWN


def test_white_balance_makes_the_reference_neutral() -> None:
    linear = np.zeros((4, 4, 3), np.float32)
    linear[:] = (0.1, 0.2, 0.4)
    gains = white_balance_gains(linear, np.ones((4, 4), bool))
    balanced = linear[0, 0] * np.array(gains)
    np.testing.assert_allclose(balanced, balanced.mean(), rtol=1e-6)


def test_model_round_trip_and_refusals(tmp_path: Path) -> None:
    path = tmp_path / "colours-shangrila.json"
    save_colour_model(model(), path)
    assert load_colour_model(path, "shangrila") == model()
    with pytest.raises(ProfileError, match="colour model of shangrila, not shendao"):
        load_colour_model(path, "shendao")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["classes"][0]["covariance"] = [[1, 2, 0], [0, 1, 0], [0, 0, 1]]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError, match="symmetric positive definite"):
        load_colour_model(path)
    data["classes"] = data["classes"][1:]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError, match="two or more classes"):
        load_colour_model(path)


def test_grey_card_capture_and_a_colour_that_is_missing(config: CalibrationConfig) -> None:
    camera = bench_camera()
    lens = exact_profile(camera)
    board = board_geometry("shangrila")
    picture = draw_board(board, BOARD_PX_PER_MM)
    card = (200.0, 300.0, 60.0, 40.0)
    grey = picture.copy()
    x, y, w, h = (int(v * BOARD_PX_PER_MM) for v in card)
    grey[y : y + h, x : x + w] = 128
    pose = Pose(90.0, 0.0, 900.0)
    light = LIGHTS["warm"]

    def shoot(texture: np.ndarray, seed: int) -> np.ndarray:
        return render(
            camera,
            pose,
            Scene((PlanarTexture(texture, board.size_mm),), light),
            Imaging(noise_sigma=1.0, supersample=1),
            seed,
        )

    empty = shoot(grey, 1)
    profile = register_with_markers(config.registration, board, empty, lens).profile
    spots = [((120.0 + 60.0 * i, 120.0), PIECE_BGR["red"]) for i in range(4)]
    reds = shoot(draw_pieces(picture, BOARD_PX_PER_MM, spots, board.piece_mm), 2)
    rng = np.random.default_rng(0)
    capture = capture_samples(config.colours, profile, lens, empty, {"red": reds}, rng, card)
    assert capture.white_balance == "grey-card" and capture.pieces == {"red": 4}
    fitted, _ = fit_colour_model(config.colours, profile, capture)
    matches = classify_patches(
        config.colours, fitted, profile, lens, reds, np.array([s for s, _ in spots]), 8.0
    )
    assert [m.name for m in matches] == ["red"] * 4
    with pytest.raises(NotFoundError, match="no blue pieces found"):
        capture_samples(config.colours, profile, lens, empty, {"blue": empty}, rng)
