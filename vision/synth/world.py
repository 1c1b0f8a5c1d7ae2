"""Other worlds: boards, pieces and layouts that are not the project's own drawing.

A reader that has only ever seen one drawing of a board learns that drawing. A
:class:`World` is one made-up edition of a game, drawn from a seed: its board art
(a procedural painting, dark or light, with paths, rivers, towns and printed spaces of
its own style and its own symbols), its pieces' colours (each set's nominal colours
varied as one maker's dye would vary them), its pieces' sizes within manufacturing
tolerance, and its layout (villages shifted and resized, bridge spots moved along
their paths) — so that where the board puts each element must be learned too.

Kinds of world:

- ``project``: the project's own drawing and set (:func:`vision.synth.table.board_art`).
- ``painted``: a light or dark procedural painting; villages as discs or blobs.
- ``landscape``: a dark, busy painted landscape; villages drawn as towns of houses,
  spaces as light printed squares. Like the published board; kept out of fitting and
  tuning (see :data:`HELD_OUT_KINDS`), so that figures on it are measured where
  nothing was chosen.

``make_world(game, kind, seed)`` is deterministic. Shangri-La, Shendao and ShenShi
have worlds of every kind.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from engines.shenshi.board import load_board, square_name
from vision.models import BoardModel, Element, load_model
from vision.synth.table import (
    PLAYER_BGR,
    STICK_BGR,
    STONE_BGR,
    WOOD_BGR,
    board_art,
    shenshi_colours,
)

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]

KINDS = ("project", "painted", "landscape")
WORLD_GAMES = ("shangrila", "shendao", "shenshi")
"""Games with worlds other than the project's own."""
HELD_OUT_KINDS = frozenset({"landscape"})
"""Kinds of world never used to fit or tune a reader: figures on them are test figures."""

_SHIFT = 4  # sub-pixel bits of the drawing


@dataclass(frozen=True)
class World:
    """One edition of a game: board art, piece colours (BGR) and layout (``model``)."""

    game: str
    kind: str
    seed: int
    model: BoardModel
    colours: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    px_per_mm: float = 3.0
    _art: list[Image] = field(default_factory=list, repr=False, compare=False)

    def art(self) -> Image:
        """The board's printed top (BGR at ``px_per_mm``), drawn once."""
        if not self._art:
            if self.kind == "project":
                self._art.append(board_art(self.game, self.px_per_mm))
            elif self.game == "shendao":
                self._art.append(_shendao_painting(self, self.px_per_mm))
            elif self.game == "shenshi":
                self._art.append(_shenshi_painting(self, self.px_per_mm))
            else:
                self._art.append(_shangrila_painting(self, self.px_per_mm))
        return self._art[0]


