"""Moves the table could not show, written as the likeliest and kept open.

A recruit seen from above (Shangri-La) changes nothing the camera sees: a student on its
master is one tile from above. A human referee does not stop the game for it: they note
"a student onto a master in village 4 or 7", go on, and notice later which it was. So
does the referee: it writes the likeliest of the moves that fit (``Unseen.rank``: the
readings' own weights, and a hand seen over a village while the player acted, which
makes a move there likelier without ruling out the others: hands pass over other
villages too) and keeps the others, per move, as ``Unseen.open``. Nothing is asked.

The doubt costs nothing until a table needs it: a journey whose students arrive as
another recruit would have sent them, a stack's height seen from the side or by a
sensor board. When the record cannot explain a table, the referee rewrites one open
move at a time (``alternatives``): the record with that move replaced, played again to
now, every position on the way showing what was seen then. Those that explain the table
become the belief's histories, and the belief settles it as any other doubt: the
likeliest, or a question when several explain the table equally and the verdict
depends on which (``Referee._by_unseen``).

Students never count in the score, so a move still open at the end is never asked
about: the record shows it as unsure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, product
from math import log
from typing import Any

from engines import EngineError, GameState, Rules
from engines.table_model import HiddenParts

HAND_THERE = log(0.3 / 0.03)
"""Log weight of a hand seen over a village the move acts in, against one seen over a
village it does not: a hand is seen over a touched village about three times in ten,
over another about three times in a hundred."""
NO_HAND = log(0.7 / 0.97)
"""Log weight of a village the move acts in that no hand was seen over."""
MOST_REWRITES = 48
"""Records played again with one open move replaced, at most, per table judged (the
rest wait for the next frame): a verdict stays quick."""
MOST_ITEMS = 7
"""Contents of a part searched only when it could hide this many items at most (2^7
ways)."""
MOST_CHANGED = 3
"""Items a part's content searched may differ by from the record's, at most."""
MOST_COMBINATIONS = 32
"""Ways of giving a part's missing items to the open moves that could have put them,
tried at most."""
MOST_FITS = 64
"""Contents tried against a table, at most, when looking for those that fit it."""


@dataclass
class Unseen:
    """The record's moves that the table could not tell from others, and those others
    (see the module docstring)."""

    open: dict[int, list[tuple[str, float]]] = field(default_factory=dict)
    """Record index -> the moves that fitted, the record's first, likeliest first, each
    with its log weight against the likeliest."""
    hands: set[int] = field(default_factory=set)
    """Parts seen under a hand since the last move was accepted."""
    asked_at: int | None = None
    """The record's length when an open move was last asked about (once per move)."""
    elements: dict[int, list[str]] | None = None
    """The table's elements of each part that a hand over it hides (set once)."""
    cache: tuple[int, tuple[str, ...], dict[Any, Any]] | None = None
    searched: tuple[Any, list[Any]] | None = None
    """The table contents were last searched for, and what was found."""
    """The alternatives last worked out, for the record they were worked out for."""

    def __bool__(self) -> bool:
        return bool(self.open)

    def rank(
        self, model: HiddenParts[Any, Any], moves: Sequence[Any], scores: Sequence[float]
    ) -> list[tuple[float, Any]]:
        """``moves`` (with the readings' log ``scores``), each weighed by the hands
        seen, likeliest first (ties: the order given)."""
        ranked = []
        for i, (move, score) in enumerate(zip(moves, scores, strict=True)):
            parts = set(model.spread(move))
            weight = score + sum(HAND_THERE if p in self.hands else NO_HAND for p in parts)
            ranked.append((weight, i, move))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [(w, m) for w, _, m in ranked]

    def keep(self, index: int, texts: list[str], weights: list[float]) -> None:
        """Move ``index`` of the record is one of ``texts``, any of them may be it (the
        others legal in some way of the game)."""
        best = weights[0]
        self.open[index] = [(t, w - best) for t, w in zip(texts, weights, strict=True)]

    def candidates(self, index: int) -> list[tuple[str, float]]:
        """The moves kept for ``index``, with their weights against the likeliest."""
        return self.open.get(index, [])

    def replace(self, index: int, was: str) -> None:
        """The record's move ``index`` was found not to be ``was``."""
        kept = [item for item in self.open.get(index, []) if item[0] != was]
        if len(kept) <= 1:
            self.open.pop(index, None)
        else:
            self.open[index] = kept

    def truncate(self, length: int) -> None:
        """The record was cut to ``length`` moves."""
        self.open = {k: v for k, v in self.open.items() if k < length}
        self.cache = None

    def alternatives(
        self,
        rules: Rules[Any, Any],
        model: HiddenParts[Any, Any],
        history: Sequence[tuple[GameState[Any], str]],
        state: GameState[Any],
        parts: Iterable[int],
    ) -> dict[int, list[tuple[list[str], GameState[Any], float]]]:
        """Per open move, the records that differ from ``history`` (reaching
        ``state``) in that move only and reach a position in which one of ``parts``
        hides something else, every position on the way showing the same table as the
        record's: (moves, position reached, weight against the record's move). At most
        ``MOST_REWRITES`` records are played again per call: the rest on later calls
        for the same record."""
        texts = tuple(text for _, text in history)
        if self.cache is None or self.cache[:2] != (len(history), texts):
            moves = [rules.parse_move(t) for t in texts]
            reads = [
                model.read_by(before, m) for (before, _), m in zip(history, moves, strict=True)
            ]
            self.cache = (len(history), texts, {"moves": moves, "reads": reads})
        done: dict[Any, Any] = self.cache[2]
        moves, reads = done["moves"], done["reads"]
        wanted = frozenset(parts)
        budget = MOST_REWRITES
        out: dict[int, list[tuple[list[str], GameState[Any], float]]] = {}
        for index in sorted((k for k in self.open if k < len(history)), reverse=True):
            kept = self.candidates(index)
            mine = next((w for t, w in kept if t == texts[index]), 0.0)
            was = model.spread(moves[index])
            for text, weight in kept:
                if text == texts[index]:
                    continue
                key = (index, text)
                if key not in done:
                    move = rules.parse_move(text)
                    now = model.spread(move)
                    differ = {p for p in set(was) | set(now) if was.get(p) != now.get(p)}
                    if not _reaches(reads[index + 1 :], differ, wanted):
                        continue
                    if budget <= 0:
                        continue
                    budget -= 1
                    done[key] = _rewrite(model, history, moves, state, index, move)
                rewritten = done[key]
                if rewritten is not None and rewritten[1] & wanted:
                    changed = list(texts)
                    changed[index] = text
                    out.setdefault(index, []).append((changed, rewritten[0], weight - mine))
        return out

    def contents(
        self,
        rules: Rules[Any, Any],
        model: HiddenParts[Any, Any],
        history: Sequence[tuple[GameState[Any], str]],
        state: GameState[Any],
        part: int,
        fits: Callable[[GameState[Any]], bool],
    ) -> list[tuple[list[str], GameState[Any], float]]:
        """Records in which several open moves are replaced so that ``part`` hides
        what the table needs: the contents ``part`` may hide, closest to the record's
        first, are tried (``fits``: whether a table the part's content decides, such as
        a journey's outcome, can show what is seen with the part holding it), and for
        the first that fits, the open moves that could have put it there are rewritten
        (``_rewrites``). (moves, position reached, weight against the record.)"""
        record = model.content(state, part)
        items = sorted(model.items(state, part))
        if len(items) > MOST_ITEMS:
            return []
        ways = sorted(
            (
                frozenset(c)
                for n in range(len(items) + 1)
                for c in combinations(items, n)
                if 0 < len(frozenset(c) ^ record) <= MOST_CHANGED
            ),
            key=lambda c: (len(c ^ record), sorted(c)),
        )
        for content in ways:
            world = model.with_content(state, {part: content})
            if not fits(world):
                continue
            found = self._rewrites(rules, model, history, state, part, content)
            if found:
                return found
        return []

    def _rewrites(
        self,
        rules: Rules[Any, Any],
        model: HiddenParts[Any, Any],
        history: Sequence[tuple[GameState[Any], str]],
        state: GameState[Any],
        part: int,
        content: frozenset[int],
    ) -> list[tuple[list[str], GameState[Any], float]]:
        """Records with open moves replaced so that ``part`` hides ``content`` now: each
        item it lacks is put by an open move that could have put it, each item too many
        taken from the open move that put it (at most ``MOST_COMBINATIONS`` tried)."""
        texts = [text for _, text in history]
        moves = [rules.parse_move(t) for t in texts]
        open_ = [k for k in self.open if k < len(history)]

        def inside(move: Any) -> frozenset[int]:
            return model.spread(move).get(part, frozenset())

        record = model.content(state, part)
        taken = record - content
        remove: dict[int, set[int]] = {}
        for item in taken:
            putters = [k for k in open_ if item in inside(moves[k])]
            if not putters:
                return []
            remove.setdefault(max(putters), set()).add(item)
        options: list[list[int]] = []
        added = sorted(content - record)
        for item in added:
            ks = [
                k
                for k in sorted(open_, reverse=True)
                if any(item in inside(rules.parse_move(t)) for t, _ in self.candidates(k))
            ]
            if not ks:
                return []
            options.append(ks)
        out: list[tuple[list[str], GameState[Any], float]] = []
        for tried, choice in enumerate(product(*options)):
            if tried >= MOST_COMBINATIONS:
                break
            add: dict[int, set[int]] = {}
            for item, k in zip(added, choice, strict=True):
                add.setdefault(k, set()).add(item)
            changed: dict[int, tuple[Any, str, float]] = {}
            for k in set(add) | set(remove):
                old = set(model.spread(moves[k]).get(part, frozenset()))
                want = frozenset((old - remove.get(k, set())) | add.get(k, set()))
                elsewhere = {
                    i for p, its in model.spread(moves[k]).items() if p != part for i in its
                }
                mine = next((w for t, w in self.candidates(k) if t == texts[k]), 0.0)
                best: tuple[int, float, str, Any] | None = None
                for t, w in self.candidates(k):
                    m = rules.parse_move(t)
                    if t == texts[k] or inside(m) != want:
                        continue
                    kept = len(elsewhere & {i for p, its in model.spread(m).items() for i in its})
                    if best is None or (kept, w) > best[:2]:
                        best = (kept, w, t, m)
                if best is None:
                    break
                changed[k] = (best[3], best[2], best[1] - mine)
            else:
                rewritten = _rewrite_many(model, history, moves, state, changed)
                if rewritten is not None:
                    new = list(texts)
                    for k, (_, t, _) in changed.items():
                        new[k] = t
                    out.append((new, rewritten, sum(w for _, _, w in changed.values())))
        return out

    def holds(self, record: Sequence[str], truth: Sequence[str]) -> bool:
        """Whether the moves ``truth`` are the record but for open moves, each replaced
        by one kept for it."""
        if len(record) != len(truth):
            return False
        for i, (a, b) in enumerate(zip(record, truth, strict=True)):
            if a != b and b not in {t for t, _ in self.candidates(i)}:
                return False
        return True

    def to_json(self) -> dict[str, Any]:
        return {"open": [[k, [list(c) for c in v]] for k, v in sorted(self.open.items())]}

    def restore(self, data: dict[str, Any]) -> None:
        """Take back ``to_json``'s moves. Raises ``ValueError``, ``KeyError`` or
        ``TypeError`` for data that does not fit."""
        self.open = {int(k): [(str(t), float(w)) for t, w in v] for k, v in data["open"]}
        self.hands = set()
        self.cache = None


