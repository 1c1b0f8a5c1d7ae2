"""What the readers of :mod:`vision.read` assume and how sure they must be: every
threshold and default colour in one place, so none hides inline in a reader.

Colours are 8-bit sRGB as BGR, the way a picture stores them. The default palette is
the project's own print of the boards and pieces (the colours the renderer of
:mod:`vision.synth` draws); a set whose paper or pieces differ needs its own palette
(:meth:`ReadConfig.from_json` reads one; ``companion calibrate colours`` measures one).

Each element kind has classes, each class one or more prototype colours (an empty
Shendao square is either shade of the checkerboard) and the reading it stands for.
The *reference* is the board's own paper, seen in every frame where no piece can stand
(the village discs of Shangri-La, the margin of Shendao): the light is measured on it
each frame, so colours are compared as the paper would show them in white light.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

BGR = tuple[int, int, int]

# class name -> (the value read, prototype colours)
Palette = dict[str, tuple[str | bool, tuple[BGR, ...]]]

_SHANGRILA_TILES: Palette = {
    "empty": ("empty", ((215, 232, 240),)),
    "red": ("red", ((40, 45, 200),)),
    "blue": ("blue", ((175, 95, 35),)),
    "yellow": ("yellow", ((40, 200, 235),)),
    "violet": ("violet", ((150, 60, 120),)),
}
_SHENDAO_TILES: Palette = {
    # an empty square shows its shade: the first where file and rank add up odd
    "empty": ("empty", ((150, 195, 220), (125, 170, 200))),
    "light": ("light", ((200, 225, 235),)),
    "dark": ("dark", ((45, 50, 60),)),
}

# ShenShi: what the hall shows where no tile lies (light stone on squares whose file
# and rank add up even, dark stone on the others, the marked squares, the outline),
# the mandala tiles (ground, ring, petal and heart colours), the cushions (and their
# lighter middle and dark tuft), the metal monks.
HALL_BGR: tuple[BGR, ...] = ((186, 188, 184), (122, 124, 120), (105, 175, 215), (45, 55, 70))
INTACT_BGR: tuple[BGR, ...] = ((45, 30, 135), (40, 175, 230), (150, 95, 25), (225, 235, 240))
FADED_BGR: tuple[BGR, ...] = ((196, 212, 224), (165, 175, 196), (205, 190, 175), (214, 224, 230))
# (a cushion's top, its lighter middle, its dark tuft, and the tuft blurred into the
# middle: half of each in linear light, as a steep view's blur shows them where the two
# meet, a colour neither is; an empty orange cushion had been read as a copper monk)
BLOND_BGR: tuple[BGR, ...] = ((130, 200, 232), (158, 236, 255), (78, 120, 139), (126, 190, 208))
ORANGE_BGR: tuple[BGR, ...] = ((25, 105, 235), (40, 130, 255), (15, 63, 141), (30, 103, 208))
METALS_BGR: dict[str, BGR] = {
    "silver": (200, 198, 192),
    "copper": (55, 100, 180),
    "gold": (30, 170, 225),
    "black": (34, 34, 38),
}

DEFAULT_PALETTES: dict[str, dict[str, Palette]] = {
    "shangrila": {
        "space": _SHANGRILA_TILES,
        # a bridge's top, or the road, river and grass of the drawing where it stood
        "bridge": {
            "wood": (True, ((60, 120, 170),)),
            "ground": (False, ((140, 185, 210), (150, 110, 60), (120, 170, 165))),
        },
        # the green glass stone, or the village paper and the printed ring
        "stone": {
            "glass": (True, ((90, 165, 60),)),
            "paper": (False, ((175, 195, 205), (110, 130, 140))),
        },
    },
    "shendao": {
        "square": _SHENDAO_TILES,
        "gate": {
            "stick": ("closed", ((40, 40, 180),)),
            "slot": ("open", ((80, 110, 140), (40, 55, 70))),
        },
    },
    "shenshi": {
        "tile": {
            "none": ("none", HALL_BGR),
            "intact": ("intact", INTACT_BGR[:2]),
            "faded": ("faded", FADED_BGR[:2]),
        },
        "cushion": {
            "none": ("none", HALL_BGR + INTACT_BGR + FADED_BGR),
            "blond": ("blond", BLOND_BGR[:2]),
            "orange": ("orange", ORANGE_BGR[:2]),
        },
        # the monk's robe, or what lies under where it would be
        "monk": {
            "none": ("none", HALL_BGR + INTACT_BGR + FADED_BGR + BLOND_BGR + ORANGE_BGR),
            **{metal: (metal, (bgr,)) for metal, bgr in METALS_BGR.items()},
        },
    },
}
# The paper the light is measured on, per game.
DEFAULT_REFERENCE: dict[str, BGR] = {
    "shangrila": (175, 195, 205),
    "shendao": (95, 140, 175),
    "shenshi": (60, 85, 120),
}
DEFAULT_FIELD: dict[str, BGR] = {"shangrila": (120, 170, 165)}
# Kinds read also by the hue of their channel differences (ReadConfig.hue_veto_kinds).
DEFAULT_HUE_VETO: dict[str, tuple[str, ...]] = {"shangrila": ("space",), "shendao": ("gate",)}
# What the drawing shows in the middle of a bare spot: a Shangri-La bridge's spot, the
# river its road crosses there (the bare class, the mark's colour).
DEFAULT_BARE_MARKS: dict[str, dict[str, tuple[str, BGR]]] = {
    "shangrila": {"bridge": ("ground", (150, 110, 60))}
}
# What lies around a Shangri-La tile on the board: its space, the space's outline, the
# village paper, the tile's own shadow on them (stack heights tell tile from these).
DEFAULT_SURROUNDINGS: tuple[BGR, ...] = (
    (215, 232, 240),
    (70, 80, 90),
    (175, 195, 205),
    (95, 110, 125),
)


@dataclass(frozen=True)
class ReadConfig:
    """Thresholds of the readers (see the module's docstring for the colours).

    Distances are in log-linear-light units (0.1 is about a 10% change of one channel).
    """

    palettes: dict[str, Palette] = field(default_factory=dict)
    reference_bgr: BGR = (175, 195, 205)
    field_bgr: BGR | None = None
    """The paper between the villages (Shangri-La's fields), also measured for light."""
    road_clearance_mm: float = 10.0
    field_every: int = 2
    """The fields are large: every second reference point in each direction is enough."""
    surroundings_bgr: tuple[BGR, ...] = DEFAULT_SURROUNDINGS
    foreign_bgr: tuple[BGR, ...] = ((120, 160, 220), (95, 135, 200), (70, 105, 160), (60, 85, 130))
    """Skin tones: pixels nearer these than any piece are a hand, not the element."""
    brightness_weight: float = 0.35
    """How much overall brightness counts against colour: low, since shadows of hands
    and pieces darken without changing the colour."""
    max_distance: float = 0.9
    """Farther than this from every class: something else is there (a hand): abstain."""
    min_margin: float = 0.12
    """The second-best class at least this much farther than the best, or abstain."""
    min_agreement: float = 0.6
    """At least this share of an element's pixels must agree with its reading."""
    window_fraction: float = 0.5
    """Colour is read on the middle of an element: this fraction of its size."""
    window_fractions: dict[str, tuple[float, float]] = field(
        default_factory=lambda: {"gate": (0.5, 0.2)}
    )
    """Kinds read on another share of their size (along, across): a gate stick is
    5 mm wide and a hand leaves it up to a millimetre off its slot."""
    samples_per_side: int = 7
    ring_radii: tuple[float, float] = (0.33, 0.4)
    """Tiles with a glyph (Shangri-La) are read on a ring around it: half-widths of the
    ring's two rounds of points, as fractions of the space's side."""
    reference_step_mm: float = 6.0
    reference_clearance_mm: float = 4.0
    reference_outlier: float = 0.25
    """Paper samples this far (log) from the fitted light are shadows or hands."""
    glare_floor: float = 0.015
    """Paper brighter than the light explains by more than this (paper units) is glare:
    white light added, taken off the elements near it."""
    glare_tint: float = 0.08
    glare_max: float = 0.5
    """Excess light more coloured (channels apart by more than ``glare_tint``) or
    stronger than ``glare_max`` (paper units) is not glare but something in front."""
    glare_radius_mm: float = 25.0
    hue_veto_kinds: tuple[str, ...] = ()
    hue_veto_margin_deg: float = 10.0
    hue_min_chroma: float = 0.05
    """Kinds whose reading is not kept where the hue of the colour's channel
    differences (their direction: neither glare, white light added, nor the light's
    strength turns it) is this many degrees nearer another class's than the one
    read, the differences at least ``hue_min_chroma`` of the colour's sum. Shendao's
    gates: glare stronger than the paper around shows can bring a red stick's colour
    nearest the slot's while its hue stays a stick's. Shangri-La's spaces: a blue tile
    far off, its samples blurred with the paper and the glyph, can read empty by its
    colour while its hue stays far from the paper's."""
    washed_out_distance: float = 0.15
    washed_out_margin: float = 0.1
    washed_out_confidence: float = 0.6
    """An element whose colour looks like none of its pieces, where the paper nearby
    shows glare, is read by its channel differences (blind to white light added)
    when they are this near one piece's (linear light) and this much nearer it than
    any other's, this sure: glare stronger than the paper around shows washes a blue
    tile to a greyish blue no piece is, its channel differences still blue's."""
    bare_marks: dict[str, tuple[str, BGR]] = field(default_factory=dict)
    """Per kind, what the drawing shows in the middle of a bare spot: (the bare class,
    the mark's colour). A spot read bare whose samples show too little of its mark is
    not read: a bridge in a hand's shadow looks like grass, one under strong glare like
    pale road, but neither shows the river a bare bridge spot shows. Spots the drawing
    covers with something else (a bridge spot on a village's paper) are
    not checked."""
    bare_mark_min_samples: int = 3
    """... at least this many of an element's 49 samples nearest the mark (a bare spot
    shows several, a bridge none)."""
    glare_veto_margin: float = 0.05
    """When the channel differences (blind to white glare) clearly prefer another class
    than the colour does, by this much in linear light, the element is not read."""
    glare_veto_floor: float = 0.001
    """... but only where the paper nearby shows some glare (this much, paper units):
    without any, the channel differences are a worse reading than the colour, not a
    check on it (pale faded ShenShi tiles are nearly grey). The floor is low: a little
    glare is enough to turn a stone's colour."""
    ransac_rounds: int = 100
    ransac_points: int = 250
    """Each guess of the light is scored on about this many paper points."""
    min_reference_share: float = 0.3
    """Below this share of the paper seen, the light cannot be measured: nothing is read."""
    min_paper_level: float = 0.004
    """Paper darker than this (linear light) is too dark to read: a black frame."""
    height_min_step_mm: float = 1.9
    """A student shows by the extra ``thickness * cot(elevation)`` its stack covers on
    the board; below this many mm the view is too steep to tell 1 from 2 tiles."""
    height_min_side_px: float = 3.0
    """Nor when a tile's side spans fewer pixels than this in the picture: its edges
    blur over the whole side, and colour, stored at half resolution in JPEG and video,
    bleeds a pixel further: such heights are "not shown" rather than risked."""
    height_edge_bias_mm: float = 0.1
    height_edge_gain: float = 0.85
    """A stack of ``h`` tiles measures ``tile - bias + h * gain * step`` mm: the front
    face of a tile is darker than its top and a pixel half front face, half board
    passes for board, so only part of the lift shows, less in blurred pictures than in
    sharp ones; this compromise, with the margins below, serves both."""
    height_step_mm: float = 0.25
    height_lines: int = 5
    height_line_spread_mm: float = 4.0
    height_gap_mm: float = 1.5
    """An edge is where at least this much of board follows the tile."""
    height_tolerance: float = 0.6
    """Measured extent farther than this many steps from both stack heights: abstain."""
    height_neighbour_mm: float = 30.0
    height_neighbour_cos: float = 0.8
    """A stack within this distance whose direction from this one is within
    acos(0.8), 37 degrees, of the sample lines stands in front of or behind them: a
    height left unread for an edge not seen against bare board is then not shown by
    the view (the neighbour's stack stands over the board gap between them), not an
    unsure reading. Shangri-La's spaces are 22 mm apart, its tiles 19 mm."""
    height_min_sureness: float = 0.35
    """How far from the middle between one tile and two (in half steps) an extent must
    be to be read."""
    monk_arm_mm: float = 8.5
    """The size is read this far from a monk's middle, on the side facing the camera:
    between a master's legs (7.5 mm) and a Grand Master's (10 mm), nearer the master's,
    as the blurred edge of dark metal on a light cushion looks further in than it is."""
    monk_leg_height_mm: float = 0.6
    """The legs are looked for just above the seat: higher, the ray past a master's
    legs would fall on them further in."""
    monk_across_mm: float = 12.0
    monk_across_height_mm: float = 1.0
    """A monk's width is measured on a line through its square's middle, square to
    the camera's direction, this far to either side and this high above its seat:
    its crossed legs are 15 mm across for a master, 20 mm for a Grand Master."""
    monk_width_mm: tuple[float, float, float] = (12.5, 16.75, 17.75)
    """The width read: a master from the first to the second number, a Grand Master
    from the third; between, or narrower (part of the legs not told from what they
    sit on), the size is not read. The dark metal reads a little narrower than it is,
    its blurred edge counted as what it sits on."""
    metal_like_seat: float = 0.3
    """A metal nearer than this (colour) to a colour of its seat (silver and a faded
    mandala's) is read for size only where its legs' width and their reach towards
    the camera agree, when both are read: on such a seat the width alone can be
    wrong."""
    monk_width_scale_mm: float = 5.0
    """Sureness of a size read by width: 0.5 plus the distance from the middle
    between the two sizes over this, at most 1."""
    leg_brightness_weight: float = 0.1
    monk_head_height_mm: float = 30.0
    """Above its seat, only a Grand Master (36 mm tall) has its head here, a master
    (24 mm) nothing."""
    monk_head_mm: float = 2.0
    monk_head_miss_mm: float = 5.0
    """The head tells the size where a ray through it passes this far beside a
    master's head (oblique views)."""
    cushion_tuft_mm: float = 2.0
    """The radius of the dark tuft in a cushion's middle. Where no monk sits, the
    robe's sample points (``monk_robe_mm`` round, ``monk_robe_height_mm`` up) look
    through to the cushion ``height * cot(elevation)`` further on: beyond tuft and
    robe radii together the tuft cannot be what they see, and is not among the
    colours "no monk" may show (a black monk's shaded robe is near the tuft's dark
    brown)."""
    local_glare_floor: float = 0.1
    """Glare measured on a cushion's top is taken off its monk's robe down to this
    share of the robe's light at least (black is 3% of white)."""
    monk_robe_mm: float = 3.5
    monk_robe_height_mm: float = 11.0
    """Both sizes of monk wear their robe at this height above their seat."""
    monk_robe_reach_mm: float = 11.0
    """In slanted views the robe is read lower (down to the crossed legs, the same
    metal): low enough that without a monk the rays through its points meet the seat
    within this far of the square's middle, inside a cushion's top (14 mm, less its
    placement and the blur): further out, an empty cushion shows the light stone of the
    square behind it, which passes for a silver monk."""
    grey_metal_brightness: tuple[float, float] = (-2.4, -1.05)
    """Silver and black are both grey: only brightness tells them apart (the mean log
    light of the robe's median). A robe's side in shade shows silver at a quarter of
    its light, while glare the board's margins do not measure lifts black: both fall
    in this band, and a silver or black reading in it is not kept."""
    min_size_share: float = 0.65
    """This share of the legs' samples must agree (metal: a Grand Master; not: a
    master) to read the size."""
    rim_points: int = 24
    rim_radii: tuple[float, float] = (0.468, 0.484)
    """Shendao: points on the rim of each square, outside its tile (as fractions of the
    square's side)."""
    rim_wall_clearance_mm: float = 4.5
    """Rim points this close to a printed wall (5 mm wide, red) are not compared: an
    empty square under glare, looking like a light tile, had passed for one as its
    rim, half on a wall, looked unlike its middle."""
    rim_tile_apart: float = 0.8
    """A tile's middle and the square's rim are at least this far apart (colour
    distance, brightness counting fully). The rim catches some of the square's dark
    outline, so even an empty square's rim differs from its middle."""
    rim_empty_apart: float = 0.6
    rim_empty_near: float = 0.4
    rim_empty_confidence: float = 0.6
    """A Shendao square whose colour ties between empty and a tile, or that glare
    leaves unsure, is empty, this sure, when its middle and rim are closer than
    ``rim_empty_apart`` and its middle is nearer its empty shade than
    ``rim_empty_near``: a dark tile in shadow can differ from its rim as little, but
    lies farther from the empty shade."""
    faded_corner_hue: tuple[float, float] = (0.06, 0.2)
    faded_corner_brighter: float = 0.03
    """A faded ShenShi tile's printed corner triangles differ in hue from its plain
    edges by this much (log light, brightness apart) and are not brighter by more than
    ``faded_corner_brighter``; bare stone is even, and a neighbour's piece or shadow
    caught in the corners differs more, or is brighter. The print's corners are barely
    darker than its edges: darkness is no cue."""
    faded_min_confidence: float = 0.65
    """... and a "faded" reading at least this sure by its colour: bare stone in
    shade or beside a hand can pass the corners' test, but less surely than a faded
    tile."""
    min_open_samples: int = 8
    """An element needs this many sample points that nothing on it can hide."""
    bare_corner_confidence: float = 0.6
    """A ShenShi tile whose colour ties between bare stone and a faded tile is bare
    stone, this sure, when its corners do not look printed."""
    blond_on_marked_brighter: tuple[float, float] = (0.15, 0.2)
    """A blond cushion and a ShenShi marked square's stone differ mostly in brightness
    (mean log light, the cushion's top brighter): on a marked square with no tile, a
    cushion read blond must be at least the second number brighter than the stone
    around it, one read absent at most the first."""
    petal_min_samples: int = 3
    petal_confidence: float = 0.6
    """On a marked square, a cushion's place where this many samples are nearer an
    intact mandala's blue petals than any other colour the square may show holds no
    cushion (read so, this sure, where it was left unsure): no cushion's top shows
    blue."""
    blond_tie_bare: float = 0.0
    """... and a colour tie between blond and the stone is none only where the
    cushion's place is no brighter than the stone around it."""
    blond_over_unread_brighter: float = 0.5
    blond_over_stone_brighter: float = 0.25
    """... and where the tile is not read (its band may show a mandala), a cushion
    read absent is not kept when its place is this much brighter than the band (a
    blond cushion under glare can show a faded mandala's colour), or
    ``blond_over_stone_brighter`` where the band's colour is nearest the stone (a
    blond cushion half under an arm)."""
    bare_under_cushion_confidence: float = 0.6
    """How sure a ShenShi tile is bare stone when a cushion is read on it and its own
    colour is unsure (the rules put cushions on empty squares only)."""
    intact_pattern_margin: float = 0.4
    intact_pattern_confidence: float = 0.6
    """A ShenShi tile left unread with no cushion read on it is intact, this sure, when
    the median colour of its band's corners is this much nearer an intact mandala's
    yellow than its red, and that of its edges' middles this much nearer its red than
    its yellow: bare stone, a faded mandala and a hand show neither part of the
    pattern."""
    intact_pattern_sum: float = 1.0
    intact_pattern_floor: float = 0.05
    """... or when the two margins add up to ``intact_pattern_sum``, each at least
    ``intact_pattern_floor``: one of the two parts of the pattern is often clear while
    the other is washed out by the lamp or glare."""
    faded_marked_distance: float = 0.4
    faded_marked_margin: float = 0.12
    faded_marked_confidence: float = 0.6
    """A ShenShi tile left unread on a marked square with no cushion is faded, this
    sure, when its colour is at most ``faded_marked_distance`` from a faded mandala's
    and ``faded_marked_margin`` nearer it than the marked stone and an intact mandala."""
    bare_off_marked_confidence: float = 0.6
    """How sure a ShenShi tile off the marked squares is bare stone when its own colour
    is unsure (the rules draw the tiles onto the marked squares, and never move them)."""
    no_legs_run_mm: float = 5.0
    none_min_margin: float = 0.2
    """A robe on a seat the rules allow is no monk only this much nearer the colours
    beneath it than any metal (else the legs decide, :attr:`no_legs_run_mm`): a silver
    monk in shade on a faded mandala looks nearly like the print."""
    no_legs_gap_mm: float = 5.0
    """... or no metal on the line's middle over this width: a monk's legs, 12.5 mm
    wide at least, cross the middle of their square even placed 6 mm off it."""
    legs_shade: float = 0.1
    """... but not where, at any seat it may have, the line's middle is darker than
    the line as a whole by more than this (mean log light): legs in shade, which no
    metal's colour matches (an empty seat's middle is not darker: a faded mandala's
    heart is pale)."""
    no_legs_confidence: float = 0.6
    """A ShenShi robe left unsure between a metal and its seat (or mixed, or like
    neither) is no monk, this sure, when the line across its crossed legs, all seen,
    shows neither skin nor a metal in play (or the robe's colour) on more than
    ``no_legs_run_mm`` in a row (a master's legs are 15 mm wide)."""
    metal_margin: float = 0.2
    """A metal must be this much nearer a robe's colour than the next metal (copper in
    shade is nearly as dark as black, and as little coloured)."""
    none_darker_max: float = 1.0
    """A ShenShi robe read as what lies beneath (no monk) must not be darker than the
    colour of those it is nearest by more than this (mean log light; shadows darken by
    less): a black monk lifted to grey by glare had been read as a faded mandala."""
    none_darker_than_seat: float = 0.5
    """... nor darker than its seat's top as the frame shows it (a cushion's top, a
    faded mandala's band) by more than this, where the rules allow a monk there: a
    monk in shade is darker than the seat it hides."""
    black_colour_margin: float = 0.7
    """A robe read black must be this much nearer black than copper by colour rather
    than brightness (``leg_brightness_weight``): copper in deep shade is as dark as
    black."""
    cushion_front_samples: int = 3
    """A marked square's tile read bare is not kept where a cushion on a neighbouring
    square stands in front of this many of its band's samples in view."""
    one_monk_each: bool = True
    """Whether the table holds one ShenShi set (one monk of each metal and size); test
    boards with a monk of one kind on every square turn it off."""
    duplicate_margin: float = 0.2
    """One ShenShi monk (metal and size) read on two squares: the surer reading is
    kept where it is this much surer than the other, else neither."""
    grey_copper_margin: float = 1.0
    """A grey robe is read by elimination (silver or black) only when this much
    nearer one of the two than copper by colour (copper in a dim light looks grey
    too)."""
    unseated_margin: float = 0.5
    """Where the rules seat no monk, a metal must be this much nearer than what lies
    beneath to be read as a monk (a player's mistake)."""
    unseated_confidence: float = 0.6
    """How sure "no monk" is where the rules seat none and the robe looks like what is
    beneath (bare stone is about as grey as a silver monk)."""
    min_visible_share: float = 0.5
    """An element less covered than this (by a hand the stillness detector sees) is
    still read; more covered, it is unknown."""

    @classmethod
    def for_game(cls, game: str) -> ReadConfig:
        """The default configuration of ``game``. Raises ``KeyError`` for an unknown
        game."""
        return cls(
            palettes=DEFAULT_PALETTES[game],
            reference_bgr=DEFAULT_REFERENCE[game],
            field_bgr=DEFAULT_FIELD.get(game),
            bare_marks=DEFAULT_BARE_MARKS.get(game, {}),
            hue_veto_kinds=DEFAULT_HUE_VETO.get(game, ()),
        )

    @classmethod
    def from_json(cls, game: str, path: Path) -> ReadConfig:
        """The default of ``game`` with the numbers and colours of ``path`` (a JSON
        object with any of the fields) replacing it. Raises ``ValueError`` naming the
        file and the fault."""
        base = cls.for_game(game)
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"cannot read the reading configuration {path}: {error}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: the reading configuration must be a JSON object")
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if not hasattr(base, key):
                raise ValueError(f"{path}: unknown setting {key!r}")
            if key == "palettes":
                changes[key] = _palettes(value, path)
            elif key == "window_fractions":
                changes[key] = {k: (float(v[0]), float(v[1])) for k, v in value.items()}
            elif key in ("reference_bgr", "field_bgr"):
                changes[key] = _bgr(value, path)
            elif key == "hue_veto_kinds":
                changes[key] = tuple(str(v) for v in value)
            elif key == "bare_marks":
                changes[key] = {
                    k: (str(v[0]), tuple(int(x) for x in v[1])) for k, v in value.items()
                }
            elif key in ("surroundings_bgr", "foreign_bgr"):
                changes[key] = tuple(tuple(int(v) for v in c) for c in value)
            else:
                changes[key] = type(getattr(base, key))(value)
        return replace(base, **changes)


# The element kind whose pieces a calibration colour model measures, per game.
CALIBRATED_KIND = {"shangrila": "space", "shendao": "square"}


def with_colour_model(config: ReadConfig, game: str, model: Any) -> ReadConfig:
    """``config`` with the piece colours of a calibration colour model
    (``calibration.colours.ColourModel``, fitted on the set itself by ``companion
    calibrate colours``). The model measured its classes under its own white balance;
    each is taken relative to its ``empty`` class and set against this palette's empty
    colour, so only how the pieces differ from the empty board is borrowed. Classes the
    palette does not know are ignored; a model without ``empty`` changes nothing."""
    kind = CALIBRATED_KIND.get(game)
    names = {c.name: c for c in getattr(model, "classes", ())}
    if kind is None or "empty" not in names:
        return config
    palette = dict(config.palettes[kind])

    def linear(lab: tuple[float, float, float]) -> Any:
        pixel = np.array([[lab]], dtype=np.float32)
        return np.maximum(cv2.cvtColor(pixel, cv2.COLOR_Lab2LBGR)[0, 0], 1e-4)

    def srgb(value: Any) -> BGR:
        encoded = np.where(
            value <= 0.0031308, 12.92 * value, 1.055 * np.power(value, 1 / 2.4) - 0.055
        )
        b, g, r = (int(v) for v in np.clip(np.rint(encoded * 255), 0, 255))
        return (b, g, r)

    empty_colours = palette["empty"][1]
    anchor = np.array(empty_colours[0], dtype=np.float64) / 255.0
    anchor = np.where(anchor <= 0.04045, anchor / 12.92, ((anchor + 0.055) / 1.055) ** 2.4)
    empty = linear(names["empty"].mean)
    for name, (value, _) in list(palette.items()):
        if name != "empty" and name in names:
            palette[name] = (value, (srgb(anchor * linear(names[name].mean) / empty),))
    return replace(config, palettes={**config.palettes, kind: palette})


def _palettes(value: Any, path: Path) -> dict[str, Palette]:
    if not isinstance(value, dict):
        raise ValueError(f"{path}: 'palettes' must map element kinds to classes")
    out: dict[str, Palette] = {}
    for kind, classes in value.items():
        out[kind] = {
            name: (reading, tuple(_bgr(c, path) for c in colours))
            for name, (reading, colours) in classes.items()
        }
    return out


def _bgr(value: Any, path: Path) -> BGR:
    """A colour of the configuration: three integers, blue, green, red. Raises
    ``ValueError`` naming the file when it is not."""
    if not isinstance(value, list | tuple) or len(value) != 3:
        raise ValueError(
            f"{path}: a colour must be three numbers (blue, green, red), not {value!r}"
        )
    blue, green, red = (int(v) for v in value)
    return blue, green, red
