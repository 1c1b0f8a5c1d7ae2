"""Whether the board was clear at calibration: something over the board in the picture
of the empty board (or of the calibration position) is found and said where.

Pictures are rendered small (640x360) at the hardest level, with the table's clutter
around the board, from validation worlds of each game; an object is painted over the
board into one of the two pictures, each time over other places. No test is pinned to
one picture of one seed.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from engines.observation import Observation
from vision.appearance_clear import Obstruction, describe, obstructions
from vision.appearance_core import BARE_VALUES
from vision.evaluate.appearance import Setup, _model, _view, clear_calibration, load_setup
from vision.models import referee_schema

SMALL = (640, 360)
WORLDS = [("shendao", 1001), ("shendao", 1002), ("shangrila", 1001), ("shenshi", 1002)]


@pytest.fixture(scope="module")
def calibrations(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    cache = tmp_path_factory.mktemp("clear")
    out = []
    for game, seed in WORLDS:
        setup = Setup("painted", seed, "hardest", SMALL, game)
        pictures = load_setup(setup, cache, lambda _: None)
        model = _model(setup)
        layout = Observation.from_json(
            referee_schema(game), {"readings": pictures.calibration_truth}
        )
        out.append((pictures, model, _view(pictures, model.size_mm), layout))
    return out


def _box(image: np.ndarray, view, centre_mm: np.ndarray, side_mm: float, rng) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``image`` with a box's top of one colour painted over ``side_mm`` of board."""
    corners = centre_mm + side_mm / 2 * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    out = image.copy()
    colour = tuple(int(c) for c in rng.integers(30, 230, size=3))
    cv2.fillConvexPoly(out, np.round(view.to_image(corners)).astype(np.int32), colour)
    return out


def test_a_clear_board_brings_no_warning(calibrations) -> None:  # type: ignore[no-untyped-def]
    for pictures, model, view, layout in calibrations:
        assert obstructions(model, pictures.empty, view, pictures.calibration, view, layout) == []


def test_an_object_over_the_board_in_either_picture_is_found_where_it_lies(calibrations) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    for pictures, model, view, layout in calibrations:
        known = [n for n in layout.schema.elements if n in model.elements and layout[n].known]
        pieces = np.array(
            [model.elements[n].centre_mm for n in known if layout[n].value not in BARE_VALUES]
        )
        # bare places away from the position's pieces (whose neighbourhood is not compared)
        bare = sorted(
            (n for n in known if layout[n].value in BARE_VALUES),
            key=lambda n: -np.min(np.linalg.norm(pieces - model.elements[n].centre_mm, axis=1)),
        )[:6]
        for in_empty in (True, False):
            name = bare[int(rng.integers(len(bare)))]
            centre = np.array(model.elements[name].centre_mm)
            side = 0.15 * min(model.size_mm)
            empty, position = pictures.empty, pictures.calibration
            if in_empty:
                empty = _box(empty, view, centre, side, rng)
            else:
                position = _box(position, view, centre, side, rng)
            found = obstructions(model, empty, view, position, view, layout)
            assert found, (model.size_mm, name, in_empty)
            assert np.linalg.norm(np.array(found[0].centre_mm) - centre) < side
            assert found[0].elements
            (warning,) = describe(found[:1], model.size_mm)
            assert "take both pictures again" in warning


def test_where_names_the_corner_or_side() -> None:
    size = (480.0, 480.0)
    assert Obstruction((20.0, 30.0), 900.0).where(size) == "near the top-left corner"
    assert Obstruction((460.0, 450.0), 900.0).where(size) == "near the bottom-right corner"
    assert Obstruction((240.0, 10.0), 900.0).where(size) == "along the top side"
    assert Obstruction((240.0, 240.0), 900.0).where(size) == "in the middle"


def test_the_bench_takes_the_calibration_again_as_the_player_is_told(calibrations) -> None:  # type: ignore[no-untyped-def]
    """A calibration the check warns about is taken again (the thing over the board
    moved away), as the player is told; a clear one is kept as it is."""
    rng = np.random.default_rng(9)
    pictures, model, view, layout = calibrations[0]
    kept, warnings = clear_calibration(pictures)
    assert warnings == [] and kept is pictures
    name = next(n for n in layout.schema.elements if n in model.elements and layout[n].known)
    centre = np.array(model.elements[name].centre_mm)
    covered = replace(
        pictures, empty=_box(pictures.empty, view, centre, 0.3 * min(model.size_mm), rng)
    )
    again, warnings = clear_calibration(covered)
    assert len(warnings) == 1 and "take both pictures again" in warnings[0][0]
    assert not np.array_equal(again.empty, covered.empty)
    assert obstructions(model, again.empty, view, again.calibration, view, layout) == []
    assert again.plays is covered.plays