def make_world(game: str, kind: str = "project", seed: int = 0, px_per_mm: float = 3.0) -> World:
    """The world of ``kind`` drawn with ``seed``. Raises ``ValueError`` for an unknown
    kind, or a kind other than ``project`` for a game without other worlds."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of world {kind!r} (one of {', '.join(KINDS)})")
    model = load_model(game)
    if kind == "project":
        return World(game, kind, seed, model, {}, px_per_mm)
    if game not in WORLD_GAMES:
        raise ValueError(f"{game} has only the project's own world so far")
    salt = {"shangrila": [], "shendao": [1], "shenshi": [2]}[game]
    rng = np.random.default_rng([seed, KINDS.index(kind), 17, *salt])
    layout = _moved_layout(model, rng) if game == "shangrila" else _moved_grid(model, rng)
    colours = _shenshi_set_colours(rng) if game == "shenshi" else _set_colours(rng)
    return World(game, kind, seed, layout, colours, px_per_mm)


# --- the set ---------------------------------------------------------------------------------


def _vary(
    bgr: tuple[int, int, int], rng: np.random.Generator, hue_deg: float, spread: float
) -> tuple[int, int, int]:
    """``bgr`` with its hue turned by up to ``hue_deg`` and its saturation and value
    scaled by up to ``spread`` either way."""
    b, g, r = (c / 255.0 for c in bgr)
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    h = (h + rng.uniform(-hue_deg, hue_deg) / 360.0) % 1.0
    s = float(np.clip(s * rng.uniform(1 - spread, 1 + spread), 0.0, 1.0))
    v = float(np.clip(v * rng.uniform(1 - spread, 1 + spread), 0.05, 1.0))
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return round(b * 255), round(g * 255), round(r * 255)


def _set_colours(rng: np.random.Generator) -> dict[str, tuple[int, int, int]]:
    colours = {name: _vary(bgr, rng, 10.0, 0.18) for name, bgr in PLAYER_BGR.items()}
    colours["wood"] = _vary(WOOD_BGR, rng, 12.0, 0.25)
    colours["stone"] = _vary(STONE_BGR, rng, 25.0, 0.25)
    colours["stick"] = _vary(STICK_BGR, rng, 15.0, 0.25)
    return colours


def _shenshi_set_colours(rng: np.random.Generator) -> dict[str, tuple[int, int, int]]:
    """ShenShi's metals, cushions and mandala inks, each varied around the set's own."""
    spreads = {
        "silver": (6.0, 0.12),
        "copper": (8.0, 0.15),
        "gold": (8.0, 0.15),
        "black": (15.0, 0.3),
        "blond": (10.0, 0.15),
        "orange": (8.0, 0.15),
    }
    return {
        name: _vary(bgr, rng, *spreads.get(name, (10.0, 0.15)))
        for name, bgr in shenshi_colours().items()
    }


def _moved_grid(model: BoardModel, rng: np.random.Generator) -> BoardModel:
    """``model`` (a grid of squares with gates round it) shifted by up to 5 mm, scaled
    by up to 3% about the board's centre and turned by up to 0.6 degree; the walls and
    the pieces' sizes (within tolerance) with it."""
    centre = np.array(model.size_mm) / 2.0
    shift = rng.uniform(-5.0, 5.0, 2)
    scale = float(rng.uniform(0.97, 1.03))
    turn = math.radians(float(rng.uniform(-0.6, 0.6)))
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])

    def move(point: tuple[float, float]) -> tuple[float, float]:
        p = centre + shift + rot @ ((np.array(point) - centre) * scale)
        return float(p[0]), float(p[1])

    elements = {
        name: replace(
            e,
            centre_mm=move(e.centre_mm),
            size_mm=(e.size_mm[0] * scale, e.size_mm[1] * scale),
            angle_deg=e.angle_deg + math.degrees(turn),
        )
        for name, e in model.elements.items()
    }
    walls = tuple((move(a), move(b)) for a, b in model.walls)
    pieces = {key: value * float(rng.uniform(0.97, 1.03)) for key, value in model.pieces.items()}
    return replace(model, elements=elements, walls=walls, pieces=pieces)


