"""The digital board as a map of the physical one, in board millimetres (x right, y
down): what is printed on the board (Shangri-La's numbered villages and the symbol and
letter of each space; Shendao's gates by name and its squares' names; ShenShi's
coordinates), the pieces as the table reads them (each player's colour with the
player's letter on it, so colours need not be told apart), a legend below the board,
and on top the pieces to put back (drawn bigger, in a layer the widget blinks) and the
elements a question lets the player tap.

No Kivy: :func:`compose` returns plain shapes, strokes and texts that the board widget
scales and draws, and :meth:`Scene.target_at` says what a tap at a point answers.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from companion.app.board.glyphs import GLYPHS, Glyph, place
from companion.app.layout import (
    BOARD_RGBA,
    FAINT_RGBA,
    HIGHLIGHT_RGBA,
    LINE_RGBA,
    PLAYER_RGBA,
    RGBA,
    SUGGEST_RGBA,
    BoardLayout,
    Shape,
    Spot,
    element_shapes,
)
from engines.observation import Observation, Value

Point = tuple[float, float]

INK_RGBA: RGBA = (0.22, 0.17, 0.12, 1)
"""Printed marks: glyphs, numbers, names."""
SOFT_INK_RGBA: RGBA = (0.35, 0.30, 0.25, 0.8)
"""Printed marks that must not compete with the pieces (Shendao's square names)."""
TARGET_RGBA: RGBA = (0.0, 0.80, 1.0, 1)
"""What a question lets the player tap: a bright cyan frame edged in ink."""
CHOSEN_RGBA: RGBA = (0.0, 0.80, 1.0, 0.45)
LEGEND_RGBA: RGBA = (0.86, 0.83, 0.74, 1)
VILLAGE_LEGEND_SHARE = 0.42
"""The height of Shangri-La's legend (a village drawn large beside the names), as a
share of the board's width."""
LEGEND_LINE_MM = 22.0
"""The height of a line of the legend."""

PLAYER_LETTERS = {
    "red": "R",
    "blue": "B",
    "yellow": "Y",
    "violet": "V",
    "light": "L",
    "dark": "D",
    "silver": "S",
    "copper": "C",
    "gold": "G",
    "black": "K",
}
"""The second cue of each player's colour: a letter on every piece."""
DISCIPLINES = "RPYADHF"
"""Shangri-La's disciplines by index (the engine's order), by their letters."""
SPACE_LETTER_PX = 14
"""The smallest font size of a space's letter: capitals 10 px high, readable on a
tablet at arm's length even when the board shares the screen with the camera."""


@dataclass(frozen=True)
class Text:
    """A line of text ``height`` mm high centred at ``centre`` (with ``left``, its
    left end is there)."""

    text: str
    centre: Point
    height: float
    rgba: RGBA = INK_RGBA
    bold: bool = True
    left: bool = False
    min_px: int = 0
    """The smallest font size, in pixels, it is drawn at however small the board."""


@dataclass(frozen=True)
class Stroke:
    """A polyline ``width`` mm wide; ``closed`` joins its last point to its first."""

    points: tuple[Point, ...]
    width: float
    rgba: RGBA = INK_RGBA
    closed: bool = False


@dataclass
class Layer:
    """Things drawn together, in this order: shapes, strokes, texts."""

    shapes: list[Shape] = field(default_factory=list)
    strokes: list[Stroke] = field(default_factory=list)
    texts: list[Text] = field(default_factory=list)

    def glyph(self, glyph: Glyph, width: float, rgba: RGBA) -> None:
        for points in glyph.lines:
            self.strokes.append(Stroke(points, width, rgba))
        for points in glyph.closed:
            self.strokes.append(Stroke(points, width, rgba, closed=True))
        for x, y, r in glyph.dots:
            self.shapes.append(Shape("ellipse", (x, y), (2 * r, 2 * r), rgba))


@dataclass(frozen=True)
class LegendLine:
    """A line of the legend: a mark (a letter, on a piece's colour when ``rgba`` is
    given) and what it means."""

    mark: str
    words: str
    rgba: RGBA | None = None


@dataclass(frozen=True)
class Scene:
    """Everything to draw, back to front, in ``size`` mm (the board and its legend)."""

    size: tuple[float, float]
    layers: tuple[Layer, ...]
    blink: Layer
    """What to put back, drawn last and big; the widget makes it blink, showing
    ``blink_off`` (a plain red frame) between flashes."""
    blink_off: Layer
    targets: Mapping[str, Spot]
    """What can be tapped now (a question's candidates), and where."""

    def target_at(self, point: Point) -> str | None:
        """The tappable element under ``point`` (mm), the nearest centre when spots
        overlap; None when the point is on none."""
        best, distance = None, math.inf
        for name, spot in self.targets.items():
            if _inside(spot, point, grow=2.0):
                d = math.dist(spot.centre, point)
                if d < distance:
                    best, distance = name, d
        return best


def _inside(spot: Spot, point: Point, grow: float = 0.0) -> bool:
    a = math.radians(spot.angle)
    dx, dy = point[0] - spot.centre[0], point[1] - spot.centre[1]
    u = dx * math.cos(a) + dy * math.sin(a)
    v = -dx * math.sin(a) + dy * math.cos(a)
    return abs(u) <= spot.size[0] / 2 + grow and abs(v) <= spot.size[1] / 2 + grow


# ---------------------------------------------------------------------- the printed board


@dataclass(frozen=True)
class BoardMap:
    """A game's board as printed: its layout and everything drawn once (``printed``),
    the legend's top edge (mm) and the whole drawing's size."""

    layout: BoardLayout
    printed: Layer
    village_labels: Mapping[int, Point]
    """Where each Shangri-La village's number is drawn."""
    size: tuple[float, float]
    """The board's size (the legend goes below it)."""

    @property
    def game(self) -> str:
        return self.layout.game

    @property
    def legend_top(self) -> float:
        return self.layout.size[1]


def board_map(
    layout: BoardLayout,
    villages: Sequence[tuple[int, Point, float, bool]] = (),
) -> BoardMap:
    """The printed board of ``layout``; ``villages`` (Shangri-La): id, centre, radius
    and whether it is the red village, as the board model gives them."""
    w, h = layout.size
    printed = Layer(shapes=[Shape("rect", (w / 2, h / 2), (w, h), BOARD_RGBA), *layout.background])
    labels: dict[int, Point] = {}
    if layout.game == "shangrila":
        labels = village_label_spots(layout, villages)
        _print_shangrila(layout, printed, villages, labels)
    elif layout.game == "shendao":
        _print_shendao(layout, printed)
    elif layout.game == "shenshi":
        _print_shenshi(layout, printed)
    return BoardMap(layout, printed, labels, (w, h))


VILLAGE_LABEL_MM = 9.0
"""The radius of the disc that carries a village's number."""


def village_label_spots(
    layout: BoardLayout, villages: Sequence[tuple[int, Point, float, bool]]
) -> dict[int, Point]:
    """Where each village's number goes: on the village's rim, at the angle farthest
    from its own spaces, the bridges and stones, the other villages and the board's
    edge (so the number covers nothing)."""
    w, h = layout.size
    obstacles = [s for s in layout.spots.values() if s.kind in ("space", "bridge", "stone")]
    spots = {}
    for vid, centre, radius, _ in villages:
        others = [(c, r) for i, c, r, _ in villages if i != vid]
        best, clearance = centre, -math.inf
        for step in range(24):
            angle = math.radians(15 * step)
            at = (centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle))
            room = min(
                [math.dist(at, s.centre) - max(s.size) / 2 for s in obstacles]
                + [math.dist(at, c) - r for c, r in others]
                + [at[0], at[1], w - at[0], h - at[1]]
            )
            if room > clearance:
                best, clearance = at, room
        spots[vid] = best
    return spots


