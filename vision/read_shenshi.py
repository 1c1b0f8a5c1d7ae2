"""Reading a ShenShi table: on each square, a mandala tile, a cushion on it and a monk on
that, one above the other.

Each is read where it shows past what stands on it (:class:`ShenshiReader`):

- the **tile** on a band just inside its edge, outside the cushion; the points of the
  band that a cushion and a Grand Master on the square could hide in this view are
  never used, whether they stand there or not, so the reading does not depend on them;
- the **cushion** on a ring of its top between a monk's legs and its edge, the points
  a monk could hide left out the same way;
- the **monk** last, once the tile and the cushion say how high it sits: its metal on
  its robe (both sizes wear it at the same height above their seat), its size on its
  crossed legs, which reach past a master's on the side facing the camera only for a
  Grand Master.

Everything else (light, glare, hands, confidence, abstaining) is :class:`BoardReader`'s.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from engines.observation import UNKNOWN, Reading
from vision.models import BoardModel, Element
from vision.read import (
    COVERED,
    LEGS_HIDDEN,
    MONK_IN_FRONT,
    SEAT_NOT_READ,
    TIED,
    BoardReader,
    place_points,
    square_ring,
)
from vision.read_colour import FloatArray, Kind, Light, colour_distance, features_of, linear_of
from vision.read_config import (
    BLOND_BGR,
    FADED_BGR,
    HALL_BGR,
    INTACT_BGR,
    ORANGE_BGR,
    ReadConfig,
)
from vision.view import BoardView

_NONE = "none"
_ROBE_POINTS = 16
_LEG_POINTS = 8
_HEAD_POINTS = 8
_PARTS = (slice(0, _ROBE_POINTS), slice(_ROBE_POINTS, _ROBE_POINTS + _LEG_POINTS),
          slice(_ROBE_POINTS + _LEG_POINTS, _ROBE_POINTS + _LEG_POINTS + _HEAD_POINTS))
# Sample heights along a ray when looking for what could hide a point.
_RAY_STEPS = 12


class ShenshiReader(BoardReader):
    """:class:`BoardReader` for ShenShi (see the module's docstring)."""

    def __init__(self, model: BoardModel | None = None,
                 config: ReadConfig | None = None) -> None:
        super().__init__("shenshi", model, config)
        self.special_kinds = frozenset({"monk"})
        p = self.model.pieces
        self._tile_z = p["tile_thickness_mm"]
        self._cushion_z = p["cushion_height_mm"]
        # the seats a monk may have: the board, a tile, a cushion, a cushion on a tile
        self._seats = (0.0, self._tile_z, self._cushion_z, self._tile_z + self._cushion_z)
        self._squares = [e.name.split(" ")[0] for e in self.elements if e.kind == "tile"]
        self._tiles = {e.name.split(" ")[0]: e for e in self.elements if e.kind == "tile"}
        from engines.shenshi.board import load_board, square_name

        self._marked = {square_name(s) for s in load_board().marked}
        monk = self.kinds["monk"]
        self._metal_names = [n for n in monk.names if n != _NONE]
        self._metal_colours = np.array([
            monk.prototypes[monk.owner == monk.names.index(m)][0] for m in self._metal_names])
        self._head_cue = np.zeros(len(self._squares), dtype=bool)
        self._tuft_seen = np.ones(len(self._squares), dtype=bool)
        self._beneath_cache: dict[tuple[str, object, object, bool], NDArray[np.bool_]] = {}
        # every colour that can lie under a monk, once: a square's set is a mask of it
        self._under = tuple(dict.fromkeys(HALL_BGR + INTACT_BGR + FADED_BGR + BLOND_BGR
                                          + ORANGE_BGR))
        self._under_features = features_of(np.array([linear_of(c) for c in self._under]))
        self._occluders: list[list[int]] = [[] for _ in self._squares]
        band = square_ring(self.config.samples_per_side ** 2, (0.45, 0.475))
        nearest_axis = np.abs(band).min(axis=1)
        # the printed corner triangles, and the plain middle of the edges
        self._tile_corners = (nearest_axis > 0.32, nearest_axis < 0.15)

    # --- where to look -------------------------------------------------------------------

    def _window(self, element: Element) -> tuple[FloatArray, float | FloatArray]:
        n = self.config.samples_per_side ** 2
        p = self.model.pieces
        if element.kind == "tile":
            return place_points(square_ring(n, (0.45, 0.475)) * p["tile_mm"], element), \
                self._tile_z
        if element.kind == "cushion":
            return place_points(square_ring(n, (0.31, 0.37)) * p["cushion_mm"], element), \
                self._tile_z + self._cushion_z - 1.0
        # monks are read by _read_extra; their window is not used
        return np.repeat(np.array([element.centre_mm]), n, axis=0), 0.0

    def _allowed(self, element: Element, kind: Kind) -> NDArray[np.bool_]:
        """A square without a tile (or cushion) shows its own stone: light, dark or
        marked."""
        allowed = np.ones(len(kind.owner), dtype=bool)
        if element.kind in ("tile", "cushion"):
            hall = np.flatnonzero(kind.owner == kind.names.index(_NONE))
            square = element.name.split(" ")[0]
            own = 2 if square in self._marked else \
                (ord(square[0]) - ord("a") + int(square[1:])) % 2
            allowed[hall[:3]] = False
            allowed[hall[own]] = True
        return allowed

    def _blocked(self, view: BoardView, element: Element,
                 points: FloatArray) -> NDArray[np.bool_]:
        """Points of the tile band behind a cushion or a Grand Master, of the cushion
        ring behind a Grand Master, on the element's own square."""
        if view.projection is None or element.kind == "monk":
            return np.zeros(len(points), dtype=bool)
        camera = -np.linalg.solve(view.projection[:, :3], view.projection[:, 3])
        p = self.model.pieces
        centre = np.array(element.centre_mm)
        seat = self._tile_z + self._cushion_z
        grand_h, grand_r = p["grand_height_mm"], p["grand_base_mm"] / 2.0
        # (half side of a square footprint or radius of a round one, round?, bottom, top)
        solids = [(grand_r, True, seat, seat + 0.24 * grand_h),
                  (0.74 * grand_r, True, seat, seat + 0.93 * grand_h)]
        if element.kind == "tile":
            solids.append((p["cushion_mm"] / 2.0, False, 0.0, seat))
        return _hidden_by(points, camera, centre, solids)

    def _check_colours(self, features: FloatArray, visible: NDArray[np.bool_],
                       blocked: NDArray[np.bool_], readings: dict[str, Reading],
                       reasons: dict[str, str]) -> None:
        """A faded tile and bare light stone are near in colour; the tile's printed
        corner triangles differ in hue from its plain edges and are no brighter, the
        stone is even: a "faded" reading whose corners do not look printed is not
        kept, and a colour tie between the two whose corners do not is bare stone."""
        c = self.config
        seen = visible & ~blocked
        for i, element in enumerate(self.elements):
            name = element.name
            if element.kind != "tile":
                continue
            value = readings[name].value
            tied = value is None and reasons.get(name) == TIED \
                and self._tied_between(features[i][seen[i]], element) == {_NONE, "faded"}
            if value != "faded" and not tied:
                continue
            printed = self._printed_corners(features[i], seen[i])
            if printed is None:
                continue
            if tied and not printed:
                readings[name] = Reading(_NONE, c.bare_corner_confidence)
                del reasons[name]
            elif value == "faded" and not printed:
                readings[name] = UNKNOWN
                reasons[name] = "a faded tile or bare stone: too close to tell"

    def _printed_corners(self, features: FloatArray, seen: NDArray[np.bool_]) -> bool | None:
        """Whether a tile band's corners look like a faded tile's print against its
        edges (``None``: too few of either seen): their hue apart by a faded print's,
        and not brighter."""
        c = self.config
        corner, middle = self._tile_corners
        corners, middles = seen & corner, seen & middle
        if corners.sum() < 3 or middles.sum() < 3:
            return None
        at_corners = np.median(features[corners], axis=0)
        at_middles = np.median(features[middles], axis=0)
        brighter = float(at_corners.mean() - at_middles.mean())
        hue = float(np.linalg.norm((at_corners - at_corners.mean())
                                   - (at_middles - at_middles.mean())))
        low, high = c.faded_corner_hue
        return low < hue < high and brighter < c.faded_corner_brighter

    def _tied_between(self, features: FloatArray, element: Element) -> set[str]:
        """The two nearest classes of a tile's colour."""
        kind = self.kinds["tile"]
        if len(features) == 0:
            return set()
        distances = colour_distance(np.median(features, axis=0)[None], kind.prototypes,
                                    self.config.brightness_weight)[0]
        distances[~self._allowed(element, kind)] = np.inf
        per_class = [distances[kind.owner == k].min() for k in range(len(kind.names))]
        order = np.argsort(per_class)
        return {kind.names[int(order[0])], kind.names[int(order[1])]}

    def _extra_points(self, view: BoardView) -> FloatArray:
        """Per square and seat height: the robe's points, the legs' points and the
        points where only a Grand Master's head is."""
        c = self.config
        robe = _disc(_ROBE_POINTS, c.monk_robe_mm)
        head = _disc(_HEAD_POINTS, c.monk_head_mm)
        camera = None if view.projection is None else \
            -np.linalg.solve(view.projection[:, :3], view.projection[:, 3])
        above = self.model.pieces["grand_height_mm"] - self.model.pieces["master_height_mm"]
        blocks, head_cue, tuft_seen = [], [], []
        for square in self._squares:
            centre = np.array(self._tiles[square].centre_mm)
            legs = _facing_arc(centre, camera, c.monk_arm_mm)
            # the head tells only where a ray past a master's head misses it
            slant = math.inf if camera is None or camera[2] <= 0 else \
                float(np.linalg.norm(camera[:2] - centre)) / camera[2]
            head_cue.append(camera is not None and above / 2 * slant > c.monk_head_miss_mm)
            # without a monk, the robe's rays meet the cushion this far beyond them
            tuft_seen.append(c.monk_robe_height_mm * slant < c.cushion_tuft_mm + c.monk_robe_mm)
            for seat in self._seats:
                for points, z in ((robe, c.monk_robe_height_mm), (legs - centre,
                                                                  c.monk_leg_height_mm),
                                  (head, c.monk_head_height_mm)):
                    blocks.append(np.column_stack([points + centre,
                                                   np.full(len(points), seat + z)]))
        self._head_cue = np.array(head_cue)
        self._tuft_seen = np.array(tuft_seen)
        self._occluders = self._neighbours_in_front(camera, robe)
        return np.vstack(blocks)

    def _neighbours_in_front(self, camera: FloatArray | None,
                             robe: FloatArray) -> list[list[int]]:
        """For each square, the neighbouring squares whose monk, if there is one, could
        stand between the camera and this square's monk's robe."""
        if camera is None:
            return [[] for _ in self._squares]
        p = self.model.pieces
        seat = self._seats[-1]
        tall = (p["grand_base_mm"] / 2.0, True, seat, seat + p["grand_height_mm"])
        centres = [np.array(self._tiles[s].centre_mm) for s in self._squares]
        pitch = self.model.pieces["tile_mm"] + 3.0  # the squares are a little wider
        height = seat + self.config.monk_robe_height_mm
        out = []
        for q, centre in enumerate(centres):
            points = np.column_stack([robe + centre, np.full(len(robe), height)])
            out.append([k for k, other in enumerate(centres) if k != q
                        and np.linalg.norm(other - centre) < 1.5 * pitch
                        and _hidden_by(points, camera, other, [tall]).any()])
        return out

    def _rests_on(self, element: str, why: str | None) -> str | None:
        """A monk not read because its seat was not: its cushion's abstention."""
        if why == SEAT_NOT_READ:
            return element.replace(" monk", " cushion")
        return super()._rests_on(element, why)

    # --- the monks ---------------------------------------------------------------------------

    def _read_extra(self, linear: FloatArray, hidden: NDArray[np.bool_], light: Light,
                    classes: dict[int, int], readings: dict[str, Reading],
                    reasons: dict[str, str]) -> None:
        per_seat = _ROBE_POINTS + _LEG_POINTS + _HEAD_POINTS
        centres = np.array([self._tiles[s].centre_mm for s in self._squares])
        samples = linear.reshape(len(self._squares), len(self._seats), per_seat, 3)
        seen = ~hidden.reshape(len(self._squares), len(self._seats), per_seat)
        seats = {square: self._seats_of(square, readings) for square in self._squares}
        # every square's samples at its seats, in one pass
        pairs = [(q, seat) for q, square in enumerate(self._squares) for seat in seats[square]]
        if pairs:
            rows, columns = np.array(pairs).T
            features = self._albedo(samples[rows, columns], centres[rows], light)
            sample_d, median_d, robe_seen = self._robe_distances(
                features[:, _PARTS[0]], seen[rows, columns][:, _PARTS[0]])
        where = {pair: k for k, pair in enumerate(pairs)}
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
                parts.append([here[part][visible[part]] for part in _PARTS[1:]])
                colours.append(self._colour(sample_d[k][robe_seen[k]], median_d[k], beneath,
                                            allowed))
            value, sureness, why = colours[0]
            if any(other[0] != value for other in colours[1:]):
                value, why = None, "a monk or not: its seat's height is unsure"
            if value is not None and value != _NONE:
                around = self._beneath(square, readings, middle=False)
                sizes = [self._size(legs, head, value, around, bool(self._head_cue[q]))
                         for legs, head in parts]
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
        # a monk on a square nearer the camera may stand in front of this one's robe
        for q, square in enumerate(self._squares):
            name = f"{square} monk"
            if readings[name].known and any(
                    readings[f"{self._squares[k]} monk"].value != _NONE
                    for k in self._occluders[q]):
                readings[name] = UNKNOWN
                reasons[name] = MONK_IN_FRONT

    def _robe_distances(self, robes: FloatArray, seen: NDArray[np.bool_]) -> tuple[
            FloatArray, FloatArray, NDArray[np.bool_]]:
        """For robes' samples (P, K, 3) and which are seen (P, K): every sample's and
        the median's distances to the colours under a monk and to the metals, and the
        samples that count (seen, and nearer one of those than any skin)."""
        w = self.config.brightness_weight
        colours = np.vstack([self._under_features, self._metal_colours])
        sample_d = colour_distance(robes, colours, w)  # (P, K, U + 4)
        skin = colour_distance(robes, self._foreign, w).min(axis=2)
        counted = seen & (skin >= sample_d.min(axis=2))
        median = np.median(robes, axis=1)
        partly = ~counted.all(axis=1) & counted.any(axis=1)
        if partly.any():
            median[partly] = np.nanmedian(
                np.where(counted[partly][:, :, None], robes[partly], np.nan), axis=1)
        return sample_d, colour_distance(median, colours, w), counted

    def _seats_of(self, square: str, readings: dict[str, Reading]) -> list[int]:
        """The seat heights (indices of ``_seats``) a monk on ``square`` may have, from
        its tile and cushion: one when both are read; over an unread tile, with or
        without it (what is read must then read alike on both); none when the cushion
        is unread."""
        tile, cushion = readings[f"{square} tile"], readings[f"{square} cushion"]
        if not cushion.known:
            return []
        on_cushion = 2 * (cushion.value != _NONE)
        if not tile.known:
            return [on_cushion, on_cushion + 1]
        return [on_cushion + (tile.value != _NONE)]

    def _seat_allowed(self, square: str, readings: dict[str, Reading]) -> bool:
        """Whether the rules allow a monk here: a cushion, or a faded tile (or a tile
        not read, which may be one)."""
        tile = readings[f"{square} tile"]
        return readings[f"{square} cushion"].value != _NONE or tile.value == "faded" \
            or not tile.known

    def _beneath(self, square: str, readings: dict[str, Reading],
                 middle: bool = True) -> NDArray[np.bool_]:
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

    def _beneath_colours(self, square: str, cushion: object, tile: object,
                         middle: bool) -> tuple[tuple[int, int, int], ...]:
        if cushion in ("blond", "orange"):
            colours = BLOND_BGR if cushion == "blond" else ORANGE_BGR
            return colours if middle else colours[:2]  # the dark tuft is in the middle
        if tile in ("intact", "faded"):
            return INTACT_BGR if tile == "intact" else FADED_BGR
        own = 2 if square in self._marked else \
            (ord(square[0]) - ord("a") + int(square[1:])) % 2
        if tile is None:  # not read: any tile, or none
            return (HALL_BGR[own], *INTACT_BGR, *FADED_BGR)
        return (HALL_BGR[own],)

    def _colour(self, sample_d: FloatArray, median_d: FloatArray, beneath: NDArray[np.bool_],
                seat_allowed: bool) -> tuple[str | None, float, str]:
        """(metal or "none", sureness, why not) of a robe: ``sample_d`` (K, U + 4) and
        ``median_d`` (U + 4,) are its samples' and their median's distances to the
        colours that can lie under a monk, then to the metals; ``beneath``: the mask of
        those that lie here; ``seat_allowed``: a cushion or a faded tile is there (the
        only seats the rules allow)."""
        c = self.config
        if len(sample_d) < _ROBE_POINTS // 2:
            return None, 0.0, COVERED
        metals = len(self._metal_names)
        columns = np.concatenate([beneath, np.ones(metals, dtype=bool)])
        owner = np.concatenate([np.zeros(int(beneath.sum()), dtype=np.intp),
                                np.arange(1, metals + 1)])
        d = median_d[columns]
        per_class = np.array([d[owner == k].min() for k in range(metals + 1)])
        order = np.argsort(per_class)
        best, margin = int(order[0]), float(per_class[order[1]] - per_class[order[0]])
        # a printed pattern's median can look like a metal none of its colours is:
        # most of the points themselves must agree
        votes = owner[np.argmin(sample_d[:, columns], axis=1)]
        if best != 0 and float(np.mean(votes == best)) < c.min_agreement:
            if not seat_allowed:
                return _NONE, c.unseated_confidence, ""
            return None, 0.0, "partly covered or mixed"
        if per_class[best] > c.max_distance:
            return None, 0.0, "looks like no monk and nothing a monk sits on"
        if not seat_allowed and per_class[0] - per_class[best] < c.unseated_margin:
            # the rules seat monks on cushions and faded tiles only: anything short of
            # a clear metal here is the bare stone or tile (a printed mandala's grey
            # middle, light stone, look like silver)
            return _NONE, c.unseated_confidence, ""
        if margin < c.min_margin:
            return None, 0.0, "a monk or what it would sit on: too close to tell"
        return (_NONE if best == 0 else self._metal_names[best - 1]), \
            min(1.0, 0.5 + margin), ""

    def _size(self, legs: FloatArray, head: FloatArray, metal: str,
              beneath: NDArray[np.bool_], head_cue: bool) -> tuple[str | None, float, str]:
        """("grand" or "master", sureness, why not): a Grand Master's legs reach past a
        master's; in oblique views its head stands where a ray passes over a master."""
        c = self.config
        colour = self._metal_colours[self._metal_names.index(metal)][None]
        # colour rather than brightness: a metal's side facing away from the light is
        # dark (black, which has no colour, by its darkness)
        weight = c.brightness_weight if metal == "black" else c.leg_brightness_weight
        votes = []
        for points, least in ((legs, _LEG_POINTS // 2), (head, _HEAD_POINTS // 2)):
            if len(points) < least or (points is head and not head_cue):
                continue
            on_metal = colour_distance(points, colour, weight).min(axis=1) \
                < colour_distance(points, self._under_features[beneath], weight).min(axis=1)
            votes.append(float(on_metal.mean()))
        if not votes:
            return None, 0.0, LEGS_HIDDEN
        if any(c.min_size_share > share > 1.0 - c.min_size_share for share in votes) \
                or len({share >= 0.5 for share in votes}) > 1:
            return None, 0.0, "Grand Master or master: its legs and head do not tell"
        share = float(np.mean(votes))
        return ("grand" if share >= 0.5 else "master"), max(share, 1.0 - share), ""


def _disc(count: int, radius: float) -> FloatArray:
    """``count`` points spread over a disc (a sunflower spiral)."""
    k = np.arange(count) + 0.5
    r = radius * np.sqrt(k / count)
    a = k * math.pi * (3.0 - math.sqrt(5.0))
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def _facing_arc(centre: FloatArray, camera: FloatArray | None, radius: float) -> FloatArray:
    """Points at ``radius`` around ``centre`` on the side facing the camera (all round
    when the camera looks straight down on it)."""
    if camera is None or np.linalg.norm(camera[:2] - centre) < radius:
        angles = np.linspace(0.0, 2.0 * math.pi, _LEG_POINTS, endpoint=False)
    else:
        towards = math.atan2(camera[1] - centre[1], camera[0] - centre[0])
        angles = towards + np.linspace(-0.9, 0.9, _LEG_POINTS)
    return np.column_stack([centre[0] + radius * np.cos(angles),
                            centre[1] + radius * np.sin(angles)])


def _hidden_by(points: FloatArray, camera: FloatArray, centre: FloatArray,
               solids: list[tuple[float, bool, float, float]]) -> NDArray[np.bool_]:
    """Which ``points`` (K, 3) the ray to the camera passes through one of ``solids``
    (standing on ``centre``: a half side or radius, round or square, bottom, top)."""
    hidden = np.zeros(len(points), dtype=bool)
    for reach, round_, bottom, top in solids:
        low = np.maximum(points[:, 2], bottom)
        for share in np.linspace(0.0, 1.0, _RAY_STEPS):
            z = low + share * (top - low)
            t = (z - points[:, 2]) / (camera[2] - points[:, 2])
            xy = points[:, :2] + t[:, None] * (camera[:2] - points[:, :2]) - centre
            inside = np.linalg.norm(xy, axis=1) < reach if round_ \
                else np.all(np.abs(xy) < reach, axis=1)
            hidden |= inside & (z > points[:, 2] + 0.5) & (top > points[:, 2])
    return hidden
