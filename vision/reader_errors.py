"""How often a fitted camera reader gets an element wrong, measured, and readings drawn
from those measurements.

A :class:`ReaderErrors` holds, per element kind and true value, what the reader did
with the element on the pictures it was measured on (``companion bench reader-errors``,
on the appearance reader's test set): read it right, read another value instead (which
one, how often), left it unsure, or did not show it (something else seemed to stand on
it). It also holds the confidences the reader gave its right readings (per true value)
and its wrong ones (per kind: they are few), counted in bins (:data:`CHANCE_EDGES`),
and the probabilities it gave every value when it was wrong or unsure (each such
reading kept whole). One versioned file per game ships in
``vision/fitted/reader-errors-<game>.json``, with the command and pictures that made
it.

A :class:`ReadingSampler` draws a reading of a true value from those rates, one draw
per element and frame, as a simulated table's camera (``companion bench referee
--readers fitted``).

Values the measured pictures never showed on a kind take the kind's rates pooled over
its values, and a wrong reading of them is one of the kind's other values, drawn
evenly; a kind that never read wrong takes the confidences of the game's other kinds'
wrong readings, and when no kind ever did, those of its right readings.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from engines.jsontext import read_json_file
from engines.observation import Reading, TableSchema, Value
from vision.models import load_model

FORMAT_VERSION = 1
KIND = "companion.reader-errors"

CHANCE_EDGES = (
    0.0,
    0.05,
    0.1,
    0.2,
    0.3,
    0.4,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    0.95,
    0.99,
    0.999,
    0.9999,
    1.0,
)
"""Bins of the confidences counted: finer towards certainty, where most readings lie
(the referee trusts a reading from 0.9, so that is an edge)."""

RIGHT, WRONG, UNSURE, NOT_SHOWN = "right", "wrong", "unsure", "not_shown"
OUTCOMES = (RIGHT, WRONG, UNSURE, NOT_SHOWN)
OTHER = "other"
"""The appearance reader's name for *something else* among its probabilities."""
"""What a reader can do with an element it should see: read it right, read another
value, leave it unsure (no value), or not show it (something else is on it)."""


class ReaderErrorsError(ValueError):
    """A reader error file that cannot be used; the message names the file and fault."""


def _key(value: Value) -> tuple[str, Value]:
    """A dictionary key keeping ``True`` and ``1`` apart."""
    return type(value).__name__, value


def bin_of(chance: float) -> int:
    """The index of the :data:`CHANCE_EDGES` bin holding ``chance`` (1.0 in the last)."""
    for index in range(len(CHANCE_EDGES) - 2, -1, -1):
        if chance >= CHANCE_EDGES[index]:
            return index
    return 0


@dataclass
class ValueErrors:
    """What the reader did with the elements of one kind whose true value is ``value``."""

    value: Value
    right: int = 0
    unsure: int = 0
    not_shown: int = 0
    wrong: dict[tuple[str, Value], int] = field(default_factory=dict)
    """How often each other value (by :func:`_key`) was read instead."""
    right_confidence: list[int] = field(default_factory=lambda: [0] * (len(CHANCE_EDGES) - 1))
    """The confidences of the right readings, counted in the bins of ``CHANCE_EDGES``."""

    @property
    def wrong_total(self) -> int:
        return sum(self.wrong.values())

    @property
    def total(self) -> int:
        return self.right + self.unsure + self.not_shown + self.wrong_total

    def rate(self, outcome: str) -> float:
        count = self.wrong_total if outcome == WRONG else getattr(self, outcome)
        return count / self.total if self.total else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "right": self.right,
            "wrong": [[key[1], count] for key, count in sorted(self.wrong.items(), key=repr)],
            "unsure": self.unsure,
            "not_shown": self.not_shown,
            "right_confidence": self.right_confidence,
        }


