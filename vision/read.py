"""Reading every element of a game's table from one frame, with a confidence, or not
at all.

Given a frame and where the board lies in it (a :class:`~vision.view.BoardView`),
:class:`BoardReader` returns an :class:`~engines.observation.Observation`: each element
(a Shangri-La space and its stack height, a bridge, a stone; a Shendao square, a gate;
ShenShi's pieces through :mod:`vision.read_shenshi`) read with a confidence, or unknown
with the reason it was not read (an *abstention*: the reader would rather say "I cannot
tell" than guess).

How, in four steps, all vectorised over the elements (a frame costs milliseconds,
whatever its size, as only sample points are read):

1. **Sample points, once per view.** Each element is looked at where its piece's top
   would stand (points projected at the piece's height with the view's
   ``projection``, so oblique views look at the tile, not beside it); Shangri-La tiles
   on a ring around their glyph. Stack heights get sample lines along the direction
   away from the camera. All points are gathered in one pixel map; one ``cv2.remap``
   per frame reads them all.
2. **The light, every frame.** The board's paper where no piece can stand (the village
   discs and the fields, the margins) is sampled; a smooth field (quadratic in board
   position, per colour channel, in linear light) is fitted to it robustly (RANSAC:
   shadows and hands left out). Dividing by it turns every colour into what it would
   be in white light: orange lamps, blue windows and one dark side of the table cancel
   out. Paper brighter than the field explains is glare: white light added, taken off
   the elements near it.
3. **Colours.** An element's features (log linear light) are compared with its kind's
   classes (:mod:`vision.read_config`); brightness counts less than colour (shadows
   darken, they do not tint). The nearest class wins if it is near enough, clearly
   nearer than the next, most of the element's pixels agree, few look like skin, and a
   second opinion blind to glare (channel differences) does not clearly disagree;
   otherwise the reader abstains.
4. **Stack heights** (``4H^``). A stack of ``h`` tiles of thickness ``t`` covers, seen
   from an elevation ``e``, ``tile + h * t * cot(e)`` mm of board along the direction
   away from the camera (its top face is lifted and its front face shows). The reader
   measures that extent on sample lines across the tile's colour; the extent tells
   one tile from two whatever the tile's exact placement. A view too steep for the
   difference to show, or a neighbour hiding an edge, means abstaining.

Games with their own ways hook in by subclassing: :meth:`BoardReader._window`,
``_allowed``, ``_blocked``, ``_check_colours``, ``_extra_points`` and ``_read_extra``.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engines.observation import UNKNOWN, Observation, Reading
from vision.models import HEIGHT_SUFFIX, BoardModel, Element, load_model, referee_schema
from vision.read_colour import (
    EPS,
    SRGB_TO_LINEAR,
    Kind,
    Light,
    channel_difference_distance,
    colour_distance,
    features_of,
    fit_light,
    hue_angle,
    linear_of,
    log_residual,
    nearest_class,
    quadratic,
    ransac_inliers,
)
from vision.read_config import ReadConfig
from vision.read_heights import EDGE_HIDDEN, HeightPlan, stack_extents, stack_height
from vision.view import BoardView, in_picture

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

_MAP_WIDTH = 1024
# The river printed across a bridge's road reaches this far from the bridge's centre.
_RIVER_HALF_LENGTH_MM = 20.0
# Kinds whose pieces carry a glyph in the middle: their colour is read around it.
RING_KINDS = frozenset({"space"})
# Where the colour of an element is read: its top's height, as a share of the piece's.
_TOP_SHARE = {"space": 1.5, "square": 0.5, "bridge": 1.0, "stone": 1.0, "gate": 1.0}
_PIECE_HEIGHT = {
    "space": "tile_thickness_mm",
    "square": "tile_thickness_mm",
    "bridge": "bridge_height_mm",
    "stone": "stone_height_mm",
    "gate": "stick_height_mm",
}


# Why an element is not read when this view cannot show it at all (a hand over it, out
# of the picture, a view too steep to show the side of the tiles, a piece in front), as
# against the reader seeing it and not deciding (every other reason: *unsure*).
COVERED = "covered (a hand?) or out of the picture"
COVERED_BY_HAND = "covered by a hand"
TOO_STEEP = "the view is too steep to see the side of the tiles"
TOO_STEEP_HERE = "the view is too steep here to see the side of the tiles"
SIDE_TOO_SMALL = "the side of the tiles spans too few pixels in this picture"
NO_HEIGHTS = "the view knows no heights"
STACK_OUT = "part of the stack is hidden or out of the picture"
MONK_IN_FRONT = "a monk in front of it may hide it"
CUSHION_IN_FRONT = "a cushion in front of it hides part of it"
NEIGHBOUR_IN_LINE = "a neighbouring stack in front of it or behind it hides an edge"
LEGS_HIDDEN = "its legs are hidden: its size cannot be told"
UNSEEN_REASONS = frozenset(
    {
        COVERED,
        COVERED_BY_HAND,
        TOO_STEEP,
        TOO_STEEP_HERE,
        SIDE_TOO_SMALL,
        NO_HEIGHTS,
        STACK_OUT,
        MONK_IN_FRONT,
        LEGS_HIDDEN,
        NEIGHBOUR_IN_LINE,
        CUSHION_IN_FRONT,
    }
)
# Reasons that only pass on another element's: unseen when that one is unseen.
COLOUR_NOT_READ = "its colour was not read"
SEAT_NOT_READ = "the tile or cushion it would sit on was not read"
TIED = "between two readings"
GLARE = "glare or odd light: its colour is unsure"
LIKE_NONE = "looks like none of its possible pieces (a hand, or something else on it)"
NO_MARK = "looks bare, but what the board shows there when bare does not show"


class ReadError(ValueError):
    """A frame that cannot be read at all; the message says why in plain words."""


@dataclass(frozen=True)
class FrameReading:
    """What one frame shows: ``observation`` (unknown where not read), ``abstained``
    (element -> why it was not read), ``unseen`` (the abstained elements this view
    cannot show at all: the others are abstentions of an unsure reader), ``problem``
    (set when nothing could be read: the whole frame's reason), and ``seconds``
    spent."""

    observation: Observation
    abstained: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    seconds: float = 0.0
    unseen: frozenset[str] = frozenset()

    @property
    def read(self) -> int:
        """How many elements were read."""
        return sum(1 for e in self.observation if self.observation[e].known)


@dataclass
class _Plan:
    """Sample points of one view: pixels of every sample, and how they group."""

    count: int
    map_x: NDArray[np.float32]
    map_y: NDArray[np.float32]
    inside: NDArray[np.bool_]
    reference_slice: slice
    element_slice: slice
    samples: int  # per element
    blocked: NDArray[np.bool_]  # (E, K): hidden behind taller pieces, whatever they are
    heights: HeightPlan | None
    extra_slice: slice  # the game's own sample points (ShenShi's monks)


class BoardReader:
    """Reads one game's table (see the module's docstring).

    ``config`` sets the thresholds and colours (default: :meth:`ReadConfig.for_game`).
    Raises ``vision.models.ModelError`` for a game without a board model.
    """

    def __init__(
        self, game: str, model: BoardModel | None = None, config: ReadConfig | None = None
    ) -> None:
        self.model = model or load_model(game)
        self.game = game
        self.config = config or ReadConfig.for_game(game)
        self.schema = referee_schema(game)
        self.elements: list[Element] = list(self.model.elements.values())
        self.kinds = {kind: self._kind(kind) for kind in sorted({e.kind for e in self.elements})}
        self.special_kinds: frozenset[str] = frozenset()
        self._reference_mm, self._paper = self._reference_points()
        self._reference_albedo = linear_of(self.config.reference_bgr)
        self._foreign = features_of(np.array([linear_of(c) for c in self.config.foreign_bgr]))
        self._surroundings = features_of(
            np.array([linear_of(c) for c in self.config.surroundings_bgr])
        )
        self._plan_for: tuple[BoardView, _Plan] | None = None
        self._allowed_of: dict[str, NDArray[np.bool_]] = {}
        self._glare_weights: dict[bytes, FloatArray] = {}
        self._marks = {
            kind: self._bare_mark(kind, bare, bgr)
            for kind, (bare, bgr) in self.config.bare_marks.items()
            if kind in self.kinds
        }
        self.has_heights = any(e.endswith(HEIGHT_SUFFIX) for e in self.schema.elements)

    # --- set-up -------------------------------------------------------------------

    def _kind(self, kind: str) -> Kind:
        palette = self.config.palettes[kind]
        names, values, prototypes, owner = [], [], [], []
        for index, (name, (value, colours)) in enumerate(palette.items()):
            names.append(name)
            values.append(value)
            for colour in colours:
                prototypes.append(features_of(linear_of(colour)))
                owner.append(index)
        return Kind(
            tuple(names),
            tuple(values),
            np.array(prototypes),
            np.exp(np.array(prototypes)) - EPS,
            np.array(owner, dtype=np.intp),
        )

    def _bare_mark(
        self, kind_name: str, bare: str, bgr: tuple[int, int, int]
    ) -> tuple[int, FloatArray, NDArray[np.bool_]]:
        """A kind's bare mark (:attr:`ReadConfig.bare_marks`): the bare class's index,
        the mark's features, and which of the kind's elements show it when bare (not
        those whose spot lies on a village's paper)."""
        centres = np.array([e.centre_mm for e in self.elements if e.kind == kind_name])
        shows = np.ones(len(centres), dtype=bool)
        for village in self.model.villages:
            shows &= (
                np.linalg.norm(centres - np.array(village.centre_mm), axis=1) > village.radius_mm
            )
        return (self.kinds[kind_name].names.index(bare), features_of(linear_of(bgr)), shows)

    def _hue_vetoed(
        self, kind: Kind, plain: FloatArray, best: NDArray[np.intp]
    ) -> NDArray[np.bool_]:
        """Which readings ``best`` of a kind's elements (``plain``: their median colour,
        divided by the light, glare left in) the hue of their channel differences
        contradicts (:attr:`ReadConfig.hue_veto_kinds`): clearly nearer another
        class's hue than the one read, where the colour shows a hue at all."""
        c = self.config
        hue = hue_angle(plain)  # (E,)
        apart = np.abs(hue[:, None] - hue_angle(kind.linear)[None])  # (E, P)
        apart = np.minimum(apart, 360.0 - apart)
        per_class = np.stack(
            [apart[:, kind.owner == k].min(axis=1) for k in range(len(kind.names))], axis=1
        )  # (E, C)
        own = per_class[np.arange(len(best)), best]
        per_class[np.arange(len(best)), best] = np.inf
        chroma = np.hypot(plain[:, 1] - plain[:, 0], plain[:, 2] - plain[:, 1]) / np.maximum(
            plain.sum(axis=1), 1e-6
        )
        return np.asarray(
            (own - per_class.min(axis=1) >= c.hue_veto_margin_deg) & (chroma >= c.hue_min_chroma)
        )

    def _reference_points(self) -> tuple[FloatArray, FloatArray]:
        """Board points of bare paper and the paper's colour there (linear): inside the
        village discs away from spaces and stones, and the fields between villages away
        from roads and rivers (Shangri-La); the margin around the squares, between and
        beside the gates too (Shendao)."""
        c = self.config
        step, clear = c.reference_step_mm, c.reference_clearance_mm
        w, h = self.model.size_mm
        xs, ys = np.meshgrid(np.arange(step / 2, w, step), np.arange(step / 2, h, step))
        grid = np.column_stack([xs.ravel(), ys.ravel()])
        inside = np.all((grid > 3 * clear) & (grid < np.array([w, h]) - 3 * clear), axis=1)
        field_bgr = c.field_bgr
        if self.model.villages:
            disc = np.zeros(len(grid), bool)
            near_disc = np.zeros(len(grid), bool)
            for village in self.model.villages:
                d = np.linalg.norm(grid - np.array(village.centre_mm), axis=1)
                disc |= d < village.radius_mm - clear
                near_disc |= d < village.radius_mm + clear
            sparse = (np.floor(grid / step).astype(int) % c.field_every == 0).all(axis=1)
            field = (
                inside
                & sparse
                & ~near_disc
                & (_road_distance(grid, self.model) > c.road_clearance_mm)
            )
            if field_bgr is None:
                field[:] = False
        else:
            # the margin around the grid of the most numerous kind (squares), also
            # between the elements of the others there (Shendao's gate slots: the
            # paper right beside a slot measures the light and glare on its stick)
            counts = Counter(e.kind for e in self.elements)
            grid_kind = max(counts, key=lambda k: counts[k])
            occupied = np.array(
                [e.corners_mm() for e in self.elements if e.kind == grid_kind]
            ).reshape(-1, 2)
            lo, hi = occupied.min(axis=0), occupied.max(axis=0)
            disc = inside & np.any((grid < lo - 2 * clear) | (grid > hi + 2 * clear), axis=1)
            field = np.zeros(len(grid), bool)
        for element in self.elements:
            far = _distance_to_rectangle(grid, element) > clear
            disc &= far
            field &= far
        paper = np.repeat(linear_of(c.reference_bgr)[None], len(grid), axis=0)
        if field_bgr is not None:
            paper[field] = linear_of(field_bgr)
        keep = disc | field
        return np.asarray(grid[keep]), np.asarray(paper[keep])

    def _window(self, element: Element) -> tuple[FloatArray, float | FloatArray]:
        """Where an element's colour is read: board points (K, 2) and their height
        (the top of the piece that may stand there; one, or one per point)."""
        n = self.config.samples_per_side
        if element.kind in RING_KINDS:
            local = square_ring(n * n, self.config.ring_radii)
            size = np.array(element.size_mm)
        else:
            grid = (np.arange(n) + 0.5) / n - 0.5
            local = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)
            share = self.config.window_fractions.get(
                element.kind, (self.config.window_fraction,) * 2
            )
            size = np.array(element.size_mm) * np.array(share)
        z = _TOP_SHARE[element.kind] * self.model.pieces[_PIECE_HEIGHT[element.kind]]
        return place_points(local * size, element), z

    def _allowed(self, element: Element, kind: Kind) -> NDArray[np.bool_]:
        """Which of ``kind``'s prototypes ``element`` may show: all, except that an
        empty checkerboard square shows its own shade (Shendao)."""
        allowed = np.ones(len(kind.owner), dtype=bool)
        if self.game == "shendao" and element.kind == "square":
            empty = kind.names.index("empty")
            shades = np.flatnonzero(kind.owner == empty)
            odd = (ord(element.name[0]) - ord("a") + int(element.name[1:])) % 2
            allowed[shades] = False
            allowed[shades[0 if odd else 1]] = True
        return allowed

    def _blocked(self, view: BoardView, element: Element, points: FloatArray) -> NDArray[np.bool_]:
        """Which of an element's sample points (K, 3) pieces may hide in this view."""
        return np.zeros(len(points), dtype=bool)

    def _extra_points(self, view: BoardView) -> FloatArray:
        """Sample points (N, 3) a game reads in its own way (:meth:`_read_extra`)."""
        return np.zeros((0, 3))

    def _check_colours(
        self,
        features: FloatArray,
        visible: NDArray[np.bool_],
        blocked: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """Second looks at the colour readings, with every element's samples
        (features (E, K, 3); ``visible`` (E, K): in the picture and not covered;
        ``blocked``: samples kept out of the colour reading); none by default."""

    def _read_extra(
        self,
        linear: FloatArray,
        hidden: NDArray[np.bool_],
        light: Light,
        classes: dict[int, int],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """Read what :meth:`_extra_points` sampled (nothing by default)."""

    def _plan(self, view: BoardView) -> _Plan:
        """Every sample point of ``view`` in pixels (kept for the next frames of the
        same view)."""
        if self._plan_for is not None and self._plan_for[0] is view:
            return self._plan_for[1]
        reference = slice(0, len(self._reference_mm))
        lifted = view.projection is not None
        points, blocked = [], []
        for element in self.elements:
            spot, z = self._window(element)
            lifted_spot = np.column_stack([spot, np.broadcast_to(z, len(spot))])
            points.append(lifted_spot)
            blocked.append(self._blocked(view, element, lifted_spot))
        element_points = np.vstack(points)
        heights = self._height_plan(view) if self.has_heights and lifted else None
        pixels = [view.to_image(self._reference_mm)]
        pixels.append(
            view.to_image(element_points) if lifted else view.to_image(element_points[:, :2])
        )
        start = reference.stop
        element_slice = slice(start, start + len(element_points))
        stop = element_slice.stop
        if heights is not None:
            line_points, height_plan = heights
            pixels.append(view.to_image(line_points))
            height_plan.slice = slice(stop, stop + len(line_points))
            stop = height_plan.slice.stop
        else:
            height_plan = None
        extra = self._extra_points(view)
        pixels.append(view.to_image(extra) if len(extra) else np.zeros((0, 2)))
        extra_slice = slice(stop, stop + len(extra))
        all_pixels = np.vstack(pixels)
        inside = in_picture(all_pixels, view.image_size)
        # remap's maps must be under 32767 pixels a side: rows of _MAP_WIDTH samples
        padded = np.zeros((-(-len(all_pixels) // _MAP_WIDTH) * _MAP_WIDTH, 2), np.float32)
        padded[: len(all_pixels)] = all_pixels
        maps = padded.reshape(-1, _MAP_WIDTH, 2)
        plan = _Plan(
            len(all_pixels),
            maps[:, :, 0].copy(),
            maps[:, :, 1].copy(),
            inside,
            reference,
            element_slice,
            self.config.samples_per_side**2,
            np.array(blocked),
            height_plan,
            extra_slice,
        )
        self._plan_for = (view, plan)
        return plan

    def _height_plan(self, view: BoardView) -> tuple[FloatArray, HeightPlan] | None:
        """Sample lines over each space, along the direction away from the camera, on
        the board plane; ``None`` when the view is too steep everywhere."""
        camera = view.camera_mm()
        assert camera is not None
        thickness = self.model.pieces["tile_thickness_mm"]
        tile = self.model.pieces["tile_mm"]
        spaces = [i for i, e in enumerate(self.elements) if e.kind == "space"]
        centres = np.array([self.elements[i].centre_mm for i in spaces])
        away = centres - camera[:2]
        distance = np.linalg.norm(away, axis=1)
        if camera[2] <= 0:
            return None
        u = away / np.maximum(distance, 1e-9)[:, None]
        # Lines run along the tile's side nearest to the direction away from the
        # camera: the lifted top shifts along it by t * cot(e) * cos(angle between).
        angles = np.radians([self.elements[i].angle_deg for i in spaces])
        axes = np.stack(
            [
                np.column_stack([np.cos(angles), np.sin(angles)]),
                np.column_stack([-np.sin(angles), np.cos(angles)]),
            ],
            axis=1,
        )
        along = np.einsum("sad,sd->sa", axes, u)  # (S, 2)
        pick = np.argmax(np.abs(along), axis=1)
        rows = np.arange(len(spaces))
        sign = np.sign(along[rows, pick])
        direction = axes[rows, pick] * sign[:, None]
        step_mm = thickness * distance / camera[2] * np.abs(along[rows, pick])
        if float(step_mm.max()) < self.config.height_min_step_mm:
            return None
        c = self.config
        steps = np.arange(
            -(tile / 2 + 3.0), tile / 2 + 2 * float(step_mm.max()) + 3.0, c.height_step_mm
        )
        offsets = np.linspace(-c.height_line_spread_mm, c.height_line_spread_mm, c.height_lines)
        across = np.column_stack([-direction[:, 1], direction[:, 0]])
        # (space, line, step, xy)
        points = (
            centres[:, None, None, :]
            + offsets[None, :, None, None] * across[:, None, None, :]
            + steps[None, None, :, None] * direction[:, None, None, :]
        )
        bottom = view.to_image(np.column_stack([centres, np.zeros(len(centres))]))
        top = view.to_image(np.column_stack([centres, np.full(len(centres), thickness)]))
        side_px = np.linalg.norm(top - bottom, axis=1)
        # neighbours along the lines, in front or behind: their stacks can stand over
        # the board gap the lines look for
        offsets_mm = centres[None, :, :] - centres[:, None, :]  # (S, S, 2)
        distance_mm = np.linalg.norm(offsets_mm, axis=2)
        along_line = np.abs(np.einsum("std,sd->st", offsets_mm, direction))
        in_line = [
            [
                spaces[t]
                for t in np.flatnonzero(
                    (distance_mm[k] > 0)
                    & (distance_mm[k] < c.height_neighbour_mm)
                    & (along_line[k] > c.height_neighbour_cos * distance_mm[k])
                )
            ]
            for k in range(len(spaces))
        ]
        plan = HeightPlan(spaces, slice(0, 0), c.height_lines, steps, step_mm, side_px, in_line)
        return points.reshape(-1, 2), plan

    # --- reading ------------------------------------------------------------------------

    def read(self, frame: Any, view: BoardView, covered: Collection[str] = ()) -> FrameReading:
        """Read ``frame`` (BGR uint8) where ``view`` puts the board. ``covered``: the
        elements a hand hides (from the stillness detector): unknown, and their paper
        is not used to measure the light. Never raises for a bad frame: the result's
        ``problem`` says what is wrong."""
        began = time.perf_counter()
        problem = _frame_problem(frame, view)
        if problem is not None:
            return self._nothing(problem, began)
        plan = self._plan(view)
        values = cv2.remap(
            frame,
            plan.map_x,
            plan.map_y,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0),
        )
        linear = SRGB_TO_LINEAR[values.reshape(-1, 3)[: plan.count]]
        hidden = ~plan.inside
        try:
            light = self._light(linear[plan.reference_slice], hidden[plan.reference_slice])
        except ReadError as error:
            return self._nothing(str(error), began)
        readings: dict[str, Reading] = {}
        reasons: dict[str, str] = {}
        classes = self._read_colours(linear, hidden, plan, light, readings, reasons)
        if plan.heights is not None:
            self._read_heights(linear, hidden, plan, light, classes, readings, reasons)
        if plan.extra_slice.stop > plan.extra_slice.start:
            self._read_extra(
                linear[plan.extra_slice],
                hidden[plan.extra_slice],
                light,
                classes,
                readings,
                reasons,
            )
        if plan.heights is None and self.has_heights:
            why = TOO_STEEP if view.projection is not None else NO_HEIGHTS
            self._heights_unknown(readings, reasons, why)
        for name in covered:
            for element in (name, name + HEIGHT_SUFFIX):
                if element in readings:
                    readings[element] = UNKNOWN
                    reasons[element] = COVERED_BY_HAND
        observation = Observation.trusted(self.schema, readings)
        return FrameReading(
            observation, reasons, None, time.perf_counter() - began, self._unseen(reasons)
        )

    def _unseen(self, reasons: dict[str, str]) -> frozenset[str]:
        """The abstained elements the view cannot show: for their own reason, or as
        the element their reading rests on is unseen (a stack's colour, a monk's
        seat)."""

        def unseen(element: str, depth: int = 0) -> bool:
            why = reasons.get(element)
            if why in UNSEEN_REASONS:
                return True
            base = self._rests_on(element, why)
            return base is not None and depth < 3 and unseen(base, depth + 1)

        return frozenset(e for e in reasons if unseen(e))

    def _rests_on(self, element: str, why: str | None) -> str | None:
        """The element whose abstention ``element``'s abstention (``why``) passes on:
        a stack height's colour."""
        if why == COLOUR_NOT_READ and element.endswith(HEIGHT_SUFFIX):
            return element[: -len(HEIGHT_SUFFIX)]
        return None

    def _nothing(self, problem: str, began: float) -> FrameReading:
        reasons = dict.fromkeys(self.schema.elements, problem)
        return FrameReading(
            Observation.trusted(self.schema, {}), reasons, problem, time.perf_counter() - began
        )

    def _light(self, linear: FloatArray, hidden: NDArray[np.bool_]) -> Light:
        """The light on the board, measured on its paper: a quadratic field per channel
        fitted robustly (shadows and hands left out), and glare: white light added where
        the paper is brighter than the field explains. Raises ``ReadError`` when the
        paper cannot be seen."""
        c = self.config
        in_view = ~hidden
        if in_view.sum() < max(12, c.min_reference_share * len(in_view)):
            raise ReadError("the board is mostly hidden or out of the picture")
        usable = in_view & np.all(linear > c.min_paper_level * self._paper, axis=1)
        if usable.sum() < c.min_reference_share * in_view.sum():
            raise ReadError(
                "the picture is too dark, or the board is not where it is "
                "expected: its paper cannot be seen"
            )
        design = quadratic(self._reference_mm[usable], self.model.size_mm)
        samples = linear[usable] / self._paper[usable]  # the light itself
        best = ransac_inliers(
            design, samples, c.reference_outlier, c.ransac_rounds, c.ransac_points
        )
        if best.sum() < c.min_reference_share * in_view.sum():
            raise ReadError(
                "the board's paper does not look like paper under any light: "
                "is the board where it is expected?"
            )
        coefficients = fit_light(design[best], samples[best])
        residual = log_residual(samples, design @ coefficients)
        good = residual < c.reference_outlier
        coefficients = fit_light(design[good], samples[good])
        # white light added: the same excess in every channel, in paper units
        excess = (samples / np.maximum(design @ coefficients, 1e-4) - 1.0) * self._paper[usable]
        glare = np.maximum(excess.min(axis=1), 0.0)
        # glare is white and faint: a coloured or strong excess is something standing
        # in front of the paper (a cup, a hand)
        coloured = excess.max(axis=1) - excess.min(axis=1) > c.glare_tint
        glare[(glare < c.glare_floor) | coloured | (glare > c.glare_max)] = 0.0
        return Light(coefficients, usable, glare)

    def _albedo(self, linear: FloatArray, centres_mm: FloatArray, light: Light) -> FloatArray:
        """Log colours as white light would show them: ``linear`` (E, K, 3) samples of
        the elements centred at ``centres_mm`` (E, 2), divided by the light there, less
        the glare."""
        field_ = np.maximum(quadratic(centres_mm, self.model.size_mm) @ light.field, 1e-4)
        albedo = linear / field_[:, None, :]
        if light.glare.any():
            # glare is measured on the paper only roughly: never take off more than
            # half of a colour (a dark channel would turn to nothing)
            glare = self._glare_at(centres_mm, light)[:, None, None]
            albedo = np.maximum(albedo - glare, 0.5 * albedo)
        return features_of(albedo)

    def _glare_at(self, centres_mm: FloatArray, light: Light) -> FloatArray:
        """The glare (paper units) at board points: the paper's glare nearby, weighted
        by distance (the weights kept for the next frames)."""
        key = centres_mm.tobytes()
        weights = self._glare_weights.get(key)
        if weights is None:
            d2 = ((centres_mm[:, None, :] - self._reference_mm[None]) ** 2).sum(axis=2)
            weights = np.exp(-d2 / (2.0 * self.config.glare_radius_mm**2))
            self._glare_weights[key] = weights
        used = weights[:, light.used]
        return np.asarray((used @ light.glare) / np.maximum(used.sum(axis=1), 1e-9))

    def _read_colours(
        self,
        linear: FloatArray,
        hidden: NDArray[np.bool_],
        plan: _Plan,
        light: Light,
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> dict[int, int]:
        """Fill ``readings`` (and ``reasons``) for every element; return the class
        read for each element read (by index)."""
        c = self.config
        k = plan.samples
        centres = np.array([e.centre_mm for e in self.elements])
        samples = linear[plan.element_slice].reshape(len(centres), k, 3)
        features = self._albedo(samples, centres, light)
        unglared = (
            samples
            / np.maximum(quadratic(centres, self.model.size_mm) @ light.field, 1e-4)[:, None, :]
        )
        seen = ~hidden[plan.element_slice].reshape(len(self.elements), k) & ~plan.blocked
        # the glare-blind second opinion counts only where glare was measured nearby
        glary = (
            self._glare_at(centres, light) > c.glare_veto_floor
            if light.glare.any()
            else np.zeros(len(centres), dtype=bool)
        )
        classes: dict[int, int] = {}
        for kind_name, kind in self.kinds.items():
            if kind_name in self.special_kinds:
                continue
            index = [i for i, e in enumerate(self.elements) if e.kind == kind_name]
            f = features[index]  # (E, K, 3)
            # what pieces of the element's own square may hide does not count
            open_ = ~plan.blocked[index]
            visible = seen[index].sum(axis=1) / np.maximum(open_.sum(axis=1), 1)
            visible[open_.sum(axis=1) < c.min_open_samples] = 0.0
            if kind_name not in self._allowed_of:
                self._allowed_of[kind_name] = np.array(
                    [self._allowed(self.elements[i], kind) for i in index]
                )
            allowed = self._allowed_of[kind_name]
            barred = np.where(allowed, 0.0, np.inf)  # (E, P)
            d_samples = (
                colour_distance(f, kind.prototypes, c.brightness_weight) + barred[:, None, :]
            )  # (E, K, P)
            sample_class = kind.owner[np.argmin(d_samples, axis=2)]
            # skin: a sample nearer a hand's colour than any piece's is not the piece
            foreign = colour_distance(f, self._foreign, c.brightness_weight).min(
                axis=2
            ) < d_samples.min(axis=2)
            seen_here = seen[index] & ~foreign
            visible = np.minimum(visible, seen_here.sum(axis=1) / np.maximum(open_.sum(axis=1), 1))
            median = np.median(f, axis=1)
            partly = ~seen_here.all(axis=1) & seen_here.any(axis=1)
            if partly.any():
                median[partly] = np.nanmedian(
                    np.where(seen_here[partly][:, :, None], f[partly], np.nan), axis=1
                )
            plain = np.median(unglared[index], axis=1)
            if partly.any():
                plain[partly] = np.nanmedian(
                    np.where(seen_here[partly][:, :, None], unglared[index][partly], np.nan), axis=1
                )
            best, d_best, d_second = nearest_class(
                colour_distance(median, kind.prototypes, c.brightness_weight) + barred, kind
            )
            agreement = ((sample_class == best[:, None]) & seen_here).sum(axis=1) / np.maximum(
                seen_here.sum(axis=1), 1
            )
            # a second opinion blind to white light added (glare): channel differences
            white_blind, blind_best, blind_second = nearest_class(
                channel_difference_distance(plain, kind.linear) + barred, kind
            )
            glared = (
                (white_blind != best)
                & (blind_second - blind_best > c.glare_veto_margin)
                & glary[index]
            )
            # a colour glare has washed out beyond any piece's, whose channel
            # differences clearly show one
            washed_out = (
                glary[index]
                & (blind_best <= c.washed_out_distance)
                & (blind_second - blind_best >= c.washed_out_margin)
            )
            hue_vetoed = (
                self._hue_vetoed(kind, plain, best)
                if kind_name in c.hue_veto_kinds
                else np.zeros(len(index), dtype=bool)
            )
            unmarked = np.zeros(len(index), dtype=bool)
            if kind_name in self._marks:
                bare, mark, shows = self._marks[kind_name]
                on_mark = colour_distance(f, mark[None], c.brightness_weight)[
                    :, :, 0
                ] <= d_samples.min(axis=2)
                unmarked = (
                    shows
                    & (best == bare)
                    & ((on_mark & seen_here).sum(axis=1) < c.bare_mark_min_samples)
                )
            for r, i in enumerate(index):
                name = self.elements[i].name
                why = _colour_doubt(visible[r], d_best[r], d_second[r], agreement[r], c)
                if why is None and (glared[r] or hue_vetoed[r]):
                    why = GLARE
                if why == LIKE_NONE and washed_out[r]:
                    readings[name] = Reading(kind.values[white_blind[r]], c.washed_out_confidence)
                    classes[i] = int(white_blind[r])
                    continue
                if why is None and unmarked[r]:
                    why = NO_MARK
                if why is not None:
                    readings[name] = UNKNOWN
                    reasons[name] = why
                    continue
                margin = d_second[r] - d_best[r]
                confidence = float(min(1.0, 0.5 + margin) * agreement[r])
                readings[name] = Reading(kind.values[best[r]], round(confidence, 4))
                classes[i] = int(best[r])
        self._check_colours(features, seen | plan.blocked, plan.blocked, readings, reasons)
        for i in list(classes):
            if not readings[self.elements[i].name].known:
                del classes[i]
        return classes

    def _heights_unknown(
        self, readings: dict[str, Reading], reasons: dict[str, str], why: str
    ) -> None:
        for element in self.elements:
            if element.kind != "space":
                continue
            colour = readings[element.name]
            name = element.name + HEIGHT_SUFFIX
            if colour.value == "empty":
                readings[name] = Reading(0, colour.confidence)
            else:
                readings[name] = UNKNOWN
                reasons[name] = why if colour.known else COLOUR_NOT_READ

    def _read_heights(
        self,
        linear: FloatArray,
        hidden: NDArray[np.bool_],
        plan: _Plan,
        light: Light,
        classes: dict[int, int],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        heights = plan.heights
        assert heights is not None
        c = self.config
        m = len(heights.steps)
        per_space = heights.lines * m
        hidden_lines = hidden[heights.slice].reshape(len(heights.spaces), per_space)
        measure = []
        for j, i in enumerate(heights.spaces):
            element = self.elements[i]
            colour = readings[element.name]
            name = element.name + HEIGHT_SUFFIX
            if colour.value == "empty":
                readings[name] = Reading(0, colour.confidence)
            elif not colour.known:
                readings[name] = UNKNOWN
                reasons[name] = COLOUR_NOT_READ
            elif heights.step_mm[j] < c.height_min_step_mm:
                readings[name] = UNKNOWN
                reasons[name] = TOO_STEEP_HERE
            elif heights.side_px[j] < c.height_min_side_px:
                readings[name] = UNKNOWN
                reasons[name] = SIDE_TOO_SMALL
            elif hidden_lines[j].any():
                readings[name] = UNKNOWN
                reasons[name] = STACK_OUT
            else:
                measure.append(j)
        if not measure:
            return
        rows = np.array(measure)
        lines = linear[heights.slice].reshape(len(heights.spaces), per_space, 3)[rows]
        centres = np.array([self.elements[heights.spaces[j]].centre_mm for j in measure])
        features = self._albedo(lines, centres, light).reshape(len(rows), heights.lines, m, 3)
        kind = self.kinds["space"]
        colour_class = np.array([classes[heights.spaces[j]] for j in measure])
        extents = stack_extents(
            features, kind, colour_class, self._surroundings, c, heights, heights.step_mm[rows]
        )
        tile = self.model.pieces["tile_mm"]
        for j, extent in zip(measure, extents, strict=True):
            element = self.elements[heights.spaces[j]]
            name = element.name + HEIGHT_SUFFIX
            value, why, sureness = stack_height(extent, float(heights.step_mm[j]), tile, c)
            if why == EDGE_HIDDEN and any(
                readings[self.elements[k].name].value != "empty" for k in heights.in_line[j]
            ):
                why = NEIGHBOUR_IN_LINE
            if value is None:
                readings[name] = UNKNOWN
                reasons[name] = why
            else:
                readings[name] = Reading(
                    value, round(sureness * readings[element.name].confidence, 4)
                )


def place_points(local: FloatArray, element: Element) -> FloatArray:
    """Board points of ``local`` points (mm, the element's own axes, centred on it)."""
    a = math.radians(element.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(local @ rot.T + np.array(element.centre_mm))


def square_ring(count: int, radii: tuple[float, float]) -> FloatArray:
    """``count`` points around a square centred on 0, alternately at the two radii (as
    fractions of the side): the band between a tile's glyph and its edge."""
    t = (np.arange(count) + 0.5) / count * 4.0
    side = np.floor(t).astype(int)
    along = t - side - 0.5
    corners = {0: (along, -0.5), 1: (0.5, along), 2: (-along, 0.5), 3: (-0.5, -along)}
    xs = np.choose(side, [corners[k][0] * np.ones(count) for k in range(4)])
    ys = np.choose(side, [corners[k][1] * np.ones(count) for k in range(4)])
    radius = np.where(np.arange(count) % 2 == 0, radii[0], radii[1])
    return np.column_stack([xs, ys]) * radius[:, None] * 2.0


def _colour_doubt(
    visible: float, best: float, second: float, agreement: float, c: ReadConfig
) -> str | None:
    """Why an element's colour reading is not sure enough, or ``None``."""
    if visible < c.min_visible_share:
        return COVERED
    if best > c.max_distance:
        return LIKE_NONE
    if second - best < c.min_margin:
        return TIED
    if agreement < c.min_agreement:
        return "partly covered or mixed"
    return None


def _road_distance(points: FloatArray, model: BoardModel) -> FloatArray:
    """Distance to the nearest road or river printed on a Shangri-La board: the road
    from village to village bends through its bridge's spot (a quadratic curve), the
    river crosses it there."""
    centres = {v.id: np.array(v.centre_mm) for v in model.villages}
    t = np.linspace(0.0, 1.0, 24)[:, None]
    nearest = np.full(len(points), np.inf)
    for bridge in model.of_kind("bridge"):
        a, b = (int(x) for x in bridge.name.split(" ")[1].split("-"))
        spot = np.array(bridge.centre_mm)
        control = 2.0 * spot - (centres[a] + centres[b]) / 2.0
        curve = (1 - t) ** 2 * centres[a] + 2 * (1 - t) * t * control + t**2 * centres[b]
        d = np.linalg.norm(points[:, None, :] - curve[None], axis=2).min(axis=1)
        river = np.linalg.norm(points - spot, axis=1) - _RIVER_HALF_LENGTH_MM
        nearest = np.minimum(nearest, np.minimum(d, np.maximum(river, 0.0)))
    return nearest


def _distance_to_rectangle(points: FloatArray, element: Element) -> FloatArray:
    a = math.radians(element.angle_deg)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    local = (points - np.array(element.centre_mm)) @ rot.T
    outside = np.maximum(np.abs(local) - np.array(element.size_mm) / 2.0, 0.0)
    return np.asarray(np.linalg.norm(outside, axis=1))


def _frame_problem(frame: Any, view: BoardView) -> str | None:
    """Why ``frame`` cannot be read at all, or ``None``."""
    if frame is None:
        return "no picture"
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
        return "the picture is not an 8-bit image"
    if frame.ndim != 3 or frame.shape[2] != 3:
        return "the picture is not a colour (BGR) image"
    if frame.shape[0] < 16 or frame.shape[1] < 16:
        return "the picture is empty or tiny"
    if (frame.shape[1], frame.shape[0]) != tuple(view.image_size):
        return (
            f"the picture is {frame.shape[1]}x{frame.shape[0]} but the board was "
            f"located in a {view.image_size[0]}x{view.image_size[1]} one"
        )
    return None
