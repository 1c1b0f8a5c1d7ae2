"""Sensor layouts and calibration tables (data: ``layouts.json``).

A board reads *positions* (a Shangri-La space, bridge or stone spot; a Shendao square
or gate; a ShenShi square), numbered in a fixed order that the protocol uses. Each
position has a *kind*, and each kind says which table elements its reading yields: the
element ``value`` (through the calibration ``codes``: sensor code -> element value) and,
for kinds with ``height``, a stack-height element. Converting readings into an
``Observation`` is driven by this table only, so a game whose schema appears needs data,
not code.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from engines import rules_class
from engines.errors import RecordError
from engines.jsontext import JSONTextError, parse_json
from engines.observation import UNKNOWN, Observation, Reading, TableSchema, Value
from firmware_bridge.errors import LayoutError, ProtocolError
from firmware_bridge.messages import (
    CODE_UNREADABLE,
    MAX_HEIGHT,
    MAX_POSITIONS,
    NO_HEIGHT,
    DeviceInfo,
    reading_byte,
    reading_code,
    reading_height,
)

NAME_FIELD = "{name}"


@dataclass(frozen=True)
class Kind:
    """One kind of position: the elements it yields and its calibration."""

    name: str
    value: str
    """Template of the value element's name (``{name}`` is the position's name)."""
    codes: Mapping[int, Value | tuple[Value, ...]] | None
    """Sensor code -> element value (with ``also``: a tuple, one value per value
    element); ``None`` while the kind is not calibrated."""
    height: str | None = None
    """Template of the stack-height element, for kinds whose sensor measures one."""
    also: tuple[str, ...] = ()
    """Templates of further value elements one code gives (a ShenShi square's code
    says both its cushion and its monk)."""

    def values(self, code: int) -> tuple[Value, ...]:
        """The values of ``code`` for each value element, in order. Raises KeyError."""
        assert self.codes is not None
        value = self.codes[code]
        return value if isinstance(value, tuple) else (value,)


@dataclass(frozen=True)
class Layout:
    """The positions of one game's board, in protocol order, and their kinds."""

    game: str
    game_id: int
    layout: int
    names: tuple[str, ...]
    kinds: tuple[Kind, ...]
    """The kind of each position (parallel to ``names``)."""

    def __post_init__(self) -> None:
        elements: dict[str, int] = {}
        for position, (name, kind) in enumerate(zip(self.names, self.kinds, strict=True)):
            for element in self._elements(name, kind):
                if element in elements:
                    raise LayoutError(
                        f"{self.game} layout: element {element!r} of "
                        f"position {position} is also position "
                        f"{elements[element]}'s"
                    )
                elements[element] = position
        object.__setattr__(self, "_by_element", elements)

    @staticmethod
    def _elements(name: str, kind: Kind) -> tuple[str, ...]:
        values = tuple(t.replace(NAME_FIELD, name) for t in (kind.value, *kind.also))
        if kind.height is None:
            return values
        return (*values, kind.height.replace(NAME_FIELD, name))

    @property
    def positions(self) -> int:
        return len(self.names)

    @property
    def calibrated(self) -> bool:
        """Whether every kind maps its codes to element values."""
        return all(kind.codes is not None for kind in self.kinds)

    @property
    def has_heights(self) -> bool:
        return any(kind.height is not None for kind in self.kinds)

    def elements(self, position: int) -> tuple[str, ...]:
        """The table elements position ``position`` yields (value elements first, then
        the height element if any)."""
        return self._elements(self.names[position], self.kinds[position])

    def position_of(self, element: str) -> int:
        """The position that shows ``element`` (a value or a height element; an LED
        command for either lights that position). Raises ``KeyError``."""
        by_element: dict[str, int] = self._by_element  # type: ignore[attr-defined]
        return by_element[element]

    def check_info(self, info: DeviceInfo) -> None:
        """Raise ``ProtocolError`` unless the device's handshake names this layout."""
        if (info.game, info.layout, info.positions) != (self.game_id, self.layout, self.positions):
            raise ProtocolError(
                f"the board is game {info.game} layout {info.layout} with "
                f"{info.positions} positions; expected {self.game} (game {self.game_id}) "
                f"layout {self.layout} with {self.positions} positions"
            )

    def describe(self, position: int, reading: int) -> str:
        """``4H: red, height 1`` — one reading in words (raw code when uncalibrated)."""
        kind = self.kinds[position]
        code, height = reading_code(reading), reading_height(reading)
        if code == CODE_UNREADABLE:
            shown = "unreadable"
        elif kind.codes is None:
            shown = f"code {code}"
        elif code in kind.codes:
            shown = ", ".join(json.dumps(v).strip('"') for v in kind.values(code))
        else:
            shown = f"uncalibrated code {code}"
        if kind.height is not None and height != NO_HEIGHT:
            shown += f", height {height}"
        return f"{self.names[position]}: {shown}"