@dataclass
class KindErrors:
    """One element kind's errors: per true value, and the confidences of the wrong
    readings (few: counted for the kind)."""

    kind: str
    values: dict[tuple[str, Value], ValueErrors] = field(default_factory=dict)
    wrong_confidence: list[int] = field(default_factory=lambda: [0] * (len(CHANCE_EDGES) - 1))
    uncertain: list[dict[str, Any]] = field(default_factory=list)
    """The probabilities of every wrong or unsure reading: ``{"value": true value,
    "read": value read or None, "chances": [[value, p], ...]}`` (``"other"``: something
    else)."""

    def of(self, value: Value) -> ValueErrors:
        found = self.values.get(_key(value))
        if found is None:
            found = self.values[_key(value)] = ValueErrors(value)
        return found

    def pooled(self) -> ValueErrors:
        """Every true value's counts together (wrong values not told apart)."""
        out = ValueErrors("*")
        for errors in self.values.values():
            out.right += errors.right
            out.right_confidence = [
                a + b for a, b in zip(out.right_confidence, errors.right_confidence, strict=True)
            ]
            out.unsure += errors.unsure
            out.not_shown += errors.not_shown
            if errors.wrong_total:
                out.wrong[("*", "*")] = out.wrong.get(("*", "*"), 0) + errors.wrong_total
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "values": [v.to_json() for _, v in sorted(self.values.items(), key=repr)],
            "wrong_confidence": self.wrong_confidence,
            "uncertain": self.uncertain,
        }


@dataclass
class ReaderErrors:
    """A game's reader errors, per element kind, with how they were measured."""

    game: str
    kinds: dict[str, KindErrors] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)

    def kind(self, name: str) -> KindErrors:
        found = self.kinds.get(name)
        if found is None:
            found = self.kinds[name] = KindErrors(name)
        return found

    def add(
        self,
        kind: str,
        truth: Value,
        outcome: str,
        read: Value | None = None,
        confidence: float | None = None,
        chances: Mapping[str, float] | None = None,
    ) -> None:
        """Count one element's reading: ``outcome`` (one of :data:`OUTCOMES`), the value
        ``read`` and its ``confidence`` (right and wrong readings), and the reader's
        probabilities by ``str(value)`` (kept for wrong and unsure readings)."""
        errors = self.kind(kind)
        counts = errors.of(truth)
        if outcome == RIGHT:
            counts.right += 1
            counts.right_confidence[bin_of(_confidence(confidence))] += 1
        elif outcome == WRONG:
            if read is None:
                raise ValueError("a wrong reading needs the value read")
            counts.wrong[_key(read)] = counts.wrong.get(_key(read), 0) + 1
            errors.wrong_confidence[bin_of(_confidence(confidence))] += 1
        elif outcome == UNSURE:
            counts.unsure += 1
        elif outcome == NOT_SHOWN:
            counts.not_shown += 1
        else:
            raise ValueError(f"unknown outcome {outcome!r} (expected one of {OUTCOMES})")
        if outcome in (WRONG, UNSURE) and chances is not None:
            errors.uncertain.append(
                {
                    "value": truth,
                    "read": read,
                    "chances": [
                        [name, round(float(p), 4)]
                        for name, p in sorted(chances.items(), key=lambda item: -item[1])
                    ],
                }
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "version": FORMAT_VERSION,
            "game": self.game,
            "chance_edges": list(CHANCE_EDGES),
            "provenance": self.provenance,
            "kinds": {name: k.to_json() for name, k in sorted(self.kinds.items())},
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "reader errors") -> ReaderErrors:
        """Read :meth:`to_json`'s form. Raises ``ReaderErrorsError``."""
        try:
            if data.get("kind") != KIND or data.get("version") != FORMAT_VERSION:
                raise ReaderErrorsError(
                    f"{source} is not a reader error file of version {FORMAT_VERSION}"
                )
            if list(data["chance_edges"]) != list(CHANCE_EDGES):
                raise ReaderErrorsError(f"{source} counts confidences in other bins")
            out = cls(str(data["game"]), provenance=dict(data.get("provenance", {})))
            for name, raw in data["kinds"].items():
                kind = out.kind(str(name))
                for row in raw["values"]:
                    value = _value(row["value"])
                    counts = kind.of(value)
                    counts.right, counts.unsure, counts.not_shown = (
                        _count(row["right"]),
                        _count(row["unsure"]),
                        _count(row["not_shown"]),
                    )
                    counts.wrong = {_key(_value(v)): _count(n) for v, n in row["wrong"]}
                    counts.right_confidence = _bins(row["right_confidence"], source)
                    if sum(counts.right_confidence) != counts.right:
                        raise ReaderErrorsError(
                            f"{source}: {name} {value!r}'s right "
                            "confidences do not add up to its right "
                            "readings"
                        )
                kind.wrong_confidence = _bins(raw["wrong_confidence"], source)
                kind.uncertain = [dict(u) for u in raw.get("uncertain", [])]
            return out
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            if isinstance(error, ReaderErrorsError):
                raise
            raise ReaderErrorsError(f"{source} cannot be used: {error}") from None


