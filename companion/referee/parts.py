"""The referee's belief about what the table hides, kept part by part (Shangri-La: village
by village).

A recruit seen from above fits 15 to 60 ways: any one or two of the player's masters
without a student may have got one. Kept as whole histories, two such recruits would
make hundreds. But what a recruit changes stays in its villages, and later tables
tell villages apart one by one: the students a journey takes from a village and
brings to another, a stack's height seen from the side or by a sensor board. So the
referee keeps, for each village that may hold something it has not seen, a small set
of ``Entry``s: what its masters may carry (``content``), which of the recruits in
doubt put which students there (``put``), and how likely the readings found it
(``weight``, log, against the record). The ways of the whole game are every choice of
one entry per village in which each recruit in doubt put one or two students in all
(``Parts.prune``): villages multiply nothing, only that count ties them. A journey
reads two villages at once: from then on they are kept together, as one ``Factor``.

Each move accepted is played in each entry it concerns (``follow``); an entry in
which it is illegal, whose table a sure reading contradicts, or that no way of the
whole game keeps any more, goes. A recruit on which every way left agrees is settled;
the record is corrected where it said otherwise. The record is always one of the ways
(``record_entries``); when a table shows that it is not, the likeliest way that
explains the table becomes the record (``Referee._by_parts``).

Bounded: at most ``MOST_OPEN`` recruits in doubt and ``MOST_ENTRIES`` entries in a
factor; a recruit that would make more first has the oldest doubt asked about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Any

from engines import EngineError, GameState
from engines.observation import Observation
from engines.table_model import HiddenParts

MOST_OPEN = 4
"""Recruits (unseen moves) kept in doubt at once (the whole game's ways are counted
over every count of theirs, up to 3^4)."""
MOST_ENTRIES = 400
"""Entries a factor keeps at once (the ways its villages may be)."""
MOST_TRIED = 4096
"""Ways of the villages a table concerns tried when the record cannot explain it."""
UNLIKELY = -9.0
"""An entry this much less likely (log) than the likeliest of its factor goes."""

Put = frozenset[tuple[int, int]]
"""(record index of an unseen move, hidden item it added)."""


@dataclass(frozen=True)
class Entry:
    """One way the parts of a factor may be: each part's hidden content (in the order
    of ``Factor.parts``), what the unseen moves in doubt put there, and the weight."""

    content: tuple[frozenset[int], ...]
    put: Put = frozenset()
    weight: float = 0.0

    def key(self) -> tuple[tuple[frozenset[int], ...], Put]:
        return self.content, self.put


@dataclass
class Factor:
    """Parts kept together, and the ways they may be."""

    parts: tuple[int, ...]
    entries: list[Entry] = field(default_factory=list)

    def contents(self, entry: Entry) -> dict[int, frozenset[int]]:
        return dict(zip(self.parts, entry.content, strict=True))


class Parts:
    """The hidden content of the table, part by part (see the module docstring)."""

    def __init__(self, model: HiddenParts[Any, Any]) -> None:
        self.model = model
        self.factors: list[Factor] = []
        self.open: dict[int, int] = {}
        """Record index of each unseen move in doubt -> its player."""
        self.asked: int | None = None
        self.saved: dict[int, tuple[list[Factor], dict[int, int]]] = {}
        self.state: Any = None
        self.limits: dict[int, int] = {}
        self.elements: dict[int, list[str]] = {}
        """The table's elements of each part (set once, from the game's schema)."""
        """The belief as it was with so many moves in the record (``truncate``)."""

    def __bool__(self) -> bool:
        return bool(self.open)

    # ------------------------------------------------------------------ the ways

    def factor_of(self, part: int) -> Factor | None:
        return next((f for f in self.factors if part in f.parts), None)

    def _factor(self, part: int, state: GameState[Any]) -> Factor:
        """The factor holding ``part``; a new one (the record's content) if none."""
        found = self.factor_of(part)
        if found is None:
            found = Factor((part,), [Entry((self.model.content(state, part),))])
            self.factors.append(found)
        return found

    def _merge(self, parts: Iterable[int], state: GameState[Any]) -> Factor:
        """One factor for ``parts`` (each entry of one with each of the others)."""
        factors: list[Factor] = []
        for part in sorted(set(parts)):
            factor = self._factor(part, state)
            if factor not in factors:
                factors.append(factor)
        if len(factors) == 1:
            return factors[0]
        merged = Factor(tuple(p for f in factors for p in f.parts))
        for combo in product(*(f.entries for f in factors)):
            merged.entries.append(
                Entry(
                    tuple(c for e in combo for c in e.content),
                    frozenset().union(*(e.put for e in combo)),
                    sum(e.weight for e in combo),
                )
            )
        self.factors = [f for f in self.factors if f not in factors] + [merged]
        return merged

    def record_put(self, record: Sequence[str], parse: Callable[[str], Any]) -> Put:
        """What the record's unseen moves in doubt put."""
        return frozenset(
            (k, item)
            for k in self.open
            for items in self.model.spread(parse(record[k])).values()
            for item in items
        )

    def record_entries(self, state: GameState[Any], put: Put) -> list[Entry | None]:
        """Per factor, the entry that is the record (None if it went)."""
        out: list[Entry | None] = []
        for factor in self.factors:
            content = tuple(self.model.content(state, p) for p in factor.parts)
            mine = frozenset((k, i) for k, i in put if self.model.part_of_item(i) in factor.parts)
            out.append(
                next((e for e in factor.entries if e.content == content and e.put == mine), None)
            )
        return out

    def holds(self, state: GameState[Any], record: GameState[Any]) -> bool:
        """Whether ``state`` is one of the ways (as far as each factor tells): the
        record's but for what the factors' parts hide."""
        if not self.factors:
            return False
        contents = {p: self.model.content(state, p) for f in self.factors for p in f.parts}
        if self.model.with_content(record, contents) != state:
            return False
        return all(
            any(e.content == tuple(contents[p] for p in f.parts) for e in f.entries)
            for f in self.factors
        )

    # ------------------------------------------------------------------ branching

    def wide(self, state: GameState[Any], player: int) -> bool:
        """Whether one more unseen move of ``player`` would overflow the bounds."""
        if len(self.open) >= MOST_OPEN:
            return True
        most = self.model.most
        for part in self.model.parts(state):
            factor = self.factor_of(part)
            entries = (
                factor.entries
                if factor is not None
                else [Entry((self.model.content(state, part),))]
            )
            parts = factor.parts if factor is not None else (part,)
            grown = 0
            for entry in entries:
                free = sum(
                    len(self.model.free(state, p, c, player))
                    for p, c in zip(parts, entry.content, strict=True)
                )
                grown += sum(_choose(free, n) for n in range(most + 1))
            if grown > MOST_ENTRIES:
                return True
        return False

    def branch(
        self,
        index: int,
        before: GameState[Any],
        after: GameState[Any],
        weigh: Callable[[Factor, Entry], float | None] | None,
    ) -> None:
        """The record's move ``index``, played from ``before``, is one of an unseen
        choice: every part that could have received its items branches (``weigh``: the
        weight to add to a new entry, None if the table refuses it)."""
        player = before.to_move
        self.open[index] = player
        most = self.model.most
        for part in self.model.parts(before):
            factor = self.factor_of(part)
            if factor is None:
                if not self.model.free(before, part, self.model.content(before, part), player):
                    continue
                factor = self._factor(part, before)
            if part != factor.parts[0]:
                continue  # a factor of several parts branches once
            grown: dict[tuple[tuple[frozenset[int], ...], Put], Entry] = {}
            for entry in factor.entries:
                free = [
                    (i, item)
                    for i, (p, c) in enumerate(zip(factor.parts, entry.content, strict=True))
                    for item in self.model.free(before, p, c, player)
                ]
                for n in range(most + 1):
                    for chosen in combinations(free, n):
                        content = list(entry.content)
                        for i, item in chosen:
                            content[i] = content[i] | {item}
                        new = Entry(
                            tuple(content),
                            entry.put | {(index, item) for _, item in chosen},
                            entry.weight,
                        )
                        if weigh is not None and chosen:
                            added = weigh(factor, new)
                            if added is None:
                                continue
                            new = Entry(new.content, new.put, new.weight + added)
                        old = grown.get(new.key())
                        if old is None or old.weight < new.weight:
                            grown[new.key()] = new
            factor.entries = list(grown.values())

    # ------------------------------------------------------------------ following

    def follow(
        self,
        before: GameState[Any],
        move: Any,
        check: Callable[[Factor, GameState[Any]], float | None] | None,
        after: GameState[Any] | None = None,
    ) -> bool:
        """Play ``move`` (just accepted, from the record's ``before``) in each entry it
        concerns; drop those where it is illegal, whose parts ``check(factor,
        world)`` refuses (None; otherwise the weight to add), or (given the record's
        position ``after`` the move) whose world shows another table than the record:
        an entry keeps only what the table hides, so a world that differs in what it
        shows (a journey's students winning in one and not in the other) is no way
        the entry can hold. Whether any entry was concerned."""
        if not self.open:
            return False
        read = self.model.read_by(before, move)
        if read is None:
            factors = list(self.factors)
        else:
            involved = [p for p in read if self.factor_of(p) is not None]
            factors = [self._merge(read, before)] if involved else []
        for factor in factors:
            kept: dict[tuple[tuple[frozenset[int], ...], Put], Entry] = {}
            # what the move does depends on the content only, shared by many entries
            played: dict[
                tuple[frozenset[int], ...], tuple[tuple[frozenset[int], ...], float] | None
            ] = {}
            for entry in factor.entries:
                if entry.content not in played:
                    played[entry.content] = self._play(before, move, factor, entry, check, after)
                result = played[entry.content]
                if result is None:
                    continue
                new = Entry(result[0], entry.put, entry.weight + result[1])
                old = kept.get(new.key())
                if old is None or old.weight < new.weight:
                    kept[new.key()] = new
            factor.entries = list(kept.values())
        return bool(factors)

    def _play(
        self,
        before: GameState[Any],
        move: Any,
        factor: Factor,
        entry: Entry,
        check: Callable[[Factor, GameState[Any]], float | None] | None,
        after: GameState[Any] | None = None,
    ) -> tuple[tuple[frozenset[int], ...], float] | None:
        """``move`` played in the world of ``entry``: the content it leaves and the
        weight to add; None if illegal there, refused by ``check``, or showing
        another table than the record's ``after`` (``follow``)."""
        world = self.model.with_content(before, factor.contents(entry))
        try:
            world.play(move)
        except EngineError:
            return None
        content = tuple(self.model.content(world, p) for p in factor.parts)
        if after is not None and (
            self.model.with_content(after, dict(zip(factor.parts, content, strict=True))) != world
        ):
            return None
        added = 0.0
        if check is not None:
            found = check(factor, world)
            if found is None:
                return None
            added = found
        return content, added

    def weigh_all(self, weigh: Callable[[Factor, Entry], float | None]) -> bool:
        """Each entry weighed (or dropped: None) by the table now believed; whether
        any changed."""
        changed = False
        for factor in self.factors:
            kept = []
            for entry in factor.entries:
                added = weigh(factor, entry)
                if added is None:
                    changed = True
                elif added:
                    changed = True
                    kept.append(Entry(entry.content, entry.put, entry.weight + added))
                else:
                    kept.append(entry)
            factor.entries = kept
        return changed

    # ------------------------------------------------------------------ the whole game

    def prune(self, record: Sequence[Entry | None] = ()) -> None:
        """Keep only entries some way of the whole game goes through: each unseen move
        in doubt put between one and ``most`` items over all factors; entries far less
        likely than their factor's likeliest go too, but for the record's."""
        for i, factor in enumerate(self.factors):
            if factor.entries:
                best = max(e.weight for e in factor.entries)
                mine = record[i] if i < len(record) else None
                factor.entries = [
                    e for e in factor.entries if e.weight - best > UNLIKELY or e == mine
                ]
        if not self.open:
            return
        code, valid, done = self._counting()
        tables = [{code(e) for e in f.entries} for f in self.factors]
        forward: list[set[int]] = [{0}]
        for counts in tables:
            forward.append({a + c for a in forward[-1] for c in counts if valid(a + c)})
        backward: list[set[int]] = [{0}]
        for counts in reversed(tables):
            backward.append({a + c for a in backward[-1] for c in counts if valid(a + c)})
        backward.reverse()
        for i, factor in enumerate(self.factors):
            # the other factors' sums, and the counts of this one they complete
            others = {a + b for a in forward[i] for b in backward[i + 1] if valid(a + b)}
            ok = {c for c in tables[i] if any(done(o + c) for o in others)}
            factor.entries = [e for e in factor.entries if code(e) in ok]

    def at(self, state: GameState[Any]) -> None:
        """The record's position now: the limits it sets on what the parts hide in
        all (``HiddenParts.limits``), and the owners ``tally`` counts by."""
        self.state = state
        self.limits = self.model.limits(state, {p for f in self.factors for p in f.parts})

    def _counting(
        self,
    ) -> tuple[Callable[[Entry], int], Callable[[int], bool], Callable[[int], bool]]:
        """Counts that tie the factors, packed in one integer (five bits each): how
        many items each unseen move in doubt put (one to ``most``), and how many of
        each limited kind the parts hide (at most its limit). The packing of an
        entry's counts, whether a sum of them stays within every bound, and whether
        it also gives each unseen move at least one item."""
        most = self.model.most
        open_ = sorted(self.open)
        keys = sorted(self.limits)
        caps = [most] * len(open_) + [self.limits[key] for key in keys]
        place = {k: 5 * j for j, k in enumerate(open_)}
        kinds = {key: 5 * (len(open_) + j) for j, key in enumerate(keys)}
        sixteens = sum(16 << 5 * j for j in range(len(caps)))
        over = sum((15 - cap) << 5 * j for j, cap in enumerate(caps))
        needed = sum(16 << 5 * j for j in range(len(open_)))
        fifteens = sum(15 << 5 * j for j in range(len(open_)))
        cache: dict[tuple[Put, tuple[frozenset[int], ...]], int] = {}
        tally, state = self.model.tally, self.state

        def code(entry: Entry) -> int:
            found = cache.get((entry.put, entry.content))
            if found is None:
                found = sum(1 << place[k] for k, _ in entry.put if k in place)
                if kinds:
                    for content in entry.content:
                        for key, n in tally(state, content).items():
                            if key in kinds:
                                found += n << kinds[key]
                cache[(entry.put, entry.content)] = found
            return found

        def valid(x: int) -> bool:
            return (x + over) & sixteens == 0

        def done(x: int) -> bool:
            return valid(x) and (x + fifteens) & needed == needed

        return code, valid, done

    def settled(self) -> dict[int, frozenset[int]]:
        """The unseen moves in doubt on which every way agrees, with their items; they
        leave the doubt (and factors no longer in doubt go)."""
        out: dict[int, frozenset[int]] = {}
        for k in sorted(self.open):
            seen: set[frozenset[int]] = set()
            for factor in self.factors:
                puts = {frozenset(i for j, i in e.put if j == k) for e in factor.entries}
                if len(puts) > 1:
                    break
                seen |= puts
            else:
                out[k] = frozenset().union(*seen)
        for k in out:
            del self.open[k]
        if out:
            for factor in self.factors:
                merged: dict[tuple[tuple[frozenset[int], ...], Put], Entry] = {}
                for e in factor.entries:
                    new = Entry(e.content, frozenset(x for x in e.put if x[0] not in out), e.weight)
                    old = merged.get(new.key())
                    if old is None or old.weight < new.weight:
                        merged[new.key()] = new
                factor.entries = list(merged.values())
        self.factors = [
            f for f in self.factors if len(f.entries) > 1 or any(e.put for e in f.entries)
        ]
        if not self.open:
            self.factors = []
        return out

    def best(
        self,
        fixed: dict[int, Entry] | None = None,
        prefer: Sequence[Entry | None] = (),
        among: dict[int, list[Entry]] | None = None,
    ) -> list[Entry] | None:
        """The likeliest way of the whole game: one entry per factor (``fixed``: by
        factor index, entries already chosen; ``among``: by factor index, the entries
        to choose from; ``prefer``: entries that win a tie, the record's); None when
        there is none."""
        code, valid, done = self._counting()
        layer: dict[int, tuple[float, list[Entry]]] = {0: (0.0, [])}
        for i, factor in enumerate(self.factors):
            if fixed and i in fixed:
                entries = [fixed[i]]
            else:
                entries = among[i] if among and i in among else factor.entries
            mine = prefer[i] if i < len(prefer) else None
            # the likeliest entry of each count is enough
            top: dict[int, tuple[float, Entry]] = {}
            for e in entries:
                weight = e.weight + (1e-6 if e == mine else 0.0)
                c = code(e)
                if c not in top or top[c][0] < weight:
                    top[c] = (weight, e)
            grown: dict[int, tuple[float, list[Entry]]] = {}
            for counts, (weight, chosen) in layer.items():
                for c, (w, e) in top.items():
                    total = counts + c
                    if valid(total) and (total not in grown or grown[total][0] < weight + w):
                        grown[total] = (weight + w, [*chosen, e])
            layer = grown
        finished = [v for c, v in layer.items() if done(c)]
        if not finished:
            return None
        return max(finished, key=lambda v: v[0])[1]

    def each_way(self) -> Iterable[list[Entry]]:
        """Every way of the whole game (one entry per factor, each unseen move in doubt
        putting one to ``most`` items, within the limits): for small beliefs only."""
        code, _, done = self._counting()
        for combo in product(*(f.entries for f in self.factors)):
            if done(sum(code(e) for e in combo)):
                yield list(combo)

    def moves_of(self, entries: list[Entry]) -> dict[int, frozenset[int]]:
        """The items each unseen move in doubt put, in a way of the whole game."""
        out: dict[int, set[int]] = {k: set() for k in self.open}
        for e in entries:
            for k, item in e.put:
                out[k].add(item)
        return {k: frozenset(v) for k, v in out.items()}

    def choices(self, index: int) -> list[frozenset[int]]:
        """The items the unseen move ``index`` may have put, one set per way of the
        whole game (a question's candidates), the likeliest first."""
        per: list[set[frozenset[int]]] = [
            {frozenset(i for k, i in e.put if k == index) for e in f.entries} for f in self.factors
        ]
        candidates: set[frozenset[int]] = {frozenset()}
        for options in per:
            candidates = {
                a | b for a in candidates for b in options if len(a | b) <= self.model.most
            }
        candidates.discard(frozenset())
        found: dict[frozenset[int], float] = {}
        for items in candidates:
            saved = [f.entries for f in self.factors]
            self.answer(index, items)
            ways = self.best()
            for f, entries in zip(self.factors, saved, strict=True):
                f.entries = entries
            if ways is not None:
                found[items] = sum(e.weight for e in ways)
        return sorted(found, key=lambda items: (-found[items], sorted(items)))

    def answer(self, index: int, items: frozenset[int]) -> None:
        """The players said what unseen move ``index`` put: the other ways go."""
        for factor in self.factors:
            factor.entries = [
                e
                for e in factor.entries
                if frozenset(i for k, i in e.put if k == index)
                == frozenset(i for i in items if self.model.part_of_item(i) in factor.parts)
            ]

    # ------------------------------------------------------------------ journal

    def save(self, length: int) -> None:
        """Remember the belief as it is with ``length`` moves in the record."""
        self.saved[length] = (
            [Factor(f.parts, list(f.entries)) for f in self.factors],
            dict(self.open),
        )
        for later in [n for n in self.saved if n > length]:
            del self.saved[later]

    def truncate(self, length: int) -> None:
        """The record was cut to ``length`` moves: the belief as it was then (none if
        not remembered)."""
        saved = self.saved.get(length)
        factors, open_ = saved if saved is not None else ([], {})
        self.factors = [Factor(f.parts, list(f.entries)) for f in factors]
        self.open = {k: p for k, p in open_.items() if k < length}
        if len(self.open) != len(open_):
            self.factors, self.open = [], {}
        for later in [n for n in self.saved if n > length]:
            del self.saved[later]
        self.asked = None

    def to_json(self) -> dict[str, Any]:
        return {
            "open": [[k, p] for k, p in sorted(self.open.items())],
            "asked": self.asked,
            "factors": [
                [
                    list(f.parts),
                    [
                        [[sorted(c) for c in e.content], sorted(list(x) for x in e.put), e.weight]
                        for e in f.entries
                    ],
                ]
                for f in self.factors
            ],
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Take back ``to_json``'s belief. Raises ``ValueError``, ``KeyError`` or
        ``TypeError`` for one that does not fit."""
        self.open = {int(k): int(p) for k, p in data["open"]}
        asked = data["asked"]
        self.asked = None if asked is None else int(asked)
        self.factors = [
            Factor(
                tuple(int(p) for p in parts),
                [
                    Entry(
                        tuple(frozenset(int(i) for i in c) for c in content),
                        frozenset((int(k), int(i)) for k, i in put),
                        float(weight),
                    )
                    for content, put, weight in entries
                ],
            )
            for parts, entries in data["factors"]
        ]
        self.saved = {}


def _choose(n: int, k: int) -> int:
    if k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def refused(shown: dict[str, Any], observation: Observation, sure: float) -> bool:
    """Whether a sure reading of ``observation`` shows another value than ``shown``."""
    for element, value in shown.items():
        reading = observation[element]
        if (
            reading.value is not None
            and reading.confidence >= sure
            and (reading.value != value or type(reading.value) is not type(value))
        ):
            return True
    return False
