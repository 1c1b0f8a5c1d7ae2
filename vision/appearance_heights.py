"""Stack heights of Shangri-La from a slanted camera, by the player's own bare board.

A stack of ``h`` tiles of thickness ``t`` stands on the board; seen from a camera at
height ``Z`` over the board, ``r`` mm away along the board, its top is lifted and its
front face shows, so the stack hides ``h * t * r / (Z - h * t)`` mm more board behind
it than its footprint (``h * s``, ``s`` the *step* of one tile). Straight above ``s``
is 0 and heights cannot be seen; at 55 degrees of elevation a tile of 2 mm steps 1.4 mm.

Per stack, a few sample lines run across it in the direction away from the camera. On
each line every sample is a board point, compared with the player's bare board
(:class:`vision.appearance.SetAppearance`) under the frame's fitted light. Walking in
from the bare board beyond each end of the line, an edge lies where the distance to
the bare board first gets half way to the stack's own (a blurred edge crosses half
way where it lies), placed between samples to a fraction of a pixel. The near edges
follow the tile's footprint, the far ones the footprint pushed away by the board the
height hides; the tile's actual place (off its spot, turned a little) and that hidden
length are fitted together over the lines. The hidden length and one tile's step, in
picture pixels, go through a small conditional logit whose weights are fitted from
rendered tables (:func:`fit`, ``python -m companion.bench_heights fit``;
``vision/fitted/appearance-heights-shangrila.json``) into a probability per height
(given that a tile is there: the colour reader says whether one is).

A height is not read (left unknown) when the view is too steep for the model to be
sure of any height whatever the edges show, when a neighbouring piece, a hand or the
edge of the picture leaves too few lines showing both edges against bare board, or
when the probabilities are unsure. The reader knows the pieces' sizes and the camera,
never the rules.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engines.jsontext import read_json_file
from engines.observation import Reading, TableSchema, Value
from vision.appearance import (
    NEAR,
    SHOWN_AT,
    AppearanceError,
    LightField,
    SetAppearance,
    distance,
    fit_weights,
    linear,
    log_colour,
    probabilities,
    sample,
)
from vision.models import HEIGHT_SUFFIX, BoardModel
from vision.view import BoardView

FloatArray = NDArray[np.float64]

FORMAT_VERSION = 1
LINES = 7
"""Sample lines across each stack."""
LINE_SPREAD = 0.55
"""The lines spread over this share of the tile's width."""
MIN_LINES = 3
"""Lines that must show both edges against bare board for a height to be read."""
STEP_MM = 0.25
"""Spacing of the samples along a line."""
OUTSIDE_MM = 3.5
"""How far beyond each edge a line looks at bare board (past where a piece lies off
its spot, and past the edge's blur)."""
INSIDE_MM = 3.5
INSIDE_SHARE = 0.19
"""How far inside each edge a line looks at the stack: this far, at most this share of
the tile (the glyph in its middle is not looked at)."""
REFERENCE_MM = 1.0
"""The length at each end of a line's window taken as its reference (bare, covered)."""
PLACEMENT_MM = 1.5
"""How far off its spot a neighbouring piece may lie."""
_CHUNK = 16384
"""Samples looked up at once (a picture lookup takes fewer than 32767)."""
FEATURES = ("steps_by_hidden_sure", "steps_squared_sure", "steps_by_hidden",
            "steps_squared", "steps", "taller")

TOO_STEEP = "the view is too steep to show the height of a stack"
EDGE_HIDDEN = "a neighbouring piece or a hand hides an edge of the stack"
COLOUR_UNKNOWN = "the tile on the space is not read"
UNSURE = "unsure between the heights"
COVERED_BY_HAND = "covered by a hand"
_NOTHING = ("empty", False)
"""What a space, a bridge's or a stone's place shows when nothing stands there."""