def _moved_layout(model: BoardModel, rng: np.random.Generator) -> BoardModel:
    """``model`` with each village shifted (up to 6 mm) and enlarged (up to 10%), its
    spaces and stone spot with it, each bridge spot moved along its path (up to 14 mm)
    and across it (up to 5 mm), and the pieces' sizes within tolerance."""
    moved: dict[int, tuple[FloatArray, FloatArray, float]] = {}
    villages = []
    for village in model.villages:
        old = np.array(village.centre_mm)
        new = old + rng.uniform(-6.0, 6.0, 2)
        scale = float(rng.uniform(1.0, 1.1))
        moved[village.id] = (old, new, scale)
        villages.append(
            replace(
                village,
                centre_mm=(float(new[0]), float(new[1])),
                radius_mm=village.radius_mm * scale,
            )
        )

    def in_village(point: tuple[float, float], vid: int) -> tuple[float, float]:
        old, new, scale = moved[vid]
        p = new + (np.array(point) - old) * scale
        return float(p[0]), float(p[1])

    elements: dict[str, Element] = {}
    for name, element in model.elements.items():
        if element.kind == "space":
            vid = int("".join(ch for ch in name if ch.isdigit()))
            element = replace(element, centre_mm=in_village(element.centre_mm, vid))
        elif element.kind == "stone":
            element = replace(element, centre_mm=in_village(element.centre_mm, int(name[6:])))
        elif element.kind == "bridge":
            a, b = (int(x) for x in name[7:].split("-"))
            ca, cb = moved[a][1], moved[b][1]
            along = (cb - ca) / max(1e-9, float(np.linalg.norm(cb - ca)))
            across = np.array([-along[1], along[0]])
            spot = (
                np.array(element.centre_mm)
                + (moved[a][1] - moved[a][0] + moved[b][1] - moved[b][0]) / 2.0
            )
            spot = spot + along * rng.uniform(-14.0, 14.0) + across * rng.uniform(-5.0, 5.0)
            element = replace(
                element,
                centre_mm=(float(spot[0]), float(spot[1])),
                angle_deg=element.angle_deg + float(rng.uniform(-8.0, 8.0)),
            )
        elements[name] = element
    pieces = {key: value * float(rng.uniform(0.97, 1.03)) for key, value in model.pieces.items()}
    return replace(model, elements=elements, pieces=pieces, villages=tuple(villages))


# --- the painting ----------------------------------------------------------------------------


def _pts(points_mm: FloatArray, s: float) -> NDArray[np.int32]:
    return np.rint(np.asarray(points_mm) * s * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)


def _noise(rng: np.random.Generator, size: tuple[int, int], cells: int) -> NDArray[np.float32]:
    w, h = size
    coarse = rng.normal(size=(cells, cells)).astype(np.float32)
    return np.asarray(cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC))


def _random_bgr(
    rng: np.random.Generator,
    value: tuple[float, float],
    saturation: tuple[float, float] = (0.15, 0.8),
) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(
        float(rng.uniform()), float(rng.uniform(*saturation)), float(rng.uniform(*value))
    )
    return round(b * 255), round(g * 255), round(r * 255)


def _symbols(rng: np.random.Generator) -> dict[str, list[FloatArray]]:
    """Each discipline's symbol in this edition: a few random strokes in a unit box."""
    out: dict[str, list[FloatArray]] = {}
    for letter in "ADFHPRY":
        strokes = []
        for _ in range(int(rng.integers(2, 5))):
            n = int(rng.integers(2, 5))
            strokes.append(rng.uniform(-0.5, 0.5, (n, 2)))
        out[letter] = strokes
    return out


def _base_painting(
    world: World, rng: np.random.Generator, s: float
) -> tuple[Image, bool, tuple[float, float]]:
    """The painted ground of a board: blended colour regions with brush-like grain
    (and, for a landscape, brush strokes); whether it is dark, and its value range."""
    model = world.model
    w, h = round(model.size_mm[0] * s), round(model.size_mm[1] * s)
    dark = world.kind == "landscape" or rng.random() < 0.5
    value = (0.12, 0.45) if dark else (0.55, 0.9)
    palette = np.array([_random_bgr(rng, value) for _ in range(4)], np.float32)
    # a landscape of blended colour regions with brush-like grain
    weights = np.stack([_noise(rng, (w, h), int(rng.integers(3, 9))) for _ in palette])
    weights = np.exp(2.5 * weights)
    weights /= weights.sum(axis=0, keepdims=True)
    image = np.einsum("khw,kc->hwc", weights, palette)
    image *= (1.0 + 0.08 * _noise(rng, (w, h), 40))[:, :, None]
    image = np.clip(image, 0, 255).astype(np.uint8)
    aa = cv2.LINE_AA
    if world.kind == "landscape":
        for _ in range(int(rng.integers(150, 300))):  # brush strokes: trees, rocks, grass
            centre = rng.uniform(0, 1, 2) * model.size_mm
            axes = (float(rng.uniform(2, 14)), float(rng.uniform(1, 5)))
            colour = _random_bgr(rng, (0.05, 0.6))
            cv2.ellipse(
                image,
                (int(centre[0] * s), int(centre[1] * s)),
                (int(axes[0] * s), int(axes[1] * s)),
                float(rng.uniform(0, 180)),
                0,
                360,
                colour,
                -1,
                aa,
            )
    return image, dark, value


