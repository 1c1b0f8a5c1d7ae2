"""Board geometry data: consistent, editable, and refused when inconsistent."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.boards import (
    GridLayout,
    VillageLayout,
    board_geometry,
    draw_board,
    draw_pieces,
    load_boards,
    model_points,
    model_polylines,
)
from calibration.errors import ConfigError
from engines.shangrila.board import COLOURS


def packaged() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files("calibration").joinpath("boards.json").read_text("utf-8")
    )
    return data


def test_every_game_has_a_board_with_its_own_markers() -> None:
    boards = load_boards()
    assert set(boards) == {"shangrila", "shendao", "shenshi"}
    ids = [i for board in boards.values() for i in board.marker_ids]
    assert len(ids) == len(set(ids))
    assert isinstance(boards["shangrila"].layout, VillageLayout)
    shendao = boards["shendao"].layout
    assert isinstance(shendao, GridLayout) and shendao.cells == (8, 8)
    assert shendao.gate_border_mm > 0
    shenshi = boards["shenshi"].layout
    assert isinstance(shenshi, GridLayout) and shenshi.cells == (7, 7)


def test_the_file_says_its_sizes_are_estimates() -> None:
    assert "ESTIMATES" in packaged()["about"]


def test_shangrila_colours_match_the_rules_engine() -> None:
    assert board_geometry("shangrila").player_colours == COLOURS


def test_marker_corners_follow_aruco_order() -> None:
    board = board_geometry("shenshi")
    corners = board.marker_corners_mm(board.marker_ids[0])
    centre = np.array(board.markers[0].centre_mm)
    half = board.marker_mm / 2
    np.testing.assert_allclose(
        corners, centre + np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    )


def test_markers_lie_clear_of_the_grids_and_gate_rings() -> None:
    for game in ("shendao", "shenshi"):
        board = board_geometry(game)
        layout = board.layout
        assert isinstance(layout, GridLayout)
        ring = min(layout.origin_mm) - layout.gate_border_mm
        for placement in board.markers:
            near = min(placement.centre_mm[0], board.size_mm[0] - placement.centre_mm[0])
            assert near + board.marker_mm / 2 < ring, (game, placement.id)


def test_model_lines_and_points() -> None:
    shendao = board_geometry("shendao")
    points = model_points(shendao)
    assert len(points) == 4 + 9 * 9
    lines = model_polylines(shendao)
    assert len(lines) == 1 + 9 + 9 + 1  # outline, grid lines, gate ring
    shangrila = board_geometry("shangrila")
    assert len(model_points(shangrila)) == 4 + 13


def test_drawn_board_and_pieces() -> None:
    board = board_geometry("shangrila")
    image = draw_board(board, 2.0)
    assert image.shape == (1000, 1000, 3)
    assert image[42, 42].tolist() in ([0, 0, 0], [255, 255, 255])
    with_piece = draw_pieces(image, 2.0, [((250.0, 250.0), (1, 2, 3))], 20.0)
    assert with_piece[500, 500].tolist() == [1, 2, 3]
    assert not np.array_equal(with_piece, image)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b["shendao"]["markers"][0].update(id=0), "used by both"),
        (lambda b: b["shenshi"]["markers"][0].update(centre_mm=[5.0, 5.0]), "wholly on the board"),
        (lambda b: b["shenshi"]["layout"].update(cell_mm=60.0), "do not fit"),
        (lambda b: b["shenshi"].update(player_colours=["a", "a"]), "different"),
        (lambda b: b["shenshi"]["layout"].update(kind="hexes"), "layout.kind"),
        (lambda b: b["shenshi"].update(marker_mm=-3), "marker_mm"),
    ],
)
def test_inconsistent_boards_are_refused(tmp_path: Path, change: Any, message: str) -> None:
    data = packaged()
    change(data["boards"])
    path = tmp_path / "boards.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_boards(path)


def test_unknown_game() -> None:
    with pytest.raises(ConfigError, match="no board data for game 'chess'"):
        board_geometry("chess")
