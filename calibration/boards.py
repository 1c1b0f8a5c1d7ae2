"""Physical board geometry for registration, read from the editable ``boards.json``.

A :class:`BoardGeometry` is a board's outline in millimetres, its corner markers (ArUco
id, side, centre), the border strip used for white balance, the players' colours, and
a layout (village map or square grid) that gives the lines the overlay draws and the
points the registration error is measured on. The figures are estimates until someone
measures the printed boards; ``boards.json`` says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import ConfigError
from calibration.targets import aruco_dictionary
from engines.jsontext import JSONTextError, parse_json
from engines.shangrila.board import load_board

FloatArray = NDArray[np.float64]
BOARDS_VERSION = 1
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
# A 4x4-bit ArUco marker is 6 modules wide with its black border.
MARKER_MODULES = 6
# White margin round a marker when it is not cut to fit a corner: the detector needs one
# module at least, and 4 mm leaves room for an unsteady cut.
MIN_QUIET_MM = 4.0
# Points per circle when a village outline is drawn as a polyline.
_CIRCLE_POINTS = 48


@dataclass(frozen=True)
class MarkerPlacement:
    """Where one ArUco marker is stuck: its id, the board corner, its centre in mm."""

    id: int
    corner: str
    centre_mm: tuple[float, float]


@dataclass(frozen=True)
class GridLayout:
    """A board of square cells: ``cells`` (columns, rows) of ``cell_mm`` from
    ``origin_mm``, optionally inside a ring of gates ``gate_border_mm`` wide."""

    cells: tuple[int, int]
    origin_mm: tuple[float, float]
    cell_mm: float
    gate_border_mm: float


@dataclass(frozen=True)
class VillageLayout:
    """The Shangri-La map: villages of ``village_mm`` across, joined by bridges, placed
    from the rules engine's board data."""

    village_mm: float


@dataclass(frozen=True)
class BoardGeometry:
    game: str
    name: str
    size_mm: tuple[float, float]
    dictionary: str
    marker_mm: float
    markers: tuple[MarkerPlacement, ...]
    border_mm: float
    piece_mm: float
    player_colours: tuple[str, ...]
    layout: GridLayout | VillageLayout

    @property
    def marker_ids(self) -> tuple[int, ...]:
        return tuple(m.id for m in self.markers)

    def marker(self, marker_id: int) -> MarkerPlacement:
        for placement in self.markers:
            if placement.id == marker_id:
                return placement
        raise KeyError(marker_id)

    def marker_corners_mm(self, marker_id: int) -> FloatArray:
        """The marker's black-square corners on the board in ArUco's order: top-left,
        top-right, bottom-right, bottom-left (the marker is stuck upright)."""
        cx, cy = self.marker(marker_id).centre_mm
        h = self.marker_mm / 2.0
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])

    def card_mm(self, marker_id: int) -> float:
        """The side of the printed card a marker is cut out on (see :func:`flush_distance`):
        flush with the board's edges when the marker sits equally far from both, else
        the marker with a white margin of ``MIN_QUIET_MM`` or one module."""
        module = self.marker_mm / MARKER_MODULES
        flush = flush_distance(self, self.marker(marker_id).centre_mm)
        if flush is not None:
            return 2.0 * flush
        return self.marker_mm + 2.0 * max(module, MIN_QUIET_MM)

    def outline_mm(self) -> FloatArray:
        """The board's corners: top-left, top-right, bottom-right, bottom-left."""
        w, h = self.size_mm
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])

    def to_json(self) -> dict[str, Any]:
        layout: dict[str, Any]
        if isinstance(self.layout, GridLayout):
            layout = {
                "kind": "grid",
                "cells": list(self.layout.cells),
                "origin_mm": list(self.layout.origin_mm),
                "cell_mm": self.layout.cell_mm,
                "gate_border_mm": self.layout.gate_border_mm,
            }
        else:
            layout = {"kind": "villages", "village_mm": self.layout.village_mm}
        return {
            "name": self.name,
            "size_mm": list(self.size_mm),
            "dictionary": self.dictionary,
            "marker_mm": self.marker_mm,
            "markers": [
                {"id": m.id, "corner": m.corner, "centre_mm": list(m.centre_mm)}
                for m in self.markers
            ],
            "border_mm": self.border_mm,
            "piece_mm": self.piece_mm,
            "player_colours": list(self.player_colours),
            "layout": layout,
        }


