"""Photograph-like pictures of a game table in any state, with exact ground truth.

:func:`render_table` draws an :class:`~engines.observation.Observation` (what the table
shows) on the project's own procedural drawing of the board (never the publisher's
art), stands the pieces on it as solids seen through the camera (tiles with a
thickness, so a stacked student shows in oblique views; wooden bridges; green glass
stones; red gate sticks; ShenShi's mandala tiles, cushions and metal monks, each on
the one below it), adds shadows, glare, hands and arms over the board and clutter on
the table, and photographs it all with :func:`vision.synth.camera.render`
(lens distortion, light, noise, blur, JPEG).

It returns the image and, for every element of the observation on the board, where it
appears in the image (its polygon, lens distortion included) and how much of it a hand
or the image edge hides: the ground truth a reading pipeline is measured against.
Elements off the board (ShenShi's path tokens) are listed as unseen.

Board coordinates are those of the board models (:mod:`vision.models`): millimetres
from the board's top-left corner. The board lies on the table centred at
``TableOptions.board_centre_mm``, turned by ``board_angle_deg``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.boards import board_geometry, stick_markers
from engines.observation import Observation, Reading
from engines.shenshi.board import load_board, square_name
from vision.models import HEIGHT_SUFFIX, BoardModel, Element, load_model
from vision.synth.camera import (
    Camera,
    Image,
    Imaging,
    Light,
    PlanarTexture,
    Pose,
    Scene,
    project_points,
    render,
    table_texture,
)

FloatArray = NDArray[np.float64]

# Piece colours, sRGB as BGR.
PLAYER_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 45, 200),
    "blue": (175, 95, 35),
    "yellow": (40, 200, 235),
    "violet": (150, 60, 120),
    "light": (200, 225, 235),
    "dark": (45, 50, 60),
}
GLYPH_INK_BGR = (40, 40, 45)
WOOD_BGR = (60, 120, 170)
STONE_BGR = (90, 165, 60)
STICK_BGR = (40, 40, 180)
BOARD_EDGE_BGR = (45, 50, 55)
# ShenShi: metal monks, cushions, the mandala tiles (ground, ring, petals, heart) and the
# hall's squares (light and dark stone; the marked squares blond).
METAL_BGR: dict[str, tuple[int, int, int]] = {
    "silver": (200, 198, 192),
    "copper": (55, 100, 180),
    "gold": (30, 170, 225),
    "black": (34, 34, 38),
}
CUSHION_BGR: dict[str, tuple[int, int, int]] = {"blond": (130, 200, 232), "orange": (25, 105, 235)}
MANDALA_BGR: dict[str, tuple[tuple[int, int, int], ...]] = {
    "intact": ((45, 30, 135), (40, 175, 230), (150, 95, 25), (225, 235, 240)),
    "faded": ((172, 182, 238), (150, 200, 225), (215, 185, 170), (225, 230, 240)),
}
SHENSHI_SQUARE_BGR = ((186, 188, 184), (122, 124, 120))
SHENSHI_MARKED_BGR = (105, 175, 215)
BOARD_THICKNESS_MM = 2.5
SKIN_BGR = ((120, 160, 220), (95, 135, 200), (70, 105, 160), (60, 85, 130))
# Straight edges of a solid are cut into this many pieces before projection, so that
# they bend with the lens distortion.
_EDGE_PIECES = 4
_CYLINDER_SIDES = 16
# Wide blurs (soft shadows) run on a shrunk picture, this blur wide in its pixels.
_SHADOW_BLUR_PX = 4.0


@dataclass(frozen=True)
class TableOptions:
    """What else is on and around the table, besides the game.

    ``px_per_mm``: resolution of the board's drawing. ``hands``: arms reaching over the
    board. ``clutter``: objects lying on the table around the board. ``shadows``: the
    pieces' (and hands') shadows. ``glare``: strength of a specular highlight on the
    board (0: none). ``placement_mm`` and ``placement_deg``: how far off its spot, at
    most, a hand leaves a piece (0: exactly on it).
    """

    px_per_mm: float = 3.0
    board_centre_mm: tuple[float, float] = (0.0, 0.0)
    board_angle_deg: float = 0.0
    hands: int = 0
    clutter: int = 0
    shadows: bool = True
    glare: float = 0.0
    placement_mm: float = 0.0
    placement_deg: float = 0.0
    markers: bool = False
    hands_over: tuple[str, ...] = ()
    """Elements the hands reach for (one of them each, drawn by the seed); empty: any
    element in view."""
    """The ArUco corner markers of ``calibration/boards.json`` stuck on the board."""


@dataclass(frozen=True)
class ElementTruth:
    """Where one element appears: ``polygon`` (image pixels, lens distortion included)
    of its spot on the board, ``top`` the polygon of the top of what stands on it (the
    spot itself when nothing does), and ``visible`` the fraction of the spot's polygon
    in the image and not under a hand or behind clutter."""

    polygon: FloatArray
    top: FloatArray
    visible: float


@dataclass(frozen=True)
class TableRender:
    image: Image
    truth: dict[str, ElementTruth]
    hand_mask: NDArray[np.bool_]
    observation: Observation
    occluded: NDArray[np.bool_]
    """Where hands or things around the board (clutter) stand in front of the board."""
    unseen: tuple[str, ...] = ()
    """Elements that are not on the board (ShenShi's path tokens): no picture of the
    board shows them, and they have no entry in ``truth``."""

    def visible(self, hidden_below: float = 0.5) -> Observation:
        """The observation as this picture can show it: elements less than
        ``hidden_below`` in view, and those off the board, are unknown."""
        hidden: dict[str, Reading | None] = {
            e: None for e, t in self.truth.items() if t.visible < hidden_below
        }
        hidden.update(dict.fromkeys(self.unseen))
        return self.observation.replace(hidden) if hidden else self.observation


@dataclass(frozen=True)
class _Solid:
    """A prism standing on the table: ``footprint`` (table mm, clockwise seen from
    above) from height ``bottom`` to ``top`` (mm above the table), coloured sRGB BGR,
    with optional glyph lines (table mm) drawn on its top."""

    footprint: FloatArray
    bottom: float
    top: float
    bgr: tuple[int, int, int]
    top_lines: tuple[FloatArray, ...] = ()
    line_bgr: tuple[int, int, int] = GLYPH_INK_BGR
    highlight: bool = False
    wood: bool = False
    top_face: bool = True
    decor: tuple[tuple[FloatArray, tuple[int, int, int]], ...] = ()
    """Filled polygons (table mm, sRGB BGR) printed on the top, in order: a tile's
    mandala, the puff and tuft on a cushion."""
    metal: bool = False
    """Polished metal: sides from deep shade to bright where they face the light."""
    attached: bool = False
    """Part of the same piece as the solid listed before it (a monk's head on its
    body): a hand moves them together."""


# --- glyphs ---------------------------------------------------------------------------


def _circle(n: int, r: float, cx: float = 0.0, cy: float = 0.0) -> FloatArray:
    a = np.linspace(0.0, 2.0 * np.pi, n + 1)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def _star() -> FloatArray:
    a = -np.pi / 2 + np.arange(11) * np.pi / 5
    r = np.where(np.arange(11) % 2 == 0, 0.45, 0.18)
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


# One simple drawing per discipline, polylines in a unit square centred on 0 (y down).
GLYPHS: dict[str, tuple[FloatArray, ...]] = {
    "R": (
        np.array(
            [[-0.35, -0.05], [-0.3, -0.3], [0.0, -0.4], [0.3, -0.3], [0.35, -0.05], [-0.35, -0.05]]
        ),
        np.array([[-0.2, 0.1], [-0.3, 0.4]]),
        np.array([[0.0, 0.1], [-0.1, 0.4]]),
        np.array([[0.2, 0.1], [0.1, 0.4]]),
    ),
    "A": (_star(),),
    "D": (np.array([[-0.4, -0.3], [0.3, -0.3], [-0.3, 0.0], [0.3, 0.0], [-0.3, 0.3], [0.4, 0.3]]),),
    "P": (_circle(12, 0.3), np.array([[0.0, -0.45], [0.0, 0.45]])),
    "Y": (
        np.array(
            [[-0.45, 0.35], [-0.1, -0.35], [0.15, 0.1], [0.25, -0.1], [0.45, 0.35], [-0.45, 0.35]]
        ),
    ),
    "F": (
        np.array(
            [
                [0.0, -0.45],
                [0.25, -0.05],
                [0.25, 0.2],
                [0.0, 0.4],
                [-0.25, 0.2],
                [-0.25, -0.05],
                [-0.05, 0.05],
                [0.0, -0.45],
            ]
        ),
    ),
    "H": (np.array([[0.0, -0.4], [0.0, 0.4]]), np.array([[-0.4, 0.0], [0.4, 0.0]])),
}


def _glyph_mm(letter: str, centre: tuple[float, float], size: float) -> list[FloatArray]:
    return [line * size + np.array(centre) for line in GLYPHS[letter]]


# --- the board's drawing ---------------------------------------------------------------


def _pts(points_mm: FloatArray, px_per_mm: float) -> NDArray[np.int32]:
    # Sub-pixel drawing: 4 fractional bits.
    return np.rint(np.asarray(points_mm) * px_per_mm * 16).astype(np.int32).reshape(-1, 1, 2)


def _paper(
    size_px: tuple[int, int], base_bgr: tuple[int, int, int], blotch: float, seed: int
) -> NDArray[np.uint8]:
    """A printed card's base colour with slow blotches and fine grain (fixed seed: the
    drawing of a board is always the same)."""
    w, h = size_px
    rng = np.random.default_rng(seed)
    coarse = cv2.resize(
        rng.normal(size=(12, 12)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    fine = cv2.GaussianBlur(rng.normal(size=(h, w)).astype(np.float32), (0, 0), 1.0)
    shade = 1.0 + blotch * coarse + 0.02 * fine
    image = np.clip(shade[:, :, None] * np.array(base_bgr, np.float32), 0, 255)
    return np.asarray(image, dtype=np.uint8)


@cache
def board_art(game: str, px_per_mm: float) -> NDArray[np.uint8]:
    """The project's own drawing of ``game``'s board (BGR, ``px_per_mm``), from its
    model. Read-only: the array is shared between calls."""
    model = load_model(game)
    w = round(model.size_mm[0] * px_per_mm)
    h = round(model.size_mm[1] * px_per_mm)
    if game == "shangrila":
        image = _shangrila_art(model, (w, h), px_per_mm)
    elif game == "shenshi":
        image = _shenshi_art(model, (w, h), px_per_mm)
    else:
        image = _shendao_art(model, (w, h), px_per_mm)
    image.setflags(write=False)
    return image


def with_markers(art: NDArray[np.uint8], game: str, px_per_mm: float) -> NDArray[np.uint8]:
    """A copy of ``art`` with ``game``'s corner markers (``calibration/boards.json``)
    stuck on it: each black square on its white card, as printed and cut out."""
    image = art.copy()
    stick_markers(image, board_geometry(game), px_per_mm, white=250, black=20)
    return image


def _thick(mm: float, px_per_mm: float) -> int:
    return max(1, round(mm * px_per_mm))


def _shangrila_art(model: BoardModel, size_px: tuple[int, int], s: float) -> NDArray[np.uint8]:
    image = _paper(size_px, (120, 170, 165), 0.06, 1)
    aa, shift = cv2.LINE_AA, 4
    centres = {v.id: np.array(v.centre_mm) for v in model.villages}
    for bridge in model.of_kind("bridge"):
        a, b = (int(x) for x in bridge.name[7:].split("-"))
        spot = np.array(bridge.centre_mm)
        control = 2.0 * spot - (centres[a] + centres[b]) / 2.0
        t = np.linspace(0.0, 1.0, 40)[:, None]
        curve = (1 - t) ** 2 * centres[a] + 2 * (1 - t) * t * control + t**2 * centres[b]
        cv2.polylines(image, [_pts(curve, s)], False, (70, 100, 120), _thick(11, s), aa, shift)
        cv2.polylines(image, [_pts(curve, s)], False, (140, 185, 210), _thick(8, s), aa, shift)
        # the river or gorge the bridge crosses
        a_rad = math.radians(bridge.angle_deg)
        across = np.array([-math.sin(a_rad), math.cos(a_rad)])
        gorge = np.array([spot - 16 * across, spot + 16 * across])
        cv2.polylines(image, [_pts(gorge, s)], False, (150, 110, 60), _thick(7, s), aa, shift)
    for village in model.villages:
        centre = np.array(village.centre_mm)
        ring = _circle(48, village.radius_mm, *centre)
        cv2.fillPoly(image, [_pts(ring, s)], (175, 195, 205), aa, shift)
        wall = (45, 45, 170) if village.red else (80, 95, 105)
        cv2.polylines(image, [_pts(ring, s)], True, wall, _thick(2.5, s), aa, shift)
    for space in model.of_kind("space"):
        corners = space.corners_mm()
        cv2.fillPoly(image, [_pts(corners, s)], (215, 232, 240), aa, shift)
        cv2.polylines(image, [_pts(corners, s)], True, (70, 80, 90), _thick(0.8, s), aa, shift)
        for line in _glyph_mm(str(space.discipline), space.centre_mm, space.size_mm[0] * 0.7):
            cv2.polylines(image, [_pts(line, s)], False, (95, 110, 125), _thick(1.0, s), aa, shift)
    for stone_spot in model.of_kind("stone"):
        ring = _circle(24, stone_spot.size_mm[0] / 2.0, *stone_spot.centre_mm)
        cv2.polylines(image, [_pts(ring, s)], True, (110, 130, 140), _thick(0.8, s), aa, shift)
    _frame(image, model, s)
    return image


def _shendao_art(model: BoardModel, size_px: tuple[int, int], s: float) -> NDArray[np.uint8]:
    image = _paper(size_px, (95, 140, 175), 0.05, 2)
    aa, shift = cv2.LINE_AA, 4
    squares = model.of_kind("square")
    for square in squares:
        file, rank = ord(square.name[0]) - ord("a"), int(square.name[1:])
        shade = (150, 195, 220) if (file + rank) % 2 else (125, 170, 200)
        cv2.fillPoly(image, [_pts(square.corners_mm(), s)], shade, aa, shift)
        cv2.polylines(
            image, [_pts(square.corners_mm(), s)], True, (50, 70, 90), _thick(0.8, s), aa, shift
        )
    lo = np.min([sq.corners_mm().min(axis=0) for sq in squares], axis=0)
    hi = np.max([sq.corners_mm().max(axis=0) for sq in squares], axis=0)
    outer = np.array([lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]])
    cv2.polylines(image, [_pts(outer, s)], True, (30, 45, 60), _thick(2.0, s), aa, shift)
    for gate in model.of_kind("gate"):
        slot = Element(
            gate.name,
            gate.kind,
            gate.centre_mm,
            (gate.size_mm[0] + 4, gate.size_mm[1] + 4),
            gate.angle_deg,
        )
        cv2.fillPoly(image, [_pts(slot.corners_mm(), s)], (80, 110, 140), aa, shift)
        cv2.polylines(
            image, [_pts(slot.corners_mm(), s)], True, (40, 55, 70), _thick(0.8, s), aa, shift
        )
    for a, b in model.walls:
        cv2.polylines(
            image, [_pts(np.array([a, b]), s)], False, (35, 35, 175), _thick(5.0, s), aa, shift
        )
    _frame(image, model, s)
    return image


def _shenshi_art(model: BoardModel, size_px: tuple[int, int], s: float) -> NDArray[np.uint8]:
    """The temple hall: light and dark stone squares, the marked squares (where the
    tiles are dealt) blond, inside a carved border."""
    image = _paper(size_px, (60, 85, 120), 0.05, 3)
    aa, shift = cv2.LINE_AA, 4
    marked = {square_name(square) for square in load_board().marked}
    squares = model.of_kind("tile")
    pitch = float(np.min(np.diff(sorted({e.centre_mm[0] for e in squares}))))
    for square in squares:
        name = square.name.split(" ")[0]
        file, rank = ord(name[0]) - ord("a"), int(name[1:])
        shade = SHENSHI_MARKED_BGR if name in marked else SHENSHI_SQUARE_BGR[(file + rank) % 2]
        cell = _rectangle(square.centre_mm, (pitch, pitch), square.angle_deg)
        cv2.fillPoly(image, [_pts(cell, s)], shade, aa, shift)
        cv2.polylines(image, [_pts(cell, s)], True, (45, 55, 70), _thick(0.8, s), aa, shift)
    lo = np.min([sq.centre_mm for sq in squares], axis=0) - pitch / 2
    hi = np.max([sq.centre_mm for sq in squares], axis=0) + pitch / 2
    for inset, width in ((0.0, 2.0), (-9.0, 1.2), (-14.0, 2.5)):
        a, b = lo + inset, hi - inset
        ring = np.array([a, [b[0], a[1]], b, [a[0], b[1]]])
        cv2.polylines(image, [_pts(ring, s)], True, (30, 45, 70), _thick(width, s), aa, shift)
    _frame(image, model, s)
    return image


def _frame(image: NDArray[np.uint8], model: BoardModel, s: float) -> None:
    w, h = model.size_mm
    inset = 3.0
    frame = np.array(
        [[inset, inset], [w - inset, inset], [w - inset, h - inset], [inset, h - inset]]
    )
    cv2.polylines(image, [_pts(frame, s)], True, (40, 50, 60), _thick(3.0, s), cv2.LINE_AA, 4)


# --- the pieces --------------------------------------------------------------------------


def _rectangle(
    centre: tuple[float, float], size: tuple[float, float], angle_deg: float
) -> FloatArray:
    return Element("", "", centre, size, angle_deg).corners_mm()


def _pieces(
    model: BoardModel,
    observation: Observation,
    colours: Mapping[str, tuple[int, int, int]] | None = None,
) -> list[tuple[str, _Solid]]:
    """The solids standing on the board, in board millimetres, with the element each
    belongs to. ``colours`` overrides the set's colours (player names, ``wood``,
    ``stone``, ``stick``; for ShenShi the metals, the cushions and the mandalas' colours,
    see :func:`_shenshi_pieces`)."""
    colour_of = {
        **PLAYER_BGR,
        "wood": WOOD_BGR,
        "stone": STONE_BGR,
        "stick": STICK_BGR,
        **(colours or {}),
    }
    out: list[tuple[str, _Solid]] = []
    p = model.pieces
    if model.game == "shangrila":
        tile, thick = p["tile_mm"], p["tile_thickness_mm"]
        for space in model.of_kind("space"):
            colour = observation.value(space.name)
            if colour in (None, "empty"):
                continue
            height = observation.value(space.name + HEIGHT_SUFFIX)
            tiles = (
                height
                if isinstance(height, int) and not isinstance(height, bool) and height > 0
                else 1
            )
            glyph = _glyph_mm(str(space.discipline), space.centre_mm, tile * 0.6)
            for level in range(tiles):
                out.append(
                    (
                        space.name,
                        _Solid(
                            _rectangle(space.centre_mm, (tile, tile), space.angle_deg),
                            level * thick,
                            (level + 1) * thick,
                            colour_of[str(colour)],
                            tuple(glyph),
                            (235, 240, 240),
                        ),
                    )
                )
        for bridge in model.of_kind("bridge"):
            if observation.value(bridge.name) is True:
                out.append(
                    (
                        bridge.name,
                        _Solid(
                            bridge.corners_mm(),
                            0.0,
                            p["bridge_height_mm"],
                            colour_of["wood"],
                            wood=True,
                        ),
                    )
                )
        for stone in model.of_kind("stone"):
            if observation.value(stone.name) is True:
                out.append(
                    (
                        stone.name,
                        _Solid(
                            _circle(_CYLINDER_SIDES, stone.size_mm[0] / 2.0, *stone.centre_mm)[:-1],
                            0.0,
                            p["stone_height_mm"],
                            colour_of["stone"],
                            highlight=True,
                        ),
                    )
                )
    elif model.game == "shenshi":
        out.extend(_shenshi_pieces(model, observation, colours or {}))
    else:
        tile, thick = p["tile_mm"], p["tile_thickness_mm"]
        for square in model.of_kind("square"):
            colour = observation.value(square.name)
            if colour in (None, "empty"):
                continue
            out.append(
                (
                    square.name,
                    _Solid(
                        _rectangle(square.centre_mm, (tile, tile), square.angle_deg),
                        0.0,
                        thick,
                        colour_of[str(colour)],
                    ),
                )
            )
        for gate in model.of_kind("gate"):
            if observation.value(gate.name) == "closed":
                out.append(
                    (
                        gate.name,
                        _Solid(
                            gate.corners_mm(),
                            0.0,
                            p["stick_height_mm"],
                            colour_of["stick"],
                            wood=True,
                        ),
                    )
                )
    return out


def _rounded_square(centre: tuple[float, float], side: float, radius: float) -> FloatArray:
    """A square with rounded corners, clockwise seen from above (y down)."""
    half = side / 2.0 - radius
    arcs = []
    for k, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
        a = np.linspace(k * np.pi / 2, (k + 1) * np.pi / 2, 5)
        arcs.append(
            np.column_stack(
                [
                    centre[0] + sx * half + radius * np.cos(a),
                    centre[1] + sy * half + radius * np.sin(a),
                ]
            )
        )
    return np.vstack(arcs)


def _ellipse(
    centre: FloatArray, axes: tuple[float, float], angle: float, n: int = 12
) -> FloatArray:
    a = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    local = np.column_stack([axes[0] * np.cos(a), axes[1] * np.sin(a)])
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return np.asarray(local @ rot.T + centre)


def _mandala(
    centre: tuple[float, float], size: float, palette: tuple[tuple[int, int, int], ...]
) -> tuple[tuple[FloatArray, tuple[int, int, int]], ...]:
    """The project's own mandala, printed on a tile of ``size`` mm: corner triangles, a
    ring, eight petals and a flower heart, in ``palette`` (ground, ring, petals,
    heart). A faded tile prints it in greys of nearly one value."""
    _, ring, petal, heart = palette
    c = np.array(centre)
    h = size / 2.0
    out: list[tuple[FloatArray, tuple[int, int, int]]] = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        corner = c + np.array([sx, sy]) * h * 0.92
        out.append(
            (np.array([corner, corner - [sx * h * 0.45, 0], corner - [0, sy * h * 0.45]]), ring)
        )
    out.append((_circle(32, size * 0.44, *c)[:-1], ring))
    out.append((_circle(32, size * 0.38, *c)[:-1], palette[0]))
    for k in range(8):
        angle = k * np.pi / 4
        at = c + size * 0.24 * np.array([math.cos(angle), math.sin(angle)])
        out.append((_ellipse(at, (size * 0.13, size * 0.055), angle), petal))
    out.append((_circle(16, size * 0.11, *c)[:-1], heart))
    out.append((_circle(12, size * 0.045, *c)[:-1], ring))
    return tuple(out)


# Monk figure (a seated monk): parts bottom to top as (radius as a share of the base
# radius, bottom and top as shares of the height): crossed legs, robe, neck, head, crown.
_MONK_PARTS = (
    (1.0, 0.0, 0.24),
    (0.74, 0.24, 0.66),
    (0.3, 0.66, 0.71),
    (0.4, 0.71, 0.93),
    (0.24, 0.93, 1.0),
)


def _monk(
    centre: tuple[float, float], base: float, height: float, width: float, bgr: tuple[int, int, int]
) -> list[_Solid]:
    """A metal monk standing at ``base`` mm: ``height`` tall, ``width`` across its
    crossed legs; round parts, so its sides show from any side."""
    parts = []
    for k, (share, low, high) in enumerate(_MONK_PARTS):
        parts.append(
            _Solid(
                _circle(_CYLINDER_SIDES, width / 2.0 * share, *centre)[:-1],
                base + low * height,
                base + high * height,
                bgr,
                metal=True,
                highlight=k == len(_MONK_PARTS) - 1,
                attached=k > 0,
            )
        )
    return parts


def _cushion(
    centre: tuple[float, float], base: float, side: float, height: float, bgr: tuple[int, int, int]
) -> list[_Solid]:
    """A cushion: a rounded slab with a softer, narrower puff on top and a tuft."""
    body = _rounded_square(centre, side, side * 0.2)
    puff = _rounded_square(centre, side * 0.84, side * 0.3)
    light = tuple(min(255, round(c * 1.12 + 12)) for c in bgr)
    dark = tuple(round(c * 0.6) for c in bgr)
    decor = (
        (_rounded_square(centre, side * 0.5, side * 0.22), (light[0], light[1], light[2])),
        (_circle(10, side * 0.06, *centre)[:-1], (dark[0], dark[1], dark[2])),
    )
    return [
        _Solid(body, base, base + 0.72 * height, bgr),
        _Solid(puff, base + 0.72 * height, base + height, bgr, decor=decor, attached=True),
    ]


def shenshi_colours(
    colours: Mapping[str, tuple[int, int, int]] | None = None,
) -> dict[str, tuple[int, int, int]]:
    """ShenShi's piece colours by name: the metals (``silver`` ...), the cushions
    (``blond``, ``orange``) and each mandala face's four colours (``intact 0`` ..
    ``intact 3``: ground, ring, petals, heart), the set's own unless ``colours`` gives
    others."""
    out: dict[str, tuple[int, int, int]] = {**METAL_BGR, **CUSHION_BGR}
    for face, palette in MANDALA_BGR.items():
        out.update({f"{face} {i}": bgr for i, bgr in enumerate(palette)})
    out.update({k: v for k, v in (colours or {}).items() if k in out})
    return out


def _shenshi_pieces(
    model: BoardModel, observation: Observation, colours: Mapping[str, tuple[int, int, int]]
) -> list[tuple[str, _Solid]]:
    """Per square, what stands there bottom up: the mandala tile, the cushion on it,
    the monk on that; each piece starts where the one below it ends. ``colours``: see
    :func:`shenshi_colours`."""
    p = model.pieces
    colour_of = shenshi_colours(colours)
    out: list[tuple[str, _Solid]] = []
    for tile in model.of_kind("tile"):
        square = tile.name.split(" ")[0]
        base = 0.0
        face = observation.value(tile.name)
        if face in MANDALA_BGR:
            palette = tuple(colour_of[f"{face} {i}"] for i in range(4))
            out.append(
                (
                    tile.name,
                    _Solid(
                        _rectangle(tile.centre_mm, (p["tile_mm"], p["tile_mm"]), tile.angle_deg),
                        0.0,
                        p["tile_thickness_mm"],
                        palette[0],
                        decor=_mandala(tile.centre_mm, p["tile_mm"], palette),
                    ),
                )
            )
            base = p["tile_thickness_mm"]
        colour = observation.value(f"{square} cushion")
        if colour in CUSHION_BGR:
            out.extend(
                (f"{square} cushion", solid)
                for solid in _cushion(
                    tile.centre_mm,
                    base,
                    p["cushion_mm"],
                    p["cushion_height_mm"],
                    colour_of[str(colour)],
                )
            )
            base += p["cushion_height_mm"]
        monk = observation.value(f"{square} monk")
        if isinstance(monk, str) and "-" in monk:
            metal, size = monk.split("-")
            out.extend(
                (f"{square} monk", solid)
                for solid in _monk(
                    tile.centre_mm,
                    base,
                    p[f"{size}_height_mm"],
                    p[f"{size}_base_mm"],
                    colour_of[metal],
                )
            )
    return out


def _placed(
    pieces: list[tuple[str, _Solid]],
    model: BoardModel,
    rng: np.random.Generator,
    options: TableOptions,
) -> list[tuple[str, _Solid]]:
    """The pieces as hands leave them: each element's pieces shifted by up to
    ``options.placement_mm`` and turned by up to ``placement_deg`` about the element's
    centre, a piece on another (a student) by up to half that again."""
    if options.placement_mm <= 0.0 and options.placement_deg <= 0.0:
        return pieces
    moves: dict[str, tuple[FloatArray, float]] = {}
    out = []
    shift, turn = np.zeros(2), 0.0
    for name, solid in pieces:
        if not solid.attached:  # an attached part keeps the shift of the one before
            first = name not in moves
            if first:
                moves[name] = (np.zeros(2), 0.0)
            base_shift, base_turn = moves[name]
            share = 1.0 if first else 0.5
            shift = base_shift + rng.uniform(-1.0, 1.0, 2) * options.placement_mm * share
            turn = base_turn + float(rng.uniform(-1.0, 1.0)) * options.placement_deg * share
            if first:
                moves[name] = (shift, turn)
        centre = np.array(model.region(name).centre_mm)
        a = math.radians(turn)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        footprint = (solid.footprint - centre) @ rot.T + centre + shift
        lines = tuple((line - centre) @ rot.T + centre + shift for line in solid.top_lines)
        decor = tuple(
            ((points - centre) @ rot.T + centre + shift, bgr) for points, bgr in solid.decor
        )
        out.append((name, replace(solid, footprint=footprint, top_lines=lines, decor=decor)))
    return out


def _to_table(board: PlanarTexture, solid: _Solid) -> _Solid:
    return replace(
        solid,
        footprint=board.to_table(solid.footprint),
        top_lines=tuple(board.to_table(line) for line in solid.top_lines),
        decor=tuple((board.to_table(points), bgr) for points, bgr in solid.decor),
    )


def _clutter(
    rng: np.random.Generator, count: int, board: PlanarTexture
) -> tuple[list[PlanarTexture], list[_Solid]]:
    """Things lying around the board: cards, paper, a box, a cup."""
    flat: list[PlanarTexture] = []
    solids: list[_Solid] = []
    reach = max(board.size_mm) / 2.0
    for i in range(count):
        angle = rng.uniform(0.0, 2.0 * np.pi)
        distance = reach + rng.uniform(70.0, 220.0)
        centre = (
            board.centre_mm[0] + distance * math.cos(angle),
            board.centre_mm[1] + distance * math.sin(angle),
        )
        kind = i % 3
        if kind == 0:  # a card or a sheet of paper
            size = (float(rng.uniform(60, 150)), float(rng.uniform(80, 200)))
            colour = tuple(int(c) for c in rng.integers(90, 250, size=3))
            image = np.empty((32, 32, 3), np.uint8)
            image[:] = colour
            cv2.rectangle(image, (3, 3), (28, 28), tuple(int(c * 0.6) for c in colour), 1)
            flat.append(PlanarTexture(image, size, centre, float(rng.uniform(0, 180))))
        elif kind == 1:  # a box
            size = (float(rng.uniform(60, 140)), float(rng.uniform(40, 100)))
            foot = _rectangle(centre, size, float(rng.uniform(0, 180)))
            colour = tuple(int(c) for c in rng.integers(40, 220, size=3))
            solids.append(
                _Solid(foot, 0.0, float(rng.uniform(20, 60)), (colour[0], colour[1], colour[2]))
            )
        else:  # a cup
            radius = float(rng.uniform(30, 45))
            colour = tuple(int(c) for c in rng.integers(120, 250, size=3))
            solids.append(
                _Solid(
                    _circle(_CYLINDER_SIDES, radius, *centre)[:-1],
                    0.0,
                    float(rng.uniform(70, 100)),
                    (colour[0], colour[1], colour[2]),
                    highlight=True,
                )
            )
    return flat, solids


# --- painting solids through the camera -----------------------------------------------


def _linear(bgr: tuple[int, int, int]) -> NDArray[np.float32]:
    c = np.array(bgr, dtype=np.float32) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _subdivide(polygon: FloatArray, closed: bool = True) -> FloatArray:
    points = np.asarray(polygon, dtype=np.float64)
    ends = np.roll(points, -1, axis=0) if closed else points[1:]
    starts = points if closed else points[:-1]
    t = np.arange(_EDGE_PIECES)[:, None] / _EDGE_PIECES
    pieces = [a + t * (b - a) for a, b in zip(starts, ends, strict=True)]
    if not closed:
        pieces.append(points[-1:])
    return np.vstack(pieces)


def _lift(points: FloatArray, height: float) -> FloatArray:
    return np.column_stack([points, np.full(len(points), -height)])


def _project_polygon(
    camera: Camera, pose: Pose, polygon: FloatArray, height: float, closed: bool = True
) -> FloatArray:
    return project_points(camera, pose, _lift(_subdivide(polygon, closed), height))


def _fill(
    albedo: NDArray[np.float32], pixels: FloatArray, colour: NDArray[np.float32], alpha: float = 1.0
) -> None:
    pts = np.rint(pixels * 16).astype(np.int32).reshape(-1, 1, 2)
    if alpha >= 1.0:
        cv2.fillPoly(albedo, [pts], colour.tolist(), cv2.LINE_AA, 4)
        return
    # Blend in the polygon's box only: a glint is small, the picture large.
    h, w = albedo.shape[:2]
    x0, y0 = np.maximum(np.floor(pixels.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(pixels.max(axis=0)).astype(int) + 2, (w, h))
    if x0 >= x1 or y0 >= y1:
        return
    box = albedo[y0:y1, x0:x1]
    layer = box.copy()
    cv2.fillPoly(
        layer, [pts - np.array([x0 * 16, y0 * 16], np.int32)], colour.tolist(), cv2.LINE_AA, 4
    )
    cv2.addWeighted(layer, alpha, box, 1.0 - alpha, 0.0, dst=box)


def _paint_solid(
    albedo: NDArray[np.float32],
    camera: Camera,
    pose: Pose,
    solid: _Solid,
    eye: FloatArray,
    light_dir: FloatArray,
    px_per_mm: float,
) -> None:
    colour = _linear(solid.bgr)
    foot = solid.footprint
    alpha = 0.85 if solid.highlight and solid.top < 10 else 1.0
    # sides facing the camera, then the top
    for a, b in zip(foot, np.roll(foot, -1, axis=0), strict=True):
        edge = b - a
        normal = np.array([edge[1], -edge[0]]) / (np.linalg.norm(edge) + 1e-12)
        middle = (a + b) / 2.0
        to_eye = eye[:2] - middle
        if normal @ to_eye <= 0.0:
            continue
        facing = max(0.0, float(normal @ light_dir))
        shade = 0.28 + 0.9 * facing**1.5 if solid.metal else 0.5 + 0.3 * facing
        quad = np.array([a, b])
        low = _project_polygon(camera, pose, quad, solid.bottom, closed=False)
        high = _project_polygon(camera, pose, quad, solid.top, closed=False)
        _fill(albedo, np.vstack([low, high[::-1]]), colour * np.float32(shade), alpha)
    if not solid.top_face:
        return
    top = _project_polygon(camera, pose, foot, solid.top)
    _fill(albedo, top, colour, alpha)
    for points, bgr in solid.decor:
        _fill(albedo, _project_polygon(camera, pose, points, solid.top), _linear(bgr), alpha)
    thickness = max(1, round(0.9 * px_per_mm))
    if solid.wood:  # planks or grain along the length
        centre = foot.mean(axis=0)
        along = foot[1] - foot[0]
        across = foot[3] - foot[0]
        for k in (-0.25, 0.0, 0.25):
            line = np.array(
                [centre - along * 0.45 + across * k, centre + along * 0.45 + across * k]
            )
            pix = _project_polygon(camera, pose, line, solid.top, closed=False)
            cv2.polylines(
                albedo,
                [np.rint(pix * 16).astype(np.int32).reshape(-1, 1, 2)],
                False,
                (colour * np.float32(0.6)).tolist(),
                max(1, thickness // 2),
                cv2.LINE_AA,
                4,
            )
    for line in solid.top_lines:
        pix = _project_polygon(camera, pose, line, solid.top, closed=False)
        cv2.polylines(
            albedo,
            [np.rint(pix * 16).astype(np.int32).reshape(-1, 1, 2)],
            False,
            _linear(solid.line_bgr).tolist(),
            thickness,
            cv2.LINE_AA,
            4,
        )
    if solid.highlight:  # a glint on glass or glaze
        centre = foot.mean(axis=0)
        radius = float(np.linalg.norm(foot[0] - centre))
        spot = centre - light_dir * radius * 0.35
        glint = _project_polygon(camera, pose, _circle(10, radius * 0.25, *spot)[:-1], solid.top)
        _fill(albedo, glint, np.array([0.95, 0.97, 0.97], np.float32), 0.8)


def _shadow(
    board: NDArray[np.uint8], board_px_per_mm: float, solids: list[_Solid], light_dir: FloatArray
) -> NDArray[np.uint8]:
    """The board's drawing with the pieces' soft shadows cast away from the light."""
    mask = np.zeros(board.shape[:2], np.float32)
    for solid in solids:
        offset = -light_dir * solid.top * 0.8
        cv2.fillPoly(mask, [_pts(solid.footprint + offset, board_px_per_mm)], 1.0, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(mask, (0, 0), max(0.5, 1.5 * board_px_per_mm))
    shaded = board.astype(np.float32) * (1.0 - 0.4 * soft[:, :, None])
    return np.clip(shaded, 0, 255).astype(np.uint8)


# --- hands ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Arm:
    shoulder: tuple[float, float]  # where the arm enters, image pixels
    hand: tuple[float, float]
    width: float  # arm width, pixels
    skin: tuple[int, int, int]


def _arms(
    rng: np.random.Generator,
    count: int,
    camera: Camera,
    targets: list[FloatArray],
    px_per_mm: float,
) -> list[_Arm]:
    arms = []
    w, h = camera.size
    for _ in range(count):
        if not targets:
            break
        target = targets[int(rng.integers(len(targets)))]
        side = int(rng.integers(4))
        along = float(rng.uniform(0.2, 0.8))
        shoulder = [
            (along * w, h + 40.0),
            (along * w, -40.0),
            (-40.0, along * h),
            (w + 40.0, along * h),
        ][side]
        arms.append(
            _Arm(
                (float(shoulder[0]), float(shoulder[1])),
                (float(target[0]), float(target[1])),
                float(rng.uniform(55.0, 75.0)) * px_per_mm,
                SKIN_BGR[int(rng.integers(len(SKIN_BGR)))],
            )
        )
    return arms


def _arm_mask(arms: list[_Arm], size: tuple[int, int], scale: float) -> NDArray[np.uint8]:
    """255 where an arm or hand is, in an image of ``size`` pixels whose pixels are
    ``scale`` times smaller than the arms' own."""
    mask = np.zeros((size[1], size[0]), np.uint8)

    def at(p: tuple[float, float] | FloatArray) -> tuple[int, int]:
        return (round(((p[0] + 0.5) * scale - 0.5) * 16), round(((p[1] + 0.5) * scale - 0.5) * 16))

    for arm in arms:
        start, end = np.array(arm.shoulder), np.array(arm.hand)
        direction = (end - start) / (np.linalg.norm(end - start) + 1e-9)
        wrist = end - direction * arm.width * 0.9
        cv2.line(mask, at(start), at(wrist), 255, max(1, round(arm.width * scale)), cv2.LINE_AA, 4)
        palm_axes = (round(arm.width * 0.8 * scale * 16), round(arm.width * 0.65 * scale * 16))
        angle = math.degrees(math.atan2(direction[1], direction[0]))
        centre = end - direction * arm.width * 0.2
        cv2.ellipse(mask, at(centre), palm_axes, angle, 0, 360, 255, -1, cv2.LINE_AA, 4)
        side = np.array([-direction[1], direction[0]])
        for k in (-0.45, -0.15, 0.15, 0.45):
            base = centre + side * arm.width * k + direction * arm.width * 0.4
            tip = base + direction * arm.width * (0.7 - abs(k) * 0.4)
            cv2.line(
                mask, at(base), at(tip), 255, max(1, round(arm.width * 0.2 * scale)), cv2.LINE_AA, 4
            )
    return mask


