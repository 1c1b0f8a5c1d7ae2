"""Exceptions of the rules engines, split by kind.

Every message names the offending input, so a caller can show it unchanged.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error raised by ``engines``."""


class NotationError(EngineError, ValueError):
    """A move, square or position written in a notation that cannot be read."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"cannot read {text!r}: {reason}")
        self.text = text
        self.reason = reason


class RecordError(EngineError, ValueError):
    """A game record, a state document or a set of options that is malformed."""


class IllegalMoveError(EngineError):
    """A well-formed move that the rules forbid in this position.

    ``rule`` is a stable identifier (``place.no-master-in-village``); ``message`` is
    a plain sentence for players that names the pieces and places involved.
    """

    def __init__(self, rule: str, message: str, move: str = "") -> None:
        super().__init__(f"{move}: {message} [{rule}]" if move else f"{message} [{rule}]")
        self.rule = rule
        self.message = message
        self.move = move


class AmbiguousMoveError(EngineError):
    """A description that fits more than one legal move."""
