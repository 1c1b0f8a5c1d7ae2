"""Shendao notation: golden examples, round trips, and the move values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines import NotationError
from engines.shendao import CARDS, GATES, Enter, Pass, ShendaoRules, format_move, parse_move

GOLDEN = json.loads((Path(__file__).parent / "golden_notation.json").read_text("utf-8"))


@pytest.mark.parametrize(("text", "canonical"), sorted(GOLDEN["read"].items()))
def test_golden_texts_read_to_their_canonical_form(text: str, canonical: str) -> None:
    move = parse_move(text)
    assert format_move(move) == canonical
    assert parse_move(canonical) == move


@pytest.mark.parametrize(("text", "reason"), sorted(GOLDEN["refused"].items()))
def test_golden_texts_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_move(text)
    assert reason in caught.value.reason
    assert caught.value.text == text


def test_every_move_of_a_busy_position_round_trips() -> None:
    rules = ShendaoRules()
    state = rules.state_from_json(
        {"tiles": {"light": ["c3", "e4"], "dark": ["f3", "d5"]}, "closed_gates": ["W1", "Nh"]}
    )
    texts = state.legal_texts()
    assert len(texts) == len(set(texts)) > 300
    for text in texts:
        assert format_move(parse_move(text)) == text
    assert {t.split()[0] for t in texts} == set(GATES)
    assert [t for t in texts if t.split()[0] in ("W1", "Nh")] == ["W1 brigand", "Nh brigand"]
    assert {t.split()[1] for t in texts if " " in t} == set(CARDS)


def test_move_values() -> None:
    assert parse_move("W3 loung c3") == Enter("W3", "loung", "c3")
    assert repr(Enter("W3", "tigre")) == "Enter(gate='W3', card='tigre', target=None)"
    assert eval(repr(Enter("Sa", "nugua", "a5"))) == Enter("Sa", "nugua", "a5")
    assert parse_move("pass") == Pass()
    assert hash(Enter("W3")) == hash(parse_move("w3"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Z1",), "unknown gate"),
        (("W3", "joker"), "unknown card"),
        (("W3", "loung"), "does not fit"),
        (("W3", "tigre", "c3"), "does not fit"),
        (("W3", None, "c3"), "does not fit"),
        (("W3", "nugua", "c9"), "unknown square"),
    ],
)
def test_move_values_check_themselves(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Enter(*args)


def test_format_refuses_other_values() -> None:
    with pytest.raises(TypeError):
        format_move("W3")  # type: ignore[arg-type]