def _soft_shadow(
    coverage: NDArray[np.float32], offset: tuple[float, float], sigma: float
) -> NDArray[np.float32]:
    """``coverage`` shifted by ``offset`` pixels and blurred by ``sigma``: a soft shadow.
    The blur is wide (tens of pixels), so it runs on a picture shrunk until it is a few
    pixels wide and is enlarged again: the same shadow at a hundredth of the cost."""
    h, w = coverage.shape
    factor = max(1, int(sigma // _SHADOW_BLUR_PX))
    small_size = (max(1, w // factor), max(1, h // factor))
    small = cv2.resize(coverage, small_size, interpolation=cv2.INTER_AREA)
    fx, fy = small_size[0] / w, small_size[1] / h
    shift = np.array([[1.0, 0.0, offset[0] * fx], [0.0, 1.0, offset[1] * fy]], np.float32)
    small = cv2.warpAffine(small, shift, small_size)
    small = cv2.GaussianBlur(small, (0, 0), sigma * fx)
    return np.asarray(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR))


def _paint_arms(albedo: NDArray[np.float32], arms: list[_Arm], scale: float, shadows: bool) -> None:
    size = (albedo.shape[1], albedo.shape[0])
    for arm in arms:
        mask = _arm_mask([arm], size, scale)
        x, y, w, h = cv2.boundingRect(mask)
        if w == 0 or h == 0:
            continue
        # Work only in the box around the arm and its shadow: the rest of the picture
        # is untouched, and a supersampled picture is large.
        offset = (arm.width * scale * 0.3, arm.width * scale * 0.4)
        sigma = arm.width * scale * 0.25
        reach = round(3 * sigma) if shadows else 0
        x0, y0 = max(0, x - reach), max(0, y - reach)
        x1 = min(size[0], x + w + reach + (round(offset[0]) if shadows else 0))
        y1 = min(size[1], y + h + reach + (round(offset[1]) if shadows else 0))
        box = albedo[y0:y1, x0:x1]
        coverage = mask[y0:y1, x0:x1].astype(np.float32) / np.float32(255.0)
        if shadows:
            shade = _soft_shadow(coverage, offset, sigma)
            box *= (1.0 - 0.45 * shade)[:, :, None]
        depth = cv2.distanceTransform((mask[y0:y1, x0:x1] > 127).astype(np.uint8), cv2.DIST_L2, 5)
        roundness = np.sqrt(np.clip(depth / (arm.width * scale * 0.35 + 1e-6), 0.0, 1.0))
        skin = _linear(arm.skin)[None, None, :] * (0.55 + 0.45 * roundness)[:, :, None]
        box *= (1.0 - coverage)[:, :, None]
        box += skin * coverage[:, :, None]


# --- the picture -----------------------------------------------------------------------------


def render_table(
    observation: Observation,
    camera: Camera,
    pose: Pose,
    *,
    light: Light | None = None,
    imaging: Imaging | None = None,
    options: TableOptions | None = None,
    seed: int = 0,
    model: BoardModel | None = None,
    art: NDArray[np.uint8] | None = None,
    colours: Mapping[str, tuple[int, int, int]] | None = None,
) -> TableRender:
    """Photograph a table showing ``observation`` (unknown elements are drawn empty or
    absent) with ``camera`` at ``pose``. Everything random (table grain, clutter, hands,
    glare, sensor noise) follows ``seed``.

    ``art`` (the board's printed top, BGR at ``options.px_per_mm``) and ``colours``
    (see :func:`_pieces`) replace the project's own drawing and set: another world's
    board and pieces (:mod:`vision.synth.world`)."""
    light = light or Light()
    options = options or TableOptions()
    model = model or load_model(observation.schema.game)
    rng = np.random.default_rng(seed)
    a = math.radians(light.direction_deg)
    light_dir = np.array([math.cos(a), math.sin(a)])
    if art is None:
        art = board_art(model.game, options.px_per_mm)
    if options.markers:
        art = with_markers(art, model.game, options.px_per_mm)
    pieces = _placed(_pieces(model, observation, colours), model, rng, options)
    board_turn = math.radians(options.board_angle_deg)
    # the light's direction in board coordinates, for the shadows drawn on the board
    rot = np.array(
        [
            [math.cos(-board_turn), -math.sin(-board_turn)],
            [math.sin(-board_turn), math.cos(-board_turn)],
        ]
    )
    if options.shadows and pieces:
        art = _shadow(art, options.px_per_mm, [s for _, s in pieces], rot @ light_dir)
    board = PlanarTexture(art, model.size_mm, options.board_centre_mm, options.board_angle_deg)
    table = table_texture(int(rng.integers(2**31)))
    flat, clutter = _clutter(rng, options.clutter, board)
    solids = [_to_table(board, s) for _, s in pieces] + clutter
    # The board's printed top lies on the table plane; its cut edge shows below it.
    edge = _Solid(
        board.to_table(
            _rectangle((model.size_mm[0] / 2, model.size_mm[1] / 2), model.size_mm, 0.0)
        ),
        -BOARD_THICKNESS_MM,
        0.0,
        BOARD_EDGE_BGR,
        top_face=False,
    )

    # ground truth
    view_px_per_mm = camera.fx / pose.distance_mm
    highest: dict[str, _Solid] = {}
    for name, solid in pieces:
        if name not in highest or solid.top > highest[name].top:
            highest[name] = solid
    truth_polygons: dict[str, tuple[FloatArray, FloatArray]] = {}
    unseen = tuple(e for e in observation.schema.elements if not model.on_board(e))
    for name in observation.schema.elements:
        if name in unseen:
            continue
        corners = board.to_table(model.region(name).corners_mm())
        spot = _project_polygon(camera, pose, corners, 0.0)
        piece = highest.get(name.removesuffix(HEIGHT_SUFFIX))
        top = (
            spot
            if piece is None
            else _project_polygon(camera, pose, board.to_table(piece.footprint), piece.top)
        )
        truth_polygons[name] = (spot, top)
    reached = {e: truth_polygons[e] for e in options.hands_over if e in truth_polygons}
    targets = [top.mean(axis=0) for _, top in (reached or truth_polygons).values()]
    inside = [t for t in targets if 0 <= t[0] < camera.width and 0 <= t[1] < camera.height]
    arms = _arms(rng, options.hands, camera, inside, view_px_per_mm)
    hand_mask = _arm_mask(arms, camera.size, 1.0) > 127
    glare_at = (
        float(rng.uniform(0.2, 0.8)) * camera.width,
        float(rng.uniform(0.2, 0.8)) * camera.height,
    )
    eye = pose.centre_mm()
    eye_xyz = np.array([eye[0], eye[1], eye[2]])

    def paint(albedo: NDArray[np.float32], fine: Camera) -> None:
        scale = fine.width / camera.width
        ppm = view_px_per_mm * scale
        order = sorted(
            solids,
            key=lambda s: (
                -float(
                    np.linalg.norm(
                        np.append(s.footprint.mean(axis=0), -(s.top + s.bottom) / 2.0) - eye_xyz
                    )
                )
            ),
        )
        _paint_solid(albedo, fine, pose, edge, eye_xyz, light_dir, ppm)
        for solid in order:
            _paint_solid(albedo, fine, pose, solid, eye_xyz, light_dir, ppm)
        if options.glare > 0.0:
            _paint_glare(albedo, glare_at, scale, options.glare)
        _paint_arms(albedo, arms, scale, options.shadows)

    scene = Scene((table, *flat, board), light)
    image = render(camera, pose, scene, imaging, seed=seed, paint=paint)
    occluded = hand_mask | _silhouettes(camera, pose, clutter)
    truth = {
        name: ElementTruth(poly, top, _visible(poly, occluded))
        for name, (poly, top) in truth_polygons.items()
    }
    return TableRender(image, truth, hand_mask, observation, occluded, unseen)


def _silhouettes(camera: Camera, pose: Pose, solids: list[_Solid]) -> NDArray[np.bool_]:
    """Where ``solids`` (standing off the board) show in the picture. Off the board,
    whatever of them covers the board's picture stands in front of it."""
    mask = np.zeros((camera.height, camera.width), np.uint8)
    for solid in solids:
        points = np.vstack(
            [
                _lift(_subdivide(solid.footprint), solid.bottom),
                _lift(_subdivide(solid.footprint), solid.top),
            ]
        )
        pixels = project_points(camera, pose, points).astype(np.float32)
        hull = cv2.convexHull(pixels)
        cv2.fillConvexPoly(mask, np.rint(hull * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return mask.astype(bool)


def _paint_glare(
    albedo: NDArray[np.float32], at: tuple[float, float], scale: float, strength: float
) -> None:
    h, w = albedo.shape[:2]
    cx, cy = (at[0] + 0.5) * scale - 0.5, (at[1] + 0.5) * scale - 0.5
    sigma = 0.06 * w
    # An elliptic Gaussian spot, separable: a column profile times a row profile,
    # added only where it is above 1/3000 of its peak.
    x0, x1 = max(0, int(cx - 4 * sigma)), min(w, int(cx + 4 * sigma) + 1)
    y0, y1 = max(0, int(cy - 2.5 * sigma)), min(h, int(cy + 2.5 * sigma) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    xs = np.arange(x0, x1, dtype=np.float32) - np.float32(cx)
    ys = (np.arange(y0, y1, dtype=np.float32) - np.float32(cy)) * np.float32(1.6)
    two_var = np.float32(2 * sigma**2)
    spot = np.outer(np.exp(-(ys**2) / two_var), np.exp(-(xs**2) / two_var))
    albedo[y0:y1, x0:x1] += (np.float32(strength) * spot)[:, :, None]


def _visible(polygon: FloatArray, hand_mask: NDArray[np.bool_]) -> float:
    """The fraction of ``polygon``'s area inside the image and not under ``hand_mask``
    (hands and clutter)."""
    area = abs(cv2.contourArea(polygon.astype(np.float32)))
    if area <= 0.0:
        return 0.0
    h, w = hand_mask.shape
    x0, y0 = np.maximum(np.floor(polygon.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(polygon.max(axis=0)).astype(int) + 1, (w, h))
    if x0 >= x1 or y0 >= y1:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    local = (polygon - np.array([x0, y0])) * 16
    cv2.fillPoly(mask, [np.rint(local).astype(np.int32).reshape(-1, 1, 2)], 1, cv2.LINE_8, 4)
    seen = int(np.count_nonzero(mask.astype(bool) & ~hand_mask[y0:y1, x0:x1]))
    return min(1.0, seen / area)