def _print_shangrila(
    layout: BoardLayout,
    printed: Layer,
    villages: Sequence[tuple[int, Point, float, bool]],
    labels: Mapping[int, Point],
) -> None:
    for name, spot in layout.spots.items():
        if spot.kind == "space":
            _print_space(printed, name[-1], spot)
    for vid, _, _, red in villages:
        at = labels[vid]
        d = 2 * VILLAGE_LABEL_MM
        printed.shapes.append(
            Shape("ellipse", at, (d, d), (0.62, 0.18, 0.14, 1) if red else INK_RGBA)
        )
        printed.texts.append(Text(str(vid), at, 12.0, (1, 1, 1, 1)))


def _print_space(layer: Layer, letter: str, spot: Spot) -> None:
    """An empty space: its discipline's symbol, and its letter in the corner."""
    c, s = spot.centre, spot.size
    layer.shapes.append(Shape("rect", c, (s[0] - 1, s[1] - 1), (0.97, 0.95, 0.88, 1)))
    layer.shapes.append(Shape("outline", c, s, LINE_RGBA, 0.0, 0.5))
    glyph = GLYPHS.get(letter)
    if glyph is not None:  # the symbol top left, the letter bottom right
        layer.glyph(
            place(glyph, (c[0] - 0.22 * s[0], c[1] - 0.12 * s[1]), 0.25 * s[0]), 0.9, INK_RGBA
        )
    layer.texts.append(
        Text(letter, (c[0] + 0.22 * s[0], c[1] + 0.20 * s[1]), 0.42 * s[1], min_px=SPACE_LETTER_PX)
    )


