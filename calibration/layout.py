"""Where each element lies on the player's own board, found from calibration pictures.

Every edition of a board prints its spaces, squares, bridge and stone spots a little
elsewhere. :func:`fit_layout` starts from the board model (``vision.models``) and finds
where each element really is, in board millimetres, from

- **the empty board** (seen from above with :meth:`vision.view.BoardView.rectify`):
  each printed space or square is an outline of known size; a square-outline template
  is matched against the board's oriented edges. Spaces move as a group: a village's
  spaces (or a whole grid of squares) are searched together for a shift and a scale,
  then each space's own best match is found near the group's guess and the group is
  fitted again (shift, scale, turn) to the spaces that agree with it. The group's fit
  places every space, so one smudged space cannot wander off.
- **calibration pictures with their observations** (every bridge and stone in place,
  a few tiles; for Shendao closed gates): where such a picture differs from the empty
  board, a piece stands. Each piece's silhouette, its top lifted by its height and
  seen from the camera's place, is matched against that difference in a window around
  where the model and the fitted villages put it: centre and axis. The colour of the
  set's pieces of each kind is then learnt from what was found, and each piece is
  matched again on a map of that colour (a shadow changes the board, but is not the
  pieces' colour). Last, each bridge is placed to a fraction of a millimetre where the
  picture is best explained as the empty board with the piece on it (one colour on
  its top, one on the sides the camera sees, the empty board around it).

Elements without evidence of their own follow their group (ShenShi's cushions and
monks their square). A stone spot follows its village and a Shendao gate's slot the
grid even when a picture shows the piece: they are printed with their group, which is
found more finely than a hand puts a piece down; the piece only vouches for its spot.

The result is a :class:`LayoutFit`: the fitted :class:`~vision.models.BoardModel` and,
per element, how far it moved, how sure the fit is and how far its own evidence lies
from the group's. :func:`save_layout` / :func:`load_layout` keep it in the calibration
profile (``layout-<game>.json``); :func:`draw_layout` draws it over a picture for the
player to check. A picture that is not of this board raises :class:`LayoutError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.arrays import array_of
from calibration.errors import NotFoundError, ProfileError
from calibration.profiles import KIND_LAYOUT, Fields, now_iso, read_document, save_document
from engines.observation import Observation
from vision.models import BoardModel, Element, ModelError, Village, load_model
from vision.view import BoardView, Lens, pose_from_homography

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]
Frame = tuple[Image, BoardView, Observation]


class LayoutError(NotFoundError):
    """The pictures do not show the board the model describes (another board, the board
    not in view, pieces missing from the calibration position)."""


@dataclass(frozen=True)
class LayoutSettings:
    """How far and how finely the fit searches, and when it gives up.

    ``px_per_mm``: resolution of the board seen from above. ``shift_mm``: how far a
    village or grid may lie from the model; ``scales``: the range of its scale.
    ``piece_shift_mm``: how far a bridge, stone or gate may lie from where its group
    puts it; ``turn_deg``: how far a piece's axis may turn. ``agree_mm``: a space's own
    match agrees with its group within this. ``min_agreement``: below this share of
    elements agreeing with their group, the picture is not of this board.
    ``min_likeness``: a space counts as found where it correlates with its kind's look
    on this board (see :func:`_refine_by_likeness`) at least this well.
    ``min_contrast``: a piece is found where its silhouette differs from its
    surroundings by at least this share of its own difference."""

    px_per_mm: float = 3.0
    shift_mm: float = 10.0
    scales: tuple[float, float] = (0.92, 1.16)
    piece_shift_mm: float = 18.0
    turn_deg: float = 14.0
    agree_mm: float = 2.0
    min_agreement: float = 0.5
    min_likeness: float = 0.5
    min_contrast: float = 0.3


@dataclass(frozen=True)
class ElementFit:
    """One element's fitted place: ``moved_mm`` from the model's place; ``confidence``
    in [0, 1] (how clearly its own evidence stands out; 0 when it has none and follows
    its group); ``residual_mm`` between its own evidence and its group's fit (0 without
    evidence of its own); ``source``: ``outline`` (found by its printed outline),
    ``piece`` (by its piece in a calibration picture) or ``group`` (it follows its
    group; a stone spot's or a gate's confidence and residual then come from its
    piece)."""

    name: str
    centre_mm: tuple[float, float]
    angle_deg: float
    moved_mm: float
    confidence: float
    residual_mm: float
    source: str


@dataclass(frozen=True)
class LayoutFit:
    """The fitted board model and each element's fit."""

    model: BoardModel
    elements: dict[str, ElementFit]
    created: str = field(default_factory=now_iso)

    def doubtful(self, below: float = 0.5) -> list[str]:
        """Elements whose own evidence is weak or disagrees with their group."""
        return [
            f.name
            for f in self.elements.values()
            if self.has_evidence(f.name) and f.confidence < below
        ]

    def has_evidence(self, name: str) -> bool:
        """Whether ``name`` was seen itself (its outline, or a piece on it), rather than
        only following its group."""
        fit = self.elements[name]
        return fit.source != "group" or fit.confidence > 0.0


# --- groups --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Group:
    """Elements that move together: their names, nominal centres and pivot."""

    name: str
    members: tuple[str, ...]
    pivot: tuple[float, float]
    village: Village | None = None


def _outline_kind(game: str) -> str:
    return {"shangrila": "space", "shendao": "square", "shenshi": "tile"}[game]


def _groups(model: BoardModel) -> list[_Group]:
    kind = _outline_kind(model.game)
    outlined = model.of_kind(kind)
    if model.game == "shangrila" and model.villages:
        groups = []
        for village in model.villages:
            members = tuple(e.name for e in outlined if _village_of(e.name) == village.id)
            groups.append(_Group(f"village {village.id}", members, village.centre_mm, village))
        return groups
    centre = np.mean([e.centre_mm for e in outlined], axis=0)
    return [
        _Group("the grid", tuple(e.name for e in outlined), (float(centre[0]), float(centre[1])))
    ]


def _village_of(name: str) -> int:
    return int("".join(ch for ch in name if ch.isdigit()))


# --- similarity transforms -------------------------------------------------------------------


@dataclass(frozen=True)
class _Similarity:
    """``p -> pivot + shift + scale * R(turn) (p - pivot)``."""

    pivot: FloatArray
    shift: FloatArray
    scale: float = 1.0
    turn_deg: float = 0.0

    def apply(self, points: FloatArray) -> FloatArray:
        a = math.radians(self.turn_deg)
        rot = self.scale * np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(
            (np.asarray(points, np.float64).reshape(-1, 2) - self.pivot) @ rot.T
            + self.pivot
            + self.shift
        )


def _fit_shift_scale(pivot: FloatArray, source: FloatArray, target: FloatArray) -> _Similarity:
    """Least-squares shift and scale taking ``source`` to ``target`` (both (N, 2),
    N >= 2). No turn: a board is printed in one piece, so its squares keep their
    direction, and the outline template is matched at the model's direction."""
    p = (source - pivot).reshape(-1)
    q = (target - pivot).reshape(-1)
    rows = np.zeros((len(p), 3))
    rows[:, 0] = p
    rows[0::2, 1] = 1.0
    rows[1::2, 2] = 1.0
    scale, tx, ty = np.linalg.lstsq(rows, q, rcond=None)[0]
    return _Similarity(pivot, np.array([tx, ty]), float(scale))


# --- the empty board: outlines ---------------------------------------------------------------


def _float_image(image: Image) -> NDArray[np.float32]:
    out = image.astype(np.float32) / 255.0
    return out if out.ndim == 3 else out[:, :, None]


