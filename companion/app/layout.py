"""The digital board: where each table element is drawn, and what it looks like for a
reading, as plain shapes in board millimetres. The board widget only scales and draws
them, so what a value looks like is decided here, once, and tested without Kivy.

Positions come from the camera's board models (``vision/models/<game>.json``), so the
digital board and the camera overlay agree on where things are. What lies beside the
board (ShenShi's path tokens) is drawn as bars in the board's bottom margin.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from companion.referee.inference import table_model
from engines import rules_class
from engines.observation import Observation, Value
from vision.models import load_model

RGBA = tuple[float, float, float, float]

PLAYER_RGBA: dict[str, RGBA] = {
    "red": (0.78, 0.16, 0.16, 1),
    "blue": (0.08, 0.40, 0.75, 1),
    "yellow": (0.98, 0.75, 0.15, 1),
    "violet": (0.42, 0.11, 0.60, 1),
    "light": (0.93, 0.86, 0.70, 1),
    "dark": (0.30, 0.20, 0.15, 1),
    "silver": (0.75, 0.75, 0.78, 1),
    "copper": (0.72, 0.45, 0.20, 1),
    "gold": (0.83, 0.69, 0.22, 1),
    "black": (0.10, 0.10, 0.10, 1),
}
"""Each player's colour on screen (the pieces' colours)."""
BOARD_RGBA: RGBA = (0.93, 0.90, 0.80, 1)
LINE_RGBA: RGBA = (0.35, 0.30, 0.25, 1)
HIGHLIGHT_RGBA: RGBA = (0.95, 0.05, 0.05, 1)
SUGGEST_RGBA: RGBA = (0.10, 0.70, 0.20, 1)
FAINT_RGBA: RGBA = (0.35, 0.30, 0.25, 0.25)
WALL_RGBA: RGBA = (0.80, 0.10, 0.10, 1)
"""Shendao's walls, printed red like its always-closed gates."""


@dataclass(frozen=True)
class Spot:
    """Where one element is drawn: a rectangle ``size`` (mm) centred at ``centre``,
    turned by ``angle`` degrees (clockwise, y down), of a ``kind`` of the game."""

    kind: str
    centre: tuple[float, float]
    size: tuple[float, float]
    angle: float = 0.0


@dataclass(frozen=True)
class Shape:
    """One thing to draw: ``rect``, ``ellipse`` (filled) or ``outline`` (a rectangle's
    border, ``width`` mm) in board millimetres."""

    shape: str
    centre: tuple[float, float]
    size: tuple[float, float]
    rgba: RGBA
    angle: float = 0.0
    width: float = 0.0


@dataclass(frozen=True)
class BoardLayout:
    """A game's board: its size, every element's spot, and what is printed on it
    (village circles, walls) as background shapes."""

    game: str
    size: tuple[float, float]
    spots: Mapping[str, Spot]
    background: tuple[Shape, ...]

    def spot(self, element: str) -> Spot | None:
        """Where ``element`` is drawn; a stack height (``4H^``) on its space."""
        return self.spots.get(element) or self.spots.get(element.removesuffix("^"))


@cache
def board_layout(game: str) -> BoardLayout:
    """The layout of ``game``'s board. Raises ``ModelError`` (a ``ValueError``) for a
    game without a board model or a model that cannot be read."""
    return layout_of_model(game, load_model(game))


def layout_of_model(game: str, model: Any) -> BoardLayout:
    """The layout drawn from a board model (``vision.models.BoardModel``): the game's
    own, or the one fitted to the player's board at calibration."""
    spots = {
        name: Spot(e.kind, e.centre_mm, e.size_mm, e.angle_deg)
        for name, e in model.elements.items()
    }
    spots.update(_off_board(game, model.size_mm))
    background: list[Shape] = [
        Shape(
            "ellipse",
            v.centre_mm,
            (2 * v.radius_mm, 2 * v.radius_mm),
            (0.80, 0.86, 0.72, 1) if not v.red else (0.88, 0.74, 0.70, 1),
        )
        for v in model.villages
    ]
    for (x0, y0), (x1, y1) in model.walls:
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        size = (max(abs(x1 - x0), 4.0), max(abs(y1 - y0), 4.0))
        background.append(Shape("rect", centre, size, WALL_RGBA))
    return BoardLayout(game, model.size_mm, spots, tuple(background))


OFF_BOARD_STRIP_MM = 25.0
"""How far from the bottom edge the off-board counts (ShenShi's path tokens) are drawn:
in the board's margin, one bar per player."""