def _print_shendao(layout: BoardLayout, printed: Layer) -> None:
    w, h = layout.size
    for name, spot in layout.spots.items():
        c, s = spot.centre, spot.size
        if spot.kind == "square":
            printed.shapes.append(Shape("outline", c, s, LINE_RGBA, 0.0, 0.5))
            printed.texts.append(
                Text(
                    name,
                    (c[0] - 0.28 * s[0], c[1] - 0.32 * s[1]),
                    0.22 * s[1],
                    SOFT_INK_RGBA,
                    False,
                )
            )
        elif spot.kind == "gate":
            gate = name.removeprefix("gate ")
            printed.texts.append(Text(gate, _outside(c, (w, h), 24.0), 12.0))


def _outside(centre: Point, size: tuple[float, float], distance: float) -> Point:
    """``distance`` further out from the board's centre than ``centre``, along the
    nearest edge's normal (both normals at a corner)."""
    x, y = centre
    w, h = size
    dx = -distance if x < 0.2 * w else distance if x > 0.8 * w else 0.0
    dy = -distance if y < 0.2 * h else distance if y > 0.8 * h else 0.0
    return (x + dx, y + dy)


def _print_shenshi(layout: BoardLayout, printed: Layer) -> None:
    w = layout.size[0]
    tiles = {n.split()[0]: s for n, s in layout.spots.items() if s.kind == "tile"}
    files = sorted({n[0] for n in tiles})
    ranks = sorted({n[1:] for n in tiles})
    for f in files:
        x = tiles[f"{f}{ranks[0]}"].centre[0]
        printed.texts.append(Text(f, (x, 22.0), 14.0))
    for r in ranks:
        y = tiles[f"{files[0]}{r}"].centre[1]
        printed.texts.append(Text(r, (22.0, y), 14.0))
        printed.texts.append(Text(r, (w - 22.0, y), 14.0))
    for spot in tiles.values():
        printed.shapes.append(Shape("outline", spot.centre, spot.size, FAINT_RGBA, 0.0, 0.6))


# ---------------------------------------------------------------------- the pieces


def _ink_on(rgba: RGBA) -> RGBA:
    """Black or white, whichever reads better on ``rgba``."""
    r, g, b = rgba[:3]
    return (0.05, 0.05, 0.05, 1) if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else (1, 1, 1, 1)


