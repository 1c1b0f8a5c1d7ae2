"""Moves of ShenShi and their text notation (docs/notation.md, "ShenShi").

A player's turn is one move, ``Turn``: up to three actions separated by spaces.

==========  ======================  ===================================================
action      notation                meaning
==========  ======================  ===================================================
Walk        ``Gc3-c4``              the Grand Master walks from c3 to c4
            ``Gc3-c5``              ... two squares straight on (over c4)
            ``Mc3-c4-d4``           ... two squares with a turn: every square named
Hover       ``NMe3~e6``             the neutral master hovers on its cushion to e6
            ``Gc7~g7(d7>a1)``       ... on an orange cushion, lifting the blond cushion
                                    of d7 and putting it down on a1
Enter       ``G@d4:b``              the Grand Master enters on d4 on a blond (``b``) or
            ``M@d4:e5``             orange (``o``) reserve cushion, or on the free
                                    cushion taken from e5
Swap        ``Gc3=c6``              the Grand Master on c3 and the other monk of its
                                    colour on c6 swap squares; the swap counts as the
                                    Grand Master's walk
==========  ======================  ===================================================

Monks are named for the player to move: ``G`` and ``M`` are their own Grand Master and
master, ``NG`` and ``NM`` the neutral (black) ones in a 2- or 3-player game. Other moves:
``give e5`` (expert variant: the opponent chooses the free cushion a player without
cushions enters on) and ``pass`` (only when no turn is possible). Case does not matter
when reading; the canonical text uses capital monk letters and small squares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from engines.errors import NotationError
from engines.shenshi.board import SIZE, square_name

OWN_G, OWN_M, NEUTRAL_G, NEUTRAL_M = 0, 1, 2, 3
MONK_LETTERS = ("G", "M", "NG", "NM")
RESERVE_BLOND, RESERVE_ORANGE = -1, -2
"""``Enter.cushion`` for a cushion from the player's reserve; a square otherwise."""


def _straight_middle(a: int, b: int) -> int | None:
    """The square between ``a`` and ``b`` when they are two squares apart on a line."""
    ra, ca = divmod(a, SIZE)
    rb, cb = divmod(b, SIZE)
    if (ra == rb and abs(ca - cb) == 2) or (ca == cb and abs(ra - rb) == 2):
        return (a + b) // 2
    return None


@dataclass(frozen=True, slots=True)
class Walk:
    """A walk of one or two squares. ``path`` starts on the monk's square and names
    every square stepped on; a straight two-square walk may be given by its two ends."""

    monk: int
    path: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.path) == 2:
            middle = _straight_middle(*self.path)
            if middle is not None:
                object.__setattr__(self, "path", (self.path[0], middle, self.path[1]))


@dataclass(frozen=True, slots=True)
class Hover:
    """The monk on ``start`` hovers with its cushion to ``end``. ``lifts``: the
    (square, square) of each free blond cushion an orange cushion lifts on its way and
    where the player puts it down, in the order they happen."""

    monk: int
    start: int
    end: int
    lifts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Enter:
    """Own monk ``monk`` (``OWN_G`` or ``OWN_M``) enters on ``square``, on a cushion
    from the reserve (``RESERVE_BLOND``/``RESERVE_ORANGE``) or taken from the square
    ``cushion`` of the board."""

    monk: int
    square: int
    cushion: int


@dataclass(frozen=True, slots=True)
class Swap:
    """The monk on ``start`` swaps squares with the other monk of its colour, on
    ``other``; the swap is this monk's walk."""

    monk: int
    start: int
    other: int


Action = Walk | Hover | Enter | Swap


