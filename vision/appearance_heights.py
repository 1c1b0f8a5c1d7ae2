"""Stack heights of Shangri-La from a slanted camera, by the player's own bare board.

A stack of ``h`` tiles of thickness ``t`` stands on the board; seen from a camera at
height ``Z`` over the board, ``r`` mm away along the board, its top is lifted and its
front face shows, so the stack hides ``h * t * r / (Z - h * t)`` mm more board behind
it than its footprint (``h * s``, ``s`` the *step* of one tile). Straight above ``s``
is 0 and heights cannot be seen; at 55 degrees of elevation a tile of 2 mm steps 1.4 mm.

Per stack, a few sample lines run across it in the direction away from the camera. On
each line every sample is a board point, compared with the player's bare board
(:class:`vision.appearance_core.SetAppearance`) under the frame's fitted light. Walking in
from the bare board beyond each end of the line, an edge lies where the distance to
the bare board first gets half way to the stack's own (a blurred edge crosses half
way where it lies), placed between samples to a fraction of a pixel. The near edges
follow the tile's footprint, the far ones the footprint pushed away by the board the
height hides; the tile's actual place (off its spot, turned a little) and that hidden
length are fitted together over the lines.

A neighbouring tile beyond a stack (away from the camera) leaves no bare board past
its far edge when the stack is tall; the stack's top still hides the neighbour, so
against a tile of another colour the far edge is found walking in from the neighbour
to where the colour gets half way to the stack's own (its set's colour). Only a piece
in front of a stack, which can hide its front face, spoils the near end of a line.

The hidden length and one tile's step, in
picture pixels, go through a small conditional logit whose weights are fitted from
rendered tables (:func:`fit`, ``companion bench heights-fit``;
``vision/fitted/appearance-heights-shangrila.json``) into a probability per height
(given that a tile is there: the colour reader says whether one is). Its chances are
calibrated on other tables (:func:`calibrate`): the logits are divided by a
temperature, and a height is read only from a chance at which the heights of those
tables were nearly always right.

A height is not shown when the space under it is not (a hand or something else on
it, or out of the picture). A height is not read (left unknown) when the view cannot
show it (edges found without error could not make the model sure of each height to
``TELL_AT``: a steep view, a tile's side spanning too few pixels), when a
neighbouring piece, a hand or the edge of the picture leaves too few lines showing
both edges, when those lines cannot tell a tile lying off its spot from one hiding
more board (a tile seen corner first, only one side of it seen), when the board
hidden fits no height (less than none, or more than a tile above the tallest stack:
an edge mistaken), or when the probabilities are unsure. The reader knows the
pieces' sizes and the camera, never the rules.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engines.jsontext import read_json_file
from engines.observation import Reading, TableSchema, Value
from vision.appearance_core import (
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
    same_view,
    sample,
)
from vision.models import HEIGHT_SUFFIX, BoardModel, load_model
from vision.view import BoardView, in_picture

FloatArray = NDArray[np.float64]

FORMAT_VERSION = 2
TELL_AT = 0.9
"""A view shows a stack's height when edges measured without error could make the
reader this sure of each height (the chance the referee trusts a reading at): where a
tile's step spans too few pixels (a steep view, a small picture) no measure could, and
the height is *not shown*."""
LINES = 7
"""Sample lines across each stack."""
LINE_SPREAD = 0.55
"""The lines spread over this share of the tile's width."""
MIN_LINES = 3
"""Lines that must show both edges for a height to be read."""
TIED_MAX = 3.0
"""How much more uncertain than its lines alone the hidden board may be made by the
tile's unknown place: lines on one side of a tile seen corner first move alike when
it lies off its spot across them and when it hides more board, and cannot tell the
two apart (the fit's variance of the hidden board, times the lines, at most this)."""
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
BEYOND_MM = 0.5
"""Where a neighbouring tile stands beyond a stack, how far past the far edge of the
tallest stack the line looks at what is there (the neighbour or the gap before it)."""
PLAUSIBLE = (0.0, 1.5)
"""A stack hides at least this many tiles' steps of board beyond its footprint, and at
most this many more than the tallest stack: a measure outside is no height's (an edge
mistaken), and no height is read from it."""
CANDIDATES = 3
"""Neighbouring tiles a line's far end may run into (at most)."""
EXPLAINED = 1.0
"""What lies past a stack's far edge where a neighbouring tile stands is that tile (or
the bare board) when its tint (or its colour) is this near: blur mixes the two in a
gap of a few pixels."""
PLACEMENT_MM = 1.5
"""How far off its spot a neighbouring piece may lie."""
_CHUNK = 16384
"""Samples looked up at once (a picture lookup takes fewer than 32767)."""
FEATURES = (
    "steps_by_hidden_sure",
    "steps_squared_sure",
    "steps_by_hidden",
    "steps_squared",
    "steps",
    "taller",
)

TOO_STEEP = "the view is too steep to show the height of a stack"
EDGE_HIDDEN = "a neighbouring piece or a hand hides an edge of the stack"
COLOUR_UNKNOWN = "the tile on the space is not read"
SPACE_HIDDEN = "the space is not shown (something else on it, or out of the picture)"
UNSURE = "unsure between the heights"
IMPLAUSIBLE = "the stack's edges fit no height"
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
        return _chords(
            self.centre + shift,
            self.half_mm,
            self.angle_deg + turn_deg,
            self.centre,
            self.along,
            self.offsets,
        )


@dataclass(frozen=True)
class HeightPlan:
    """Every space's sample lines for one view (board points: where they fall in the
    picture is worked out for a space only when a stack stands there)."""

    lines: tuple[StackLines, ...]
    heights: tuple[int, ...]
    """The heights a stack may have (1 upwards)."""
    outside_mm: float
    inside_mm: float


