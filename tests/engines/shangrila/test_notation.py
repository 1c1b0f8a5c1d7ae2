"""Shangri-La move notation: golden examples, canonical forms, errors."""

from __future__ import annotations

import pytest

from engines import NotationError
from engines.shangrila.moves import Journey, Pass, Place, Recruit, format_move, parse_move

GOLDEN = [
    ("H@4", Place(5, 4)),
    ("R@0", Place(0, 0)),
    ("F@12", Place(6, 12)),
    ("+H4", Recruit(((4, 5),))),
    ("+H4+F7", Recruit(((4, 5), (7, 6)))),
    ("+R4+H4", Recruit(((4, 0), (4, 5)))),
    ("4>7", Journey(4, 7)),
    ("12>11", Journey(12, 11)),
    ("pass", Pass()),
]


@pytest.mark.parametrize(("text", "move"), GOLDEN)
def test_golden_examples_round_trip(text: str, move: object) -> None:
    assert parse_move(text) == move
    assert format_move(move) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("h@4", "H@4"),
        (" H @ 4 ", "H@4"),
        ("+F7+H4", "+H4+F7"),  # village first, then discipline order R P Y A D H F
        ("+H4+R4", "+R4+H4"),
        ("PASS", "pass"),
        ("4 > 7", "4>7"),
    ],
)
def test_typed_variants_read_as_the_canonical_move(typed: str, canonical: str) -> None:
    assert format_move(parse_move(typed)) == canonical


def test_recruit_order_does_not_make_a_different_move() -> None:
    assert Recruit(((7, 6), (4, 5))) == Recruit(((4, 5), (7, 6)))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("X@4", "unknown discipline"),
        ("H@13", "unknown village"),
        ("H@04", "unknown village"),
        ("+H4+F7+R1", "expected"),
        ("4>", "expected"),
        ("", "expected"),
        ("journey", "expected"),
    ],
)
def test_unreadable_moves_say_why(text: str, reason: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_move(text)
    assert reason in str(caught.value)
    assert repr(text) in str(caught.value)
