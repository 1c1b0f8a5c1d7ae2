"""Answering the referee's question by tapping the board.

The referee asks which of a few moves was played. Each candidate move changes some
elements of the table (the table model's expected table before and after it, as the
engines define it; the referee's question names them, and for a question without them
they are worked out from the position): the master that got a student, the square a
tile stopped on. Those
elements, less the ones every candidate changes, are what the player taps. Candidates
that the board cannot tell apart (two Shendao cards that leave the same table) get a
chip each, named by the card, drawn below the board.

A tap selects an element; the question is answered as soon as one candidate is left,
or, when a candidate is exactly the elements selected, by tapping one of them again
(a recruit of one student rather than two). No Kivy here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engines.registry import table_model
from engines.shendao.moves import CARD_NAMES

HEIGHT_SUFFIX = "^"
"""A stack height's element (``4H^``) is tapped on its space (``4H``)."""
CHIP_PREFIX = "chip "
"""Targets that are not on the board: drawn as labelled chips below it."""


@dataclass(frozen=True)
class Candidate:
    move: str
    targets: frozenset[str]


def changed_elements(game: str, rules: Any, state: Any, move: str) -> frozenset[str]:
    """The board elements ``move`` (notation) changes from ``state``, by the table
    model's expected table; a stack height counts as its space. Raises
    ``IllegalMoveError`` for a move ``state`` does not allow."""
    model = table_model(game)
    before = model.expected(state)
    after_state = state.copy()
    after_state.play(rules.parse_move(move))
    after = model.expected(after_state)
    return frozenset(
        e.removesuffix(HEIGHT_SUFFIX) for e in before if before.value(e) != after.value(e)
    )


def card_name(rules: Any, move: str) -> str:
    """The printed name of the card a Shendao move plays ('' for none or another game)."""
    return printed_card(str(getattr(rules.parse_move(move), "card", None) or ""))


def printed_card(card: str) -> str:
    """A Shendao card as printed on it (``loung``: Loung); '' for no card."""
    if not card:
        return ""

    return CARD_NAMES.get(card, card)


def candidates(
    changes: Sequence[tuple[str, frozenset[str]]], chip_words: Callable[[str], str]
) -> tuple[tuple[Candidate, ...], dict[str, str]]:
    """The candidates with their tap targets from (move, elements it changes), and the
    chips (target -> words) for those the board cannot tell apart. ``chip_words`` names
    a move on its chip."""
    sets = [set(c) for _, c in changes]
    common = set.intersection(*sets) if len(sets) > 1 else set()
    trimmed = [frozenset(s - common) for s in sets]
    chips: dict[str, str] = {}
    out = []
    for (move, _), targets in zip(changes, trimmed, strict=True):
        if not targets or trimmed.count(targets) > 1:
            name = CHIP_PREFIX + move
            chips[name] = chip_words(move)
            targets = targets | {name}
        out.append(Candidate(move, targets))
    # A chip is the whole answer: the elements shared with other candidates go.
    out = [
        Candidate(c.move, frozenset(t for t in c.targets if t.startswith(CHIP_PREFIX)))
        if any(t.startswith(CHIP_PREFIX) for t in c.targets)
        else c
        for c in out
    ]
    return tuple(out), chips


class TapAnswer:
    """A question answered by taps (see the module's docstring)."""

    def __init__(self, choices: Sequence[Candidate], chips: dict[str, str]) -> None:
        self.choices = tuple(choices)
        self.chips = dict(chips)
        self.selected: frozenset[str] = frozenset()

    @classmethod
    def for_question(
        cls, game: str, rules: Any, state: Any, moves: Sequence[str], words: Callable[[str], str]
    ) -> TapAnswer:
        """The taps that answer a question over ``moves`` asked in ``state``; ``words``
        says a move in words (for a chip with no card to name). Raises
        ``IllegalMoveError`` when a move is not legal in ``state`` (a question about an
        earlier move: the buttons answer it)."""
        changes = [(m, changed_elements(game, rules, state, m)) for m in moves]
        choices, chips = candidates(changes, lambda m: card_name(rules, m) or words(m))
        return cls(choices, chips)

    @classmethod
    def from_elements(
        cls, given: Sequence[tuple[str, Sequence[str], str]], words: Callable[[str], str]
    ) -> TapAnswer:
        """The taps that answer a question whose moves come with the elements each
        changes and the card each plays, as the referee gives them: (move, elements,
        card); ``words`` says a move in words (for a chip with no card to name)."""
        changes = [
            (m, frozenset(e.removesuffix(HEIGHT_SUFFIX) for e in elements))
            for m, elements, _ in given
        ]
        cards = {m: printed_card(card) for m, _, card in given}
        choices, chips = candidates(changes, lambda m: cards[m] or words(m))
        return cls(choices, chips)

    def open(self) -> tuple[Candidate, ...]:
        """The candidates that still fit what is selected."""
        return tuple(c for c in self.choices if self.selected <= c.targets)

    def tappable(self) -> frozenset[str]:
        """Every element a tap can select now, and those selected."""
        return frozenset().union(*(c.targets for c in self.open()))

    def tap(self, element: str) -> str | None:
        """Select ``element`` (or, tapped again, finish with it or let it go): the move
        answered, or None while more taps are needed."""
        if element in self.selected:
            exact = [c for c in self.open() if c.targets == self.selected]
            if exact:
                return exact[0].move
            self.selected -= {element}
            return None
        if element not in self.tappable():
            return None
        self.selected |= {element}
        left = self.open()
        return left[0].move if len(left) == 1 else None
