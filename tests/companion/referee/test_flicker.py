"""Readings wrong for a few frames do not end in illegal-move flags: a move they make the
referee accept is taken back when the table shows the position before it again, and a
``done`` waits when only a reading seen on one frame makes the table illegal. Illegal
moves are still flagged after as many frames as before."""

from __future__ import annotations

from companion.referee.events import TurnDone
from tests.companion.referee.streams import names, only, show
from tests.companion.referee.test_referee_shendao import referee_for, table


def test_a_move_misread_for_a_few_frames_is_taken_back_when_the_table_shows_before() -> None:
    # A tile entered through W1 on an empty row slides off the board: the move shows as
    # the stick alone, so a stick misread three frames in a row is a legal move.
    referee = referee_for(light="e3")
    calm = referee.expected_table()
    out = show(referee, table(referee, gate_W1="closed"), times=referee.config.stable_frames)
    assert only(out, "move_accepted").move == "W1"
    out = show(referee, calm, times=6)
    assert "illegal_move" not in names(out)
    assert only(out, "move_taken_back").move == "W1"
    assert referee.history == [] and referee.status == referee.WATCHING
    # the move then made is accepted as usual
    out = show(referee, table(referee, d3="light", gate_W3="closed"))
    assert only(out, "move_accepted").move == "W3"


def test_the_last_move_half_taken_off_by_the_next_player_is_still_flagged() -> None:
    referee = referee_for(light="e3")
    show(referee, table(referee, d3="light", gate_W3="closed"))
    # Dark takes Light's tile off, the stick stays: no move of Light's leaves this
    out = show(referee, table(referee, d3="empty"), times=referee.config.stable_frames)
    out += referee.handle(TurnDone()) + show(referee, table(referee, d3="empty"), times=1)
    assert only(out, "illegal_move").player == 1
    assert "move_taken_back" not in names(out)
    assert [text for _, text in referee.history] == ["W3"]


def test_an_illegal_move_after_a_legal_one_is_flagged_as_fast_as_before() -> None:
    referee = referee_for(light="e3")
    show(referee, table(referee, d3="light", gate_W3="closed"))
    wrong = table(referee, c2="light", gate_W2="closed")  # Light again: Dark's turn
    frames = referee.config.stable_frames + referee.config.confirm_frames
    assert "illegal_move" not in names(show(referee, wrong, times=frames - 1))
    assert only(show(referee, wrong, times=1), "illegal_move").rule == "turn.wrong-player"


def test_done_waits_when_only_a_reading_seen_once_makes_the_table_illegal() -> None:
    referee = referee_for(light="e3")
    frames = referee.config.stable_frames
    tile = table(referee, d3="light")
    show(referee, tile, times=frames)  # the tile is down; the stick goes in now
    stick = table(referee, d3="light", gate_W3="closed")
    misread = table(referee, d3="light", gate_W3="closed", a8="dark")  # a8: one frame
    show(referee, stick, times=1)
    out = show(referee, misread, times=1) + referee.handle(TurnDone())
    assert "illegal_move" not in names(out)
    out = show(referee, stick, times=frames)
    assert only(out, "move_accepted").move == "W3"
    assert "illegal_move" not in names(out)