def piece(layout: BoardLayout, element: str, value: Value | None, grow: float = 1.0) -> Layer:
    """What ``element`` reading ``value`` looks like, ``grow`` times its size: the
    plain shapes of ``layout.element_shapes`` with each player's letter on the piece,
    and Shangri-La's students as a white ring inside their master."""
    layer = Layer()
    spot = layout.spot(element)
    if spot is None or value is None:
        return layer
    c = spot.centre

    def scaled(shapes: list[Shape]) -> list[Shape]:
        if grow == 1.0:
            return shapes
        return [
            Shape(
                s.shape,
                (c[0] + (s.centre[0] - c[0]) * grow, c[1] + (s.centre[1] - c[1]) * grow),
                (s.size[0] * grow, s.size[1] * grow),
                s.rgba,
                s.angle,
                s.width * grow,
            )
            for s in shapes
        ]

    kind = spot.kind
    size = spot.size[1] * grow
    if element.endswith("^"):  # a Shangri-La student on its master
        if value == 2:
            ring = 0.78 * spot.size[0] * grow
            layer.shapes.append(
                Shape("outline", c, (ring, ring), (1, 1, 1, 1), 0.0, 0.09 * spot.size[0] * grow)
            )
        return layer
    if kind in ("space", "square") and str(value) in PLAYER_RGBA:
        rgba = PLAYER_RGBA[str(value)]
        layer.shapes.append(
            Shape("rect", c, (0.94 * spot.size[0] * grow, 0.94 * size), LINE_RGBA, spot.angle)
        )
        layer.shapes.append(
            Shape("rect", c, (0.86 * spot.size[0] * grow, 0.86 * size), rgba, spot.angle)
        )
        layer.texts.append(Text(PLAYER_LETTERS.get(str(value), "?"), c, 0.55 * size, _ink_on(rgba)))
        return layer
    if kind == "monk" and value != "none":
        metal, _, rank = str(value).partition("-")
        grand = rank == "grand"
        across = (GRAND_MM if grand else MASTER_MM) * grow
        rgba = PLAYER_RGBA.get(metal, LINE_RGBA)
        layer.shapes.append(
            Shape(
                "ellipse",
                c,
                (across + 3 * grow, across + 3 * grow),
                (0.98, 0.98, 0.95, 1) if metal == "black" else LINE_RGBA,
            )
        )
        layer.shapes.append(Shape("ellipse", c, (across, across), rgba))
        letter = PLAYER_LETTERS.get(metal, "?")
        layer.texts.append(
            Text(letter if grand else letter.lower(), c, 0.6 * across, _ink_on(rgba))
        )
        return layer
    if kind == "tokens":
        layer.shapes.extend(scaled(element_shapes(layout, element, value)))
        metal = element.removeprefix("tokens ")
        layer.texts.append(
            Text(f"{PLAYER_LETTERS.get(metal, '?')} {value}", (c[0], c[1] + 0.5 * size + 7.0), 9.0)
        )
        return layer
    layer.shapes.extend(scaled(element_shapes(layout, element, value)))
    return layer


GRAND_MM = 30.0
MASTER_MM = 21.0
"""How wide ShenShi's monks are drawn: a Grand Master clearly bigger than a master."""

_ORDER = {
    "space": 0,
    "square": 0,
    "tile": 0,
    "tokens": 0,
    "cushion": 1,
    "bridge": 2,
    "gate": 2,
    "stone": 3,
    "monk": 3,
}


def compose(
    board: BoardMap,
    table: Observation,
    highlight: Collection[str] = (),
    suggest: Collection[str] = (),
    targets: Collection[str] = (),
    chosen: Collection[str] = (),
    chips: Mapping[str, str] | None = None,
    legend: Sequence[LegendLine] = (),
    beside: bool = False,
    expected: Observation | None = None,
) -> Scene:
    """The board showing ``table``, with the pieces to put back (``highlight``) in the
    blinking layer: what goes back there by ``expected`` (the table the game expects)
    drawn half as big again, or a cross where a piece must come off; green frames on
    ``suggest``, and cyan frames on the question's tappable ``targets`` (filled when
    ``chosen``). ``chips`` are tappable labels drawn
    below the board for answers that are not on it (a Shendao card: target name ->
    words); ``legend`` is the lines drawn below the board, or ``beside`` it (to its
    right: for a wide place)."""
    layout = board.layout
    pieces = Layer()
    elements = sorted(table, key=lambda e: (_ORDER.get(_kind(layout, e), 0), e.endswith("^")))
    for element in elements:
        _merge(pieces, piece(layout, element, table.value(element)))
    marks = Layer()
    marks.shapes.extend(_frames(layout, suggest, SUGGEST_RGBA, 6.0, 3.0))
    spots: dict[str, Spot] = {}
    for name in targets:
        spot = layout.spot(name)
        if spot is not None:
            spots[name] = spot
    box = legend_box(board, legend, len(chips or {}), beside)
    spots.update(_chip_spots(box, chips or {}, beside))
    for name, spot in spots.items():
        if chips and name in chips:  # a button of its own
            marks.shapes.append(Shape("rect", spot.centre, spot.size, (0.90, 0.97, 1.0, 1)))
        if name in chosen:
            marks.shapes.append(Shape("rect", spot.centre, spot.size, CHOSEN_RGBA, spot.angle))
        marks.shapes.append(
            Shape(
                "outline",
                spot.centre,
                (spot.size[0] + 9, spot.size[1] + 9),
                INK_RGBA,
                spot.angle,
                1.2,
            )
        )
        marks.shapes.append(
            Shape(
                "outline",
                spot.centre,
                (spot.size[0] + 5, spot.size[1] + 5),
                TARGET_RGBA,
                spot.angle,
                3.0,
            )
        )
    for name, words in (chips or {}).items():
        spot = spots[name]
        height = min(0.45 * spot.size[1], 0.9 * spot.size[0] / (0.6 * max(1, len(words))))
        marks.texts.append(Text(words, spot.centre, height, INK_RGBA))
    legend_layer = _legend(board, box, legend, len(chips or {}), beside)
    blink, blink_off = Layer(), Layer()
    blink_off.shapes.extend(_frames(layout, highlight, HIGHLIGHT_RGBA, 6.0, 3.0))
    goes_back = expected if expected is not None else table
    for element in sorted(highlight, key=lambda e: e.endswith("^")):
        spot = layout.spot(element)
        if spot is None:
            continue
        value = goes_back.value(element)
        shown = piece(layout, element, value, grow=1.5)
        if not element.endswith("^") and not _is_piece(spot.kind, value):
            shown = _take_off(spot)
        if not element.endswith("^"):  # a pale ground under what goes back, in its frame
            grown = (spot.size[0] + FLASH_GROW_MM, spot.size[1] + FLASH_GROW_MM)
            blink.shapes.append(Shape("rect", spot.centre, grown, (1, 1, 1, 0.8), spot.angle))
        blink.shapes.extend(_frames(layout, [element], HIGHLIGHT_RGBA, FLASH_GROW_MM, 4.0))
        _merge(blink, shown)
    size = (box.x + box.w, box.y + box.h)
    return Scene(size, (board.printed, legend_layer, pieces, marks), blink, blink_off, spots)