class TableConverter:
    """Readings of one layout <-> observations of one table schema.

    Raises ``LayoutError`` when the layout is not calibrated, or when an element or a
    calibrated value does not belong to the schema.
    """

    def __init__(self, layout: Layout, schema: TableSchema, confidence: float = 1.0) -> None:
        if not layout.calibrated:
            raise LayoutError(
                f"the {layout.game} layout is not calibrated: its board "
                "streams raw codes, not observations"
            )
        if schema.game != layout.game:
            raise LayoutError(f"a {layout.game} layout cannot read a {schema.game} table")
        self.layout = layout
        self.schema = schema
        # per position: (value elements, code -> their readings, height element)
        self._plan: list[tuple[tuple[str, ...], dict[int, tuple[Reading, ...]], str | None]] = []
        self._inverse: list[dict[tuple[tuple[type, Value], ...], int]] = []
        for position in range(layout.positions):
            kind = layout.kinds[position]
            assert kind.codes is not None
            elements = layout.elements(position)
            height_element = elements[-1] if kind.height is not None else None
            value_elements = elements[:-1] if kind.height is not None else elements
            try:
                for element in elements:
                    schema.check(element, None)
                for code in kind.codes:
                    for element, value in zip(value_elements, kind.values(code), strict=True):
                        schema.check(element, value)
                if height_element is not None:
                    for h in range(MAX_HEIGHT + 1):
                        schema.check(height_element, h)
            except RecordError as error:
                raise LayoutError(
                    f"{layout.game} layout position {position} ({layout.names[position]}): {error}"
                ) from None
            readings = {
                code: tuple(Reading(v, confidence) for v in kind.values(code))
                for code in kind.codes
            }
            self._plan.append((value_elements, readings, height_element))
            self._inverse.append(
                {tuple((type(v), v) for v in kind.values(code)): code for code in kind.codes}
            )
        self._heights = [Reading(h, confidence) for h in range(MAX_HEIGHT + 1)]

    def observation(self, readings: bytes | bytearray) -> Observation:
        """The observation the readings give; unreadable positions, codes the
        calibration does not know and unmeasured heights are unknown."""
        if len(readings) != self.layout.positions:
            raise LayoutError(
                f"{len(readings)} readings for a layout of {self.layout.positions} positions"
            )
        out: dict[str, Reading] = {}
        heights = self._heights
        for reading, (value_elements, by_code, height_element) in zip(
            readings, self._plan, strict=True
        ):
            values = by_code.get(reading & 0x3F)
            for i, element in enumerate(value_elements):
                out[element] = UNKNOWN if values is None else values[i]
            if height_element is not None:
                height = reading >> 6
                out[height_element] = heights[height] if height <= MAX_HEIGHT else UNKNOWN
        return Observation.trusted(self.schema, out)

    def readings(self, observation: Observation) -> bytes:
        """The readings a board shows for ``observation`` (the device simulator's
        sensors): unknown values read as unreadable. Raises ``LayoutError`` for a value
        the calibration has no code for."""
        out = bytearray()
        for position, (value_elements, _, height_element) in enumerate(self._plan):
            values = [observation.value(e) for e in value_elements]
            if any(v is None for v in values):
                code = CODE_UNREADABLE
            else:
                key = tuple((type(v), v) for v in values)
                found = self._inverse[position].get(key)  # type: ignore[arg-type]
                if found is None:
                    shown = ", ".join(repr(v) for v in values)
                    raise LayoutError(
                        f"no sensor code reads {shown} on {', '.join(value_elements)}"
                    )
                code = found
            height = NO_HEIGHT
            if height_element is not None:
                h = observation.value(height_element)
                height = h if isinstance(h, int) and not isinstance(h, bool) else NO_HEIGHT
            out.append(reading_byte(code, height))
        return bytes(out)


@cache
def table_schema(game: str) -> TableSchema:
    """The default table schema of ``game`` (its rules with the usual players), from
    ``engines.<game>.observation``. Raises ``LayoutError`` when the game has none yet."""
    try:
        module = importlib.import_module(f"engines.{game}.observation")
    except ModuleNotFoundError as error:
        raise LayoutError(
            f"{game} has no table schema yet ({error.name}): its board streams raw readings only"
        ) from None

    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(cls.max_players), {})
    schema: TableSchema = module.schema(rules)
    return schema


