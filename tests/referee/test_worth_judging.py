"""The bigger moves a table is judged against while the next player moves: only those
the table does not rule out at once, the same verdict as on all of them, and no move
played again once the values it leaves rule it out."""

from __future__ import annotations

import random
from typing import Any

from companion.referee.inference import Explainer, VerdictKind
from engines.observation import Observation, Reading
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.observation import expected
from tests.engines.shenshi.positions import position

FOUR = ShenshiRules(["silver", "copper", "gold", "black"])
POSITIONS = (
    position(
        ShenshiRules(["silver", "copper"]),
        blond="d2 d3 e2 a1 g6",
        orange="g7",
        monks={"silver": ("d3", "d2"), "copper": ("a1", None), "neutral": ("g6", "g7")},
    ),
    position(FOUR, blond="f1 a1 c3", monks={"copper": ("c3", None)}, reserves={"silver": (0, 0)}),
)
"""Positions whose legal turns are a few thousand."""


def counted(state: ShenshiState) -> list[Any]:
    """The moves played on ``state`` from now on (its ``apply`` wrapped)."""
    applied: list[Any] = []
    real = state.apply

    def counting(move: Any) -> Any:
        applied.append(move)
        return real(move)

    state.apply = counting  # type: ignore[method-assign]
    return applied


def test_the_moves_left_give_the_verdict_all_of_them_give() -> None:
    explainer = Explainer("shenshi")
    rng = random.Random(3)
    in_hand = 0
    for state in POSITIONS:
        moves = rng.sample(list(state.legal_moves()), 60)
        before = expected(state)
        for i, move in enumerate(moves):
            other = state.copy()
            other.play(move)
            whole = expected(other)
            changed = [e for e in whole if whole.value(e) != before.value(e)]
            tables = [whole] if i < 3 else []
            # half of its changes made
            tables += [whole.replace({e: before[e] for e in changed[: len(changed) // 2]})]
            # a monk still in the hand: a square showing neither its value before nor after
            carried = {
                e: sorted(explainer.model.transient(e) - {whole.value(e), before.value(e)})[0]
                for e in changed
                if explainer.model.transient(e) - {whole.value(e), before.value(e)}
            }
            if carried:
                in_hand += 1
                tables.append(whole.replace(carried))
            for table in tables:
                left = explainer.worth_judging(state, table, moves)
                assert move in left or table is not whole
                assert len(left) < len(moves) or table is not whole
                fitting = explainer.worth_judging(state, table, moves, fitting=True)
                assert set(map(str, fitting)) <= set(map(str, left))
                for turn_done in (False, True):
                    every = explainer.explain(state, table, moves=moves, turn_done=turn_done)
                    some = explainer.explain(state, table, moves=left, turn_done=turn_done)
                    assert (every.kind, every.moves) == (some.kind, some.moves)
                    # on those that may fit: the same move accepted, or none; in
                    # progress on the others exactly when one is on its way
                    fewer = explainer.explain(state, table, moves=fitting, turn_done=turn_done)
                    if every.kind in (VerdictKind.ACCEPTED, VerdictKind.AMBIGUOUS):
                        assert (every.kind, every.moves) == (fewer.kind, fewer.moves)
                    elif fewer.kind == VerdictKind.ILLEGAL and not turn_done:
                        on_its_way = every.kind == VerdictKind.IN_PROGRESS
                        assert explainer.any_on_the_way(state, table, left) == on_its_way
    assert in_hand >= 10


def test_a_move_ruled_out_is_not_played_again() -> None:
    explainer = Explainer("shenshi")
    state = POSITIONS[0].copy()
    moves = list(state.legal_moves())[:200]
    other = state.copy()
    other.play(moves[0])
    whole = expected(other)
    before = expected(state)
    changed = [e for e in whole if whole.value(e) != before.value(e)]
    assert len(changed) >= 2
    # the move half made, then whole
    half = whole.replace({e: before[e] for e in changed[1:]})
    left = explainer.worth_judging(state, half, moves)
    applied = counted(state)
    # the same table again, with an unsure reading more: nothing new to work out
    unsure = half.replace({next(iter(half)): Reading(None, 0.0)})
    assert isinstance(unsure, Observation)
    assert explainer.worth_judging(state, unsure, moves) == left
    assert applied == []
    # more changed: only the moves still left are played, and the answer is as fresh
    fresh = Explainer("shenshi").worth_judging(POSITIONS[0].copy(), whole, moves)
    assert explainer.worth_judging(state, whole, moves) == fresh
    assert moves[0] in fresh and 0 < len(applied) <= len(left) < len(moves)
    assert all(move in left for move in applied)


def test_what_the_moves_change_is_worked_out_ahead() -> None:
    explainer = Explainer("shenshi")
    state = POSITIONS[1].copy()
    moves = list(state.legal_moves())[:300]
    assert explainer.prepare(state, moves, 200) == 200
    assert explainer.prepare(state, moves, 200) == 100
    assert explainer.prepare(state, moves, 200) == 0
    other = state.copy()
    other.play(moves[5])
    table = expected(other)
    fresh = Explainer("shenshi").worth_judging(POSITIONS[1].copy(), table, moves, fitting=True)
    applied = counted(state)
    ahead = explainer.worth_judging(state, table, moves, fitting=True)
    assert ahead == fresh and moves[5] in ahead
    lenient = Explainer("shenshi").worth_judging(POSITIONS[1].copy(), table, moves)
    assert explainer.worth_judging(state, table, moves) == lenient
    assert applied == []  # every move's changes were known


def test_the_values_unlike_another_table() -> None:
    state = POSITIONS[0]
    before = expected(state)
    other = state.copy()
    move = next(iter(state.legal_moves()))
    other.play(move)
    after = expected(other)
    unlike = after.values_unlike(before)
    assert unlike and unlike == {
        e: after.value(e) for e in after if after.value(e) != before.value(e)
    }
    assert before.values_unlike(before) == {}
    assert after.replace({next(iter(unlike)): None}).values_unlike(after) == {
        next(iter(unlike)): None
    }
