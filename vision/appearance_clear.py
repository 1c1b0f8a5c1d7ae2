"""Whether the board was clear at calibration.

The appearance reader compares every frame with the picture of the empty board the
player took at calibration (:func:`vision.appearance.calibrate`). Something over the
board in that picture (a box or a cup from the table standing over a corner, a hand)
becomes part of the "empty board": the elements there are then read against the wrong
colours for the whole game, and often read wrong with confidence.

The empty board and the calibration position are photographed under one light with the
camera in place, so away from the position's pieces the two pictures show the same
board. Where they differ in colour, beyond a change of exposure (a quadratic over the
board, fitted with the differences trimmed), over an area no noise or print makes,
something lay over the board in one of the two pictures. The check cannot tell which
of the two, and says where on the board it lies so the player can clear it and take
both pictures again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engines.observation import Observation
from vision.appearance_core import (
    BARE_VALUES,
    distance,
    light_design,
    linear,
    log_colour,
)
from vision.models import BoardModel
from vision.view import BoardView

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

GRID_PX_PER_MM = 0.5
"""The two pictures are compared on a grid of this many points per mm (2 mm apart)."""
CHANGED = 0.35
"""Least difference of log colour (brightness included: the light is the same) for a
point to have changed between the two pictures."""
AREA_MM2 = 600.0
"""Least area of changed board taken for an object. On the validation worlds (the
hardest level, 1280x720: 48 each of Shangri-La and ShenShi, 24 of Shendao) and 120 of
Shendao's training worlds, the largest patch reaching a place that was not an object
was 96 mm^2 (by ShenShi's tall stacks); the one object over a place among them (a box
over a corner of a Shangri-La board, reaching a village) changed 3,100 mm^2."""
PIECE_MARGIN_MM = 8.0
"""How far around each piece of the calibration position the board is not compared:
a piece lies a little off its spot, casts a shadow, and its height hides the board
behind it from a slanted camera."""


@dataclass(frozen=True)
class Obstruction:
    """A patch of board that differed between the empty board and the calibration
    position: its centre on the board (mm) and its area (mm^2)."""

    centre_mm: tuple[float, float]
    area_mm2: float
    elements: tuple[str, ...] = ()
    """The board's elements (places the reader reads) it reaches."""

    def where(self, size_mm: tuple[float, float]) -> str:
        """Where on the board, in words (as the board is drawn: top, left...)."""
        x, y = self.centre_mm[0] / size_mm[0], self.centre_mm[1] / size_mm[1]
        across = "left" if x < 1 / 3 else "right" if x > 2 / 3 else ""
        down = "top" if y < 1 / 3 else "bottom" if y > 2 / 3 else ""
        if across and down:
            return f"near the {down}-{across} corner"
        if across or down:
            return f"along the {across or down} side"
        return "in the middle"


def obstructions(
    model: BoardModel,
    empty: Image,
    empty_view: BoardView,
    position: Image,
    position_view: BoardView,
    layout: Observation,
) -> list[Obstruction]:
    """The patches of board, away from the pieces of the calibration position
    ``layout``, where the picture of the empty board and that of the position differ
    (largest first); none when the board was clear in both."""
    size = model.size_mm
    w = max(1, round(size[0] * GRID_PX_PER_MM))
    h = max(1, round(size[1] * GRID_PX_PER_MM))

    def seen(frame: Image, view: BoardView) -> tuple[FloatArray, NDArray[np.bool_]]:
        fine = view.rectify(frame, size, 2 * GRID_PX_PER_MM)
        inside = (fine.max(axis=2) > 0).astype(np.uint8)
        small = cv2.resize(fine, (w, h), interpolation=cv2.INTER_AREA)
        kept = cv2.resize(inside, (w, h), interpolation=cv2.INTER_NEAREST) > 0
        return log_colour(linear(np.asarray(small, dtype=np.uint8))).reshape(-1, 3), kept

    before, inside_before = seen(empty, empty_view)
    after, inside_after = seen(position, position_view)
    compared = (
        inside_before & inside_after & ~_pieces_mask(model, layout, position_view, (h, w))
    ).reshape(-1)
    if compared.sum() < 12:
        return []
    diff = after - before
    design = _design(h, w, size)
    keep = compared.copy()
    coefficients: NDArray[np.floating[Any]] = np.zeros((design.shape[1], 3))
    for _ in range(4):  # exposure: a quadratic, the changed points trimmed
        used = design[keep]
        coefficients = np.linalg.solve(
            used.T @ used + 1e-6 * np.eye(len(used.T)), used.T @ diff[keep]
        )
        residual = distance(diff, design @ coefficients)
        scale = float(np.median(residual[keep])) + 1e-3
        keep = compared & (residual < max(2.5 * scale, CHANGED))
        if keep.sum() < 12:
            return []
    changed = (compared & (distance(diff, design @ coefficients) >= CHANGED)).reshape(h, w)
    count, labels, stats, centres = cv2.connectedComponentsWithStats(
        changed.astype(np.uint8), connectivity=8
    )
    places = _footprints(model, (h, w))
    out = []
    for i in range(1, count):
        area = float(stats[i, cv2.CC_STAT_AREA]) / GRID_PX_PER_MM**2
        if area < AREA_MM2:
            continue
        under = frozenset(int(k) for k in np.unique(places[labels == i]) if k >= 0)
        if not under:
            continue  # the board's border alone: no element is read there
        centre = (centres[i] + 0.5) / GRID_PX_PER_MM
        out.append(
            Obstruction(
                (float(centre[0]), float(centre[1])),
                area,
                tuple(sorted(list(model.elements)[k] for k in under)),
            )
        )
    return sorted(out, key=lambda o: -o.area_mm2)