FLASH_GROW_MM = 24.0
"""How much wider than its place the frame of a piece to put back is, when it flashes."""


def _is_piece(kind: str, value: Value | None) -> bool:
    """Whether ``value`` puts a piece on an element of ``kind`` (not an empty place)."""
    if value is None:
        return False
    if kind in ("space", "square"):
        return str(value) in PLAYER_RGBA
    if kind in ("bridge", "stone"):
        return value is True
    if kind == "gate":
        return value == "closed"
    if kind == "tokens":
        return isinstance(value, int) and value > 0
    return str(value) not in ("none", "empty", "False")


def _take_off(spot: Spot) -> Layer:
    """A big cross over ``spot``: the piece there comes off."""
    c, r = spot.centre, (max(spot.size) + FLASH_GROW_MM) / 2 - 3.0
    layer = Layer()
    for dx, dy in ((1, 1), (1, -1)):
        points = ((c[0] - dx * r, c[1] - dy * r), (c[0] + dx * r, c[1] + dy * r))
        layer.strokes.append(Stroke(points, 4.0, HIGHLIGHT_RGBA))
    return layer


def _merge(into: Layer, layer: Layer) -> None:
    into.shapes.extend(layer.shapes)
    into.strokes.extend(layer.strokes)
    into.texts.extend(layer.texts)


def _frames(
    layout: BoardLayout, elements: Collection[str], rgba: RGBA, grow: float, width: float
) -> list[Shape]:
    out = []
    for element in elements:
        spot = layout.spot(element)
        if spot is not None:
            out.append(
                Shape(
                    "outline",
                    spot.centre,
                    (spot.size[0] + grow, spot.size[1] + grow),
                    rgba,
                    spot.angle,
                    width,
                )
            )
    return out


def _kind(layout: BoardLayout, element: str) -> str:
    spot = layout.spot(element)
    return spot.kind if spot is not None else ""


CHIP_MM = 34.0
"""The height of a tappable answer drawn in the legend."""
BESIDE_SHARE = 0.42
"""The legend's width beside the board, as a share of the board's width."""


@dataclass(frozen=True)
class Box:
    """A rectangle in mm: left, top, width, height."""

    x: float
    y: float
    w: float
    h: float


def legend_box(board: BoardMap, entries: Sequence[LegendLine], chips: int, beside: bool) -> Box:
    """Where the legend goes: beside the board (right of it, as tall) or below it (as
    wide, as tall as its content: the chips, then the lines in two columns, or for
    Shangri-La a village drawn large beside them)."""
    w, h = board.size
    if beside:
        return Box(w, 0.0, BESIDE_SHARE * w, h)
    if board.game == "shangrila" and not chips:
        return Box(0.0, h, w, VILLAGE_LEGEND_SHARE * w)
    rows = math.ceil(len(entries) / 2)
    return Box(0.0, h, w, (CHIP_MM + 12.0 if chips else 6.0) + LEGEND_LINE_MM * rows + 6.0)


