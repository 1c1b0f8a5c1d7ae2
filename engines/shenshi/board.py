"""The ShenShi board: squares, geometry and the parts of the set.

The temple hall is 7x7 squares named a1-g7 (file a-g, rank 1-7). Inside the engine a
square is an int ``row * 7 + col`` in the coordinates of RULINGS 3.1: row 0 is the top
row (rank 7), col 0 the left file (a). ``square_name`` and ``parse_square`` convert.

What RULINGS reconstructed (the marked squares, the starting cushions and neutral monks,
the parts counts) is data in ``board.json``, loaded by ``load_board``. The random setup
draws 8 of the 12 tiles onto the marked squares; ``Board.draw_layout`` does it with a
small self-contained generator (SplitMix64), so a seed gives the same layout on every
machine and with every version of Python or numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from engines.errors import RecordError

SIZE = 7
N_SQUARES = SIZE * SIZE
FILES = "abcdefg"

# What a square holds underneath any cushion: nothing, or a mandala tile.
NO_TILE, INTACT, FADED = 0, 1, 2
# Cushion colours (0: no cushion).
NO_CUSHION, BLOND, ORANGE = 0, 1, 2
CUSHION_NAMES = ("", "blond", "orange")
TILE_NAMES = ("", "intact", "faded")

# Layout letters, one per marked square: Intact mandala, Faded mandala, Blond cushion
# tile, Orange cushion tile.
LAYOUT_LETTERS = "IFBO"

# Directions, in the order moves are generated: up (towards rank 7), right, down, left.
DIRECTIONS = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIRECTION_NAMES = ("up", "right", "down", "left")


def square_name(square: int) -> str:
    """``"c5"`` for a square index."""
    row, col = divmod(square, SIZE)
    return f"{FILES[col]}{SIZE - row}"


def parse_square(text: str) -> int | None:
    """The index of a square written ``a1``-``g7`` (any case), or None."""
    if len(text) != 2:
        return None
    col = FILES.find(text[0].lower())
    if col < 0 or not text[1].isdigit():
        return None
    rank = int(text[1])
    if not 1 <= rank <= SIZE:
        return None
    return (SIZE - rank) * SIZE + col


def _step(square: int, direction: int) -> int | None:
    row, col = divmod(square, SIZE)
    dr, dc = DIRECTIONS[direction]
    row, col = row + dr, col + dc
    if 0 <= row < SIZE and 0 <= col < SIZE:
        return row * SIZE + col
    return None


def _ray(square: int, direction: int) -> tuple[int, ...]:
    out = []
    nxt = _step(square, direction)
    while nxt is not None:
        out.append(nxt)
        nxt = _step(nxt, direction)
    return tuple(out)


def _cycle(square: int, direction: int) -> tuple[int, ...]:
    """The 6 other squares of the row or column, in the order an orange cushion meets
    them going ``direction`` and crossing the edge, followed by ``square`` itself."""
    row, col = divmod(square, SIZE)
    dr, dc = DIRECTIONS[direction]
    out = []
    for k in range(1, SIZE + 1):
        out.append(((row + dr * k) % SIZE) * SIZE + (col + dc * k) % SIZE)
    return tuple(out)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(s for d in range(4) if (s := _step(sq, d)) is not None) for sq in range(N_SQUARES)
)
"""Orthogonal neighbours of each square (up, right, down, left; off-board ones left out)."""

RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_ray(sq, d) for d in range(4)) for sq in range(N_SQUARES)
)
"""``RAYS[square][direction]``: the squares from ``square`` to the edge, nearest first."""

CYCLES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_cycle(sq, d) for d in range(4)) for sq in range(N_SQUARES)
)
"""``CYCLES[square][direction]``: the line around the edge, ``square`` last (7 squares)."""

PERPENDICULAR = ((1, 3), (0, 2), (1, 3), (0, 2))


def between(a: int, b: int) -> tuple[int, ...] | None:
    """The squares strictly between ``a`` and ``b`` when they share a row or a column
    (empty when they are neighbours); None when they do not."""
    ra, ca = divmod(a, SIZE)
    rb, cb = divmod(b, SIZE)
    if a == b or (ra != rb and ca != cb):
        return None
    if ra == rb:
        lo, hi = sorted((ca, cb))
        return tuple(ra * SIZE + c for c in range(lo + 1, hi))
    lo, hi = sorted((ra, rb))
    return tuple(r * SIZE + ca for r in range(lo + 1, hi))


BETWEEN: tuple[tuple[tuple[int, ...] | None, ...], ...] = tuple(
    tuple(between(a, b) for b in range(N_SQUARES)) for a in range(N_SQUARES)
)
"""``BETWEEN[a][b]``: ``between(a, b)`` for every pair of squares."""


@dataclass(frozen=True)
class Board:
    """The parts of the set and where they start (``board.json``)."""

    marked: tuple[int, ...]
    """The 8 marked squares that receive the drawn tiles, in layout order."""
    tile_counts: tuple[int, int, int, int]
    """How many tiles of each kind the set holds: intact, faded, blond, orange cushion."""
    start_cushions: tuple[tuple[int, int], ...]
    """(square, colour) of the cushions set out before the tiles are revealed."""
    neutral_squares: tuple[int, int]
    """Where the black Grand Master and master start when they are neutral."""
    reserve: tuple[int, int]
    """Each player's cushions in reserve at the start: blond, orange."""
    cushions: tuple[int, int]
    """Cushions in the set: blond, orange."""
    tokens_total: int
    tokens_start: int
    goal: int

    @property
    def bag(self) -> str:
        """The 12 tiles as layout letters, in a fixed order (the shuffle's input)."""
        return "".join(
            letter * count for letter, count in zip(LAYOUT_LETTERS, self.tile_counts, strict=True)
        )

    def draw_layout(self, seed: int) -> str:
        """The tiles drawn onto the marked squares with ``seed``: a shuffle of the bag
        (Fisher-Yates on SplitMix64), its first tiles in marked-square order."""
        tiles = list(self.bag)
        state = seed & _MASK
        for i in range(len(tiles) - 1, 0, -1):
            state, value = _splitmix64(state)
            j = value % (i + 1)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        return "".join(tiles[: len(self.marked)])

    def check_layout(self, layout: str) -> None:
        """Raise ``RecordError`` unless ``layout`` names one tile per marked square, no
        more of each kind than the set holds."""
        squares = " ".join(square_name(s) for s in self.marked)
        if len(layout) != len(self.marked) or any(c not in LAYOUT_LETTERS for c in layout):
            raise RecordError(
                f"a layout is {len(self.marked)} letters, one per marked square ({squares}), "
                f"each I (intact mandala), F (faded mandala), B (blond cushion) or O (orange "
                f"cushion); not {layout!r}"
            )
        for letter, count in zip(LAYOUT_LETTERS, self.tile_counts, strict=True):
            if layout.count(letter) > count:
                raise RecordError(
                    f"layout {layout!r} has {layout.count(letter)} {letter} tiles; the set "
                    f"has {count}"
                )