def _design(h: int, w: int, size_mm: tuple[float, float]) -> FloatArray:
    """The exposure's quadratic at every grid point (as the reader's light)."""
    ys, xs = np.mgrid[0:h, 0:w]
    points = np.column_stack([xs.ravel() + 0.5, ys.ravel() + 0.5]) / GRID_PX_PER_MM
    return light_design(points, size_mm)


def _pieces_mask(
    model: BoardModel, layout: Observation, view: BoardView, shape: tuple[int, int]
) -> NDArray[np.bool_]:
    """The grid points within ``PIECE_MARGIN_MM`` of a piece the position puts on the
    board (an element whose value there is not bare), or of the board such a piece,
    as tall as the game's tallest, hides from the camera of ``view``."""
    mask = np.zeros(shape, dtype=np.uint8)
    camera = view.camera_mm()
    tallest = _tallest_mm(model)
    for name in layout.schema.elements:
        element = model.elements.get(name)
        reading = layout[name]
        if element is None or not reading.known or reading.value in BARE_VALUES:
            continue
        if isinstance(reading.value, int) and not isinstance(reading.value, bool):
            continue  # a stack height: its space's tile is masked already
        half = np.array(element.size_mm) / 2.0 + PIECE_MARGIN_MM
        a = math.radians(element.angle_deg)
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        local = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * half
        foot = local @ turn.T + np.array(element.centre_mm)
        if camera is not None and camera[2] > tallest:
            away = np.array(element.centre_mm) - camera[:2]
            reach = float(np.linalg.norm(away))
            shift = away / max(reach, 1e-6) * tallest * reach / (camera[2] - tallest)
            foot = np.vstack([foot, foot + shift])
        hull = cv2.convexHull(np.round(foot * GRID_PX_PER_MM - 0.5).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 1)
    return mask > 0


def _tallest_mm(model: BoardModel) -> float:
    """How high a piece of the game can stand: the tallest piece on a cushion on a tile
    (the kinds the game has)."""
    pieces = model.pieces
    heights = [
        v for k, v in pieces.items() if k.endswith("_height_mm") and k != "cushion_height_mm"
    ]
    return (
        pieces.get("tile_thickness_mm", 0.0)
        + pieces.get("cushion_height_mm", 0.0)
        + max(heights, default=0.0)
    )


def _footprints(model: BoardModel, shape: tuple[int, int]) -> NDArray[np.intp]:
    """Per grid point, the index (in the model's order) of an element whose place
    covers it, -1 where none does."""
    out = np.full(shape, -1, dtype=np.int32)
    for index, element in enumerate(model.elements.values()):
        corners = np.round(element.corners_mm() * GRID_PX_PER_MM - 0.5).astype(np.int32)
        cv2.fillPoly(out, [corners], index)
    return out.astype(np.intp)


def describe(found: Sequence[Obstruction], size_mm: tuple[float, float]) -> list[str]:
    """Warnings in plain words for the player, one per patch found."""
    return [
        "the empty board and the calibration position differ "
        f"{o.where(size_mm)} of the board (about {math.sqrt(o.area_mm2):.0f} mm across, "
        f"over {len(o.elements)} place" + ("s" if len(o.elements) != 1 else "") + " the "
        "camera reads, away from the pieces): something lay over the board in one of the "
        "two pictures (a box, a cup, a hand), and the camera would read those places wrong "
        "all game. Clear the board and take both pictures again"
        for o in found
    ]
