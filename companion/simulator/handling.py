"""How a game's moves are made by hand: the seam between the table simulator and a game.

The simulator (``companion.simulator.core``) knows nothing of any game's pieces. Each
game has a module ``companion.simulator.<game>`` with a ``Handling`` subclass named
``HANDLING`` that knows:

* the physical table a position shows (``table``) and which elements each source reads
  (``readable``: a camera above, a sensor board under the table);
* how a move is made one piece at a time (``steps``): a list of ``Touch`` es, each
  changing a few elements, with the elements a hand hides while making it;
* how a player would try each illegal move a table can show (``attempt``), for every
  rule id in ``stageable``; the repair is the attempt's touches undone in reverse;
* and, by default from the legal moves listed, how to draw a random move
  (``random_move``), another move for a player who changes their mind (``other_move``)
  and whether a table shows some legal move (``shows_a_move``): a game whose moves
  cannot be listed (ShenShi) does these its own way.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from engines import Dice, GameState, Rules
from engines.observation import Value

if TYPE_CHECKING:
    from companion.simulator.config import TableConfig

Table = dict[str, Value]
"""The true physical table: every element's value."""


class SimulatorError(Exception):
    """The simulator cannot do what it was asked (an unknown source or game), or a
    game's handling disagrees with its engine."""


S = TypeVar("S")


def position_of(state: object, kind: type[S], game: str) -> S:
    """``state`` as ``kind`` (a game's own state class), or ``SimulatorError`` saying
    it is not a position of ``game``."""
    if not isinstance(state, kind):
        raise SimulatorError(f"not a {game} position: {state!r}")
    return state


@dataclass(frozen=True)
class Touch:
    """One act of a hand at the table: ``changes`` maps each element it changes to
    (value before, value after); ``near`` are the elements the hand hides meanwhile."""

    changes: Mapping[str, tuple[Value, Value]]
    near: tuple[str, ...] = ()

    def undone(self) -> Touch:
        """The act that puts things back as they were."""
        return Touch({e: (after, before) for e, (before, after) in self.changes.items()}, self.near)

    def apply(self, table: Table) -> None:
        """Make the change on ``table``. Raises ``SimulatorError`` if the table does not
        show the values the touch starts from."""
        for element, (before, after) in self.changes.items():
            if table[element] != before or type(table[element]) is not type(before):
                raise SimulatorError(
                    f"{element} shows {table[element]!r}, not {before!r}: "
                    "the touch does not fit the table"
                )
            table[element] = after


@dataclass(frozen=True)
class Attempt:
    """An illegal move as a player would try it: the rule id the referee should report,
    what the player does, and whether they then say their move is done (an attempt that
    changes nothing, such as passing while a move is possible)."""

    rule: str
    touches: tuple[Touch, ...]
    says_done: bool = False
    description: str = ""


class Handling(ABC):
    """One game's pieces in the hands of players. See the module docstring."""

    game: ClassVar[str]
    stageable_rules: ClassVar[tuple[str, ...]]
    """Every rule id this game can stage with some set of sources."""

    def __init__(self, rules: Rules[Any, Any]) -> None:
        self.rules = rules

    @abstractmethod
    def table(self, state: GameState[Any]) -> Table:
        """The physical table in ``state``."""

    @abstractmethod
    def readable(self, source: str, config: TableConfig) -> dict[str, float]:
        """The elements ``source`` reads, in a fixed order, each with the confidence of
        a good reading. Raises ``SimulatorError`` for an unknown source."""

    @abstractmethod
    def steps(
        self, state: GameState[Any], move: Any, rng: np.random.Generator, config: TableConfig
    ) -> list[Touch]:
        """``move`` (legal in ``state``) made by hand, one piece at a time, in a realistic
        order. ``state`` is left as it was."""

    @abstractmethod
    def stageable(self, config: TableConfig) -> tuple[str, ...]:
        """The rule ids whose breach a table read by ``config.sources`` can show."""

    @abstractmethod
    def attempt(
        self, state: GameState[Any], rule: str, rng: np.random.Generator, config: TableConfig
    ) -> Attempt | None:
        """How the player to move (or, for ``turn.wrong-player``, another player) would
        break ``rule`` here; None when this position offers no way to."""

    def announced(self, state: GameState[Any], move: Any) -> bool:
        """Whether the player says ``move`` (types it in) before making it: a part of
        it no reader can see and no table can tell (a Shendao card that changes nothing
        on the board is still spent). Default: never."""
        return False

    def played(self, state: GameState[Any], move: Any) -> None:
        """``move`` is about to be played in ``state`` (left as it is): for a game
        whose attempts depend on how the move before them may be read. Default:
        nothing."""
        return None

    def random_move(self, state: GameState[Any], dice: Dice) -> Any:
        """A random legal move for a simulated game: uniform over the legal moves (a
        game whose moves cannot be listed draws them its own way)."""
        return state.random_move(dice)

    def other_move(self, state: GameState[Any], move: Any, rng: np.random.Generator) -> Any | None:
        """A legal move other than ``move`` that a player might start and give up (a
        change of mind); None when there is none."""
        others = [m for m in state.legal_moves() if m != move]
        return others[int(rng.integers(len(others)))] if others else None

    def shows_a_move(
        self, state: GameState[Any], view: Callable[[Table], Hashable]
    ) -> Callable[[Table], bool]:
        """A test of whether a table, as the readers see it (``view``), shows the result
        of some legal move in ``state`` (a player changing their mind stops before it
        does)."""
        results = set()
        for move in state.legal_moves():
            token = state.apply(move)
            results.add(view(self.table(state)))
            state.undo(token)
        return lambda table: view(table) in results

    def side_elements(self) -> tuple[str, ...]:
        """Elements a slanted camera may read from the side (stack heights); default:
        none."""
        return ()

    def hidden_by_hands(self, source: str) -> bool:
        """Whether a hand over the table hides elements from ``source`` (a camera above
        it, yes; a sensor board under it, no)."""
        return source != "sensors"


def handling_for(rules: Rules[Any, Any]) -> Handling:
    """The handling of ``rules.game``. Raises ``SimulatorError`` when no module
    ``companion.simulator.<game>`` exists yet."""
    try:
        module = importlib.import_module(f"companion.simulator.{rules.game}")
    except ModuleNotFoundError as error:
        if error.name != f"companion.simulator.{rules.game}":
            raise
        raise SimulatorError(
            f"the table simulator cannot play {rules.game} yet (no "
            f"companion.simulator.{rules.game} module)"
        ) from None
    handling: Handling = module.HANDLING(rules)
    return handling
