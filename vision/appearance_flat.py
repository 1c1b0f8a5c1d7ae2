"""A small convolutional network that reads a flat square whole (a Shendao square: bare,
or a light or a dark tile on it) from a map of what the camera shows over it.

The fitted classifier reads a square by its colours: how far its points are from the
bare square and from each tile colour calibration saw. Where a tile's colour lies close
to the bare square's (a light tile on a light square) and the picture's glare or shade
moves one toward the other, colour alone cannot tell them apart. The square's *shape*
still can: a tile hides the print under it (a glyph, a line across the square), and its
edges stand a little inside the square's. This network looks at the square as a map.

- **The map.** A grid of points on the board over the square (``GRID`` x ``GRID``,
  ``SPAN`` of its side: the tile, its edges and the print around them). Each point is
  looked at in the frame, the frame's light taken off (its light field), and described
  against the player's own set as calibrated: how it differs from the empty board there
  (three log colour channels and their size), how far it is from each tile value's
  colours, and whether it is in the picture at all. Nothing of the project's drawing
  enters: a board it never saw reads through its own calibration.
- **The network.** Three 3x3 convolutions, the second and third each followed by a 2x2
  max pool; what the last maps hold, place by place, makes a hidden layer, which gives
  the logits of the square's alternatives, in the reader's order (bare, each tile value,
  something else). Networks fitted from different starts may be averaged; the
  temperature is chosen on validation worlds (:data:`TEMPERATURE`).
- **It runs with numpy only** (channels last, each convolution one matrix product), so
  a tablet needs nothing more than the reader already does. It is fitted by
  :func:`vision.fit_network.fit_flat_network` (PyTorch, an optional extra).
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.appearance_core import (
    BRIGHTNESS_WEIGHT,
    AppearanceError,
    LightField,
    SetAppearance,
    distance,
    linear,
    log_colour,
    sample,
)
from vision.appearance_net import FAR, _conv, _decoded, _encoded, _pool
from vision.appearance_stacks import PROTOTYPES
from vision.view import in_picture

FloatArray = NDArray[np.float64]
Float32Array = NDArray[np.float32]

FLAT_KINDS = ("square",)
"""Kinds of element read whole by the network (Shendao's squares)."""
GRID = 14
"""Points across each side of the map."""
SPAN = 1.1
"""The map's side, as a share of the square's (a tile's side is 0.84 of it)."""
WIDTHS = (16, 24, 24)
"""Channels of the three convolutions."""
HIDDEN = 32
"""Units of the hidden layer."""
TEMPERATURE = 2.0
"""The logits' temperature when fitted (the fitted file holds its own). Chosen on the
validation worlds (painted, seeds 1000 to 1047, the hardest level, 1280x720, 8,463
squares, read with the doubts of :mod:`vision.appearance_margin` first;
docs/vision-bench.md): of 1, 1.5, 2 and 3, the last step up that spares a square read
wrong at 0.9 or more for fewer than 20 more left unsure (1 to 1.5: 6 spared for 56;
1.5 to 2: 4 for 53; 2 to 3: 1 for 61)."""


def flat_game(game: str) -> bool:
    """Whether ``game``'s board has squares the network reads whole."""
    from vision.models import load_model  # deferred: the board models are read once asked

    return any(e.kind in FLAT_KINDS for e in load_model(game).elements.values())


def channels_of(tiles: int) -> int:
    """Channels of a map: the difference from the empty board (3), its size, one per tile
    value, and whether the point is in the picture."""
    return 4 + tiles + 1


def _pooled(size: int) -> int:
    return (size + 1) // 2


def _shapes(channels: int, alternatives: int) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    before = channels
    for k, width in enumerate(WIDTHS, start=1):
        shapes[f"c{k}.w"] = (9 * before, width)
        shapes[f"c{k}.b"] = (width,)
        before = width
    side = _pooled(_pooled(GRID))
    shapes["hidden.w"] = (side * side * WIDTHS[-1], HIDDEN)
    shapes["hidden.b"] = (HIDDEN,)
    shapes["head.w"] = (HIDDEN, alternatives)
    shapes["head.b"] = (alternatives,)
    return shapes


def initial(channels: int, alternatives: int, rng: np.random.Generator) -> dict[str, Float32Array]:
    """Starting weights: uniform within one over the root of each unit's inputs."""
    shapes = _shapes(channels, alternatives)
    params: dict[str, Float32Array] = {}
    for name, shape in shapes.items():
        bound = 1.0 / np.sqrt(shapes[name[:-1] + "w"][0])
        params[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return params


def forward(params: Mapping[str, Float32Array], maps: Float32Array) -> Float32Array:
    """The logits of ``maps`` (squares, GRID * GRID, channels)."""
    n, _, c = maps.shape
    x = np.ascontiguousarray(maps).reshape(n, GRID, GRID, c)
    for k in range(1, len(WIDTHS) + 1):
        x = np.maximum(_conv(x, params[f"c{k}.w"], params[f"c{k}.b"]), 0.0)
        if k >= 2:
            x = _pool(x)
    hidden = np.maximum(x.reshape(n, -1) @ params["hidden.w"] + params["hidden.b"], 0.0)
    return np.asarray(hidden @ params["head.w"] + params["head.b"], dtype=np.float32)


# --- the maps --------------------------------------------------------------------------------


def flat_grids(model: Any, squares: Sequence[str]) -> FloatArray:
    """(squares, GRID * GRID, 2) board points (mm) of each square's map, row by row."""
    steps = (np.arange(GRID) + 0.5) / GRID * SPAN - SPAN / 2
    out = []
    for square in squares:
        element = model.elements[square]
        side = float(element.size_mm[0])
        u, v = np.meshgrid(steps * side, steps * side)
        a = np.radians(element.angle_deg)
        rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        out.append(np.column_stack([u.ravel(), v.ravel()]) @ rotation.T + element.centre_mm)
    return np.array(out, dtype=np.float64).reshape(len(squares), GRID * GRID, 2)


@dataclass(frozen=True)
class FlatPlan:
    """What one view fixes of the squares' maps (made again when the view moves): each
    point's pixel, whether it is in the picture, and the empty board's log colour there."""

    count: int
    pixels: Float32Array  # (squares * points, 2)
    inside: NDArray[np.bool_]
    ground: FloatArray  # (squares * points, 2) mm
    bare: FloatArray  # (squares * points, 3)

    def only(self, rows: Sequence[int]) -> FlatPlan:
        """The plan of the squares at ``rows`` alone (in that order)."""
        points = GRID * GRID
        index = (np.asarray(rows, dtype=np.intp)[:, None] * points + np.arange(points)).ravel()
        return FlatPlan(
            len(rows), self.pixels[index], self.inside[index], self.ground[index], self.bare[index]
        )


def plan_flat(view: Any, appearance: SetAppearance, grids: FloatArray) -> FlatPlan:
    """The :class:`FlatPlan` of ``grids`` (:func:`flat_grids`) in ``view``."""
    ground = grids.reshape(-1, 2)
    flat = np.column_stack([ground, np.zeros(len(ground))])
    pixels = view.to_image(flat if view.projection is not None else ground)
    return FlatPlan(
        len(grids),
        pixels.astype(np.float32),
        in_picture(pixels, view.image_size),
        ground,
        appearance.bare_log(ground),
    )


def flat_maps(
    frame: NDArray[Any],
    plan: FlatPlan,
    appearance: SetAppearance,
    light: LightField,
    colours: Sequence[FloatArray | None],
) -> Float32Array:
    """(squares, points, channels) maps of ``frame`` (see the module's docstring);
    ``colours``: each tile value's calibrated colours (None where calibration did not
    show it), in the network's order."""
    seen = log_colour(linear(np.asarray(sample(frame, plan.pixels), dtype=np.uint8)))
    seen = seen - light.at(plan.ground)
    maps = np.zeros((len(seen), channels_of(len(colours))), dtype=np.float32)
    maps[:, 0:3] = seen - plan.bare
    maps[:, 3] = distance(seen, plan.bare)
    weights = np.array([BRIGHTNESS_WEIGHT, 1.0, 1.0])
    a = seen * weights
    for column, found in enumerate(colours, start=4):
        if found is None:
            maps[:, column] = FAR
            continue
        b = np.atleast_2d(found)[:PROTOTYPES] * weights
        squared = (a * a).sum(axis=1)[:, None] + (b * b).sum(axis=1)[None, :] - 2.0 * (a @ b.T)
        maps[:, column] = np.minimum(np.sqrt(np.maximum(squared.min(axis=1), 0.0)), FAR)
    maps[:, 4 + len(colours)] = plan.inside
    maps[~plan.inside] = 0.0
    return maps.reshape(plan.count, GRID * GRID, maps.shape[1])


# --- the fitted networks ---------------------------------------------------------------------


class FlatNetwork:
    """Networks fitted from several starts, averaged, and their temperature; ``values``:
    the alternatives the logits stand for (the reader's: bare, each tile value, something
    else), as the fitted file spells them."""

    def __init__(
        self,
        members: Sequence[Mapping[str, Float32Array]],
        temperature: float,
        values: Sequence[str],
        provenance: Mapping[str, Any] | None = None,
    ) -> None:
        self.members = [dict(m) for m in members]
        self.temperature = float(temperature)
        self.values = [str(v) for v in values]
        self.provenance = dict(provenance or {})

    @property
    def tiles(self) -> list[str]:
        """The tile values, in the maps' order (the alternatives but the first, bare,
        and the last, something else)."""
        return self.values[1:-1]

    def reads(self, values: Sequence[Any]) -> bool:
        """Whether the network's alternatives are ``values`` (an element's, in order)."""
        return [str(v) for v in values] == self.values

    def logits(self, maps: Float32Array) -> Float32Array:
        """The logits, averaged over the members (untempered)."""
        total = sum(forward(member, maps) for member in self.members)
        return np.asarray(total / np.float32(len(self.members)), dtype=np.float32)

    def probabilities(self, maps: Float32Array) -> FloatArray:
        """(squares, alternatives) probabilities (tempered)."""
        z = self.logits(maps).astype(np.float64) / self.temperature
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True))

    def to_json(self) -> dict[str, Any]:
        return {
            "values": self.values,
            "temperature": self.temperature,
            "provenance": self.provenance,
            "members": [{name: _encoded(w) for name, w in m.items()} for m in self.members],
        }

    @classmethod
    def from_json(cls, raw: Any, source: str) -> FlatNetwork:
        """Raises ``AppearanceError`` for a network that cannot be used."""
        try:
            values = [str(v) for v in raw["values"]]
            if len(values) < 3:
                raise AppearanceError(f"{source}: the flat square network reads no tile")
            shapes = _shapes(channels_of(len(values) - 2), len(values))
            members = []
            for member in raw["members"]:
                arrays = {name: _decoded(member[name], shapes[name]) for name in shapes}
                if not all(np.isfinite(a).all() for a in arrays.values()):
                    raise AppearanceError(
                        f"{source}: the flat square network has a weight not a number"
                    )
                members.append(arrays)
            temperature = float(raw["temperature"])
            if not members or not temperature > 0:
                raise AppearanceError(f"{source}: the flat square network cannot be used")
            return cls(members, temperature, values, raw.get("provenance"))
        except (KeyError, TypeError, ValueError, binascii.Error) as error:
            if isinstance(error, AppearanceError):
                raise
            raise AppearanceError(
                f"{source}: the flat square network cannot be used ({error})"
            ) from None
