"""Moves of The Bridges of Shangri-La and their text notation (docs/notation.md).

=============  =====================  ==========================================
move           notation               meaning
=============  =====================  ==========================================
Place          ``H@4``                a Healer master onto village 4
Recruit        ``+H4`` / ``+H4+F7``   one or two students onto own masters
Journey        ``4>7``                the students of village 4 cross to village 7
Pass           ``pass``               no action is possible
=============  =====================  ==========================================

Villages are 0-12; disciplines are the letters R P Y A D H F (Rainmaker, Priest,
Yeti-whisperer, Astrologer, Dragonbreeder, Healer, Firekeeper), indexed 0-6 in that
order. A recruit's targets are kept in canonical order (village, then discipline), so
``+F7+H4`` and ``+H4+F7`` are the same move and format as the latter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engines.errors import NotationError

LETTERS = "RPYADHF"
NAMES = (
    "Rainmaker",
    "Priest",
    "Yeti-whisperer",
    "Astrologer",
    "Dragonbreeder",
    "Healer",
    "Firekeeper",
)
N_VILLAGES = 13


@dataclass(frozen=True, slots=True)
class Place:
    """Place a master of ``discipline`` (0-6) on its space in ``village``."""

    discipline: int
    village: int


@dataclass(frozen=True, slots=True)
class Recruit:
    """Put one or two students on the player's own masters.

    ``targets`` holds (village, discipline) pairs; it is sorted on construction.
    """

    targets: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if len(self.targets) == 2 and self.targets[0] > self.targets[1]:
            object.__setattr__(self, "targets", (self.targets[1], self.targets[0]))


@dataclass(frozen=True, slots=True)
class Journey:
    """Send every student of ``origin`` over the bridge to ``destination``."""

    origin: int
    destination: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: allowed only when the player has no legal action."""


Move = Place | Recruit | Journey | Pass

_PLACE = re.compile(r"([A-Z])@(\d+)")
_RECRUIT = re.compile(r"(?:\+[A-Z]\d+){1,2}")
_TARGET = re.compile(r"\+([A-Z])(\d+)")
_JOURNEY = re.compile(r"(\d+)>(\d+)")


def _discipline(text: str, letter: str) -> int:
    index = LETTERS.find(letter)
    if index < 0:
        raise NotationError(text, f"unknown discipline {letter!r} (use one of {' '.join(LETTERS)})")
    return index


def _village(text: str, digits: str) -> int:
    village = int(digits)
    if village >= N_VILLAGES or (len(digits) > 1 and digits[0] == "0"):
        raise NotationError(text, f"unknown village {digits!r} (villages are 0 to 12)")
    return village


def parse_move(text: str) -> Move:
    """Read a move. Case and spaces do not matter. Raises ``NotationError``."""
    compact = "".join(text.split()).upper()
    if compact == "PASS":
        return Pass()
    if m := _PLACE.fullmatch(compact):
        return Place(_discipline(text, m[1]), _village(text, m[2]))
    if _RECRUIT.fullmatch(compact):
        targets = tuple(
            (_village(text, v), _discipline(text, d)) for d, v in _TARGET.findall(compact)
        )
        return Recruit(targets)
    if m := _JOURNEY.fullmatch(compact):
        return Journey(_village(text, m[1]), _village(text, m[2]))
    raise NotationError(
        text,
        "expected a placement like H@4, a recruit like +H4 or +H4+F7, a journey like 4>7, or pass",
    )


def format_move(move: Move) -> str:
    """The canonical text of ``move``."""
    match move:
        case Place(d, v):
            return f"{LETTERS[d]}@{v}"
        case Recruit(targets):
            return "".join(f"+{LETTERS[d]}{v}" for v, d in targets)
        case Journey(a, b):
            return f"{a}>{b}"
        case Pass():
            return "pass"
    raise TypeError(f"not a Shangri-La move: {move!r}")
