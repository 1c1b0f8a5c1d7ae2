"""Entering and sliding, gates, the central walls, passing, the end and the score."""

from __future__ import annotations

import pytest

from engines.shendao import GATES, Pass, ShendaoRules
from tests.engines.shendao.helpers import board, closed, illegal, played, position

# ---------------------------------------------------------------- sliding


def test_a_tile_meeting_nothing_leaves_the_board_and_goes_back_to_supply() -> None:
    state = played(position(), "W3")
    assert board(state) == {}
    assert state.supply == [30, 30]
    assert closed(state) == ["W3"]
    assert state.to_move == 1


def test_a_closed_far_gate_stops_the_tile_on_the_last_square() -> None:
    state = played(position(closed="E3"), "W3")
    assert board(state) == {"h3": "light"}
    assert state.supply == [29, 30]
    assert closed(state) == ["W3", "E3"]


def test_a_tile_stops_on_the_last_free_square_before_a_tile() -> None:
    state = played(position(dark="f3"), "W3")
    assert board(state) == {"e3": "light", "f3": "dark"}
    state = played(position(light="b2"), "Sb")
    assert board(state) == {"b1": "light", "b2": "light"}


@pytest.mark.parametrize(
    ("gate", "stop", "far_end"),
    [
        ("W4", "d4", "h4"),
        ("E4", "e4", "a4"),
        ("W5", "d5", "h5"),
        ("E5", "e5", "a5"),
        ("Sd", "d4", "d8"),
        ("Nd", "d5", "d1"),
        ("Se", "e4", "e8"),
        ("Ne", "e5", "e1"),
        ("SW", "d4", "h8"),
        ("NE", "e5", "a1"),
        ("SE", "e4", "a8"),
        ("NW", "d5", "h1"),
    ],
)
def test_the_central_walls_stop_tiles_from_every_side(gate: str, stop: str, far_end: str) -> None:
    state = played(position(), gate)
    assert board(state) == {stop: "light"}, "the wall stops it even with the far gate open"
    state = played(position(dark=far_end), gate)
    assert board(state)[stop] == "light", "a tile past the wall does not matter"


def test_lines_off_the_centre_are_not_walled() -> None:
    state = played(position(closed="Nc E6"), "Sc")
    assert board(state) == {"c8": "light"}
    state = played(state, "W6")
    assert board(state)["h6"] == "dark"


def test_a_diagonal_tile_stops_before_a_tile_on_the_diagonal() -> None:
    state = played(position(dark="c3"), "SW")
    assert board(state) == {"b2": "light", "c3": "dark"}
    state = played(position(dark="g2"), "SE")
    assert board(state) == {"h1": "light", "g2": "dark"}


# ---------------------------------------------------------------- gates


def test_the_entry_gate_closes_and_refuses_the_next_tile() -> None:
    state = played(position(dark="f3"), "W3")
    error = illegal(state, "W3")
    assert error.rule == "gate.closed"
    assert error.message.startswith("Gate W3 is closed")
    assert "Brigand" in error.message


def test_a_closed_gate_without_the_brigand_only_says_to_choose_another() -> None:
    state = position(closed="W3", variant="chaton")
    error = illegal(state, "W3")
    assert error.rule == "gate.closed"
    assert "Brigand" not in error.message


def test_a_tile_cannot_enter_when_the_square_inside_the_gate_is_taken() -> None:
    state = position(dark="a1")
    for gate in ("W1", "Sa", "SW"):
        error = illegal(state, gate)
        assert error.rule == "gate.blocked"
        assert f"gate {gate}" in error.message and "a1" in error.message
    assert not any(t.split()[0] in ("W1", "Sa", "SW") for t in state.legal_texts())


def test_legal_moves_follow_the_gate_order_with_the_cards_after_each_gate() -> None:
    state = position(variant="chaton")
    assert state.legal_texts() == list(GATES)
    state = position(cards={"light": ["tigre", "brigand"], "dark": []}, closed="W1")
    texts = state.legal_texts()
    assert texts[:5] == ["W1 brigand", "W2", "W2 brigand", "W2 tigre", "W3"]


# ---------------------------------------------------------------- passing and the end


