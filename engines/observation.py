"""What a physical set shows, element by element: the input of the referee.

An ``Observation`` maps each element of a game's table (a Shangri-La space, a bridge,
a Shendao gate, ...) to a ``Reading``: a value, or ``None`` when the element cannot be
seen (a hand over it, out of view), with a confidence in [0, 1]. The camera, the sensor
board and a person typing all produce observations of the same shape, so the referee
need not know where one came from, and two sources of one moment can be ``merge``d (a
sensor board sees stack heights that a camera above the table cannot).

Each game defines its ``TableSchema`` (element names, in a fixed order, and the values
each may take) and the observation a state should produce (``expected``), beside its
engine; see ``engines.shangrila.observation``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engines.errors import RecordError

Value = str | int | bool
"""A reading's value: a colour or state name, a count, a presence flag."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One element's reading: ``value`` (``None``: unknown) and its confidence."""

    value: Value | None
    confidence: float = 1.0

    @property
    def known(self) -> bool:
        return self.value is not None


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
        if value is not None and not any(
                value == a and type(value) is type(a) for a in allowed):
            shown = ", ".join(sorted(repr(a) for a in allowed))
            raise RecordError(f"{element!r} cannot read {value!r} (expected one of {shown})")


class Observation(Mapping[str, Reading]):
    """Readings for every element of a ``TableSchema``; immutable.

    Construct with ``Observation(schema, {element: Reading or value, ...})``: elements
    left out are unknown; a bare value means a reading with confidence 1. Raises
    ``RecordError`` for an unknown element or a value the element cannot take.
    """

    __slots__ = ("_readings", "schema")

    def __init__(self, schema: TableSchema,
                 readings: Mapping[str, Reading | Value | None] | None = None) -> None:
        self.schema = schema
        values: dict[str, Reading] = {}
        for element, reading in (readings or {}).items():
            if not isinstance(reading, Reading):
                reading = UNKNOWN if reading is None else Reading(reading, 1.0)
            schema.check(element, reading.value)
            if not 0.0 <= reading.confidence <= 1.0:
                raise RecordError(f"{element!r}: confidence must be within 0 and 1")
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
        the more confident value, less sure by the other's confidence."""
        if other.schema.game != self.schema.game:
            raise RecordError(f"cannot merge a {other.schema.game} observation into "
                              f"a {self.schema.game} one")
        out: dict[str, Reading | Value | None] = {}
        for element in self.schema.elements:
            a, b = self[element], other[element]
            if not b.known:
                out[element] = a
            elif not a.known:
                out[element] = b
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
            if (a.known and b.known and a.confidence >= min_confidence
                    and (a.value != b.value or type(a.value) is not type(b.value))):
                out.append(element)
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"game": ..., "readings": {element: value or [value, confidence]}}``;
        unknown elements are left out."""
        readings: dict[str, Any] = {}
        for element, reading in self._readings.items():
            if reading.known:
                readings[element] = (reading.value if reading.confidence == 1.0
                                     else [reading.value, round(reading.confidence, 4)])
        return {"game": self.schema.game, "readings": readings}

    @classmethod
    def from_json(cls, schema: TableSchema, data: Any) -> Observation:
        """Read ``to_json``'s format. Raises ``RecordError`` for the wrong shape."""
        if not isinstance(data, Mapping) or not isinstance(data.get("readings"), Mapping):
            raise RecordError('an observation is {"game": ..., "readings": {element: value}}')
        if data.get("game", schema.game) != schema.game:
            raise RecordError(f"an observation of {data.get('game')!r} where "
                              f"{schema.game!r} was expected")
        readings: dict[str, Reading | Value | None] = {}
        for element, raw in data["readings"].items():
            if isinstance(raw, list):
                if len(raw) != 2 or not isinstance(raw[1], int | float):
                    raise RecordError(f"{element!r}: expected a value or [value, confidence]")
                readings[element] = Reading(raw[0], float(raw[1]))
            else:
                readings[element] = raw
        return cls(schema, readings)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return NotImplemented
        return self.schema.game == other.schema.game and all(
            self[e] == other[e] for e in self.schema.elements)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        known = {e: r for e, r in self._readings.items() if r.known}
        return f"<Observation {self.schema.game} {len(known)}/{len(self)} known>"


def known_elements(observation: Observation, elements: Iterable[str]) -> list[str]:
    """The ``elements`` that ``observation`` can see."""
    return [e for e in elements if observation[e].known]