def _off_board(game: str, size: tuple[float, float]) -> dict[str, Spot]:
    """Spots in the bottom margin for elements that lie beside the board."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(cls.max_players), {})
    names = [e for e in table_model(game).schema(rules).elements if e.startswith("tokens ")]
    if not names:
        return {}
    width = size[0] / (len(names) + 1)
    y = size[1] - OFF_BOARD_STRIP_MM
    return {
        name: Spot("tokens", ((i + 1) * width, y), (0.8 * width, 12.0))
        for i, name in enumerate(names)
    }


def _rgba(value: Value | None) -> RGBA | None:
    return PLAYER_RGBA.get(str(value)) if value is not None else None


def element_shapes(layout: BoardLayout, element: str, value: Value | None) -> list[Shape]:
    """What ``element`` looks like reading ``value`` (nothing for an unknown reading)."""
    spot = layout.spot(element)
    if spot is None or value is None:
        return []
    c, s, a = spot.centre, spot.size, spot.angle
    kind = spot.kind
    if kind in ("space", "square", "tile"):
        if element.endswith("^"):  # a Shangri-La stack: a student shows as a centre mark
            return (
                [Shape("ellipse", c, (0.45 * s[0], 0.45 * s[1]), (1, 1, 1, 0.9))]
                if value == 2
                else []
            )
        base = [Shape("outline", c, s, FAINT_RGBA, a, 0.6)]
        if kind == "tile":
            fill = {"intact": (0.95, 0.80, 0.35, 1), "faded": (0.85, 0.80, 0.70, 1)}.get(str(value))
            return base + ([Shape("rect", c, (0.92 * s[0], 0.92 * s[1]), fill, a)] if fill else [])
        colour = _rgba(value)
        return base + ([Shape("rect", c, (0.88 * s[0], 0.88 * s[1]), colour, a)] if colour else [])
    if kind == "bridge":
        return (
            [Shape("rect", c, s, (0.55, 0.35, 0.15, 1), a)]
            if value is True
            else [Shape("outline", c, s, FAINT_RGBA, a, 0.8)]
        )
    if kind == "stone":
        return [Shape("ellipse", c, s, (0.45, 0.45, 0.50, 1))] if value is True else []
    if kind == "gate":
        return (
            [Shape("rect", c, s, (0.80, 0.10, 0.10, 1), a)]
            if value == "closed"
            else [Shape("outline", c, s, FAINT_RGBA, a, 0.5)]
        )
    if kind == "cushion":
        fill = {"blond": (0.96, 0.87, 0.55, 1), "orange": (0.95, 0.55, 0.15, 1)}.get(str(value))
        return [Shape("ellipse", c, s, fill)] if fill else []
    if kind == "monk":
        if value == "none":
            return []
        metal, _, size = str(value).partition("-")
        scale = 1.0 if size == "grand" else 0.7
        colour = PLAYER_RGBA.get(metal, LINE_RGBA)
        return [
            Shape("ellipse", c, (s[0] * scale + 2, s[1] * scale + 2), LINE_RGBA),
            Shape("ellipse", c, (s[0] * scale, s[1] * scale), colour),
        ]
    if kind == "tokens":
        count = int(value) if isinstance(value, int) else 0
        width = s[0] * min(1.0, count / 30)
        return (
            [
                Shape("outline", c, s, FAINT_RGBA, 0, 0.6),
                Shape(
                    "rect", (c[0] - (s[0] - width) / 2, c[1]), (width, s[1]), (0.83, 0.69, 0.22, 1)
                ),
            ]
            if count
            else [Shape("outline", c, s, FAINT_RGBA, 0, 0.6)]
        )
    return []


def paint(
    layout: BoardLayout,
    table: Observation,
    highlight: Collection[str] = (),
    suggest: Collection[str] = (),
) -> list[Shape]:
    """Everything to draw, back to front: the board, each element as ``table`` reads
    it, then red frames on ``highlight`` (what to put back) and green ones on
    ``suggest`` (a hint or an engine's move)."""
    w, h = layout.size
    shapes = [Shape("rect", (w / 2, h / 2), (w, h), BOARD_RGBA), *layout.background]
    # Spaces and squares first, stacks, bridges, stones and monks over them.
    order = {
        "space": 0,
        "square": 0,
        "tile": 0,
        "cushion": 1,
        "bridge": 2,
        "gate": 2,
        "stone": 3,
        "monk": 3,
        "tokens": 0,
    }
    elements = sorted(table, key=lambda e: (order.get(_kind(layout, e), 0), e.endswith("^")))
    for element in elements:
        shapes.extend(element_shapes(layout, element, table.value(element)))
    shapes.extend(frame_shapes(layout, highlight, HIGHLIGHT_RGBA))
    shapes.extend(frame_shapes(layout, suggest, SUGGEST_RGBA))
    return shapes


def frame_shapes(layout: BoardLayout, elements: Collection[str], rgba: RGBA) -> list[Shape]:
    """A thick frame around each of ``elements``."""
    out = []
    for element in elements:
        spot = layout.spot(element)
        if spot is not None:
            grow = 6.0
            out.append(
                Shape(
                    "outline",
                    spot.centre,
                    (spot.size[0] + grow, spot.size[1] + grow),
                    rgba,
                    spot.angle,
                    3.0,
                )
            )
    return out


def _kind(layout: BoardLayout, element: str) -> str:
    spot = layout.spot(element)
    return spot.kind if spot is not None else ""
