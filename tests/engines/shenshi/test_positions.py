"""The setup, the position document (JSON) and the text picture."""

from __future__ import annotations

from typing import Any

import pytest

from engines import RecordError
from engines.shenshi import ShenshiRules
from tests.engines.shenshi.positions import position

TWO = ShenshiRules(["silver", "copper"])


def test_the_two_player_setup() -> None:
    state = TWO.initial_state()
    doc = state.to_json()
    # Seed 0 draws F I F B I F I I onto b6 d6 f6 b4 f4 b2 d2 f2: the blond cushion tile
    # of b4 is replaced by a blond cushion.
    assert doc["tiles"] == {
        "b6": "faded",
        "d6": "intact",
        "f6": "faded",
        "f4": "intact",
        "b2": "faded",
        "d2": "intact",
        "f2": "intact",
    }
    assert doc["cushions"] == {"c5": "blond", "b4": "blond", "d4": "blond", "e3": "blond"}
    assert doc["monks"] == {
        "silver": {"G": None, "M": None},
        "copper": {"G": None, "M": None},
        "neutral": {"G": "c5", "M": "e3"},
    }
    assert doc["reserves"] == {p: {"blond": 2, "orange": 1} for p in TWO.players}
    assert doc["tokens"] == {"silver": 1, "copper": 1} and state.supply == 28
    assert state.to_move == 0 and not state.is_over()
    assert all(t.startswith(("G@", "M@")) for t in state.legal_texts()[:500])


def test_three_and_four_players() -> None:
    three = ShenshiRules(["silver", "copper", "gold"]).initial_state()
    assert three.supply == 27 and three.to_json()["monks"]["neutral"] == {"G": "c5", "M": "e3"}
    four = ShenshiRules(["silver", "copper", "gold", "black"]).initial_state()
    doc = four.to_json()
    assert "neutral" not in doc["monks"] and doc["monks"]["black"] == {"G": None, "M": None}
    assert four.supply == 26 and doc["reserves"]["black"] == {"blond": 2, "orange": 1}
    assert doc["cushions"]["c5"] == doc["cushions"]["e3"] == "blond"  # the diagonal stays


def test_documents_round_trip_through_play() -> None:
    state = position(
        TWO,
        blond="d4 g7 a1 a7 c1 c7 d5",
        orange="e1",
        faded="b6",
        monks={"silver": ("d4", "g7"), "copper": ("c1", "c7"), "neutral": ("a1", "a7")},
        reserves={"silver": (1, 0)},
        tokens={"copper": 3},
        quiet=4,
    )
    for text in ("Gd4-d5 NMa7~b7", "Gc1~d1 Mc7~d7", "Gd5~e5 Mg7~g6"):
        again = TWO.state_from_json(state.to_json())
        assert again.to_json() == state.to_json() and again == state
        state.play_text(text)
    doc = state.to_json()
    assert doc["quiet"] == 7 and doc["tokens"] == {"silver": 1, "copper": 3}
    assert TWO.state_from_json(doc).to_json() == doc


def test_describe_draws_the_hall_with_rank_7_on_top() -> None:
    text = TWO.initial_state().describe()
    lines = text.splitlines()
    assert lines[0].startswith("ShenShi (basic) · silver to move")
    assert lines[1].split() == list("abcdefg")
    assert lines[2].split()[0] == "7" and lines[8].split()[0] == "1"
    assert "b:nG" in lines[4] and "b:nM" in lines[6]  # c5 and e3
    assert "silver  tokens  1  reserve 2 blond 1 orange  off the board" in text


def base() -> dict[str, Any]:
    return TWO.initial_state().to_json()


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"colour": 1}, "unknown keys"),
        ({"tiles": {"a1": "faded"}}, "not a marked square"),
        ({"tiles": {"b6": "golden"}}, "intact"),
        (
            {
                "tiles": {
                    "b6": "intact",
                    "d6": "intact",
                    "f6": "intact",
                    "b4": "intact",
                    "f4": "intact",
                }
            },
            "only 4 intact",
        ),
        ({"cushions": {"b6": "blond"}}, "mandala tile"),
        ({"cushions": {"z9": "blond"}}, "not a square"),
        ({"cushions": {"a1": "purple"}}, "blond"),
        (
            {
                "monks": {
                    "silver": {"G": "a1", "M": None},
                    "copper": {"G": None, "M": None},
                    "neutral": {"G": "c5", "M": "e3"},
                }
            },
            "stands on no cushion",
        ),
        (
            {
                "monks": {
                    "silver": {"G": "c5", "M": None},
                    "copper": {"G": None, "M": None},
                    "neutral": {"G": "c5", "M": "e3"},
                }
            },
            "two monks",
        ),
        (
            {
                "monks": {
                    "silver": {"G": None, "M": None},
                    "copper": {"G": None, "M": None},
                    "neutral": {"G": "c5", "M": None},
                }
            },
            "never leave",
        ),
        (
            {"monks": {"silver": {"G": None, "M": None}, "neutral": {"G": "c5", "M": "e3"}}},
            "exactly the keys",
        ),
        (
            {
                "reserves": {
                    "silver": {"blond": 9, "orange": 1},
                    "copper": {"blond": 2, "orange": 1},
                }
            },
            "blond cushions",
        ),
        (
            {
                "reserves": {
                    "silver": {"blond": -1, "orange": 1},
                    "copper": {"blond": 2, "orange": 1},
                }
            },
            "whole number",
        ),
        ({"tokens": {"silver": 20, "copper": 11}}, "path tokens held"),
        ({"tokens": {"silver": 8, "copper": 9}}, "only one player"),
        ({"to_move": 2}, "to_move"),
        ({"phase": "give"}, "expert variant"),
        ({"phase": "setup"}, "phase"),
        ({"offered": "c5"}, "expert"),
        ({"neutral_from": {"G": "c5"}}, "stands there"),
        ({"neutral_from": {"X": "c4"}}, "keys"),
        ({"quiet": -1}, "whole number"),
        ("not a document", "JSON object"),
    ],
)
def test_malformed_documents_are_refused(change: Any, match: str) -> None:
    doc = {**base(), **change} if isinstance(change, dict) else change
    with pytest.raises(RecordError, match=match):
        TWO.state_from_json(doc)


def test_four_player_documents_have_no_neutral_monks() -> None:
    four = ShenshiRules(["silver", "copper", "gold", "black"])
    doc = four.initial_state().to_json()
    with pytest.raises(RecordError, match="4-player"):
        four.state_from_json({**doc, "neutral_from": {"G": "c4"}})


def test_a_finished_game_reads_back_as_finished() -> None:
    doc = {**base(), "tokens": {"silver": 8, "copper": 0}}
    state = TWO.state_from_json(doc)
    assert state.is_over() and state.winners() == [0] and state.legal_moves() == []
    quiet = TWO.state_from_json({**base(), "quiet": 20})
    assert quiet.is_over() and quiet.winners() == [0, 1]
