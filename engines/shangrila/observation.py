"""What a Shangri-La table shows (RULINGS section 4), and what a state should show.

Elements (names are stable: the camera, the sensor board and people use them):

* ``4H`` — the Healer space of village 4: ``"empty"`` or the colour of the tile on top;
* ``4H^`` — the stack height there: 0 (empty), 1 (a master) or 2 (with its student);
  a camera straight above cannot see it, a sensor board can;
* ``bridge 4-7`` — the wooden bridge between villages 4 and 7: ``True`` while it stands;
* ``stone 4`` — a Stone of the Wise Men on village 4: ``True`` when there.

Every bridge of the board is an element, also those of the red village, which stay
absent (``False``) in a 3-player game.
"""

from __future__ import annotations

from functools import cache

from engines.observation import Observation, Reading, TableSchema, Value
from engines.shangrila.board import COLOURS
from engines.shangrila.hidden import HIDDEN
from engines.shangrila.moves import LETTERS, NAMES, Journey, Move, Pass, Place, Recruit
from engines.shangrila.rules import ShangrilaRules
from engines.shangrila.state import ShangrilaState
from engines.table_model import Change, HiddenParts, TableModel

EMPTY = "empty"


def space(village: int, discipline: int) -> str:
    return f"{village}{LETTERS[discipline]}"


def height(village: int, discipline: int) -> str:
    return f"{village}{LETTERS[discipline]}^"


def bridge(a: int, b: int) -> str:
    return f"bridge {min(a, b)}-{max(a, b)}"


def stone(village: int) -> str:
    return f"stone {village}"


@cache
def _schema(bridges: tuple[tuple[int, int], ...]) -> TableSchema:
    values: dict[str, frozenset[Value]] = {}
    colours = frozenset((EMPTY, *COLOURS))
    for v in range(13):
        for d in range(7):
            values[space(v, d)] = colours
            values[height(v, d)] = frozenset((0, 1, 2))
    for a, b in bridges:
        values[bridge(a, b)] = frozenset((True, False))
    for v in range(13):
        values[stone(v)] = frozenset((True, False))
    return TableSchema("shangrila", tuple(values), values)


def schema(rules: ShangrilaRules) -> TableSchema:
    """The table elements of a Shangri-La board."""
    return _schema(rules.board.bridges)


def expected(state: ShangrilaState) -> Observation:
    """The observation a table in ``state`` gives, every element sure."""
    rules = state.rules
    names = _names(rules.board.bridges)
    colour = [_SURE[c] for c in rules.players]
    readings: dict[str, Reading] = {}
    for s in range(91):
        owner = state.owner[s]
        if owner < 0:
            readings[names.spaces[s]] = _SURE[EMPTY]
            readings[names.heights[s]] = _HEIGHT[0]
        else:
            readings[names.spaces[s]] = colour[owner]
            readings[names.heights[s]] = _HEIGHT[1 + state.student[s]]
    standing = {rules.bridges[e] for e, up in enumerate(state.bridges) if up}
    for (a, b), name in zip(rules.board.bridges, names.bridges, strict=True):
        readings[name] = _FLAG[(a, b) in standing]
    for v in range(13):
        readings[names.stones[v]] = _FLAG[bool(state.stones[v])]
    return Observation.trusted(schema(rules), readings)