def _chip_spots(box: Box, chips: Mapping[str, str], beside: bool) -> dict[str, Spot]:
    """Tappable answers at the top of the legend: in a row below the board, one under
    the other beside it."""
    if not chips:
        return {}
    if beside:
        return {
            name: Spot(
                "chip",
                (box.x + box.w / 2, box.y + 6.0 + (CHIP_MM + 8.0) * (i + 0.5)),
                (box.w - 12.0, CHIP_MM),
            )
            for i, name in enumerate(chips)
        }
    width = (box.w - 10.0) / len(chips)
    y = box.y + 6.0 + CHIP_MM / 2
    return {
        name: Spot("chip", (box.x + 5.0 + width * (i + 0.5), y), (width - 8.0, CHIP_MM))
        for i, name in enumerate(chips)
    }


def _legend(
    board: BoardMap, box: Box, entries: Sequence[LegendLine], chips: int, beside: bool
) -> Layer:
    """The legend: under the chips, for Shangri-La one village drawn large with each
    symbol, then the lines (two columns below the board, one beside it)."""
    layer = Layer(
        shapes=[
            Shape(
                "rect",
                (box.x + box.w / 2, box.y + box.h / 2),
                (box.w - 2.0, box.h - 2.0),
                LEGEND_RGBA,
            )
        ]
    )
    top = (
        box.y
        + 6.0
        + (chips * (CHIP_MM + 8.0) + 6.0 if beside else CHIP_MM + 12.0 if chips else 0.0)
    )
    bottom = box.y + box.h
    left = box.x + 6.0
    if board.game == "shangrila" and not chips:
        if beside:
            top = _legend_village(
                board, layer, Box(left, top, box.w - 12.0, box.w - 12.0), then_below=True
            )
        else:
            left = _legend_village(
                board, layer, Box(left, top, bottom - top, bottom - top), then_below=False
            )
    if not entries:
        return layer
    columns = 1 if beside else 2
    rows = max(1, math.ceil(len(entries) / columns))
    line = min(LEGEND_LINE_MM, (bottom - top) / rows)
    column = (box.x + box.w - left) / columns
    for i, entry in enumerate(entries):
        x = left + column * (i // rows)
        y = top + line * (i % rows + 0.5)
        mark_width = max(0.85 * line, 0.55 * line * len(entry.mark))
        if entry.rgba is not None:
            layer.shapes.append(
                Shape("rect", (x + mark_width / 2, y), (mark_width, 0.85 * line), entry.rgba)
            )
        ink = _ink_on(entry.rgba) if entry.rgba is not None else INK_RGBA
        layer.texts.append(Text(entry.mark, (x + mark_width / 2, y), 0.6 * line, ink))
        layer.texts.append(
            _left_text(
                entry.words, (x + mark_width + 3.0, y), 0.55 * line, column - mark_width - 5.0
            )
        )
    return layer


def _left_text(words: str, left_middle: Point, height: float, room: float) -> Text:
    """A text whose left end is at ``left_middle``, shrunk to fit ``room`` mm when its
    width (guessed at 0.6 of its height a character) would not."""
    width = 0.6 * height * len(words)
    if width > room:
        height *= room / width
    return Text(words, left_middle, height, INK_RGBA, False, left=True)


def _legend_village(board: BoardMap, layer: Layer, room: Box, then_below: bool) -> float:
    """Village 0's seven spaces drawn large in the square ``room``; returns the y where
    the rest of the legend goes (``then_below``), or the x."""
    spaces = {
        n[-1]: s for n, s in board.layout.spots.items() if s.kind == "space" and n[:-1] == "0"
    }
    if not spaces:
        return room.y if then_below else room.x
    xs = [s.centre[0] for s in spaces.values()]
    ys = [s.centre[1] for s in spaces.values()]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    extent = max(max(xs) - min(xs), max(ys) - min(ys)) + 22.0
    zoom = min(2.6, (room.h - 6.0) / extent, (room.w - 6.0) / extent)
    ox, oy = room.x + extent * zoom / 2, room.y + extent * zoom / 2
    for letter, spot in spaces.items():
        at = (ox + (spot.centre[0] - cx) * zoom, oy + (spot.centre[1] - cy) * zoom)
        big = Spot("space", at, (spot.size[0] * zoom, spot.size[1] * zoom))
        _print_space(layer, letter, big)
    return (room.y if then_below else room.x) + extent * zoom + 6.0
