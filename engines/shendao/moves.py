"""Moves of Shendao and their text notation (docs/notation.md, "Shendao").

=============  ======================  ===============================================
move           notation                meaning
=============  ======================  ===============================================
Enter          ``W3``                  a tile enters through gate W3 and slides east
Enter + card   ``W3 brigand``          ... with a card that takes no argument
               ``W3 loung c3``         ... Loung, removing the tile on c3
               ``W3 nugua f3``         ... Main de Nugua, the tile stopping on f3
Pass           ``pass``                no tile can enter
=============  ======================  ===============================================

Squares are ``a1`` to ``h8`` (files a-h, ranks 1-8), indexed ``file + 8 * rank``
(``a1`` = 0, ``h1`` = 7, ``h8`` = 63). The 36 gates are named by the side of the board
they stand on: ``W1``-``W8`` and ``E1``-``E8`` at the west and east ends of the ranks,
``Sa``-``Sh`` and ``Na``-``Nh`` at the south and north ends of the files, and ``SW``,
``SE``, ``NW``, ``NE`` at the corners, on the long diagonals. Gate names are
case-sensitive where it matters (``Se`` is the south end of file e, ``SE`` the diagonal
gate at h1); cards and squares may be written in any case.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.errors import NotationError

FILES = "abcdefgh"
SQUARES: tuple[str, ...] = tuple(f + str(r) for r in range(1, 9) for f in FILES)
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARES)}

GATES: tuple[str, ...] = (
    *(f"W{r}" for r in range(1, 9)),
    *(f"E{r}" for r in range(1, 9)),
    *(f"S{f}" for f in FILES),
    *(f"N{f}" for f in FILES),
    "SW",
    "SE",
    "NW",
    "NE",
)
"""The 36 gates in canonical order (the order of ``legal_moves``)."""
GATE_INDEX: dict[str, int] = {name: i for i, name in enumerate(GATES)}

CARDS: tuple[str, ...] = ("brigand", "loung", "nugua", "pretresse", "tigre", "yinyang")
"""The six cards as written in moves; bit ``i`` of a card mask is ``CARDS[i]``."""
CARD_NAMES: dict[str, str] = {
    "brigand": "Brigand",
    "loung": "Loung",
    "nugua": "Main de Nugua",
    "pretresse": "Prêtresse de Sichuan",
    "tigre": "Tigre Blanc",
    "yinyang": "Yin-Yang",
}
"""The cards' printed names, for sentences."""
CARD_BIT: dict[str, int] = {card: 1 << i for i, card in enumerate(CARDS)}
TARGETED = frozenset({"loung", "nugua"})
"""The cards whose move names a square: Loung (the tile removed), Nugua (where it stops)."""


@dataclass(frozen=True, slots=True)
class Enter:
    """Enter a tile through ``gate``, optionally playing ``card``.

    ``target`` is the square that Loung empties or where Main de Nugua stops the tile;
    it is given exactly for those two cards. Raises ``ValueError`` for an unknown gate,
    card or square, or a target that does not suit the card.
    """

    gate: str
    card: str | None = None
    target: str | None = None

    def __post_init__(self) -> None:
        if self.gate not in GATE_INDEX:
            raise ValueError(f"unknown gate {self.gate!r}")
        if self.card is not None and self.card not in CARD_BIT:
            raise ValueError(f"unknown card {self.card!r}")
        if (self.card in TARGETED) != (self.target is not None):
            raise ValueError(f"{self.card or 'no card'} does not fit target {self.target!r}")
        if self.target is not None and self.target not in SQUARE_INDEX:
            raise ValueError(f"unknown square {self.target!r}")


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: allowed only when the player can enter no tile at all."""


Move = Enter | Pass

_LOWER_GATES: dict[str, list[str]] = {}
for _name in GATES:
    _LOWER_GATES.setdefault(_name.lower(), []).append(_name)


def _gate(text: str, word: str) -> str:
    if word in GATE_INDEX:
        return word
    matches = _LOWER_GATES.get(word.lower(), [])
    if len(matches) == 1:
        return matches[0]
    if matches:
        side, corner = ("south", "h1") if matches[0][0] == "S" else ("north", "h8")
        raise NotationError(
            text,
            f"{word!r} could be gate {matches[0]}, at the {side} end of file e, or "
            f"gate {matches[1]}, the diagonal gate at {corner}: write the gate with its "
            "capitals",
        )
    raise NotationError(
        text, f"unknown gate {word!r} (gates are W1-W8, E1-E8, Sa-Sh, Na-Nh, SW, SE, NW, NE)"
    )


def _square(text: str, word: str) -> str:
    square = word.lower()
    if square not in SQUARE_INDEX:
        raise NotationError(text, f"unknown square {word!r} (squares are a1 to h8)")
    return square


def parse_move(text: str) -> Move:
    """Read a move: ``pass``, or a gate then an optional card and its square.
    Spaces between the words are required; extra spaces do not matter.
    Raises ``NotationError``."""
    words = text.split()
    if len(words) == 1 and words[0].lower() == "pass":
        return Pass()
    if sum(w.lower() in CARD_BIT for w in words) > 1:
        raise NotationError(text, "one card a turn at most")
    if not 1 <= len(words) <= 3:
        raise NotationError(
            text,
            "expected a gate (W3), a gate and a card (W3 tigre), a gate, loung or "
            "nugua and a square (W3 loung c3), or pass",
        )
    gate = _gate(text, words[0])
    if len(words) == 1:
        return Enter(gate)
    card = words[1].lower()
    if card not in CARD_BIT:
        if card in _LOWER_GATES:
            raise NotationError(text, "a move enters one tile through one gate")
        raise NotationError(text, f"unknown card {words[1]!r} (cards are {', '.join(CARDS)})")
    if card in TARGETED:
        if len(words) != 3:
            what = "the tile it removes" if card == "loung" else "where the tile stops"
            raise NotationError(
                text, f"{CARD_NAMES[card]} needs a square, {what} (as in W3 {card} c3)"
            )
        return Enter(gate, card, _square(text, words[2]))
    if len(words) == 3:
        raise NotationError(text, f"the {CARD_NAMES[card]} takes no square")
    return Enter(gate, card)


def format_move(move: Move) -> str:
    """The canonical text of ``move``."""
    match move:
        case Enter(gate, None, None):
            return gate
        case Enter(gate, card, None):
            return f"{gate} {card}"
        case Enter(gate, card, target):
            return f"{gate} {card} {target}"
        case Pass():
            return "pass"
    raise TypeError(f"not a Shendao move: {move!r}")
