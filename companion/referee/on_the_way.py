"""The turns a table was seen on the way to, kept until the turn ends.

A game whose turns are made in parts (ShenShi) finds the turns that explain a table
from the squares that changed. A turn can leave a square as it was although it touched
it (a cushion lifted from a hover's way and another put down in its place): the
finished table then hides that part of the turn, and no turn is found for it. Half way
through, while the square still showed the gap, the turn was found as one the table
was on its way to. ``TurnsOnTheWay`` keeps those turns, so that a ``done`` on a table
the search explains with nothing can still be explained by one of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

MOST_ON_THE_WAY = 1024
"""Turns kept at most (the latest seen): an orange hover's lifts give thousands of
variants, and each kept turn is tried again at a ``done`` no turn explains."""


@dataclass
class TurnsOnTheWay:
    """The turns the table was seen on the way to from one position."""

    position: tuple[int, str] = (0, "")
    """The position they start from: the number of moves in the record and the last
    one's text (the record is played forward in place)."""
    moves: dict[Any, None] = field(default_factory=dict)
    """The turns, oldest first (a dict keeps them in order, once each)."""

    def add(self, position: tuple[int, str], moves: Iterable[Any]) -> None:
        """Keep ``moves``, seen on the way from ``position`` (those kept from another
        position are dropped)."""
        if position != self.position:
            self.position, self.moves = position, {}
        for move in moves:
            self.moves.pop(move, None)
            self.moves[move] = None
        while len(self.moves) > MOST_ON_THE_WAY:
            del self.moves[next(iter(self.moves))]

    def at(self, position: tuple[int, str]) -> list[Any]:
        """The turns kept from ``position`` (none if they were seen from another)."""
        return list(self.moves) if position == self.position else []
