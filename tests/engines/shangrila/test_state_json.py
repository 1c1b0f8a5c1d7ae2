"""The position document (docs/notation.md): round trip and refusal of bad documents."""

from __future__ import annotations

from typing import Any

import pytest

from engines import RecordError
from engines.shangrila import ShangrilaRules
from tests.engines.shangrila.helpers import position


def base() -> dict[str, Any]:
    return position({4: {"H": "red+", "R": "blue"}}).to_json()


def test_a_position_round_trips() -> None:
    document = base()
    state = ShangrilaRules().state_from_json(document)
    assert state.to_json() == document
    assert state.scores() == [1, 1, 0, 0]


def test_a_setup_position_derives_placements_from_the_board() -> None:
    document = base()
    document.update(phase="setup", spaces={"4": {"H": "red", "R": "blue"}})
    state = ShangrilaRules().state_from_json(document)
    assert state.to_json()["placed"] == ["H", "R", "", ""]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"colour": "green"}, "unknown keys"),
        ({"phase": "middle"}, "phase"),
        ({"to_move": 4}, "to_move"),
        ({"to_move": "red"}, "to_move"),
        ({"spaces": {"13": {"H": "red"}}}, "unknown village"),
        ({"spaces": {"4": {"X": "red"}}}, "unknown discipline"),
        ({"spaces": {"4": {"H": "green"}}}, "not a player"),
        ({"spaces": {str(v): {"H": "red+"} for v in range(4)}}, "more than 6"),
        ({"bridges": ["0-9"]}, "no bridge 0-9"),
        ({"stones": [4]}, "stone but a standing bridge"),
        ({"bridges": []}, "must have a stone"),
        ({"passes": -1}, "passes"),
        ({"spaces": []}, "spaces"),
        ({"spaces": {"4": "red"}}, "village 4"),
        ({"bridges": "0-1"}, "lists"),
        ({"bridges": ["0_1"]}, "malformed"),
    ],
)
def test_bad_documents_are_refused_with_a_reason(change: dict[str, Any], words: str) -> None:
    document = base()
    document.update(change)
    with pytest.raises(RecordError, match=words):
        ShangrilaRules().state_from_json(document)


def test_no_students_in_the_placement_phase() -> None:
    document = base()
    document["phase"] = "setup"
    with pytest.raises(RecordError, match="students"):
        ShangrilaRules().state_from_json(document)


def test_three_player_positions_keep_the_red_village_empty() -> None:
    rules = ShangrilaRules(["red", "blue", "yellow"])
    document = rules.initial_state().to_json()
    document["spaces"] = {"2": {"H": "red"}}
    with pytest.raises(RecordError, match="not used with 3 players"):
        rules.state_from_json(document)
