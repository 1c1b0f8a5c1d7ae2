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
* ``values`` — the values a state shows on a few elements, without building the whole
  table (default: None, the referee builds it with ``expected``);
* ``TURN_IN_PARTS`` — a turn is made in parts in any order, so a table no legal turn
  explains is in progress until the player says the turn is done (default: False);
* ``MOVES_GO_ON`` and ``extends`` — a move accepted from the table may go on into a
  bigger one of the same player (default: never);
* ``hidden_parts`` — what the table hides, split into parts that the referee may keep
  apart (``HiddenParts``; default: None, the referee keeps whole other histories).

Each game's table model lives beside its engine (``engines.<game>.observation``) and
is found with ``engines.registry.table_model``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
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


class HiddenParts(ABC, Generic[S, M]):
    """What a game's table hides, in parts the referee can keep apart (Shangri-La: the
    students on the masters of each village). A move the table cannot tell from others
    that differ only in what it hides (an "unseen choice": a recruit seen from above)
    adds hidden items (``spread``: per part) to one or several parts; the referee keeps,
    per part, the few contents it may have, and how many items each unseen move put in
    it, instead of every whole history. A part's content is a set of small integers
    (Shangri-La: the spaces whose master has a student)."""

    most: int
    """The most hidden items one unseen move adds; each adds at least one."""

    @abstractmethod
    def parts(self, state: S) -> Sequence[int]:
        """Every part of the table."""

    @abstractmethod
    def unseen_choice(self, state: S, moves: Sequence[M]) -> bool:
        """Whether ``moves``, legal in ``state`` and fitting the table alike, are one
        unseen choice the parts can keep: each adds hidden items only, and in every
        part the items the player could add are ``free`` whatever the other parts
        hold."""

    @abstractmethod
    def spread(self, move: M) -> dict[int, frozenset[int]]:
        """The hidden items an unseen move adds, per part."""

    @abstractmethod
    def free(self, state: S, part: int, content: frozenset[int], player: int) -> list[int]:
        """The items of ``part`` an unseen move of ``player`` could add, the part
        holding ``content`` (the rest of ``state`` as it is)."""

    @abstractmethod
    def content(self, state: S, part: int) -> frozenset[int]:
        """What ``part`` hides in ``state``."""

    @abstractmethod
    def with_content(self, state: S, contents: Mapping[int, frozenset[int]]) -> S:
        """A copy of ``state`` whose parts hide ``contents`` instead."""

    @abstractmethod
    def read_by(self, state: S, move: M) -> frozenset[int] | None:
        """The parts whose hidden content ``move``'s legality or result depends on or
        changes (None: every part, each on its own: the move is legal when each part
        allows it)."""

    @abstractmethod
    def parts_of(self, element: str) -> frozenset[int]:
        """The parts an element of the table belongs to (a Shangri-La bridge: the two
        villages it joins)."""

    @abstractmethod
    def shows(self, state: S, part: int, content: frozenset[int]) -> dict[str, Any]:
        """The table's elements that show what ``part`` hides (Shangri-La: its stack
        heights), and what each shows when it hides ``content``."""

    @abstractmethod
    def part_of_item(self, item: int) -> int:
        """The part a hidden item belongs to."""

    @abstractmethod
    def unseen_move(self, items: frozenset[int]) -> M:
        """The unseen move that adds ``items`` (from every part)."""

    def limits(self, state: S, kept: Collection[int]) -> dict[int, int]:
        """Kinds of hidden items of which the ``kept`` parts may hold only so many in
        all (a player's tiles of one discipline in Shangri-La: six, less their masters
        and the students of the other parts), those the limit may bind. Default:
        none."""
        return {}

    def tally(self, state: S, content: frozenset[int]) -> dict[int, int]:
        """How many hidden items of each kind of ``limits`` ``content`` holds."""
        return {}

    def items(self, state: S, part: int) -> frozenset[int]:
        """Every item ``part`` could hide in ``state`` (Shangri-La: its spaces with a
        master). Default: none (the referee does not search the part's contents)."""
        return frozenset()

    def leaving(self, state: S, part: int) -> list[M]:
        """The moves whose outcome what ``part`` hides decides (Shangri-La: the
        journeys from it over a standing bridge, legal or not). Default: none."""
        return []

    unseen_words: str = "a move in"
    """An unseen move in words, before the parts it may have acted in ("a student onto
    a master in")."""

    def looks_alike(self, state: S, other: S) -> bool:
        """Whether ``state`` and ``other`` differ at most in what the parts hide.
        Default: ``other`` given ``state``'s contents is ``state``."""
        contents = {p: self.content(state, p) for p in self.parts(state)}
        return self.with_content(other, contents) == state

    scores_seen: bool = True
    """Whether the scores depend only on what the table shows (then an unseen move
    still in doubt at the end is never asked about)."""

    @abstractmethod
    def label(self, part: int) -> str:
        """The part in words ("village 4")."""


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
    def guess(
        self, state: S, observation: Observation, changed: list[str]
    ) -> tuple[str, M | None, int | None]:
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

    def candidates(
        self,
        state: S,
        observation: Observation,
        changed: list[str],
        hidden: frozenset[str] = frozenset(),
    ) -> list[M]:
        """The legal moves worth comparing with ``observation``, given the elements
        ``changed`` (surely seen unlike ``state``'s table) and ``hidden`` (under a
        hand; moves acting there may be left out: they are in progress until seen).
        Default: every legal move."""
        moves: list[M] = state.legal_moves()
        return moves

    def first_candidates(self, state: S, observation: Observation, changed: list[str]) -> list[M]:
        """The legal moves worth trying as the first of several made while nobody saw
        the table. Default: ``candidates``."""
        return self.candidates(state, observation, changed)

    def traceless(self, state: S, observation: Observation, changed: list[str]) -> list[M]:
        """Legal moves that leave ``observation`` only through actions leaving no trace,
        which ``candidates`` does not look for: the referee considers them once the
        player says the move is done. Default: none."""
        return []

    def prefer(self, moves: list[M]) -> list[M]:
        """Of ``moves``, which fit the table equally well, those to keep. Default: all."""
        return moves

    def touched(self, state: S, move: M) -> Collection[str]:
        """Element groups ``move`` handles on the way beyond those it changes (a monk
        lifted off a square and put back). Default: none."""
        return ()

    def values(self, state: S, elements: Sequence[str]) -> list[Value] | None:
        """The values a table in ``state`` shows on ``elements`` (as ``expected``
        gives them), when the game can tell them more cheaply than by building the
        whole table: the referee then rules out most moves on the few elements that
        changed (a ShenShi table of three actions has thousands of variants). Default:
        None, the referee builds each table."""
        return None

    def values_after(
        self, state: S, moves: Sequence[M], elements: Sequence[str]
    ) -> list[list[Value]] | None:
        """What ``values`` gives on ``elements`` after each of ``moves`` (legal in
        ``state``, which is left as it was): a game may share the work of moves that
        begin alike (a ShenShi turn and its thousands of third actions). Default: each
        move played and taken back; None when the game has no ``values``."""
        if self.values(state, elements) is None:
            return None
        out: list[list[Value]] = []
        for move in moves:
            token = state.apply(move)
            shown = self.values(state, elements)
            state.undo(token)
            assert shown is not None
            out.append(shown)
        return out

    def extends(self, state: S, move: M, bigger: M) -> bool:
        """Whether ``bigger`` is ``move`` going on, both played from ``state``
        (``MOVES_GO_ON``). Default: never."""
        return False

    def hidden_parts(self) -> HiddenParts[S, M] | None:
        """What the table hides, in parts the referee keeps apart (``HiddenParts``).
        Default: None."""
        return None