@dataclass(frozen=True)
class StackLines:
    """The sample lines of one space in one view."""

    space: str
    step_mm: float
    """``s``: how much more board one more tile hides along the lines."""
    px_per_mm: float
    """Picture pixels per board millimetre along the lines, at the space."""
    points_mm: FloatArray  # (lines, samples, 2) board points
    positions: FloatArray  # (samples,) along the line, from the space's centre
    chords: FloatArray  # (lines, 2) where the tile's footprint starts and ends
    centre: FloatArray  # the space's centre (board mm)
    along: FloatArray  # unit direction of the lines, away from the camera
    offsets: FloatArray  # (lines,) each line's offset across, mm
    angle_deg: float
    half_mm: float
    """Half the tile's side."""

    def chords_at(self, shift: FloatArray, turn_deg: float) -> FloatArray:
        """Where each line enters and leaves the tile's footprint when the tile lies
        ``shift`` mm off its spot and turned by ``turn_deg``, (lines, 2)."""
        return _chords(self.centre + shift, self.half_mm, self.angle_deg + turn_deg,
                       self.centre, self.along, self.offsets)


@dataclass(frozen=True)
class HeightPlan:
    """Every space's sample lines for one view."""

    lines: tuple[StackLines, ...]
    heights: tuple[int, ...]
    """The heights a stack may have (1 upwards)."""
    outside_mm: float
    inside_mm: float
    pixels: NDArray[np.float32]  # every sample point, all spaces in turn
    shown: NDArray[np.bool_]  # the sample point is inside the picture

    def of(self, index: int) -> slice:
        per = self.lines[0].points_mm.shape[0] * self.lines[0].points_mm.shape[1] \
            if self.lines else 0
        return slice(index * per, (index + 1) * per)


def _chords(centre: FloatArray, half: float, angle_deg: float, origin: FloatArray,
            direction: FloatArray, offsets: FloatArray) -> FloatArray:
    """Where the lines ``origin + o * across + t * direction`` (``across`` a quarter
    turn from ``direction``) enter and leave a square (slabs), NaN when they miss it."""
    a = math.radians(angle_deg)
    axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    across = np.array([-direction[1], direction[0]])
    o = (origin[None, :] + offsets[:, None] * across[None, :] - centre[None, :]) @ axes.T
    d = axes @ direction
    lo = np.full(len(offsets), -math.inf)
    hi = np.full(len(offsets), math.inf)
    for k in range(2):
        if abs(d[k]) < 1e-12:
            miss = np.abs(o[:, k]) > half
            lo[miss], hi[miss] = math.inf, -math.inf
            continue
        t1, t2 = (-half - o[:, k]) / d[k], (half - o[:, k]) / d[k]
        lo, hi = np.maximum(lo, np.minimum(t1, t2)), np.minimum(hi, np.maximum(t1, t2))
    out = np.column_stack([lo, hi])
    out[lo >= hi] = np.nan
    return out


def plan(model: BoardModel, view: BoardView, heights: Sequence[int]) -> HeightPlan | None:
    """The sample lines of every space of ``model`` in ``view``, or ``None`` when the
    view knows the board plane only (no camera, no heights)."""
    camera = view.camera_mm()
    if camera is None:
        return None
    tile = model.pieces["tile_mm"]
    thick = model.pieces["tile_thickness_mm"]
    top = max(heights)
    inside = min(INSIDE_MM, INSIDE_SHARE * tile)
    out = []
    samples = math.ceil((tile * 1.5 + 2 * OUTSIDE_MM + top * thick * 3) / STEP_MM)
    for space in model.of_kind("space"):
        centre = np.array(space.centre_mm, dtype=np.float64)
        away = centre - camera[:2]
        reach = float(np.linalg.norm(away))
        u = away / reach if reach > 1e-6 else np.array([0.0, 1.0])
        v = np.array([-u[1], u[0]])
        step = thick * reach / max(camera[2] - thick, 1e-6)
        along = view.to_image(np.vstack([centre, centre + u]))
        px_per_mm = float(np.linalg.norm(along[1] - along[0]))
        offsets = np.linspace(-1.0, 1.0, LINES) * LINE_SPREAD * tile / 2
        chords = _chords(centre, tile / 2, space.angle_deg, centre, u, offsets)
        start = float(np.nanmin(chords[:, 0])) - OUTSIDE_MM
        positions = start + STEP_MM * np.arange(samples, dtype=np.float64)
        points = np.asarray(centre[None, None, :] + offsets[:, None, None] * v[None, None, :]
                            + positions[None, :, None] * u[None, None, :])
        out.append(StackLines(space.name, step, px_per_mm, points, positions, chords, centre,
                              u, offsets, space.angle_deg, tile / 2))
    everything = np.vstack([s.points_mm.reshape(-1, 2) for s in out])
    pixels = view.to_image(everything).astype(np.float32)
    w, h = view.image_size
    shown = (pixels[:, 0] >= 0) & (pixels[:, 0] <= w - 1) & (pixels[:, 1] >= 0) \
        & (pixels[:, 1] <= h - 1)
    return HeightPlan(tuple(out), tuple(sorted(heights)), OUTSIDE_MM, inside, pixels, shown)