def _shendao_painting(world: World, s: float) -> Image:
    """A procedural painting of a Shendao board: its ground, a grid of printed squares
    in two shades of this edition (or one, with a pattern), gate slots and walls."""
    model = world.model
    rng = np.random.default_rng([world.seed, KINDS.index(world.kind), 31])
    image, _, _ = _base_painting(world, rng, s)
    aa = cv2.LINE_AA
    shades = [_random_bgr(rng, (0.35, 0.95), (0.05, 0.6)) for _ in range(2)]
    if rng.random() < 0.3:
        shades[1] = shades[0]
    ink = _random_bgr(rng, (0.05, 0.35), (0.1, 0.7))
    opacity = float(rng.uniform(0.75, 1.0))
    painted = image.copy()
    for square in model.of_kind("square"):
        file, rank = ord(square.name[0]) - ord("a"), int(square.name[1:])
        cv2.fillPoly(painted, [_pts(square.corners_mm(), s)], shades[(file + rank) % 2], aa, _SHIFT)
    image = np.asarray(cv2.addWeighted(painted, opacity, image, 1.0 - opacity, 0.0), np.uint8)
    for square in model.of_kind("square"):
        cv2.polylines(
            image,
            [_pts(square.corners_mm(), s)],
            True,
            ink,
            max(1, round(rng.uniform(0.5, 1.5) * s)),
            aa,
            _SHIFT,
        )
        if rng.random() < 0.15:  # an ornament printed on some squares
            centre = np.array(square.centre_mm)
            for _ in range(2):
                stroke = centre + rng.uniform(-10, 10, (3, 2))
                cv2.polylines(
                    image, [_pts(stroke, s)], False, ink, max(1, round(0.8 * s)), aa, _SHIFT
                )
    slot = _random_bgr(rng, (0.15, 0.6), (0.1, 0.6))
    for gate in model.of_kind("gate"):
        grown = Element(
            gate.name,
            gate.kind,
            gate.centre_mm,
            (gate.size_mm[0] + 4, gate.size_mm[1] + 4),
            gate.angle_deg,
        )
        cv2.fillPoly(image, [_pts(grown.corners_mm(), s)], slot, aa, _SHIFT)
    wall = _random_bgr(rng, (0.2, 0.8), (0.3, 0.9))
    for a, b in model.walls:
        cv2.polylines(
            image, [_pts(np.array([a, b]), s)], False, wall, max(1, round(5 * s)), aa, _SHIFT
        )
    w, h = image.shape[1], image.shape[0]
    cv2.rectangle(image, (0, 0), (w - 1, h - 1), _random_bgr(rng, (0.1, 0.4)), max(1, round(4 * s)))
    image.setflags(write=False)
    return image


