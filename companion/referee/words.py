"""The referee's outputs in plain words, for the command line and the app."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.referee import messages
from companion.referee.events import (
    BoardMismatch,
    GameOver,
    IllegalMove,
    Indicators,
    InputRejected,
    MoveAccepted,
    MoveCorrected,
    MoveInProgress,
    MoveTakenBack,
    Output,
    Question,
    TableRestored,
)


def say(output: Output, players: Sequence[str], game: str = "") -> str:
    """One paragraph for players; empty for outputs meant for hardware only. The
    wording is ``messages``'s, in English; ``game`` lets the end of a game say its
    tie-break in words (without it, the referee's own summary is said)."""

    def who(p: int) -> str:
        return players[p].capitalize()

    match output:
        case MoveAccepted(number, player, move, by, corrected):
            how = {"table": "", "answer": " (as answered)", "typed": " (typed in)"}[by]
            text = f"Move {number}: {who(player)} plays {move}{how}."
            if corrected:
                text += f" (Unsure readings overruled: {', '.join(corrected)}.)"
            return text
        case MoveInProgress(player, candidates):
            shown = ", ".join(candidates[:5]) + (" ..." if len(candidates) > 5 else "")
            return f"{who(player)} is moving ({shown})."
        case IllegalMove(player, attempt, rule, message, fix, _):
            headline = messages.illegal_headline(player, attempt, rule, message, who, players)
            lines = [
                f"{headline}.",
                f"  {messages.reason(rule, message)}",
                f"  {messages.render('illegal.to_put_right')}",
            ]
            lines += [f"   - {step}" for step in messages.steps(fix, shown=None)]
            return "\n".join(lines)
        case TableRestored(player):
            return f"The table is back as it was. {who(player)} to play."
        case Question(player, candidates, reason):
            shown = ", ".join(candidates[:12]) + (" ..." if len(candidates) > 12 else "")
            return f"{messages.question(reason)} {who(player)}: {shown}"
        case BoardMismatch(message, fix, _):
            return "\n".join(
                [message, *[f"   - {step}" for step in messages.steps(fix, shown=None)]]
            )
        case MoveTakenBack(number, move):
            return f"Move {number} ({move}) is taken back."
        case MoveCorrected():
            return output.words
        case InputRejected(text, reason):
            return f"Not taken: {text!r}: {reason}"
        case GameOver(scores, tiebreak, winners, summary):
            table = ", ".join(f"{players[p]} {s}" for p, s in enumerate(scores))
            if game:
                summary = messages.result(game, scores, winners, tiebreak, who)
            return f"Game over. {summary} Scores: {table}."
        case Indicators():
            return ""
    return repr(output)


def tiebreak_words(game: str, tiebreak: Any, players: Sequence[str]) -> str:
    """What breaks a tie in ``game``, in words, with the figures of this end of game
    (``tiebreak``: what the game state's ``tiebreak()`` gives)."""
    return messages.tiebreak(game, tiebreak, lambda p: players[p], len(players))
