"""A hand over the board, found by the appearance reader in the picture alone.

Pictures are rendered small (640x360) at the hardest level (a hand in about half of
them) from setups of several worlds never used for fitting; the reader is told nothing
of the hand. No test is pinned to one picture of one seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.appearance import COVERED_BY_HAND, HAND_AREA_MM2, fit_light, hand_on_light_grid
from vision.appearance_core import LIGHT_PX_PER_MM, LightField
from vision.evaluate.appearance import Setup, calibrated_reader, load_setup

SMALL = (640, 360)
WORLDS = [("shendao", seed) for seed in range(2901, 2905)] + [
    ("shangrila", seed) for seed in range(2901, 2903)
]


@pytest.fixture(scope="module")
def hand_pictures(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    cache = tmp_path_factory.mktemp("hands")
    return [
        load_setup(Setup("landscape", seed, "hardest", SMALL, game), cache, lambda _: None)
        for game, seed in WORLDS
    ]


def test_elements_a_hand_hides_are_covered_without_being_told(hand_pictures) -> None:  # type: ignore[no-untyped-def]
    hidden = hidden_covered = shown = shown_covered = 0
    for pictures in hand_pictures:
        reader, view = calibrated_reader(pictures)
        for image, truth in pictures.plays:
            reading = reader.read(image, view)
            for element in reader.elements:
                covered = reading.abstained.get(element) == COVERED_BY_HAND
                if truth["visible"].get(element) is not None:
                    shown += 1
                    shown_covered += covered
                elif truth["hands"] and truth["observation"].get(element) is not None:
                    hidden += 1  # on the board and in the picture, mostly under the hand
                    hidden_covered += covered
    assert hidden >= 60
    assert hidden_covered >= 0.6 * hidden
    assert shown_covered <= 0.1 * shown


def test_no_hand_is_found_on_the_empty_board(hand_pictures) -> None:  # type: ignore[no-untyped-def]
    for pictures in hand_pictures:
        reader, view = calibrated_reader(pictures)
        light = fit_light(pictures.empty, view, reader.appearance, reader.model.size_mm)
        assert light.hand is not None and not light.hand.any()


def _patch(rows: slice, columns: slice, change: tuple[float, float, float]) -> np.ndarray:
    left = np.zeros((40, 60, 3))
    left[rows, columns] = change
    return left.reshape(-1, 3)


def test_a_hand_is_a_large_patch_unlike_board_and_pieces_from_the_edge() -> None:
    reference = np.zeros((40, 60, 3))
    valid = np.ones(40 * 60, dtype=bool)
    arm = (slice(18, 30), slice(0, 40))
    assert HAND_AREA_MM2 * LIGHT_PX_PER_MM**2 <= 12 * 40

    def found(left: np.ndarray, pieces: list[np.ndarray]) -> np.ndarray:
        kept = np.linalg.norm(left, axis=1) < 0.1
        return hand_on_light_grid(left, valid, kept, reference, pieces)

    hand = found(_patch(*arm, (0.0, 0.8, 0.0)), [np.array([0.0, -0.8, 0.0])])
    assert hand[arm].all() and hand.sum() == 12 * 40
    # the same patch away from the edge: pieces side by side, not an arm
    assert not found(_patch(slice(18, 30), slice(10, 50), (0.0, 0.8, 0.0)), []).any()
    # the colour of a piece (one colour, or several as rows): pieces
    assert not found(_patch(*arm, (0.0, 0.8, 0.0)), [np.array([[0.0, 0.8, 0.0]])]).any()
    # brighter or darker only: light (a lamp's pool, a shadow)
    assert not found(_patch(*arm, (-1.5, 0.0, 0.0)), []).any()
    # too small for a hand
    assert not found(_patch(slice(0, 5), slice(0, 5), (0.0, 0.8, 0.0)), []).any()


def test_points_under_the_hand_found_are_told_apart() -> None:
    hand = np.zeros((10, 20), dtype=bool)
    hand[2:4, 5:8] = True
    local = np.zeros((10, 20, 3), np.float32)
    points = np.array([[6.5, 3.5], [0.5, 0.5], [-1.0, 2.0]]) / LIGHT_PX_PER_MM
    light = LightField(np.zeros((6, 3)), local, (100.0, 50.0), hand)
    assert light.under_hand(points).tolist() == [True, False, False]
    assert not LightField(np.zeros((6, 3)), local, (100.0, 50.0)).under_hand(points).any()
