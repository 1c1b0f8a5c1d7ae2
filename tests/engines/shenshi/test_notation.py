"""The ShenShi notation: every kind of action, canonical text, round trips, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engines import GameRecord, NotationError, replay
from engines.shenshi import (
    RESERVE_BLOND,
    RESERVE_ORANGE,
    Enter,
    Give,
    Hover,
    Pass,
    ShenshiRules,
    Swap,
    Turn,
    Walk,
    parse_square,
)
from engines.shenshi.moves import format_move, parse_move


def sq(name: str) -> int:
    square = parse_square(name)
    assert square is not None
    return square


# The examples of docs/notation.md, with the move each one is.
EXAMPLES = [
    ("Gc3-c4", Turn((Walk(0, (sq("c3"), sq("c4"))),))),
    ("Gc3-c5", Turn((Walk(0, (sq("c3"), sq("c4"), sq("c5"))),))),
    ("Mc3-c4-d4", Turn((Walk(1, (sq("c3"), sq("c4"), sq("d4"))),))),
    ("Gc4-d4-c4", Turn((Walk(0, (sq("c4"), sq("d4"), sq("c4"))),))),
    ("NMe3~e6", Turn((Hover(3, sq("e3"), sq("e6")),))),
    ("Mc7~a7(d7>d1)", Turn((Hover(1, sq("c7"), sq("a7"), ((sq("d7"), sq("d1")),)),))),
    (
        "Mc7~a7(d7>d1,b7>e1)",
        Turn((Hover(1, sq("c7"), sq("a7"), ((sq("d7"), sq("d1")), (sq("b7"), sq("e1")))),)),
    ),
    ("G@d4:b", Turn((Enter(0, sq("d4"), RESERVE_BLOND),))),
    ("M@d4:o", Turn((Enter(1, sq("d4"), RESERVE_ORANGE),))),
    ("G@a1:e5", Turn((Enter(0, sq("a1"), sq("e5")),))),
    ("NMc1=c2", Turn((Swap(3, sq("c1"), sq("c2")),))),
    (
        "G@c7:b Gc7~c3 NMg1~g2",
        Turn(
            (
                Enter(0, sq("c7"), RESERVE_BLOND),
                Hover(0, sq("c7"), sq("c3")),
                Hover(3, sq("g1"), sq("g2")),
            )
        ),
    ),
    (
        "Ge4-f4 NMc1=c2 NMc2~d2",
        Turn(
            (
                Walk(0, (sq("e4"), sq("f4"))),
                Swap(3, sq("c1"), sq("c2")),
                Hover(3, sq("c2"), sq("d2")),
            )
        ),
    ),
    ("give e5", Give(sq("e5"))),
    ("pass", Pass()),
]


@pytest.mark.parametrize(("text", "move"), EXAMPLES)
def test_examples_read_and_write_canonically(text: str, move: object) -> None:
    assert parse_move(text) == move
    assert format_move(parse_move(text)) == text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("gc3-c4", "Gc3-c4"),
        ("  Gc3-c4   nmE3~E6 ", "Gc3-c4 NMe3~e6"),
        ("Gc3-c4-c5", "Gc3-c5"),  # a straight two-square walk is written by its ends
        ("g@D4:B", "G@d4:b"),
        ("GIVE E5", "give e5"),
        ("Pass", "pass"),
        ("Gc3-c6", "Gc3-c6"),  # too far: readable, refused by the rules
        ("Gd4-c4-b4-a4", "Gd4-c4-b4-a4"),
    ],
)
def test_other_spellings_read_to_the_canonical_text(text: str, canonical: str) -> None:
    assert format_move(parse_move(text)) == canonical


def test_a_straight_walk_given_by_its_ends_is_the_same_value() -> None:
    assert Walk(0, (sq("c3"), sq("c5"))) == Walk(0, (sq("c3"), sq("c4"), sq("c5")))
    assert Walk(0, (sq("c3"), sq("e3"))).path == (sq("c3"), sq("d3"), sq("e3"))
    assert Walk(0, (sq("c3"), sq("d4"))).path == (sq("c3"), sq("d4"))  # not straight


def test_repr_can_be_pasted_back() -> None:
    from engines.shenshi import moves

    move = parse_move("G@c7:b Gc7~c3 NMg1~g2")
    assert eval(repr(move), vars(moves)) == move


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Gc3",
        "Gc3-",
        "Xc3-c4",
        "Gc3-h4",
        "Gc3-c8",
        "Gc3~",
        "Gc3~c5(",
        "Gc3~c5()",
        "Gc3~c5(d3)",
        "G@d4",
        "G@d4:x",
        "NG@d4:b",
        "Gc3=",
        "give",
        "give e9",
        "give e5 e6",
        "pass pass",
        "Gc3-c4,Mc5-c6",
    ],
)
def test_unreadable_text_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        parse_move(text)


def test_the_error_names_the_word_that_cannot_be_read() -> None:
    with pytest.raises(NotationError, match="'Gc3~': expected actions"):
        parse_move("G@d4:b Gc3~")
    with pytest.raises(NotationError, match="neutral monks never leave"):
        parse_move("NG@d4:b")


def _docs_section() -> str:
    text = (Path(__file__).parents[3] / "docs" / "notation.md").read_text(encoding="utf-8")
    return text[text.index("<!-- section: shenshi -->") : text.index("<!-- end: shenshi -->")]


def test_the_documented_examples_are_the_tested_ones() -> None:
    section = _docs_section()
    for text, _ in EXAMPLES:
        assert f"`{text}`" in section or text in section, text


def test_the_documented_record_and_position_read_back() -> None:
    section = _docs_section()
    blocks = re.findall(r"```json\n(.*?)```", section, re.S)
    position, record = (json.loads(block) for block in blocks)
    rules = ShenshiRules(["silver", "copper"])
    assert rules.state_from_json(position).to_json() == position
    result = replay(GameRecord.from_json(record))
    assert result.error is None and result.played == len(record["moves"])
