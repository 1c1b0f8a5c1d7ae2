"""The interface every game engine implements.

Two objects per game, after OpenSpiel's Python games:

* ``Rules`` — immutable: the game's name, the players (in turn order) and the options.
  It parses and formats moves and builds states.
* ``GameState`` — one position. It knows the player to move, the legal moves in a
  deterministic order, and applies moves in two ways:

  - ``apply`` is the fast, **unchecked** path for search: it trusts that the move is
    one of ``legal_moves()`` and returns a token that ``undo`` takes to restore the
    exact previous state;
  - ``play`` is the **validating** front door for the referee and the command line:
    it calls ``check``, which raises ``IllegalMoveError`` with a stable rule id and a
    sentence for players, then applies.

Moves are small immutable values (frozen dataclasses); their text form is
``rules.format_move`` / ``rules.parse_move``, which round-trip.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

from engines.dice import Dice
from engines.errors import IllegalMoveError, RecordError

JSON = Any
"""A value that ``json.dumps`` accepts."""

M = TypeVar("M")
S = TypeVar("S", bound="GameState[Any]")


class Rules(ABC, Generic[M, S]):
    """A game's immutable metadata: players in turn order and rule options."""

    game: ClassVar[str]
    """The game's name in records: ``"shangrila"``, ``"shendao"``, ``"shenshi"``."""

    min_players: ClassVar[int]
    max_players: ClassVar[int]

    def __init__(self, players: Sequence[str]) -> None:
        self.players: tuple[str, ...] = tuple(players)

    @property
    def n_players(self) -> int:
        return len(self.players)

    @classmethod
    @abstractmethod
    def from_record(cls, players: Sequence[str], options: Mapping[str, JSON]) -> Self:
        """Rules for a record's ``players`` and ``options``; options left out take their
        defaults. Raises ``RecordError`` for unknown options, bad values or bad players."""

    @classmethod
    @abstractmethod
    def default_players(cls, n: int) -> list[str]:
        """Player names for an ``n``-player game (for demos and benchmarks).
        Raises ``RecordError`` if ``n`` is not a supported player count."""

    @abstractmethod
    def options_json(self) -> dict[str, JSON]:
        """Every option with its value, as spelled in records."""

    @abstractmethod
    def initial_state(self) -> S:
        """The state at the start of a game under these rules."""

    @abstractmethod
    def state_from_json(self, data: JSON) -> S:
        """A state from its JSON document (the game's documented state format).
        Raises ``RecordError`` when the document is malformed or inconsistent."""

    @abstractmethod
    def parse_move(self, text: str) -> M:
        """The move written ``text``. Raises ``NotationError``."""

    @abstractmethod
    def format_move(self, move: M) -> str:
        """The canonical text of ``move``."""

    def __repr__(self) -> str:
        """``ShangrilaRules(['red', 'blue', 'yellow'], stones=11, ...)``: pasteable."""
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options_json().items())
        return f"{type(self).__name__}({list(self.players)!r}, {opts})"

    def check_player_count(self) -> None:
        """Raise ``RecordError`` unless the number of players suits the game."""
        n = len(self.players)
        if not self.min_players <= n <= self.max_players:
            raise RecordError(
                f"{self.game} is played by {self.min_players} to {self.max_players} "
                f"players, not {n}"
            )
        if len(set(self.players)) != n:
            raise RecordError(f"players must be distinct: {list(self.players)}")


class GameState(ABC, Generic[M]):
    """One position of a game. See the module docstring for apply/play."""

    rules: Rules[M, Any]

    @property
    @abstractmethod
    def to_move(self) -> int:
        """Index (into ``rules.players``) of the player whose turn it is."""

    @abstractmethod
    def legal_moves(self) -> list[M]:
        """Every legal move, in a deterministic order; empty only when the game is over."""

    @abstractmethod
    def apply(self, move: M) -> object:
        """Play ``move`` without checking it (it must come from ``legal_moves``).
        Returns a token for ``undo``. The fast path for search."""

    @abstractmethod
    def undo(self, token: object) -> None:
        """Take back the move whose ``apply`` returned ``token`` (last in, first out)."""

    @abstractmethod
    def copy(self) -> Self:
        """An independent copy."""

    @abstractmethod
    def check(self, move: M) -> None:
        """Raise ``IllegalMoveError`` (rule id + sentence) if ``move`` is illegal here."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def scores(self) -> list[int]:
        """One score per player, in record order."""

    @abstractmethod
    def tiebreak(self) -> JSON:
        """What decides ties, as reported in ``replay --json`` (game-specific)."""

    @abstractmethod
    def winners(self) -> list[int]:
        """Indexes of the winners after tie-breaks (several when a tie is shared)."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The state as a JSON document that ``rules.state_from_json`` reads back."""

    @abstractmethod
    def describe(self) -> str:
        """A multi-line picture of the position in text, for people."""

    def play(self, move: M) -> object:
        """Check ``move`` and apply it: the validating front door.
        Raises ``IllegalMoveError``; the state is unchanged when it does."""
        self.check(move)
        return self.apply(move)

    def play_text(self, text: str) -> M:
        """Parse, check and apply a move written in notation; returns the move.
        Raises ``NotationError`` or ``IllegalMoveError``."""
        move = self.rules.parse_move(text)
        try:
            self.play(move)
        except IllegalMoveError as error:
            error.move = error.move or self.rules.format_move(move)
            raise
        return move

    def random_move(self, dice: Dice) -> M:
        """A move drawn uniformly from ``legal_moves()``. Games may override this with a
        faster draw from the same distribution."""
        return dice.choice(self.legal_moves())

    def legal_texts(self) -> list[str]:
        """``legal_moves()`` in canonical notation."""
        fmt = self.rules.format_move
        return [fmt(m) for m in self.legal_moves()]

    def legal_preview(self, limit: int) -> tuple[list[str], int]:
        """The first ``limit`` of ``legal_texts()`` and how many legal moves there are in
        all. Games whose positions can have millions of moves override it so as not to
        build them all."""
        legal = self.legal_texts()
        return legal[:limit], len(legal)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return type(self) is type(other) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable
