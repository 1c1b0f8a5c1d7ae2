"""The player's corrections of a fitted board layout: the outlines the Calibrate screen
draws over the picture, which element a touch picks, and a drag turned into board
millimetres through the board's registration. No Kivy here: the screen's widget only
converts touches into picture pixels (:class:`PictureBox`) and draws :class:`Outline`.

A drag moves one element, or its whole group (a Shangri-La village: its spaces, its
stone spot and the village itself; every square and gate of Shendao's grid; every
tile of ShenShi's), by the distance on the board between where the finger went down
and where it came up. Elements that follow another always move with it (a ShenShi
tile's cushion and monk). The group moves rigidly, in millimetres, so a village seen
at a slant keeps its shape. A moved element counts as placed by the player: clear,
no longer doubtful. Nothing is written until :meth:`LayoutEditor.save`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.layout import ElementFit, LayoutFit, save_layout
from vision.models import BoardModel, Element

FloatArray = NDArray[np.float64]

CLEAR, DOUBTFUL, FOLLOWS, MOVED = "clear", "doubtful", "follows", "moved"
STATES = (CLEAR, DOUBTFUL, FOLLOWS, MOVED)
"""How an outline is drawn: found clearly, doubtful (check it), only following its
group, or moved by the player."""

HIDDEN_KINDS = ("cushion", "monk")
"""Drawn with (and moved with) their ShenShi tile, never on their own."""

_EDGE_POINTS = 5
"""Points per side of an outline: enough for the lens's bend to show."""


@dataclass(frozen=True)
class Outline:
    """One element's outline in picture pixels, closed, (N, 2)."""

    name: str
    points_px: FloatArray
    state: str


@dataclass(frozen=True)
class PictureBox:
    """Where a picture of ``picture_size`` (width, height) is shown in a widget:
    ``left``, ``bottom`` and the shown ``width`` and ``height`` in widget coordinates,
    y up (Kivy's), the picture's first row at the top."""

    picture_size: tuple[int, int]
    left: float
    bottom: float
    width: float
    height: float

    @classmethod
    def contain(
        cls,
        picture_size: tuple[int, int],
        widget_pos: tuple[float, float],
        widget_size: tuple[float, float],
    ) -> PictureBox:
        """The picture scaled to fit the widget, centred (Kivy's ``fit_mode: contain``)."""
        pw, ph = picture_size
        ww, wh = widget_size
        scale = min(ww / pw, wh / ph) if pw and ph else 1.0
        return cls(
            picture_size,
            widget_pos[0] + (ww - pw * scale) / 2.0,
            widget_pos[1] + (wh - ph * scale) / 2.0,
            pw * scale,
            ph * scale,
        )

    def to_picture(self, x: float, y: float) -> tuple[float, float]:
        pw, ph = self.picture_size
        return (
            (x - self.left) * pw / self.width,
            (self.bottom + self.height - y) * ph / self.height,
        )

    def to_widget(self, points_px: FloatArray) -> FloatArray:
        """Widget coordinates of picture pixels, (N, 2)."""
        pw, ph = self.picture_size
        points = np.asarray(points_px, np.float64).reshape(-1, 2)
        return np.column_stack(
            [
                self.left + points[:, 0] * self.width / pw,
                self.bottom + self.height - points[:, 1] * self.height / ph,
            ]
        )

    def picture_px(self, widget_distance: float) -> float:
        """A distance in widget units, in picture pixels."""
        return widget_distance * self.picture_size[0] / self.width if self.width else 0.0


@dataclass(frozen=True)
class Target:
    """What one drag moves: ``names`` (the element touched first) and, for a group,
    the ``villages`` whose centre moves with it."""

    names: tuple[str, ...]
    villages: tuple[int, ...] = ()
    label: str = ""


class LayoutEditor:
    """A fitted layout being corrected on the picture (see the module).

    ``view`` maps board millimetres to the picture and back (``to_image`` and
    ``to_board``, as :class:`vision.view.BoardView`); ``nominal`` is the board model
    the layout was fitted from (how far an element moved is measured from it)."""

    def __init__(self, fit: LayoutFit, view: Any, nominal: BoardModel) -> None:
        if fit.model.game != nominal.game:
            raise ValueError(f"the layout is of {fit.model.game}, the model of {nominal.game}")
        self.fit = fit
        self.view = view
        self.nominal = nominal
        self.moved: set[str] = set()
        self._undo: list[tuple[LayoutFit, frozenset[str]]] = []
        self.saved = True

    @property
    def game(self) -> str:
        return self.fit.model.game

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    # ------------------------------------------------------------------ drawing

    def outlines(
        self, fit: LayoutFit | None = None, moved: frozenset[str] | set[str] | None = None
    ) -> list[Outline]:
        """The outline of every shown element wholly inside the picture (one partly
        out of it cannot be checked there); ``fit``: another state of the layout, such
        as a drag in progress."""
        fit = fit or self.fit
        moved = self.moved if moved is None else moved
        doubtful = set(fit.doubtful())
        width, height = self.view.image_size
        out = []
        for name, element in fit.model.elements.items():
            if element.kind in HIDDEN_KINDS:
                continue
            points = self.view.to_image(_outline_mm(element))
            if not (
                np.all(points >= 0.0)
                and np.all(points[:, 0] <= width)
                and np.all(points[:, 1] <= height)
            ):
                continue
            state = (
                MOVED
                if name in moved
                else DOUBTFUL
                if name in doubtful
                else CLEAR
                if fit.has_evidence(name)
                else FOLLOWS
            )
            out.append(Outline(name, points, state))
        return out

    # ------------------------------------------------------------------ picking

    def pick(
        self, point_px: tuple[float, float], group: bool = False, reach_px: float = 0.0
    ) -> Target | None:
        """What a touch at ``point_px`` moves: the smallest outline holding the point,
        else the nearest within ``reach_px`` of it; with ``group``, that element's whole
        group. None when the touch is on no element."""
        point = np.asarray(point_px, np.float64)
        best: tuple[float, str] | None = None
        for outline in self.outlines():
            polygon = outline.points_px
            if _inside(polygon, point):
                key = (-1e12 + _area(polygon), outline.name)
            else:
                distance = _distance_to_polygon(polygon, point)
                if distance > reach_px:
                    continue
                key = (distance, outline.name)
            if best is None or key < best:
                best = key
        if best is None:
            return None
        return self.target(best[1], group)

    def target(self, name: str, group: bool = False) -> Target:
        """``name`` with what moves with it; with ``group``, its whole group."""
        model = self.fit.model
        if name not in model.elements:
            raise KeyError(f"the {self.game} board has no element {name!r}")
        element = model.elements[name]
        if group:
            village = _village(element)
            if self.game == "shangrila" and village is not None:
                names = [e.name for e in model.elements.values() if _village(e) == village]
                return Target(_first(name, names), (village,), f"village {village}")
            if self.game in ("shendao", "shenshi"):
                return Target(_first(name, list(model.elements)), (), "the grid")
        if self.game == "shenshi":
            square = name.split(" ")[0]
            names = [n for n in model.elements if n.split(" ")[0] == square]
            return Target(_first(name, names), (), square)
        return Target((name,), (), name)

    # ------------------------------------------------------------------ moving

    def shift_mm(
        self, start_px: tuple[float, float], end_px: tuple[float, float]
    ) -> tuple[float, float]:
        """The board distance between two picture points, (dx, dy) mm."""
        start, end = self.view.to_board(np.array([start_px, end_px], np.float64))
        return float(end[0] - start[0]), float(end[1] - start[1])

    def moved_fit(self, target: Target, shift_mm: tuple[float, float]) -> LayoutFit:
        """The layout with ``target`` moved by ``shift_mm`` (kept on the board), without
        keeping it: what a drag in progress shows."""
        model = self.fit.model
        shift = _on_board(model, target.names, np.asarray(shift_mm, np.float64))
        elements = dict(model.elements)
        fits = dict(self.fit.elements)
        for name in target.names:
            element = elements[name]
            centre = np.asarray(element.centre_mm) + shift
            at = (float(centre[0]), float(centre[1]))
            elements[name] = replace(element, centre_mm=at)
            nominal = np.asarray(self.nominal.elements[name].centre_mm)
            fits[name] = replace(
                fits[name],
                centre_mm=at,
                moved_mm=float(np.linalg.norm(centre - nominal)),
                confidence=1.0,
                residual_mm=0.0,
            )
        villages = list(model.villages)
        for vid in target.villages:
            village = villages[vid]
            centre = np.asarray(village.centre_mm) + shift
            villages[vid] = replace(village, centre_mm=(float(centre[0]), float(centre[1])))
        return LayoutFit(
            replace(model, elements=elements, villages=tuple(villages)), fits, self.fit.created
        )

    def drag(
        self, target: Target, start_px: tuple[float, float], end_px: tuple[float, float]
    ) -> tuple[float, float]:
        """Move ``target`` by the drag from ``start_px`` to ``end_px`` (picture pixels)
        and keep it (one step of undo); the shift in mm, shortened where it would take
        an element off the board. A drag of no length changes nothing and adds no undo
        step."""
        wanted = np.asarray(self.shift_mm(start_px, end_px))
        clamped = _on_board(self.fit.model, target.names, wanted)
        shift = (float(clamped[0]), float(clamped[1]))
        if shift == (0.0, 0.0):
            return shift
        self._undo.append((self.fit, frozenset(self.moved)))
        self.fit = self.moved_fit(target, shift)
        self.moved |= set(target.names)
        self.saved = False
        return shift

    def undo(self) -> bool:
        """Take back the last drag; False when there is none."""
        if not self._undo:
            return False
        self.fit, moved = self._undo.pop()
        self.moved = set(moved)
        self.saved = False
        return True

    def save(self, path: Path) -> None:
        """Write the corrected layout to the profile file ``path`` (the file
        ``companion calibrate layout`` writes). Raises ``ProfileError``."""
        save_layout(self.fit, path)
        self.saved = True

    def element(self, name: str) -> ElementFit:
        return self.fit.elements[name]


# --- geometry --------------------------------------------------------------------------------


def _outline_mm(element: Element) -> FloatArray:
    """An element's outline on the board, closed, with points along each side (a
    stone spot is round)."""
    if element.kind == "stone":
        angles = np.linspace(0.0, 2.0 * np.pi, 24, endpoint=False)
        return np.asarray(
            np.column_stack([np.cos(angles), np.sin(angles)]) * element.size_mm[0] / 2.0
            + np.asarray(element.centre_mm)
        )
    corners = element.corners_mm()
    steps = np.linspace(0.0, 1.0, _EDGE_POINTS, endpoint=False)
    return np.asarray(
        np.vstack(
            [corners[i] + (corners[(i + 1) % 4] - corners[i]) * t for i in range(4) for t in steps]
        )
    )


def _village(element: Element) -> int | None:
    """The Shangri-La village an element belongs to (a space, its stone spot)."""
    if element.kind == "space":
        return int("".join(ch for ch in element.name if ch.isdigit()))
    if element.kind == "stone":
        return int(element.name.split()[1])
    return None


def _first(name: str, names: Sequence[str]) -> tuple[str, ...]:
    return (name, *(n for n in names if n != name))


def _on_board(model: BoardModel, names: Sequence[str], shift: FloatArray) -> FloatArray:
    """``shift`` shortened so that every moved centre stays on the board."""
    centres = np.array([model.elements[n].centre_mm for n in names], np.float64)
    low = -centres.min(axis=0)
    high = np.asarray(model.size_mm, np.float64) - centres.max(axis=0)
    return np.asarray(np.clip(shift, np.minimum(low, 0.0), np.maximum(high, 0.0)))


def _inside(polygon: FloatArray, point: FloatArray) -> bool:
    """Even-odd test of ``point`` against a closed polygon."""
    x, y = point
    xs, ys = polygon[:, 0], polygon[:, 1]
    nx, ny = np.roll(xs, -1), np.roll(ys, -1)
    crosses = (ys > y) != (ny > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = xs + (y - ys) * (nx - xs) / (ny - ys)
    return bool(np.count_nonzero(crosses & (x < at)) % 2)


def _area(polygon: FloatArray) -> float:
    xs, ys = polygon[:, 0], polygon[:, 1]
    return float(abs(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))) / 2.0)


def _distance_to_polygon(polygon: FloatArray, point: FloatArray) -> float:
    a = polygon
    b = np.roll(polygon, -1, axis=0)
    ab = b - a
    length2 = np.maximum(np.sum(ab * ab, axis=1), 1e-12)
    t = np.clip(np.sum((point - a) * ab, axis=1) / length2, 0.0, 1.0)
    nearest = a + ab * t[:, None]
    return float(np.min(np.linalg.norm(nearest - point, axis=1)))