class _Names:
    def __init__(self, bridges: tuple[tuple[int, int], ...]) -> None:
        self.spaces = [space(s // 7, s % 7) for s in range(91)]
        self.heights = [height(s // 7, s % 7) for s in range(91)]
        self.bridges = [bridge(a, b) for a, b in bridges]
        self.stones = [stone(v) for v in range(13)]


@cache
def _names(bridges: tuple[tuple[int, int], ...]) -> _Names:
    return _Names(bridges)


# Shared sure readings (ints and bools apart: True == 1 as a dict key).
_SURE = {value: Reading(value, 1.0) for value in (EMPTY, *COLOURS)}
_HEIGHT = [Reading(h, 1.0) for h in range(3)]
_FLAG = {True: Reading(True, 1.0), False: Reading(False, 1.0)}


def from_camera_above(observation: Observation) -> Observation:
    """The same table as a camera straight above sees it: stack heights unknown."""
    return observation.replace({height(v, d): None for v in range(13) for d in range(7)})


def describe_element(element: str) -> str:
    """``4H`` -> "the Healer space of village 4"; words for players."""
    if element.startswith("bridge "):
        a, b = element[7:].split("-")
        return f"the bridge between villages {a} and {b}"
    if element.startswith("stone "):
        return f"the stone on village {element[6:]}"
    name = element.rstrip("^")
    village, letter = name[:-1], name[-1]
    what = f"the {NAMES[LETTERS.index(letter)]} space of village {village}"
    return f"the stack on {what}" if element.endswith("^") else what


def fix_sentences(changes: list[tuple[str, Value | None, Value]]) -> list[str]:
    """Instructions, one per space, bridge or stone, that turn what is seen into what is
    wanted: ``changes`` holds (element, seen, wanted)."""
    spaces: dict[str, dict[str, Value | None]] = {}
    out = []
    for element, seen, wanted in changes:
        if element.startswith("bridge "):
            where = describe_element(element)
            out.append(f"Put {where} back." if wanted else f"Take {where} away.")
        elif element.startswith("stone "):
            village = element[6:]
            out.append(
                f"Put a stone on village {village}."
                if wanted
                else f"Take the stone off village {village}."
            )
        else:
            key = element.rstrip("^")
            cell = spaces.setdefault(key, {})
            cell["height" if element.endswith("^") else "colour"] = wanted
            cell["seen height" if element.endswith("^") else "seen colour"] = seen
    for key, cell in spaces.items():
        out.append(_space_sentence(describe_element(key), cell))
    return out


def _space_sentence(where: str, cell: dict[str, Value | None]) -> str:
    colour, seen_colour = cell.get("colour"), cell.get("seen colour")
    high, seen_high = cell.get("height"), cell.get("seen height")
    if colour == EMPTY or (colour is None and high == 0):
        return f"Take the {_tiles(seen_colour, seen_high)} off {where}."
    stack = "master with its student" if high == 2 else "master"
    if colour is not None and seen_colour not in (None, EMPTY, colour):
        return f"Replace the {seen_colour} tile(s) on {where} by a {colour} {stack}."
    if colour is not None and (seen_colour in (None, EMPTY) or seen_high == 0):
        return f"Put a {colour} {stack} on {where}."
    if high == 2:
        return f"Put a student on the master on {where}."
    if high == 1 and seen_high == 2:
        return f"Take the student off the master on {where}."
    return f"Make {where} show {colour or 'its'} tile{'s' if high == 2 else ''}."


def _tiles(colour: Value | None, high: Value | None) -> str:
    name = f"{colour} " if colour not in (None, EMPTY) else ""
    return f"{name}tiles" if high == 2 else f"{name}tile"


def transient(element: str) -> frozenset[Value]:
    """Values an element may show half-way through a move made by hand: a space is
    empty between lifting one tile and putting another; a stack is 0 or 1 high."""
    if element.startswith(("bridge ", "stone ")):
        return frozenset()
    if element.endswith("^"):
        return frozenset((0, 1))
    return frozenset((EMPTY,))


def group(element: str) -> str:
    """Elements that change together when a piece is handled: a space and its stack."""
    return element.rstrip("^")


def guess(
    state: ShangrilaState, observation: Observation, changed: list[str]
) -> tuple[str, Move | None, int | None]:
    """What the player seems to have tried, from the elements that differ (surely) from
    the table ``state`` should show: (words, the move meant if one can be named, the
    player whose colour moved)."""
    rules = state.rules
    if not changed:  # the player says done and nothing moved: a pass
        return ("passing", Pass(), None)
    before = expected(state)
    broken = [
        e
        for e in changed
        if e.startswith("bridge ") and before.value(e) and observation.value(e) is False
    ]
    spaces = [e for e in changed if not e.startswith(("bridge ", "stone ")) and not e.endswith("^")]
    grown = [
        e
        for e in changed
        if e.endswith("^")
        and isinstance(observation.value(e), int)
        and observation.value(e) == 2
        and before.value(e) == 1
    ]
    added = [e for e in spaces if before.value(e) == EMPTY]
    covered = [
        e for e in spaces if before.value(e) != EMPTY and observation.value(e) not in (EMPTY, None)
    ]
    if covered and not added and len(spaces) == 1 and not broken:
        added = covered  # a tile put on top of another: a placement on a taken space
    colours = {observation.value(e) for e in added}
    if broken:
        a, b = (int(x) for x in broken[0][7:].split("-"))
        arrived_a = sum(1 for e in spaces if _village(e) == a)
        arrived_b = sum(1 for e in spaces if _village(e) == b)
        origin, destination = (b, a) if arrived_a > arrived_b else (a, b)
        return (
            f"a journey of the students from village {origin} to village {destination}",
            Journey(origin, destination),
            None,
        )
    if grown and not added:
        targets = tuple(sorted((_village(e), LETTERS.index(e[-2])) for e in grown))
        if len(targets) > 2:
            return ("recruiting more than two students", Recruit(targets[:2]), None)
        return ("recruiting students", Recruit(targets), None)
    if len(added) == 1 and len(spaces) == 1:
        e = added[0]
        colour = observation.value(e)
        player = rules.players.index(str(colour)) if colour in rules.players else None
        return (
            f"placing a {colour} {NAMES[LETTERS.index(e[-1])]} master in village {_village(e)}",
            Place(LETTERS.index(e[-1]), _village(e)),
            player,
        )
    if added and len(colours) == 1 and not broken:
        return (f"placing {len(added)} {colours.pop()} tiles at once", None, None)
    removed = [e for e in spaces if observation.value(e) == EMPTY]
    if removed:
        return ("taking tiles off the board", None, None)
    if any(e.startswith("stone ") for e in changed):
        return ("moving a stone", None, None)
    if any(e.startswith("bridge ") for e in changed):
        return ("putting back a bridge", None, None)
    return ("changing the tiles on the board", None, None)


def _village(element: str) -> int:
    return int(element.rstrip("^")[:-1])


class ShangrilaTable(TableModel[ShangrilaRules, ShangrilaState, Move]):
    """Shangri-La's table for the referee: few enough legal moves to compare each with
    the table, no preference among them, a move made at once."""

    game = "shangrila"

    def schema(self, rules: ShangrilaRules) -> TableSchema:
        return schema(rules)

    def expected(self, state: ShangrilaState) -> Observation:
        return expected(state)

    def transient(self, element: str) -> frozenset[Value]:
        return transient(element)

    def group(self, element: str) -> str:
        return group(element)

    def guess(
        self, state: ShangrilaState, observation: Observation, changed: list[str]
    ) -> tuple[str, Move | None, int | None]:
        return guess(state, observation, changed)

    def fix_sentences(self, changes: list[Change]) -> list[str]:
        return fix_sentences(changes)

    def describe_element(self, element: str) -> str:
        return describe_element(element)

    def hidden_parts(self) -> HiddenParts[ShangrilaState, Move]:
        return HIDDEN


TABLE = ShangrilaTable()
"""Shangri-La's table model (``engines.registry.table_model("shangrila")``)."""
