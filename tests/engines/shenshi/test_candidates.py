"""The turns the table search (``turn_search.candidates``) offers the referee: the turn
a table shows is among them, whatever shortcuts the search takes (the turn rules
narrowing each monk's actions, the last action changing every square that does not fit
yet, the cheaper check of actions taken from the options), and turns acting under a
hand are left for when the hand has gone. (A known limit, docs/referee.md: a turn
that puts a cushion down, walks on it and lifts it again in one turn leaves a square
that looks unchanged, and is typed in.)"""

from __future__ import annotations

import pytest

from engines import Dice, IllegalMoveError
from engines.observation import Observation, Reading
from engines.shenshi import ShenshiRules, ShenshiState, options
from engines.shenshi.moves import Hover, Turn, Walk
from engines.shenshi.observation import candidates, expected, schema
from engines.shenshi.schema import values as schema_values
from engines.shenshi.state import GIVE
from engines.shenshi.turn_search import turns_fitting, values_after


def _positions(rules: ShenshiRules, seed: int, count: int) -> list[ShenshiState]:
    """``count`` positions of a random game, a few turns apart."""
    state, dice, out = rules.initial_state(), Dice(seed), []
    while len(out) < count and not state.is_over():
        for _ in range(3):
            if state.is_over():
                break
            state.play(state.playout_move(dice))
        out.append(state.copy())
    return out


def _puts_down_and_takes_away(move: Turn) -> bool:
    """Whether a cushion put down by a lift leaves its square again later in the turn
    (a hover from it, or a second lift): the square then looks unchanged, the known
    limit of the search, and the player types the turn (docs/referee.md)."""
    put: set[int] = set()
    for action in move.actions:
        if type(action) is Hover:
            if action.start in put or any(lifted in put for lifted, _ in action.lifts):
                return True
            put.update(square for _, square in action.lifts)
    return False


def _key_after(state: ShenshiState, move: object) -> tuple[object, ...]:
    token = state.apply(move)
    key = state.position_key()
    state.undo(token)
    return key


@pytest.mark.parametrize(
    ("players", "options", "seed"),
    [(2, {}, 11), (3, {}, 12), (4, {}, 13), (2, {"variant": "expert"}, 14)],
)
def test_every_turn_a_table_shows_is_a_candidate(
    players: int, options: dict[str, object], seed: int
) -> None:
    rules = ShenshiRules(ShenshiRules.default_players(players), seed=seed, **options)
    dice = Dice(seed)
    tried = 0
    for state in _positions(rules, seed, 8):
        for _ in range(6):
            if state.is_over() or state.phase == GIVE:
                break
            move = state.playout_move(dice)
            if type(move) is not Turn or _puts_down_and_takes_away(move):
                continue
            after = state.copy()
            after.apply(move)
            table = expected(after)
            found = candidates(state, table, expected(state).differences(table))
            wanted = _key_after(state, move)
            assert any(_key_after(state, m) == wanted for m in found), rules.format_move(move)
            tried += 1
    assert tried >= 20


def test_the_check_of_turns_from_the_options_agrees_with_the_full_check() -> None:
    rules = ShenshiRules(ShenshiRules.default_players(3), seed=21)
    dice = Dice(21)
    checked = 0
    for state in _positions(rules, 21, 6):
        legal = state.legal_moves()
        for _ in range(40):
            move = dice.choice(legal)
            if type(move) is Turn:
                state.check_from_options(move)  # every legal turn passes
                checked += 1
    assert checked >= 100


def test_the_check_of_turns_from_the_options_still_applies_the_turn_rules() -> None:
    rules = ShenshiRules(ShenshiRules.default_players(2), seed=22)
    state = _positions(rules, 22, 3)[-1]
    turn = next(
        m
        for m in state.legal_moves()
        if type(m) is Turn
        and len(m.actions) == 2
        and m.actions[0].monk != m.actions[1].monk
        and type(m.actions[0]) is Walk
    )
    with pytest.raises(IllegalMoveError) as short:
        state.check_from_options(Turn(turn.actions[:1]))
    assert short.value.rule.startswith("turn.needs")
    # the first monk walks again after the second acted: an option where it stands,
    # but the rules of the turn forbid it
    work = state.copy()
    work.apply(turn)
    path = options.walk_paths(work, rules.monk_id(state.turn, turn.actions[0].monk))[0]
    with pytest.raises(IllegalMoveError) as finished:
        state.check_from_options(Turn((*turn.actions, Walk(turn.actions[0].monk, path))))
    assert finished.value.rule == "monk.finished"


def _under_a_hand(table: Observation, squares: list[str]) -> Observation:
    readings = {e: table[e] for e in table}
    for square in squares:
        for part in ("monk", "cushion", "tile"):
            readings[f"{square} {part}"] = Reading(None, 0.0)
    return Observation(table.schema, readings)


def test_a_turn_acting_under_a_hand_waits_for_the_hand_to_go() -> None:
    # The position this scenario was written on: one lift a hover, put down anywhere.
    rules = ShenshiRules(
        ShenshiRules.default_players(2), seed=23, orange_lifts=1, lift_put_down="also-orange-square"
    )
    state = _positions(rules, 23, 4)[-1]
    dice = Dice(23)
    move = next(
        m
        for m in iter(lambda: state.random_move(dice), None)
        if type(m) is Turn and len(m.actions) == 2
    )
    after = state.copy()
    after.apply(move)
    table = expected(after)
    changed = expected(state).differences(table)
    squares = sorted({e.split(" ")[0] for e in changed if not e.startswith("tokens ")})
    hand = squares[:1]  # one square the turn changed, under a hand
    covered = _under_a_hand(table, hand)
    changed = [e for e in changed if e.split(" ")[0] not in hand]
    hidden = frozenset(f"{hand[0]} {part}" for part in ("monk", "cushion", "tile"))
    wanted = _key_after(state, move)
    seen = candidates(state, covered, changed)
    assert any(_key_after(state, m) == wanted for m in seen)  # unread: anything fits
    waiting = candidates(state, covered, changed, hidden)
    assert all(_key_after(state, m) != wanted for m in waiting)
    unknown = frozenset()
    assert not [
        m for m in turns_fitting(state, covered, changed, unknown) if _key_after(state, m) == wanted
    ]


@pytest.mark.parametrize(
    ("players", "options", "seed"),
    [(2, {}, 21), (3, {}, 22), (4, {}, 23), (2, {"variant": "expert"}, 24)],
)
def test_the_values_after_the_candidates_are_those_each_turn_played_leaves(
    players: int, options: dict[str, object], seed: int
) -> None:
    # The candidates come a turn and its third actions one after the other, which
    # ``values_after`` plays once; each value must be what the turn played alone leaves.
    rules = ShenshiRules(ShenshiRules.default_players(players), seed=seed, **options)
    dice = Dice(seed)
    elements = list(schema(rules).elements)
    compared = 0
    for state in _positions(rules, seed, 40):
        if state.is_over() or state.phase == GIVE:
            continue
        move = state.playout_move(dice)
        after = state.copy()
        after.apply(move)
        table = expected(after)
        found = candidates(state, table, expected(state).differences(table))
        before = state.position_key()
        shown = values_after(state, found, elements)
        assert state.position_key() == before
        for turn, values in zip(found, shown, strict=True):
            token = state.apply(turn)
            assert values == schema_values(state, elements), rules.format_move(turn)
            state.undo(token)
        compared += len(found)
    assert compared >= 50