# --- measuring -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Measure:
    """What the lines of one stack show: the board hidden beyond the footprint (mm,
    the median over the lines that show both edges) and how far the lines disagree."""

    excess_mm: float
    spread_mm: float
    lines: int


def _edges(d: FloatArray, positions: FloatArray, chord: tuple[float, float],
           reach: float, outside: float, inside: float) -> tuple[float, float] | None:
    """The near and far edge of a stack on one line from each sample's distance to the
    bare board ``d``: where, walking in from the bare board, the distance first gets
    half way to the stack's own (a blurred edge crosses half way where it lies). ``None``
    when the ends of the line do not show bare board and the stack clearly."""
    a, b = chord
    if math.isnan(a):
        return None

    def span(lo: float, hi: float) -> NDArray[np.bool_]:
        return np.asarray((positions >= lo) & (positions < hi))

    edges = []
    for outer, inner, lo, hi, inward in (
            ((a - outside, a - outside + REFERENCE_MM), (a + inside - REFERENCE_MM, a + inside),
             a - outside, a + inside, 1),
            ((b + reach + outside - REFERENCE_MM, b + reach + outside),
             (b - inside, b - inside + REFERENCE_MM), b - inside, b + reach + outside, -1)):
        out_ref, in_ref = span(*outer), span(*inner)
        if not out_ref.any() or not in_ref.any():
            return None
        bare, covered = float(np.median(d[out_ref])), float(np.median(d[in_ref]))
        if bare > NEAR or covered - bare < NEAR:
            return None
        window = np.flatnonzero(span(lo, hi))[::inward]
        level = (bare + covered) / 2.0
        above = np.flatnonzero(d[window] >= level)
        if len(above) == 0 or above[0] == 0:
            return None
        i, j = window[above[0] - 1], window[above[0]]
        share = (level - d[i]) / max(d[j] - d[i], 1e-9)
        edges.append(float(positions[i] + share * (positions[j] - positions[i])))
    return edges[0], edges[1]


def measure(lines: StackLines, d: FloatArray, usable: NDArray[np.bool_], reach: float,
            outside: float, inside: float) -> Measure | None:
    """The board a stack hides beyond its footprint, from its lines' distances to the
    bare board ``d`` (lines, samples); ``usable``: the lines no other piece and no edge
    of the picture spoils. ``None`` when too few lines show both edges.

    The near edges follow the footprint, the far ones the footprint pushed away by the
    hidden board; where the tile lies (off its spot, turned) is fitted with it, by
    least squares over the lines' edges, a line far off the others left out."""
    found = []
    for k in range(len(lines.chords)):
        if not usable[k]:
            continue
        edges = _edges(d[k], lines.positions, (float(lines.chords[k, 0]),
                                               float(lines.chords[k, 1])), reach, outside,
                       inside)
        if edges is not None:
            found.append((k, *edges))
    if len(found) < MIN_LINES:
        return None
    rows_, near, far = (np.array(x) for x in zip(*found, strict=True))
    rows_ = rows_.astype(np.intp)
    fitted = _fit_placement(lines, rows_, near, far)
    if fitted is not None and len(rows_) > MIN_LINES:
        off = _placement_residuals(lines, rows_, near, far, fitted[2])
        worst = int(np.argmax(off))
        if off[worst] > 3.0 * (float(np.median(off)) + 0.1):
            keep = np.arange(len(rows_)) != worst
            rows_, near, far = rows_[keep], near[keep], far[keep]
            fitted = _fit_placement(lines, rows_, near, far)
    if fitted is None:
        return None
    return Measure(fitted[0], fitted[1], len(rows_))


