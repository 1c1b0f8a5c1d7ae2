"""The elements of a ShenShi table (RULINGS section 4), and what a state shows on them.

Elements, per square ``a1`` .. ``g7``:

* ``c3 tile`` — the printed mandala tile: ``"none"``, ``"intact"`` or ``"faded"``;
* ``c3 cushion`` — ``"none"``, ``"blond"`` or ``"orange"``;
* ``c3 monk`` — ``"none"`` or ``"<metal>-<size>"``: ``"silver-grand"``,
  ``"copper-master"``, ``"black-grand"`` (black: the neutral monks, or the fourth
  player's). A Grand Master is taller than a master, so the size can be seen.

and per player, ``tokens silver``: the path tokens on that player's board (a count).
Reserves (cushions and monks off the board) are not elements: an entry is recognised by
the monk and cushion appearing on the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from engines.observation import Observation, Reading, TableSchema, Value
from engines.shenshi.board import CUSHION_NAMES, SIZE, TILE_NAMES, square_name
from engines.shenshi.rules import METALS, ShenshiRules
from engines.shenshi.state import ShenshiState

NONE = "none"
SIZES = ("grand", "master")
SQUARES = tuple(square_name(s) for s in range(SIZE * SIZE))
TILE = tuple(f"{name} tile" for name in SQUARES)
CUSHION = tuple(f"{name} cushion" for name in SQUARES)
MONK = tuple(f"{name} monk" for name in SQUARES)
SQUARE_OF = {name: s for s, name in enumerate(SQUARES)}
MAX_TOKENS = 60
SURE = 0.9
"""Readings at least this confident narrow the candidates (the referee's default)."""


def monk_value(colour: str, size: int) -> str:
    return f"{colour}-{SIZES[size]}"


def tokens(colour: str) -> str:
    return f"tokens {colour}"


@cache
def _schema(n_players: int) -> TableSchema:
    values: dict[str, frozenset[Value]] = {}
    monks = frozenset((NONE, *(monk_value(c, s) for c in METALS for s in (0, 1))))
    for s in range(SIZE * SIZE):
        values[TILE[s]] = frozenset((NONE, "intact", "faded"))
        values[CUSHION[s]] = frozenset((NONE, "blond", "orange"))
        values[MONK[s]] = monks
    for colour in METALS[:n_players]:
        values[tokens(colour)] = frozenset(range(MAX_TOKENS + 1))
    return TableSchema("shenshi", tuple(values), values)


def schema(rules: ShenshiRules) -> TableSchema:
    """The table elements of a ShenShi game (the number of players sets the tokens)."""
    return _schema(rules.n_players)


_SURE: dict[Value, Reading] = {
    v: Reading(v, 1.0)
    for v in (
        NONE,
        "intact",
        "faded",
        "blond",
        "orange",
        *(monk_value(c, s) for c in METALS for s in (0, 1)),
    )
}
_COUNT = [Reading(i, 1.0) for i in range(MAX_TOKENS + 1)]
_TILES = [_SURE[name or NONE] for name in TILE_NAMES]
_CUSHIONS = [_SURE[name or NONE] for name in CUSHION_NAMES]


def monk_readings(rules: ShenshiRules) -> list[Reading]:
    """Reading per monk id: its metal (black for the neutral ones) and size."""
    colours = [*rules.players, *(["black"] if rules.has_neutral else [])]
    return [_SURE[monk_value(colours[m >> 1], m & 1)] for m in range(rules.n_monks)]


def expected(state: ShenshiState) -> Observation:
    """The observation a table in ``state`` gives, every element sure."""
    rules = state.rules
    monks = monk_readings(rules)
    none = _SURE[NONE]
    readings: dict[str, Reading] = {}
    tile, cushion, occ = state.tile, state.cushion, state.occ
    for s in range(SIZE * SIZE):
        readings[TILE[s]] = _TILES[tile[s]]
        readings[CUSHION[s]] = _CUSHIONS[cushion[s]]
        readings[MONK[s]] = none if occ[s] < 0 else monks[occ[s]]
    for p, colour in enumerate(rules.players):
        readings[tokens(colour)] = _COUNT[min(state.tokens[p], MAX_TOKENS)]
    return Observation.trusted(_schema(rules.n_players), readings)


_WHERE: dict[str, tuple[int, int]] = {
    **{TILE[s]: (0, s) for s in range(SIZE * SIZE)},
    **{CUSHION[s]: (1, s) for s in range(SIZE * SIZE)},
    **{MONK[s]: (2, s) for s in range(SIZE * SIZE)},
}
"""Element -> (0 tile, 1 cushion or 2 monk, its square); a player's tokens are not here."""


def values(state: ShenshiState, elements: Sequence[str]) -> list[Value]:
    """What ``expected(state)`` shows on ``elements``, without building the whole table.
    Raises ``KeyError`` for an element of no ShenShi table of ``state``'s players."""
    out: list[Value] = []
    rules = state.rules
    occ = state.occ
    for e in elements:
        where = _WHERE.get(e)
        if where is None:  # a player's tokens
            colour = e.split(" ", 1)[1]
            if colour not in rules.players:
                raise KeyError(e)
            out.append(min(state.tokens[rules.players.index(colour)], MAX_TOKENS))
            continue
        kind, s = where
        if kind == 0:
            out.append(TILE_NAMES[state.tile[s]] or NONE)
        elif kind == 1:
            out.append(CUSHION_NAMES[state.cushion[s]] or NONE)
        elif occ[s] < 0:
            out.append(NONE)
        else:
            m = occ[s]
            colour = rules.players[m >> 1] if m >> 1 < rules.n_players else "black"
            out.append(monk_value(colour, m & 1))
    return out


def transient(element: str) -> frozenset[Value]:
    """A square shows no monk while its monk is in the hand, and no cushion while the
    cushion is carried (a hover, a lift, an entry on a cushion of the board)."""
    if element.endswith(" monk") or element.endswith(" cushion"):
        return frozenset((NONE,))
    return frozenset()


def group(element: str) -> str:
    """A square's tile, cushion and monk together; each player's tokens alone."""
    return element if element.startswith("tokens ") else element.split(" ", 1)[0]


def changed_squares(changed: list[str]) -> set[int]:
    """The squares of the changed elements (players' tokens left out)."""
    return {SQUARE_OF[e.split(" ", 1)[0]] for e in changed if not e.startswith("tokens ")}