def _shenshi_painting(world: World, s: float) -> Image:
    """A procedural painting of a ShenShi hall: its ground, a 7x7 grid of printed squares
    of this edition's style (light and dark shades, or one shade; plain, framed,
    patterned or with a printed rosette), the marked squares in a shade of their own or
    not, and a carved border."""
    model = world.model
    rng = np.random.default_rng([world.seed, KINDS.index(world.kind), 37])
    image, _, _ = _base_painting(world, rng, s)
    aa = cv2.LINE_AA
    light = world.kind == "landscape" or rng.random() < 0.5
    value = (0.6, 0.95) if light else (0.2, 0.55)
    shades = [_random_bgr(rng, value, (0.03, 0.6)) for _ in range(2)]
    if rng.random() < 0.3:
        shades[1] = shades[0]
    marked_shade = _random_bgr(rng, value, (0.1, 0.7)) if rng.random() < 0.6 else None
    ink = _random_bgr(rng, (0.05, 0.35) if light else (0.5, 0.9), (0.1, 0.7))
    style = str(rng.choice(["plain", "framed", "patterned", "rosette"]))
    marked = {square_name(square) for square in load_board().marked}
    tiles = model.of_kind("tile")
    centres = np.array([t.centre_mm for t in tiles])
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2) + np.eye(len(tiles)) * 1e9
    pitch = float(np.median(gaps.min(axis=1)))
    scale = pitch / 42.86
    painted = image.copy()
    for tile in tiles:
        name = tile.name.split(" ")[0]
        file, rank = ord(name[0]) - ord("a"), int(name[1:])
        shade = (
            marked_shade
            if marked_shade is not None and name in marked
            else shades[(file + rank) % 2]
        )
        cell = Element("", "", tile.centre_mm, (pitch, pitch), tile.angle_deg).corners_mm()
        cv2.fillPoly(painted, [_pts(cell, s)], shade, aa, _SHIFT)
    opacity = float(rng.uniform(0.8, 1.0))
    image = np.asarray(cv2.addWeighted(painted, opacity, image, 1.0 - opacity, 0.0), np.uint8)
    for tile in tiles:
        centre = np.array(tile.centre_mm)
        cell = Element("", "", tile.centre_mm, (pitch, pitch), tile.angle_deg).corners_mm()
        cv2.polylines(
            image, [_pts(cell, s)], True, ink, max(1, round(rng.uniform(0.5, 1.5) * s)), aa, _SHIFT
        )
        if style == "framed":
            inner = centre + (cell - centre) * 0.82
            cv2.polylines(image, [_pts(inner, s)], True, ink, max(1, round(0.7 * s)), aa, _SHIFT)
        elif style == "patterned":
            for k in range(-3, 4):
                a = centre + np.array([k * 5.0, -pitch * 0.45]) * scale
                cv2.line(
                    image,
                    (int(a[0] * s), int(a[1] * s)),
                    (int((a[0] + 4 * scale) * s), int((a[1] + pitch * 0.9) * s)),
                    ink,
                    max(1, round(0.4 * s)),
                    aa,
                )
        elif style == "rosette":
            angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            radii = pitch * (0.2 + 0.06 * np.sin(6 * angles))
            ring = centre + np.column_stack([np.cos(angles), np.sin(angles)]) * radii[:, None]
            cv2.polylines(image, [_pts(ring, s)], True, ink, max(1, round(0.6 * s)), aa, _SHIFT)
    lo = centres.min(axis=0) - pitch / 2
    hi = centres.max(axis=0) + pitch / 2
    border = _random_bgr(rng, (0.1, 0.5), (0.1, 0.8))
    for inset, width in (
        (0.0, 2.0),
        (-9.0, float(rng.uniform(0.8, 2.0))),
        (-14.0, float(rng.uniform(1.5, 3.5))),
    ):
        a, b = lo + inset, hi - inset
        ring = np.array([a, [b[0], a[1]], b, [a[0], b[1]]])
        cv2.polylines(image, [_pts(ring, s)], True, border, max(1, round(width * s)), aa, _SHIFT)
    w, h = image.shape[1], image.shape[0]
    cv2.rectangle(image, (0, 0), (w - 1, h - 1), _random_bgr(rng, (0.1, 0.4)), max(1, round(4 * s)))
    image.setflags(write=False)
    return image