def _bar_kernel(
    side_px: float, angle_deg: float, band_px: float
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Kernels picking a square outline's two edges across its ``u`` axis and its two
    edges across its ``v`` axis (each summing to 1), for a square of ``side_px`` turned
    by ``angle_deg``."""
    size = math.ceil(side_px * 1.5) | 1
    c = (size - 1) / 2.0  # the kernel's anchor
    a = math.radians(angle_deg)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    kernels = []
    for normal, along in ((u, v), (v, u)):
        kernel = np.zeros((size * 8, size * 8), np.uint8)
        for sign in (-1.0, 1.0):
            mid = np.array([c, c]) + sign * normal * side_px / 2.0
            half_n, half_a = band_px / 2.0, side_px * 0.4
            corners = np.array(
                [
                    mid - normal * half_n - along * half_a,
                    mid + normal * half_n - along * half_a,
                    mid + normal * half_n + along * half_a,
                    mid - normal * half_n + along * half_a,
                ]
            )
            # a pixel's centre x of the kernel is 8 x + 3.5 at eight times its size
            cv2.fillConvexPoly(
                kernel, np.rint((corners * 8 + 3.5) * 16).astype(np.int32), 1, cv2.LINE_AA, 4
            )
        small = cv2.resize(kernel.astype(np.float32), (size, size), interpolation=cv2.INTER_AREA)
        kernels.append((small / max(small.sum(), 1e-9)).astype(np.float32))
    return kernels[0], kernels[1]


def outline_response(
    board: Image, side_mm: float, angle_deg: float, px_per_mm: float
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """How strongly a printed square outline of ``side_mm`` turned by ``angle_deg`` is
    centred at each pixel of ``board`` (the board seen from above at ``px_per_mm``):
    the mean edge strength across the outline's four sides; and the mean edge strength
    around each pixel, for scale (their ratio is about 1 on a texture, several times
    that on a printed square). Edges are taken on every colour channel, so a square
    printed in another hue at the same lightness still shows. The response itself is
    not divided by its surroundings: where edges thin out (a village's rim) that would
    pull every outline outwards."""
    image = array_of(np.float32, cv2.GaussianBlur(_float_image(board), (0, 0), 0.6))
    if image.ndim == 2:
        image = image[:, :, None]
    a = math.radians(angle_deg)
    gu = np.zeros(image.shape[:2], np.float32)
    gv = np.zeros(image.shape[:2], np.float32)
    for channel in range(image.shape[2]):
        gx = cv2.Sobel(image[:, :, channel], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(image[:, :, channel], cv2.CV_32F, 0, 1, ksize=3)
        np.maximum(gu, np.abs(gx * math.cos(a) + gy * math.sin(a)), out=gu)
        np.maximum(gv, np.abs(-gx * math.sin(a) + gy * math.cos(a)), out=gv)
    side_px = side_mm * px_per_mm
    ku, kv = _bar_kernel(side_px, angle_deg, max(2.0, 1.8 * px_per_mm))
    along = cv2.filter2D(gu, -1, ku, borderType=cv2.BORDER_REFLECT) + cv2.filter2D(
        gv, -1, kv, borderType=cv2.BORDER_REFLECT
    )
    # the edges, and the change of colour across the outline, each on its own scale
    ring = _ring_contrast(image, side_px, angle_deg)
    along = along / max(float(np.median(along)), 1e-6) + ring / max(float(np.median(ring)), 1e-6)
    window = round(side_px * 2.0) | 1
    around = cv2.boxFilter(gu + gv, -1, (window, window), borderType=cv2.BORDER_REFLECT)
    return np.asarray(along, np.float32), np.asarray(around + 1e-3, np.float32)


def _ring_contrast(
    image: NDArray[np.float32], side_px: float, angle_deg: float
) -> NDArray[np.float32]:
    """How far the colour just inside a square's edge differs from just outside it."""

    def box_sum(half: float) -> NDArray[np.float32]:
        k = np.zeros((int(2 * half * 1.5) | 1,) * 2, np.float32)
        c = (k.shape[0] - 1) / 2.0
        corners = (
            replace(
                Element("k", "k", (0.0, 0.0), (2 * half, 2 * half), angle_deg),
            ).corners_mm()
            + c
        )
        big = np.zeros((k.shape[0] * 8, k.shape[1] * 8), np.uint8)
        cv2.fillConvexPoly(
            big, np.rint((corners * 8 + 3.5) * 16).astype(np.int32), 1, cv2.LINE_AA, 4
        )
        return array_of(
            np.float32,
            cv2.resize(big.astype(np.float32), k.shape[::-1], interpolation=cv2.INTER_AREA),
        )

    half = side_px / 2.0
    kernels = [box_sum(half * f) for f in (0.6, 0.92, 1.04, 1.16)]
    size = kernels[-1].shape[0]
    padded = []
    for k in kernels:
        pad = (size - k.shape[0]) // 2
        padded.append(np.pad(k, pad) if pad > 0 else k[:size, :size])
    inner = padded[1] - padded[0]
    outer = padded[3] - padded[2]
    kernel = inner / inner.sum(), outer / outer.sum()
    diff = np.zeros(image.shape[:2], np.float32)
    for channel in range(image.shape[2]):
        a = cv2.filter2D(image[:, :, channel], -1, kernel[0], borderType=cv2.BORDER_REFLECT)
        b = cv2.filter2D(image[:, :, channel], -1, kernel[1], borderType=cv2.BORDER_REFLECT)
        diff += (a - b) ** 2
    return np.sqrt(diff)


def _sample(response: NDArray[np.float32], points_mm: FloatArray, px_per_mm: float) -> FloatArray:
    """``response`` at board points (bilinear; 0 outside)."""
    px = np.asarray(points_mm, np.float64).reshape(-1, 2) * px_per_mm - 0.5
    h, w = response.shape
    x0 = np.floor(px[:, 0]).astype(np.int64)
    y0 = np.floor(px[:, 1]).astype(np.int64)
    fx, fy = px[:, 0] - x0, px[:, 1] - y0
    inside = (x0 >= 0) & (y0 >= 0) & (x0 < w - 1) & (y0 < h - 1)
    x0, y0 = np.where(inside, x0, 0), np.where(inside, y0, 0)
    value = (
        response[y0, x0] * (1 - fx) * (1 - fy)
        + response[y0, x0 + 1] * fx * (1 - fy)
        + response[y0 + 1, x0] * (1 - fx) * fy
        + response[y0 + 1, x0 + 1] * fx * fy
    )
    return np.asarray(np.where(inside, value, 0.0), np.float64)


def _peak(
    response: NDArray[np.float32], near_mm: FloatArray, radius_mm: float, px_per_mm: float
) -> tuple[FloatArray, float]:
    """The strongest point of ``response`` within ``radius_mm`` of ``near_mm``, to a
    fraction of a pixel (a parabola through the peak and its neighbours), and its
    value."""
    h, w = response.shape
    cx, cy = np.asarray(near_mm) * px_per_mm - 0.5
    r = max(1, math.ceil(radius_mm * px_per_mm))
    x0, x1 = max(1, int(cx) - r), min(w - 2, int(cx) + r + 1)
    y0, y1 = max(1, int(cy) - r), min(h - 2, int(cy) + r + 1)
    if x1 <= x0 or y1 <= y0:
        return np.asarray(near_mm, np.float64), 0.0
    window = response[y0:y1, x0:x1]
    iy, ix = np.unravel_index(int(np.argmax(window)), window.shape)
    x, y = x0 + int(ix), y0 + int(iy)
    dx = _parabola(response[y, x - 1], response[y, x], response[y, x + 1])
    dy = _parabola(response[y - 1, x], response[y, x], response[y + 1, x])
    point = (np.array([x + dx, y + dy]) + 0.5) / px_per_mm
    return point, float(response[y, x])


def _parabola(left: float, mid: float, right: float) -> float:
    denominator = left - 2.0 * mid + right
    if denominator >= 0.0:
        return 0.0
    return float(np.clip(0.5 * (left - right) / denominator, -0.5, 0.5))


@dataclass(frozen=True)
class _GroupFit:
    similarity: _Similarity
    own: dict[str, FloatArray]
    strength: dict[str, float]
    agreeing: int


def _fit_group(
    group: _Group,
    model: BoardModel,
    response: NDArray[np.float32],
    around: NDArray[np.float32],
    settings: LayoutSettings,
) -> _GroupFit:
    """A group's shift and scale by a search over the summed outline response, then
    each member's own peak near the group's guess, then the similarity fitted to the
    members that agree with it."""
    s = settings.px_per_mm
    pivot = np.array(group.pivot)
    nominal = np.array([model.elements[m].centre_mm for m in group.members])
    offsets = nominal - pivot
    best, best_score = (np.zeros(2), 1.0), -np.inf
    # coarse (1 mm, 2% steps), then fine (0.25 mm, 0.5%) around the coarse best
    coarse = np.arange(-settings.shift_mm, settings.shift_mm + 1e-9, 1.0)
    searches = [
        (np.zeros(2), coarse, np.arange(settings.scales[0], settings.scales[1] + 1e-9, 0.02))
    ]
    for stage in range(2):
        centre, steps, scales = searches[stage]
        grid_x, grid_y = np.meshgrid(steps, steps)
        shift_grid = centre + np.column_stack([grid_x.ravel(), grid_y.ravel()])
        for scale in scales:
            points = pivot + shift_grid[:, None, :] + offsets[None, :, :] * scale
            values = _sample(response, points.reshape(-1, 2), s).reshape(len(shift_grid), -1)
            # the median member counts, so one strong stray edge cannot pull the group
            score = values.mean(axis=1) + np.median(values, axis=1)
            index = int(np.argmax(score))
            if score[index] > best_score:
                best_score = float(score[index])
                best = (shift_grid[index], float(scale))
        searches.append(
            (
                best[0],
                np.arange(-1.0, 1.0 + 1e-9, 0.25),
                best[1] + np.arange(-0.02, 0.02 + 1e-9, 0.005),
            )
        )
    similarity = _Similarity(pivot, best[0], best[1])
    guess = similarity.apply(nominal)
    own: dict[str, FloatArray] = {}
    strength: dict[str, float] = {}
    for name, point in zip(group.members, guess, strict=True):
        own[name], value = _peak(response, point, settings.agree_mm * 1.5, s)
        strength[name] = value / float(_sample(around, own[name], s)[0] + 1e-6)
    keep = np.ones(len(nominal), bool)
    for _ in range(3):
        if keep.sum() < 3:
            break
        target = np.array([own[m] for m in group.members])
        fitted = _fit_shift_scale(pivot, nominal[keep], target[keep])
        residual = np.linalg.norm(fitted.apply(nominal) - target, axis=1)
        new_keep = residual <= settings.agree_mm
        if keep.sum() >= 3:
            similarity = fitted
        if np.array_equal(new_keep, keep):
            break
        keep = new_keep
    target = np.array([own[m] for m in group.members])
    residual = np.linalg.norm(similarity.apply(nominal) - target, axis=1)
    return _GroupFit(similarity, own, strength, int((residual <= settings.agree_mm).sum()))


# --- the empty board: each space against its kind's own look ------------------------------


def _patch(
    board: NDArray[np.float32], centre_mm: FloatArray, size_px: int, px_per_mm: float
) -> NDArray[np.float32]:
    at = (float(centre_mm[0] * px_per_mm - 0.5), float(centre_mm[1] * px_per_mm - 0.5))
    return np.asarray(cv2.getRectSubPix(board, (size_px, size_px), at), np.float32)


def _print_kinds(elements: Mapping[str, Element]) -> dict[str, tuple[str | None, int]]:
    """The elements printed alike: a discipline's spaces; a grid's squares of one
    parity (a grid may be printed as a chequerboard, whose squares of the two parities
    differ, and whose patches round a square, its neighbours in them, are each other's
    negatives)."""
    grid = [e for e in elements.values() if e.discipline is None]
    starts, steps = [], []
    for axis in (0, 1):
        places = np.unique(np.round([e.centre_mm[axis] for e in grid], 3))
        gaps = np.diff(places)
        starts.append(float(places[0]) if len(places) else 0.0)
        steps.append(float(gaps.min()) if len(gaps) else 1.0)
    out: dict[str, tuple[str | None, int]] = {}
    for name, element in elements.items():
        if element.discipline is not None:
            out[name] = (element.discipline, 0)
        else:
            column, row = (
                math.floor((element.centre_mm[k] - starts[k]) / steps[k] + 0.5) for k in (0, 1)
            )
            out[name] = (None, (column + row) % 2)
    return out


def _refine_by_likeness(
    board: NDArray[np.float32],
    model: BoardModel,
    groups: Sequence[_Group],
    fits: dict[str, _GroupFit],
    settings: LayoutSettings,
) -> dict[str, _GroupFit]:
    """Each group fitted again, each member now found by its likeness to the board's
    own look of its kind: the spaces of one discipline (or all the squares of a grid)
    are printed alike, so their patches at the current fit, taken together (median),
    are a template of that kind as this board prints it, symbol and all. Each member
    is found where it is most like its template (normalised correlation), and its
    group's shift and scale are fitted to the members that agree."""
    s = settings.px_per_mm
    outlined = {name: model.elements[name] for g in groups for name in g.members}
    printed = _print_kinds(outlined)
    side = max(e.size_mm[0] for e in outlined.values())
    size = round(side * 1.3 * s) | 1
    reach = math.ceil(settings.agree_mm * 1.5 * s)
    for _ in range(2):
        where = {
            name: fits[g.name].similarity.apply(np.array(outlined[name].centre_mm))[0]
            for g in groups
            for name in g.members
        }
        kinds: dict[tuple[str | None, int], list[str]] = {}
        for name in outlined:
            kinds.setdefault(printed[name], []).append(name)
        templates = {
            kind: np.median([_patch(board, where[n], size, s) for n in names], axis=0).astype(
                np.float32
            )
            for kind, names in kinds.items()
        }
        own: dict[str, FloatArray] = {}
        likeness: dict[str, float] = {}
        for name in outlined:
            window = _patch(board, where[name], size + 2 * reach, s)
            scores = cv2.matchTemplate(window, templates[printed[name]], cv2.TM_CCOEFF_NORMED)
            iy, ix = np.unravel_index(int(np.argmax(scores)), scores.shape)
            best = float(scores[iy, ix])
            dx = (
                _parabola(scores[iy, ix - 1], best, scores[iy, ix + 1])
                if 0 < ix < scores.shape[1] - 1
                else 0.0
            )
            dy = (
                _parabola(scores[iy - 1, ix], best, scores[iy + 1, ix])
                if 0 < iy < scores.shape[0] - 1
                else 0.0
            )
            own[name] = where[name] + (np.array([ix + dx, iy + dy]) - reach) / s
            likeness[name] = best
        refitted = {}
        for group in groups:
            pivot = np.array(group.pivot)
            nominal = np.array([model.elements[m].centre_mm for m in group.members])
            target = np.array([own[m] for m in group.members])
            similarity = fits[group.name].similarity
            keep = np.array([likeness[m] >= settings.min_likeness for m in group.members])
            for _ in range(3):
                if keep.sum() < 2:
                    break
                similarity = _fit_shift_scale(pivot, nominal[keep], target[keep])
                residual = np.linalg.norm(similarity.apply(nominal) - target, axis=1)
                new_keep = keep & (residual <= settings.agree_mm)
                if np.array_equal(new_keep, keep):
                    break
                keep = new_keep
            residual = np.linalg.norm(similarity.apply(nominal) - target, axis=1)
            agreeing = int(
                (
                    (residual <= settings.agree_mm)
                    & np.array([likeness[m] >= settings.min_likeness for m in group.members])
                ).sum()
            )
            refitted[group.name] = _GroupFit(
                similarity,
                {m: own[m] for m in group.members},
                {m: likeness[m] for m in group.members},
                agreeing,
            )
        fits = refitted
    return fits


# --- the calibration pictures: pieces ------------------------------------------------------

SHADE_WEIGHT = 0.3
"""How much a brightening alone counts against a change of colour."""
SHADOW_WEIGHT = 0.1
"""How much a darkening alone counts: a piece's shadow darkens the board around it."""
_LOG_FLOOR = 0.02
_PIECES = {"bridge": "bridge_height_mm", "stone": "stone_height_mm", "gate": "stick_height_mm"}
_IN_PLACE = (True, "closed")
_TILE_VALUES_EMPTY = (None, "empty", False)


def _footprint(element: Element, angle_deg: float) -> FloatArray:
    """The piece's outline on the board, relative to its centre, (N, 2)."""
    if element.kind == "stone":
        angles = np.linspace(0.0, 2.0 * np.pi, 24, endpoint=False)
        return np.column_stack([np.cos(angles), np.sin(angles)]) * element.size_mm[0] / 2.0
    return replace(element, centre_mm=(0.0, 0.0), angle_deg=angle_deg).corners_mm()


def _silhouette(
    footprint: FloatArray, height_mm: float, at_mm: FloatArray, camera_mm: FloatArray | None
) -> FloatArray:
    """Where a solid of ``footprint`` (relative to its centre ``at_mm``) and
    ``height_mm`` covers the board as seen from ``camera_mm`` (its top pushed away from
    the camera), relative to ``at_mm``: the convex hull of base and top."""
    if camera_mm is None or camera_mm[2] <= height_mm:
        return footprint
    ground = footprint + at_mm
    top = camera_mm[:2] + (ground - camera_mm[:2]) * camera_mm[2] / (camera_mm[2] - height_mm)
    hull = cv2.convexHull(np.vstack([ground, top]).astype(np.float32))
    return np.asarray(hull.reshape(-1, 2), np.float64) - at_mm


def _template(
    outline_mm: FloatArray,
    ring_mm: float,
    px_per_mm: float,
    core_mm: FloatArray | None = None,
    rim_weight: float = 1.0,
) -> tuple[NDArray[np.float32], FloatArray]:
    """A zero-sum template: positive inside ``outline_mm`` (summing to 1), -1/area on a
    ring ``ring_mm`` wide around it; and the template pixel of the outline's origin.
    With ``core_mm`` (a polygon inside the outline), the outline's points outside the
    core weigh ``rim_weight`` against the core's 1."""
    lo = outline_mm.min(axis=0) - ring_mm
    hi = outline_mm.max(axis=0) + ring_mm
    size = np.ceil((hi - lo) * px_per_mm).astype(int) + 1
    scale = 8
    inside = np.zeros((size[1] * scale, size[0] * scale), np.uint8)
    points = np.rint((outline_mm - lo) * px_per_mm * scale - 0.5).astype(np.int32)
    cv2.fillConvexPoly(inside, points, 255)
    grown = inside.copy()
    cv2.polylines(
        grown,
        [points.reshape(-1, 1, 2)],
        True,
        255,
        max(1, int(2 * ring_mm * px_per_mm * scale)),
        cv2.LINE_8,
    )
    weights = inside.astype(np.float32) / 255.0
    if core_mm is not None:
        core = np.zeros_like(inside)
        cv2.fillConvexPoly(
            core, np.rint((core_mm - lo) * px_per_mm * scale - 0.5).astype(np.int32), 255
        )
        weights = weights * rim_weight + core.astype(np.float32) / 255.0 * (1.0 - rim_weight)
    inside_f = cv2.resize(weights, (int(size[0]), int(size[1])), interpolation=cv2.INTER_AREA)
    ring_f = cv2.resize(
        (grown.astype(np.float32) - inside.astype(np.float32)) / 255.0,
        (int(size[0]), int(size[1])),
        interpolation=cv2.INTER_AREA,
    )
    template = inside_f / max(inside_f.sum(), 1e-9) - ring_f / max(ring_f.sum(), 1e-9)
    return template.astype(np.float32), -lo * px_per_mm - 0.5


def _difference(empty: Image, frame: Image) -> NDArray[np.float32]:
    """How much ``frame`` differs from the empty board, both seen from above: the change
    of colour (log ratio across channels) counts fully, the change of brightness
    ``SHADE_WEIGHT`` only, so a piece's shadow on the board counts little against the
    piece. A difference of exposure is evened out first (channel gains from the
    medians)."""
    a = np.log(cv2.GaussianBlur(_float_image(empty), (0, 0), 1.0) + _LOG_FLOOR)
    b = np.log(cv2.GaussianBlur(_float_image(frame), (0, 0), 1.0) + _LOG_FLOOR)
    if a.ndim == 2:
        a, b = a[:, :, None], b[:, :, None]
    valid = (empty.reshape(a.shape).sum(axis=2) > 0) & (frame.reshape(b.shape).sum(axis=2) > 0)
    change = b - a
    if valid.any():
        change -= np.median(change[::4, ::4][valid[::4, ::4]], axis=0).reshape(1, 1, -1)
    shade = change.mean(axis=2, keepdims=True)
    colour = np.sqrt(((change - shade) ** 2).sum(axis=2))
    brighter = np.maximum(shade[:, :, 0], 0.0)
    darker = np.maximum(-shade[:, :, 0], 0.0)
    out = colour + (SHADE_WEIGHT * brighter + SHADOW_WEIGHT * darker) * math.sqrt(change.shape[2])
    out[~valid] = 0.0
    return np.asarray(out, np.float32)


def _top(
    footprint: FloatArray, height_mm: float, at_mm: FloatArray, camera_mm: FloatArray | None
) -> FloatArray:
    """Where the top face of a solid of ``footprint`` (relative to its centre
    ``at_mm``) and ``height_mm`` shows on the board plane, relative to ``at_mm``."""
    if camera_mm is None or camera_mm[2] <= height_mm:
        return footprint
    ground = footprint + at_mm
    top = camera_mm[:2] + (ground - camera_mm[:2]) * camera_mm[2] / (camera_mm[2] - height_mm)
    return np.asarray(top - at_mm, np.float64)


def _find_piece(
    element: Element,
    height_mm: float,
    guess_mm: FloatArray,
    difference: NDArray[np.float32],
    camera_mm: FloatArray | None,
    settings: LayoutSettings,
    search_mm: float,
    turn_deg: float | None = None,
    rim_weight: float | None = None,
) -> tuple[FloatArray, float, float]:
    """Where the piece on ``element`` stands near ``guess_mm``: centre, axis and the
    contrast of its silhouette against its surroundings (share of its own difference).
    ``turn_deg``: how far its axis may turn from the model's. ``rim_weight``: how much
    the silhouette outside the piece's top face counts against the top face (1 when
    not given)."""
    s = settings.px_per_mm
    shape = _silhouette
    limit = settings.turn_deg if turn_deg is None else turn_deg
    turns = [0.0] if element.kind == "stone" else list(np.arange(-limit, limit + 1e-9, 2.0))
    best: tuple[float, FloatArray, float] = (-np.inf, guess_mm, element.angle_deg)
    h, w = difference.shape
    ring = 2.5
    for stage in (0, 1):
        if stage == 1:
            if element.kind == "stone":
                break
            turns = [best[2] - element.angle_deg + d for d in (-1.0, -0.5, 0.5, 1.0)]
        for turn in turns:
            angle = element.angle_deg + float(turn)
            footprint = _footprint(element, angle)
            outline = shape(footprint, height_mm, guess_mm, camera_mm)
            if rim_weight is None:
                template, origin = _template(outline, ring, s)
            else:
                template, origin = _template(
                    outline, ring, s, _top(footprint, height_mm, guess_mm, camera_mm), rim_weight
                )
            th, tw = template.shape
            centre_px = guess_mm * s - 0.5
            x0 = math.floor(centre_px[0] - search_mm * s - origin[0])
            y0 = math.floor(centre_px[1] - search_mm * s - origin[1])
            span = math.ceil(2 * search_mm * s) + 1
            if x0 < 0 or y0 < 0 or x0 + span + tw > w or y0 + span + th > h:
                window = np.zeros((span + th, span + tw), np.float32)
                sx0, sy0 = max(0, x0), max(0, y0)
                sx1, sy1 = min(w, x0 + span + tw), min(h, y0 + span + th)
                if sx1 > sx0 and sy1 > sy0:
                    window[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = difference[sy0:sy1, sx0:sx1]
            else:
                window = difference[y0 : y0 + span + th, x0 : x0 + span + tw]
            scores = cv2.matchTemplate(window, template, cv2.TM_CCORR)
            iy, ix = np.unravel_index(int(np.argmax(scores)), scores.shape)
            score = float(scores[iy, ix])
            if score > best[0]:
                dx = dy = 0.0
                if 0 < ix < scores.shape[1] - 1:
                    dx = _parabola(scores[iy, ix - 1], score, scores[iy, ix + 1])
                if 0 < iy < scores.shape[0] - 1:
                    dy = _parabola(scores[iy - 1, ix], score, scores[iy + 1, ix])
                at_px = np.array([x0 + ix + dx, y0 + iy + dy]) + origin
                best = (score, (at_px + 0.5) / s, angle)
    score, at, angle = best
    outline = shape(_footprint(element, angle), height_mm, at, camera_mm)
    inside_mean = float(_inside_mean(difference, outline + at, s))
    contrast = score / max(inside_mean, 1e-6)
    return at, angle, float(np.clip(contrast, 0.0, 1.0))


def _inside_mean(difference: NDArray[np.float32], polygon_mm: FloatArray, s: float) -> float:
    mask = np.zeros(difference.shape, np.uint8)
    cv2.fillConvexPoly(
        mask, np.rint(polygon_mm * s * 8 - 0.5 * 8).astype(np.int32), 1, cv2.LINE_8, 3
    )
    return float(difference[mask > 0].mean()) if mask.any() else 0.0


def _mask_polygons(
    difference: NDArray[np.float32], polygons: Iterable[FloatArray], s: float
) -> None:
    for polygon in polygons:
        cv2.fillConvexPoly(
            difference, np.rint(polygon * s * 8 - 0.5 * 8).astype(np.int32), 0.0, cv2.LINE_8, 3
        )


# --- the calibration pictures: each piece's place, to a fraction of a millimetre ------------


def _log_colour(image: Image) -> NDArray[np.float32]:
    """Log colour of a board seen from above, lightly smoothed (as :func:`_difference`)."""
    out = np.log(cv2.GaussianBlur(_float_image(image), (0, 0), 1.0) + _LOG_FLOOR)
    return np.asarray(out if out.ndim == 3 else out[:, :, None], np.float32)


def _soft_mask(
    polygon_mm: FloatArray, lo_mm: FloatArray, size: tuple[int, int], px_per_mm: float
) -> NDArray[np.float32]:
    """How much of each pixel of a ``size`` (w, h) grid starting at ``lo_mm`` lies
    inside ``polygon_mm`` (eight times finer, then averaged)."""
    scale = 8
    big = np.zeros((size[1] * scale, size[0] * scale), np.uint8)
    cv2.fillConvexPoly(
        big, np.rint((polygon_mm - lo_mm) * px_per_mm * scale - 0.5).astype(np.int32), 1
    )
    return np.asarray(
        cv2.resize(big.astype(np.float32), size, interpolation=cv2.INTER_AREA), np.float32
    )


def _window(image: NDArray[np.float32], x0: int, y0: int, w: int, h: int) -> NDArray[np.float32]:
    """``image[y0:y0+h, x0:x0+w]``, zero where it reaches past the image."""
    ih, iw = image.shape[:2]
    if x0 >= 0 and y0 >= 0 and x0 + w <= iw and y0 + h <= ih:
        return image[y0 : y0 + h, x0 : x0 + w]
    out = np.zeros((h, w, *image.shape[2:]), np.float32)
    sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(iw, x0 + w), min(ih, y0 + h)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = image[sy0:sy1, sx0:sx1]
    return out


def _refine_piece(
    element: Element,
    height_mm: float,
    at_mm: FloatArray,
    angle_deg: float,
    seen: NDArray[np.float32],
    changed: NDArray[np.float32],
    elsewhere: Sequence[FloatArray],
    camera_mm: FloatArray | None,
    settings: LayoutSettings,
    search_mm: float,
    turn_deg: float,
) -> tuple[FloatArray, float]:
    """The piece's place and axis near ``at_mm`` that best explain the calibration
    picture as the empty board with the piece on it: inside its top face, and inside
    the sides the camera sees, the picture is of one colour each (the piece's, in two
    lights); outside, it is the empty board. ``seen``: the picture's log colour;
    ``changed``: how far each point differs from the empty board (squared), 0 where a
    tile stands; ``elsewhere``: the silhouettes of the other pieces, left out (as the
    tiles). Where the board under the piece is of the piece's colour, its silhouette's
    difference from the board is faint in places, but the board's own pattern is gone
    there: this weighs both. The piece is looked for within ``search_mm`` of
    ``at_mm`` and ``turn_deg`` of ``angle_deg``, and again around the best place found
    while that lies on the edge of the search (three searches at most). Returns the
    centre and the axis."""
    s = settings.px_per_mm

    def at_angle(at_mm: FloatArray, angle: float) -> tuple[float, FloatArray]:
        footprint = _footprint(element, angle)
        top = _top(footprint, height_mm, at_mm, camera_mm)
        hull = _silhouette(footprint, height_mm, at_mm, camera_mm)
        lo = hull.min(axis=0) - 1.0
        size = (
            math.ceil((hull.max(axis=0)[0] + 1.0 - lo[0]) * s) + 1,
            math.ceil((hull.max(axis=0)[1] + 1.0 - lo[1]) * s) + 1,
        )
        top_w = _soft_mask(top, lo, size, s)
        rim_w = np.clip(_soft_mask(hull, lo, size, s) - top_w, 0.0, 1.0)
        origin = -lo * s - 0.5
        centre_px = at_mm * s - 0.5
        x0 = math.floor(centre_px[0] - search_mm * s - origin[0])
        y0 = math.floor(centre_px[1] - search_mm * s - origin[1])
        span = math.ceil(2 * search_mm * s) + 1
        ww, wh = span + size[0] - 1, span + size[1] - 1
        change_map = _window(changed, x0, y0, ww, wh)
        valid = np.asarray(change_map > 0.0, np.float32)  # 0 where a tile stands
        for polygon in elsewhere:
            cv2.fillConvexPoly(
                valid,
                np.rint((polygon * s - 0.5 - np.array([x0, y0])) * 8).astype(np.int32),
                0.0,
                cv2.LINE_8,
                3,
            )
        picture = _window(seen, x0, y0, ww, wh) * valid[:, :, None]
        spread_map = np.asarray((picture**2).sum(axis=2), np.float32)
        change_map = change_map * valid
        cost = np.zeros((span, span), np.float32)
        for weights in (top_w, rim_w):
            if float(weights.sum()) < 1.0:
                continue
            area = np.maximum(cv2.matchTemplate(valid, weights, cv2.TM_CCORR), 1e-3)
            spread = cv2.matchTemplate(spread_map, weights, cv2.TM_CCORR)
            for c in range(seen.shape[2]):
                mean = cv2.matchTemplate(
                    np.ascontiguousarray(picture[:, :, c]), weights, cv2.TM_CCORR
                )
                spread = spread - mean**2 / area
            cost += spread - cv2.matchTemplate(change_map, weights, cv2.TM_CCORR)
        iy, ix = np.unravel_index(int(np.argmin(cost)), cost.shape)
        value = float(cost[iy, ix])
        dx = dy = 0.0
        if 0 < ix < span - 1:
            dx = _parabola(-cost[iy, ix - 1], -value, -cost[iy, ix + 1])
        if 0 < iy < span - 1:
            dy = _parabola(-cost[iy - 1, ix], -value, -cost[iy + 1, ix])
        at_px = np.array([x0 + ix + dx, y0 + iy + dy]) + origin
        return value, (at_px + 0.5) / s

    at, angle = np.asarray(at_mm, np.float64), angle_deg
    for _ in range(3):
        tried = {
            angle + float(t): at_angle(at, angle + float(t))
            for t in np.arange(-turn_deg, turn_deg + 1e-9, 1.0)
        }
        whole = min(tried, key=lambda a: tried[a][0])
        for turned in (whole - 0.5, whole + 0.5):  # half a degree either side
            tried[turned] = at_angle(at, turned)
        angle = min(tried, key=lambda a: tried[a][0])
        found = tried[angle][1]
        # the best place on the window's edge: the piece may lie further on
        at, near_edge = found, float(np.abs(found - at).max()) > search_mm - 1.0 / s
        if not near_edge:
            break
    return at, angle


# --- the view of a registered board ----------------------------------------------------------


def registered_view(
    homography: FloatArray, image_size: tuple[int, int], camera: Any = None
) -> BoardView:
    """The view of a board registered by ``homography`` (board mm to ideal pixels, as
    ``companion calibrate board`` stores it) in pictures of ``image_size``, with heights
    above the board known so that a piece's silhouette can be predicted.

    With the lens profile (``camera``) the lens is corrected and the camera's place
    follows from it. Without one, the focal length is estimated from the homography
    alone (square pixels, principal point in the middle of the picture: the board's
    two axes must be at right angles, Zhang's constraint), and the lens is not
    corrected."""
    h = np.asarray(homography, np.float64)
    if camera is not None:
        lens = Lens.of(camera)
        return BoardView(
            h,
            image_size,
            lens if lens.distorts else None,
            pose_from_homography(h, lens.matrix),
            "markers",
        )
    w, ht = image_size
    centred = np.array([[1.0, 0.0, -w / 2.0], [0.0, 1.0, -ht / 2.0], [0.0, 0.0, 1.0]]) @ h
    h1, h2 = centred[:, 0], centred[:, 1]
    estimates = []
    if abs(h1[2] * h2[2]) > 1e-12:
        estimates.append(-(h1[0] * h2[0] + h1[1] * h2[1]) / (h1[2] * h2[2]))
    if abs(h2[2] ** 2 - h1[2] ** 2) > 1e-12:
        estimates.append(
            (h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2) / (h2[2] ** 2 - h1[2] ** 2)
        )
    good = [f2 for f2 in estimates if (0.2 * w) ** 2 < f2 < (10.0 * w) ** 2]
    focal = math.sqrt(float(np.median(good))) if good else float(w)
    matrix = np.array([[focal, 0.0, w / 2.0], [0.0, focal, ht / 2.0], [0.0, 0.0, 1.0]])
    return BoardView(h, image_size, None, pose_from_homography(h, matrix), "markers")


# --- the fit -------------------------------------------------------------------------------


def fit_layout(
    game: str,
    nominal: BoardModel,
    empty_frame: Image,
    view: BoardView,
    calibration: Sequence[Frame] = (),
    settings: LayoutSettings | None = None,
) -> LayoutFit:
    """Where each element of ``nominal`` lies on the board in ``empty_frame`` (seen
    through ``view``), refined with ``calibration`` pictures of pieces in place, each
    with its own view and the observation of what stands where.

    Raises ``LayoutError`` when the empty board does not show this board's printed
    spaces or squares (another board, the board out of view), or when a piece the
    observation puts on the board is not seen near its place."""
    settings = settings or LayoutSettings()
    if nominal.game != game:
        raise LayoutError(f"the board model is of {nominal.game}, not {game}")
    s = settings.px_per_mm
    board = view.rectify(empty_frame, nominal.size_mm, s)
    kind = _outline_kind(game)
    outlined = nominal.of_kind(kind)
    keys = {(e.size_mm, e.angle_deg) for e in outlined}
    if len(keys) != 1:
        raise LayoutError(
            f"the {game} model's {kind}s differ in size or turn; the layout fit needs them alike"
        )
    ((size, angle),) = keys
    response, around = outline_response(board, size[0], angle, s)
    fits: dict[str, ElementFit] = {}
    similarity_of: dict[str, _Similarity] = {}
    villages = list(nominal.villages)
    agreeing = total = 0
    groups = _groups(nominal)
    first = {group.name: _fit_group(group, nominal, response, around, settings) for group in groups}
    group_fits = _refine_by_likeness(_float_image(board), nominal, groups, first, settings)
    for group in groups:
        fit = group_fits[group.name]
        agreeing += fit.agreeing
        total += len(group.members)
        for name in group.members:
            similarity_of[name] = fit.similarity
            element = nominal.elements[name]
            centre = fit.similarity.apply(np.array(element.centre_mm))[0]
            residual = float(np.linalg.norm(fit.own[name] - centre))
            confidence = float(np.clip(fit.strength[name], 0.0, 1.0))
            if residual > settings.agree_mm:
                confidence = min(confidence, settings.agree_mm / residual)
            fits[name] = _element_fit(
                element,
                centre,
                element.angle_deg + fit.similarity.turn_deg,
                confidence,
                residual,
                "outline",
            )
        if group.village is not None:
            v = group.village
            centre = fit.similarity.apply(np.array(v.centre_mm))[0]
            villages[v.id] = replace(
                v,
                centre_mm=(float(centre[0]), float(centre[1])),
                radius_mm=v.radius_mm * fit.similarity.scale,
            )
    if total == 0 or agreeing < settings.min_agreement * total:
        raise LayoutError(
            f"the empty board does not show the {game} board's printed {kind}s where they "
            f"should be (only {agreeing} of {total} found in place): is the whole board in "
            f"the picture, is it the {game} board, and was the board registered first?"
        )
    _follow_groups(nominal, fits, similarity_of)
    _fit_pieces(nominal, fits, board, calibration, settings)
    elements = {
        name: replace(e, centre_mm=fits[name].centre_mm, angle_deg=fits[name].angle_deg)
        for name, e in nominal.elements.items()
    }
    model = replace(nominal, elements=elements, villages=tuple(villages))
    return LayoutFit(model, fits)


def _element_fit(
    element: Element,
    centre: FloatArray,
    angle: float,
    confidence: float,
    residual: float,
    source: str,
) -> ElementFit:
    moved = float(np.linalg.norm(np.asarray(centre) - np.array(element.centre_mm)))
    return ElementFit(
        element.name,
        (float(centre[0]), float(centre[1])),
        float(angle),
        moved,
        float(confidence),
        float(residual),
        source,
    )


def _group_of(model: BoardModel, element: Element) -> str | None:
    """The outlined element whose group ``element`` follows."""
    if model.game == "shangrila":
        if element.kind == "stone":
            vid = int(element.name.split()[1])
            return next(e.name for e in model.of_kind("space") if _village_of(e.name) == vid)
        return None
    if model.game == "shenshi":
        return element.name.split(" ")[0] + " tile"
    if element.kind == "gate":
        return model.of_kind("square")[0].name
    return None


def _follow_groups(
    model: BoardModel, fits: dict[str, ElementFit], similarity_of: Mapping[str, _Similarity]
) -> None:
    """Elements without outlines of their own take their group's fit (a bridge spot,
    between two villages, the mean of theirs)."""
    for element in model.elements.values():
        if element.name in fits:
            continue
        if model.game == "shenshi":
            tile = fits[element.name.split(" ")[0] + " tile"]
            fits[element.name] = _element_fit(
                element, np.array(tile.centre_mm), element.angle_deg, 0.0, 0.0, "group"
            )
            continue
        if element.kind == "bridge":
            a, b = (int(x) for x in element.name[7:].split("-"))
            ends = [
                next(e.name for e in model.of_kind("space") if _village_of(e.name) == v)
                for v in (a, b)
            ]
            moved = np.mean(
                [similarity_of[n].apply(np.array(element.centre_mm))[0] for n in ends], axis=0
            )
            turn = float(np.mean([similarity_of[n].turn_deg for n in ends]))
        else:
            leader = _group_of(model, element)
            if leader is None:
                continue
            similarity = similarity_of[leader]
            moved = similarity.apply(np.array(element.centre_mm))[0]
            turn = similarity.turn_deg
        fits[element.name] = _element_fit(
            element, moved, element.angle_deg + turn, 0.0, 0.0, "group"
        )


def _by_piece_colour(
    model: BoardModel,
    seen: Image,
    covered: Sequence[FloatArray],
    first: Mapping[str, tuple[FloatArray, float, float]],
    camera: FloatArray | None,
    settings: LayoutSettings,
) -> dict[str, tuple[FloatArray, float, float]]:
    """Each piece found again by its silhouette, on a map of how like the set's own
    pieces of its kind each point looks. A piece's shadow changes the board around it
    (its brightness, and its hue under coloured light), but it is not the colour of
    the pieces; all the pieces of a kind are of one colour, learnt here from the top
    faces the first search found (the whole silhouette is matched: the side facing
    the camera shows the piece's colour too)."""
    s = settings.px_per_mm
    image = np.log(cv2.GaussianBlur(_float_image(seen), (0, 0), 1.0) + _LOG_FLOOR)
    out: dict[str, tuple[FloatArray, float, float]] = {}
    for kind in ("bridge", "stone", "gate"):
        names = [n for n in first if model.elements[n].kind == kind]
        if len(names) < 3:
            continue
        height = model.pieces[_PIECES[kind]]
        mask = np.zeros(image.shape[:2], np.uint8)
        for name in names:
            at, angle, _ = first[name]
            face = _top(_footprint(model.elements[name], angle) * 0.6, height, at, camera) + at
            cv2.fillConvexPoly(
                mask, np.rint(face * s * 8 - 0.5 * 8).astype(np.int32), 1, cv2.LINE_8, 3
            )
        colours = image[mask > 0]
        if len(colours) < 10:
            continue
        centre = np.median(colours, axis=0)
        spread = max(float(np.median(np.linalg.norm(colours - centre, axis=1))), 0.05)
        distance = np.linalg.norm(image - centre.reshape(1, 1, -1), axis=2) / spread
        likeness = np.asarray(np.exp(-0.5 * (distance / 2.0) ** 2), np.float32)
        _mask_polygons(likeness, covered, s)
        # the sides the camera sees are the pieces' colour in another light: as like
        # it, against the tops, as the first search's pieces show
        tops, rims = [], []
        for name in names:
            at, angle, _ = first[name]
            footprint = _footprint(model.elements[name], angle)
            top = _top(footprint, height, at, camera) + at
            hull = _silhouette(footprint, height, at, camera) + at
            in_top = _inside_mean(likeness, top, s)
            in_hull = _inside_mean(likeness, hull, s)
            top_area = cv2.contourArea(top.astype(np.float32))
            hull_area = cv2.contourArea(hull.astype(np.float32))
            if hull_area > top_area * 1.05:
                tops.append(in_top)
                rims.append((in_hull * hull_area - in_top * top_area) / (hull_area - top_area))
        rim_weight = (
            float(np.clip(np.median(rims) / max(np.median(tops), 1e-6), 0.0, 1.0)) if rims else 1.0
        )
        for name in names:
            at, angle, _ = first[name]
            element = replace(model.elements[name], angle_deg=angle)
            found = _find_piece(
                element,
                height,
                at,
                likeness,
                camera,
                settings,
                settings.agree_mm * 2.0,
                turn_deg=4.0,
                rim_weight=rim_weight,
            )
            if found[2] >= settings.min_contrast:
                out[name] = found
    return out


def _printed_with_group(element: Element, fit: ElementFit) -> bool:
    """Whether ``element``'s spot is printed with its group (a stone spot in its
    village, a gate's slot with the grid), so that its group places it and its piece
    only confirms it."""
    return element.kind in ("stone", "gate") and fit.source == "group"


def _find_pieces(
    model: BoardModel,
    fits: dict[str, ElementFit],
    elements: Sequence[Element],
    difference: NDArray[np.float32],
    camera: FloatArray | None,
    settings: LayoutSettings,
    first: dict[str, tuple[FloatArray, float, float]],
) -> list[Element]:
    """Each of ``elements``' pieces near where its group puts it, in turn: added to
    ``first`` (centre, axis, contrast) and masked from ``difference`` where it stands
    out; those that do not, returned."""
    missed = []
    for element in elements:
        guess = np.array(fits[element.name].centre_mm)
        search = settings.piece_shift_mm if element.kind == "bridge" else settings.agree_mm * 2.5
        height = model.pieces[_PIECES[element.kind]]
        at, angle, contrast = _find_piece(
            element, height, guess, difference, camera, settings, search
        )
        if contrast < settings.min_contrast:
            missed.append(element)
            continue
        first[element.name] = (at, angle, contrast)
        _mask_polygons(
            difference,
            [_silhouette(_footprint(element, angle), height, at, camera) + at],
            settings.px_per_mm,
        )
    return missed


def _fit_pieces(
    model: BoardModel,
    fits: dict[str, ElementFit],
    board: Image,
    calibration: Sequence[Frame],
    settings: LayoutSettings,
) -> None:
    """Bridges, stones and gates where a calibration picture shows their piece."""
    s = settings.px_per_mm
    for frame, view, observation in calibration:
        seen = view.rectify(frame, model.size_mm, s)
        difference = _difference(board, seen)
        camera = view.camera_mm()
        tile = model.pieces.get("tile_mm", 0.0)
        covered = []
        for element in model.elements.values():
            if element.kind not in ("space", "square") or element.name not in observation:
                continue
            value = observation.value(element.name)
            if value in _TILE_VALUES_EMPTY:
                continue
            fitted = fits[element.name]
            grown = replace(element, centre_mm=fitted.centre_mm, angle_deg=fitted.angle_deg)
            foot = _footprint(replace(grown, size_mm=(tile + 3.0, tile + 3.0)), fitted.angle_deg)
            covered.append(
                _silhouette(
                    foot,
                    model.pieces.get("tile_thickness_mm", 0.0) * 3,
                    np.array(fitted.centre_mm),
                    camera,
                )
                + np.array(fitted.centre_mm)
            )
        _mask_polygons(difference, covered, s)
        changed = difference**2
        order = sorted(
            (
                e
                for e in model.elements.values()
                if e.kind in _PIECES
                and e.name in observation
                and observation.value(e.name) in _IN_PLACE
            ),
            key=lambda e: ("stone", "gate", "bridge").index(e.kind),
        )
        first: dict[str, tuple[FloatArray, float, float]] = {}
        missed = _find_pieces(model, fits, order, difference, camera, settings, first)
        # a piece against another (a bridge leaning on a stone) is looked for again
        # once every piece found is masked: the other's change no longer counts
        # against its surroundings
        missing = _find_pieces(model, fits, missed, difference, camera, settings, first)
        second = _by_piece_colour(model, seen, covered, first, camera, settings)
        placed = {name: second.get(name, first[name]) for name in first}
        colour = _log_colour(seen)
        stood = dict(placed)
        for name, (at, angle, contrast) in placed.items():
            element = model.elements[name]
            if _printed_with_group(element, fits[name]):
                continue
            elsewhere = [
                _silhouette(
                    _footprint(model.elements[n], placed[n][1]),
                    model.pieces[_PIECES[model.elements[n].kind]],
                    placed[n][0],
                    camera,
                )
                + placed[n][0]
                for n in placed
                if n != name and np.linalg.norm(placed[n][0] - at) < 60.0
            ]
            at, angle = _refine_piece(
                element,
                model.pieces[_PIECES[element.kind]],
                at,
                angle,
                colour,
                changed,
                elsewhere,
                camera,
                settings,
                settings.agree_mm * 2.0,
                3.0,
            )
            stood[name] = (at, angle, contrast)
        for element in order:
            if element.name not in first:
                continue
            guess = np.array(fits[element.name].centre_mm)
            at, angle, contrast = stood[element.name]
            residual = float(np.linalg.norm(at - guess))
            if _printed_with_group(element, fits[element.name]):
                # a stone spot is printed in its village, a gate's slot with the grid:
                # it moves with the village's spaces or the grid's squares, found far
                # more finely than a hand puts the piece down; the piece in the picture
                # confirms it (a piece seen well off its spot makes the spot doubtful)
                agreement = min(1.0, 1.5 * settings.agree_mm / max(residual, 1e-6))
                fits[element.name] = _element_fit(
                    element,
                    guess,
                    fits[element.name].angle_deg,
                    min(contrast, agreement),
                    residual,
                    "group",
                )
            else:
                fits[element.name] = _element_fit(element, at, angle, contrast, residual, "piece")
        if missing:
            raise LayoutError(
                f"{len(missing)} piece(s) the calibration position puts on the board are not "
                f"seen near their place: {', '.join(e.name for e in missing[:6])}"
                + (" ..." if len(missing) > 6 else "")
                + "; put every piece of the calibration position in place and take the "
                "picture again"
            )


# --- storing and showing -------------------------------------------------------------------


def layout_to_json(fit: LayoutFit) -> dict[str, Any]:
    """The fit as a profile document's body (``save_layout``)."""
    return {
        "created": fit.created,
        "game": fit.model.game,
        "villages": [
            {"id": v.id, "centre_mm": list(v.centre_mm), "radius_mm": v.radius_mm}
            for v in fit.model.villages
        ],
        "elements": {
            name: {
                "centre_mm": list(f.centre_mm),
                "angle_deg": f.angle_deg,
                "moved_mm": f.moved_mm,
                "confidence": f.confidence,
                "residual_mm": f.residual_mm,
                "source": f.source,
            }
            for name, f in fit.elements.items()
        },
    }


def save_layout(fit: LayoutFit, path: Path) -> None:
    """Write the fitted layout atomically. Raises ``ProfileError`` on failure."""
    save_document(path, KIND_LAYOUT, layout_to_json(fit))


def load_layout(path: Path, nominal: BoardModel) -> LayoutFit:
    """Read a stored layout for the board ``nominal`` describes, checking every field
    (every element of the model present, every place on the board). Raises
    ``ProfileError`` naming the file and the fault."""
    data = read_document(path, KIND_LAYOUT)
    fields = Fields(data, path, "board layout")
    game = fields.string("game")
    if game != nominal.game:
        raise ProfileError(f"{path} is the layout of the {game} board, not {nominal.game}")
    raw = fields.get("elements")
    elements_fields = fields.sub(raw, "elements")
    w, h = nominal.size_mm
    fits: dict[str, ElementFit] = {}
    for name in nominal.elements:
        item = elements_fields.sub(elements_fields.get(name), name)
        x, y = item.numbers("centre_mm", 2)
        if not (0.0 <= x <= w and 0.0 <= y <= h):
            raise item.fail("centre_mm", f"lies off the {w:g} x {h:g} mm board")
        fits[name] = ElementFit(
            name,
            (x, y),
            item.number("angle_deg"),
            item.number("moved_mm", 0.0),
            item.number("confidence", 0.0),
            item.number("residual_mm", 0.0),
            item.string("source", ("outline", "piece", "group")),
        )
    extra = [name for name in raw if name not in nominal.elements]
    if extra:
        raise fields.fail("elements", f"names elements the board has not: {', '.join(extra)}")
    villages = list(nominal.villages)
    stored = fields.records("villages")
    if len(stored) != len(villages):
        raise fields.fail("villages", f"lists {len(stored)} villages, not {len(villages)}")
    for village, record in zip(nominal.villages, stored, strict=True):
        sub = fields.sub(record, "villages")
        x, y = sub.numbers("centre_mm", 2)
        villages[village.id] = replace(
            village, centre_mm=(x, y), radius_mm=sub.number("radius_mm", 1.0)
        )
    model = replace(
        nominal,
        elements={
            name: replace(e, centre_mm=fits[name].centre_mm, angle_deg=fits[name].angle_deg)
            for name, e in nominal.elements.items()
        },
        villages=tuple(villages),
    )
    return LayoutFit(model, fits, fields.string("created"))


def describe_layout(path: Path) -> str:
    """One line on a stored layout, after reading and checking all of it. Raises
    ``ProfileError``."""
    game = Fields(read_document(path, KIND_LAYOUT), path, "board layout").string("game")
    try:
        model = load_model(game)
    except ModelError:
        raise ProfileError(f"{path} is the layout of an unknown game {game!r}") from None
    fit = load_layout(path, model)
    furthest = max(fit.elements.values(), key=lambda f: f.moved_mm)
    return (
        f"{game} layout of {len(fit.elements)} elements, the furthest moved "
        f"{furthest.moved_mm:.1f} mm ({furthest.name}), made {fit.created}"
    )


def draw_layout(fit: LayoutFit, view: BoardView, image: Image) -> Image:
    """``image`` with every fitted element outlined where the fit puts it: green when
    its own evidence is clear, orange when it is doubtful, blue when it only follows
    its group."""
    out = (
        image.copy()
        if image.ndim == 3
        else array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    )
    thickness = max(1, round(out.shape[1] / 900))
    doubtful = set(fit.doubtful())
    for name, element in fit.model.elements.items():
        if element.kind in ("cushion", "monk"):
            continue
        colour = (
            (255, 140, 40)
            if not fit.has_evidence(name)
            else (0, 150, 255)
            if name in doubtful
            else (60, 220, 60)
        )
        corners = (
            element.corners_mm()
            if element.kind != "stone"
            else _footprint(element, 0.0) + np.array(element.centre_mm)
        )
        dense = np.vstack(
            [
                corners[i] + (corners[(i + 1) % len(corners)] - corners[i]) * t
                for i in range(len(corners))
                for t in np.linspace(0, 1, 6)[:-1]
            ]
        )
        pixels = view.to_image(dense)
        cv2.polylines(
            out,
            [np.rint(pixels * 16).astype(np.int32).reshape(-1, 1, 2)],
            True,
            colour,
            thickness,
            cv2.LINE_AA,
            4,
        )
    return out