def test_a_player_without_a_tile_in_supply_passes() -> None:
    state = position(dark="h8", supply={"light": 0})
    assert state.legal_texts() == ["pass"]
    assert illegal(state, "W3").rule == "supply.empty"
    played(state, "pass")
    assert state.to_move == 1 and not state.is_over()


def test_passing_is_refused_while_a_tile_can_enter() -> None:
    state = position()
    error = illegal(state, "pass")
    assert error.rule == "pass.can-enter"
    assert "for example W1" in error.message


def test_a_player_passes_while_the_other_still_holds_the_brigand() -> None:
    every_gate = " ".join(GATES)
    state = position(closed=every_gate, cards={"light": ["tigre"], "dark": ["brigand"]})
    assert state.legal_texts() == ["pass"]
    before = state.to_json()
    state.undo(state.apply(Pass()))
    assert state.to_json() == before
    played(state, "pass")
    assert "W3 brigand" in state.legal_texts()
    assert all(t.endswith("brigand") for t in state.legal_texts())
    played(state, "W3 brigand")
    assert state.is_over()
    assert state.legal_moves() == []


def test_the_game_ends_when_neither_player_can_enter_a_tile() -> None:
    open_gate = "W3"
    others = " ".join(g for g in GATES if g != open_gate)
    state = position(dark="e3", closed=others, variant="chaton")
    assert not state.is_over()
    assert state.legal_texts() == ["W3"]
    played(state, "W3")
    assert state.is_over()
    assert state.legal_moves() == []
    error = illegal(state, "pass")
    assert error.rule == "game.over"


def test_a_position_where_no_one_can_play_is_over_from_the_start() -> None:
    state = position(closed=" ".join(GATES), variant="tigre")
    assert state.is_over()
    assert state.legal_moves() == []


def test_open_gates_with_taken_entry_squares_end_the_game_too() -> None:
    # The three gates of a1 are open, but a1 holds a tile.
    others = " ".join(g for g in GATES if g not in ("W1", "Sa", "SW"))
    state = position("a1", closed=others, variant="chaton")
    assert state.is_over()


# ---------------------------------------------------------------- score


def test_the_score_is_the_largest_connected_group() -> None:
    state = position("a1 a2 b2 h8 g8", "c1 c2 d1 f5")
    assert state.scores() == [3, 3]


def test_only_the_central_squares_connect_through_corners() -> None:
    state = position("d4 e5 c3")
    assert state.scores() == [2, 0], "d4-e5 connect at the centre; c3-d4 do not"
    state = position("e4 d5 f3 f2")
    assert state.scores() == [2, 0]


def test_walls_do_not_cut_connections_unless_the_option_says_so() -> None:
    light = "c4 d4 e4 f4 d5"
    assert position(light).scores() == [5, 0]
    cut = position(light, walls_cut_connections=True)
    # c4-d4 | e4-f4 and e4-d5 through the corner: the walls cut d4-e4 and d4-d5, but
    # the corner connections of the board hold.
    assert cut.scores() == [3, 0]
    assert position("d4 e5", walls_cut_connections=True).scores() == [2, 0]


def test_the_larger_largest_group_wins() -> None:
    state = position("a1 a2 a3", "h1 h2")
    assert state.winners() == [0]
    assert state.tiebreak() is None


def test_on_a_tie_the_player_who_began_loses() -> None:
    state = position("a1 a2", "h1 h2")
    assert state.scores() == [2, 2]
    assert state.winners() == [1]
    assert state.tiebreak() == "starter-loses"
    # the player who began is the first of the record, whatever the colour
    reversed_order = position("a1 a2", "h1 h2", players=("dark", "light"))
    assert reversed_order.winners() == [1]
    assert reversed_order.rules.players[1] == "light"


def test_a_finished_game_reports_its_result() -> None:
    others = " ".join(g for g in GATES if g != "Nh")
    state = position("a1 a2", "h1", closed=others, variant="chaton")
    played(state, "Nh")
    assert board(state)["h2"] == "light"
    assert state.is_over()
    assert state.scores() == [2, 1]
    assert state.winners() == [0]


def test_rules_for_the_default_players() -> None:
    assert ShendaoRules.default_players(2) == ["light", "dark"]