def _chords(
    centre: FloatArray,
    half: float,
    angle_deg: float,
    origin: FloatArray,
    direction: FloatArray,
    offsets: FloatArray,
) -> FloatArray:
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
    samples = math.ceil((tile * 1.5 + 2 * OUTSIDE_MM + top * thick * 3) / STEP_MM)
    spaces = model.of_kind("space")
    if not spaces:
        return HeightPlan((), tuple(sorted(heights)), OUTSIDE_MM, inside)
    centres = np.array([space.centre_mm for space in spaces], dtype=np.float64)
    away = centres - camera[:2]
    reach = np.linalg.norm(away, axis=1)
    far = reach > 1e-6
    u = np.where(far[:, None], away / np.where(far, reach, 1.0)[:, None], [0.0, 1.0])
    v = np.column_stack([-u[:, 1], u[:, 0]])
    steps = thick * reach / max(camera[2] - thick, 1e-6)
    ends = view.to_image(np.vstack([centres, centres + u]))
    px_per_mm = np.linalg.norm(ends[len(spaces) :] - ends[: len(spaces)], axis=1)
    offsets = np.linspace(-1.0, 1.0, LINES) * LINE_SPREAD * tile / 2
    chords = _chords_many(
        centres,
        np.full(len(spaces), tile / 2),
        np.array([space.angle_deg for space in spaces], dtype=np.float64),
        centres,
        u,
        np.broadcast_to(offsets, (len(spaces), LINES)),
    )
    start = np.nanmin(chords[..., 0], axis=1) - OUTSIDE_MM
    positions = start[:, None] + STEP_MM * np.arange(samples, dtype=np.float64)[None, :]
    points = (
        centres[:, None, None, :]
        + offsets[None, :, None, None] * v[:, None, None, :]
        + positions[:, None, :, None] * u[:, None, None, :]
    )
    out = tuple(
        StackLines(
            space.name,
            float(steps[i]),
            float(px_per_mm[i]),
            points[i],
            positions[i],
            chords[i],
            centres[i],
            u[i],
            offsets,
            space.angle_deg,
            tile / 2,
        )
        for i, space in enumerate(spaces)
    )
    return HeightPlan(out, tuple(sorted(heights)), OUTSIDE_MM, inside)


# --- measuring -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    """What the lines of one stack show: the board hidden beyond the footprint (mm,
    the median over the lines that show both edges) and how far the lines disagree."""

    excess_mm: float
    spread_mm: float
    lines: int


@dataclass(frozen=True)
class Windows:
    """Where one space's lines look for a stack's edges in one view, per side (near,
    far), line and sample: the bare board outside the edge (``outer``), the stack inside
    it (``inner``) and the stretch walked in from the bare board (``walk``)."""

    outer: NDArray[np.bool_]  # (2, lines, samples)
    inner: NDArray[np.bool_]
    walk: NDArray[np.bool_]
    beyond: NDArray[np.bool_]
    """(2, lines, samples): where a neighbouring tile stands beyond the stack, what is
    just past the tallest stack's far edge, and the stretch walked out to it from the
    stack's own top."""

    @property
    def used(self) -> NDArray[np.bool_]:
        """(lines, samples): the samples looked at."""
        return np.asarray(self.walk[0] | self.walk[1] | self.beyond[1])


def windows(lines: StackLines, reach: float, outside: float, inside: float) -> Windows:
    """The windows of ``lines`` for stacks hiding up to ``reach`` mm beyond their
    footprint. The near edge is looked for from ``outside`` mm before the footprint to
    ``inside`` mm into it, the far one from ``inside`` mm inside to ``outside`` mm beyond
    the board the tallest stack hides."""
    p = lines.positions[None, :]
    a, b = lines.chords[:, :1], lines.chords[:, 1:]

    def span(lo: FloatArray, hi: FloatArray) -> NDArray[np.bool_]:
        return np.asarray((p >= lo) & (p < hi))

    outer = np.stack(
        [
            span(a - outside, a - outside + REFERENCE_MM),
            span(b + reach + outside - REFERENCE_MM, b + reach + outside),
        ]
    )
    inner = np.stack(
        [span(a + inside - REFERENCE_MM, a + inside), span(b - inside, b - inside + REFERENCE_MM)]
    )
    walk = np.stack([span(a - outside, a + inside), span(b - inside, b + reach + outside)])
    end = b + reach + BEYOND_MM
    beyond = np.stack([span(end, end + REFERENCE_MM), span(b - inside, end + REFERENCE_MM)])
    return Windows(outer, inner, walk, beyond)


