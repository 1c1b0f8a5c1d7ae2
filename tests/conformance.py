"""The shared conformance check every game engine passes: random legal play.

``play_random_game`` drives a game through ``random_move`` and checks, after every
move, the contracts of ``engines.base``: notation and JSON round-trip, ``undo``
restores the exact state, ``copy`` is independent, ``check`` accepts every legal move,
and the game ends. Games call it from their own tests with more specific invariants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines import Dice, GameRecord, GameState, Rules, new_record, replay

MAX_MOVES = 5000


def play_random_game(
    rules: Rules[Any, Any],
    seed: int,
    invariant: Callable[[GameState[Any]], None] | None = None,
    deep_every: int = 1,
) -> tuple[GameState[Any], GameRecord]:
    """Play one random game, checking the interface contracts along the way.

    ``deep_every``: run the costlier checks (JSON, undo, copy, all legal moves) every
    this many moves. Returns the final state and the record of the game.
    """
    dice = Dice(seed)
    state = rules.initial_state()
    record = new_record(rules)
    for ply in range(MAX_MOVES):
        if invariant is not None:
            invariant(state)
        if state.is_over():
            assert state.legal_moves() == []
            break
        legal = state.legal_moves()
        assert legal, "a game that is not over must offer a move (pass included)"
        assert state.to_move in range(rules.n_players)
        move = state.random_move(dice)
        assert move in legal
        text = rules.format_move(move)
        assert rules.parse_move(text) == move, text
        assert rules.format_move(rules.parse_move(text)) == text
        if ply % deep_every == 0:
            texts = [rules.format_move(m) for m in legal]
            assert len(set(texts)) == len(texts), "one canonical text per legal move"
            assert [rules.parse_move(t) for t in texts] == legal
            for m in legal:
                state.check(m)
            document = state.to_json()
            again = rules.state_from_json(document)
            assert again.to_json() == document
            assert again.legal_moves() == legal
            before = state.copy()
            token = state.apply(move)
            after = state.to_json()
            state.undo(token)
            assert state.to_json() == document
            assert state == before
            assert state.legal_moves() == legal
            twin = state.copy()
            state.apply(move)
            assert state.to_json() == after
            assert twin.to_json() == document, "copy must not share mutable parts"
        else:
            state.apply(move)
        record.moves.append(text)
    else:
        raise AssertionError(f"no end after {MAX_MOVES} moves (seed {seed})")
    assert state.is_over()
    again = replay(GameRecord.loads(record.dumps()))
    assert again.error is None
    assert again.state.to_json() == state.to_json()
    assert again.state.scores() == state.scores()
    winners = state.winners()
    assert winners and all(0 <= w < rules.n_players for w in winners)
    return state, record