@dataclass(frozen=True, slots=True)
class Turn:
    """A player's turn: its actions in order."""

    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class Give:
    """Expert variant: the opponent chooses the free cushion on ``square`` for the entry
    of a player who has no cushion left in reserve."""

    square: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: allowed only when no turn is possible."""


Move = Turn | Give | Pass

_SQ = r"[a-g][1-7]"
_MONK = r"(n?[gm])"
_WALK = re.compile(rf"{_MONK}({_SQ}(?:-{_SQ})+)")
_HOVER = re.compile(rf"{_MONK}({_SQ})~({_SQ})(?:\(({_SQ}>{_SQ}(?:,{_SQ}>{_SQ})*)\))?")
_ENTER = re.compile(rf"([gm])@({_SQ}):({_SQ}|[bo])")
_SWAP = re.compile(rf"{_MONK}({_SQ})=({_SQ})")

_EXPECTED = (
    "expected actions separated by spaces: a walk like Gc3-c4 or Mc3-c4-d4, a hover like "
    "NMe3~e6 or Gc7~g7(d7>a1), an entry like G@d4:b, G@d4:o or G@d4:e5, a swap like Gc3=c6; "
    "or give e5, or pass"
)


_SQUARE_OF = {square_name(s): s for s in range(SIZE * SIZE)}
_sq = _SQUARE_OF.__getitem__  # the regular expressions only let squares through
_MONK_OF = {letters.lower(): code for code, letters in enumerate(MONK_LETTERS)}
_monk = _MONK_OF.__getitem__


# Actions already read, by text: a position can have a million legal turns made of far
# fewer distinct actions. Cleared when it grows past ``_CACHE_LIMIT``.
_ACTION_OF: dict[str, Action] = {}
_CACHE_LIMIT = 200_000


def parse_action(text: str) -> Action:
    """Read one action. Raises ``NotationError``."""
    action = _ACTION_OF.get(text)
    if action is None:
        action = _parse_action(text)
        if len(_ACTION_OF) >= _CACHE_LIMIT:
            _ACTION_OF.clear()
        _ACTION_OF[text] = action
    return action


def _parse_action(text: str) -> Action:
    low = text.lower()
    if m := _WALK.fullmatch(low):
        return Walk(_monk(m[1]), tuple(map(_sq, m[2].split("-"))))
    if m := _HOVER.fullmatch(low):
        lifts: tuple[tuple[int, int], ...] = ()
        if m[4]:
            lifts = tuple(
                (_sq(a), _sq(b)) for a, b in (pair.split(">") for pair in m[4].split(","))
            )
        return Hover(_monk(m[1]), _sq(m[2]), _sq(m[3]), lifts)
    if m := _ENTER.fullmatch(low):
        source = m[3]
        cushion = (
            RESERVE_BLOND if source == "b" else RESERVE_ORANGE if source == "o" else _sq(source)
        )
        return Enter(_monk(m[1]), _sq(m[2]), cushion)
    if m := _SWAP.fullmatch(low):
        return Swap(_monk(m[1]), _sq(m[2]), _sq(m[3]))
    if low.startswith("n") and "@" in low:
        raise NotationError(
            text,
            "only a player's own monks enter (G@... or M@...); the "
            "neutral monks never leave the board",
        )
    raise NotationError(text, _EXPECTED)


def parse_move(text: str) -> Move:
    """Read a move. Case and extra spaces do not matter. Raises ``NotationError``."""
    words = text.split()
    known = [_ACTION_OF.get(word) for word in words]
    if words and None not in known:  # every action met before: the common case
        return Turn(tuple(cast(list[Action], known)))
    if not words:
        raise NotationError(text, _EXPECTED)
    first = words[0].lower()
    if first == "pass" and len(words) == 1:
        return Pass()
    if first == "give":
        square = _SQUARE_OF.get(words[1].lower()) if len(words) == 2 else None
        if square is None:
            raise NotationError(text, "a cushion choice is give and a square, like give e5")
        return Give(square)
    try:
        return Turn(tuple(map(parse_action, words)))
    except NotationError as error:
        raise NotationError(text, f"{error.text!r}: {error.reason}") from None


_NAMES = tuple(square_name(s) for s in range(SIZE * SIZE))


def format_action(action: Action) -> str:
    """The canonical text of one action."""
    names = _NAMES
    if type(action) is Hover:
        text = f"{MONK_LETTERS[action.monk]}{names[action.start]}~{names[action.end]}"
        lifts = action.lifts
        if len(lifts) == 1:
            ((lifted, put),) = lifts
            return f"{text}({names[lifted]}>{names[put]})"
        if lifts:
            return text + "(" + ",".join(f"{names[a]}>{names[b]}" for a, b in lifts) + ")"
        return text
    if type(action) is Walk:
        path = action.path
        if len(path) == 2:
            return f"{MONK_LETTERS[action.monk]}{names[path[0]]}-{names[path[1]]}"
        if len(path) == 3:
            if _straight_middle(path[0], path[2]) == path[1]:
                return f"{MONK_LETTERS[action.monk]}{names[path[0]]}-{names[path[2]]}"
            return f"{MONK_LETTERS[action.monk]}{names[path[0]]}-{names[path[1]]}-{names[path[2]]}"
        return MONK_LETTERS[action.monk] + "-".join(names[s] for s in path)
    if type(action) is Enter:
        cushion = action.cushion
        source = (
            "b"
            if cushion == RESERVE_BLOND
            else "o"
            if cushion == RESERVE_ORANGE
            else names[cushion]
        )
        return f"{MONK_LETTERS[action.monk]}@{names[action.square]}:{source}"
    if type(action) is Swap:
        return f"{MONK_LETTERS[action.monk]}{names[action.start]}={names[action.other]}"
    raise TypeError(f"not a ShenShi action: {action!r}")


def format_move(move: Move) -> str:
    """The canonical text of ``move``."""
    if type(move) is Turn:
        return " ".join(map(format_action, move.actions))
    match move:
        case Give(square):
            return f"give {square_name(square)}"
        case Pass():
            return "pass"
    raise TypeError(f"not a ShenShi move: {move!r}")
