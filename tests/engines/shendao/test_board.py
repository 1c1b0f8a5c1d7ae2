"""The board data: gates, lines, walls and corner connections; editing the data."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from engines import RecordError
from engines.shendao import GATES, SQUARES, ShendaoRules, load_board
from tests.engines.shendao.helpers import board, played


def _data() -> dict[str, Any]:
    text = resources.files("engines.shendao").joinpath("board.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_thirty_six_gates_one_at_each_end_of_every_line_and_four_diagonal() -> None:
    b = load_board()
    assert [g.name for g in b.gates] == list(GATES) and len(GATES) == 36
    names = {g.name: (SQUARES[g.entry], SQUARES[g.line[-1]]) for g in b.gates}
    assert names["W3"] == ("a3", "h3")
    assert names["E3"] == ("h3", "a3")
    assert names["Sc"] == ("c1", "c8")
    assert names["Nc"] == ("c8", "c1")
    assert names["SW"] == ("a1", "h8")
    assert names["SE"] == ("h1", "a8")
    assert names["NW"] == ("a8", "h1")
    assert names["NE"] == ("h8", "a1")
    far = {g.name: GATES[g.far] for g in b.gates if g.far is not None}
    assert far["W3"] == "E3" and far["Sa"] == "Na" and far["SW"] == "NE" and far["SE"] == "NW"
    assert len(far) == 36


def test_the_central_cross_walls_off_ranks_4_5_files_d_e_and_the_long_diagonals() -> None:
    b = load_board()
    walled = sorted(g.name for g in b.gates if g.walled)
    assert walled == sorted(
        ["W4", "W5", "E4", "E5", "Sd", "Se", "Nd", "Ne", "SW", "SE", "NW", "NE"]
    )
    reach = {g.name: SQUARES[g.line[g.reach - 1]] for g in b.gates if g.walled}
    assert reach == {
        "W4": "d4",
        "W5": "d5",
        "E4": "e4",
        "E5": "e5",
        "Sd": "d4",
        "Se": "e4",
        "Nd": "d5",
        "Ne": "e5",
        "SW": "d4",
        "SE": "e4",
        "NW": "d5",
        "NE": "e5",
    }


def test_corner_connections_only_between_the_central_squares() -> None:
    links = load_board().connections(walls_cut=False)
    d4, e5, c3 = (SQUARES.index(s) for s in ("d4", "e5", "c3"))
    assert e5 in links[d4] and d4 in links[e5]
    assert c3 not in links[d4]
    assert sorted(SQUARES[s] for s in links[SQUARES.index("a1")]) == ["a2", "b1"]
    assert len(links[SQUARES.index("d4")]) == 5


def test_walls_can_be_corrected_by_editing_the_data(tmp_path: Path) -> None:
    data = _data()
    data["wall_edges"] = []  # walls only where the long diagonals cross
    rules = ShendaoRules(board=load_board(_write(tmp_path, data)))
    state = played(rules.state_from_json({"closed_gates": ["E4"]}), "W4")
    assert board(state) == {"h4": "light"}
    state = played(rules.state_from_json({}), "SW")
    assert board(state) == {"d4": "light"}, "the centre point still stops the diagonal"


def test_corner_connections_can_be_corrected_by_editing_the_data(tmp_path: Path) -> None:
    data = _data()
    data["corner_connections"] = [["c3", "d4"]]
    rules = ShendaoRules(board=load_board(_write(tmp_path, data)))
    assert rules.state_from_json({"tiles": {"light": ["c3", "d4"]}}).scores() == [2, 0]
    assert rules.state_from_json({"tiles": {"light": ["d4", "e5"]}}).scores() == [1, 0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["gates"].pop(), "gates missing: NE"),
        (lambda d: d["gates"].append(dict(d["gates"][0])), "gate W1 listed twice"),
        (lambda d: d["gates"][0].update(enters="b1"), "gate W1 must stand at the edge"),
        (lambda d: d["gates"][0].update(toward="up"), "unknown direction 'up'"),
        (lambda d: d["gates"][0].update(gate="X1"), "unknown gate 'X1'"),
        (lambda d: d["wall_edges"].append(["a1", "c1"]), "not side by side"),
        (lambda d: d["wall_edges"].append(["a1", "z1"]), "unknown square 'z1'"),
        (lambda d: d["wall_points"].append(["a1", "b1", "a2", "c2"]), "four squares"),
        (lambda d: d["corner_connections"].append(["a1", "a2"]), "do not touch at a corner"),
        (lambda d: d.update(walls=[]), "unknown keys ['walls']"),
    ],
)
def test_inconsistent_board_data_is_refused(tmp_path: Path, change: Any, message: str) -> None:
    data = _data()
    change(data)
    with pytest.raises(RecordError, match="inconsistent") as caught:
        load_board(_write(tmp_path, data))
    assert message in str(caught.value)


def test_an_unreadable_board_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        load_board(tmp_path / "missing.json")
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(RecordError, match="cannot read"):
        load_board(path)