def flush_distance(geometry: BoardGeometry, centre_mm: tuple[float, float]) -> float | None:
    """The distance from a marker's centre to the two board edges nearest to it, if it
    is the same for both and leaves a white margin of at least one module: a card cut
    that far round the centre then fits into the board's corner flush with its edges,
    which places the marker more exactly than measuring. ``None`` otherwise."""
    w, h = geometry.size_mm
    dx = min(centre_mm[0], w - centre_mm[0])
    dy = min(centre_mm[1], h - centre_mm[1])
    module = geometry.marker_mm / MARKER_MODULES
    if abs(dx - dy) < 1e-6 and dx - geometry.marker_mm / 2.0 >= module:
        return dx
    return None


def geometry_from_json(game: str, data: Any, dictionary: str | None = None) -> BoardGeometry:
    """Build and check a board from its JSON object. ``dictionary`` is the file-wide
    default when the object has none. Raises ``ValueError`` saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("the board is not an object")
    size = _pair(data.get("size_mm"), "size_mm")
    marker_mm = _positive(data.get("marker_mm"), "marker_mm")
    markers = []
    for i, item in enumerate(_list(data.get("markers"), "markers")):
        if not isinstance(item, dict):
            raise ValueError(f"markers[{i}] is not an object")
        marker_id = item.get("id")
        if isinstance(marker_id, bool) or not isinstance(marker_id, int) or marker_id < 0:
            raise ValueError(f"markers[{i}].id must be a whole number >= 0")
        corner = item.get("corner")
        if corner not in CORNER_NAMES:
            raise ValueError(f"markers[{i}].corner must be one of {', '.join(CORNER_NAMES)}")
        centre = _pair(item.get("centre_mm"), f"markers[{i}].centre_mm", allow_zero=True)
        h = marker_mm / 2.0
        if not (h <= centre[0] <= size[0] - h and h <= centre[1] <= size[1] - h):
            raise ValueError(f"marker {marker_id} does not lie wholly on the board")
        markers.append(MarkerPlacement(marker_id, corner, centre))
    ids = [m.id for m in markers]
    if len(set(ids)) != len(ids) or len(ids) < 2:
        raise ValueError("a board needs at least 2 markers with different ids")
    colours = _list(data.get("player_colours"), "player_colours")
    if (
        not colours
        or not all(isinstance(c, str) and c for c in colours)
        or len(set(colours)) != len(colours)
    ):
        raise ValueError("player_colours must be different non-empty names")
    layout_data = data.get("layout")
    if not isinstance(layout_data, dict):
        raise ValueError("layout is not an object")
    layout: GridLayout | VillageLayout
    if layout_data.get("kind") == "grid":
        cells = _list(layout_data.get("cells"), "layout.cells")
        if len(cells) != 2 or not all(
            isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in cells
        ):
            raise ValueError("layout.cells must be [columns, rows]")
        origin = _pair(layout_data.get("origin_mm"), "layout.origin_mm", allow_zero=True)
        cell = _positive(layout_data.get("cell_mm"), "layout.cell_mm")
        gate = layout_data.get("gate_border_mm", 0.0)
        if isinstance(gate, bool) or not isinstance(gate, int | float) or gate < 0:
            raise ValueError("layout.gate_border_mm must be a number >= 0")
        if (
            origin[0] - gate < 0
            or origin[1] - gate < 0
            or origin[0] + cells[0] * cell + gate > size[0] + 1e-6
            or origin[1] + cells[1] * cell + gate > size[1] + 1e-6
        ):
            raise ValueError("the grid and its gate ring do not fit on the board")
        layout = GridLayout((cells[0], cells[1]), origin, cell, float(gate))
    elif layout_data.get("kind") == "villages":
        layout = VillageLayout(_positive(layout_data.get("village_mm"), "layout.village_mm"))
    else:
        raise ValueError("layout.kind must be 'grid' or 'villages'")
    name = data.get("name")
    dictionary_name = data.get("dictionary", dictionary)
    if not isinstance(name, str) or not isinstance(dictionary_name, str):
        raise ValueError("name and dictionary must be text")
    return BoardGeometry(
        game=game,
        name=name,
        size_mm=size,
        dictionary=dictionary_name,
        marker_mm=marker_mm,
        markers=tuple(markers),
        border_mm=_positive(data.get("border_mm"), "border_mm"),
        piece_mm=_positive(data.get("piece_mm"), "piece_mm"),
        player_colours=tuple(colours),
        layout=layout,
    )


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{key} must be a list")
    return value


def _positive(value: Any, key: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not value > 0
        or not np.isfinite(value)
    ):
        raise ValueError(f"{key} must be a positive number, not {value!r}")
    return float(value)


def _pair(value: Any, key: str, allow_zero: bool = False) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{key} must be two numbers")
    if allow_zero:
        if not all(
            isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 and np.isfinite(v)
            for v in value
        ):
            raise ValueError(f"{key} must be two numbers >= 0")
        return float(value[0]), float(value[1])
    return _positive(value[0], key), _positive(value[1], key)


def load_boards(path: str | Path | None = None) -> dict[str, BoardGeometry]:
    """Every board in ``boards.json`` (the packaged one by default).
    Raises ``ConfigError`` naming the file, the board and the fault."""
    source = "the packaged boards.json" if path is None else str(path)
    try:
        if path is None:
            text: str | bytes = (
                resources.files("calibration").joinpath("boards.json").read_text("utf-8")
            )
        else:
            text = Path(path).read_bytes()
    except OSError as error:
        raise ConfigError(
            f"cannot read the board data {source}: {error.strerror or error}"
        ) from None
    try:
        data = parse_json(text, f"the board data {source}")
    except JSONTextError as error:
        raise ConfigError(str(error)) from None
    if (
        not isinstance(data, dict)
        or data.get("version") != BOARDS_VERSION
        or not isinstance(data.get("boards"), dict)
    ):
        raise ConfigError(
            f"the board data {source} is not a version {BOARDS_VERSION} "
            "boards file (with 'version' and 'boards')"
        )
    boards = {}
    for game, board in data["boards"].items():
        try:
            boards[game] = geometry_from_json(game, board, data.get("dictionary"))
        except ValueError as error:
            raise ConfigError(f"the board data {source}: {game}: {error}") from None
    seen: dict[int, str] = {}
    for game, board in boards.items():
        for marker_id in board.marker_ids:
            if marker_id in seen:
                raise ConfigError(
                    f"the board data {source}: marker id {marker_id} is used by "
                    f"both {seen[marker_id]} and {game}"
                )
            seen[marker_id] = game
    return boards


def board_geometry(game: str, path: str | Path | None = None) -> BoardGeometry:
    """The geometry of ``game``'s board. Raises ``ConfigError`` for an unknown game."""
    boards = load_boards(path)
    if game not in boards:
        raise ConfigError(f"no board data for game {game!r}; known: {', '.join(boards)}")
    return boards[game]


