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
    sample: int = 300,
) -> tuple[GameState[Any], GameRecord]:
    """Play one random game, checking the interface contracts along the way.

    ``deep_every``: run the costlier checks (every legal move, JSON, undo, copy) every
    this many moves. ``sample``: on those plies, check at most this many legal moves (a
    seeded sample, plus the move played) one by one; a ShenShi turn can have a million.
    Returns the final state and the record of the game.
    """
    dice = Dice(seed)
    picker = Dice(seed + 1)
    state = rules.initial_state()
    record = new_record(rules)
    for ply in range(MAX_MOVES):
        if invariant is not None:
            invariant(state)
        if state.is_over():
            assert state.legal_moves() == []
            break
        assert state.to_move in range(rules.n_players)
        move = state.random_move(dice)
        text = rules.format_move(move)
        assert rules.parse_move(text) == move, text
        assert rules.format_move(rules.parse_move(text)) == text
        state.check(move)
        if ply % deep_every == 0:
            legal = state.legal_moves()
            assert legal, "a game that is not over must offer a move (pass included)"
            assert move in legal
            chosen = (
                legal
                if len(legal) <= sample
                else [legal[picker.below(len(legal))] for _ in range(sample)]
            )
            texts = [rules.format_move(m) for m in chosen]
            if chosen is legal:
                assert len(set(texts)) == len(texts), "one canonical text per legal move"
            assert [rules.parse_move(t) for t in texts] == chosen
            for m in chosen:
                state.check(m)
            document = state.to_json()
            again = rules.state_from_json(document)
            assert again.to_json() == document
            again_legal = again.legal_moves()
            assert len(again_legal) == len(legal) and again_legal[:sample] == legal[:sample]
            before = state.copy()
            token = state.apply(move)
            after = state.to_json()
            state.undo(token)
            assert state.to_json() == document
            assert state == before
            assert state.legal_moves()[:sample] == legal[:sample]
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
