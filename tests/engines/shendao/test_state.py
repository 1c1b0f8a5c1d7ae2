"""The state: its JSON document, undo, copy, the uniform random draw, describe()."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engines import Dice, RecordError
from engines.shendao import GATES, ShendaoRules, ShendaoState
from engines.shendao.state import _BOUND, N_GATES
from tests.engines.shendao.helpers import position

BUSY = {
    "to_move": 1,
    "tiles": {"light": ["c3", "c4", "d4", "h4", "a8"], "dark": ["f3", "b4", "e5"]},
    "closed_gates": ["W3", "SW", "NE"],
    "supply": {"light": 25, "dark": 26},
    "cards": {
        "light": ["loung", "tigre"],
        "dark": ["brigand", "loung", "nugua", "pretresse", "tigre", "yinyang"],
    },
}


def test_the_document_round_trips_in_canonical_order() -> None:
    rules = ShendaoRules()
    shuffled = dict(
        BUSY,
        tiles={"dark": ["e5", "b4", "f3"], "light": ["a8", "h4", "d4", "c4", "c3"]},
        closed_gates=["NE", "W3", "SW"],
    )
    state = rules.state_from_json(shuffled)
    assert state.to_json() == BUSY
    assert list(state.to_json()) == ["to_move", "tiles", "closed_gates", "supply", "cards"]
    assert rules.state_from_json(state.to_json()) == state


def test_keys_left_out_take_their_values_at_the_start() -> None:
    rules = ShendaoRules(variant="tigre")
    state = rules.state_from_json({"tiles": {"dark": ["c3"]}})
    assert state.to_json() == {
        "to_move": 0,
        "tiles": {"light": [], "dark": ["c3"]},
        "closed_gates": [],
        "supply": {"light": 30, "dark": 29},
        "cards": {"light": ["nugua", "tigre", "yinyang"], "dark": ["nugua", "tigre", "yinyang"]},
    }
    assert rules.state_from_json({}) == rules.initial_state()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": 1}, "unknown keys in the position: ['colour']"),
        ({"to_move": 2}, '"to_move" must be a player index'),
        ({"to_move": True}, '"to_move" must be a player index'),
        ({"tiles": {"light": ["c3"], "dark": ["c3"]}}, "square c3 holds two tiles"),
        ({"tiles": {"light": ["i9"]}}, "unknown square 'i9'"),
        ({"tiles": {"red": ["c3"]}}, "names 'red', not a player"),
        ({"tiles": {"light": "c3"}}, "must be a list of squares"),
        ({"tiles": []}, '"tiles" must be an object'),
        ({"closed_gates": ["W3", "W3"]}, "gate W3 listed twice"),
        ({"closed_gates": ["se"]}, "unknown gate 'se'"),
        ({"closed_gates": "W3"}, "must be a list of gate names"),
        ({"supply": {"light": 26}}, "the supply of light must be a count from 0 to 25"),
        ({"supply": {"dark": -1}}, "the supply of dark"),
        ({"supply": {"dark": 2.5}}, "the supply of dark"),
        ({"cards": {"light": ["joker"]}}, "light cannot hold 'joker'"),
        ({"cards": {"light": ["tigre", "tigre"]}}, "holds tigre twice"),
        ({"cards": {"dark": "tigre"}}, "must be a list of card names"),
    ],
)
def test_malformed_documents_are_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError) as caught:
        ShendaoRules().state_from_json(dict(BUSY, **change))
    assert message in str(caught.value)


def test_cards_outside_the_variant_are_refused() -> None:
    with pytest.raises(RecordError, match="the cards of the chaton variant are none"):
        ShendaoRules(variant="chaton").state_from_json({"cards": {"light": ["tigre"]}})
    with pytest.raises(RecordError, match="must be a JSON object"):
        ShendaoRules().state_from_json(["W3"])


def test_undo_restores_the_position_after_every_legal_move() -> None:
    rules = ShendaoRules()
    state = rules.state_from_json(BUSY)
    document = state.to_json()
    counters = (state.usable, state.enterable)
    legal = state.legal_moves()
    assert len(legal) > 100
    for move in legal:
        token = state.apply(move)
        assert state.to_json() != document or move == rules.parse_move("Sa brigand")
        state.undo(token)
        assert state.to_json() == document
        assert (state.usable, state.enterable) == counters
        assert state.legal_moves() == legal


def test_a_copy_shares_nothing_mutable() -> None:
    state = ShendaoRules().state_from_json(BUSY)
    twin = state.copy()
    state.play_text("Sa tigre")
    assert twin.to_json() == BUSY
    assert twin != state
    assert twin.legal_moves() != state.legal_moves()


def test_random_draws_enumerate_exactly_the_legal_moves() -> None:
    # random_move draws (gate, rank) below a bound and retries on a miss; it is uniform
    # if and only if the ranks below the bound name each legal move exactly once.
    for variant in ("tigre-blanc", "tigre", "chaton"):
        rules = ShendaoRules(variant=variant)
        for seed in range(15):
            dice = Dice(seed)
            state = rules.initial_state()
            while not state.is_over():
                legal = state.legal_moves()
                if state.legal_texts() != ["pass"]:
                    bound = _BOUND[state.cards[state.to_move]]
                    drawn = [state._gate_move(g, k) for g in range(N_GATES) for k in range(bound)]
                    assert [m for m in drawn if m is not None] == legal
                    assert all(state._gate_move(g, bound) is None for g in range(N_GATES))
                state.apply(state.random_move(dice))


def test_random_move_is_uniform_over_the_legal_moves() -> None:
    state = ShendaoRules().state_from_json(
        {
            "tiles": {"light": ["c3"], "dark": ["f6", "g2"]},
            "closed_gates": [g for g in GATES if g[0] in "NE"],
            "cards": {"light": ["loung", "nugua", "tigre"]},
        }
    )
    legal = state.legal_moves()
    dice = Dice(11)
    draws = 200 * len(legal)
    counts = Counter(state.random_move(dice) for _ in range(draws))
    assert set(counts) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((counts[m] - expected) ** 2 / expected for m in legal)
    # df = len(legal) - 1 (about 100): the 99.9th percentile is below 150
    assert 60 < len(legal) < 140
    assert chi2 < 150, chi2


@pytest.mark.parametrize("open_gates", [GATES[:5], GATES[3:30]])
def test_random_move_without_cards_is_uniform_with_few_or_many_gates(
    open_gates: tuple[str, ...],
) -> None:
    closed_gates = [g for g in GATES if g not in open_gates]
    state = position("a4", closed=" ".join(closed_gates), variant="chaton")
    legal = state.legal_moves()
    assert len(legal) == len(open_gates) - 1  # W4 is blocked by a4
    dice = Dice(3)
    draws = 400 * len(legal)
    counts = Counter(state.random_move(dice) for _ in range(draws))
    assert set(counts) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((counts[m] - expected) ** 2 / expected for m in legal)
    assert chi2 < 3 * len(legal) + 20, chi2  # far above the 99.9th percentile


def test_random_move_passes_and_stops_like_legal_moves() -> None:
    state = position(supply={"light": 0})
    assert state.random_move(Dice(1)) == state.legal_moves()[0]
    over = position(closed=" ".join(GATES), variant="chaton")
    with pytest.raises(IndexError):
        over.random_move(Dice(1))


def test_describe_draws_the_board_gates_and_walls() -> None:
    state = ShendaoRules().state_from_json(BUSY)
    text = state.describe()
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert lines[1].split() == ["+"] * 9 + ["#"], "NW, Na..Nh, NE"
    assert lines[2].split() == ["8", "+", "L", ".", ".", ".", ".", ".", ".", ".", "+", "8"]
    assert " 5 +  . . . .|D . . .  + 5" in lines
    assert "            -+-" in lines
    assert " 3 #  . . L . . D . .  + 3" in lines
    assert " 4 +  . D L L|. . . L  + 4" in lines
    assert "dark to move" in text
    assert "light (L) largest group  3  supply 25  cards loung tigre" in text
    assert repr(state).startswith("<ShendaoState {'to_move': 1")


def test_tiles_left_on_the_board_and_in_supply_are_counted_per_player() -> None:
    state: ShendaoState = ShendaoRules().state_from_json(BUSY)
    assert [state.tiles_on_board(p) for p in (0, 1)] == [5, 3]
    assert state.largest_groups() == [3, 1]
