"""Moves that differ only in how the record writes them lead to the same position: no
later table, verdict or score can depend on which was played, so the referee asks
nothing about them. Found on simulated tables (development games), on a scripted stream
from a position of such a game."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import TurnDone
from tests.companion.referee.streams import names, only, show
from tests.referee.test_shendao_misreads import after_moves


def test_a_brigand_whose_tile_leaves_the_board_is_not_asked_about() -> None:
    # Light plays the Brigand through a closed gate and the tile slides off the board:
    # the table does not change, and six closed gates fit (W6, E2, E7, E8, Sb, Nc).
    # Each leaves the same position (the tile and the card spent), so the done is
    # accepted as the first of them, not asked about
    referee = Referee((state := after_moves(8026, 12)).rules, state)
    assert state.cards_left(0) == ["brigand"]
    show(referee, referee.expected_table())
    out = referee.handle(TurnDone())
    assert names(out) == ["move_accepted"]
    assert only(out, "move_accepted").move == "W6 brigand"
    played = state.copy()
    played.play(state.rules.parse_move("E2 brigand"))  # the one played
    assert referee.state == played
    assert referee.belief.histories == []
