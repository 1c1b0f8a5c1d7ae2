"""Reading a ShenShi table: on each square, a mandala tile, a cushion on it and a monk on
that, one above the other.

Each is read where it shows past what stands on it (:class:`ShenshiReader`):

- the **tile** on a band just inside its edge, outside the cushion; the points of the
  band that a cushion and a Grand Master on the square could hide in this view are
  never used, whether they stand there or not, so the reading does not depend on them;
- the **cushion** on a ring of its top between a monk's legs and its edge, the points
  a monk could hide left out the same way;
- the **monk** last, once the tile and the cushion say how high it sits: its metal on
  its robe, its size on its crossed legs (:mod:`vision.read_monks`).

What the rules allow settles what the colours leave open: the tiles are drawn onto
the marked squares and never move, cushions go on empty squares only, and monks sit
on cushions and faded mandalas only. Everything else (light, glare, hands,
confidence, abstaining) is :class:`BoardReader`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from engines.observation import UNKNOWN, Reading
from vision.models import BoardModel, Element
from vision.read import CUSHION_IN_FRONT, TIED, UNSEEN_REASONS, place_points, square_ring
from vision.read_colour import FloatArray, Kind, colour_distance, features_of, linear_of
from vision.read_config import (
    BLOND_BGR,
    FADED_BGR,
    HALL_BGR,
    INTACT_BGR,
    ORANGE_BGR,
    ReadConfig,
)
from vision.read_monks import NONE, MonkReading, hidden_by
from vision.view import BoardView

if TYPE_CHECKING:
    from engines.shenshi.rules import ShenshiRules


def metals_in_play(rules: ShenshiRules) -> tuple[str, ...]:
    """The metals of the monks a game of ``rules`` puts on the table: its players',
    and black, neutral with 2 or 3 players (RULINGS 3)."""
    return tuple(rules.players) + (("black",) if rules.has_neutral else ())


class ShenshiReader(MonkReading):
    """:class:`BoardReader` for ShenShi (see the module's docstring)."""

    def __init__(
        self,
        model: BoardModel | None = None,
        config: ReadConfig | None = None,
        metals: Sequence[str] | None = None,
    ) -> None:
        """``metals``: the monks' metals in play (:func:`metals_in_play`; default all
        four): a robe is read as one of these only. Raises ``ValueError`` for a metal
        the board model does not know."""
        super().__init__(model, config, metals)
        self._index = {e.name: i for i, e in enumerate(self.elements)}
        band = square_ring(self.config.samples_per_side**2, (0.45, 0.475))
        nearest_axis = np.abs(band).min(axis=1)
        # the printed corner triangles, and the plain middle of the edges
        self._tile_corners = (nearest_axis > 0.32, nearest_axis < 0.15)
        # an intact mandala's red edge and yellow corner triangles
        self._intact_colours = features_of(np.array([linear_of(c) for c in INTACT_BGR[:2]]))
        # an intact mandala's blue petals, and what else a marked square may show
        self._petal = features_of(linear_of(INTACT_BGR[2]))
        self._not_petal = features_of(
            np.array(
                [
                    linear_of(c)
                    for c in (
                        *HALL_BGR,
                        *FADED_BGR,
                        *BLOND_BGR,
                        *ORANGE_BGR,
                        *INTACT_BGR[:2],
                        INTACT_BGR[3],
                    )
                ]
            )
        )

    # --- where to look -------------------------------------------------------------------

    def _window(self, element: Element) -> tuple[FloatArray, float | FloatArray]:
        n = self.config.samples_per_side**2
        p = self.model.pieces
        if element.kind == "tile":
            return place_points(square_ring(n, (0.45, 0.475)) * p["tile_mm"], element), self._tile_z
        if element.kind == "cushion":
            return place_points(
                square_ring(n, (0.31, 0.37)) * p["cushion_mm"], element
            ), self._tile_z + self._cushion_z - 1.0
        # monks are read by _read_extra; their window is not used
        return np.repeat(np.array([element.centre_mm]), n, axis=0), 0.0

    def _allowed(self, element: Element, kind: Kind) -> NDArray[np.bool_]:
        """A square without a tile (or cushion) shows its own stone: light, dark or
        marked."""
        allowed = np.ones(len(kind.owner), dtype=bool)
        if element.kind in ("tile", "cushion"):
            hall = np.flatnonzero(kind.owner == kind.names.index(NONE))
            square = element.name.split(" ")[0]
            own = 2 if square in self._marked else (ord(square[0]) - ord("a") + int(square[1:])) % 2
            allowed[hall[:3]] = False
            allowed[hall[own]] = True
        return allowed

    def _blocked(self, view: BoardView, element: Element, points: FloatArray) -> NDArray[np.bool_]:
        """Points of the tile band behind a cushion or a Grand Master, of the cushion
        ring behind a Grand Master, on the element's own square."""
        camera = view.camera_mm()
        if camera is None or element.kind == "monk":
            return np.zeros(len(points), dtype=bool)
        p = self.model.pieces
        centre = np.array(element.centre_mm)
        seat = self._tile_z + self._cushion_z
        grand_h, grand_r = p["grand_height_mm"], p["grand_base_mm"] / 2.0
        # (half side of a square footprint or radius of a round one, round?, bottom, top)
        solids = [
            (grand_r, True, seat, seat + 0.24 * grand_h),
            (0.74 * grand_r, True, seat, seat + 0.93 * grand_h),
        ]
        if element.kind == "tile":
            solids.append((p["cushion_mm"] / 2.0, False, 0.0, seat))
        return hidden_by(points, camera, centre, solids)

    def _check_colours(
        self,
        features: FloatArray,
        visible: NDArray[np.bool_],
        blocked: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """A faded tile and bare light stone are near in colour; the tile's printed
        corner triangles differ in hue from its plain edges and are no brighter, the
        stone is even: a "faded" reading whose corners do not look printed, or are
        not seen, or whose colour is only just nearer faded, is not kept, and a colour
        tie between the two whose corners do not look printed is bare stone."""
        c = self.config
        seen = visible & ~blocked
        self._bare_marked_inside(features, seen, readings, reasons)
        self._check_marked_cushions(features, seen, readings, reasons)
        self._bare_behind_cushions(features, seen, readings, reasons)
        self._cushion_tops = {}
        for square in self._squares:
            k = self._index[f"{square} cushion"]
            if (
                readings[f"{square} cushion"].value in ("blond", "orange")
                and seen[k].sum() >= c.min_open_samples
            ):
                self._cushion_tops[square] = np.median(features[k][seen[k]], axis=0)
        for i, element in enumerate(self.elements):
            name = element.name
            if element.kind != "tile":
                continue
            value = readings[name].value
            tied = (
                value is None
                and reasons.get(name) == TIED
                and self._tied_between(features[i][seen[i]], element) == {NONE, "faded"}
            )
            if value != "faded" and not tied:
                continue
            printed = self._printed_corners(features[i], seen[i])
            if printed is None:
                if value == "faded":  # its print not seen (a hand over the corners)
                    readings[name] = UNKNOWN
                    reasons[name] = "a faded tile or bare stone: too close to tell"
                continue
            if tied and not printed:
                readings[name] = Reading(NONE, c.bare_corner_confidence)
                del reasons[name]
            elif value == "faded" and (
                not printed or readings[name].confidence < c.faded_min_confidence
            ):
                readings[name] = UNKNOWN
                reasons[name] = "a faded tile or bare stone: too close to tell"
        self._bare_under_cushions(features, seen, readings, reasons)
        self._intact_by_pattern(features, seen, readings, reasons)
        self._bare_off_marked(features, seen, readings, reasons)
        self._faded_on_marked(features, seen, readings, reasons)
        self._no_cushion_on_tiles(readings, reasons)
        # the nearest colour of each tile and cushion left unread (in view), each
        # faded tile's band
        self._tile_guess = {}
        self._cushion_guess = {}
        self._tile_bands = {}
        for square in self._squares:
            tile, cushion = f"{square} tile", f"{square} cushion"
            k = self._index[cushion]
            if not readings[cushion].known and reasons.get(cushion) not in UNSEEN_REASONS:
                ranked = self._ranked_classes(features[k][seen[k]], self.elements[k])
                self._cushion_guess[square] = ranked[0] if ranked else None
            i = self._index[tile]
            if readings[tile].value == "faded" and seen[i].sum() >= c.min_open_samples:
                self._tile_bands[square] = np.median(features[i][seen[i]], axis=0)
            if not readings[tile].known:
                ranked = self._ranked_classes(features[i][seen[i]], self.elements[i])
                self._tile_guess[square] = ranked[0] if ranked else None

    def _bare_marked_inside(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """A marked square's tile read bare stone by its band, with no cushion read on
        it, is checked inside the band, where a cushion's ring would be: bare stone
        shows the same stone there, a mandala its print. Where that is clearly nearer
        a faded mandala's colour than the stone's (``faded_marked_margin``), the band
        is not trusted (a faded mandala's edge in a warm light looks like the sand
        of the marked stone)."""
        c = self.config
        for square in self._marked:
            tile, cushion = f"{square} tile", f"{square} cushion"
            if readings[tile].value != NONE or readings[cushion].value not in (NONE, None):
                continue
            i, k = self._index[tile], self._index[cushion]
            if seen[k].sum() < c.min_open_samples:
                continue
            inside = self._class_distances(features[k][seen[k]], self.elements[i])
            if inside[NONE] - inside["faded"] >= c.faded_marked_margin:
                readings[tile] = UNKNOWN
                reasons[tile] = "a faded tile or bare stone: too close to tell"

    def _bare_behind_cushions(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """A marked square's tile read bare stone, part of whose band a cushion on a
        neighbouring square stands in front of (in a slanted view): the cushion's
        blond is the marked stone's colour: not read where it hides a few of the
        band's samples (an intact mandala behind a blond cushion was read bare; the
        rest of its band, red and yellow in a warm light, was nearest the stone too).
        The tile is then looked at again by its pattern (:meth:`_intact_by_pattern`)."""
        c = self.config
        camera = self._plan_for[0].camera_mm() if self._plan_for is not None else None
        if camera is None:
            return
        half = self.model.pieces["cushion_mm"] / 2.0
        for square in self._marked:
            tile = f"{square} tile"
            if readings[tile].value != NONE:
                continue
            i = self._index[tile]
            spot, z = self._window(self.elements[i])
            points = np.column_stack([spot, np.broadcast_to(z, len(spot))])
            hidden = np.zeros(len(points), dtype=bool)
            for other in _neighbours(square):
                if readings.get(f"{other} cushion", UNKNOWN).value in ("blond", "orange"):
                    centre = np.array(self.elements[self._index[f"{other} cushion"]].centre_mm)
                    hidden |= hidden_by(
                        points, camera, centre, [(half, False, 0.0, self._cushion_z)]
                    )
            if (hidden & seen[i]).sum() >= c.cushion_front_samples:
                readings[tile] = UNKNOWN
                reasons[tile] = CUSHION_IN_FRONT

    def _bare_under_cushions(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """The rules put a cushion only on an empty square (RULINGS: set out on the
        start squares, entered and lifted onto empty squares, hovering over empty
        ones). Beside a cushion the tile's band catches the cushion's colour and
        shadow: bare stone there often reads as nothing sure, or as a faded mandala
        (whose printed corners the cushion's rounded ones imitate). Where a cushion
        is read and its tile, in view, is read faded or not at all, the tile is bare
        stone unless its colour is nearest an intact mandala (a player's mistake the
        referee should hear of)."""
        c = self.config
        for square in self._squares:
            tile = f"{square} tile"
            if (
                readings[f"{square} cushion"].value in (None, NONE)
                or readings[tile].value not in (None, "faded")
                or reasons.get(tile) in UNSEEN_REASONS
            ):
                continue
            self._bare_unless_intact(
                tile, features, seen, readings, reasons, c.bare_under_cushion_confidence
            )

    def _bare_off_marked(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """The mandala tiles are drawn onto the marked squares at the start and never
        move (RULINGS): any other square is bare stone. One whose tile, in view, is
        left unread is read bare unless its colour is nearest an intact mandala (a tile
        put there by mistake, which the referee should hear of; a faded one under
        glare would pass for the stone, as an unread one would be taken for it). So is
        one read faded: beside a cushion the band catches its colour and its rounded
        corners, and light stone in a warm light takes a faded mandala's colour, its
        neighbours' shadows the print's corners."""
        c = self.config
        for square in self._squares:
            tile = f"{square} tile"
            if (
                square in self._marked
                or reasons.get(tile) in UNSEEN_REASONS
                or readings[tile].value in (NONE, "intact")
            ):
                continue
            self._bare_unless_intact(
                tile, features, seen, readings, reasons, c.bare_off_marked_confidence
            )

    def _bare_unless_intact(
        self,
        tile: str,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
        confidence: float,
    ) -> None:
        """Read ``tile`` as bare stone (at ``confidence``) unless its colour is nearest
        an intact mandala's."""
        i = self._index[tile]
        ranked = self._ranked_classes(features[i][seen[i]], self.elements[i])
        if ranked and ranked[0] != "intact":
            readings[tile] = Reading(NONE, confidence)
            reasons.pop(tile, None)

    def _intact_by_pattern(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """Under the warm lamp an intact mandala's red edge and yellow corners look like
        skin, and its tile is taken for a hand (or for none of its pieces). A hand, the
        stone and a faded mandala are alike at the band's corners and in the middles
        of its edges; an intact mandala is not: a tile left unread, with no cushion on
        it, whose corners are clearly nearer the print's yellow than its red and whose
        edges' middles clearly nearer its red than its yellow (or one clearly, the other
        only just) is intact. A cushion
        read there would hide the pattern: one read is left alone, one not read (the
        band takes an intact mandala's colours for the marked stone's or a cushion's)
        is not: the band's corners and middles around a cushion or a hand were
        measured far from the pattern."""
        c = self.config
        corner, middle = self._tile_corners
        red, yellow = self._intact_colours
        w = c.brightness_weight
        for square in self._squares:
            tile = f"{square} tile"
            if readings[tile].known or readings[f"{square} cushion"].value not in (NONE, None):
                continue
            i = self._index[tile]
            corners, middles = seen[i] & corner, seen[i] & middle
            if corners.sum() < 3 or middles.sum() < 3:
                continue
            at = np.vstack(
                [np.median(features[i][corners], axis=0), np.median(features[i][middles], axis=0)]
            )
            d = colour_distance(at, np.vstack([red, yellow]), w)  # (corners, middles) x
            corner_margin, middle_margin = d[0, 0] - d[0, 1], d[1, 1] - d[1, 0]
            if min(corner_margin, middle_margin) >= c.intact_pattern_margin or (
                min(corner_margin, middle_margin) >= c.intact_pattern_floor
                and corner_margin + middle_margin >= c.intact_pattern_sum
            ):
                readings[tile] = Reading("intact", c.intact_pattern_confidence)
                reasons.pop(tile, None)

    def _no_cushion_on_tiles(self, readings: dict[str, Reading], reasons: dict[str, str]) -> None:
        """The rules put a cushion only on an empty square, never on a mandala tile
        (RULINGS: entered, hovering and put down on free squares; the intact mandalas
        block hovering, the faded ones too): where a tile is read, a cushion left
        unread in view (its band takes the tile's colours for the marked stone's or
        a cushion's) is none, as sure as the tile. A cushion read there is kept (a
        player's mistake the referee should hear of)."""
        for square in self._squares:
            tile, cushion = readings[f"{square} tile"], f"{square} cushion"
            if (
                tile.value in ("intact", "faded")
                and not readings[cushion].known
                and reasons.get(cushion) not in UNSEEN_REASONS
            ):
                readings[cushion] = Reading(NONE, tile.confidence)
                reasons.pop(cushion, None)

    def _faded_on_marked(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """A marked square's own stone is sand-coloured, unlike a faded mandala (the
        light stone of the other squares is as grey): a marked square's tile left
        unread, in view, with no cushion on it, whose colour is near a faded
        mandala's and clearly nearer it than the stone, is faded, whether its printed
        corners show or not (glare hides them), unless its corners differ in hue from
        its edges more than a faded print's and are brighter than one's: an intact
        mandala's yellow corners against its red edge, in a light that makes the two
        look faded."""
        c = self.config
        for square in self._marked:
            tile = f"{square} tile"
            if (
                readings[tile].known
                or reasons.get(tile) in UNSEEN_REASONS
                or readings[f"{square} cushion"].value != NONE
            ):
                continue
            i = self._index[tile]
            contrast = self._corner_contrast(features[i], seen[i])
            if (
                contrast is not None
                and contrast[0] >= c.faded_corner_hue[1]
                and contrast[1] >= c.faded_corner_brighter
            ):
                continue
            d = self._class_distances(features[i][seen[i]], self.elements[i])
            if (
                d
                and d["faded"] <= c.faded_marked_distance
                and d[NONE] - d["faded"] >= c.faded_marked_margin
                and d["intact"] - d["faded"] >= c.faded_marked_margin
            ):
                readings[tile] = Reading("faded", c.faded_marked_confidence)
                reasons.pop(tile, None)

    def _check_marked_cushions(
        self,
        features: FloatArray,
        seen: NDArray[np.bool_],
        readings: dict[str, Reading],
        reasons: dict[str, str],
    ) -> None:
        """A marked square's stone is nearly a blond cushion's colour, only darker:
        where no tile lies, a cushion is read blond only if its top is clearly brighter
        than the stone the tile's band shows around it, and absent only if it is not.
        Where the tile is not read, the band shows the stone (the same colour), a
        faded tile (brighter than blond) or an intact one (far darker): a blond
        reading is held to the same, and "none" is not kept where the cushion's place
        is far brighter than the band. Where no tile lies and the cushion's colour
        ties between blond and the stone, the same test decides where it is clear:
        blond at least the second number brighter, none no brighter than
        ``blond_tie_bare``."""
        c = self.config
        bare, blond = c.blond_on_marked_brighter
        for square in self._marked:
            tile, cushion = f"{square} tile", f"{square} cushion"
            value = readings[cushion].value
            under = readings[tile].value
            t, k = self._index[tile], self._index[cushion]
            tied = (
                value is None
                and under == NONE
                and reasons.get(cushion) == TIED
                and self._tied_between(features[k][seen[k]], self.elements[k]) == {NONE, "blond"}
            )
            if not (under in (NONE, None) and value in (NONE, "blond")) and not tied:
                continue
            if seen[t].sum() < 3 or seen[k].sum() < 3:
                continue
            if value in (NONE, None) and self._petals_seen(features[k][seen[k]]):
                # a cushion's top shows no blue: the petals of a mandala's middle
                if value is None:
                    readings[cushion] = Reading(NONE, c.petal_confidence)
                    del reasons[cushion]
                continue
            brighter = float(
                np.median(features[k][seen[k]], axis=0).mean()
                - np.median(features[t][seen[t]], axis=0).mean()
            )
            if tied:
                sureness = round(min(1.0, 0.5 + abs(brighter - (bare + blond) / 2.0)), 4)
                if brighter >= blond or brighter <= c.blond_tie_bare:
                    readings[cushion] = Reading("blond" if brighter >= blond else NONE, sureness)
                    del reasons[cushion]
                continue
            # over a tile not read, the band may show a tile, and a cushion's place
            # looks unlike it either way: only a far brighter place counts against
            # "none" there, or a brighter one where the band looks like the stone
            least = bare if under == NONE else c.blond_over_unread_brighter
            if under is None and self._ranked_classes(features[t][seen[t]], self.elements[t])[
                :1
            ] == [NONE]:
                least = c.blond_over_stone_brighter
            if (value == "blond" and brighter < blond) or (value == NONE and brighter > least):
                readings[cushion] = UNKNOWN
                reasons[cushion] = "a blond cushion or the marked stone: too close to tell"

    def _petals_seen(self, features: FloatArray) -> bool:
        """Whether at least ``petal_min_samples`` of a cushion's place's samples are
        nearer an intact mandala's blue petals than any other colour a marked square
        may show."""
        w = self.config.brightness_weight
        petal = colour_distance(features, self._petal[None], w)[:, 0]
        return (
            int((petal < colour_distance(features, self._not_petal, w).min(axis=1)).sum())
            >= self.config.petal_min_samples
        )

    def _printed_corners(self, features: FloatArray, seen: NDArray[np.bool_]) -> bool | None:
        """Whether a tile band's corners look like a faded tile's print against its
        edges (``None``: too few of either seen): their hue apart by a faded print's,
        and not brighter."""
        c = self.config
        contrast = self._corner_contrast(features, seen)
        if contrast is None:
            return None
        hue, brighter = contrast
        low, high = c.faded_corner_hue
        return low < hue < high and brighter < c.faded_corner_brighter

    def _corner_contrast(
        self, features: FloatArray, seen: NDArray[np.bool_]
    ) -> tuple[float, float] | None:
        """How far a tile band's corners are from its edges' middles in hue, and how
        much brighter they are (``None``: too few of either seen)."""
        corner, middle = self._tile_corners
        corners, middles = seen & corner, seen & middle
        if corners.sum() < 3 or middles.sum() < 3:
            return None
        at_corners = np.median(features[corners], axis=0)
        at_middles = np.median(features[middles], axis=0)
        return (
            float(
                np.linalg.norm((at_corners - at_corners.mean()) - (at_middles - at_middles.mean()))
            ),
            float(at_corners.mean() - at_middles.mean()),
        )

    def _tied_between(self, features: FloatArray, element: Element) -> set[str]:
        """The two nearest classes of a tile's (or cushion's) colour."""
        return set(self._ranked_classes(features, element)[:2])

    def _ranked_classes(self, features: FloatArray, element: Element) -> list[str]:
        """A tile's classes, nearest its samples' median colour first (none without
        samples)."""
        distances = self._class_distances(features, element)
        return sorted(distances, key=distances.__getitem__)

    def _class_distances(self, features: FloatArray, element: Element) -> dict[str, float]:
        """How far a tile's (or cushion's) samples' median colour is from each class of
        its kind (empty without samples)."""
        kind = self.kinds[element.kind]
        if len(features) == 0:
            return {}
        distances = colour_distance(
            np.median(features, axis=0)[None], kind.prototypes, self.config.brightness_weight
        )[0]
        distances[~self._allowed(element, kind)] = np.inf
        return {name: float(distances[kind.owner == k].min()) for k, name in enumerate(kind.names)}


def _neighbours(square: str) -> list[str]:
    """The squares around ``square`` (file letter, rank number) on a 7 by 7 board."""
    file, rank = ord(square[0]) - ord("a"), int(square[1:])
    return [
        f"{chr(ord('a') + f)}{r}"
        for f in range(file - 1, file + 2)
        for r in range(rank - 1, rank + 2)
        if (f, r) != (file, rank) and 0 <= f < 7 and 1 <= r <= 7
    ]
