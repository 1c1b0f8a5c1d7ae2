"""Whether a square looks, against the bare board right around it and against its own
bare colour, as its reading would have it.

The reader takes the frame's light off by a strength per place, fitted over the whole
board (:func:`vision.appearance.fit_light`). Glare does not scale the light, it adds to
it, the same on a dark tile as on the pale board around it; and a shadow's sharp edge
is smoothed away by that fit. Under a glare spot a dark tile can look just as the
bare square looked at calibration, and in a shadow a light tile can: the reader then
says *empty*, and is sure of it. The other way, an empty square can look like a tile.

The board right around the square tells. A square's own margin (the band inside its
edge that a tile, smaller than the square, leaves bare) is under the same light as the
square. Both are compared with the calibration's empty board, the frame's fitted light
taken off: when the square is truly bare, what is left over (glare, a shadow, a lamp
the fit did not follow) is the same on the square and on its margin; when a tile
stands there, the tile's colour shows as a difference between the two. A square read
as bare is therefore not taken as sure when it differs from its margin either

- in brightness by more than ``MISMATCH`` (log light), whichever way: something the
  light does not explain stands there; or
- toward one of the set's tile colours by more than ``TOWARD_TILE`` of the way
  calibration saw from this bare square to that tile (brightness and colour together,
  weighed as the reader weighs them): a tile whose colour glare or shade has brought
  close to the bare square still shows as a step of its own colour against its margin.

Nor is it taken as sure when its own colour, the frame's light taken off, goes more
than ``SQUARE_TOWARD_TILE`` of the way from its bare colour toward a tile's colour (as
calibration saw both). Where a tile's colour lies close to the bare square's (a light
tile on a light square), a light fitted a little wrong (a hand over the board bends
the fit), glare or shade bring the tile within reach of the bare colour, and the
square can then look against its margin just as a bare one does. The way left to the
tile's colour is then all the evidence there is, and a square that has gone a good
part of it is not sure to be bare.

A square read as a tile is not taken as sure when it goes less than ``TILE_STEP`` of
the way toward that tile's colour: it looks like its own bare margin.

The read value's probability is then lowered to ``DOUBTFUL`` (still read, but under
the line where the referee takes a reading as sure). Two kinds of doubt say more than
that, and the reading follows them:

- a square read as bare whose margin and own colour both go toward the same tile's
  colour (its margin more than ``TOWARD_TILE`` of the way; its own colour more than
  ``SQUARE_TOWARD_TILE``, or more than ``OWN_WITH_BRIGHTNESS`` where its brightness
  also differs from its margin's by more than ``MISMATCH``) is read as that tile, at
  ``DOUBTFUL``: two signs of the tile that do not come from the same points (a dark
  tile under glare, a light tile on a light square);
- a square read as a tile that looks like its own bare margin is left *unsure*, torn
  between that tile and bare, where the picture has a hand over the board (a hand
  bends the light fitted over the board, and an empty square near it looks like a
  light tile by its own colour) or where the tile was read at ``DOUBTFUL`` or less.

Every other element is read as before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vision.appearance_core import (
    BRIGHTNESS_WEIGHT,
    SHOWN_AT,
    LightField,
    SetAppearance,
    linear,
    log_colour,
    sample,
)
from vision.models import BoardModel
from vision.view import BoardView, in_picture

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

CHECKED_KINDS = ("square",)
"""Kinds of element whose bare readings are checked against their margin (Shendao's
squares: a tile smaller than its square, on a board printed around it)."""
MARGIN_FROM = 0.9
"""The margin looked at: from this share of the square's half side to its edge (the
tile's half side is 0.84 of it on every board made, and a tile is placed up to a
millimetre off)."""
MARGIN_STEP_MM = 1.0
"""Spacing of the margin's points (about a camera pixel at the smallest pictures)."""
MISMATCH = 0.25
"""A square read as bare is doubted when its brightness, against the calibration with
the frame's light taken off, differs from its margin's by more than this (log light).
Chosen on the training worlds (the first 48 setups at the hardest level) and the
validation worlds: of 0.2, 0.25 and 0.3, the largest that leaves under 0.05% of the
elements read wrong at 0.9 or more on both (docs/vision-bench.md)."""
TOWARD_TILE = 0.2
"""A square read as bare is doubted when its difference from its margin goes more than
this share of the way from its bare colour toward a tile's colour (both as calibration
saw them). Chosen with ``TILE_STEP`` on the training worlds (seeds 1 to 120 at 1280x720
and 1 to 48 at 1920x1080, the hardest level) and the validation worlds (seeds 1000 to
1047), ``MISMATCH`` as it was: of 0.15, 0.2, 0.25 and 0.3, the last step down that
spares a reading wrong at 0.9 or more for fewer than 20 right ones taken under 0.9 (13
from 0.25 to 0.2, 46 from 0.2 to 0.15; docs/vision-bench.md)."""
TILE_STEP = 0.1
"""A square read as a tile is doubted when its difference from its margin goes less
than this share of the way from its bare colour toward that tile's colour: an empty
square that the frame's light makes look like a tile still looks like its own bare
margin. Chosen with ``TOWARD_TILE``, the same way, of 0.05, 0.1, 0.15 and 0.2 (5 right
readings a wrong one spared from 0.05 to 0.1, 32 from 0.1 to 0.15)."""
SQUARE_TOWARD_TILE = 0.25
"""A square read as bare is doubted when its own colour, the frame's light taken off,
goes more than this share of the way from its bare colour toward a tile's colour (both
as calibration saw them). Chosen on the training worlds (seeds 1 to 120, the hardest
level, 1280x720) and the validation worlds (seeds 1000 to 1047, the same), the margin
checks as they were: of 0.3, 0.25 and 0.2, the last step down that spares a reading
wrong at 0.9 or more for fewer than 20 right ones taken under 0.9 (7 from none to 0.3,
16 from 0.3 to 0.25, 50 from 0.25 to 0.2; docs/vision-bench.md)."""
METRIC = np.array([BRIGHTNESS_WEIGHT**2, 1.0, 1.0])
"""How the log colour's three parts weigh in a projection (as in the reader's
distance: a change of brightness counts half as much as a change of colour)."""
OWN_WITH_BRIGHTNESS = 0.1
"""A square read as bare whose margin goes more than ``TOWARD_TILE`` of the way toward a
tile's colour and whose brightness differs from its margin's by more than ``MISMATCH``
is read as that tile when its own colour, too, goes more than this share of the way to
it (more than ``SQUARE_TOWARD_TILE`` without the brightness). Chosen on the training
worlds (seeds 1 to 120 at 1280x720 and 1 to 48 at 1920x1080, the hardest level) and
the validation worlds (seeds 1000 to 1047 at both sizes): of 0.25, 0.2, 0.15, 0.1,
0.05 and 0, the one leaving the fewest wrong readings on the training worlds (29 fewer
than without the tile read; 68 fewer on the four sets together, where 0.05 left 69 and
0 57 fewer; none leaves more unsure; docs/vision-bench.md)."""
DOUBTFUL = 0.75
"""The probability a doubted reading is lowered to: under the referee's sure line
(0.9), over the line under which an element is left unknown (``SHOWN_AT``, 0.6), so
that the reading is kept but not trusted alone."""


