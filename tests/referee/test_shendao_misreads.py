"""Shendao tables misread for a few frames, and cards said one after another: found on
simulated tables, each on a scripted stream from a position of a simulated game."""

from __future__ import annotations

from typing import Any

from companion.referee.core import Referee
from companion.referee.events import TypedMove
from companion.simulator.core import random_game
from engines import GameState, rules_class
from engines.observation import Observation
from tests.companion.referee.streams import names, show


def after_moves(seed: int, count: int) -> GameState[Any]:
    """The position after the first ``count`` moves of the simulated game ``seed``."""
    cls = rules_class("shendao")
    rules = cls.from_record(cls.default_players(2), {})
    state = rules.initial_state()
    for move in random_game(rules, seed)[:count]:
        state.play(move)
    return state


def gates(referee: Referee, **closed: str) -> Observation:
    """The table of the referee's position before its moves, with gates read closed."""
    start = referee.explainer.expected(referee.history[0][0] if referee.history else referee.state)
    return start.replace({f"gate {gate}": value for gate, value in closed.items()})


def test_a_gate_misread_as_an_entry_then_the_true_entry_are_both_put_right() -> None:
    # W3 read closed for three frames was taken for the light player's entry, and the
    # light player's entry through E6 for the dark player's; W3 read open again
    referee = Referee((state := after_moves(1071, 4)).rules, state)
    show(referee, gates(referee, W3="closed"))
    show(referee, gates(referee, W3="closed", E6="closed"))
    assert [text for _, text in referee.history] == ["W3", "E6"]
    out = show(referee, gates(referee, E6="closed"))
    assert "illegal_move" not in names(out)
    assert names(out)[:2] == ["move_taken_back", "move_taken_back"]
    assert [text for _, text in referee.history] == ["E6"]
    assert referee.state.to_move == 1


def test_a_card_said_after_a_card_said_is_the_next_players_move() -> None:
    # The dark player's tile enters through Sf, closed by the light player's entry
    # just before, with the Brigand: the table does not change, and "Sf brigand" is
    # as legal in place of the light player's "Sf tigre".
    referee = Referee((state := after_moves(1103, 8)).rules, state)
    show(referee, gates(referee, Sf="closed"))
    referee.handle(TypedMove("Sf tigre"))
    out = referee.handle(TypedMove("Sf brigand"))
    assert "move_taken_back" not in names(out)
    assert [text for _, text in referee.history] == ["Sf tigre", "Sf brigand"]


def test_a_move_shown_on_the_way_as_an_illegal_move_is_put_right_is_taken_back() -> None:
    # A tile put on a wrong square with E4's gate closed is flagged; as the player puts
    # it back the table shows E4 for a moment (accepted), then the tile is taken off
    # (flagged, from E4), then the gate opened: the position before E4
    referee = Referee((state := after_moves(1093, 23)).rules, state)
    before = referee.expected_table()
    entered = state.copy()
    entered.play(state.rules.parse_move("E4"))
    e4 = referee.explainer.expected(entered)
    square = next(e for e in e4 if not e.startswith("gate ") and e4.value(e) == "empty")
    out = show(referee, e4.replace({square: "light"}))
    assert "illegal_move" in names(out)
    out = show(referee, e4)
    assert [text for _, text in referee.history] == ["E4"]
    out = show(referee, before.replace({"gate E4": "closed"}))  # the tile off first
    assert "illegal_move" in names(out)
    out = show(referee, before)
    assert names(out)[0] == "move_taken_back" and "table_restored" in names(out)
    assert "illegal_move" not in names(out)
    assert referee.history == []
