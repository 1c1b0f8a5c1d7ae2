"""Reading the table by what the player's own set looks like: likelihoods from a fitted
model, with nothing taken from the project's drawing of the board.

At calibration the player shows the camera the **empty board** and a picture with
**pieces of every colour on known places** (every bridge and stone in place, a few tiles
of each colour; for ShenShi every monk, both cushions and both tile faces, see
:func:`stack_calibration_layout`). :func:`calibrate` keeps the empty board as seen
from above (its *bare appearance*, element by element and everywhere between) and each
piece colour's appearance under the light of that moment (:class:`SetAppearance`).

Reading a frame (:class:`AppearanceReader`):

1. **Sample points, once per view.** Each element is looked at where its piece's top
   would stand (a ring around a tile's glyph, the bridge's deck, the stone's dome);
   for every sample pixel the board point it shows when nothing stands there is kept,
   so the bare appearance is compared at the very point the camera sees.
2. **The light, every frame**, relative to the calibration: the frame seen from above is
   divided by the bare board, and a smooth field (quadratic in board position, per
   channel, in log linear light) is fitted robustly to the ratio. Pieces, hands and
   shadows are outliers; the board's own print, whatever it is, is the reference. A
   hand reaching in over the board (a large patch unlike the board's colour and every
   piece's, coming in from the edge) is found there and left out of the fit with its
   edge; the elements' points under it are not read, and an element mostly under it
   is *covered by a hand*.
3. **Features** per element: how far the element is from its bare appearance (median
   distance of its points, share of points that changed), and how far from each piece
   colour of the set (median distance, share of points near it, margin to the next).
   Distances are in log linear light, brightness counting half (shadows darken).
4. **Likelihoods.** A conditional logit over the element's values and *something else*
   (a hand, an object, a piece of the wrong kind) turns the features into a probability
   per value. Its few weights per kind are fitted from rendered tables of many worlds
   (:func:`fit`, ``companion vision fit``) and shipped as a versioned file
   (``vision/fitted/appearance-<game>.json``).

ShenShi's stacked elements (a tile, a cushion on it, a monk on that) are looked at and
weighed as :mod:`vision.appearance_stacks` says.

The reader knows the board's layout and the pieces' sizes, never the rules: it reports
each element's probabilities and lets the referee weigh them against the legal moves.
Shangri-La's stack heights are read where a slanted camera shows them
(:mod:`vision.appearance_heights`) and left unknown, *not shown*, elsewhere: a sensor
board gives them then, or the referee. ShenShi's stacked pieces are read by
:mod:`vision.appearance_stacks`.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import ProfileError
from calibration.profiles import (
    DEFAULT_PROFILE,
    now_iso,
    profile_dir,
    read_document,
    save_document,
    write_atomic,
)
from engines.jsontext import read_json_file
from engines.observation import Observation, Reading, TableSchema, Value
from vision import (
    appearance_flat,
    appearance_heights,
    appearance_margin,
    appearance_net,
    appearance_stacks,
)
from vision.appearance_core import (
    BARE_PX_PER_MM,
    BARE_VALUES,
    FEATURES,
    LIGHT_PX_PER_MM,
    NEAR,
    OTHER,
    RIDGE,
    SHOWN_AT,
    AppearanceError,
    ElementFeatures,
    LightField,
    SetAppearance,
    bare_value,
    distance,
    fit_weights,
    light_design_grid,
    linear,
    log_colour,
    probabilities,
    same_view,
    sample,
)
from vision.appearance_stacks import (
    check_classifier,
    classify,
    classify_many,
    fit_classifiers,
    prototypes,
)
from vision.models import HEIGHT_SUFFIX, BoardModel, referee_schema
from vision.view import BoardView, in_picture

FloatArray = NDArray[np.float64]
Float32Array = NDArray[np.float32]
Image = NDArray[np.uint8]

FORMAT_VERSION = 1

# Where each kind of element is looked at: sample grid (along, across), its half-extent
# as a share of the piece's size, the hole left around a glyph, and the height of the
# piece's top (a key of the model's pieces, and a share of it).
_SAMPLING: dict[str, tuple[int, float, float, str, float]] = {
    "space": (6, 0.40, 0.22, "tile_thickness_mm", 1.5),
    "bridge": (5, 0.38, 0.0, "bridge_height_mm", 1.0),
    "stone": (3, 0.28, 0.0, "stone_height_mm", 1.0),
    "square": (6, 0.40, 0.15, "tile_thickness_mm", 1.0),
    "gate": (5, 0.38, 0.0, "stick_height_mm", 1.0),
}
_PIECE_SIZE = {"space": "tile_mm", "square": "tile_mm"}
_STACK = ("tile", "cushion", "monk")
"""Kinds of element stacked on one spot (ShenShi's square), bottom up."""


# --- the sample points -----------------------------------------------------------------------


@dataclass(frozen=True)
class Sampling:
    """Every sample point of every element for one view."""

    elements: tuple[str, ...]
    kinds: tuple[str, ...]
    owner: NDArray[np.intp]  # element index of each point
    pixels: NDArray[np.float32]  # (P, 2) frame pixels
    ground_mm: FloatArray  # (P, 2) board point each pixel shows when bare
    inside: NDArray[np.bool_]  # pixel inside the frame
    groups: NDArray[np.intp] | None = None  # stacked kinds: each point's group


_OFFSETS: dict[tuple[Any, ...], tuple[FloatArray, float]] = {}
"""Sample offsets made so far, by kind and size (the same for every view)."""


def element_offsets(
    kind: str, element_size: tuple[float, float], pieces: Mapping[str, float]
) -> tuple[FloatArray, float]:
    """Sample offsets (element frame, mm) and their height above the board (read-only,
    made once per kind and size)."""
    grid, half, hole, height_key, share = _SAMPLING[kind]
    size = element_size
    if kind in _PIECE_SIZE:
        side = pieces[_PIECE_SIZE[kind]]
        size = (side, side)
    key = (kind, float(size[0]), float(size[1]), float(pieces.get(height_key, 0.0)))
    known = _OFFSETS.get(key)
    if known is not None:
        return known
    steps = np.linspace(-1.0, 1.0, grid)
    u, v = np.meshgrid(steps, steps)
    keep = (
        (np.abs(u) > hole / half) | (np.abs(v) > hole / half)
        if hole
        else np.ones_like(u, dtype=bool)
    )
    offsets = np.column_stack([u[keep] * half * size[0], v[keep] * half * size[1]])
    offsets.setflags(write=False)
    known = _OFFSETS[key] = (offsets, pieces.get(height_key, 0.0) * share)
    return known


def plan(model: BoardModel, view: BoardView, elements: Sequence[str]) -> Sampling:
    """The sample points of ``elements`` (board elements, no stack heights) in ``view``."""
    owners, kinds, groups = [], [], []
    camera = view.camera_mm()
    board_points = []
    for index, name in enumerate(elements):
        element = model.elements[name]
        kinds.append(element.kind)
        if element.kind in _STACK:
            offsets, heights, group = appearance_stacks.stack_points(
                element.kind,
                model.pieces,
                appearance_stacks.across(element.centre_mm, element.angle_deg, camera),
            )
        else:
            offsets, height = element_offsets(element.kind, element.size_mm, model.pieces)
            heights, group = np.full(len(offsets), height), np.zeros(len(offsets), np.intp)
        groups.append(group)
        a = math.radians(element.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        points = offsets @ rot.T + np.array(element.centre_mm)
        if view.projection is not None:
            points = np.column_stack([points, heights])
        board_points.append(points)
        owners.append(np.full(len(offsets), index))
    pixel_array = view.to_image(np.vstack(board_points))  # one pass for every element
    inside = in_picture(pixel_array, view.image_size)
    if camera is not None and any(k in _STACK for k in kinds):
        # a point a piece of another square could stand in front of is not looked at
        inside &= ~appearance_stacks.possibly_hidden(
            np.vstack(board_points), np.concatenate(owners), kinds, elements, model, camera
        )
    point_groups = np.concatenate(groups) if any(k in _STACK for k in kinds) else None
    return Sampling(
        tuple(elements),
        tuple(kinds),
        np.concatenate(owners).astype(np.intp),
        pixel_array.astype(np.float32),
        view.to_board(pixel_array),
        inside,
        point_groups,
    )


# --- what the player's set looks like --------------------------------------------------------


KIND_APPEARANCE = "companion.appearance"


def appearance_paths(game: str, profile: str | None = None) -> tuple[Path, Path]:
    """Where ``profile`` keeps ``game``'s set appearance: the document and the picture
    of the empty board."""
    folder = profile_dir(profile or DEFAULT_PROFILE)
    return folder / f"appearance-{game}.json", folder / f"appearance-{game}-bare.png"


def save_appearance(appearance: SetAppearance, profile: str | None = None) -> Path:
    """Keep ``appearance`` in the calibration ``profile`` (atomically, the picture first).
    Raises ``calibration.errors.ProfileError`` when it cannot be written."""
    document, picture = appearance_paths(appearance.game, profile)
    srgb = np.where(
        appearance.bare <= 0.0031308,
        appearance.bare * 12.92,
        1.055 * np.power(np.maximum(appearance.bare, 0.0031308), 1 / 2.4) - 0.055,
    )
    ok, encoded = cv2.imencode(".png", np.clip(np.rint(srgb * 255), 0, 255).astype(np.uint8))
    if not ok:
        raise AppearanceError("the empty board's picture could not be encoded")
    data = encoded.tobytes()
    write_atomic(picture, data)
    colours = {
        kind: [{"value": value, "colour": _rounded(col)} for value, col in values.items()]
        for kind, values in appearance.colours.items()
    }
    save_document(
        document,
        KIND_APPEARANCE,
        {
            "game": appearance.game,
            "created": now_iso(),
            "px_per_mm": BARE_PX_PER_MM,
            "bare_picture": picture.name,
            "bare_sha256": hashlib.sha256(data).hexdigest(),
            "colours": colours,
        },
    )
    return document


def _rounded(colour: FloatArray) -> list[Any]:
    if colour.ndim == 2:
        return [_rounded(row) for row in colour]
    return [round(float(c), 5) for c in colour]


def load_appearance(game: str, profile: str | None = None) -> SetAppearance | None:
    """``game``'s set appearance in ``profile``, or ``None`` when it has none. Raises
    ``calibration.errors.ProfileError`` for a damaged or foreign file."""
    document, picture = appearance_paths(game, profile)
    if not document.exists():
        return None
    data = read_document(document, KIND_APPEARANCE)
    try:
        raw = picture.read_bytes()
    except OSError as error:
        raise ProfileError(
            f"cannot read {picture}: {error.strerror or error}; calibrate the set again"
        ) from None
    if hashlib.sha256(raw).hexdigest() != data.get("bare_sha256"):
        raise ProfileError(
            f"{picture} is not the picture {document} was made with; calibrate the set again"
        )
    bare = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_COLOR)
    try:
        if bare is None or data.get("game") != game or data.get("px_per_mm") != BARE_PX_PER_MM:
            raise ValueError("not this game's, or not this version's")
        colours: dict[str, dict[Value, FloatArray]] = {}
        for kind, values in data["colours"].items():
            colours[str(kind)] = {}
            for item in values:
                value = item["value"]
                colour = np.array(item["colour"], dtype=np.float64)
                several = colour.ndim == 2 and colour.shape[1] == 3 and len(colour) >= 1
                if (
                    (colour.shape != (3,) and not several)
                    or not np.isfinite(colour).all()
                    or not isinstance(value, str | bool)
                ):
                    raise ValueError(f"a colour of {kind} is malformed")
                colours[str(kind)][value] = colour
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ProfileError(
            f"the set appearance {document} cannot be used ({error}); calibrate the set again"
        ) from None
    return SetAppearance(game, linear(np.asarray(bare, dtype=np.uint8)), colours)


LOCAL_LIGHT_MM = 25.0
"""How far the local light correction reaches (its blur's sigma on the board)."""


HAND_AREA_MM2 = 5000.0
"""Least area of board, in square mm, taken for a hand (:func:`hand_on_light_grid`):
about three of Shendao's squares; a hand and the arm behind it cover more. The three
``HAND_`` numbers were chosen on the validation worlds (docs/vision-bench.md, *A hand
over the board*): colour changes of 0.3 to 0.5 and areas of 5,000 to 10,000 mm² read
alike there."""
HAND_CHROMA = 0.5
"""Least change of colour, the brightness left out (log light), from the empty board
for a point to be taken for a hand: a lamp's pool or a shadow changes the brightness
much more than the colour, a hand changes the colour."""
HAND_GROW_MM = 10.0
"""How far past the points found a hand is taken to reach: its edge, blurred into the
board, and its fingers are too near the board's colours to be found, yet bend the
light and change what the elements there show."""


def fit_light(
    frame: Image, view: BoardView, appearance: SetAppearance, size_mm: tuple[float, float]
) -> LightField:
    """The light of ``frame`` against the calibration: the log-colour difference over
    the board, fitted by a quadratic with outliers (pieces, hands, shadows) trimmed,
    then what the quadratic leaves on the board's own print, smoothed. A hand found
    over the board (:func:`hand_on_light_grid`), grown by ``HAND_GROW_MM``, is left
    out of both (where its colour is near the board's it would pass the trimming and
    bend the light) and kept with the light, so that the elements' points under it
    are left out too (:func:`features`)."""
    reference = appearance.light_reference()
    h, w = reference.shape[:2]
    seen = view.rectify(frame, size_mm, 2.5 * LIGHT_PX_PER_MM)
    valid = (
        cv2.resize(
            ((seen[:, :, 0] | seen[:, :, 1] | seen[:, :, 2]) > 0).astype(np.uint8),
            (w, h),
            interpolation=cv2.INTER_NEAREST,
        ).reshape(-1)
        > 0
    )
    seen = np.asarray(cv2.resize(seen, (w, h), interpolation=cv2.INTER_AREA), dtype=np.uint8)
    diff = (log_colour(linear(seen)) - reference).reshape(-1, 3)
    design = light_design_grid(h, w, size_mm)
    coefficients, keep = _trimmed_light(diff, design, valid)
    pieces = [np.asarray(c) for colours in appearance.colours.values() for c in colours.values()]
    hand = hand_on_light_grid(diff - design @ coefficients, valid, keep, reference, pieces)
    if hand.any():
        r = max(1, round(HAND_GROW_MM * LIGHT_PX_PER_MM))
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        grown = cv2.dilate(hand.astype(np.uint8), disc).reshape(-1) > 0
        coefficients, keep = _trimmed_light(diff, design, valid & ~grown)
        hand = grown.reshape(h, w)
    rest = (diff - design @ coefficients) * keep[:, None]
    sigma = LOCAL_LIGHT_MM * LIGHT_PX_PER_MM
    weight = cv2.GaussianBlur(keep.reshape(h, w).astype(np.float32), (0, 0), sigma)
    local = cv2.GaussianBlur(rest.reshape(h, w, 3).astype(np.float32), (0, 0), sigma)
    local = (
        local / np.maximum(weight, 0.05)[:, :, None] * np.minimum(weight / 0.05, 1.0)[:, :, None]
    )
    return LightField(np.asarray(coefficients), np.asarray(local, dtype=np.float32), size_mm, hand)


def _trimmed_light(
    diff: FloatArray, design: FloatArray, valid: NDArray[np.bool_]
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """The quadratic light fitted to ``diff`` at the ``valid`` points with outliers
    trimmed, and the points it kept."""
    keep = valid.copy()
    coefficients: NDArray[np.floating[Any]] = np.zeros((6, 3))
    for _ in range(4):
        if keep.sum() < 12:
            break
        used = design[keep]
        coefficients = np.linalg.solve(used.T @ used + 1e-6 * np.eye(6), used.T @ diff[keep])
        residual = distance(diff, design @ coefficients)
        scale = float(np.median(residual[keep])) + 1e-3
        keep = valid & (residual < 2.5 * scale)
    return np.asarray(coefficients, dtype=np.float64), keep


def hand_on_light_grid(
    left: FloatArray,
    valid: NDArray[np.bool_],
    kept: NDArray[np.bool_],
    reference: FloatArray,
    pieces: Sequence[FloatArray],
) -> NDArray[np.bool_]:
    """The points of the light's grid (the shape of ``reference``, the empty board's
    log colour there) a hand covers, found in the picture alone: of the points in the
    picture (``valid``) that the light's first fit did not keep (``kept``), those whose
    colour ``left`` by that light (log colour against ``reference``) has changed by
    ``HAND_CHROMA`` or more and is near none of the ``pieces``' calibrated colours
    (each one colour, or several as rows), in patches of ``HAND_AREA_MM2`` or more
    that reach the edge of the board or of the picture (an arm comes in from outside;
    pieces, or a stain of light in the board's middle, do not)."""
    h, w = reference.shape[:2]
    foreign = valid & ~kept & (np.sqrt(np.sum(left[:, 1:] ** 2, axis=1)) >= HAND_CHROMA)
    at = np.flatnonzero(foreign)
    if pieces and len(at):
        seen = left[at] + reference.reshape(-1, 3)[at]
        nearest = np.min([distance(seen, p.reshape(-1, 1, 3)).min(axis=0) for p in pieces], axis=0)
        foreign[at] = nearest > NEAR
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        foreign.reshape(h, w).astype(np.uint8), connectivity=8
    )
    edge = np.ones((h, w), dtype=bool)
    edge[1:-1, 1:-1] = False
    outside = (~valid).reshape(h, w).astype(np.uint8)
    edge |= cv2.dilate(outside, np.ones((3, 3), np.uint8)) > 0
    large = [
        i
        for i in range(1, count)
        if stats[i, cv2.CC_STAT_AREA] >= HAND_AREA_MM2 * LIGHT_PX_PER_MM**2
    ]
    return np.isin(labels, [i for i in large if edge[labels == i].any()])


# --- features and the model ------------------------------------------------------------------


def features(
    frame: Image,
    view: BoardView,
    appearance: SetAppearance,
    model: BoardModel,
    sampling: Sampling,
    schema: TableSchema,
    light: LightField | None = None,
    context: bool = True,
) -> list[ElementFeatures]:
    """Every element's feature rows in ``frame``, computed kind by kind over arrays of
    (elements, points); ``light``: the frame's light when already fitted; without
    ``context``, a stacked element's classifier input is left out (when only what it
    shows is wanted: fitting the square network, :mod:`vision.appearance_net`)."""
    if light is None:
        light = fit_light(frame, view, appearance, model.size_mm)
    seen = log_colour(linear(np.asarray(sample(frame, sampling.pixels), dtype=np.uint8)))
    seen = seen - light.at(sampling.ground_mm)
    to_bare = distance(seen, appearance.bare_log(sampling.ground_mm))
    # a point under a hand found over the board shows the hand, not the element
    shown = sampling.inside & ~light.under_hand(sampling.ground_mm)
    starts = np.searchsorted(sampling.owner, np.arange(len(sampling.elements)))
    out: dict[int, ElementFeatures] = {}
    for kind in dict.fromkeys(sampling.kinds):
        members = np.array([i for i, k in enumerate(sampling.kinds) if k == kind])
        count = int(np.sum(sampling.owner == members[0]))
        index = starts[members][:, None] + np.arange(count)[None, :]
        inside = shown[index]
        if kind in _STACK and sampling.groups is not None:
            names = [sampling.elements[m] for m in members]
            stacked = appearance_stacks.features(
                kind,
                names,
                seen[index],
                to_bare[index],
                inside,
                sampling.groups[index[0]],
                appearance,
                schema,
                model.pieces,
                context,
            )
            out.update({int(m): item for m, item in zip(members, stacked, strict=True)})
            continue
        share = inside.mean(axis=1)
        # points out of the picture count as missing; an element wholly out keeps them
        use = inside | ~inside.any(axis=1, keepdims=True)
        values = sorted(schema.values[sampling.elements[members[0]]], key=repr)
        bare = bare_value(values)
        colours = appearance.colours.get(kind, {})
        piece_values = [v for v in values if v != bare and v in colours]
        change = np.where(use, to_bare[index], np.nan)
        bare_change = _median(change)
        changed_share = np.nansum(change > NEAR, axis=1) / use.sum(axis=1)
        points = seen[index]
        piece_d = (
            np.stack([np.where(use, distance(points, colours[v]), np.nan) for v in piece_values])
            if piece_values
            else np.full((1, len(members), count), np.inf)
        )
        medians = _median(piece_d) if piece_values else np.zeros((0, len(members)))
        closest_piece = np.min(piece_d, axis=0)
        counted = use.sum(axis=1)
        bare_wins = np.sum(use & (change < closest_piece), axis=1) / counted
        alternatives = (bare, *piece_values, OTHER)
        rows = np.zeros((len(members), len(alternatives), len(FEATURES)))
        rows[:, 0, 0:4] = np.column_stack(
            [np.ones(len(members)), bare_change, changed_share, bare_wins]
        )
        for j in range(len(piece_values)):
            others = np.delete(piece_d, j, axis=0)
            rival = np.minimum(change, others.min(axis=0)) if len(others) else change
            wins = np.sum(use & (piece_d[j] < rival), axis=1) / counted
            other_medians = np.delete(medians, j, axis=0)
            margin = (
                np.minimum(other_medians.min(axis=0) - medians[j], 1.0)
                if len(other_medians)
                else np.ones(len(members))
            )
            rows[:, 1 + j, 4:9] = np.column_stack(
                [np.ones(len(members)), medians[j], wins, margin, bare_change]
            )
        closest = np.vstack([bare_change[None, :], medians]).min(axis=0)
        rows[:, -1, 9:12] = np.column_stack([np.ones(len(members)), closest, bare_change])
        for row, member in enumerate(members):
            out[int(member)] = ElementFeatures(
                sampling.elements[member], kind, alternatives, rows[row], float(share[row])
            )
    items = [out[i] for i in range(len(sampling.elements))]
    if sampling.groups is not None and context:
        items = appearance_stacks.with_context(items, model, view)
    return items


def _median(values: FloatArray) -> FloatArray:
    """Median along the last axis, leaving out NaN (points out of the picture)."""
    if not np.isnan(values).any():
        return np.asarray(np.median(values, axis=-1))
    return np.asarray(np.nanmedian(values, axis=-1))


@dataclass(frozen=True)
class FittedModel:
    """The conditional logit's weights per element kind, with how they were made."""

    game: str
    weights: dict[str, FloatArray]
    provenance: dict[str, Any]
    stacks: dict[str, Any] = field(default_factory=dict)
    """Stacked kinds: their classifier (:mod:`vision.appearance_stacks`), by kind."""
    network: appearance_net.SquareNetwork | None = None
    """The square network that reads a stacked square whole, when fitted
    (:mod:`vision.appearance_net`): a stacked element is then read by its classifier
    and the network together (:func:`together`), or by its classifier alone where the
    calibration did not show every value of its kind."""
    flat: appearance_flat.FlatNetwork | None = None
    """The network that reads a flat square whole, when fitted
    (:mod:`vision.appearance_flat`): the square is then read by its weights and the
    network together (:func:`together`)."""

    def probabilities(self, item: ElementFeatures) -> FloatArray:
        """``item``'s probability per alternative."""
        if item.extra is not None and item.kind in self.stacks:
            p = classify(self.stacks[item.kind], item)
            if p is not None:
                return p
        return probabilities(self.weights[item.kind], item.rows)

    def probabilities_of(self, items: Sequence[ElementFeatures]) -> list[FloatArray]:
        """Each item's probability per alternative (:meth:`probabilities`); a stacked
        kind's items go through its classifier together."""
        found: list[FloatArray | None] = [None] * len(items)
        if self.stacks:
            for kind, params in self.stacks.items():
                chosen = [i for i, item in enumerate(items) if item.kind == kind]
                read = classify_many(params, [items[i] for i in chosen])
                for i, p in zip(chosen, read, strict=True):
                    found[i] = p
        return [
            p if p is not None else self.probabilities(item)
            for p, item in zip(found, items, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        data = {
            "version": FORMAT_VERSION,
            "game": self.game,
            "features": list(FEATURES),
            "weights": {k: [round(float(x), 6) for x in w] for k, w in self.weights.items()},
            "provenance": self.provenance,
        }
        if self.stacks:
            data["stacks"] = {
                kind: {
                    key: np.asarray(v).tolist() if isinstance(v, np.ndarray) else v
                    for key, v in params.items()
                }
                for kind, params in self.stacks.items()
            }
        if self.network is not None:
            data["network"] = self.network.to_json()
        if self.flat is not None:
            data["flat_network"] = self.flat.to_json()
        return data

    @classmethod
    def from_json(cls, data: Any, source: str) -> FittedModel:
        try:
            if data["version"] != FORMAT_VERSION or list(data["features"]) != list(FEATURES):
                raise AppearanceError(f"{source} was fitted for another reader version")
            weights = {str(k): np.array([float(x) for x in w]) for k, w in data["weights"].items()}
            if any(len(w) != len(FEATURES) for w in weights.values()):
                raise AppearanceError(f"{source}: a kind has the wrong number of weights")
            stacks = data.get("stacks", {})
            if stacks:
                stacks = {str(k): check_classifier(v, source) for k, v in stacks.items()}
            raw_network = data.get("network")
            network = (
                None
                if raw_network is None
                else appearance_net.SquareNetwork.from_json(raw_network, source)
            )
            raw_flat = data.get("flat_network")
            flat = (
                None
                if raw_flat is None
                else appearance_flat.FlatNetwork.from_json(raw_flat, source)
            )
            return cls(
                str(data["game"]),
                weights,
                dict(data.get("provenance", {})),
                dict(stacks),
                network,
                flat,
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, AppearanceError):
                raise
            raise AppearanceError(f"{source} cannot be used: {error}") from None


def fitted_path(game: str) -> Path:
    return Path(str(resources.files("vision").joinpath("fitted"))) / f"appearance-{game}.json"


def load_fitted(game: str, path: str | Path | None = None) -> FittedModel:
    """The fitted weights shipped with the package (or at ``path``).
    Raises ``AppearanceError``."""
    where = Path(path) if path is not None else fitted_path(game)
    try:
        data = read_json_file(where, "fitted reader")
    except ValueError as error:
        raise AppearanceError(str(error)) from None
    return FittedModel.from_json(data, str(where))


# --- calibration -----------------------------------------------------------------------------


def calibrate(
    game: str,
    model: BoardModel,
    empty: Image,
    empty_view: BoardView,
    pieces: Sequence[tuple[Image, BoardView, Observation]],
) -> SetAppearance:
    """The set's appearance from a picture of the empty board and pictures of pieces on
    known places (each with the observation it shows). Raises ``AppearanceError`` when
    a kind's piece values are not all shown."""
    bare = linear(empty_view.rectify(empty, model.size_mm, BARE_PX_PER_MM))
    appearance = SetAppearance(game, bare, {})
    samples: dict[str, dict[Value, list[FloatArray]]] = {}
    for frame, view, observation in pieces:
        names = [
            e for e in observation.schema.elements if e in model.elements and observation[e].known
        ]
        sampling = plan(model, view, names)
        light = fit_light(frame, view, appearance, model.size_mm)
        seen = log_colour(linear(np.asarray(sample(frame, sampling.pixels), dtype=np.uint8)))
        seen = seen - light.at(sampling.ground_mm)
        for index, name in enumerate(names):
            value = observation[name].value
            if value in BARE_VALUES or value is None:
                continue
            mask = (sampling.owner == index) & sampling.inside
            if sampling.kinds[index] in _STACK and sampling.groups is not None:
                shows = appearance_stacks.calibration_mask(
                    sampling.kinds[index],
                    appearance_stacks.square_values(observation, name),
                    model.pieces,
                    sampling.groups[sampling.owner == index],
                )
                if shows is None:
                    continue
                mask[mask] = shows[sampling.inside[sampling.owner == index]]
            samples.setdefault(sampling.kinds[index], {}).setdefault(value, []).append(seen[mask])
    for kind, values in samples.items():
        if kind in _STACK:
            appearance.colours[kind] = {
                value: prototypes(np.vstack(parts)) for value, parts in values.items()
            }
            continue
        appearance.colours[kind] = {
            value: np.median(np.vstack(parts), axis=0) for value, parts in values.items()
        }
    return appearance


_PRESENT: dict[str, Value] = {"bridge": True, "stone": True, "gate": "closed"}
"""What the calibration position puts on every element of these kinds."""


def calibration_layout(
    schema: TableSchema, model: BoardModel, colours: Sequence[str], per_colour: int = 3
) -> Observation:
    """The calibration position: every bridge, stone (Shangri-La) and stick (Shendao)
    in place, and ``per_colour`` tiles of each colour on places spread over the board
    (which places is shown to the player, and the same for a given board). ShenShi's
    is :func:`stack_calibration_layout` (``colours`` and ``per_colour`` unused)."""
    if any(e.kind in _STACK for e in model.elements.values()):
        return stack_calibration_layout(schema, model)
    places = [e.name for e in model.elements.values() if e.kind in ("space", "square")]
    step = max(1, len(places) // (len(colours) * per_colour))
    readings: dict[str, Reading | Value | None] = {}
    heights = any(name.endswith(HEIGHT_SUFFIX) for name in schema.elements)
    for i, colour in enumerate(c for c in colours for _ in range(per_colour)):
        place = places[(i * step + i // len(colours)) % len(places)]
        readings[place] = colour
        if heights:
            readings[place + HEIGHT_SUFFIX] = 1
    for name in schema.elements:
        element = model.elements.get(name)
        if element is None:
            continue
        if element.kind in _PRESENT:
            readings[name] = _PRESENT[element.kind]
        elif element.kind in ("space", "square") and name not in readings:
            readings[name] = "empty"
            if heights:
                readings[name + HEIGHT_SUFFIX] = 0
    return Observation(schema, readings)


def stack_calibration_layout(schema: TableSchema, model: BoardModel) -> Observation:
    """ShenShi's calibration position, on every other square of the hall so that no
    two stacks stand side by side: each monk once, on a cushion (half of them on an
    intact tile, half on the board), a few cushions alone on intact tiles, and four
    tiles of each face alone. The cushions used are those of a set (at most five
    orange)."""
    squares = sorted(
        {e.name.split(" ")[0] for e in model.elements.values() if e.kind in _STACK},
        key=lambda n: (-int(n[1:]), n[0]),
    )
    spread = [n for n in squares if (ord(n[0]) + int(n[1:])) % 2 == 0]
    monks = sorted((v for v in schema.values[f"{spread[0]} monk"] if v != "none"), key=str)
    stacks: list[tuple[Value, Value, Value]] = []
    for i, monk in enumerate(monks):
        stacks.append(
            ("intact" if i % 2 == 0 else "none", "orange" if i % 3 == 1 else "blond", monk)
        )
    stacks += [("intact", "blond", "none")] * 3 + [("intact", "orange", "none")] * 2
    stacks += [("intact", "none", "none")] * 4 + [("faded", "none", "none")] * 4
    readings: dict[str, Reading | Value | None] = {
        name: "none" for name in schema.elements if name in model.elements
    }
    for i, (tile, cushion, monk) in enumerate(stacks):
        square = spread[(i * 7) % len(spread)]
        readings.update(
            {f"{square} tile": tile, f"{square} cushion": cushion, f"{square} monk": monk}
        )
    return Observation(schema, readings)


# --- the reader ------------------------------------------------------------------------------


@dataclass
class AppearanceReading:
    """What :meth:`AppearanceReader.read` saw: the observation, each element's
    probabilities, and why elements were left unknown."""

    observation: Observation
    probabilities: dict[str, dict[str, float]]
    abstained: dict[str, str]
    unseen: frozenset[str]
    problem: str | None = None
    seconds: float = 0.0

    @property
    def read(self) -> int:
        """How many elements were read."""
        return sum(1 for e in self.observation if self.observation[e].known)


NOT_IN_VIEW = "out of the picture"
SOMETHING_ELSE = "something else is on it (a hand?)"
UNSURE = "unsure between its values"
HEIGHTS_ELSEWHERE = "stack heights are read by the sensor board or settled by the referee"
COVERED_BY_HAND = "covered by a hand"


BARE_SURE = 0.9
"""A square is left to its classifiers when each is at least this sure that nothing of
its kind stands there; the square network reads the rest. Most squares of a game are
empty, and the network was half of a frame's time. Chosen on the validation halls
(docs/vision-bench.md): from 1 (every square) down to 0.9, not one reading changed."""


FLAT_SURE = 0.995
"""A flat square whose weights (after the doubts of :mod:`vision.appearance_margin`) are
at least this sure of one value is left to them; the flat square network reads the
rest. Most squares of a game are plainly bare, and the network would double a frame's
time. Chosen on the validation worlds (painted, seeds 1000 to 1047, the hardest level,
1280x720; docs/vision-bench.md): from 1 (every square) down to 0.99, not one reading
changed; at 0.995 the network reads 37% of the squares."""


def _colour_of(appearance: SetAppearance, kind: str, value: str) -> FloatArray | None:
    """The calibrated colours of ``kind``'s value spelt ``value`` (None if not shown)."""
    for v, colours in appearance.colours.get(kind, {}).items():
        if str(v) == value:
            return colours
    return None


def together(classifier: FloatArray, network: FloatArray) -> FloatArray:
    """A stacked element's probabilities from its kind's classifier and the square
    network together: the mean of their log probabilities, normalised (each is a
    tempered reading of its own inputs; a value both find likely stays likely, one
    either rules out falls). Chosen on the validation halls: more right, fewer unsure
    and no more sure readings wrong than either alone (docs/vision-bench.md)."""
    z = 0.5 * (np.log(np.maximum(classifier, 1e-12)) + np.log(np.maximum(network, 1e-12)))
    e = np.exp(z - z.max())
    return np.asarray(e / e.sum())


class AppearanceReader:
    """Reads a game's table from a frame and its view, by the player's set's appearance
    (:class:`SetAppearance`) and fitted weights (:class:`FittedModel`)."""

    def __init__(
        self,
        game: str,
        model: BoardModel,
        appearance: SetAppearance,
        fitted: FittedModel | None = None,
        schema: TableSchema | None = None,
    ) -> None:
        self.game = game
        self.model = model
        self.appearance = appearance
        self.fitted = fitted or load_fitted(game)
        self.schema = schema or referee_schema(game)
        self.elements = tuple(
            e
            for e in self.schema.elements
            if e in model.elements
            and (model.elements[e].kind in _SAMPLING or model.elements[e].kind in _STACK)
        )
        self._plan: tuple[BoardView, Sampling] | None = None
        self.network = self.fitted.network
        self.squares = appearance_net.squares_of(self.elements, model)
        if self.network is not None and self.squares:
            wanted = appearance_net.network_values(self.schema, self.squares[0])
            if not self.network.reads(wanted):
                raise AppearanceError(
                    f"the fitted square network of {game} reads other pieces than this "
                    "game's: fit it again (companion vision fit)"
                )
        self._grids: tuple[Sampling, appearance_net.SquarePlan] | None = None
        self.flat = self.fitted.flat
        self.flat_squares = tuple(
            e for e in self.elements if model.elements[e].kind in appearance_flat.FLAT_KINDS
        )
        self._flat_plan: tuple[Sampling, appearance_flat.FlatPlan] | None = None
        self._margins: (
            tuple[
                Sampling,
                appearance_margin.Margins,
                dict[str, int],
                NDArray[np.intp],
                NDArray[np.bool_],
                FloatArray,
            ]
            | None
        ) = None
        """The margins of the checked squares for one sampling, each element's row among
        them, the sampling's points inside a checked square with the row of each, and
        each square's bare colour at calibration."""
        appearance.bare_log(np.zeros((1, 2)))  # the empty board's log colour, made once

    def sampling(self, view: BoardView) -> Sampling:
        """The sample plan of ``view``: made again only when the view has moved the
        board by more than ``SAME_VIEW_PX`` in the picture (a tracked board found again
        each frame keeps its plan)."""
        if self._plan is None or not same_view(self._plan[0], view, self.model.size_mm):
            self._plan = (view, plan(self.model, view, self.elements))
        return self._plan[1]

    def element_features(
        self,
        frame: Image,
        view: BoardView,
        light: LightField | None = None,
        context: bool = True,
    ) -> list[ElementFeatures]:
        """Every element's feature rows (``light``: the frame's, when already fitted;
        without ``context``, no stack classifier inputs, see :func:`features`)."""
        return features(
            frame,
            view,
            self.appearance,
            self.model,
            self.sampling(view),
            self.schema,
            light,
            context,
        )

    def square_maps(
        self,
        frame: Image,
        view: BoardView,
        light: LightField,
        rows: Sequence[int] | None = None,
    ) -> Float32Array:
        """The square network's maps of the squares at ``rows`` of ``self.squares``
        (default every square), in that order; the grids are made again with the
        sample plan (when the view has moved)."""
        sampling = self.sampling(view)
        if self._grids is None or self._grids[0] is not sampling:
            grids = appearance_net.square_grids(self.model, view, self.squares)
            self._grids = (sampling, appearance_net.plan_squares(view, self.appearance, grids))
        plan = self._grids[1] if rows is None else self._grids[1].only(rows)
        values = appearance_net.network_values(self.schema, self.squares[0])
        return appearance_net.square_maps(frame, plan, self.appearance, light, values)

    def _network_chances(
        self,
        frame: Image,
        view: BoardView,
        light: LightField,
        shown: Sequence[ElementFeatures],
        chances: Mapping[str, FloatArray],
    ) -> dict[str, FloatArray]:
        """The square network's probabilities of each shown stacked element, when the
        calibration showed every piece value (the network was fitted on maps with a
        distance to each; without one, its classifier reads each element alone).
        A square whose classifiers (``chances``) are each at least ``BARE_SURE`` sure
        that nothing of their kind stands there is left to them (:data:`BARE_SURE`)."""
        if self.network is None or not self.squares:
            return {}
        values = appearance_net.network_values(self.schema, self.squares[0])
        if any(v not in self.appearance.colours.get(k, {}) for k, vs in values.items() for v in vs):
            return {}
        stacked = [i for i in shown if i.kind in appearance_stacks.STACK]
        bare = {appearance_stacks.square_of(i.element) for i in stacked}
        for item in stacked:
            if chances[item.element][0] < BARE_SURE:
                bare.discard(appearance_stacks.square_of(item.element))
        rows = [i for i, square in enumerate(self.squares) if square not in bare]
        if not rows:
            return {}
        probabilities = self.network.probabilities(self.square_maps(frame, view, light, rows))
        row = {self.squares[r]: i for i, r in enumerate(rows)}
        out: dict[str, FloatArray] = {}
        for item in stacked:
            square = appearance_stacks.square_of(item.element)
            k = appearance_stacks.STACK.index(item.kind)
            if square in row and len(item.values) == appearance_net.ALTERNATIVES[k]:
                out[item.element] = probabilities[k][row[square]]
        return out

    def flat_maps(
        self,
        frame: Image,
        view: BoardView,
        light: LightField,
        rows: Sequence[int],
        tiles: Sequence[str] | None = None,
    ) -> Float32Array:
        """The flat square network's maps of the squares at ``rows`` of
        ``self.flat_squares``, in that order (the grids made again when the view moves);
        ``tiles``: the tile values they are described against (default: the fitted
        network's)."""
        sampling = self.sampling(view)
        if self._flat_plan is None or self._flat_plan[0] is not sampling:
            grids = appearance_flat.flat_grids(self.model, self.flat_squares)
            self._flat_plan = (sampling, appearance_flat.plan_flat(view, self.appearance, grids))
        plan = self._flat_plan[1].only(rows)
        if tiles is None:
            tiles = self.flat.tiles if self.flat is not None else []
        kind = self.model.elements[self.flat_squares[0]].kind if self.flat_squares else ""
        colours = [_colour_of(self.appearance, kind, v) for v in tiles]
        return appearance_flat.flat_maps(frame, plan, self.appearance, light, colours)

    def _flat_chances(
        self,
        frame: Image,
        view: BoardView,
        light: LightField,
        shown: Sequence[ElementFeatures],
        chances: Mapping[str, FloatArray],
    ) -> dict[str, FloatArray]:
        """The flat square network's probabilities of each shown flat square whose
        alternatives the network reads (:mod:`vision.appearance_flat`), but those its
        weights (``chances``) are at least ``FLAT_SURE`` sure of (:data:`FLAT_SURE`)."""
        if self.flat is None or not self.flat_squares:
            return {}
        row = {name: i for i, name in enumerate(self.flat_squares)}
        chosen = [
            i
            for i in shown
            if i.element in row
            and self.flat.reads(i.values)
            and float(np.max(chances[i.element])) < FLAT_SURE
        ]
        if not chosen:
            return {}
        maps = self.flat_maps(frame, view, light, [row[i.element] for i in chosen])
        probabilities = self.flat.probabilities(maps)
        return {item.element: probabilities[k] for k, item in enumerate(chosen)}

    def _doubted(
        self,
        frame: Image,
        view: BoardView,
        light: LightField,
        shown: Sequence[ElementFeatures],
        chances: Mapping[str, FloatArray],
    ) -> dict[str, FloatArray]:
        """The probabilities of the shown elements of checked kinds, read as bare or as
        a tile, whose square does not look as that reading would have it against its
        margin (:mod:`vision.appearance_margin`): lowered, read as the tile the square
        shows after all, or torn between a tile and bare where a hand is over the board;
        the others are left out. A checked kind's bare value is its first alternative
        (:func:`features`)."""
        checked = [
            i
            for i in shown
            if i.kind in appearance_margin.CHECKED_KINDS
            and float(np.max(chances[i.element])) >= SHOWN_AT
        ]
        if not checked:
            return {}
        sampling = self.sampling(view)
        if self._margins is None or self._margins[0] is not sampling:
            names = [
                e
                for e, k in zip(sampling.elements, sampling.kinds, strict=True)
                if k in appearance_margin.CHECKED_KINDS
            ]
            plan = appearance_margin.plan_margins(self.model, view, names)
            rows = {name: i for i, name in enumerate(plan.elements)}
            which = np.array([rows.get(e, -1) for e in sampling.elements], dtype=np.intp)
            inside = (which[sampling.owner] >= 0) & sampling.inside
            owners = which[sampling.owner[inside]]
            bare = appearance_margin.bare_colours(
                sampling.ground_mm[inside], owners, len(plan.elements), self.appearance
            )
            self._margins = (sampling, plan, rows, owners, inside, bare)
        _, margins, row, owners, points, bare = self._margins
        on_square, on_margin = appearance_margin.left_over(
            frame,
            margins,
            sampling.pixels[points],
            sampling.ground_mm[points],
            owners,
            self.appearance,
            light,
        )
        differences = on_square - on_margin
        tiles: dict[str, list[Value]] = {
            kind: [v for v in self.appearance.colours.get(kind, {}) if v not in BARE_VALUES]
            for kind in {i.kind for i in checked}
        }
        toward, own = {}, {}
        for kind, values in tiles.items():
            colours = [self.appearance.colours[kind][v] for v in values]
            toward[kind] = appearance_margin.toward_tiles(differences, bare, colours)
            own[kind] = appearance_margin.toward_tiles(on_square, bare, colours)
        hand = light.hand is not None and bool(light.hand.any())
        out: dict[str, FloatArray] = {}
        for item in checked:
            p, r = chances[item.element], row[item.element]
            shares = toward[item.kind][r]
            read = item.values[int(np.argmax(p))]
            if int(np.argmax(p)) == 0:
                out[item.element] = appearance_margin.doubt_bare(
                    p,
                    0,
                    float(differences[r, 0]),
                    shares.tolist(),
                    own[item.kind][r].tolist(),
                    [item.values.index(v) for v in tiles[item.kind]],
                )
            elif read in tiles[item.kind]:
                out[item.element] = appearance_margin.doubt_tile(
                    p,
                    int(np.argmax(p)),
                    float(shares[tiles[item.kind].index(read)]),
                    0,
                    hand,
                )
        return out

    def read(
        self, frame: Image, view: BoardView, covered: Collection[str] = ()
    ) -> AppearanceReading:
        """Read every element of ``frame`` seen through ``view``; ``covered``: elements
        a hand is known to cover (left unknown, *not shown*). Stack heights are read
        where the camera's slant shows them (:mod:`vision.appearance_heights`)."""
        started = time.perf_counter()
        readings: dict[str, Reading | Value | None] = {}
        probs: dict[str, dict[str, float]] = {}
        abstained: dict[str, str] = {}
        unseen: set[str] = set()
        light = fit_light(frame, view, self.appearance, self.model.size_mm)
        items = self.element_features(frame, view, light)
        sampling = self.sampling(view)
        # the share of each element in the picture; what it lacks of it, a hand covers
        pictured = dict(
            zip(
                sampling.elements,
                np.bincount(sampling.owner, weights=sampling.inside, minlength=len(items))
                / np.maximum(np.bincount(sampling.owner, minlength=len(items)), 1),
                strict=True,
            )
        )
        shown = [i for i in items if i.element not in covered and i.seen_share >= 0.5]
        chances = dict(
            zip((i.element for i in shown), self.fitted.probabilities_of(shown), strict=True)
        )
        for element, p in self._network_chances(frame, view, light, shown, chances).items():
            chances[element] = together(chances[element], p)
        chances.update(self._doubted(frame, view, light, shown, chances))
        for element, p in self._flat_chances(frame, view, light, shown, chances).items():
            chances[element] = together(chances[element], p)
        for item in items:
            if item.element in covered:
                abstained[item.element] = COVERED_BY_HAND
                unseen.add(item.element)
                continue
            if item.seen_share < 0.5:
                in_picture = pictured[item.element] >= 0.5
                abstained[item.element] = COVERED_BY_HAND if in_picture else NOT_IN_VIEW
                unseen.add(item.element)
                continue
            p = chances[item.element]
            probs[item.element] = {
                str(v): round(float(x), 4) for v, x in zip(item.values, p, strict=True)
            }
            best = int(np.argmax(p))
            if item.values[best] == OTHER:
                abstained[item.element] = SOMETHING_ELSE
                unseen.add(item.element)
            elif p[best] < SHOWN_AT:
                abstained[item.element] = UNSURE
            else:
                readings[item.element] = Reading(item.values[best], float(p[best]))

        stacks = appearance_heights.reader_for(self)
        if stacks is not None:
            # what the camera's slant shows of each stack (see vision.appearance_heights)
            heights = stacks.read(
                frame, view, light, readings, frozenset(covered), frozenset(unseen)
            )
            readings.update(heights.readings)
            probs.update(heights.probabilities)
            abstained.update(heights.abstained)
            unseen.update(heights.unseen)
        for name in self.schema.elements:
            base = name.removesuffix(HEIGHT_SUFFIX)
            if (
                name == base
                or base not in self.model.elements
                or name in readings
                or name in abstained
            ):
                continue
            below = readings.get(base)
            if isinstance(below, Reading) and below.value == "empty":
                # no tile, no stack: what the space shows, not a rule of the game
                readings[name] = Reading(0, below.confidence)
            else:
                abstained[name] = HEIGHTS_ELSEWHERE
                unseen.add(name)
        return AppearanceReading(
            Observation(self.schema, readings),
            probs,
            abstained,
            frozenset(unseen),
            None,
            time.perf_counter() - started,
        )


# --- fitting ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Example:
    """One element's feature rows and the index of its true alternative."""

    kind: str
    rows: FloatArray
    truth: int
    extra: FloatArray | None = None


def examples(items: Iterable[ElementFeatures], truth: Mapping[str, Value | None]) -> list[Example]:
    """Labelled examples: an element the truth leaves unknown (hidden) is ``OTHER``."""
    out = []
    for item in items:
        if item.seen_share < 0.5 or item.element not in truth:
            continue
        value = truth[item.element]
        label: Value | str = OTHER if value is None else value
        matches = [i for i, v in enumerate(item.values) if v == label and type(v) is type(label)]
        if matches:
            out.append(Example(item.kind, item.rows, matches[0], item.extra))
    return out


def fit(
    game: str, data: Sequence[Example], provenance: Mapping[str, Any], l2: float = RIDGE
) -> FittedModel:
    """Fit every kind's weights from labelled examples."""
    kinds = sorted({e.kind for e in data})
    weights = {kind: fit_weights([e for e in data if e.kind == kind], l2) for kind in kinds}
    stacks: dict[str, Any] = {}
    if any(e.extra is not None for e in data):
        stacks = fit_classifiers(data)
    return FittedModel(game, weights, dict(provenance), stacks)