# ----------------------------------------------------------------------------- loading


def _kind(game: str, name: str, data: Any) -> Kind:
    if not isinstance(data, Mapping) or NAME_FIELD not in str(data.get("value", "")):
        raise LayoutError(f"{game} kind {name!r}: needs a 'value' naming {NAME_FIELD}")
    also = tuple(str(t) for t in data.get("also", ()))
    if any(NAME_FIELD not in t for t in also):
        raise LayoutError(f"{game} kind {name!r}: every 'also' template must name {NAME_FIELD}")
    codes: dict[int, Value | tuple[Value, ...]] | None = None
    if "codes" in data:
        codes = {}
        for key, value in data["codes"].items():
            code = int(key)
            if not 0 <= code < CODE_UNREADABLE:
                raise LayoutError(
                    f"{game} kind {name!r}: code {code} is outside 0..{CODE_UNREADABLE - 1}"
                )
            if also:  # one value per value element
                if not (
                    isinstance(value, list)
                    and len(value) == 1 + len(also)
                    and all(isinstance(v, str | int | bool) for v in value)
                ):
                    raise LayoutError(
                        f"{game} kind {name!r}: code {code} must map to "
                        f"{1 + len(also)} values, not {value!r}"
                    )
                codes[code] = tuple(value)
            elif isinstance(value, str | int | bool):
                codes[code] = value
            else:
                raise LayoutError(f"{game} kind {name!r}: code {code} maps to {value!r}")
    height = data.get("height")
    if height is not None and NAME_FIELD not in height:
        raise LayoutError(f"{game} kind {name!r}: 'height' must name {NAME_FIELD}")
    return Kind(name, str(data["value"]), codes, height, also)


def _layout(game: str, data: Any) -> Layout:
    try:
        kinds = {name: _kind(game, name, spec) for name, spec in data["kinds"].items()}
        names: list[str] = []
        position_kinds: list[Kind] = []
        for group in data["positions"]:
            kind = kinds[group["kind"]]
            names += [str(n) for n in group["names"]]
            position_kinds += [kind] * len(group["names"])
        layout = Layout(
            game, int(data["game_id"]), int(data["layout"]), tuple(names), tuple(position_kinds)
        )
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise LayoutError(f"{game} layout is malformed: {error!r}") from None
    if not 0 < layout.positions <= MAX_POSITIONS:
        raise LayoutError(f"{game} layout has {layout.positions} positions (1..{MAX_POSITIONS})")
    return layout


def load_layouts(path: str | Path | None = None) -> dict[str, Layout]:
    """Every game's layout, from ``path`` or the packaged ``layouts.json``. Raises
    ``LayoutError`` when the file cannot be read or is inconsistent."""
    source = f"the layouts {path or 'layouts.json'}"
    try:
        if path is None:
            text: str | bytes = (
                resources.files("firmware_bridge").joinpath("layouts.json").read_text("utf-8")
            )
        else:
            text = Path(path).read_bytes()
    except OSError as error:
        raise LayoutError(f"cannot read {source}: {error.strerror or error}") from None
    try:
        data = parse_json(text, source)
    except JSONTextError as error:
        raise LayoutError(str(error)) from None
    games = data.get("layouts") if isinstance(data, dict) else None
    if not isinstance(games, dict):
        raise LayoutError(f'{source} has no "layouts" object')
    layouts = {game: _layout(game, spec) for game, spec in games.items()}
    ids = [(layout.game_id, layout.layout) for layout in layouts.values()]
    if len(set(ids)) != len(ids):
        raise LayoutError("two layouts share a game id and layout number")
    return layouts


@cache
def _packaged() -> dict[str, Layout]:
    return load_layouts()


def layout_for(game: str, path: str | Path | None = None) -> Layout:
    """The layout of ``game``. Raises ``LayoutError`` for a game without one."""
    layouts = _packaged() if path is None else load_layouts(path)
    if game not in layouts:
        raise LayoutError(f"no sensor layout for {game!r} (known: {', '.join(layouts)})")
    return layouts[game]


def layout_of(info: DeviceInfo, path: str | Path | None = None) -> Layout:
    """The layout a device's handshake names. Raises ``ProtocolError`` when unknown."""
    layouts = _packaged() if path is None else load_layouts(path)
    for layout in layouts.values():
        if (layout.game_id, layout.layout) == (info.game, info.layout):
            layout.check_info(info)
            return layout
    raise ProtocolError(f"unknown board: game {info.game} layout {info.layout}")
