"""The table search's shortcuts (``turn_search``) against the plain searches they
stand for, kept here as slow references: the third actions of a turn checked and
played one by one, and the actions a turn in progress goes on with listed whole and
sorted. With the default options (two lifts, put down anywhere) an orange hover has
thousands of these, so the positions come from random games with those options."""

from __future__ import annotations

from engines import Dice, IllegalMoveError
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.board import CUSHION_NAMES
from engines.shenshi.moves import Action, Hover, Move, Turn
from engines.shenshi.plan import Plan, after
from engines.shenshi.schema import NONE, monk_readings
from engines.shenshi.turn_search import (
    _actions,
    _allowed,
    _board,
    _Completions,
    _do,
    _next_plan,
    _squares,
    _third_actions,
    _undo,
)
from engines.shenshi.validate import KIND_OF


def _games(seed: int, count: int, skip: int = 0) -> list[tuple[ShenshiState, Turn]]:
    """Positions of random games with the default options (after ``skip`` turns), each
    with the turn drawn there, cut to its first two actions when those are a legal
    turn."""
    out: list[tuple[ShenshiState, Turn]] = []
    for players in (2, 3):
        rules = ShenshiRules(["silver", "copper", "gold"][:players])
        state, dice, played = rules.initial_state(), Dice(seed), 0
        while len(out) < count * (players - 1) and not state.is_over():
            move = state.playout_move(dice)
            played += 1
            if type(move) is Turn and played > skip:
                short = Turn(move.actions[:2])
                try:
                    state.check(short)
                except IllegalMoveError:
                    pass
                else:
                    out.append((state.copy(), short))
            state.play(move)
    return out


def _key_after(state: ShenshiState, move: Move) -> tuple[object, ...]:
    token = state.apply(move)
    key = state.position_key()
    state.undo(token)
    return key


def _third_actions_one_by_one(state: ShenshiState, turns: list[Turn]) -> list[Move]:
    """``_third_actions`` checking and playing every action (both orders tried)."""
    seen = {_key_after(state, turn) for turn in turns}
    work = state.copy()
    out: list[Move] = []
    rules = state.rules
    orders: list[Turn] = []
    for turn in turns:
        orders.append(turn)
        if len(turn.actions) == 2:
            swapped = Turn(turn.actions[::-1])
            try:
                state.check(swapped)
            except IllegalMoveError:
                continue
            orders.append(swapped)
    ctx = state.context()
    for turn in orders:
        done = []
        visited = {_board(work)}
        plan = Plan()
        for action in turn.actions:
            monk = rules.monk_id(state.turn, action.monk)
            nxt = after(ctx, plan, monk, KIND_OF[type(action)])
            assert type(nxt) is Plan
            done.append((monk, action, _do(work, monk, action)))
            plan = _next_plan(work, nxt)
            visited.add(_board(work))
        for code, monk in sorted({(action.monk, monk) for monk, action, _ in done}):
            plans = _allowed(ctx, plan, monk)
            if work.pos[monk] < 0 or not plans:
                continue
            for action, _ in _actions(work, code, monk, set(), None, True, kinds=frozenset(plans)):
                undo = _do(work, monk, action)
                back = _board(work) in visited
                _undo(work, monk, action, undo)
                if back:
                    continue
                longer = Turn((*turn.actions, action))
                try:
                    state.check_from_options(longer)
                except IllegalMoveError:
                    continue
                key = _key_after(state, longer)
                if key not in seen:
                    seen.add(key)
                    out.append(longer)
        for monk, action, undo in reversed(done):
            _undo(work, monk, action, undo)
    return out


def _lifts_two(moves: list[Move]) -> bool:
    return any(
        type(a) is Hover and len(a.lifts) == 2 for m in moves if type(m) is Turn for a in m.actions
    )


def test_third_actions_are_those_checked_one_by_one() -> None:
    compared = {True: 0, False: 0}  # with orange hovers lifting two cushions, without
    for state, turn in _games(31, 12, skip=12):
        found = _third_actions(state, state.copy(), [turn], {_key_after(state, turn)}, {})
        two = _lifts_two(found)
        if compared[two] >= 2:
            continue
        compared[two] += 1
        assert found == _third_actions_one_by_one(state, [turn]), turn
    assert compared[True] and compared[False]


def _options_listed(
    search: _Completions, prefix: tuple[Action, ...], touched: frozenset[int], plan: Plan
) -> list[tuple[int, Action, Plan]]:
    """``_Completions.options_of`` listing every action and sorting them."""
    used = {action.monk for action in prefix}
    wanted = search.unexplained() - touched
    found = []
    for code, monk in search.monks:
        plans = _allowed(search.ctx, plan, monk)
        for action, _ in _actions(
            search.work, code, monk, set(), None, True, kinds=frozenset(plans)
        ):
            found.append(
                (
                    not (_squares(action) & wanted),
                    code in used,
                    monk,
                    action,
                    plans[KIND_OF[type(action)]],
                )
            )
    found.sort(key=lambda item: (item[0], item[1]))
    return [(monk, action, nxt) for _, _, monk, action, nxt in found]


def test_a_turn_in_progress_goes_on_in_the_order_of_the_sorted_list() -> None:
    compared = 0  # positions where the table shows more than the first action
    for state, turn in _games(32, 4, skip=12):
        rules = state.rules
        names = monk_readings(rules)
        monks = [
            (code, rules.monk_id(state.turn, code))
            for code in range(4)
            if rules.monk_id(state.turn, code) >= 0
        ]
        # the table shows the whole turn
        shown = state.copy()
        for action in turn.actions:
            _do(shown, rules.monk_id(state.turn, action.monk), action)
        squares = sorted({s for action in turn.actions for s in _squares(action)})
        looks = {
            s: (
                NONE if shown.occ[s] < 0 else names[shown.occ[s]].value,
                CUSHION_NAMES[shown.cushion[s]] or NONE,
            )
            for s in squares
        }
        # from the position after the turn's first action
        search = _Completions(state, state.copy(), monks, looks, {})
        first = turn.actions[0]
        monk = rules.monk_id(state.turn, first.monk)
        plan = after(search.ctx, Plan(), monk, KIND_OF[type(first)])
        assert type(plan) is Plan
        undo = _do(search.work, monk, first)
        touched = frozenset(_squares(first))
        listed = _options_listed(search, (first,), touched, plan)
        assert list(search.options_of((first,), touched, plan)) == listed
        compared += bool(search.unexplained() - touched)
        _undo(search.work, monk, first, undo)
    assert compared