def _village_centres(geometry: BoardGeometry) -> tuple[FloatArray, list[tuple[int, int]]]:
    board = load_board()
    w, h = geometry.size_mm
    centres = np.array([[v.x * w, v.y * h] for v in board.villages])
    return centres, list(board.bridges)


def model_polylines(geometry: BoardGeometry) -> list[FloatArray]:
    """The lines of the board model in mm, for drawing: the outline, then the grid (and
    its gate ring) or the villages and bridges."""
    lines = [np.vstack([geometry.outline_mm(), geometry.outline_mm()[:1]])]
    layout = geometry.layout
    if isinstance(layout, GridLayout):
        (cols, rows), (x0, y0), cell = layout.cells, layout.origin_mm, layout.cell_mm
        x1, y1 = x0 + cols * cell, y0 + rows * cell
        lines += [np.array([[x0 + i * cell, y0], [x0 + i * cell, y1]]) for i in range(cols + 1)]
        lines += [np.array([[x0, y0 + j * cell], [x1, y0 + j * cell]]) for j in range(rows + 1)]
        if layout.gate_border_mm > 0:
            g = layout.gate_border_mm
            ring = np.array(
                [
                    [x0 - g, y0 - g],
                    [x1 + g, y0 - g],
                    [x1 + g, y1 + g],
                    [x0 - g, y1 + g],
                    [x0 - g, y0 - g],
                ]
            )
            lines.append(ring)
    else:
        centres, bridges = _village_centres(geometry)
        radius = layout.village_mm / 2.0
        angles = np.linspace(0.0, 2.0 * np.pi, _CIRCLE_POINTS + 1)
        circle = np.column_stack([np.cos(angles), np.sin(angles)]) * radius
        lines += [centre + circle for centre in centres]
        for a, b in bridges:
            direction = centres[b] - centres[a]
            unit = direction / np.linalg.norm(direction)
            lines.append(np.array([centres[a] + unit * radius, centres[b] - unit * radius]))
    return lines


