"""Stack heights of Shangri-La: one tile or two, from how much board a stack covers.

A stack of ``h`` tiles of thickness ``t`` covers, seen from an elevation ``e``,
``tile + h * t * cot(e)`` mm of board along the direction away from the camera: its
top face is lifted and its front face shows. :func:`stack_extents` measures that
length on sample lines across each stack (the lines are planned by
:meth:`vision.read.BoardReader._height_plan`); :func:`stack_height` turns it into a
height, or a reason not to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from vision.read_colour import FloatArray, Kind, colour_distance
from vision.read_config import ReadConfig

# Why a height is not read when too few sample lines show both ends of the stack
# against bare board.
EDGE_HIDDEN = "an edge of the stack is hidden (a neighbour or a hand)"


@dataclass
class HeightPlan:
    spaces: list[int]  # index into the reader's element list
    slice: slice
    lines: int
    steps: FloatArray  # (M,) positions along the line, mm from the space's centre
    step_mm: FloatArray  # per space: t * cot(elevation)
    side_px: FloatArray  # per space: how many pixels a tile's side spans in the picture
    in_line: list[list[int]] = field(default_factory=list)
    """Per space: the neighbouring spaces (indices into the reader's element list)
    in front of it or behind it along its lines, whose stacks can hide its edges."""


def stack_height(
    extent: float, step: float, tile: float, c: ReadConfig
) -> tuple[int | None, str, float]:
    """One tile or two from the board length a stack covers: (height, "", sureness),
    or (None, why, 0)."""
    if math.isnan(extent):
        return None, EDGE_HIDDEN, 0.0
    rise = c.height_edge_gain * step
    one = tile - c.height_edge_bias_mm + rise
    two = one + rise
    threshold = (one + two) / 2
    nearest = one if extent < threshold else two
    if abs(extent - nearest) > c.height_tolerance * rise + 0.5:
        return (
            None,
            (f"the stack covers {extent:.1f} mm, neither {one:.1f} (one tile) nor {two:.1f} (two)"),
            0.0,
        )
    sureness = min(1.0, abs(extent - threshold) / (rise / 2))
    if sureness < c.height_min_sureness:
        return None, "one tile or two: too close to tell", 0.0
    return (1 if nearest == one else 2), "", 0.5 + 0.5 * sureness


def stack_extents(
    features: FloatArray,
    kind: Kind,
    colour_class: NDArray[np.intp],
    surroundings: FloatArray,
    c: ReadConfig,
    heights: HeightPlan,
    step_mm: FloatArray,
) -> FloatArray:
    """The length of board each tile stack covers along its sample lines (mm), NaN
    when too few lines show both ends against bare board. ``features``: (S, lines, M,
    3).

    The near end is found walking out from inside the tile's front (below its glyph);
    the far end is the last tile-coloured sample before the farthest a two-tile stack
    can reach, so the glyph in the middle of the top never counts."""
    steps = heights.steps
    s, lines, m = features.shape[:3]
    tile = -steps[0] - 3.0  # the plan's lines start 3 mm before half a tile
    d_all = colour_distance(features, kind.prototypes, 0.1)  # (S, L, M, P)
    mine = kind.owner[None, :] == colour_class[:, None]  # (S, P)
    d_tile = np.where(mine[:, None, None, :], d_all, np.inf).min(axis=3)
    d_board = colour_distance(features, surroundings, 0.1).min(axis=3)
    is_tile = d_tile < d_board
    is_board = ~is_tile & (d_board < c.max_distance)
    gap = max(1, round(c.height_gap_mm / c.height_step_mm))
    index = np.arange(m)
    near_start = int(np.searchsorted(steps, -tile + 2.5))
    far_limit = np.minimum(np.searchsorted(steps, tile + 2 * step_mm + 1.5), m - 2)
    limit = far_limit[:, None, None]
    near_top = np.where(~is_tile & (index <= near_start), index, -1).max(axis=2)
    far_last = np.where(is_tile & (index <= limit), index, -1).max(axis=2)
    board_sum = np.concatenate([np.zeros((s, lines, 1)), np.cumsum(is_board, axis=2)], axis=2)

    def board_share(lo: NDArray[np.intp], hi: NDArray[np.intp]) -> FloatArray:
        lo, hi = np.clip(lo, 0, m), np.clip(hi, 0, m)
        total = (
            np.take_along_axis(board_sum, hi[..., None], 2)
            - np.take_along_axis(board_sum, lo[..., None], 2)
        )[..., 0]
        return np.asarray(total / np.maximum(hi - lo, 1))

    beyond = np.take_along_axis(is_tile, (far_limit[:, None, None] + 1).repeat(lines, 1), 2)[..., 0]
    valid = (
        is_tile[:, :, near_start]
        & ~beyond
        & (near_top >= 0)
        & (far_last > near_start)
        & (board_share(near_top - gap + 1, near_top + 1) >= 0.5)
        & (board_share(far_last + 1, far_last + 1 + gap) >= 0.5)
        & (far_last + 1 < m)
    )
    near = (steps[np.clip(near_top, 0, m - 2)] + steps[np.clip(near_top + 1, 0, m - 1)]) / 2
    far = (steps[np.clip(far_last, 0, m - 1)] + steps[np.clip(far_last + 1, 0, m - 1)]) / 2
    extent = np.where(valid, far - near, np.nan)
    enough = valid.sum(axis=1) >= max(2, (lines + 1) // 2)
    out = np.full(s, np.nan)
    if enough.any():
        out[enough] = np.nanmedian(extent[enough], axis=1)
    return out
