"""The referee's outputs in plain words, for the command line and the app."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.referee.events import (
    BoardMismatch,
    GameOver,
    IllegalMove,
    Indicators,
    InputRejected,
    MoveAccepted,
    MoveInProgress,
    MoveTakenBack,
    Output,
    Question,
    TableRestored,
)


def say(output: Output, players: Sequence[str]) -> str:
    """One paragraph for players; empty for outputs meant for hardware only."""
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
            lines = [f"Illegal move by {who(player)}"
                     + (f" — {attempt}" if attempt else "") + ".",
                     f"  {message} [{rule}]", "  To put it right:"]
            lines += [f"   - {step}" for step in fix] or ["   - (nothing to move)"]
            return "\n".join(lines)
        case TableRestored(player):
            return f"The table is back as it was. {who(player)} to play."
        case Question(player, candidates, reason):
            shown = ", ".join(candidates[:12]) + (" ..." if len(candidates) > 12 else "")
            return f"{reason} {who(player)}: {shown}"
        case BoardMismatch(message, fix, _):
            return "\n".join([message, *[f"   - {step}" for step in fix]])
        case MoveTakenBack(number, move):
            return f"Move {number} ({move}) is taken back."
        case InputRejected(text, reason):
            return f"Not taken: {text!r}: {reason}"
        case GameOver(scores, _, _, summary):
            table = ", ".join(f"{players[p]} {s}" for p, s in enumerate(scores))
            return f"Game over. {summary} Scores: {table}."
        case Indicators():
            return ""
    return repr(output)


def tiebreak_words(game: str, tiebreak: Any, players: Sequence[str]) -> str:
    """What breaks a tie in ``game``, in words, with the figures of this end of game
    (``tiebreak``: what the game state's ``tiebreak()`` gives)."""
    if game == "shangrila" and isinstance(tiebreak, list):
        held = ", ".join(f"{p} {n}" for p, n in zip(players, tiebreak, strict=True))
        return f"villages held - {held}"
    if game == "shendao":
        if tiebreak is None:
            return "not needed (the largest groups differ)"
        return f"the largest groups are equal, so {players[0]}, who began, loses"
    return "none (equal path tokens share the win)"
