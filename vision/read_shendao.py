"""Reading a Shendao table: :class:`BoardReader` with one more look at each square.

A tile covers 34 mm of its 40 mm square, so a rim of the square shows around it. An
empty square looks much the same in its middle and on its rim, whatever the light or a
reflection does to both; a tile does not. A tile read where the middle looks just like
the rim (a reflection brightening an empty square) is not kept, and a colour tie
between a tile and the empty square whose middle looks just like its rim is the empty
square. (The other way round does not hold: a neighbour's tile, seen slanted, or its
shadow, can fall on an empty square's rim.) The rim is not read where a wall is
printed along the square's side.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from engines.observation import UNKNOWN, Reading
from vision.models import BoardModel, Element
from vision.read import GLARE, TIED, BoardReader, place_points, square_ring
from vision.read_colour import FloatArray, colour_distance
from vision.read_config import ReadConfig
from vision.view import BoardView

EMPTY = "empty"


class ShendaoReader(BoardReader):
    """:class:`BoardReader` for Shendao (see the module's docstring)."""

    def __init__(self, model: BoardModel | None = None, config: ReadConfig | None = None) -> None:
        super().__init__("shendao", model, config)
        c = self.config
        total = c.samples_per_side**2
        self._rim = total - c.rim_points
        side = round(self._rim**0.5)
        if side * side != self._rim:
            raise ValueError(
                f"samples_per_side {c.samples_per_side} leaves {self._rim} "
                f"middle points, not a square number"
            )
        grid = (np.arange(side) + 0.5) / side - 0.5
        self._middle = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)
        self._ring = square_ring(c.rim_points, c.rim_radii)
        # rim points on a printed wall show its red, not the square
        self._rim_clear = np.ones((len(self.elements), c.rim_points), dtype=bool)
        for i, element in enumerate(self.elements):
            if element.kind == "square" and self.model.walls:
                rim = place_points(self._ring * np.array(element.size_mm), element)
                self._rim_clear[i] = _wall_distance(rim, self.model.walls) > c.rim_wall_clearance_mm

    def _window(self, element: Element) -> tuple[FloatArray, float | FloatArray]:
        if element.kind != "square":
            return super()._window(element)
        size = np.array(element.size_mm)
        middle = self._middle * size * self.config.window_fraction
        points = place_points(np.vstack([middle, self._ring * size]), element)
        tile_top = self.model.pieces["tile_thickness_mm"] / 2.0
        heights = np.concatenate([np.full(len(middle), tile_top), np.zeros(len(self._ring))])
        return points, heights

    def _blocked(self, view: BoardView, element: Element, points: FloatArray) -> NDArray[np.bool_]:
        """The rim is not read for colour, only compared."""
        blocked = np.zeros(len(points), dtype=bool)
        if element.kind == "square":
            blocked[self._rim :] = True
        return blocked

    def _check_colours(
        self,
        features: FloatArray,
        visible: NDArray[np.bool_],
        blocked: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        squares = [
            i
            for i, e in enumerate(self.elements)
            if e.kind == "square"
            and (
                (readings[e.name].known and readings[e.name].value != EMPTY)
                or reasons.get(e.name) in (TIED, GLARE)
            )
        ]
        if not squares:
            return
        middle = _median_seen(features[squares, : self._rim], visible[squares, : self._rim])
        rim = _median_seen(
            features[squares, self._rim :], visible[squares, self._rim :] & self._rim_clear[squares]
        )
        apart = np.linalg.norm(middle - rim, axis=1)  # brightness counting fully
        c = self.config
        for i, gap, colour in zip(squares, apart, middle, strict=True):
            name = self.elements[i].name
            if not readings[name].known:
                # a tie with "empty", or a colour glare leaves unsure, its middle just
                # like its rim and like an empty square: an empty square (white light
                # added to both leaves them alike)
                if (
                    gap < c.rim_empty_apart
                    and self._near_empty(colour, i)
                    and (reasons[name] == GLARE or EMPTY in self._tied(colour, i))
                ):
                    readings[name] = Reading(EMPTY, c.rim_empty_confidence)
                    del reasons[name]
            elif gap < c.rim_tile_apart:  # NaN (too little seen) compares False
                readings[name] = UNKNOWN
                reasons[name] = "looks like the bare square around it"

    def _near_empty(self, colour: FloatArray, index: int) -> bool:
        """Whether a square's middle colour is near its empty shade."""
        kind = self.kinds["square"]
        if np.isnan(colour).any():
            return False
        distances = colour_distance(colour[None], kind.prototypes, self.config.brightness_weight)[0]
        empty = (kind.owner == kind.names.index(EMPTY)) & self._allowed(self.elements[index], kind)
        return bool(distances[empty].min() < self.config.rim_empty_near)

    def _tied(self, colour: FloatArray, index: int) -> set[str]:
        """The two classes nearest a square's middle colour."""
        kind = self.kinds["square"]
        if np.isnan(colour).any():
            return set()
        distances = colour_distance(colour[None], kind.prototypes, self.config.brightness_weight)[0]
        distances[~self._allowed(self.elements[index], kind)] = np.inf
        per_class = [distances[kind.owner == k].min() for k in range(len(kind.names))]
        order = np.argsort(per_class)
        return {kind.names[int(order[0])], kind.names[int(order[1])]}


def _wall_distance(
    points: FloatArray,
    walls: Sequence[tuple[Sequence[float], Sequence[float]]],
) -> FloatArray:
    """Distance (mm) from each board point (N, 2) to the nearest printed wall (a
    segment from one board point to another)."""
    nearest = np.full(len(points), np.inf)
    for a, b in walls:
        start, end = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        along = end - start
        t = np.clip((points - start) @ along / max(float(along @ along), 1e-9), 0.0, 1.0)
        nearest = np.minimum(nearest, np.linalg.norm(points - (start + t[:, None] * along), axis=1))
    return nearest


def _median_seen(features: FloatArray, seen: NDArray[np.bool_]) -> FloatArray:
    """Per row, the median of the seen samples (NaN with fewer than four)."""
    out = np.full((len(features), 3), np.nan)
    enough = seen.sum(axis=1) >= 4
    if enough.any():
        out[enough] = np.nanmedian(
            np.where(seen[enough][:, :, None], features[enough], np.nan), axis=1
        )
    return out
