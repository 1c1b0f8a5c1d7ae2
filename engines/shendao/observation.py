"""What a Shendao table shows (RULINGS section 4), and what a state should show.

Elements:

* ``c3`` — a square: ``"empty"``, ``"light"`` or ``"dark"`` (the tile on it);
* ``gate W3`` — a gate: ``"open"``, or ``"closed"`` when its red stick is in place
  (the four central walls are printed, not sticks, so they are not elements).

Cards are announced, not seen: the referee recognises a card by its effect on the
tiles, and when a card would leave the same table as a plain entry, the plain entry
is preferred (``prefer``); a player who spends a card for nothing types the move.
"""

from __future__ import annotations

from functools import cache

from engines.observation import Observation, Reading, TableSchema, Value
from engines.shendao.moves import GATES, SQUARE_INDEX, SQUARES, Enter, Move
from engines.shendao.rules import PLAYERS, ShendaoRules
from engines.shendao.state import ShendaoState
from engines.table_model import Change, TableModel

EMPTY = "empty"
OPEN, CLOSED = "open", "closed"


def gate(name: str) -> str:
    return f"gate {name}"


@cache
def _schema() -> TableSchema:
    values: dict[str, frozenset[Value]] = {}
    for square in SQUARES:
        values[square] = frozenset((EMPTY, *PLAYERS))
    for name in GATES:
        values[gate(name)] = frozenset((OPEN, CLOSED))
    return TableSchema("shendao", tuple(values), values)


def schema(rules: ShendaoRules) -> TableSchema:
    """The table elements of a Shendao board (the same for every game)."""
    return _schema()


_SURE = {value: Reading(value, 1.0) for value in (EMPTY, *PLAYERS, OPEN, CLOSED)}
_GATE_NAMES = [gate(name) for name in GATES]


def expected(state: ShendaoState) -> Observation:
    """The observation a table in ``state`` gives, every element sure."""
    players = [_SURE[p] for p in state.rules.players]
    readings: dict[str, Reading] = {}
    for s, square in enumerate(SQUARES):
        owner = state.cell[s]
        readings[square] = _SURE[EMPTY] if owner < 0 else players[owner]
    for g, name in enumerate(_GATE_NAMES):
        readings[name] = _SURE[OPEN] if state.gate_open[g] else _SURE[CLOSED]
    return Observation.trusted(_schema(), readings)


def transient(element: str) -> frozenset[Value]:
    """A square is empty for a moment while a tile is swapped or replaced."""
    return frozenset() if element.startswith("gate ") else frozenset((EMPTY,))


def group(element: str) -> str:
    return element


def prefer(moves: list[Move]) -> list[Move]:
    """Among moves that fit the table equally well, keep those spending no card."""
    plain = [m for m in moves if not (isinstance(m, Enter) and m.card)]
    return plain or moves


def describe_element(element: str) -> str:
    if element.startswith("gate "):
        return f"gate {element[5:]}"
    return f"square {element}"


def fix_sentences(changes: list[tuple[str, Value | None, Value]]) -> list[str]:
    """One instruction per element, turning what is seen into what is wanted."""
    out = []
    for element, seen, wanted in changes:
        if element.startswith("gate "):
            name = element[5:]
            out.append(
                f"Put the red stick back on gate {name}: it is closed."
                if wanted == CLOSED
                else f"Take the red stick off gate {name}: it is open."
            )
        elif wanted == EMPTY:
            out.append(f"Take the {seen} tile off {element}.")
        elif seen in (EMPTY, None):
            out.append(f"Put a {wanted} tile on {element}.")
        else:
            out.append(f"Turn the tile on {element} to {wanted} (it shows {seen}).")
    return out


def guess(
    state: ShendaoState, observation: Observation, changed: list[str]
) -> tuple[str, Move | None, int | None]:
    """What the player seems to have tried: (words, the move meant, whose tile moved)."""
    before = expected(state)
    players = state.rules.players
    closed = [
        e[5:]
        for e in changed
        if e.startswith("gate ") and before.value(e) == OPEN and observation.value(e) == CLOSED
    ]
    added = [
        e
        for e in changed
        if not e.startswith("gate ")
        and before.value(e) == EMPTY
        and observation.value(e) in players
    ]
    removed = [e for e in changed if not e.startswith("gate ") and observation.value(e) == EMPTY]
    player = None
    if len(added) == 1:
        player = players.index(str(observation.value(added[0])))
    if closed:
        name = closed[0]
        return (f"entering a tile through gate {name}", Enter(name), player)
    if len(added) == 1:
        square = SQUARE_INDEX[added[0]]
        lines = [
            GATES[g]
            for g in range(len(GATES))
            if square in state.rules.line[g] and not state.gate_open[g]
        ]
        if lines:
            return (f"entering a tile through the closed gate {lines[0]}", Enter(lines[0]), player)
        return (f"putting a tile on {added[0]}", None, player)
    if removed and not added:
        return ("taking tiles off the board", None, None)
    if any(e.startswith("gate ") for e in changed):
        return ("moving a gate's stick", None, None)
    return ("changing the tiles on the board", None, None)


class ShendaoTable(TableModel[ShendaoRules, ShendaoState, Move]):
    """Shendao's table for the referee: every legal move is compared with it, and a
    plain entry is preferred to a card leaving the same table (``prefer``)."""

    game = "shendao"

    def schema(self, rules: ShendaoRules) -> TableSchema:
        return schema(rules)

    def expected(self, state: ShendaoState) -> Observation:
        return expected(state)

    def transient(self, element: str) -> frozenset[Value]:
        return transient(element)

    def group(self, element: str) -> str:
        return group(element)

    def guess(
        self, state: ShendaoState, observation: Observation, changed: list[str]
    ) -> tuple[str, Move | None, int | None]:
        return guess(state, observation, changed)

    def fix_sentences(self, changes: list[Change]) -> list[str]:
        return fix_sentences(changes)

    def describe_element(self, element: str) -> str:
        return describe_element(element)

    def prefer(self, moves: list[Move]) -> list[Move]:
        return prefer(moves)


TABLE = ShendaoTable()
"""Shendao's table model (``engines.registry.table_model("shendao")``)."""