PLACEMENT_TURN_DEG = 1.0
"""The unit of the fitted turn (degrees), so that all unknowns weigh about alike."""


def _predicted(lines: StackLines, rows_: NDArray[np.intp], theta: FloatArray) -> FloatArray:
    chords = lines.chords_at(theta[:2], theta[2] * PLACEMENT_TURN_DEG)[rows_]
    return np.concatenate([chords[:, 0], chords[:, 1] + theta[3]])


def _fit_placement(lines: StackLines, rows_: NDArray[np.intp], near: FloatArray,
                   far: FloatArray) -> tuple[float, float, FloatArray] | None:
    """(hidden board, RMS residual, unknowns) of the fit of shift, turn and hidden board
    to the edges (Gauss-Newton, a ridge keeping shift and turn small)."""
    seen = np.concatenate([near, far])
    theta = np.array([0.0, 0.0, 0.0, float(np.median(far - lines.chords[rows_, 1]))])
    ridge = np.array([0.5, 0.5, 0.2, 0.0])
    for _ in range(6):
        base = _predicted(lines, rows_, theta)
        if not np.isfinite(base).all():
            return None
        jacobian = np.zeros((len(base), 4))
        for j in range(4):
            step = np.zeros(4)
            step[j] = 0.05
            jacobian[:, j] = (_predicted(lines, rows_, theta + step) - base) / 0.05
        if not np.isfinite(jacobian).all():
            return None
        change = np.linalg.solve(jacobian.T @ jacobian + np.diag(ridge),
                                 jacobian.T @ (seen - base) - ridge * theta)
        theta = theta + change
        if float(np.abs(change).max()) < 1e-3:
            break
    final = _predicted(lines, rows_, theta)
    if not np.isfinite(final).all():
        return None
    return float(theta[3]), float(np.sqrt(np.mean((seen - final) ** 2))), theta


def _placement_residuals(lines: StackLines, rows_: NDArray[np.intp], near: FloatArray,
                         far: FloatArray, theta: FloatArray) -> FloatArray:
    """Per line: how far its two edges are from the fit (mm, the larger)."""
    predicted = _predicted(lines, rows_, theta)
    n = len(rows_)
    return np.asarray(np.maximum(np.abs(near - predicted[:n]), np.abs(far - predicted[n:])))


def rows(measured: Measure, lines: StackLines, heights: Sequence[int]) -> FloatArray:
    """The feature rows of each height ``h``, in picture pixels (``X`` the board hidden
    beyond the footprint, ``S`` one tile's step, ``q`` the squared misfit of the
    lines): a Gaussian on ``X - h * S`` written out (``h S X``, ``h^2 S^2``, alone and
    shrunk by ``1 + q``) with a free scale and bias (``h S``, ``h - 1``), so the fit
    finds where the edges of the set's tiles lie as well as how far they wander."""
    out = np.zeros((len(heights), len(FEATURES)))
    x = measured.excess_mm * lines.px_per_mm
    s = lines.step_mm * lines.px_per_mm
    shrink = 1.0 + (measured.spread_mm * lines.px_per_mm) ** 2
    for i, h in enumerate(heights):
        out[i] = (h * s * x / shrink, -(h * s) ** 2 / shrink, h * s * x, -(h * s) ** 2,
                  h * s, h - 1)
    return out


# --- the fitted model ------------------------------------------------------------------------