_MASK = (1 << 64) - 1


def _splitmix64(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def load_board(path: str | Path | None = None) -> Board:
    """Load board data: the packaged ``board.json`` by default.
    Raises ``RecordError`` when the file is unreadable or inconsistent."""
    try:
        if path is None:
            text = resources.files("engines.shenshi").joinpath("board.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as error:
        raise RecordError(f"cannot read the ShenShi board data: {error}") from None
    try:
        return _board_from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise RecordError(f"the ShenShi board data is inconsistent: {error}") from None


def _square(text: Any) -> int:
    square = parse_square(str(text))
    if square is None:
        raise ValueError(f"{text!r} is not a square a1-g7")
    return square


def _board_from_json(data: dict[str, Any]) -> Board:
    if data["size"] != SIZE:
        raise ValueError(f"the board is {SIZE}x{SIZE} squares (notation a1-g7)")
    marked = tuple(_square(s) for s in data["marked_squares"])
    if len(set(marked)) != len(marked):
        raise ValueError("a marked square is listed twice")
    tiles = data["tiles"]
    counts = (int(tiles["intact"]), int(tiles["faded"]), int(tiles["blond"]), int(tiles["orange"]))
    if sum(counts) < len(marked) or min(counts) < 0:
        raise ValueError("there must be at least one tile per marked square")
    start = tuple(
        sorted(
            (_square(s), CUSHION_NAMES.index(colour))
            for s, colour in data["start_cushions"].items()
        )
    )
    if any(c == NO_CUSHION for _, c in start):
        raise ValueError("start cushions are blond or orange")
    if {s for s, _ in start} & set(marked):
        raise ValueError("a start cushion lies on a marked square")
    neutral = (_square(data["neutral_monks"]["G"]), _square(data["neutral_monks"]["M"]))
    if neutral[0] == neutral[1] or not set(neutral) <= {s for s, _ in start}:
        raise ValueError("the neutral monks start on two different start cushions")
    reserve = (int(data["reserve"]["blond"]), int(data["reserve"]["orange"]))
    cushions = (int(data["cushions"]["blond"]), int(data["cushions"]["orange"]))
    tokens = data["path_tokens"]
    total, first, goal = int(tokens["total"]), int(tokens["start"]), int(tokens["goal"])
    if not 0 <= first < goal or 4 * first > total:
        raise ValueError("path tokens: start < goal, and 4 players' tokens within the total")
    blond_start = sum(1 for _, c in start if c == BLOND) + counts[2] + 4 * reserve[0]
    orange_start = sum(1 for _, c in start if c == ORANGE) + counts[3] + 4 * reserve[1]
    if blond_start > cushions[0] or orange_start > cushions[1]:
        raise ValueError("the set has too few cushions for a 4-player setup")
    return Board(marked, counts, start, neutral, reserve, cushions, total, first, goal)
