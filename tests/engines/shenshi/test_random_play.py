"""The quick playout draw used by search: always a legal turn, seeded."""

from __future__ import annotations

import pytest

from engines import Dice
from engines.shenshi import ShenshiRules


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_turns_are_legal_and_games_end(players: int) -> None:
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), {})
    state = rules.initial_state()
    dice = Dice(players)
    moves = 0
    while not state.is_over():
        move = state.playout_move(dice)
        state.check(move)  # raises IllegalMoveError for an illegal turn
        if moves % 15 == 0:
            assert move in state.legal_moves()
        state.apply(move)
        moves += 1
        assert moves < 2000
    assert state.winners()


def test_playouts_replay_from_their_seed() -> None:
    rules = ShenshiRules.from_record(ShenshiRules.default_players(2), {})

    def game(seed: int) -> list[str]:
        state, dice, out = rules.initial_state(), Dice(seed), []
        for _ in range(20):
            if state.is_over():
                break
            move = state.playout_move(dice)
            out.append(rules.format_move(move))
            state.apply(move)
        return out

    assert game(5) == game(5)
    assert game(5) != game(6)
