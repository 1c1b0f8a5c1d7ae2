"""The demo joins a game late: the referee counts moves from the film's first, and the
demo shows every number, in the words too, as the game's."""

from __future__ import annotations

from companion.demo.report import renumbered
from companion.referee.events import MoveAccepted, MoveCorrected, Question


def test_every_move_number_is_the_games() -> None:
    accepted = renumbered(MoveAccepted(2, 1, "+R5", "table"), 138)
    assert isinstance(accepted, MoveAccepted) and accepted.number == 140
    asked = renumbered(
        Question(
            1, ["+R5", "+R5+H6"], "Too many moves fit the tables seen so far. Which was move 2?", 2
        ),
        138,
    )
    assert isinstance(asked, Question) and asked.about == 140
    assert asked.reason.endswith("Which was move 140?")
    words = "Move 2 was +R5+H6, not +R5: it changed the stack on ... (+R5 would have changed ...)."
    corrected = renumbered(MoveCorrected(2, 1, "+R5", "+R5+H6", words), 138)
    assert isinstance(corrected, MoveCorrected) and corrected.number == 140
    assert corrected.words.startswith("Move 140 was +R5+H6, not +R5:")
    # a question about the move being made has no number to change
    now = Question(1, ["+R2", "+Y3"], "The table fits several moves: which one was played?")
    assert renumbered(now, 138) == now