def _masked_median(d: FloatArray, mask: NDArray[np.bool_], stretch: bool = False) -> FloatArray:
    """Per row, the median of ``d`` where ``mask``, NaN where the mask is empty.
    ``stretch``: each row's mask is one stretch of columns (only it is sorted)."""
    count = mask.sum(axis=1)
    if stretch:
        first = np.argmax(mask, axis=1)
        width = max(1, int(count.max(initial=0)))
        columns = np.minimum(first[:, None] + np.arange(width)[None, :], d.shape[1] - 1)
        taken = np.take_along_axis(d, columns, axis=1)
        taken = np.where(np.arange(width)[None, :] < count[:, None], taken, np.inf)
    else:
        width = d.shape[1]
        taken = np.where(mask, d, np.inf)
    taken.sort(axis=1)
    rows_ = np.arange(len(d))
    low = taken[rows_, np.maximum(count - 1, 0) // 2]
    high = taken[rows_, np.minimum(count // 2, width - 1)]
    return np.where(count > 0, (low + high) / 2.0, np.nan)


def edges(
    d: FloatArray,
    positions: FloatArray,
    where: Windows,
    lit: FloatArray | None = None,
    candidates: FloatArray | None = None,
    own: FloatArray | None = None,
) -> FloatArray:
    """The near and far edge of a stack on each line (lines, 2), from each sample's
    distance to the bare board ``d`` (lines, samples) and the lines' ``positions``:
    where, walking in from the bare board, the distance first gets half way to the
    stack's own (a blurred edge crosses half way where it lies), NaN when the line's
    ends do not show bare board and the stack clearly."""
    n, count = d.shape
    out = np.full((n, 2), np.nan)
    for side in (0, 1):
        bare = _masked_median(d, where.outer[side], stretch=True)
        covered = _masked_median(d, where.inner[side], stretch=True)
        clear = (bare <= NEAR) & (covered - bare >= NEAR)
        level = (bare + covered) / 2.0
        walk = where.walk[side]
        above = walk & (d >= level[:, None])
        if side == 0:
            j = np.argmax(above, axis=1)
            start = np.argmax(walk, axis=1)
            i = j - 1
        else:
            j = count - 1 - np.argmax(above[:, ::-1], axis=1)
            start = count - 1 - np.argmax(walk[:, ::-1], axis=1)
            i = j + 1
        found = clear & above.any(axis=1) & (j != start)
        out[:, side] = np.where(found, _crossing(d, positions, level, i, j), np.nan)
    if lit is not None and candidates is not None and own is not None:
        out[:, 1] = np.where(
            np.isnan(out[:, 1]),
            _far_against_neighbour(d, lit, positions, where, candidates, own),
            out[:, 1],
        )
    return out


def _crossing(
    d: FloatArray,
    positions: FloatArray,
    level: FloatArray,
    i: NDArray[np.intp],
    j: NDArray[np.intp],
) -> FloatArray:
    """Where ``d`` crosses ``level`` between samples ``i`` and ``j`` of each row."""
    rows_ = np.arange(len(d))
    i = np.clip(i, 0, d.shape[1] - 1)
    di, dj = d[rows_, i], d[rows_, j]
    share = (level - di) / np.maximum(dj - di, 1e-9)
    pi, pj = positions[rows_, i], positions[rows_, j]
    return np.asarray(pi + share * (pj - pi))


def _far_against_neighbour(
    d: FloatArray,
    lit: FloatArray,
    positions: FloatArray,
    where: Windows,
    candidates: FloatArray,
    own: FloatArray,
) -> FloatArray:
    """The far edge of a stack whose line runs into a neighbouring tile of another
    colour beyond it (NaN where it does not, or the edge cannot be told): walking in
    from just past the tallest stack's far edge, where the colour first gets half way
    to the stack's own (``own``, its set's colour, (lines, 3)). What lies there must be
    the neighbour (its top or its side: the colours' tint, whatever the shade) or the
    bare board, and must differ clearly from the stack's colour; ``candidates`` (lines,
    CANDIDATES, 3): the neighbours' colours, NaN where fewer."""
    n, count = d.shape
    candidate_known = np.asarray(np.isfinite(candidates).all(axis=2))
    wanted = candidate_known.any(axis=1) & np.isfinite(own).all(axis=1)
    out = np.full(n, np.nan)
    if not wanted.any():
        return out
    rows_ = np.flatnonzero(wanted)
    d, lit, positions, own = d[rows_], lit[rows_], positions[rows_], own[rows_]
    beyond, walk = where.beyond[0][rows_], where.beyond[1][rows_]
    there = np.stack([_masked_median(lit[..., c], beyond, stretch=True) for c in range(3)], -1)
    tint = np.sqrt(((there[:, None, 1:] - candidates[rows_][..., 1:]) ** 2).sum(axis=-1))
    explained = (np.nanmin(np.where(np.isfinite(tint), tint, np.inf), axis=1) < EXPLAINED) | (
        _masked_median(d, beyond, stretch=True) <= EXPLAINED
    )
    # how unlike the stack's colour each sample is: past the edge as what is there
    unlike = distance(lit, own[:, None, :])
    contrast = distance(there, own)
    level = contrast / 2.0
    below = walk & (unlike <= level[:, None])
    j = count - 1 - np.argmax(below[:, ::-1], axis=1)
    start = count - 1 - np.argmax(walk[:, ::-1], axis=1)
    found = explained & (contrast >= 2.0 * NEAR) & below.any(axis=1) & (j != start)
    level_up = -level
    out[rows_] = np.where(found, _crossing(-unlike, positions, level_up, j + 1, j), np.nan)
    return out


PLACEMENT_TURN_DEG = 1.0
"""The unit of the fitted turn (degrees), so that all unknowns weigh about alike."""
_RIDGE = np.array([0.5, 0.5, 0.2, 0.0])
"""Keeps the fitted shift and turn small."""


@dataclass(frozen=True)
class _Stacks:
    """The lines of several stacks, padded to ``LINES`` each (``mask``: a line's edges
    were found), for fitting all stacks' placements at once."""

    centre: FloatArray  # (n, 2)
    half: FloatArray  # (n,)
    angle: FloatArray  # (n,)
    along: FloatArray  # (n, 2)
    offsets: FloatArray  # (n, lines)
    chords: FloatArray  # (n, lines, 2), the footprint's where the stack is on its spot
    near: FloatArray  # (n, lines)
    far: FloatArray
    mask: NDArray[np.bool_]  # (n, lines)

    def take(self, keep: NDArray[np.bool_], mask: NDArray[np.bool_] | None = None) -> _Stacks:
        """The stacks ``keep`` picks (with the lines ``mask`` picks, when given)."""
        parts = [getattr(self, f.name) for f in fields(self)]
        if mask is not None:
            parts[-1] = mask
        return _Stacks(*(x[keep] for x in parts))

    def predicted(self, theta: FloatArray) -> FloatArray:
        """The edges (near, then far; (n, 2 lines)) of the stacks lying ``theta[:, :2]``
        mm off their spot, turned by ``theta[:, 2]`` units, hiding ``theta[:, 3]`` mm."""
        chords = _chords_many(
            self.centre + theta[:, :2],
            self.half,
            self.angle + theta[:, 2] * PLACEMENT_TURN_DEG,
            self.centre,
            self.along,
            self.offsets,
        )
        return np.concatenate([chords[..., 0], chords[..., 1] + theta[:, 3:4]], axis=1)


def _chords_many(
    centre: FloatArray,
    half: FloatArray,
    angle_deg: FloatArray,
    origin: FloatArray,
    direction: FloatArray,
    offsets: FloatArray,
) -> FloatArray:
    """:func:`_chords` of several squares at once: per square ``i`` (first axis) the
    lines ``origin[i] + offsets[i, k] * across + t * direction[i]``; (n, lines, 2)."""
    a = np.radians(angle_deg)
    cos, sin = np.cos(a)[:, None], np.sin(a)[:, None]
    across = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    vx = origin[:, 0:1] + offsets * across[:, 0:1] - centre[:, 0:1]
    vy = origin[:, 1:2] + offsets * across[:, 1:2] - centre[:, 1:2]
    o = (vx * cos + vy * sin, -vx * sin + vy * cos)
    dx, dy = direction[:, 0:1], direction[:, 1:2]
    d = (dx * cos + dy * sin, -dx * sin + dy * cos)
    h = half[:, None]
    lo = np.full(offsets.shape, -math.inf)
    hi = np.full(offsets.shape, math.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(2):
            flat = np.abs(d[k]) < 1e-12
            safe = np.where(flat, 1.0, d[k])
            t1, t2 = (-h - o[k]) / safe, (h - o[k]) / safe
            near_t, far_t = np.minimum(t1, t2), np.maximum(t1, t2)
            miss = flat & (np.abs(o[k]) > h)
            near_t = np.where(flat, np.where(miss, math.inf, -math.inf), near_t)
            far_t = np.where(flat, np.where(miss, -math.inf, math.inf), far_t)
            lo, hi = np.maximum(lo, near_t), np.minimum(hi, far_t)
    out = np.stack([lo, hi], axis=-1)
    out[lo >= hi] = np.nan
    return out


def _fit_placements(stacks: _Stacks) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Per stack, the fit of shift, turn and hidden board to the edges (Gauss-Newton,
    a ridge keeping shift and turn small): the unknowns (n, 4), the RMS residual (mm)
    and whether the fit could be made."""
    n = len(stacks.mask)
    seen = np.concatenate([stacks.near, stacks.far], axis=1)
    mask = np.concatenate([stacks.mask, stacks.mask], axis=1)
    theta = np.zeros((n, 4))
    theta[:, 3] = _masked_median(
        np.where(stacks.mask, stacks.far - stacks.chords[..., 1], 0.0), stacks.mask
    )
    ok = np.ones(n, dtype=bool)
    active = np.ones(n, dtype=bool)
    for _ in range(6):
        rows_ = np.flatnonzero(active)
        if not len(rows_):
            break
        part, at, used = stacks.take(active), theta[rows_], mask[rows_]
        base = part.predicted(at)
        fine = np.asarray(np.where(used, np.isfinite(base), True).all(axis=1))
        jacobian = _jacobian(part, at, base)
        fine &= np.where(used[..., None], np.isfinite(jacobian), True).all(axis=(1, 2))
        ok[rows_[~fine]] = False
        jacobian = np.where(used[..., None] & fine[:, None, None], jacobian, 0.0)
        residual = np.where(used & fine[:, None], seen[rows_] - base, 0.0)
        normal = np.einsum("nri,nrj->nij", jacobian, jacobian) + np.diag(_RIDGE)[None]
        normal[~fine] = np.eye(4)
        rhs = np.einsum("nri,nr->ni", jacobian, residual) - _RIDGE[None, :] * at
        change = np.linalg.solve(normal, rhs[..., None])[..., 0]
        theta[rows_] = np.where(fine[:, None], at + change, at)
        active[rows_] = fine & (np.abs(change).max(axis=1) >= 1e-3)
    final = stacks.predicted(theta)
    ok &= np.where(mask, np.isfinite(final), True).all(axis=1)
    jacobian = _jacobian(stacks, theta, final)
    jacobian = np.where(mask[..., None] & np.isfinite(jacobian), jacobian, 0.0)
    normal = np.einsum("nri,nrj->nij", jacobian, jacobian) + np.diag(_RIDGE)[None]
    normal[~ok] = np.eye(4)
    tied = np.linalg.inv(normal)[:, 3, 3] * stacks.mask.sum(axis=1)
    ok &= tied <= TIED_MAX
    squared = np.where(mask, (seen - np.where(np.isfinite(final), final, 0.0)) ** 2, 0.0)
    rms = np.sqrt(squared.sum(axis=1) / np.maximum(mask.sum(axis=1), 1))
    return theta, rms, ok


def _jacobian(stacks: _Stacks, theta: FloatArray, base: FloatArray) -> FloatArray:
    """The edges' derivatives by the unknowns (n, 2 lines, 4): shift and turn by
    small steps; the hidden board moves the far edges only, one for one."""
    lines = stacks.mask.shape[1]
    steps = np.eye(4) * 0.05
    out = np.zeros((*base.shape, 4))
    for j in range(3):
        out[..., j] = (stacks.predicted(theta + steps[j]) - base) / 0.05
    out[:, lines:, 3] = 1.0
    return out


def _placement_residuals(stacks: _Stacks, theta: FloatArray) -> FloatArray:
    """Per line: how far its two edges are from the fit (mm, the larger; NaN for the
    lines not used)."""
    predicted = stacks.predicted(theta)
    lines = stacks.mask.shape[1]
    off = np.maximum(
        np.abs(stacks.near - predicted[:, :lines]), np.abs(stacks.far - predicted[:, lines:])
    )
    return np.where(stacks.mask, off, np.nan)


def fit_measures(stacks: _Stacks) -> list[Measure | None]:
    """Each stack's :class:`Measure`: where the stack lies (off its spot, turned) and
    the board it hides beyond its footprint, fitted together over its lines' edges (a
    line far off the others left out); ``None`` when too few lines show both edges."""
    n = len(stacks.mask)
    out: list[Measure | None] = [None] * n
    enough = stacks.mask.sum(axis=1) >= MIN_LINES
    if not enough.any():
        return out
    stacks = stacks.take(enough)
    theta, rms, ok = _fit_placements(stacks)
    mask = stacks.mask.copy()
    off = _placement_residuals(stacks, theta)
    with np.errstate(invalid="ignore"):
        worst = np.nanargmax(np.where(mask, off, -np.inf), axis=1)
        typical = _masked_median(np.where(mask, off, 0.0), mask)
    rows_ = np.arange(len(mask))
    drop = ok & (mask.sum(axis=1) > MIN_LINES) & (off[rows_, worst] > 3.0 * (typical + 0.1))
    if drop.any():
        mask[rows_[drop], worst[drop]] = False
        theta2, rms2, ok2 = _fit_placements(stacks.take(drop, mask))
        theta[drop], rms[drop], ok[drop] = theta2, rms2, ok2
    for i, index in enumerate(np.flatnonzero(enough)):
        if ok[i]:
            out[index] = Measure(float(theta[i, 3]), float(rms[i]), int(mask[i].sum()))
    return out


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
        out[i] = (
            h * s * x / shrink,
            -((h * s) ** 2) / shrink,
            h * s * x,
            -((h * s) ** 2),
            h * s,
            h - 1,
        )
    return out


# --- the fitted model ------------------------------------------------------------------------


@dataclass(frozen=True)
class HeightModel:
    """The conditional logit's weights over :data:`FEATURES`, the temperature that
    calibrates its chances and the chance a height is read at, with how they were made."""

    game: str
    weights: FloatArray
    provenance: dict[str, Any]
    temperature: float = 1.0
    """The logits are divided by it (fitted on other boards than the weights)."""
    read_at: float = SHOWN_AT
    """A height is read at this chance or more, left unsure below."""

    def probabilities(self, rows_: FloatArray) -> FloatArray:
        """The calibrated chance of each height from its feature rows."""
        return probabilities(self.weights / self.temperature, rows_)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "game": self.game,
            "features": list(FEATURES),
            "weights": [round(float(x), 6) for x in self.weights],
            "temperature": round(float(self.temperature), 4),
            "read_at": round(float(self.read_at), 4),
            "provenance": self.provenance,
        }

    @classmethod
    def from_json(cls, data: Any, source: str) -> HeightModel:
        try:
            if data["version"] != FORMAT_VERSION or list(data["features"]) != list(FEATURES):
                raise AppearanceError(f"{source} was fitted for another height reader")
            weights = np.array([float(x) for x in data["weights"]])
            if weights.shape != (len(FEATURES),) or not np.isfinite(weights).all():
                raise AppearanceError(f"{source}: the weights are malformed")
            temperature, read_at = float(data["temperature"]), float(data["read_at"])
            if not (temperature > 0.0 and 0.5 <= read_at <= 1.0):
                raise AppearanceError(
                    f"{source}: the temperature or the chance a height is read at is out of range"
                )
            return cls(
                str(data["game"]), weights, dict(data.get("provenance", {})), temperature, read_at
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, AppearanceError):
                raise
            raise AppearanceError(f"{source} cannot be used: {error}") from None


def fitted_path(game: str) -> Path:
    return (
        Path(str(resources.files("vision").joinpath("fitted"))) / f"appearance-heights-{game}.json"
    )


_SHIPPED: dict[str, HeightModel] = {}
"""The shipped weights of each game, read once."""


def load_fitted(game: str, path: str | Path | None = None) -> HeightModel:
    """The shipped weights (or those at ``path``). Raises ``AppearanceError``."""
    if path is None and game in _SHIPPED:
        return _SHIPPED[game]
    where = Path(path) if path is not None else fitted_path(game)
    try:
        data = read_json_file(where, "fitted height reader")
    except ValueError as error:
        raise AppearanceError(str(error)) from None
    model = HeightModel.from_json(data, str(where))
    if path is None:
        _SHIPPED[game] = model
    return model


@dataclass(frozen=True)
class Example:
    rows: FloatArray
    truth: int
    step_px: float = math.nan
    """One tile's step in picture pixels (whether the view can show the height)."""


RIDGE = 1.0
TEMPERATURES = tuple(round(1.0 + 0.05 * k, 2) for k in range(41))
"""The temperatures tried (from 1: the chances are never made surer than the fit's)."""
READ_CHANCES = tuple(round(0.6 + 0.05 * k, 2) for k in range(8))
"""The chances a height may be read at (the lowest that does is chosen)."""
READ_RIGHT = 0.975
"""The share of held-out heights read that must be right at the chance chosen."""


def fit(
    game: str,
    data: Sequence[Example],
    provenance: Mapping[str, Any],
    l2: float = RIDGE,
    iterations: int = 50,
) -> HeightModel:
    """The weights by the appearance reader's fit (:func:`vision.appearance_core.fit_weights`:
    Newton's method on the penalised likelihood)."""
    return HeightModel(game, fit_weights(data, l2, iterations), dict(provenance))


def best_chances(
    weights: FloatArray, temperature: float, heights: Sequence[int], step_px: float
) -> FloatArray:
    """For each height, the surest the model can be of it when one tile's step spans
    ``step_px`` pixels and the lines agree perfectly (the board hidden tried from none
    to a tile more than the tallest stack)."""
    top = max(heights) + 1
    count = np.array(heights, dtype=np.float64)
    x, h = np.broadcast_arrays(
        np.linspace(0.0, top, 4 * top + 1)[:, None] * step_px, count[None, :]
    )
    steps = h * step_px  # (tries, heights): the board each height hides, pixels
    grid = np.stack(
        [steps * x, -(steps**2), steps * x, -(steps**2), steps, h - 1.0], axis=-1
    )  # the rows of :func:`rows` with no misfit
    logits = grid @ (weights / temperature)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return np.asarray(p.max(axis=0))


def calibrate(model: HeightModel, held: Sequence[Example], heights: Sequence[int]) -> HeightModel:
    """``model`` with its temperature and the chance heights are read at chosen on
    ``held`` (boards the weights were not fitted on): the lowest temperature (from
    :data:`TEMPERATURES`) at which no held-out height is read wrong at 0.9 or more,
    then the lowest chance (from :data:`READ_CHANCES`) at which the held-out heights
    read are right ``READ_RIGHT`` of the time or more. Only heights the view can show
    (see :data:`TELL_AT`) count."""

    def read(temperature: float) -> list[tuple[float, bool]]:
        out = []
        for example in held:
            if (best_chances(model.weights, temperature, heights, example.step_px) < TELL_AT).any():
                continue
            p = probabilities(model.weights / temperature, example.rows)
            out.append((float(p.max()), int(np.argmax(p)) == example.truth))
        return out

    temperature = TEMPERATURES[-1]
    for t in TEMPERATURES:
        if all(right for chance, right in read(t) if chance >= 0.9):
            temperature = t
            break
    seen = read(temperature)
    read_at = READ_CHANCES[-1]
    for chance in READ_CHANCES:
        taken = [right for p, right in seen if p >= chance]
        if taken and sum(taken) >= READ_RIGHT * len(taken):
            read_at = chance
            break
    return HeightModel(model.game, model.weights, model.provenance, temperature, read_at)


# --- the reader ------------------------------------------------------------------------------


@dataclass
class HeightReading:
    """Each measured height's probabilities, the heights read, and why the others
    were not (and which of those the view cannot show)."""

    readings: dict[str, Reading]
    probabilities: dict[str, dict[str, float]]
    abstained: dict[str, str]
    unseen: set[str]


def _colour_of(value: Reading | Value | None, known: Mapping[Value, FloatArray]) -> FloatArray:
    """The set's colour of the tile ``value`` reads, NaN when not known."""
    if isinstance(value, Reading) and value.value is not None and value.value in known:
        return np.asarray(known[value.value], dtype=np.float64)
    return np.full(3, np.nan)


@dataclass(frozen=True)
class _SpaceView:
    """What one space's lines need in one view (geometry and the bare board only)."""

    lines: StackLines
    windows: Windows
    pixels: NDArray[np.float32]  # (lines, samples, 2)
    ground: FloatArray  # (lines, samples, 2) board points
    bare: FloatArray  # (lines, samples, 3): the bare board where looked at
    shown: NDArray[np.bool_]  # (lines,): the whole line is inside the picture
    neighbours: tuple[str, ...]
    index: NDArray[np.intp]  # (neighbours,): each one's place in the model's elements
    tiles: NDArray[np.bool_]  # (neighbours,): the neighbour is a space (holds tiles)
    spoils: NDArray[np.bool_]  # (2, neighbours, lines): the lines' near and far ends
    """each neighbour's piece can lie on or hide."""


class HeightReader:
    """Reads the stack heights of a game's spaces (elements ``<space>`` +
    ``HEIGHT_SUFFIX``) from a frame, its view and the frame's light."""

    def __init__(
        self,
        model: BoardModel,
        appearance: SetAppearance,
        schema: TableSchema,
        fitted: HeightModel | None = None,
    ) -> None:
        self.model = model
        self.appearance = appearance
        self.schema = schema
        self.fitted = fitted or load_fitted(appearance.game)
        self.spaces = tuple(
            e.name for e in model.of_kind("space") if e.name + HEIGHT_SUFFIX in schema.elements
        )
        self.heights = tuple(
            sorted(
                {
                    int(v)
                    for s in self.spaces
                    for v in schema.values[s + HEIGHT_SUFFIX]
                    if isinstance(v, int) and not isinstance(v, bool) and v > 0
                }
            )
        ) or (1,)
        self._plan: tuple[BoardView, HeightPlan | None] | None = None
        # per space, for the current plan: whether the view can tell its heights, and
        # the lines each neighbour's piece would spoil (geometry only: kept per view)
        self._can_tell: dict[str, bool] = {}
        self._views: dict[str, _SpaceView] = {}
        self._pieces: (
            tuple[list[str], list[str], FloatArray, FloatArray, FloatArray, FloatArray] | None
        ) = None
        self._elements = tuple(model.elements)
        self._element_index = {name: i for i, name in enumerate(self._elements)}
        colours = appearance.colours.get("space", {})
        self._colour_index = {value: i for i, value in enumerate(colours)}
        self._colour_table = np.array([colours[v] for v in colours], dtype=np.float64).reshape(
            len(colours), 3
        )

    def plan(self, view: BoardView) -> HeightPlan | None:
        """The sample lines of ``view``, made again only when the view has moved."""
        if self._plan is None or not same_view(self._plan[0], view, self.model.size_mm):
            self._plan = (view, plan(self.model, view, self.heights))
            self._can_tell = {}
            self._views = {}
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
        sure of it to ``TELL_AT``."""
        return bool(
            (
                best_chances(
                    self.fitted.weights,
                    self.fitted.temperature,
                    self.heights,
                    lines.step_mm * lines.px_per_mm,
                )
                >= TELL_AT
            ).all()
        )

    def read(
        self,
        frame: NDArray[np.uint8],
        view: BoardView,
        light: LightField,
        below: Mapping[str, Reading | Value | None],
        covered: Sequence[str] | frozenset[str] = (),
        hidden: Sequence[str] | frozenset[str] = (),
    ) -> HeightReading:
        """The heights of the spaces whose tile ``below`` gives (a colour read with
        its confidence; ``"empty"`` gives height 0). ``covered``: elements a hand is
        known to cover; ``hidden``: spaces the reader could not see (something else on
        them, out of the picture), whose heights it cannot see either: both not shown."""
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
            elif space in hidden:
                out.abstained[name] = SPACE_HIDDEN
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
            if not self.plausible(result, lines):
                out.abstained[name] = IMPLAUSIBLE
                continue
            p = self.fitted.probabilities(rows(result, lines, self.heights))
            out.probabilities[name] = {
                str(h): round(float(x), 4) for h, x in zip(self.heights, p, strict=True)
            }
            best = int(np.argmax(p))
            if p[best] < self.fitted.read_at:
                out.abstained[name] = UNSURE
            else:
                out.readings[name] = Reading(self.heights[best], float(p[best]))
        return out

    def plausible(self, measured: Measure, lines: StackLines) -> bool:
        """Whether the board ``measured`` hidden fits some height (see ``PLAUSIBLE``)."""
        hidden = measured.excess_mm / max(lines.step_mm, 1e-9)
        return PLAUSIBLE[0] <= hidden <= max(self.heights) + PLAUSIBLE[1]

    def measure(
        self,
        frame: NDArray[np.uint8],
        view: BoardView,
        light: LightField,
        below: Mapping[str, Reading | Value | None],
        spaces: Sequence[str],
    ) -> dict[str, Measure | None]:
        """What the lines of each of ``spaces`` show (``None``: too few lines show
        both edges against bare board), whatever the view's slant. Only the samples
        of the lines no other piece can spoil are looked at, all stacks at once."""
        plan_ = self.plan(view)
        if plan_ is None:
            return dict.fromkeys(spaces)
        views = self._views_of(plan_, spaces)
        states = self._states(below)
        ends = [
            self._spoiled(v, states, int(states[1][self._element_index[v.lines.space]]))
            for v in views
        ]
        usable = [v.shown & ~near & ~far for v, (near, far, _) in zip(views, ends, strict=True)]
        looked = [v.windows.used & use[:, None] for v, use in zip(views, usable, strict=True)]
        chosen = [v for v, use in zip(views, usable, strict=True) if use.any()]
        out: dict[str, Measure | None] = dict.fromkeys(spaces)
        if not chosen:
            return out
        lines_of = [np.flatnonzero(use) for use in usable if use.any()]
        seen = [m[use] for m, use in zip(looked, usable, strict=True) if use.any()]
        pixels = np.concatenate(
            [v.pixels[k][m] for v, k, m in zip(chosen, lines_of, seen, strict=True)]
        )
        ground = np.concatenate(
            [v.ground[k][m] for v, k, m in zip(chosen, lines_of, seen, strict=True)]
        )
        bare = np.concatenate(
            [v.bare[k][m] for v, k, m in zip(chosen, lines_of, seen, strict=True)]
        )
        d = np.zeros((sum(len(k) for k in lines_of), plan_.lines[0].positions.shape[0]))
        lit = np.zeros((*d.shape, 3))
        parts = [
            self._to_bare(
                frame, pixels[k : k + _CHUNK], ground[k : k + _CHUNK], bare[k : k + _CHUNK], light
            )
            for k in range(0, len(pixels), _CHUNK)
        ]
        d[np.concatenate(seen)] = np.concatenate([part[0] for part in parts])
        lit[np.concatenate(seen)] = np.concatenate([part[1] for part in parts])
        candidates = np.concatenate(
            [
                ends[i][2][k]
                for i, k in zip(
                    [i for i, use in enumerate(usable) if use.any()], lines_of, strict=True
                )
            ]
        )
        where = Windows(
            *(
                np.concatenate(
                    [getattr(v.windows, part)[:, k] for v, k in zip(chosen, lines_of, strict=True)],
                    axis=1,
                )
                for part in ("outer", "inner", "walk", "beyond")
            )
        )
        positions = np.concatenate(
            [
                np.broadcast_to(v.lines.positions, (len(k), d.shape[1]))
                for v, k in zip(chosen, lines_of, strict=True)
            ]
        )
        known = self.appearance.colours.get("space", {})
        own = np.concatenate(
            [
                np.broadcast_to(_colour_of(below.get(v.lines.space), known), (len(k), 3))
                for v, k in zip(chosen, lines_of, strict=True)
            ]
        )
        found = edges(d, positions, where, lit, candidates, own)
        count = LINES
        near, far = np.full((len(chosen), count), np.nan), np.full((len(chosen), count), np.nan)
        start = 0
        for i, k in enumerate(lines_of):
            near[i, k], far[i, k] = (
                found[start : start + len(k), 0],
                found[start : start + len(k), 1],
            )
            start += len(k)
        stacks = _Stacks(
            np.array([v.lines.centre for v in chosen]),
            np.array([v.lines.half_mm for v in chosen]),
            np.array([v.lines.angle_deg for v in chosen]),
            np.array([v.lines.along for v in chosen]),
            np.array([v.lines.offsets for v in chosen]),
            np.array([v.lines.chords for v in chosen]),
            near,
            far,
            np.isfinite(near) & np.isfinite(far),
        )
        for v, result in zip(chosen, fit_measures(stacks), strict=True):
            out[v.lines.space] = result
        return out

    def _views_of(self, plan_: HeightPlan, spaces: Sequence[str]) -> list[_SpaceView]:
        """What each space's lines need in the current view, worked out once per space
        (those not yet known together: their points in the picture, the bare board)."""
        index = {s: i for i, s in enumerate(self.spaces)}
        missing = [plan_.lines[index[s]] for s in dict.fromkeys(spaces) if s not in self._views]
        if missing:
            assert self._plan is not None
            view = self._plan[0]
            shape = missing[0].points_mm.shape[:2]
            reach = max(self.heights)
            where = [
                windows(lines, reach * lines.step_mm, plan_.outside_mm, plan_.inside_mm)
                for lines in missing
            ]
            pixels = view.to_image(
                np.concatenate([lines.points_mm.reshape(-1, 2) for lines in missing])
            ).astype(np.float32)
            inside = in_picture(pixels, view.image_size).reshape(len(missing), *shape)
            used = np.stack([part.used for part in where])
            points = np.stack([lines.points_mm for lines in missing])
            bare = np.zeros((*used.shape, 3))
            looked = points[used]
            bare[used] = (
                np.concatenate(
                    [
                        self.appearance.bare_log(looked[k : k + _CHUNK])
                        for k in range(0, len(looked), _CHUNK)
                    ]
                )
                if len(looked)
                else np.zeros((0, 3))
            )
            pixels = pixels.reshape(len(missing), *shape, 2)
            for k, (lines, part) in enumerate(zip(missing, where, strict=True)):
                neighbours = self._near(lines.space, lines, view, part)
                self._views[lines.space] = _SpaceView(
                    lines,
                    part,
                    pixels[k],
                    lines.points_mm,
                    bare[k],
                    inside[k].all(axis=1),
                    tuple(name for name, _, _ in neighbours),
                    np.array(
                        [self._element_index[name] for name, _, _ in neighbours], dtype=np.intp
                    ),
                    np.array(
                        [self.model.elements[name].kind == "space" for name, _, _ in neighbours],
                        dtype=bool,
                    ),
                    np.array([spoiled for _, _, spoiled in neighbours], dtype=bool)
                    .reshape(len(neighbours), 2, shape[0])
                    .transpose(1, 0, 2),
                )
        return [self._views[s] for s in spaces]

    def _to_bare(
        self,
        frame: NDArray[np.uint8],
        pixels: NDArray[np.float32],
        ground: FloatArray,
        bare: FloatArray,
        light: LightField,
    ) -> tuple[FloatArray, FloatArray]:
        """How far each sample is from the bare board (``bare``, at ``ground``) under
        the frame's light, and its colour with the light taken off (log colour)."""
        seen = log_colour(linear(np.asarray(sample(frame, pixels), dtype=np.uint8)))
        lit = seen - light.at(ground)
        return distance(lit, bare), lit

    def _states(self, below: Mapping[str, Any]) -> tuple[NDArray[np.bool_], NDArray[np.intp]]:
        """Per element of the board (the model's order): whether a piece may stand
        there (anything not read as bare), and the index of the tile colour read there
        in ``self._colours`` (-1 when none is read)."""
        there = np.ones(len(self._elements), dtype=bool)
        code = np.full(len(self._elements), -1, dtype=np.intp)
        for i, name in enumerate(self._elements):
            value = below.get(name)
            if isinstance(value, Reading) and value.value is not None:
                there[i] = value.value not in _NOTHING
                code[i] = self._colour_index.get(value.value, -1)
        return there, code

    def _spoiled(
        self, space: _SpaceView, states: tuple[NDArray[np.bool_], NDArray[np.intp]], own: int
    ) -> tuple[NDArray[np.bool_], NDArray[np.bool_], FloatArray]:
        """Per line: whether another piece that may stand near (``states``, see
        :meth:`_states`) can lie on, or hide, the board the line's near end looks at, as
        high as it may be; the same for its far end, but for neighbouring tiles read as
        another colour than the stack's (``own``; a far edge is told against them, see
        :func:`edges`); and those tiles' colours (lines, CANDIDATES, 3), NaN where
        fewer."""
        lines = space.spoils.shape[2]
        colours = np.full((lines, CANDIDATES, 3), np.nan)
        if not space.neighbours:
            return np.zeros(lines, bool), np.zeros(lines, bool), colours
        there, code = states[0][space.index], states[1][space.index]
        told = there & space.tiles & (code >= 0) & (code != own)
        near = space.spoils[0][there].any(axis=0)
        far = space.spoils[1][there & ~told].any(axis=0)
        runs = space.spoils[1] & told[:, None]  # (neighbours, lines)
        if runs.any():
            order = np.argsort(~runs, axis=0, kind="stable")[:CANDIDATES]
            valid = np.take_along_axis(runs, order, axis=0)
            found = np.where(valid[..., None], self._colour_table[code[order]], np.nan)
            colours[:, : len(order)] = found.transpose(1, 0, 2)
        return np.asarray(near), np.asarray(far), colours

    def _near(
        self, space: str, lines: StackLines, view: BoardView, where: Windows
    ) -> list[tuple[str, str, NDArray[np.bool_]]]:
        """The elements near ``space`` whose piece, standing there as high as it may,
        can lie on or hide some of its lines, each with the lines whose near and far
        ends it spoils (2, lines)."""
        camera = view.camera_mm()
        assert camera is not None
        if self._pieces is None:
            self._pieces = self._piece_shapes()
        names, kinds, centres, halves, highs, axes = self._pieces
        centre = np.array(self.model.elements[space].centre_mm)
        looked = np.stack([where.walk[0], where.walk[1] | where.beyond[1]])
        any_looked = looked.any(axis=0)
        points = lines.points_mm[any_looked]  # (points, 2): only where the lines look
        near: list[tuple[str, str, NDArray[np.bool_]]] = []
        close = np.flatnonzero(
            (np.linalg.norm(centres - centre, axis=1) <= 4 * self.model.pieces["tile_mm"])
            & (np.array(names) != space)
        )
        if not len(close):
            return near
        lifts = np.linspace(0.0, 1.0, 5)
        away = centres[close] - camera[:2]
        reach = np.linalg.norm(away, axis=1)
        shift = highs[close] * reach / np.maximum(camera[2] - highs[close], 1e-6)
        u = away / np.maximum(reach, 1e-6)[:, None]
        # each neighbour's piece from its foot to its top (lifts), in its own axes
        lifted = (lifts[None, :] * shift[:, None])[..., None]  # (neighbours, lifts, 1)
        dx = (
            points[None, None, :, 0]
            - centres[close, 0][:, None, None]
            - lifted * u[:, 0][:, None, None]
        )
        dy = (
            points[None, None, :, 1]
            - centres[close, 1][:, None, None]
            - lifted * u[:, 1][:, None, None]
        )
        a = axes[close][:, None, None]  # (neighbours, 1, 1, 2, 2)
        reach_ = halves[close] + PLACEMENT_MM
        under = (
            (np.abs(dx * a[..., 0, 0] + dy * a[..., 0, 1]) <= reach_[:, 0, None, None])
            & (np.abs(dx * a[..., 1, 0] + dy * a[..., 1, 1]) <= reach_[:, 1, None, None])
        ).any(axis=1)  # (neighbours, points)
        hit = np.zeros((len(close), *any_looked.shape), dtype=bool)
        hit[:, any_looked] = under
        spoiled = (hit[:, None] & looked[None]).any(axis=3)  # (neighbours, 2, lines)
        for k in np.flatnonzero(spoiled.any(axis=(1, 2))):
            near.append((names[close[k]], kinds[close[k]], spoiled[k]))
        return near

    def _piece_shapes(
        self,
    ) -> tuple[list[str], list[str], FloatArray, FloatArray, FloatArray, FloatArray]:
        """Every element a piece can stand on near a stack (spaces, bridges, stones):
        names, kinds, centres, half sizes, tallest heights and axes."""
        tile, thick = self.model.pieces["tile_mm"], self.model.pieces["tile_thickness_mm"]
        names, kinds, centres, halves, highs, axes = [], [], [], [], [], []
        for other in self.model.elements.values():
            if other.kind not in ("space", "bridge", "stone"):
                continue
            names.append(other.name)
            kinds.append(other.kind)
            centres.append(other.centre_mm)
            if other.kind == "space":
                halves.append((tile / 2, tile / 2))
                highs.append(max(self.heights) * thick)
            else:
                halves.append(tuple(np.array(other.size_mm) / 2))
                highs.append(self.model.pieces[f"{other.kind}_height_mm"])
            a = math.radians(other.angle_deg)
            axes.append([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        return (
            names,
            kinds,
            np.array(centres, dtype=np.float64),
            np.array(halves),
            np.array(highs, dtype=np.float64),
            np.array(axes),
        )


_READERS: weakref.WeakKeyDictionary[Any, HeightReader | None] = weakref.WeakKeyDictionary()


def reader_for(reader: Any) -> HeightReader | None:
    """The height reader going with an appearance reader (made once), or ``None`` when
    its game has no stacks on spaces."""
    if reader not in _READERS:
        spaces = [
            e.name
            for e in reader.model.of_kind("space")
            if e.name + HEIGHT_SUFFIX in reader.schema.elements
        ]
        # the pieces as the player knows them: the game's nominal sizes, never a
        # board's own (its tiles are made to a tolerance of a few tenths of a mm)
        nominal = replace(reader.model, pieces=load_model(reader.model.game).pieces)
        _READERS[reader] = (
            HeightReader(nominal, reader.appearance, reader.schema) if spaces else None
        )
    return _READERS[reader]
