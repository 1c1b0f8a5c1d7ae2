"""The preview of a position's legal moves is the head of the full list and its length,
whether or not the list was built."""

from __future__ import annotations

import pytest

from engines import Dice
from engines.shenshi import ShenshiRules


# Seed 1 reaches wide positions whose full lists take long to build: it runs with -m slow.
@pytest.mark.parametrize("seed", [pytest.param(1, marks=pytest.mark.slow), 2, 3])
def test_the_preview_is_the_head_of_the_legal_moves(seed: int) -> None:
    rules = ShenshiRules.from_record(
        ShenshiRules.default_players(2), {"seed": seed, "orange_lifts": 1}
    )
    state = rules.initial_state()
    dice = Dice(seed)
    for _ in range(12):
        if state.is_over():
            break
        fresh = rules.state_from_json(state.to_json())
        shown, count = fresh.legal_preview(25)
        legal = state.legal_texts()
        assert (shown, count) == (legal[:25], len(legal))
        state.play(state.playout_move(dice))
