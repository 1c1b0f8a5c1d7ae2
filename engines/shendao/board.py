"""The Shendao board, loaded from ``board.json`` (editable data, RULINGS 2.1).

The printed board was lost with the rule book's picture; the data file holds the
reconstruction so that a player with the real board corrects it by editing data:

* ``gates``: each gate's name, the square a tile enters on and the direction it slides;
* ``wall_edges``: always-closed walls between two side-by-side squares;
* ``wall_points``: corners where four squares meet that a tile sliding diagonally cannot
  cross (given as the four squares around the corner);
* ``corner_connections``: pairs of diagonal neighbours whose tiles are connected.

Everything the engine needs per gate (the squares of its line, how far a tile can slide
before a wall, the gate at the far end) is worked out here once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from engines.errors import RecordError
from engines.shendao.moves import GATE_INDEX, GATES, SQUARE_INDEX, SQUARES

TILES = 30
"""Tiles per player."""

DIRECTIONS: dict[str, tuple[int, int]] = {
    "east": (1, 0),
    "west": (-1, 0),
    "north": (0, 1),
    "south": (0, -1),
    "northeast": (1, 1),
    "northwest": (-1, 1),
    "southeast": (1, -1),
    "southwest": (-1, -1),
}
"""Direction names of the data file, as (file step, rank step)."""


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


@dataclass(frozen=True)
class Gate:
    """One gate and the line behind it.

    ``line`` holds every square from the entry square to the far edge, in sliding order;
    a tile without a card can reach only ``line[:reach]`` (a wall stops it after that);
    ``far`` is the index of the gate at the far end of the line, if there is one.
    """

    name: str
    entry: int
    step: tuple[int, int]
    line: tuple[int, ...]
    reach: int
    far: int | None

    @property
    def walled(self) -> bool:
        """Whether a wall cuts the line, so that a tile can never slide off the board."""
        return self.reach < len(self.line)


@dataclass(frozen=True)
class Board:
    """Gates (in the canonical order of ``moves.GATES``), walls and corner connections."""

    gates: tuple[Gate, ...]
    wall_edges: frozenset[tuple[int, int]]
    wall_points: frozenset[int]
    corner_connections: tuple[tuple[int, int], ...]

    def blocked(self, a: int, b: int) -> bool:
        """Whether a wall stops a tile stepping between neighbouring squares ``a`` and
        ``b`` (side by side: a wall edge; diagonal: a wall point at their corner)."""
        fa, ra = a % 8, a // 8
        fb, rb = b % 8, b // 8
        if fa != fb and ra != rb:
            return min(fa, fb) + 8 * min(ra, rb) in self.wall_points
        return (min(a, b), max(a, b)) in self.wall_edges

    def gates_at(self, square: int) -> tuple[int, ...]:
        """The gates whose tiles enter on ``square``."""
        return tuple(g for g, gate in enumerate(self.gates) if gate.entry == square)

    def connections(self, walls_cut: bool) -> tuple[tuple[int, ...], ...]:
        """For each square, the squares whose tiles connect with a tile on it: side by
        side (unless ``walls_cut`` and a wall edge is between them), and the corner
        connections of the data."""
        out: list[list[int]] = [[] for _ in SQUARES]
        for s in range(64):
            f, r = s % 8, s // 8
            for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if _on_board(f + df, r + dr):
                    t = s + df + 8 * dr
                    if not (walls_cut and (min(s, t), max(s, t)) in self.wall_edges):
                        out[s].append(t)
        for a, b in self.corner_connections:
            out[a].append(b)
            out[b].append(a)
        return tuple(tuple(sorted(squares)) for squares in out)


def load_board(path: str | Path | None = None) -> Board:
    """Load board data: the packaged ``board.json`` by default.
    Raises ``RecordError`` when the file is unreadable or inconsistent."""
    try:
        if path is None:
            text = resources.files("engines.shendao").joinpath("board.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"cannot read the Shendao board data: {error}") from None
    try:
        return board_from_json(data)
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"the Shendao board data is inconsistent: {error}") from None


def _square(name: Any) -> int:
    if name not in SQUARE_INDEX:
        raise ValueError(f"unknown square {name!r} (squares are a1 to h8)")
    return SQUARE_INDEX[name]


def board_from_json(data: dict[str, Any]) -> Board:
    """The board described by a parsed data file. Raises ``ValueError``, ``KeyError`` or
    ``TypeError`` when it is inconsistent."""
    unknown = set(data) - {"about", "gates", "wall_edges", "wall_points", "corner_connections"}
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}")
    edges = set()
    for a_name, b_name in data.get("wall_edges", []):
        a, b = _square(a_name), _square(b_name)
        if abs(a % 8 - b % 8) + abs(a // 8 - b // 8) != 1:
            raise ValueError(f"wall edge {a_name}-{b_name}: the squares are not side by side")
        edges.add((min(a, b), max(a, b)))
    points = set()
    for names in data.get("wall_points", []):
        squares = sorted(_square(n) for n in names)
        low = squares[0]
        if len(squares) != 4 or low % 8 == 7 or squares != [low, low + 1, low + 8, low + 9]:
            raise ValueError(f"wall point {names}: give the four squares around one corner")
        points.add(low)
    corners = []
    for a_name, b_name in data.get("corner_connections", []):
        a, b = _square(a_name), _square(b_name)
        if abs(a % 8 - b % 8) != 1 or abs(a // 8 - b // 8) != 1:
            raise ValueError(
                f"corner connection {a_name}-{b_name}: the squares do not touch at a corner"
            )
        corners.append((a, b))
    walls = Board((), frozenset(edges), frozenset(points), tuple(corners))

    entries: dict[str, tuple[int, tuple[int, int]]] = {}
    for item in data["gates"]:
        name = item["gate"]
        if name not in GATE_INDEX:
            raise ValueError(f"unknown gate {name!r} (gates are {', '.join(GATES)})")
        if name in entries:
            raise ValueError(f"gate {name} listed twice")
        entry = _square(item["enters"])
        if item["toward"] not in DIRECTIONS:
            raise ValueError(
                f"gate {name}: unknown direction {item['toward']!r} "
                f"(directions are {', '.join(DIRECTIONS)})"
            )
        df, dr = DIRECTIONS[item["toward"]]
        if _on_board(entry % 8 - df, entry // 8 - dr):
            raise ValueError(
                f"gate {name} must stand at the edge: the square before "
                f"{item['enters']} going {item['toward']} is on the board"
            )
        entries[name] = (entry, (df, dr))
    missing = [name for name in GATES if name not in entries]
    if missing:
        raise ValueError(f"gates missing: {', '.join(missing)}")

    lines = {}
    for name, (entry, (df, dr)) in entries.items():
        line = [entry]
        while _on_board(line[-1] % 8 + df, line[-1] // 8 + dr):
            line.append(line[-1] + df + 8 * dr)
        lines[name] = line
    gates = []
    for name in GATES:
        entry, step = entries[name]
        line = lines[name]
        reach = 1
        while reach < len(line) and not walls.blocked(line[reach - 1], line[reach]):
            reach += 1
        back = (-step[0], -step[1])
        far = next(
            (GATE_INDEX[other] for other, (e, s) in entries.items() if e == line[-1] and s == back),
            None,
        )
        gates.append(Gate(name, entry, step, tuple(line), reach, far))
    return Board(tuple(gates), walls.wall_edges, walls.wall_points, walls.corner_connections)
