"""Reading ShenShi's monks, once the tiles and cushions beneath them are read
(:class:`MonkReading`, the monk half of :class:`vision.read_shenshi.ShenshiReader`).

A monk is read where it shows past its seat (a cushion, a tile, both, or the bare
board; over a tile or cushion not read, at each seat it may have, which must read
alike):

- its **metal** on its robe, read low enough in slanted views that the rays past an
  empty seat still meet it; against the colours that lie beneath it (the tile's or
  cushion's print, the cushion's top as this frame shows it, with and without the
  glare measured on it) and the metals in play;
- **no monk** where the robe is unsure between a metal and its seat but the line
  across where its crossed legs would be shows no metal over more than a few mm; and
  a robe like its seat is not taken for no monk where that line shows a metal, or
  where it is far darker than its seat as the frame shows it;
- on a faded mandala, a robe unsure between a metal and the print is the **metal
  whose legs** are as wide as a monk's across that line;
- its **size** by the width of its crossed legs across the line of sight (a Grand
  Master's are wider), else by the legs' reach towards the camera and, in oblique
  views, its head;
- a monk read behind another that could stand in front of its robe is not kept;
- a **grey robe**, silver or black (glare and shade make both grey), is the one of the
  two whose monk of its size is not read elsewhere on the table: the set has one monk
  of each metal and size.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from engines.observation import UNKNOWN, Reading
from engines.shenshi.board import load_board, square_name
from vision.models import BoardModel, Element
from vision.read import (
    COVERED,
    LEGS_HIDDEN,
    MONK_IN_FRONT,
    SEAT_NOT_READ,
    UNSEEN_REASONS,
    BoardReader,
)
from vision.read_colour import (
    EPS,
    FloatArray,
    Light,
    colour_distance,
    features_of,
    linear_of,
)
from vision.read_config import (
    BLOND_BGR,
    FADED_BGR,
    HALL_BGR,
    INTACT_BGR,
    ORANGE_BGR,
    ReadConfig,
)
from vision.view import BoardView

NONE = "none"
"""The value of a square without a tile, cushion or monk."""
# the metals told apart by brightness alone
_GREY_METALS = frozenset({"silver", "black"})
_ROBE_POINTS = 16
_LEG_POINTS = 8
_HEAD_POINTS = 8
# points across the crossed legs, square to the camera's direction, from side to side
_ACROSS_POINTS = 49
_PER_SEAT = _ROBE_POINTS + _LEG_POINTS + _HEAD_POINTS + _ACROSS_POINTS
_PARTS = (
    slice(0, _ROBE_POINTS),
    slice(_ROBE_POINTS, _ROBE_POINTS + _LEG_POINTS),
    slice(_ROBE_POINTS + _LEG_POINTS, _ROBE_POINTS + _LEG_POINTS + _HEAD_POINTS),
    slice(_ROBE_POINTS + _LEG_POINTS + _HEAD_POINTS, _PER_SEAT),
)
_MIXED = "partly covered or mixed"
_GREY = "black or silver: its robe is grey (glare or shade)"
_TOO_CLOSE = "a monk or what it would sit on: too close to tell"
_FAR = "looks like no monk and nothing a monk sits on"
# Sample heights along a ray when looking for what could hide a point.
_RAY_STEPS = 12
_Parts = tuple[FloatArray, FloatArray, FloatArray, NDArray[np.bool_], FloatArray | None]
"""A monk's samples at one seat: legs, head (both seen only), the line across the legs
(all of it), which of that line are seen, and the robe's median colour."""