@dataclass(frozen=True)
class Margins:
    """The margin points of every checked square for one view."""

    elements: tuple[str, ...]
    owner: NDArray[np.intp]  # (P,) index into ``elements``
    pixels: NDArray[np.float32]  # (P, 2) frame pixels
    ground_mm: FloatArray  # (P, 2) board points
    inside: NDArray[np.bool_]  # (P,) inside the frame


def margin_offsets(side_mm: float) -> FloatArray:
    """The margin's points around a square's centre (square frame, mm)."""
    half = side_mm / 2.0
    steps = np.arange(-half + MARGIN_STEP_MM / 2.0, half, MARGIN_STEP_MM)
    u, v = np.meshgrid(steps, steps)
    keep = np.maximum(np.abs(u), np.abs(v)) >= MARGIN_FROM * half
    return np.column_stack([u[keep], v[keep]])


def plan_margins(model: BoardModel, view: BoardView, elements: Sequence[str]) -> Margins:
    """The margin points of ``elements`` (checked kinds only) in ``view``."""
    points, owners = [], []
    for index, name in enumerate(elements):
        element = model.elements[name]
        a = math.radians(element.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        points.append(margin_offsets(element.size_mm[0]) @ rot.T + np.array(element.centre_mm))
        owners.append(np.full(len(points[-1]), index, dtype=np.intp))
    ground = np.vstack(points) if points else np.zeros((0, 2))
    on_board = np.column_stack([ground, np.zeros(len(ground))])
    flat = on_board if view.projection is not None else ground
    pixels = view.to_image(flat) if len(ground) else np.zeros((0, 2))
    return Margins(
        tuple(elements),
        np.concatenate(owners) if owners else np.zeros(0, dtype=np.intp),
        pixels.astype(np.float32),
        ground,
        in_picture(pixels, view.image_size),
    )


def colour_left(
    frame: Image,
    pixels: NDArray[np.float32],
    ground_mm: FloatArray,
    appearance: SetAppearance,
    light: LightField,
) -> FloatArray:
    """What the frame's light does not explain at each point: its log colour against
    the calibration's empty board, the fitted light taken off, (P, 3)."""
    seen = log_colour(linear(np.asarray(sample(frame, pixels), dtype=np.uint8)))
    bare = appearance.bare_log(ground_mm)
    return np.asarray(seen - bare - light.at(ground_mm))


def left_over(
    frame: Image,
    margins: Margins,
    square_pixels: NDArray[np.float32],
    square_ground_mm: FloatArray,
    square_owner: NDArray[np.intp],
    appearance: SetAppearance,
    light: LightField,
) -> tuple[FloatArray, FloatArray]:
    """Per element of ``margins``, (E, 3) each in log colour: the median of what the
    light leaves on its square's points (``square_*``: the reader's sample points,
    ``square_owner`` indexing ``margins.elements``) and the median on its margin, part
    by part (its first, the brightness); NaN where one is out of the picture."""
    count = len(margins.elements)
    on_square = colour_left(frame, square_pixels, square_ground_mm, appearance, light)
    keep = margins.inside
    if keep.any():
        pixels, ground = margins.pixels[keep], margins.ground_mm[keep]
        on_margin = colour_left(frame, pixels, ground, appearance, light)
    else:
        on_margin = np.zeros((0, 3))
    square = np.column_stack([_medians(on_square[:, c], square_owner, count) for c in range(3)])
    margin = np.column_stack(
        [_medians(on_margin[:, c], margins.owner[keep], count) for c in range(3)]
    )
    return square, margin


def mismatch(
    frame: Image,
    margins: Margins,
    square_pixels: NDArray[np.float32],
    square_ground_mm: FloatArray,
    square_owner: NDArray[np.intp],
    appearance: SetAppearance,
    light: LightField,
) -> FloatArray:
    """Per element of ``margins``, (E, 3) in log colour: what the light leaves on its
    square less what it leaves on its margin (:func:`left_over`); NaN where either is
    out of the picture."""
    square, margin = left_over(
        frame, margins, square_pixels, square_ground_mm, square_owner, appearance, light
    )
    return square - margin


def bare_colours(
    square_ground_mm: FloatArray,
    square_owner: NDArray[np.intp],
    count: int,
    appearance: SetAppearance,
) -> FloatArray:
    """Each of ``count`` squares' bare colour at calibration (the median of the empty
    board's log colour on its points, part by part), (E, 3)."""
    bare = appearance.bare_log(square_ground_mm)
    return np.column_stack([_medians(bare[:, c], square_owner, count) for c in range(3)])


def toward_tiles(
    difference: FloatArray, bare: FloatArray, tiles: Sequence[FloatArray]
) -> FloatArray:
    """Per square and tile colour, (E, T): how far the square's ``difference`` from its
    margin goes from its ``bare`` colour toward each of the ``tiles`` colours (log
    colour, as calibration saw them): the difference projected on the tile's difference
    from the bare colour (in the reader's weighing, ``METRIC``), as a share of it; NaN
    where the difference is unknown."""
    shares = [np.full(len(difference), np.nan)]
    for tile in tiles:
        way = np.asarray(tile)[None, :] - bare
        length = np.maximum((way * way) @ METRIC, 1e-12)
        shares.append(((difference * way) @ METRIC) / length)
    return np.column_stack(shares[1:]) if tiles else np.zeros((len(difference), 0))


def _medians(values: FloatArray, owner: NDArray[np.intp], count: int) -> FloatArray:
    """The median of ``values`` per owner (NaN for an owner without values), as
    ``np.median`` gives it, for every owner at once: each owner's values in a row of
    a table, the rest NaN (sorted last)."""
    if len(values) == 0:
        return np.full(count, np.nan)
    order = np.argsort(owner, kind="stable")
    owners = owner[order]
    starts = np.searchsorted(owners, np.arange(count + 1))
    sizes = np.diff(starts)
    table = np.full((count, int(sizes.max())), np.nan)
    table[owners, np.arange(len(owners)) - starts[owners]] = values[order]
    table.sort(axis=1)
    rows = np.arange(count)
    low, high = np.maximum((sizes - 1) // 2, 0), sizes // 2
    middle = 0.5 * (table[rows, low] + table[rows, np.minimum(high, table.shape[1] - 1)])
    return np.asarray(np.where(sizes > 0, middle, np.nan))


def bare_doubted(brightness: float, toward: Sequence[float], own: Sequence[float] = ()) -> bool:
    """Whether a square read as bare that differs from its margin by ``brightness``
    (log light) and goes ``toward`` of the way to each tile's colour against its margin,
    and ``own`` of the way by its own colour against its bare colour
    (:func:`toward_tiles`), is doubted (unknown, NaN, is no doubt)."""
    return bool(
        abs(brightness) > MISMATCH
        or any(t > TOWARD_TILE for t in toward)
        or any(t > SQUARE_TOWARD_TILE for t in own)
    )


def tile_doubted(toward: float) -> bool:
    """Whether a square read as a tile whose difference from its margin goes ``toward``
    of the way to that tile's colour is doubted (unknown, NaN, is no doubt)."""
    return bool(toward < TILE_STEP)


def tile_shown(brightness: float, toward: Sequence[float], own: Sequence[float]) -> int | None:
    """The tile a square read as bare shows after all, as its index in ``toward`` and
    ``own`` (:func:`bare_doubted`), or None: the one whose colour both the square's
    difference from its margin (more than ``TOWARD_TILE`` of the way) and its own colour
    (more than ``SQUARE_TOWARD_TILE``, or ``OWN_WITH_BRIGHTNESS`` when its brightness
    differs from its margin's by more than ``MISMATCH``) go toward; the one they go
    furthest toward together when several do (unknown, NaN, shows nothing)."""
    own_line = OWN_WITH_BRIGHTNESS if abs(brightness) > MISMATCH else SQUARE_TOWARD_TILE
    shown = [
        (t + o, j)
        for j, (t, o) in enumerate(zip(toward, own, strict=True))
        if t > TOWARD_TILE and o > own_line
    ]
    return max(shown)[1] if shown else None


def doubt_bare(
    p: FloatArray,
    bare: int,
    brightness: float,
    toward: Sequence[float],
    own: Sequence[float] = (),
    tiles: Sequence[int] = (),
) -> FloatArray:
    """``p`` (an element's probabilities, ``bare`` the index of its bare value) when
    the square and its margin differ by ``brightness`` and ``toward`` the tiles, and the
    square goes ``own`` of the way to them from its bare colour (:func:`bare_doubted`):
    unchanged unless the bare value is read at more than ``DOUBTFUL`` and the square is
    doubted; then read as the tile it shows (:func:`tile_shown`; ``tiles``: the index
    in ``p`` of each tile of ``toward``), when given, or lowered (:func:`lowered`)."""
    if (
        int(np.argmax(p)) != bare
        or p[bare] <= DOUBTFUL
        or not bare_doubted(brightness, toward, own)
    ):
        return p
    shown = tile_shown(brightness, toward, own) if tiles else None
    if shown is None:
        return lowered(p, bare)
    return read_as(p, bare, tiles[shown])


def doubt_tile(
    p: FloatArray, tile: int, toward: float, bare: int | None = None, hand: bool = False
) -> FloatArray:
    """``p`` (an element's probabilities, ``tile`` the index of a tile value) when the
    square goes ``toward`` of the way to that tile's colour (:func:`tile_doubted`):
    unchanged unless the tile is read (at ``SHOWN_AT`` or more) and doubted; then torn
    between the tile and ``bare`` (the index of the bare value, when given:
    :func:`torn`) where the picture has a ``hand`` over the board or the tile was read
    at ``DOUBTFUL`` or less, otherwise lowered (:func:`lowered`) when read at more."""
    if int(np.argmax(p)) != tile or p[tile] < SHOWN_AT or not tile_doubted(toward):
        return p
    if bare is not None and (hand or p[tile] <= DOUBTFUL):
        return torn(p, tile, bare)
    if p[tile] <= DOUBTFUL:
        return p
    return lowered(p, tile)


def lowered(p: FloatArray, read: int) -> FloatArray:
    """``p`` with its value at ``read`` given ``DOUBTFUL`` and the others sharing the
    rest as they shared theirs (evenly when they had none)."""
    others = np.delete(p, read)
    total = float(others.sum())
    share = others / total if total > 0.0 else np.full(len(others), 1.0 / len(others))
    out = np.insert(share * (1.0 - DOUBTFUL), read, DOUBTFUL)
    return np.asarray(out)


def read_as(p: FloatArray, read: int, instead: int) -> FloatArray:
    """``p`` with the values at ``read`` and ``instead`` changing places, then
    ``instead`` lowered to ``DOUBTFUL`` (:func:`lowered`): read as ``instead``, not
    as sure."""
    out = p.copy()
    out[read], out[instead] = p[instead], p[read]
    return lowered(out, instead)


def torn(p: FloatArray, a: int, b: int) -> FloatArray:
    """``p`` with the values at ``a`` and ``b`` sharing their probability evenly: the
    reader cannot tell the two apart."""
    out = p.copy()
    out[a] = out[b] = 0.5 * (p[a] + p[b])
    return out