def _shangrila_painting(world: World, s: float) -> Image:
    """A procedural painting of a Shangri-La board of ``world``'s kind and layout."""
    model = world.model
    rng = np.random.default_rng([world.seed, KINDS.index(world.kind), 29])
    image, dark, value = _base_painting(world, rng, s)
    w, h = image.shape[1], image.shape[0]
    aa = cv2.LINE_AA
    centres = {v.id: np.array(v.centre_mm) for v in model.villages}
    path_colour = _random_bgr(rng, (0.5, 0.85) if dark else (0.3, 0.6), (0.1, 0.5))
    path_width = float(rng.uniform(5, 10))
    river_colour = _random_bgr(rng, (0.3, 0.8), (0.3, 0.9))
    for bridge in model.of_kind("bridge"):
        a, b = (int(x) for x in bridge.name[7:].split("-"))
        spot = np.array(bridge.centre_mm)
        bend = rng.uniform(-10, 10, 2)
        t = np.linspace(0.0, 1.0, 30)[:, None]
        first = (1 - t) * centres[a] + t * spot + np.sin(np.pi * t) * bend
        second = (1 - t) * spot + t * centres[b] - np.sin(np.pi * t) * bend
        curve = np.vstack([first, second])
        cv2.polylines(
            image, [_pts(curve, s)], False, path_colour, max(1, round(path_width * s)), aa, _SHIFT
        )
        a_rad = math.radians(bridge.angle_deg)
        across = np.array([-math.sin(a_rad), math.cos(a_rad)])
        wiggle = rng.uniform(-4, 4)
        river = np.array([spot - 30 * across + wiggle, spot, spot + 30 * across - wiggle])
        cv2.polylines(
            image,
            [_pts(river, s)],
            False,
            river_colour,
            max(1, round(rng.uniform(5, 9) * s)),
            aa,
            _SHIFT,
        )
    symbols = _symbols(rng)
    space_fill = _random_bgr(rng, (0.78, 0.97), (0.03, 0.3))
    ink = _random_bgr(rng, (0.1, 0.4), (0.1, 0.7))
    for village in model.villages:
        centre = np.array(village.centre_mm)
        if world.kind == "landscape":
            for _ in range(int(rng.integers(25, 45))):  # a town: houses and roofs
                at = centre + rng.normal(0, village.radius_mm * 0.45, 2)
                half = rng.uniform(2, 5, 2)
                roof = _random_bgr(rng, (0.2, 0.7), (0.2, 0.8))
                box = np.array(
                    [
                        at - half,
                        [at[0] + half[0], at[1] - half[1]],
                        at + half,
                        [at[0] - half[0], at[1] + half[1]],
                    ]
                )
                cv2.fillPoly(image, [_pts(box, s)], roof, aa, _SHIFT)
        else:
            angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)
            radii = village.radius_mm * (1 + 0.12 * np.sin(3 * angles + rng.uniform(0, 6)))
            ring = centre + np.column_stack([np.cos(angles), np.sin(angles)]) * radii[:, None]
            cv2.fillPoly(image, [_pts(ring, s)], _random_bgr(rng, value), aa, _SHIFT)
    rounded = rng.random() < 0.5
    for space in model.of_kind("space"):
        corners = space.corners_mm()
        if rounded:
            centre = np.array(space.centre_mm)
            corners = centre + (corners - centre) * 0.93
            cv2.polylines(
                image, [_pts(corners, s)], True, space_fill, max(1, round(1.5 * s)), aa, _SHIFT
            )
        cv2.fillPoly(image, [_pts(corners, s)], space_fill, aa, _SHIFT)
        cv2.polylines(image, [_pts(corners, s)], True, ink, max(1, round(0.6 * s)), aa, _SHIFT)
        size = space.size_mm[0] * 0.6
        for stroke in symbols[str(space.discipline)]:
            cv2.polylines(
                image,
                [_pts(np.array(space.centre_mm) + stroke * size, s)],
                False,
                ink,
                max(1, round(0.9 * s)),
                aa,
                _SHIFT,
            )
    stone_ring = _random_bgr(rng, (0.5, 0.95), (0.0, 0.4))
    for stone in model.of_kind("stone"):
        angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        ring = (
            np.array(stone.centre_mm)
            + np.column_stack([np.cos(angles), np.sin(angles)]) * stone.size_mm[0] / 2.0
        )
        cv2.polylines(image, [_pts(ring, s)], True, stone_ring, max(1, round(0.8 * s)), aa, _SHIFT)
    edge = _random_bgr(rng, (0.1, 0.4))
    cv2.rectangle(image, (0, 0), (w - 1, h - 1), edge, max(1, round(4 * s)))
    image.setflags(write=False)
    return image