def _reaches(
    reads: Sequence[frozenset[int] | None], parts: set[int], wanted: frozenset[int]
) -> bool:
    """Whether what a move hid in ``parts`` may have reached one of ``wanted`` by now,
    given the parts each later move read (``HiddenParts.read_by``): one that reads a
    part of it (a journey) carries it to the others it reads."""
    reach = set(parts)
    for read in reads:
        if reach & wanted:
            return True
        if read and reach & read:
            reach |= read
    return bool(reach & wanted)


def _rewrite_many(
    model: HiddenParts[Any, Any],
    history: Sequence[tuple[GameState[Any], str]],
    moves: Sequence[Any],
    state: GameState[Any],
    changed: dict[int, tuple[Any, str, float]],
) -> GameState[Any] | None:
    """The record with the moves ``changed`` replaced, played again from the first:
    the position reached; None when a move becomes illegal or a position on the way
    shows another table than the record's."""
    first = min(changed)
    world = history[first][0].copy()
    looks = model.looks_alike
    try:
        for i in range(first, len(history)):
            if i > first and not looks(world, history[i][0]):
                return None
            world.play(changed[i][0] if i in changed else moves[i])
    except EngineError:
        return None
    return world if looks(world, state) else None


def _rewrite(
    model: HiddenParts[Any, Any],
    history: Sequence[tuple[GameState[Any], str]],
    moves: Sequence[Any],
    state: GameState[Any],
    index: int,
    move: Any,
) -> tuple[GameState[Any], frozenset[int]] | None:
    """The record (``history``, its ``moves``, reaching ``state``) with move ``index``
    replaced by ``move`` and played again: the position reached and the parts that
    hide something else there than in ``state``; None when a later move becomes
    illegal or a position on the way shows another table than the record's."""
    world = history[index][0].copy()
    looks = model.looks_alike
    try:
        world.play(move)
        for i in range(index + 1, len(history)):
            if not looks(world, history[i][0]):
                return None
            world.play(moves[i])
    except EngineError:
        return None
    if not looks(world, state):
        return None
    differ = frozenset(
        p for p in model.parts(state) if model.content(world, p) != model.content(state, p)
    )
    return world, differ


def unsure_words(
    model: HiddenParts[Any, Any], texts: Sequence[str], parse: Callable[[str], Any]
) -> str:
    """An open move in words for the record: "a student onto a master in village 4 or
    7; not seen"."""
    parts = sorted({p for t in texts for p in model.spread(parse(t))})
    labels = [model.label(p) for p in parts]
    where = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]
    return f"{model.unseen_words} {where}; not seen"
