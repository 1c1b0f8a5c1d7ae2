"""What a game's table shows, for the referee: one interface every game implements.

The referee explains what the camera or the sensor board sees by legal moves. For
that it needs, from each game, the table's elements (``schema``), the table a state
should show (``expected``), how a piece looks while carried by hand (``transient``,
``group``), what a player seems to have tried when nothing legal explains the table
(``guess``) and the words to put a table right (``fix_sentences``,
``describe_element``). These the game must give.

The rest is optional, with defaults that suit a game whose legal moves are few enough
to list (Shangri-La):

* ``candidates`` — the legal moves worth comparing with the table (default: every
  legal move); ``first_candidates``, those worth trying as the first move of several
  made while nobody saw the table (default: ``candidates``);
* ``prefer`` — which of several moves that fit the table equally well to keep
  (default: all of them);
* ``touched`` — element groups a move handles on the way beyond those it changes
  (default: none);
* ``TURN_IN_PARTS`` — a turn is made in parts in any order, so a table no legal turn
  explains is in progress until the player says the turn is done (default: False);
* ``MOVES_GO_ON`` and ``extends`` — a move accepted from the table may go on into a
  bigger one of the same player (default: never).

Each game's table model lives beside its engine (``engines.<game>.observation``) and
is found with ``engines.registry.table_model``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection
from typing import Any, Generic, TypeVar

from engines.base import GameState
from engines.observation import Observation, TableSchema, Value

R = TypeVar("R")
"""The game's rules object."""
S = TypeVar("S", bound=GameState[Any])
"""The game's state."""
M = TypeVar("M")
"""The game's move."""

Change = tuple[str, Value | None, Value]
"""(element, the value seen or ``None``, the value wanted)."""


class TableModel(ABC, Generic[R, S, M]):
    """One game's table, as the referee needs it (see the module docstring)."""

    game: str

    # ------------------------------------------------------------------ required

    @abstractmethod
    def schema(self, rules: R) -> TableSchema:
        """The table's elements under ``rules`` (in a fixed order) and their values."""

    @abstractmethod
    def expected(self, state: S) -> Observation:
        """The observation a table in ``state`` gives, every element sure."""

    @abstractmethod
    def transient(self, element: str) -> frozenset[Value]:
        """Values ``element`` may show half-way through a move made by hand (a space
        empty while a tile is in the hand)."""

    @abstractmethod
    def group(self, element: str) -> str:
        """The name of the elements that change together when a piece is handled (a
        space and its stack)."""

    @abstractmethod
    def guess(self, state: S, observation: Observation,
              changed: list[str]) -> tuple[str, M | None, int | None]:
        """What the player seems to have tried, from the elements ``changed`` (those
        surely seen unlike the table ``state`` should show): words for players, the
        move meant when one can be named, and the player whose piece moved."""

    @abstractmethod
    def fix_sentences(self, changes: list[Change]) -> list[str]:
        """Instructions for players that turn what is seen into what is wanted."""

    @abstractmethod
    def describe_element(self, element: str) -> str:
        """``element`` in words for players ("the Healer space of village 4")."""

    # ------------------------------------------------------------------ optional

    @property
    def TURN_IN_PARTS(self) -> bool:
        """Whether a turn is made in parts, in any order (see the module docstring)."""
        return False

    @property
    def MOVES_GO_ON(self) -> bool:
        """Whether a move accepted from the table may go on into a bigger one
        (``extends``)."""
        return False

    def candidates(self, state: S, observation: Observation, changed: list[str],
                   hidden: frozenset[str] = frozenset()) -> list[M]:
        """The legal moves worth comparing with ``observation``, given the elements
        ``changed`` (surely seen unlike ``state``'s table) and ``hidden`` (under a
        hand; moves acting there may be left out: they are in progress until seen).
        Default: every legal move."""
        moves: list[M] = state.legal_moves()
        return moves

    def first_candidates(self, state: S, observation: Observation,
                         changed: list[str]) -> list[M]:
        """The legal moves worth trying as the first of several made while nobody saw
        the table. Default: ``candidates``."""
        return self.candidates(state, observation, changed)

    def prefer(self, moves: list[M]) -> list[M]:
        """Of ``moves``, which fit the table equally well, those to keep. Default: all."""
        return moves

    def touched(self, state: S, move: M) -> Collection[str]:
        """Element groups ``move`` handles on the way beyond those it changes (a monk
        lifted off a square and put back). Default: none."""
        return ()

    def extends(self, state: S, move: M, bigger: M) -> bool:
        """Whether ``bigger`` is ``move`` going on, both played from ``state``
        (``MOVES_GO_ON``). Default: never."""
        return False