class MonkReading(BoardReader):
    """The monks of a ShenShi table (see the module's docstring): the squares, their
    seats and the monks' colours. The tiles and cushions are read first (by the
    subclass), which leaves ``_tile_guess`` and ``_cushion_guess`` (the nearest
    colour of each tile left unread, and of each cushion left unread in view),
    ``_cushion_tops`` (each read cushion's top as this frame shows it) and
    ``_tile_bands`` (each faded tile's band as this frame shows it)."""

    def __init__(
        self,
        model: BoardModel | None = None,
        config: ReadConfig | None = None,
        metals: Sequence[str] | None = None,
    ) -> None:
        """``metals``: the monks' metals in play (default all four): a robe is read as
        one of these only. Raises ``ValueError`` for a metal the board model does not
        know."""
        super().__init__("shenshi", model, config)
        self.special_kinds = frozenset({"monk"})
        p = self.model.pieces
        self._tile_z = p["tile_thickness_mm"]
        self._cushion_z = p["cushion_height_mm"]
        # the seats a monk may have: the board, a tile, a cushion, a cushion on a tile
        self._seats = (0.0, self._tile_z, self._cushion_z, self._tile_z + self._cushion_z)
        self._squares = [e.name.split(" ")[0] for e in self.elements if e.kind == "tile"]
        self._tiles: dict[str, Element] = {
            e.name.split(" ")[0]: e for e in self.elements if e.kind == "tile"
        }

        self._marked = {square_name(s) for s in load_board().marked}
        # each cushion's colours (top, middle, tuft, tuft blurred into the middle)
        self._cushion_features = {
            name: features_of(np.array([linear_of(c) for c in colours]))
            for name, colours in (("blond", BLOND_BGR), ("orange", ORANGE_BGR))
        }
        self._cushion_tops: dict[str, FloatArray] = {}
        self._tile_bands: dict[str, FloatArray] = {}
        self._cushion_guess: dict[str, str | None] = {}
        self._tile_guess: dict[str, str | None] = {}
        monk = self.kinds["monk"]
        known = [n for n in monk.names if n != NONE]
        if metals is not None and not set(metals) <= set(known):
            raise ValueError(
                f"unknown metals {sorted(set(metals) - set(known))}: "
                f"ShenShi's monks are {', '.join(known)}"
            )
        self._metal_names = [n for n in known if metals is None or n in metals]
        self._metal_colours = np.array(
            [monk.prototypes[monk.owner == monk.names.index(m)][0] for m in self._metal_names]
        )
        self._head_cue = np.zeros(len(self._squares), dtype=bool)
        self._tuft_seen = np.ones(len(self._squares), dtype=bool)
        self._beneath_cache: dict[tuple[str, object, object, bool], NDArray[np.bool_]] = {}
        # every colour that can lie under a monk, once: a square's set is a mask of it
        self._under = tuple(
            dict.fromkeys(HALL_BGR + INTACT_BGR + FADED_BGR + BLOND_BGR + ORANGE_BGR)
        )
        self._under_features = features_of(np.array([linear_of(c) for c in self._under]))
        # the cushions' dark tufts: points may fall on one, a median of them not
        self._tufts = np.array([c in (BLOND_BGR[2], ORANGE_BGR[2]) for c in self._under])
        self._under_brightness = self._under_features.mean(axis=1)
        self._occluders: list[list[int]] = [[] for _ in self._squares]

    # --- where to look -------------------------------------------------------------------

    def _extra_points(self, view: BoardView) -> FloatArray:
        """Per square and seat height: the robe's points, the legs' points and the
        points where only a Grand Master's head is."""
        c = self.config
        robe = _disc(_ROBE_POINTS, c.monk_robe_mm)
        head = _disc(_HEAD_POINTS, c.monk_head_mm)
        camera = view.camera_mm()
        above = self.model.pieces["grand_height_mm"] - self.model.pieces["master_height_mm"]
        blocks, head_cue, tuft_seen, robe_heights = [], [], [], []
        for square in self._squares:
            centre = np.array(self._tiles[square].centre_mm)
            legs = _facing_arc(centre, camera, c.monk_arm_mm)
            # the head tells only where a ray past a master's head misses it
            slant = (
                math.inf
                if camera is None or camera[2] <= 0
                else float(np.linalg.norm(camera[:2] - centre)) / camera[2]
            )
            head_cue.append(camera is not None and above / 2 * slant > c.monk_head_miss_mm)
            robe_height = _robe_height(slant, c)
            robe_heights.append(robe_height)
            # without a monk, the robe's rays meet the cushion this far beyond them
            tuft_seen.append(robe_height * slant < c.cushion_tuft_mm + c.monk_robe_mm)
            across = _across(centre, camera, c.monk_across_mm)
            for seat in self._seats:
                for points, z in (
                    (robe, robe_height),
                    (legs - centre, c.monk_leg_height_mm),
                    (head, c.monk_head_height_mm),
                    (across, c.monk_across_height_mm),
                ):
                    blocks.append(
                        np.column_stack([points + centre, np.full(len(points), seat + z)])
                    )
        self._head_cue = np.array(head_cue)
        self._tuft_seen = np.array(tuft_seen)
        self._occluders = self._neighbours_in_front(camera, robe, robe_heights)
        return np.vstack(blocks)

    def _neighbours_in_front(
        self, camera: FloatArray | None, robe: FloatArray, robe_heights: list[float]
    ) -> list[list[int]]:
        """For each square, the neighbouring squares whose monk, if there is one, could
        stand between the camera and this square's monk's robe (read ``robe_heights``
        above the seat)."""
        if camera is None:
            return [[] for _ in self._squares]
        p = self.model.pieces
        seat = self._seats[-1]
        tall = (p["grand_base_mm"] / 2.0, True, seat, seat + p["grand_height_mm"])
        centres = [np.array(self._tiles[s].centre_mm) for s in self._squares]
        pitch = self.model.pieces["tile_mm"] + 3.0  # the squares are a little wider
        out = []
        for q, centre in enumerate(centres):
            points = np.column_stack([robe + centre, np.full(len(robe), seat + robe_heights[q])])
            out.append(
                [
                    k
                    for k, other in enumerate(centres)
                    if k != q
                    and np.linalg.norm(other - centre) < 1.5 * pitch
                    and hidden_by(points, camera, other, [tall]).any()
                ]
            )
        return out

    def _rests_on(self, element: str, why: str | None) -> str | None:
        """A monk not read because its seat was not: its cushion's abstention."""
        if why == SEAT_NOT_READ:
            return element.replace(" monk", " cushion")
        return super()._rests_on(element, why)

    # --- the monks ---------------------------------------------------------------------------

    def _read_extra(
        self,
        linear: FloatArray,
        hidden: NDArray[np.bool_],
        light: Light,
        classes: dict[int, int],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        per_seat = _PER_SEAT
        centres = np.array([self._tiles[s].centre_mm for s in self._squares])
        samples = linear.reshape(len(self._squares), len(self._seats), per_seat, 3)
        seen = ~hidden.reshape(len(self._squares), len(self._seats), per_seat)
        seats = {square: self._seats_of(square, readings, reasons) for square in self._squares}
        # every square's samples at its seats, in one pass
        pairs = [(q, seat) for q, square in enumerate(self._squares) for seat in seats[square]]
        if pairs:
            rows, columns = np.array(pairs).T
            features = self._albedo(samples[rows, columns], centres[rows], light)
            sample_d, median_d, robe_seen, grey = self._robe_distances(
                features[:, _PARTS[0]], seen[rows, columns][:, _PARTS[0]]
            )
        where = {pair: k for k, pair in enumerate(pairs)}
        grey_robes: dict[int, list[_Parts]] = {}
        for q, square in enumerate(self._squares):
            name = f"{square} monk"
            if not seats[square]:
                readings[name] = UNKNOWN
                reasons[name] = SEAT_NOT_READ
                continue
            beneath = self._beneath(square, readings)
            allowed = self._seat_allowed(square, readings)
            parts, colours = [], []
            for seat in seats[square]:
                k = where[(q, seat)]
                here, visible = features[k], seen[q, seat]
                robe = here[_PARTS[0]][robe_seen[k]]
                parts.append(
                    (
                        here[_PARTS[1]][visible[_PARTS[1]]],
                        here[_PARTS[2]][visible[_PARTS[2]]],
                        here[_PARTS[3]],
                        visible[_PARTS[3]],
                        np.median(robe, axis=0) if len(robe) else None,
                    )
                )
                # read as the frame shows it and with the glare its cushion shows
                # taken off: where the two disagree, the glare decides, and it is
                # measured too roughly for that
                both = []
                for unglare in (False, True):
                    robe_d, robe_median_d, here_beneath, tufts, brightness = (
                        self._with_cushion_seen(
                            square,
                            readings,
                            features[k][_PARTS[0]][robe_seen[k]],
                            sample_d[k][robe_seen[k]],
                            median_d[k],
                            beneath,
                            float(grey[k]),
                            unglare,
                        )
                    )
                    both.append(
                        self._colour(
                            robe_d, robe_median_d, here_beneath, tufts, allowed, brightness
                        )
                    )
                if both[0][0] != both[1][0]:
                    both[0] = (None, 0.0, "glare on its cushion: its metal is unsure")
                colours.append(both[0])
            # no legs, no monk: not over a cushion not read, whose glare is not
            # measured (black legs lifted to grey look like no metal in play)
            if readings[f"{square} cushion"].known and self._legless(
                colours, parts, self._beneath(square, readings, middle=False)
            ):
                colours = [(NONE, self.config.no_legs_confidence, "")]
            elif allowed and all(value == NONE for value, _, _ in colours):
                doubt = self._monk_not_ruled_out(square, readings, parts)
                if doubt is not None:
                    colours = [(None, 0.0, doubt)]
            elif (
                readings[f"{square} tile"].value == "faded"
                and readings[f"{square} cushion"].value == NONE
                and colours[0][2] in (_TOO_CLOSE, _MIXED)
            ):
                metal = self._metal_by_legs(parts, self._beneath(square, readings, middle=False))
                if metal is not None:
                    colours = [(metal, self.config.no_legs_confidence, "")]
            value, sureness, why = colours[0]
            if any(other[0] != value for other in colours[1:]):
                value, why = None, "a monk or not: its seat's height is unsure"
            if (
                all(other[2] == _GREY for other in colours)
                and readings[f"{square} cushion"].known
                and not any(robe is not None and self._copper_like(robe) for *_, robe in parts)
            ):
                grey_robes[q] = parts
            if value == "black" and any(
                robe is not None and self._copper_in_shade(robe) for *_, robe in parts
            ):
                value, why = None, "black or copper: its robe is dark (shade)"
            if value not in (None, NONE) and not readings[f"{square} cushion"].known:
                # over a cushion not read, only "no monk" is read: glare on an
                # unread cushion is not measured, and it turns black robes grey
                value, why = None, SEAT_NOT_READ
            elif value == NONE and self._cushion_guess.get(square) in ("blond", "orange"):
                # ... and only where the colour of its place is not nearest a
                # cushion's: one there under glare may hold a black monk turned grey,
                # as dark as the dark stone a "no monk" is read against
                value, why = None, SEAT_NOT_READ
            if value is not None and value != NONE:
                around = self._beneath(square, readings, middle=False)
                sizes = [
                    self._size(
                        legs,
                        head,
                        value,
                        around,
                        bool(self._head_cue[q]),
                        across,
                        across_seen,
                        robe,
                    )
                    for legs, head, across, across_seen, robe in parts
                ]
                size, size_sureness, why = sizes[0]
                if any(other[0] != size for other in sizes[1:]):
                    size, why = None, "Grand Master or master: its seat's height is unsure"
                value = None if size is None else f"{value}-{size}"
                sureness *= size_sureness
            if value is None:
                readings[name] = UNKNOWN
                reasons[name] = why
            else:
                readings[name] = Reading(value, round(sureness, 4))
        self._hide_behind_monks(readings, reasons, range(len(self._squares)))
        if self.config.one_monk_each:
            self._one_of_each(readings, reasons)
        self._grey_by_elimination(grey_robes, readings, reasons)
        self._hide_behind_monks(readings, reasons, grey_robes)

    def _hide_behind_monks(
        self, readings: dict[str, Reading], reasons: dict[str, str], squares: Iterable[int]
    ) -> None:
        """A monk on a square nearer the camera may stand in front of the robe of one
        of ``squares`` (indices): that one is not kept."""
        for q in squares:
            name = f"{self._squares[q]} monk"
            if readings[name].known and any(
                readings[f"{self._squares[k]} monk"].value != NONE for k in self._occluders[q]
            ):
                readings[name] = UNKNOWN
                reasons[name] = MONK_IN_FRONT

    def _one_of_each(self, readings: dict[str, Reading], reasons: dict[str, str]) -> None:
        """The set has one monk of each metal and size (RULINGS 3.1): where one is read
        on two squares, only the clearly surer reading (by ``duplicate_margin``) is
        kept, else neither."""
        by_value: dict[object, list[str]] = {}
        for square in self._squares:
            reading = readings[f"{square} monk"]
            if reading.known and reading.value != NONE:
                by_value.setdefault(reading.value, []).append(f"{square} monk")
        for names in by_value.values():
            if len(names) < 2:
                continue
            names.sort(key=lambda n: -readings[n].confidence)
            sure = (
                readings[names[0]].confidence - readings[names[1]].confidence
                >= self.config.duplicate_margin
            )
            for name in names[1:] if sure else names:
                readings[name] = UNKNOWN
                reasons[name] = "read on another square too: the set has one of each monk"

    def _grey_by_elimination(
        self, grey: dict[int, list[_Parts]], readings: dict[str, Reading], reasons: dict[str, str]
    ) -> None:
        """Read the grey robes (``grey``: square index -> its parts at each seat it may
        have) by the set's parts: one monk of each metal and size (RULINGS 3.1: each
        player's Grand Master and master, the two black ones). Where the legs give
        the same size for silver and for black, at every seat, and the monk of that
        size of one of the two metals is read elsewhere on the table (not a grey
        robe), this one is of the other metal, as sure as the least of its size, that
        other reading and a reading by the rules alone (``unseated_confidence``).
        Not where one metal and size is read on two squares (no set has two: the
        readings are not to be trusted that far)."""
        if not grey or not set(self._metal_names) >= _GREY_METALS:
            return
        monks = [readings[f"{s} monk"] for s in self._squares]
        monks = [m for m in monks if m.known and m.value != NONE]
        if len({m.value for m in monks}) < len(monks):
            return  # a monk read twice: the readings are not of one set
        read_elsewhere = {m.value: m.confidence for m in monks}
        for q, parts in grey.items():
            square = self._squares[q]
            around = self._beneath(square, readings, middle=False)
            sizes = {
                self._size(
                    legs, head, metal, around, bool(self._head_cue[q]), across, across_seen, robe
                )[:2]
                for metal in _GREY_METALS
                for legs, head, across, across_seen, robe in parts
            }
            names = {size for size, _ in sizes}
            if len(names) != 1 or None in names:
                continue
            size = names.pop()
            taken = [m for m in sorted(_GREY_METALS) if f"{m}-{size}" in read_elsewhere]
            if len(taken) != 1:
                continue
            metal = next(iter(_GREY_METALS - set(taken)))
            sureness = min(
                min(s for _, s in sizes),
                read_elsewhere[f"{taken[0]}-{size}"],
                self.config.unseated_confidence,
            )
            readings[f"{square} monk"] = Reading(f"{metal}-{size}", round(sureness, 4))
            reasons.pop(f"{square} monk", None)

    def _on_metal(
        self, points: FloatArray, metal: str, colour: FloatArray, beneath: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """Which ``points`` look more like ``metal`` (``colour``: its colours) than like
        any colour ``beneath``: by colour rather than brightness (a metal's side facing
        away from the light is dark), black by its darkness (it has no colour)."""
        c = self.config
        weight = c.brightness_weight if metal == "black" else c.leg_brightness_weight
        return np.asarray(
            colour_distance(points, colour, weight).min(axis=1)
            < colour_distance(points, self._under_features[beneath], weight).min(axis=1)
        )

    def _legless(
        self,
        colours: list[tuple[str | None, float, str]],
        parts: list[
            tuple[FloatArray, FloatArray, FloatArray, NDArray[np.bool_], FloatArray | None]
        ],
        beneath: NDArray[np.bool_],
    ) -> bool:
        """Whether a square whose robe is unsure between a metal and its seat (or
        mixed, or like neither) at one of its possible seats at least, and "none" at
        the others, shows no legs at one of them (:meth:`_no_legs`): the seats differ
        by a tile's 2 mm, and a monk's legs at either would cross the line of the
        other; not where the line's middle is darker than the rest of it at any seat
        (legs in shade: ``legs_shade``)."""
        unsure = [value is None and why in (_MIXED, _TOO_CLOSE, _FAR) for value, _, why in colours]
        if not any(unsure) or not all(
            u or value == NONE for (value, _, _), u in zip(colours, unsure, strict=True)
        ):
            return False
        if any(_shaded_middle(across, self.config.legs_shade) for _, _, across, _, _ in parts):
            return False
        return any(
            self._no_legs(across, across_seen, robe, beneath)
            for _, _, across, across_seen, robe in parts
        )

    def _copper_like(self, robe: FloatArray) -> bool:
        """Whether a grey robe (``robe``: its median colour) is not clearly nearer
        silver or black than copper by colour (``grey_copper_margin``): copper in a
        dim light is a brownish grey."""
        if "copper" not in self._metal_names:
            return False
        names = ("copper", *sorted(_GREY_METALS & set(self._metal_names)))
        colours = np.vstack([self._metal_colours[self._metal_names.index(m)] for m in names])
        d = colour_distance(robe[None], colours, self.config.leg_brightness_weight)[0]
        return bool(d[0] - d[1:].min() < self.config.grey_copper_margin)

    def _copper_in_shade(self, robe: FloatArray) -> bool:
        """Whether a robe read black (``robe``: its median colour) is not clearly
        nearer black than copper by colour rather than brightness
        (``black_colour_margin``): copper in deep shade is as dark as black, its
        colour still apart."""
        if "copper" not in self._metal_names:
            return False
        colours = np.vstack(
            [self._metal_colours[self._metal_names.index(m)] for m in ("black", "copper")]
        )
        black, copper = colour_distance(robe[None], colours, self.config.leg_brightness_weight)[0]
        return bool(copper - black < self.config.black_colour_margin)

    def _metal_by_legs(self, parts: list[_Parts], beneath: NDArray[np.bool_]) -> str | None:
        """The metal of a monk on a faded mandala whose robe is unsure between a metal
        and the print's middle (silver and the print's light blue are alike): the
        metal nearest the robe's colour at every seat it may have, where it is the
        one metal in play whose run across where the legs would be is as wide as a
        monk's legs (``monk_width_mm``, a master's narrowest at least), else
        ``None``. The print's petals never read so wide; dark legs in glare can read
        silver by colour, so the legs confirm the robe's metal, never choose it."""
        least = self.config.monk_width_mm[0]
        nearest = {
            self._metal_names[
                int(
                    np.argmin(
                        colour_distance(
                            robe[None], self._metal_colours, self.config.brightness_weight
                        )[0]
                    )
                )
            ]
            if robe is not None
            else None
            for *_, robe in parts
        }
        wide = []
        for k, metal in enumerate(self._metal_names):
            colour = self._metal_colours[k][None]
            widths = [
                self._legs_width(
                    across, across_seen, self._on_metal(across, metal, colour, beneath), beneath
                )
                for _, _, across, across_seen, _ in parts
            ]
            if all(width is not None and width >= least for width in widths):
                wide.append(metal)
        return wide[0] if len(wide) == 1 and nearest == {wide[0]} else None

    def _monk_not_ruled_out(
        self, square: str, readings: dict[str, Reading], parts: list[_Parts]
    ) -> str | None:
        """Why a robe read as no monk on a seat the rules allow one is not kept, or
        ``None``: a monk whose metal the light turns towards its seat's colours
        (copper or silver in a warm light, black lifted by glare) still shows

        - a robe darker than its seat as this frame shows it (its cushion's top,
          its faded tile's band: the colours a robe's points see without a monk are
          no darker than these by more than ``none_darker_than_seat``);
        - legs: the line across them, all of it seen, shows a metal in play over
          more than ``no_legs_run_mm`` in a row."""
        c = self.config
        seat = (
            self._cushion_tops.get(square)
            if readings[f"{square} cushion"].value in ("blond", "orange")
            else self._tile_bands.get(square)
        )
        if seat is not None and any(
            robe is not None and float(robe.mean()) < float(seat.mean()) - c.none_darker_than_seat
            for *_, robe in parts
        ):
            return "darker than what it would sit on: a dark monk?"
        beneath = self._beneath(square, readings, middle=False)
        step = 2.0 * c.monk_across_mm / (_ACROSS_POINTS - 1)
        for _, _, across, across_seen, _ in parts:
            if not across_seen.all():
                continue
            runs = [
                _longest_run(self._on_metal(across, metal, self._metal_colours[k][None], beneath))
                for k, metal in enumerate(self._metal_names)
            ]
            if max(runs) * step > c.no_legs_run_mm:
                return "no monk by its robe, but its legs show"
        return None

    def _no_legs(
        self,
        across: FloatArray,
        across_seen: NDArray[np.bool_],
        robe: FloatArray | None,
        beneath: NDArray[np.bool_],
    ) -> bool:
        """Whether the line across where a monk's crossed legs would be shows no legs:
        all of it seen, and neither skin (a hand over the legs) nor a metal in play
        (its own colour or the robe's as this frame shows it: glare and a seat near
        the metal's colour move both alike) on more than ``no_legs_run_mm`` of it in a
        row, or on none of the middle ``no_legs_gap_mm`` of it. A master's legs are
        15 mm wide; a printed mandala's middle, which a robe's points can take for
        silver, shows only short runs of anything metal-like, and a faded mandala's
        petals and ring, which can run long, lie either side of its middle."""
        c = self.config
        step = 2.0 * c.monk_across_mm / (_ACROSS_POINTS - 1)
        if (
            not across_seen.all()
            or _longest_run(self._skin_on(across, beneath)) * step > c.no_legs_run_mm
        ):
            return False
        metal_like = np.zeros(len(across), dtype=bool)
        longest = 0
        for k, metal in enumerate(self._metal_names):
            colour = self._metal_colours[k][None]
            if robe is not None:
                colour = np.vstack([colour, robe[None]])
            on = self._on_metal(across, metal, colour, beneath)
            metal_like |= on
            longest = max(longest, _longest_run(on))
        return (
            longest * step <= c.no_legs_run_mm or _middle_gap(metal_like) * step >= c.no_legs_gap_mm
        )

    def _skin_on(self, points: FloatArray, beneath: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """Which ``points`` look more like skin than like any colour ``beneath``."""
        w = self.config.brightness_weight
        return np.asarray(
            colour_distance(points, self._foreign, w).min(axis=1)
            < colour_distance(points, self._under_features[beneath], w).min(axis=1)
        )

    def _legs_width(
        self,
        across: FloatArray,
        across_seen: NDArray[np.bool_],
        on_line: NDArray[np.bool_],
        beneath: NDArray[np.bool_],
    ) -> float | None:
        """The width (mm) of the crossed legs on the line ``across`` (``on_line``: its
        points on the metal), or ``None`` where it cannot be measured; what looks more
        like skin than like the seat is not seen (a hand beside the legs would end
        them early)."""
        step = 2.0 * self.config.monk_across_mm / (_ACROSS_POINTS - 1)
        return _run_width(on_line, across_seen, ~self._skin_on(across, beneath), step)

    def _looks_like_seat(self, metal: FloatArray, beneath: NDArray[np.bool_]) -> bool:
        """Whether a metal's colour is near one of the colours beneath it (colour
        rather than brightness)."""
        c = self.config
        return bool(
            colour_distance(
                metal[None], self._under_features[beneath], c.leg_brightness_weight
            ).min()
            < c.metal_like_seat
        )

    def _with_cushion_seen(
        self,
        square: str,
        readings: dict[str, Reading],
        robe: FloatArray,
        sample_d: FloatArray,
        median_d: FloatArray,
        beneath: NDArray[np.bool_],
        brightness: float,
        unglare: bool,
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], NDArray[np.bool_], float]:
        """The robe's distances (samples', median's), the masks of what lies beneath
        and of the cushions' tufts among those colours, and the median's brightness,
        set by the cushion's top as this frame shows it (``unglare``: with the
        glare measured on it taken off).

        Glare is measured on the board's margins, and a reflection in the middle of
        the board is missed there: it lifts black towards grey and an orange
        cushion's weak blue (which had made its middle look like copper, and black
        monks like the cushion's dark tuft). White light added shows on the cushion's
        top as the same excess in every channel over the printed cushion (brighter
        light, in proportion to each channel): that much is taken off the robe here.
        The colours an empty cushion would then show (its top as seen, and its middle
        and tuft at the printed cushion's ratios to it) join what lies beneath."""
        ring = self._cushion_tops.get(square)
        cushion = readings[f"{square} cushion"].value
        if ring is None or len(robe) == 0 or cushion not in ("blond", "orange"):
            return sample_d, median_d, beneath, self._tufts, brightness
        c = self.config
        palette = self._cushion_features[str(cushion)]
        # seen = k * (printed + glare) per channel: brighter light (k) shows in
        # proportion to each channel, glare the same in all of them
        printed = np.exp(palette[0]) - EPS
        (slope, offset), *_ = np.linalg.lstsq(
            np.column_stack([printed, np.ones(3)]), (np.exp(ring) - EPS) - printed, rcond=None
        )
        glare = max(0.0, float(offset) / max(1.0 + float(slope), 0.1)) if unglare else 0.0

        def unglared(features: FloatArray) -> FloatArray:
            linear = np.exp(features) - EPS
            return features_of(np.maximum(linear - glare, c.local_glare_floor * linear))

        robe = unglared(robe)
        top = unglared(ring)
        shown = palette if self._tuft_seen[self._squares.index(square)] else palette[:2]
        colours = np.vstack([self._under_features, top + (shown - palette[0]), self._metal_colours])
        median = np.median(robe, axis=0)
        w = c.brightness_weight
        return (
            colour_distance(robe, colours, w),
            colour_distance(median[None], colours, w)[0],
            np.concatenate([beneath, np.ones(len(shown), dtype=bool)]),
            np.concatenate([self._tufts, np.arange(len(shown)) == 2]),
            float(median.mean()),
        )

    def _robe_distances(
        self, robes: FloatArray, seen: NDArray[np.bool_]
    ) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], FloatArray]:
        """For robes' samples (P, K, 3) and which are seen (P, K): every sample's and
        the median's distances to the colours under a monk and to the metals, the
        samples that count (seen, and nearer one of those than any skin), and the
        median's brightness (mean log light, P)."""
        w = self.config.brightness_weight
        colours = np.vstack([self._under_features, self._metal_colours])
        sample_d = colour_distance(robes, colours, w)  # (P, K, U + 4)
        skin = colour_distance(robes, self._foreign, w).min(axis=2)
        counted = seen & (skin >= sample_d.min(axis=2))
        median = np.median(robes, axis=1)
        partly = ~counted.all(axis=1) & counted.any(axis=1)
        if partly.any():
            median[partly] = np.nanmedian(
                np.where(counted[partly][:, :, None], robes[partly], np.nan), axis=1
            )
        return sample_d, colour_distance(median, colours, w), counted, median.mean(axis=1)

    def _seats_of(
        self, square: str, readings: dict[str, Reading], reasons: dict[str, str]
    ) -> list[int]:
        """The seat heights (indices of ``_seats``) a monk on ``square`` may have, from
        its tile and cushion: one when both are read; with and without each one not
        read (what is read must then read alike on all of them); none when the
        cushion is out of sight (a hand over it)."""
        tile, cushion = readings[f"{square} tile"], readings[f"{square} cushion"]
        if reasons.get(f"{square} cushion") in UNSEEN_REASONS:
            return []
        cushions = [2 * (cushion.value != NONE)] if cushion.known else [0, 2]
        tiles = [int(tile.value != NONE)] if tile.known else [0, 1]
        return [on_cushion + on_tile for on_cushion in cushions for on_tile in tiles]

    def _seat_allowed(self, square: str, readings: dict[str, Reading]) -> bool:
        """Whether the rules allow a monk here: a cushion, or a faded tile (or a tile
        not read on a marked square, which may be one, unless its colour is nearest an
        intact mandala's, which an unread faded tile's is not; off the marked squares
        the rules never put a tile, so one not read there, a hand over it, is no
        seat)."""
        tile = readings[f"{square} tile"]
        return (
            readings[f"{square} cushion"].value != NONE
            or tile.value == "faded"
            or (
                not tile.known
                and square in self._marked
                and self._tile_guess.get(square) != "intact"
            )
        )

    def _beneath(
        self, square: str, readings: dict[str, Reading], middle: bool = True
    ) -> NDArray[np.bool_]:
        """What a monk would hide, as a mask over the colours that can lie under one:
        its cushion, else its tile, else the square's own stone; ``middle``: under its
        robe (a cushion's tuft, where this view shows it there), not its legs."""
        cushion = readings[f"{square} cushion"].value
        tile = readings[f"{square} tile"].value
        # the dark tuft in a cushion's middle shows past the robe only in steep views
        middle = middle and bool(self._tuft_seen[self._squares.index(square)])
        key = (square, cushion, tile, middle)
        if key not in self._beneath_cache:
            colours = set(self._beneath_colours(square, cushion, tile, middle))
            self._beneath_cache[key] = np.array([c in colours for c in self._under])
        return self._beneath_cache[key]

    def _beneath_colours(
        self, square: str, cushion: object, tile: object, middle: bool
    ) -> tuple[tuple[int, int, int], ...]:
        if cushion in ("blond", "orange"):
            colours = BLOND_BGR if cushion == "blond" else ORANGE_BGR
            return colours if middle else colours[:2]  # the dark tuft is in the middle
        if cushion is None:  # not read: either cushion, or what lies without one
            return (
                *self._beneath_colours(square, "blond", tile, middle),
                *self._beneath_colours(square, "orange", tile, middle),
                *self._beneath_colours(square, NONE, tile, middle),
            )
        if tile in ("intact", "faded"):
            return INTACT_BGR if tile == "intact" else FADED_BGR
        own = 2 if square in self._marked else (ord(square[0]) - ord("a") + int(square[1:])) % 2
        if tile is None:  # not read: any tile, or none
            return (HALL_BGR[own], *INTACT_BGR, *FADED_BGR)
        return (HALL_BGR[own],)

    def _colour(
        self,
        sample_d: FloatArray,
        median_d: FloatArray,
        beneath: NDArray[np.bool_],
        tufts: NDArray[np.bool_],
        seat_allowed: bool,
        brightness: float,
    ) -> tuple[str | None, float, str]:
        """(metal or "none", sureness, why not) of a robe: ``sample_d`` (K, U + 4) and
        ``median_d`` (U + 4,) are its samples' and their median's distances to the
        colours that can lie under a monk, then to the metals; ``beneath``: the mask of
        those that lie here; ``tufts``: the cushions' dark tufts among them (small: a
        few points may fall on one, their median not); ``seat_allowed``: a cushion or
        a faded tile is there (the only seats the rules allow); ``brightness``: the
        median's mean log light."""
        c = self.config
        if len(sample_d) < _ROBE_POINTS // 2:
            return None, 0.0, COVERED
        metals = len(self._metal_names)
        columns = np.concatenate([beneath, np.ones(metals, dtype=bool)])
        owner = np.concatenate(
            [np.zeros(int(beneath.sum()), dtype=np.intp), np.arange(1, metals + 1)]
        )
        d = np.where(np.concatenate([tufts, np.zeros(metals, dtype=bool)]), np.inf, median_d)[
            columns
        ]
        per_class = np.array([d[owner == k].min() for k in range(metals + 1)])
        order = np.argsort(per_class)
        best, margin = int(order[0]), float(per_class[order[1]] - per_class[order[0]])
        # a printed pattern's median can look like a metal none of its colours is:
        # most of the points themselves must agree
        votes = owner[np.argmin(sample_d[:, columns], axis=1)]
        if best != 0 and float(np.mean(votes == best)) < c.min_agreement:
            if not seat_allowed:
                return NONE, c.unseated_confidence, ""
            return None, 0.0, _MIXED
        if per_class[best] > c.max_distance:
            if not seat_allowed:
                return NONE, c.unseated_confidence, ""
            return None, 0.0, _FAR
        if not seat_allowed and per_class[0] - per_class[best] < c.unseated_margin:
            # the rules seat monks on cushions and faded tiles only: anything short of
            # a clear metal here is the bare stone or tile (a printed mandala's grey
            # middle, light stone, look like silver)
            return NONE, c.unseated_confidence, ""
        if margin < (c.none_min_margin if best == 0 else c.min_margin):
            return None, 0.0, _TOO_CLOSE
        if best != 0 and order[1] != 0 and margin < c.metal_margin:
            return None, 0.0, "between two metals"
        under = len(self._under)
        plain = np.flatnonzero(beneath[:under] & ~tufts[:under])
        if (
            best == 0
            and len(plain)
            and brightness
            < self._under_brightness[plain[np.argmin(median_d[plain])]] - c.none_darker_max
        ):
            # far darker than the colour beneath it looks like: a black monk under
            # glare, grey, is nearer a faded mandala's colours than black
            return None, 0.0, "darker than what it would sit on: a dark monk?"
        low, high = c.grey_metal_brightness
        if best != 0 and self._metal_names[best - 1] in _GREY_METALS and low < brightness < high:
            return None, 0.0, _GREY
        return (NONE if best == 0 else self._metal_names[best - 1]), min(1.0, 0.5 + margin), ""

    def _size(
        self,
        legs: FloatArray,
        head: FloatArray,
        metal: str,
        beneath: NDArray[np.bool_],
        head_cue: bool,
        across: FloatArray,
        across_seen: NDArray[np.bool_],
        robe: FloatArray | None = None,
    ) -> tuple[str | None, float, str]:
        """("grand" or "master", sureness, why not): by the width of its crossed legs
        across the line of sight (``across``: the line's samples, all of them, and
        which are seen) where it can be measured; else a Grand Master's legs reach past
        a master's towards the camera (``legs``) and, in oblique views, its head stands
        where a ray passes over a master (``head``); ``robe``: the robe's median
        colour, the metal as this frame shows it."""
        c = self.config
        colour = self._metal_colours[self._metal_names.index(metal)][None]
        if robe is not None:
            # the metal as this frame shows it on the robe, too: glare lifts black
            # legs to a grey nearer the cushion's colour than black's
            colour = np.vstack([colour, robe[None]])

        def on_metal(points: FloatArray) -> NDArray[np.bool_]:
            return self._on_metal(points, metal, colour, beneath)

        on_line = on_metal(across)
        middle = slice(_ACROSS_POINTS // 2 - 1, _ACROSS_POINTS // 2 + 2)
        if across_seen[middle].all() and not on_line[middle].any():
            # the robe's metal is not on the legs beneath it: a hand or a neighbour's
            # piece in front of the robe, not a monk of that metal
            return None, 0.0, "its legs are not the metal of its robe"
        width = self._legs_width(across, across_seen, on_line, beneath)
        by_width: tuple[str | None, float, str] | None = None
        if width is not None:
            least, master_most, grand_least = c.monk_width_mm
            split = (master_most + grand_least) / 2.0
            sureness = min(1.0, 0.5 + abs(width - split) / c.monk_width_scale_mm)
            if width >= grand_least:
                by_width = "grand", sureness, ""
            elif least <= width <= master_most:
                by_width = "master", sureness, ""
            else:
                return None, 0.0, "Grand Master or master: its width does not tell"
        votes = []
        for points, fewest in ((legs, _LEG_POINTS // 2), (head, _HEAD_POINTS // 2)):
            if len(points) < fewest or (points is head and not head_cue):
                continue
            votes.append(float(on_metal(points).mean()))
        by_votes: tuple[str | None, float, str]
        if not votes:
            by_votes = None, 0.0, LEGS_HIDDEN
        elif (
            any(c.min_size_share > share > 1.0 - c.min_size_share for share in votes)
            or len({share >= 0.5 for share in votes}) > 1
        ):
            by_votes = None, 0.0, "Grand Master or master: its legs and head do not tell"
        else:
            share = float(np.mean(votes))
            by_votes = ("grand" if share >= 0.5 else "master"), max(share, 1.0 - share), ""
        if by_width is None:
            return by_votes
        if by_votes[0] != by_width[0] and self._looks_like_seat(colour[0], beneath):
            # a metal near the colour of its seat (silver on a faded mandala) is told
            # from it too roughly for either cue alone: the width runs on over the
            # print's petals (a silver master seen from above measured 18.5 mm)
            return None, 0.0, "Grand Master or master: its width and legs disagree"
        return by_width


def _robe_height(slant: float, c: ReadConfig) -> float:
    """How high above its seat a monk's robe is read on a square seen at ``slant``
    (horizontal distance to the camera over its height): at most
    ``monk_robe_height_mm``, and low enough that, with no monk there, the rays through
    the robe's points still meet the seat's top within ``monk_robe_reach_mm`` of its
    middle. Higher in a slanted view, they pass over the seat and meet the square
    behind it: its light stone looks like a silver monk."""
    if slant <= 0.0:
        return c.monk_robe_height_mm
    return min(c.monk_robe_height_mm, (c.monk_robe_reach_mm - c.monk_robe_mm) / slant)


def _run_width(
    on: NDArray[np.bool_], seen: NDArray[np.bool_], beside: NDArray[np.bool_], step: float
) -> float | None:
    """The width (mm) of the run of ``on`` points through the middle of a line of
    points ``step`` apart; ``None`` when its middle is not on, when it runs into a
    point not seen or the line's end before two points in a row are off, or when
    what lies a little past its end is not what it stands on (``beside`` false: a
    hand beside the legs would end the run early)."""
    middle = len(on) // 2
    if not (seen[middle - 1 : middle + 2].all() and on[middle - 1 : middle + 2].all()):
        return None
    ends = []
    for direction in (1, -1):
        i = middle
        while True:
            i += direction
            j = i + direction
            if not 0 <= j < len(on) or not (seen[i] and seen[j]):
                return None
            if not on[i] and not on[j]:
                # past the blurred edge (a mix of metal and seat can look like skin)
                past = min(max(j + 2 * direction, 0), len(on) - 1)
                if not (beside[past] and seen[past]):
                    return None
                ends.append(i - direction / 2.0)
                break
    return abs(ends[0] - ends[1]) * step


def _shaded_middle(line: FloatArray, shade: float) -> bool:
    """Whether the middle of a line of samples (log colours, the middle eighth or so
    each side) is darker than the whole line's median by more than ``shade``."""
    brightness = line.mean(axis=1)
    middle = len(brightness) // 2
    reach = max(1, len(brightness) // 8)
    return bool(
        np.median(brightness[middle - reach : middle + reach + 1]) < np.median(brightness) - shade
    )


def _middle_gap(on: NDArray[np.bool_]) -> int:
    """How many points in a row around the middle of a line are not ``on`` (0 when
    its middle point is)."""
    middle = len(on) // 2
    if on[middle]:
        return 0
    ons = np.flatnonzero(on)
    before, after = ons[ons < middle], ons[ons > middle]
    first = before[-1] + 1 if len(before) else 0
    last = after[0] - 1 if len(after) else len(on) - 1
    return int(last - first + 1)


def _longest_run(on: NDArray[np.bool_]) -> int:
    """The most ``on`` points in a row."""
    longest = run = 0
    for point in on:
        run = run + 1 if point else 0
        longest = max(longest, run)
    return longest


def _disc(count: int, radius: float) -> FloatArray:
    """``count`` points spread over a disc (a sunflower spiral)."""
    k = np.arange(count) + 0.5
    r = radius * np.sqrt(k / count)
    a = k * math.pi * (3.0 - math.sqrt(5.0))
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def _across(centre: FloatArray, camera: FloatArray | None, reach: float) -> FloatArray:
    """Offsets (``_ACROSS_POINTS``, 2) from ``centre`` on a line through it square to
    the direction of the camera (along x when the camera looks straight down on it),
    ``reach`` to either side: a round piece's width along it shows whatever its
    height, and does not change as the piece is pushed along it."""
    if camera is None or np.linalg.norm(camera[:2] - centre) < 1.0:
        side = np.array([1.0, 0.0])
    else:
        towards = (camera[:2] - centre) / np.linalg.norm(camera[:2] - centre)
        side = np.array([-towards[1], towards[0]])
    return np.asarray(np.linspace(-reach, reach, _ACROSS_POINTS)[:, None] * side[None])


def _facing_arc(centre: FloatArray, camera: FloatArray | None, radius: float) -> FloatArray:
    """Points at ``radius`` around ``centre`` on the side facing the camera (all round
    when the camera looks straight down on it)."""
    if camera is None or np.linalg.norm(camera[:2] - centre) < radius:
        angles = np.linspace(0.0, 2.0 * math.pi, _LEG_POINTS, endpoint=False)
    else:
        towards = math.atan2(camera[1] - centre[1], camera[0] - centre[0])
        angles = towards + np.linspace(-0.9, 0.9, _LEG_POINTS)
    return np.column_stack(
        [centre[0] + radius * np.cos(angles), centre[1] + radius * np.sin(angles)]
    )


def hidden_by(
    points: FloatArray,
    camera: FloatArray,
    centre: FloatArray,
    solids: list[tuple[float, bool, float, float]],
) -> NDArray[np.bool_]:
    """Which ``points`` (K, 3) the ray to the camera passes through one of ``solids``
    (standing on ``centre``: a half side or radius, round or square, bottom, top)."""
    hidden = np.zeros(len(points), dtype=bool)
    for reach, round_, bottom, top in solids:
        low = np.maximum(points[:, 2], bottom)
        for share in np.linspace(0.0, 1.0, _RAY_STEPS):
            z = low + share * (top - low)
            t = (z - points[:, 2]) / (camera[2] - points[:, 2])
            xy = points[:, :2] + t[:, None] * (camera[:2] - points[:, :2]) - centre
            inside = (
                np.linalg.norm(xy, axis=1) < reach if round_ else np.all(np.abs(xy) < reach, axis=1)
            )
            hidden |= inside & (z > points[:, 2] + 0.5) & (top > points[:, 2])
    return hidden