def _bins(raw: Any, source: str) -> list[int]:
    bins = [_count(n) for n in raw]
    if len(bins) != len(CHANCE_EDGES) - 1:
        raise ReaderErrorsError(
            f"{source}: {len(bins)} bins of confidence where {len(CHANCE_EDGES) - 1} were expected"
        )
    return bins


def _confidence(confidence: float | None) -> float:
    if confidence is None or not 0.0 <= confidence <= 1.0:
        raise ValueError(f"a reading's confidence must be within 0 and 1, not {confidence}")
    return confidence


def _count(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise ValueError(f"a count must be a whole number from 0, not {raw!r}")
    return raw


def _value(raw: Any) -> Value:
    if not isinstance(raw, str | int | bool):
        raise ValueError(f"not a reading's value: {raw!r}")
    return raw


def dumps(errors: ReaderErrors) -> str:
    """The file's text: indented, with each list of numbers or of one value and its
    count on one line."""
    text = json.dumps(errors.to_json(), indent=1)
    return (
        re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
        + "\n"
    )


def errors_path(game: str) -> Path:
    """Where the game's reader errors ship."""
    return Path(str(resources.files("vision").joinpath("fitted"))) / f"reader-errors-{game}.json"


def load_errors(game: str, path: str | Path | None = None) -> ReaderErrors:
    """The reader errors shipped for ``game`` (or at ``path``). Raises
    ``ReaderErrorsError`` (also when there is none)."""
    where = Path(path) if path is not None else errors_path(game)
    if not where.exists():
        raise ReaderErrorsError(
            f"no reader errors measured for {game} ({where} is "
            "missing: companion bench reader-errors --game "
            f"{game} makes it)"
        )
    try:
        data = read_json_file(where, "reader errors")
    except ValueError as error:
        raise ReaderErrorsError(str(error)) from None
    errors = ReaderErrors.from_json(data, str(where))
    if errors.game != game:
        raise ReaderErrorsError(f"{where} holds {errors.game}'s reader errors, not {game}'s")
    return errors


# --- drawing readings ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Draw:
    """The cumulative chances of one kind and true value: of the outcomes (right, wrong,
    unsure; not shown beyond), of the wrong values, and of the right confidences'
    bins."""

    outcomes: tuple[float, float, float]
    wrong: tuple[Value, ...]
    wrong_cumulative: tuple[float, ...]
    right_cumulative: tuple[float, ...]


def _cumulative(counts: Sequence[int]) -> tuple[float, ...]:
    total = sum(counts)
    out, running = [], 0
    for count in counts:
        running += count
        out.append(running / total if total else 0.0)
    return tuple(out)


def _pick(cumulative: Sequence[float], u: float) -> tuple[int, float]:
    """The index whose slice of [0, 1) holds ``u``, and ``u`` rescaled within it (so one
    draw serves twice)."""
    low = 0.0
    for index, high in enumerate(cumulative):
        if u < high:
            return index, (u - low) / (high - low)
        low = high
    index = len(cumulative) - 1
    while index > 0 and cumulative[index - 1] == cumulative[index]:
        index -= 1
    return index, 1.0


class ReadingSampler:
    """Draws an element's reading from a game's :class:`ReaderErrors`.

    ``kinds``: each element's kind (``vision.models`` board model); ``schema`` gives the
    values each element may take. :meth:`draw` is a pure function of its three uniform
    draws, so a seeded stream replays.

    With ``chances``, each reading carries probabilities of its values
    (``Reading.chances``) as the camera pipeline attaches the appearance reader's
    (``vision.pipeline.weighed_observation``: *something else* left out, so they may
    sum to less than 1). A right reading lists its value at its confidence (the other
    values share the rest evenly, as for a plain reading: how the reader spread that
    rest was not kept). A wrong or unsure reading takes its probabilities from one of
    the measured wrong or unsure readings of its kind, drawn evenly: a wrong one keeps
    its drawn confidence, and the true value and the others keep the shares of the rest
    that they had in the measured one; an unsure one, shown without a value, takes the
    measured probabilities, the true value's as its own and the others' in the order
    the true value was most often read as them.
    """

    def __init__(
        self,
        errors: ReaderErrors,
        schema: TableSchema,
        kinds: Mapping[str, str],
        chances: bool = False,
    ) -> None:
        self.errors = errors
        self.schema = schema
        self.kinds = dict(kinds)
        self.chances = chances
        missing = sorted({k for k in self.kinds.values()} - set(errors.kinds))
        if missing:
            raise ReaderErrorsError(f"the {errors.game} reader errors have no {', '.join(missing)}")
        self._draws: dict[tuple[str, tuple[str, Value]], _Draw] = {}
        every_wrong = [
            sum(bins)
            for bins in zip(*(k.wrong_confidence for k in errors.kinds.values()), strict=True)
        ]
        self._wrong = {}
        for name, kind in errors.kinds.items():
            bins = kind.wrong_confidence if sum(kind.wrong_confidence) else every_wrong
            self._wrong[name] = _cumulative(bins if sum(bins) else kind.pooled().right_confidence)
        # the measured wrong and unsure readings' probabilities, by kind (else the game's)
        self._shapes: dict[tuple[str, bool], list[_Shape]] = {}
        for wrong in (True, False):
            every = [
                _Shape.of(u)
                for k in errors.kinds.values()
                for u in k.uncertain
                if (u["read"] is not None) == wrong
            ]
            for name, kind in errors.kinds.items():
                own = [_Shape.of(u) for u in kind.uncertain if (u["read"] is not None) == wrong]
                self._shapes[(name, wrong)] = own or every

    def _others(self, element: str, value: Value) -> list[Value]:
        return sorted((v for v in self.schema.values[element] if _key(v) != _key(value)), key=repr)

    def _draw_for(self, kind: str, element: str, value: Value) -> _Draw:
        cache_key = (element, _key(value))
        found = self._draws.get(cache_key)
        if found is not None:
            return found
        errors = self.errors.kinds[kind]
        counts = errors.values.get(_key(value))
        others = self._others(element, value)
        if counts is not None and counts.total:
            wrong = [v for v in others if counts.wrong.get(_key(v))]
            weights = [counts.wrong[_key(v)] for v in wrong]
        else:  # never seen: the kind's rates, a wrong value drawn evenly
            counts = errors.pooled()
            wrong, weights = others, [1] * len(others)
        total = counts.total
        if total:
            right = counts.right / total
            wrong_share = counts.wrong_total / total if wrong else 0.0
            outcomes = (right, right + wrong_share, right + wrong_share + counts.unsure / total)
        else:  # a kind never measured at all is read right
            outcomes = (1.0, 1.0, 1.0)
        right_bins = counts.right_confidence if counts.right else errors.pooled().right_confidence
        found = self._draws[cache_key] = _Draw(
            outcomes, tuple(wrong), _cumulative(weights), _cumulative(right_bins)
        )
        return found

    def outcome(self, element: str, value: Value, u: float) -> tuple[str, float]:
        """Which outcome the draw ``u`` gives ``element`` showing ``value``, and ``u``
        rescaled within that outcome's share."""
        draw = self._draw_for(self.kinds[element], element, value)
        index, rest = _pick((*draw.outcomes, 1.0), u)
        return OUTCOMES[index], rest

    def draw(self, element: str, value: Value, u: Sequence[float]) -> Reading | None:
        """The reading of ``element`` showing ``value`` for the uniform draws ``u`` (three
        in [0, 1)): a right or a wrong value with a confidence drawn from the measured
        bins (evenly within its bin), or ``None`` (not shown, or unsure without chances:
        unknown)."""
        kind = self.kinds[element]
        draw = self._draw_for(kind, element, value)
        outcome, rest = self.outcome(element, value, u[0])
        if outcome == RIGHT:
            confidence, _ = _confidence_in(draw.right_cumulative, u[1], u[2])
            # the others share what the confidence leaves, as for a plain reading
            return Reading(value, confidence, ((value, confidence),) if self.chances else None)
        if outcome == WRONG:
            index, again = _pick(draw.wrong_cumulative, rest)
            read = draw.wrong[index]
            confidence, again = _confidence_in(self._wrong[kind], again, u[2])
            if not self.chances:
                return Reading(read, confidence)
            return self._wrong_chances(kind, element, value, read, confidence, again)
        if outcome == UNSURE and self.chances:
            return self._unsure_chances(kind, element, value, u[1])
        return None

    def _shape(self, kind: str, wrong: bool, u: float) -> _Shape | None:
        """One measured wrong (or unsure) reading of ``kind``, drawn by ``u``."""
        shapes = self._shapes[(kind, wrong)]
        return shapes[min(int(u * len(shapes)), len(shapes) - 1)] if shapes else None

    def _wrong_chances(
        self, kind: str, element: str, truth: Value, read: Value, confidence: float, u: float
    ) -> Reading:
        others = [v for v in self._others(element, read) if _key(v) != _key(truth)]
        shape = self._shape(kind, True, u)
        if shape is None or shape.read >= 1.0:  # nothing measured: a plain reading
            return Reading(read, confidence, ((read, confidence),))
        scale = (1.0 - confidence) / (1.0 - shape.read)
        rest = (list(shape.rest) + [0.0] * len(others))[: len(others)]
        pairs = [
            (read, confidence),
            (truth, shape.truth * scale),
            *((v, p * scale) for v, p in zip(others, rest, strict=True)),
        ]
        return Reading(
            read,
            confidence,
            tuple(sorted((pair for pair in pairs if pair[1] > 0.0), key=lambda pair: -pair[1])),
        )

    def _unsure_chances(self, kind: str, element: str, truth: Value, u: float) -> Reading | None:
        shape = self._shape(kind, False, u)
        if shape is None:
            return None
        # the other values in the order the true value is most often read as them
        counts = self.errors.kinds[kind].values.get(_key(truth))
        others = sorted(
            self._others(element, truth),
            key=lambda v: (-(counts.wrong.get(_key(v), 0) if counts else 0), repr(v)),
        )
        rest = (list(shape.rest) + [0.0] * len(others))[: len(others)]
        pairs = [(truth, shape.truth), *zip(others, rest, strict=True)]
        if not sum(p for _, p in pairs) > 0.0:
            return None
        return Reading.weighed(pairs, shown=False, scaled=False)


@dataclass(frozen=True)
class _Shape:
    """A measured wrong or unsure reading's probabilities (something else left out)."""

    truth: float
    """The true value's."""
    read: float
    """The value read's (0 when unsure)."""
    rest: tuple[float, ...]
    """The other values', largest first."""

    @classmethod
    def of(cls, uncertain: Mapping[str, Any]) -> _Shape:
        truth, read = _str(uncertain["value"]), _str(uncertain["read"])
        chances = {str(name): float(p) for name, p in uncertain["chances"] if name != OTHER}
        return cls(
            chances.pop(truth, 0.0) if truth is not None else 0.0,
            chances.pop(read, 0.0) if read is not None else 0.0,
            tuple(sorted(chances.values(), reverse=True)),
        )


def _str(value: Any) -> str | None:
    """A value as the appearance reader names it among its probabilities."""
    return None if value is None else str(value)


def _confidence_in(
    cumulative: Sequence[float], u_bin: float, u_within: float
) -> tuple[float, float]:
    """A confidence drawn evenly within a bin drawn by ``cumulative``, and ``u_bin``
    rescaled within the bin's share."""
    index, rest = _pick(cumulative, u_bin)
    low, high = CHANCE_EDGES[index], CHANCE_EDGES[index + 1]
    return low + u_within * (high - low), rest


def element_kinds(game: str, elements: Iterable[str]) -> dict[str, str]:
    """The board model's kind of each of ``elements`` that the camera reads on the board
    (stack heights and elements off the board left out)."""
    model = load_model(game)
    return {e: model.elements[e].kind for e in elements if e in model.elements}


def rates_line(errors: ValueErrors) -> str:
    """Right / wrong / unsure / not shown as percentages."""
    return (
        ", ".join(f"{name.replace('_', ' ')} {100 * errors.rate(name):.3f}%" for name in OUTCOMES)
        + f" of {errors.total}"
    )


def upper_rate(count: int, total: int) -> float:
    """A one-sided 95% upper bound of a rate seen ``count`` times in ``total`` (the rule
    of three when nothing was seen)."""
    if total == 0:
        return 1.0
    if count == 0:
        return 3.0 / total
    p = count / total
    return p + 1.645 * math.sqrt(p * (1 - p) / total)