@dataclass(frozen=True)
class HeightModel:
    """The conditional logit's weights over :data:`FEATURES`, with how they were made."""

    game: str
    weights: FloatArray
    provenance: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"version": FORMAT_VERSION, "game": self.game, "features": list(FEATURES),
                "weights": [round(float(x), 6) for x in self.weights],
                "provenance": self.provenance}

    @classmethod
    def from_json(cls, data: Any, source: str) -> HeightModel:
        try:
            if data["version"] != FORMAT_VERSION or list(data["features"]) != list(FEATURES):
                raise AppearanceError(f"{source} was fitted for another height reader")
            weights = np.array([float(x) for x in data["weights"]])
            if weights.shape != (len(FEATURES),) or not np.isfinite(weights).all():
                raise AppearanceError(f"{source}: the weights are malformed")
            return cls(str(data["game"]), weights, dict(data.get("provenance", {})))
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, AppearanceError):
                raise
            raise AppearanceError(f"{source} cannot be used: {error}") from None


def fitted_path(game: str) -> Path:
    return Path(str(resources.files("vision").joinpath("fitted"))) / \
        f"appearance-heights-{game}.json"


def load_fitted(game: str, path: str | Path | None = None) -> HeightModel:
    """The shipped weights (or those at ``path``). Raises ``AppearanceError``."""
    where = Path(path) if path is not None else fitted_path(game)
    try:
        data = read_json_file(where, "fitted height reader")
    except ValueError as error:
        raise AppearanceError(str(error)) from None
    return HeightModel.from_json(data, str(where))


@dataclass(frozen=True)
class Example:
    rows: FloatArray
    truth: int


RIDGE = 1.0


def fit(game: str, data: Sequence[Example], provenance: Mapping[str, Any],
        l2: float = RIDGE, iterations: int = 50) -> HeightModel:
    """The weights by the appearance reader's fit (:func:`vision.appearance.fit_weights`:
    Newton's method on the penalised likelihood)."""
    return HeightModel(game, fit_weights(data, l2, iterations), dict(provenance))


# --- the reader ------------------------------------------------------------------------------

@dataclass
class HeightReading:
    """Each measured height's probabilities, the heights read, and why the others
    were not (and which of those the view cannot show)."""

    readings: dict[str, Reading]
    probabilities: dict[str, dict[str, float]]
    abstained: dict[str, str]
    unseen: set[str]


