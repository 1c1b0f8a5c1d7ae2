"""What a physical set shows, element by element: the input of the referee.

An ``Observation`` maps each element of a game's table (a Shangri-La space, a bridge,
a Shendao gate, ...) to a ``Reading``: a value, or ``None`` when the element cannot be
seen (a hand over it, out of view), with a confidence in [0, 1]. A reader that weighs
every value an element may take (the camera's appearance reader) also gives the
reading's ``chances``: the probability of each value, best first; a reading too unsure
to show a value may still carry them. The camera, the sensor board and a person typing
all produce observations of the same shape, so the referee need not know where one
came from, and two sources of one moment can be ``merge``d (a sensor board sees stack
heights that a camera above the table cannot).

Each game defines its ``TableSchema`` (element names, in a fixed order, and the values
each may take) and its table model (``engines.table_model.TableModel``: the
observation a state should produce, and more), beside its engine; see
``engines.shangrila.observation``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engines.errors import RecordError

Value = str | int | bool
"""A reading's value: a colour or state name, a count, a presence flag."""


Chances = tuple[tuple[Value, float], ...]
"""The probability of each value an element may take, best first; values left out
share what the listed ones leave (nothing, when they sum to 1)."""

LEAST_CHANCE = 1e-3
"""No value is ever taken as impossible: a reading's chance of any value is at least
this (a reader can be wrong in ways its own probabilities do not know)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One element's reading: ``value`` (``None``: unknown) and its confidence, and,
    from a reader that weighs every value, ``chances`` (see ``Chances``). With chances,
    ``confidence`` is the chance of ``value`` (0 when ``value`` is ``None``); build
    such a reading with ``Reading.weighed``."""

    value: Value | None
    confidence: float = 1.0
    chances: Chances | None = None

    @property
    def known(self) -> bool:
        return self.value is not None

    @property
    def evidence(self) -> bool:
        """Whether the reading tells anything about its element (a value or chances)."""
        return self.value is not None or self.chances is not None

    @classmethod
    def weighed(
        cls,
        chances: Mapping[Value, float] | Iterable[tuple[Value, float]],
        *,
        shown: bool = True,
        scaled: bool = True,
    ) -> Reading:
        """The reading of an element whose values have these probabilities (sorted
        best first, ties in their order; ``scaled`` to sum to 1, else kept as they
        are when they sum to at most 1): showing the likeliest value, or no value when
        not ``shown`` (too unsure to show one). Raises ``ValueError`` for no positive
        probability, a negative or repeated one."""
        pairs = list(chances.items() if isinstance(chances, Mapping) else chances)
        if any(not p >= 0.0 for _, p in pairs):
            raise ValueError("a chance must be a number at least 0")
        if len({_key(v) for v, _ in pairs}) != len(pairs):
            raise ValueError("a value has two chances")
        total = math.fsum(p for _, p in pairs)
        if not total > 0.0 or math.isinf(total):
            raise ValueError("chances need a positive, finite total")
        if not scaled and total <= 1.0:
            total = 1.0
        ordered = tuple(
            sorted(((v, p / total) for v, p in pairs if p > 0.0), key=lambda pair: -pair[1])
        )
        best, p = ordered[0]
        return cls(best, p, ordered) if shown else cls(None, 0.0, ordered)

    def chance(self, value: Value, count: int) -> float:
        """How likely this reading is if the element truly shows ``value``, one of
        ``count`` values it may take: its chance when the reading has chances (values
        left out share what the listed leave); for a plain reading, its confidence
        for the value read and the rest shared evenly by the others; the same for
        every value (no evidence) for an unknown reading without chances. Never below
        ``LEAST_CHANCE``."""
        if self.chances is not None:
            listed = 0.0
            for v, p in self.chances:
                if v == value and type(v) is type(value):
                    return max(p, LEAST_CHANCE)
                listed += p
            left = count - len(self.chances)
            return max((1.0 - listed) / left if left > 0 else 0.0, LEAST_CHANCE)
        if self.value is None:
            return 1.0
        if self.value == value and type(self.value) is type(value):
            return max(self.confidence, LEAST_CHANCE)
        return max((1.0 - self.confidence) / max(count - 1, 1), LEAST_CHANCE)


