"""The referee's belief: the other histories of the game that explain every table seen as
well as the record does, kept until the table tells them apart.

When several legal moves fit the table (a student recruited onto a master seen from
above: which master? two Shendao cards with the same effect: which card?), the referee
accepts the likeliest into the record and keeps the others, each as a ``History``: the
whole game with that move instead, the position it reaches and its weight, the log of
how likely the readings are in it against the record (``Weigher``: the readings'
chances and unsure readings). Every move accepted later is played in each history; a
history in which it is illegal, or whose table a sure reading contradicts, is dropped,
and so is one ``UNLIKELY`` against the record. So later tables settle the doubt: the
outcome of a journey (which students arrive where), a card played that one history
spent already, a stack's height seen from the side. A table the record cannot explain
but a history can makes that history the record: each move that changes is announced
as a correction.

A doubt is a move of the record some history replaces; the oldest is the one of the
earliest such move. The belief keeps at most ``MOST_HISTORIES`` histories: a move that
would make more (each history times the moves that fit in it) first has the oldest doubt
asked about, and one that alone fits more than ``MOST_WAYS`` ways is asked about at
once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines import EngineError, GameState, Rules
from engines.observation import Observation

MOST_WAYS = 4
"""A move that fits the table more ways than this is asked about at once, while the
players remember it (a student recruited onto one of many masters, seen from above): no
later table could tell so many apart before the belief overflowed."""
MOST_HISTORIES = 32
"""Other histories the belief keeps at once (each one is judged again when the record
cannot explain a table, and branches when a move fits several ways)."""
UNLIKELY = -9.0
"""A history whose readings are this much less likely (log) than the record's, e^9 or
8,100 times, is dropped: the readings have told."""


@dataclass
class History:
    """Another history of the game: its moves (notation), the position they reach, and
    its weight against the record (log; 0: as likely)."""

    moves: list[str]
    state: GameState[Any]
    weight: float = 0.0


class Belief:
    """The other histories of one game (see the module docstring)."""

    def __init__(self) -> None:
        self.histories: list[History] = []
        self.asked: int | None = None
        """The index of the move an open question about a doubt asks about, if any."""
        self.again_done = False
        """The question was asked before a move that fitted several ways could be
        kept: once answered, the table is judged again (as after a done if True)."""

    def __bool__(self) -> bool:
        return bool(self.histories)

    def doubts(self, record: list[str]) -> list[int]:
        """The indexes of the record's moves some history replaces, oldest first."""
        return sorted(
            {
                i
                for h in self.histories
                for i, (a, b) in enumerate(zip(h.moves, record, strict=False))
                if a != b
            }
        )

    def oldest(self, record: list[str]) -> int | None:
        doubts = self.doubts(record)
        return doubts[0] if doubts else None

    def choices(self, record: list[str], index: int) -> list[str]:
        """The different moves at ``index``: the record's, then those of the histories
        that agree with the record before it (the others went another way earlier)."""
        out = [record[index]]
        for h in self.histories:
            if h.moves[:index] == record[:index] and h.moves[index] not in out:
                out.append(h.moves[index])
        return out

    def follow(
        self,
        rules: Rules[Any, Any],
        move: Any,
        weigh: Callable[[GameState[Any]], float | None] | None = None,
    ) -> None:
        """Play ``move``, just accepted in the record, in every history; drop those
        where it is illegal, whose table ``weigh(state)`` refuses (None), or that
        fall ``UNLIKELY``; ``weigh`` otherwise gives the weight to add."""
        text = rules.format_move(move)
        kept = []
        for history in self.histories:
            try:
                history.state.play(move)
            except EngineError:
                continue
            history.moves.append(text)
            if weigh is not None:
                added = weigh(history.state)
                if added is None:
                    continue
                history.weight += added
            if history.weight > UNLIKELY:
                kept.append(history)
        self.histories = kept

    def keep(self, test: Callable[[History], bool]) -> None:
        """Drop the histories ``test`` refuses."""
        self.histories = [h for h in self.histories if test(h)]
        if not self.histories:
            self.asked = None

    def truncate(self, record: list[tuple[GameState[Any], str]], rules: Rules[Any, Any]) -> None:
        """After moves of the record were taken back or replaced: each history cut to
        the record's length and played again; those that then equal the record, or
        in which a move is illegal, go."""
        texts = [text for _, text in record]
        kept: dict[tuple[str, ...], History] = {}
        for history in self.histories:
            moves = history.moves[: len(texts)]
            if moves == texts or tuple(moves) in kept:
                continue
            first = next(
                (i for i, (a, b) in enumerate(zip(moves, texts, strict=False)) if a != b),
                len(moves),
            )
            state = record[first][0].copy() if first < len(record) else None
            if state is None:
                continue
            try:
                for text in moves[first:]:
                    state.play(rules.parse_move(text))
            except EngineError:
                continue
            kept[tuple(moves)] = History(moves, state, history.weight)
        self.histories = list(kept.values())
        self.asked = None

    def to_json(self) -> dict[str, Any]:
        return {
            "histories": [[h.moves, h.weight] for h in self.histories],
            "asked": self.asked,
            "again_done": self.again_done,
        }

    def restore(self, data: dict[str, Any], start: GameState[Any], rules: Rules[Any, Any]) -> None:
        """Take back ``to_json``'s belief, the histories played from ``start``. Raises
        ``EngineError``, ``ValueError``, ``KeyError`` or ``TypeError`` for one that does
        not fit."""
        self.histories = []
        for moves, weight in data["histories"]:
            state = start.copy()
            for text in moves:
                state.play(rules.parse_move(str(text)))
            self.histories.append(History([str(m) for m in moves], state, float(weight)))
        asked = data["asked"]
        self.asked = None if asked is None else int(asked)
        self.again_done = bool(data.get("again_done", False))


def contradicted(table: Observation, observation: Observation, sure: float) -> bool:
    """Whether a sure reading of ``observation`` shows another value than ``table`` (a
    position's expected table)."""
    return bool(observation.differences(table, min_confidence=sure))