class HeightReader:
    """Reads the stack heights of a game's spaces (elements ``<space>`` +
    ``HEIGHT_SUFFIX``) from a frame, its view and the frame's light."""

    def __init__(self, model: BoardModel, appearance: SetAppearance, schema: TableSchema,
                 fitted: HeightModel | None = None) -> None:
        self.model = model
        self.appearance = appearance
        self.schema = schema
        self.fitted = fitted or load_fitted(appearance.game)
        self.spaces = tuple(e.name for e in model.of_kind("space")
                            if e.name + HEIGHT_SUFFIX in schema.elements)
        self.heights = tuple(sorted(
            {int(v) for s in self.spaces for v in schema.values[s + HEIGHT_SUFFIX]
             if isinstance(v, int) and not isinstance(v, bool) and v > 0})) or (1,)
        self._plan: tuple[BoardView, HeightPlan | None] | None = None
        # per space, for the current plan: whether the view can tell its heights, and
        # the lines each neighbour's piece would spoil (geometry only: kept per view)
        self._can_tell: dict[str, bool] = {}
        self._neighbours: dict[str, list[tuple[str, NDArray[np.bool_]]]] = {}
        self._bares: dict[str, FloatArray] = {}

    def plan(self, view: BoardView) -> HeightPlan | None:
        """The sample lines of ``view``, made again only when the view has moved."""
        from vision.appearance import _same_view

        if self._plan is None or not _same_view(self._plan[0], view, self.model.size_mm):
            self._plan = (view, plan(self.model, view, self.heights))
            self._can_tell = {}
            self._neighbours = {}
            self._bares = {}
        return self._plan[1]

    def _tells(self, space: str, lines: StackLines) -> bool:
        """:meth:`can_tell` of ``space``'s lines, worked out once per view."""
        known = self._can_tell.get(space)
        if known is None:
            known = self._can_tell[space] = self.can_tell(lines)
        return known

    def can_tell(self, lines: StackLines) -> bool:
        """Whether the view can show each height: some board hidden (from none to a
        tile more than the tallest stack, lines in perfect agreement) makes the model
        sure of it to ``SHOWN_AT``."""
        top = max(self.heights) + 1
        for i, _ in enumerate(self.heights):
            best = max(probabilities(self.fitted.weights, rows(
                Measure(x * lines.step_mm, 0.0, LINES), lines, self.heights))[i]
                for x in np.linspace(0.0, top, 4 * top + 1))
            if best < SHOWN_AT:
                return False
        return True

    def read(self, frame: NDArray[np.uint8], view: BoardView, light: LightField,
             below: Mapping[str, Reading | Value | None],
             covered: Sequence[str] | frozenset[str] = ()) -> HeightReading:
        """The heights of the spaces whose tile ``below`` gives (a colour read with
        its confidence; ``"empty"`` gives height 0)."""
        out = HeightReading({}, {}, {}, set())
        plan_ = self.plan(view)
        index = {s: i for i, s in enumerate(self.spaces)}
        measured: list[str] = []
        for space in self.spaces:
            name = space + HEIGHT_SUFFIX
            tile = below.get(space)
            if space in covered or name in covered:
                out.abstained[name] = COVERED_BY_HAND
                out.unseen.add(name)
            elif isinstance(tile, Reading) and tile.value == "empty":
                out.readings[name] = Reading(0, tile.confidence)
            elif not isinstance(tile, Reading) or not tile.known:
                out.abstained[name] = COLOUR_UNKNOWN
            elif plan_ is None or not self._tells(space, plan_.lines[index[space]]):
                out.abstained[name] = TOO_STEEP
                out.unseen.add(name)
            else:
                measured.append(space)
        if not measured or plan_ is None:
            return out
        for space, result in self.measure(frame, view, light, below, measured).items():
            name = space + HEIGHT_SUFFIX
            if result is None:
                out.abstained[name] = EDGE_HIDDEN
                out.unseen.add(name)
                continue
            lines = plan_.lines[index[space]]
            p = probabilities(self.fitted.weights, rows(result, lines, self.heights))
            out.probabilities[name] = {str(h): round(float(x), 4)
                                       for h, x in zip(self.heights, p, strict=True)}
            best = int(np.argmax(p))
            if p[best] < SHOWN_AT:
                out.abstained[name] = UNSURE
            else:
                out.readings[name] = Reading(self.heights[best], float(p[best]))
        return out

    def measure(self, frame: NDArray[np.uint8], view: BoardView, light: LightField,
                below: Mapping[str, Reading | Value | None], spaces: Sequence[str]
                ) -> dict[str, Measure | None]:
        """What the lines of each of ``spaces`` show (``None``: too few lines show
        both edges against bare board), whatever the view's slant."""
        plan_ = self.plan(view)
        if plan_ is None:
            return dict.fromkeys(spaces)
        index = {s: i for i, s in enumerate(self.spaces)}
        parts = [plan_.of(index[s]) for s in spaces]
        pixels = np.vstack([plan_.pixels[part] for part in parts])
        ground = np.vstack([plan_.lines[index[s]].points_mm.reshape(-1, 2) for s in spaces])
        bare = np.vstack([self._bare(s, plan_.lines[index[s]]) for s in spaces])
        d = np.concatenate([
            self._to_bare(frame, pixels[k:k + _CHUNK], ground[k:k + _CHUNK],
                          bare[k:k + _CHUNK], light)
            for k in range(0, len(pixels), _CHUNK)]) if len(pixels) else np.zeros(0)
        top = max(self.heights)
        out: dict[str, Measure | None] = {}
        start = 0
        for space, part in zip(spaces, parts, strict=True):
            lines = plan_.lines[index[space]]
            shape = lines.points_mm.shape[:2]
            count = shape[0] * shape[1]
            usable = plan_.shown[part].reshape(shape).all(axis=1) & ~self._spoiled(
                space, lines, below, view, top * lines.step_mm + plan_.outside_mm)
            out[space] = measure(lines, d[start:start + count].reshape(shape), usable,
                                 top * lines.step_mm, plan_.outside_mm, plan_.inside_mm)
            start += count
        return out

    def _bare(self, space: str, lines: StackLines) -> FloatArray:
        """The bare board's appearance at ``space``'s line points, once per view."""
        known = self._bares.get(space)
        if known is None:
            known = self._bares[space] = self.appearance.bare_log(
                lines.points_mm.reshape(-1, 2))
        return known

    def _to_bare(self, frame: NDArray[np.uint8], pixels: NDArray[np.float32],
                 ground: FloatArray, bare: FloatArray, light: LightField) -> FloatArray:
        """How far each sample is from the bare board (``bare``, at ``ground``) under
        the frame's light."""
        seen = log_colour(linear(np.asarray(sample(frame, pixels), dtype=np.uint8)))
        return distance(seen - light.at(ground), bare)

    def _spoiled(self, space: str, lines: StackLines, below: Mapping[str, Any],
                 view: BoardView, beyond: float) -> NDArray[np.bool_]:
        """Per line: whether another piece that may stand near (anything not read as
        bare) can lie on the line's board, or hide it, as high as it may be."""
        neighbours = self._neighbours.get(space)
        if neighbours is None:
            neighbours = self._neighbours[space] = self._near(space, lines, view, beyond)
        spoiled = np.zeros(len(lines.chords), dtype=bool)
        for name, lines_spoiled in neighbours:
            value = below.get(name)
            if isinstance(value, Reading) and value.known and value.value in _NOTHING:
                continue
            spoiled |= lines_spoiled
        return spoiled

    def _near(self, space: str, lines: StackLines, view: BoardView, beyond: float
              ) -> list[tuple[str, NDArray[np.bool_]]]:
        """The elements near ``space`` whose piece, standing there as high as it may,
        can lie on or hide some of its lines, each with the lines it spoils."""
        camera = view.camera_mm()
        assert camera is not None
        centre = np.array(self.model.elements[space].centre_mm)
        looked = (lines.positions[None, :] >= lines.chords[:, :1] - beyond) \
            & (lines.positions[None, :] <= lines.chords[:, 1:] + beyond)
        near: list[tuple[str, NDArray[np.bool_]]] = []
        for other in self.model.elements.values():
            if other.name == space or other.kind not in ("space", "bridge", "stone"):
                continue
            ocentre = np.array(other.centre_mm, dtype=np.float64)
            if float(np.linalg.norm(ocentre - centre)) > 4 * self.model.pieces["tile_mm"]:
                continue
            spoiled = np.zeros(len(lines.chords), dtype=bool)
            if other.kind == "space":
                half = np.array([self.model.pieces["tile_mm"] / 2] * 2)
                high = max(self.heights) * self.model.pieces["tile_thickness_mm"]
            else:
                half = np.array(other.size_mm) / 2
                high = self.model.pieces[f"{other.kind}_height_mm"]
            away = ocentre - camera[:2]
            reach = float(np.linalg.norm(away))
            shift = high * reach / max(camera[2] - high, 1e-6)
            u = away / max(reach, 1e-6)
            a = math.radians(other.angle_deg)
            axes = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
            for lift in np.linspace(0.0, 1.0, 5):
                local = (lines.points_mm - ocentre - lift * shift * u) @ axes.T
                under = (np.abs(local) <= half + PLACEMENT_MM).all(axis=-1)
                spoiled |= (under & looked).any(axis=1)
            if spoiled.any():
                near.append((other.name, spoiled))
        return near


_READERS: weakref.WeakKeyDictionary[Any, HeightReader | None] = weakref.WeakKeyDictionary()


def reader_for(reader: Any) -> HeightReader | None:
    """The height reader going with an appearance reader (made once), or ``None`` when
    its game has no stacks on spaces."""
    if reader not in _READERS:
        spaces = [e.name for e in reader.model.of_kind("space")
                  if e.name + HEIGHT_SUFFIX in reader.schema.elements]
        _READERS[reader] = HeightReader(reader.model, reader.appearance, reader.schema) \
            if spaces else None
    return _READERS[reader]