def _key(value: Value) -> tuple[str, Value]:
    """A dict key keeping True and 1 apart."""
    return (type(value).__name__, value)


UNKNOWN = Reading(None, 0.0)


@dataclass(frozen=True)
class TableSchema:
    """The elements of one game's table (in a fixed order) and their allowed values."""

    game: str
    elements: tuple[str, ...]
    values: Mapping[str, frozenset[Value]]
    """Allowed values per element."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {name: i for i, name in enumerate(self.elements)})

    def check(self, element: str, value: Value | None) -> None:
        """Raise ``RecordError`` unless ``value`` may be read on ``element``."""
        allowed = self.values.get(element)
        if allowed is None:
            raise RecordError(f"{self.game} has no table element {element!r}")
        # bool is an int in Python: keep True/False and 1/0 apart
        if value is not None and not any(value == a and type(value) is type(a) for a in allowed):
            shown = ", ".join(sorted(repr(a) for a in allowed))
            raise RecordError(f"{element!r} cannot read {value!r} (expected one of {shown})")


def same_value(a: Value | None, b: Value | None) -> bool:
    """Whether two values read are the same, in type too (the flag True is not the
    count 1)."""
    return a == b and type(a) is type(b)


class Observation(Mapping[str, Reading]):
    """Readings for every element of a ``TableSchema``; immutable.

    Construct with ``Observation(schema, {element: Reading or value, ...})``: elements
    left out are unknown; a bare value means a reading with confidence 1. Raises
    ``RecordError`` for an unknown element or a value the element cannot take.
    """

    __slots__ = ("_readings", "schema")

    def __init__(
        self, schema: TableSchema, readings: Mapping[str, Reading | Value | None] | None = None
    ) -> None:
        self.schema = schema
        values: dict[str, Reading] = {}
        for element, reading in (readings or {}).items():
            if not isinstance(reading, Reading):
                reading = UNKNOWN if reading is None else Reading(reading, 1.0)
            schema.check(element, reading.value)
            if not 0.0 <= reading.confidence <= 1.0:
                raise RecordError(f"{element!r}: confidence must be within 0 and 1")
            if reading.chances is not None:
                _check_chances(schema, element, reading.chances)
            values[element] = reading
        self._readings = values

    @classmethod
    def trusted(cls, schema: TableSchema, readings: dict[str, Reading]) -> Observation:
        """Build without checking: for engines producing readings they know are valid
        (``expected`` runs once per legal move during inference)."""
        self = cls.__new__(cls)
        self.schema = schema
        self._readings = readings
        return self

    def __getitem__(self, element: str) -> Reading:
        reading = self._readings.get(element)
        if reading is not None:
            return reading
        if element not in self.schema.values:
            raise KeyError(element)
        return UNKNOWN

    def __iter__(self) -> Iterator[str]:
        return iter(self.schema.elements)

    def __len__(self) -> int:
        return len(self.schema.elements)

    def value(self, element: str) -> Value | None:
        return self[element].value

    def replace(self, readings: Mapping[str, Reading | Value | None]) -> Observation:
        """A copy with some readings replaced."""
        merged: dict[str, Reading | Value | None] = dict(self._readings)
        merged.update(readings)
        return type(self)(self.schema, merged)

    def merge(self, other: Observation) -> Observation:
        """Combine two sources of the same moment, element by element: an unknown reading
        takes the other's; agreeing readings grow more confident; disagreeing ones keep
        the more confident value, less sure by the other's confidence. When either
        reading has chances, the two are weighed together: each value's chance is the
        product of its chances under both readings (``Reading.chance``), scaled to sum
        to 1; the result shows its likeliest value when either reading showed one."""
        if other.schema.game != self.schema.game:
            raise RecordError(
                f"cannot merge a {other.schema.game} observation into a {self.schema.game} one"
            )
        out: dict[str, Reading | Value | None] = {}
        for element in self.schema.elements:
            a, b = self[element], other[element]
            if not b.evidence:
                out[element] = a
            elif not a.evidence:
                out[element] = b
            elif a.chances is not None or b.chances is not None:
                out[element] = _weigh_together(self.schema.values[element], a, b)
            elif a.value == b.value and type(a.value) is type(b.value):
                out[element] = Reading(a.value, 1 - (1 - a.confidence) * (1 - b.confidence))
            else:
                hi, lo = (a, b) if a.confidence >= b.confidence else (b, a)
                out[element] = Reading(hi.value, max(0.0, hi.confidence - lo.confidence))
        return type(self)(self.schema, out)

    def differences(self, other: Observation, *, min_confidence: float = 0.0) -> list[str]:
        """Elements known in both, at least ``min_confidence`` sure in ``self``, whose
        values differ."""
        out = []
        for element in self.schema.elements:
            a, b = self[element], other[element]
            if (
                a.known
                and b.known
                and a.confidence >= min_confidence
                and (a.value != b.value or type(a.value) is not type(b.value))
            ):
                out.append(element)
        return out

    def values_unlike(self, other: Observation) -> dict[str, Value | None]:
        """The values of ``self`` on the elements where ``other`` shows another value
        (an unknown reading shows None). Quick: the referee compares thousands of
        expected tables with one."""
        mine, theirs = self._readings, other._readings
        out: dict[str, Value | None] = {}
        for element in mine.keys() | theirs.keys():
            a, b = mine.get(element), theirs.get(element)
            va = None if a is None else a.value
            vb = None if b is None else b.value
            if va != vb or type(va) is not type(vb):
                out[element] = va
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"game": ..., "readings": {element: reading}}``, a reading being its value
        (sure), ``[value, confidence]``, or with chances ``{value: chance, ...}`` (best
        first; the value shown is the first), or ``[null, {value: chance, ...}]`` when
        too unsure to show a value. A value that is a count or a flag is written as a
        JSON number or ``true``/``false``, and as ``"2"`` or ``"true"`` among chances.
        Unknown elements without chances are left out."""
        readings: dict[str, Any] = {}
        for element, reading in self._readings.items():
            if reading.evidence:
                readings[element] = reading_to_json(reading)
        return {"game": self.schema.game, "readings": readings}

    @classmethod
    def from_json(cls, schema: TableSchema, data: Any) -> Observation:
        """Read ``to_json``'s format. Raises ``RecordError`` for the wrong shape."""
        if not isinstance(data, Mapping) or not isinstance(data.get("readings"), Mapping):
            raise RecordError('an observation is {"game": ..., "readings": {element: value}}')
        if data.get("game", schema.game) != schema.game:
            raise RecordError(
                f"an observation of {data.get('game')!r} where {schema.game!r} was expected"
            )
        readings: dict[str, Reading | Value | None] = {
            element: reading_from_json(schema, element, raw)
            for element, raw in data["readings"].items()
        }
        return cls(schema, readings)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return self.schema.game == other.schema.game and all(
            self[e] == other[e] for e in self.schema.elements
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        known = {e: r for e, r in self._readings.items() if r.known}
        return f"<Observation {self.schema.game} {len(known)}/{len(self)} known>"


def known_elements(observation: Observation, elements: Iterable[str]) -> list[str]:
    """The ``elements`` that ``observation`` can see."""
    return [e for e in elements if observation[e].known]


def reading_to_json(reading: Reading) -> Any:
    """One reading in ``Observation.to_json``'s form (``null`` for an unknown one
    without chances)."""
    if reading.chances is not None:
        chances = {_chance_key(v): round(p, 4) for v, p in reading.chances}
        best = reading.chances[0][0]
        if reading.value == best and type(reading.value) is type(best):
            return chances
        return [reading.value, chances]
    if reading.known and reading.confidence != 1.0:
        return [reading.value, round(reading.confidence, 4)]
    return reading.value


def reading_from_json(schema: TableSchema, element: str, raw: Any) -> Reading | Value | None:
    """Read ``reading_to_json``'s form of ``element``'s reading: a ``Reading``, or a
    bare value (or ``None``) that ``Observation`` takes as a sure reading (or unknown).
    Raises ``RecordError`` for the wrong shape; ``Observation`` checks the value."""
    if isinstance(raw, Mapping):
        return _weighed_from_json(schema, element, raw, None, True)
    if isinstance(raw, list):
        if len(raw) == 2 and isinstance(raw[1], Mapping):
            return _weighed_from_json(schema, element, raw[1], raw[0], raw[0] is not None)
        if len(raw) != 2 or isinstance(raw[1], bool) or not isinstance(raw[1], int | float):
            raise RecordError(
                f"{element!r}: expected a value, [value, confidence] or {{value: chance, ...}}"
            )
        return Reading(raw[0], float(raw[1]))
    if raw is None or isinstance(raw, str | int | float):
        return raw  # type: ignore[return-value]  # a float is refused by the schema
    raise RecordError(
        f"{element!r}: expected a value, [value, confidence] or {{value: chance, ...}}"
    )


def _check_chances(schema: TableSchema, element: str, chances: Chances) -> None:
    """Raise ``RecordError`` unless ``chances`` are probabilities of values the
    element may take, summing to at most 1."""
    total = 0.0
    for value, p in chances:
        schema.check(element, value)
        if not 0.0 <= p <= 1.0:
            raise RecordError(f"{element!r}: a chance must be within 0 and 1")
        total += p
    if total > 1.0 + 1e-6:
        raise RecordError(f"{element!r}: chances add up to more than 1")


def _weigh_together(values: frozenset[Value], a: Reading, b: Reading) -> Reading:
    """Two readings of one element with chances (or one plain), combined: the product
    of each value's chances, scaled to sum to 1."""
    count = len(values)
    listed = {_key(v): v for v, _ in (a.chances or ()) + (b.chances or ())}
    for reading in (a, b):
        if reading.value is not None:
            listed.setdefault(_key(reading.value), reading.value)
    if len(listed) < count:  # every value matters when a reading leaves some out
        listed.update((_key(v), v) for v in values)
    products = [(v, a.chance(v, count) * b.chance(v, count)) for v in listed.values()]
    total = math.fsum(p for _, p in products)
    kept = [(v, p) for v, p in products if p / total >= LEAST_CHANCE / 10]
    return Reading.weighed(kept, shown=a.known or b.known)


def _chance_key(value: Value) -> str:
    """A value as a key of a JSON object: a name as it is, a count or flag as JSON
    writes it (``"2"``, ``"true"``)."""
    return value if isinstance(value, str) else json.dumps(value)


def _weighed_from_json(
    schema: TableSchema, element: str, raw: Mapping[Any, Any], value: Any, shown: bool
) -> Reading:
    """A reading with chances from its JSON object (see ``Observation.to_json``)."""
    allowed = schema.values.get(element)
    if allowed is None:
        raise RecordError(f"{schema.game} has no table element {element!r}")
    by_key: dict[str, Value] = {}
    for v in allowed:
        by_key[_chance_key(v)] = v
        by_key.setdefault(str(v), v)  # "True", as Python writes it
    pairs: list[tuple[Value, float]] = []
    for key, p in raw.items():
        if key not in by_key:
            shown_values = ", ".join(sorted(by_key))
            raise RecordError(f"{element!r} cannot read {key!r} (expected one of {shown_values})")
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
            raise RecordError(f"{element!r}: the chance of {key!r} must be a number within 0 and 1")
        pairs.append((by_key[key], float(p)))
    if sum(p for _, p in pairs) > 1.01:  # more than rounding to four places can add
        raise RecordError(f"{element!r}: chances add up to more than 1")
    try:
        reading = Reading.weighed(pairs, shown=shown, scaled=False)
    except ValueError as error:
        raise RecordError(f"{element!r}: {error}") from None
    if value is not None:
        schema.check(element, value)
        if not (value == reading.value and type(value) is type(reading.value)):
            return Reading(value, reading.chance(value, len(allowed)), reading.chances)
    return reading
