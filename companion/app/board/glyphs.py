"""The symbols of Shangri-La's seven disciplines, drawn as a few strokes and dots: the
app's own simple pictures, one per discipline, readable at the size of a space.

Each glyph is given in a unit box (x right, y down, -1 to 1) and placed with
:func:`place`. Pure data and arithmetic: the board widget draws the strokes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Glyph:
    """Polylines (``closed`` ones are shapes, the rest lines) and dots (x, y, radius)."""

    lines: tuple[tuple[Point, ...], ...]
    closed: tuple[tuple[Point, ...], ...]
    dots: tuple[tuple[float, float, float], ...] = ()


def _arc(
    cx: float, cy: float, rx: float, ry: float, start: float, end: float, steps: int = 12
) -> tuple[Point, ...]:
    """Points on an ellipse from ``start`` to ``end`` degrees (0 to the right, clockwise
    on screen since y points down)."""
    return tuple(
        (
            cx + rx * math.cos(math.radians(start + (end - start) * i / steps)),
            cy + ry * math.sin(math.radians(start + (end - start) * i / steps)),
        )
        for i in range(steps + 1)
    )


def _star(points: int, outer: float, inner: float) -> tuple[Point, ...]:
    corners = []
    for i in range(2 * points):
        radius = outer if i % 2 == 0 else inner
        angle = math.radians(-90 + 180 * i / points)
        corners.append((radius * math.cos(angle), radius * math.sin(angle) + 0.08))
    return tuple(corners)


GLYPHS: dict[str, Glyph] = {
    # Rainmaker: a cloud and three lines of rain.
    "R": Glyph(
        lines=(
            ((-0.40, 0.30), (-0.58, 0.85)),
            ((0.00, 0.30), (-0.18, 0.85)),
            ((0.40, 0.30), (0.22, 0.85)),
        ),
        closed=(
            _arc(-0.35, 0.05, 0.42, 0.30, 90, 270, 8)
            + _arc(0.05, -0.20, 0.45, 0.42, 180, 360, 10)
            + _arc(0.48, 0.05, 0.38, 0.30, 270, 450, 8),
        ),
    ),
    # Priest: a temple bell with its clapper.
    "P": Glyph(
        lines=(((-0.05, -0.95), (-0.05, -0.70)),),
        closed=(
            (
                (-0.40, -0.70),
                (0.30, -0.70),
                (0.40, 0.05),
                (0.75, 0.45),
                (-0.85, 0.45),
                (-0.50, 0.05),
            ),
        ),
        dots=((-0.05, 0.68, 0.20),),
    ),
    # Yeti-whisperer: a big footprint, sole and three toes.
    "Y": Glyph(
        lines=(),
        closed=(_arc(0.0, 0.30, 0.45, 0.60, 0, 360, 16),),
        dots=((-0.50, -0.55, 0.18), (-0.02, -0.78, 0.18), (0.46, -0.55, 0.18)),
    ),
    # Astrologer: a five-pointed star.
    "A": Glyph(lines=(), closed=(_star(5, 0.95, 0.40),)),
    # Dragonbreeder: an egg with a crack.
    "D": Glyph(
        lines=(((-0.55, 0.05), (-0.25, -0.15), (0.0, 0.10), (0.25, -0.15), (0.55, 0.05)),),
        closed=(
            _arc(0.0, 0.15, 0.62, 0.80, 0, 180, 10)
            + _arc(0.0, 0.15, 0.62, 1.05, 180, 360, 10)[1:-1],
        ),
    ),
    # Healer: a cross.
    "H": Glyph(
        lines=(),
        closed=(
            (
                (-0.25, -0.85),
                (0.25, -0.85),
                (0.25, -0.25),
                (0.85, -0.25),
                (0.85, 0.25),
                (0.25, 0.25),
                (0.25, 0.85),
                (-0.25, 0.85),
                (-0.25, 0.25),
                (-0.85, 0.25),
                (-0.85, -0.25),
                (-0.25, -0.25),
            ),
        ),
    ),
    # Firekeeper: a flame with a smaller one inside.
    "F": Glyph(
        lines=(((0.0, 0.75), (-0.22, 0.40), (0.0, 0.05), (0.22, 0.40), (0.0, 0.75)),),
        closed=(
            (
                (0.0, 0.90),
                (-0.55, 0.55),
                (-0.55, 0.05),
                (-0.25, -0.35),
                (-0.10, -0.05),
                (0.0, -0.95),
                (0.30, -0.40),
                (0.55, 0.00),
                (0.55, 0.55),
            ),
        ),
    ),
}
"""Each discipline's glyph, by the letter used in the notation and the board's
element names (``4H`` is the Healer space of village 4)."""


def place(glyph: Glyph, centre: Point, half: float) -> Glyph:
    """``glyph`` scaled so its unit box is ``2 * half`` wide, centred at ``centre``."""
    cx, cy = centre

    def move(points: tuple[Point, ...]) -> tuple[Point, ...]:
        return tuple((cx + x * half, cy + y * half) for x, y in points)

    return Glyph(
        tuple(move(p) for p in glyph.lines),
        tuple(move(p) for p in glyph.closed),
        tuple((cx + x * half, cy + y * half, r * half) for x, y, r in glyph.dots),
    )