def model_points(geometry: BoardGeometry) -> FloatArray:
    """Points spread over the board where registration errors are measured: the
    outline's corners and the grid's crossings or the village centres, shape (N, 2)."""
    points = [geometry.outline_mm()]
    layout = geometry.layout
    if isinstance(layout, GridLayout):
        (cols, rows), (x0, y0), cell = layout.cells, layout.origin_mm, layout.cell_mm
        xs, ys = np.meshgrid(x0 + np.arange(cols + 1) * cell, y0 + np.arange(rows + 1) * cell)
        points.append(np.column_stack([xs.ravel(), ys.ravel()]))
    else:
        points.append(_village_centres(geometry)[0])
    return np.vstack(points)


def marker_image(geometry: BoardGeometry, marker_id: int, side_px: int) -> NDArray[np.uint8]:
    """The marker's black square (with its bit pattern), ``side_px`` pixels wide."""
    dictionary = aruco_dictionary(geometry.dictionary)
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side_px))


def draw_board(
    geometry: BoardGeometry,
    px_per_mm: float,
    with_markers: bool = True,
    base_bgr: tuple[int, int, int] = (170, 205, 225),
) -> NDArray[np.uint8]:
    """A plain picture of the board model (BGR, ``px_per_mm``): background, the
    layout's lines, and the markers stuck where ``boards.json`` puts them. It stands in
    for the printed board in rendered tests and figures."""
    w_px = round(geometry.size_mm[0] * px_per_mm)
    h_px = round(geometry.size_mm[1] * px_per_mm)
    image = np.empty((h_px, w_px, 3), dtype=np.uint8)
    image[:] = base_bgr
    ink = (60, 70, 80)
    thickness = max(1, round(1.5 * px_per_mm))
    for line in model_polylines(geometry)[1:]:
        pts = np.rint(line * px_per_mm).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(image, [pts], False, ink, thickness, cv2.LINE_AA)
    if isinstance(geometry.layout, VillageLayout):
        centres, _ = _village_centres(geometry)
        for i, centre in enumerate(centres):
            x, y = (centre * px_per_mm).astype(int)
            r = round(geometry.layout.village_mm * 0.3 * px_per_mm)
            cv2.circle(image, (int(x), int(y)), r, (90 + 10 * i, 140, 200 - 8 * i), -1, cv2.LINE_AA)
    if with_markers:
        stick_markers(image, geometry, px_per_mm)
    return image


def stick_markers(
    image: NDArray[np.uint8],
    geometry: BoardGeometry,
    px_per_mm: float,
    white: int = 255,
    black: int = 0,
) -> None:
    """Stick ``geometry``'s markers on a picture of the board (``px_per_mm``), in place:
    each on its white card, as printed and cut out. ``white`` and ``black`` are the
    paper's and the ink's grey levels (a real print is neither pure white nor black)."""
    for placement in geometry.markers:
        card = geometry.card_mm(placement.id)
        x0 = max(0, round((placement.centre_mm[0] - card / 2) * px_per_mm))
        y0 = max(0, round((placement.centre_mm[1] - card / 2) * px_per_mm))
        q = round(card * px_per_mm)
        image[y0 : y0 + q, x0 : x0 + q] = white
        side = round(geometry.marker_mm * px_per_mm)
        mx = round((placement.centre_mm[0] - geometry.marker_mm / 2) * px_per_mm)
        my = round((placement.centre_mm[1] - geometry.marker_mm / 2) * px_per_mm)
        square = marker_image(geometry, placement.id, side)
        image[my : my + side, mx : mx + side] = np.clip(square, black, white)[:, :, None]


def draw_pieces(
    board_image: NDArray[np.uint8],
    px_per_mm: float,
    pieces: Sequence[tuple[tuple[float, float], tuple[int, int, int]]],
    side_mm: float,
) -> NDArray[np.uint8]:
    """A copy of a :func:`draw_board` picture with flat square pieces (``side_mm``
    wide, sRGB colour given as BGR) centred at board positions in mm, as Shangri-La's
    tiles lie on its board."""
    image = board_image.copy()
    half = side_mm / 2.0
    for (cx, cy), bgr in pieces:
        x0, y0 = round((cx - half) * px_per_mm), round((cy - half) * px_per_mm)
        x1, y1 = round((cx + half) * px_per_mm), round((cy + half) * px_per_mm)
        image[max(0, y0) : y1, max(0, x0) : x1] = bgr
    return image
