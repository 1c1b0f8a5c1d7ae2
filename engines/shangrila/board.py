"""The Shangri-La board, loaded from ``board.json`` (editable data, RULINGS 1.1-1.4)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from engines.errors import RecordError
from engines.shangrila.moves import LETTERS, N_VILLAGES

COLOURS = ("red", "blue", "yellow", "violet")

N_DISCIPLINES = 7
TILES_PER_DISCIPLINE = 6
"""Symbol tiles of each discipline in each player's supply."""


@dataclass(frozen=True)
class Village:
    id: int
    x: float
    y: float
    red: bool = False


@dataclass(frozen=True)
class SuggestedSetup:
    """A printed starting position: ``masters[village][discipline] = colour``."""

    colours: tuple[str, ...]
    masters: tuple[tuple[int, int, str], ...]  # (village, discipline, colour)


@dataclass(frozen=True)
class Board:
    """Villages, bridges and symbol spaces. Bridges are numbered in file order."""

    villages: tuple[Village, ...]
    bridges: tuple[tuple[int, int], ...]
    space_rows: tuple[tuple[int, ...], ...]
    suggested: dict[int, SuggestedSetup]

    @property
    def red_village(self) -> int:
        return next(v.id for v in self.villages if v.red)

    def bridge_between(self, a: int, b: int) -> int | None:
        """The index of the bridge joining villages ``a`` and ``b``, if any."""
        for i, (x, y) in enumerate(self.bridges):
            if (x, y) in ((a, b), (b, a)):
                return i
        return None

    def neighbours(self, village: int) -> list[int]:
        out = [b if a == village else a for a, b in self.bridges if village in (a, b)]
        return sorted(out)


def load_board(path: str | Path | None = None) -> Board:
    """Load board data: the packaged ``board.json`` by default.
    Raises ``RecordError`` when the file is unreadable or inconsistent."""
    try:
        if path is None:
            text = resources.files("engines.shangrila").joinpath("board.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as error:
        raise RecordError(f"cannot read the Shangri-La board data: {error}") from None
    try:
        return _board_from_json(data)
    except (KeyError, TypeError, ValueError) as error:
        raise RecordError(f"the Shangri-La board data is inconsistent: {error}") from None


def _board_from_json(data: dict[str, Any]) -> Board:
    letters = "".join(d["letter"] for d in data["disciplines"])
    if letters != LETTERS:
        raise ValueError(f"disciplines must be {LETTERS} in that order, not {letters}")
    villages = tuple(
        Village(int(v["id"]), float(v["x"]), float(v["y"]), bool(v.get("red", False)))
        for v in data["villages"]
    )
    if [v.id for v in villages] != list(range(N_VILLAGES)):
        raise ValueError(f"villages must be numbered 0 to {N_VILLAGES - 1} in order")
    if sum(v.red for v in villages) != 1:
        raise ValueError("exactly one village must be the red village")
    bridges = tuple((int(a), int(b)) for a, b in data["bridges"])
    seen = set()
    for a, b in bridges:
        if not (0 <= a < N_VILLAGES and 0 <= b < N_VILLAGES) or a == b:
            raise ValueError(f"bad bridge {a}-{b}")
        key = (min(a, b), max(a, b))
        if key in seen:
            raise ValueError(f"bridge {a}-{b} listed twice")
        seen.add(key)
    rows = tuple(tuple(LETTERS.index(c) for c in row) for row in data["space_rows"])
    if sorted(i for row in rows for i in row) != list(range(len(LETTERS))):
        raise ValueError("space_rows must hold each discipline once")
    suggested = {}
    for n, card in data.get("suggested_setup", {}).items():
        masters = tuple(
            (int(v), LETTERS.index(letter), colour)
            for v, spaces in card["masters"].items()
            for letter, colour in spaces.items()
        )
        suggested[int(n)] = SuggestedSetup(tuple(card["colours"]), masters)
    return Board(villages, bridges, rows, suggested)
