"""A small convolutional network that reads a ShenShi square as a whole: its tile, its
cushion and its monk at once, from two maps of what the camera shows there.

- **The maps.** A *top* grid of points on the board over the square (10 x 10, a little
  wider than the tile) and a *front* grid on the upright plane through the square's
  centre that faces the camera (10 across, 14 up to above the tallest monk on a
  cushion): in a slanted view a monk stands up in it as it stands in the picture. Each
  point is looked at in the frame, its light taken off (the frame's light field), and
  described against the player's own set as calibrated: how it differs from the empty
  board behind it (the board point its ray meets) and how far it is from each piece
  value's colours (each tile, cushion and monk value the calibration showed), and
  whether it is in the picture at all. Nothing of the project's own drawing enters: a
  board it never saw reads through its own calibration.
- **The network.** Each grid goes through three 3x3 convolutions, the third after a
  2x2 max pool; what the two grids' last maps hold, place by place (how high a robe
  reaches matters, not only that there is one), makes a hidden layer, which gives the
  logits of each kind's alternatives (none, its values, something else). Networks
  fitted from different starts may be averaged; each kind's temperature is chosen on
  validation halls (:data:`TEMPERATURE`).
- **It runs with numpy only** (channels last, the convolutions as one matrix product
  each), so a tablet needs nothing more than the reader already does; it is fitted the
  same way, by :func:`fit_network` (full derivation by hand, Adam), deterministic from
  its seed.
"""

from __future__ import annotations

import base64
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
    bare_value,
    distance,
    linear,
    log_colour,
    sample,
)
from vision.appearance_stacks import PROTOTYPES, STACK, across, tallest
from vision.models import referee_schema
from vision.view import in_picture

FloatArray = NDArray[np.float64]
Float32Array = NDArray[np.float32]

TOP = 10
"""Points across each side of the top grid."""
TOP_SPAN = 1.1
"""The top grid's side, as a share of the tile's."""
FRONT_W, FRONT_H = 10, 14
"""The front grid: points across (over the tile's side) and up."""
FRONT_ABOVE_MM = 4.0
"""How far above the tallest stack the front grid reaches."""
FAR = 3.0
"""A distance to a piece's colours is counted up to this (and for a value the
calibration did not show)."""
ALTERNATIVES = (4, 4, 10)
"""The alternatives of the tile, the cushion and the monk: none, values, something else."""


def channels_of(values: Mapping[str, Sequence[Any]]) -> int:
    """Channels of a map: the difference from the empty board (3), its size, one per
    piece value, and whether the point is in the picture."""
    return 4 + sum(len(values[kind]) for kind in STACK) + 1


def square_grids(model: Any, view: Any, squares: Sequence[str]) -> FloatArray:
    """(squares, points, 3) board points (mm; x, y, height) of each square's top grid
    then its front grid, for ``view`` (its camera gives the front grid's facing; from
    straight above, or with no camera known, the front grid lies along x)."""
    camera = view.camera_mm()
    pieces = model.pieces
    top_height = tallest(pieces) + FRONT_ABOVE_MM
    steps = (np.arange(TOP) + 0.5) / TOP * TOP_SPAN - TOP_SPAN / 2
    across_steps = (np.arange(FRONT_W) + 0.5) / FRONT_W - 0.5
    up = (np.arange(FRONT_H)[::-1] + 0.5) / FRONT_H * top_height
    out = []
    for square in squares:
        element = model.elements[f"{square} monk"]
        centre = np.array(element.centre_mm, dtype=np.float64)
        side = float(model.elements[f"{square} tile"].size_mm[0])
        u, v = np.meshgrid(steps * side, steps * side)
        a = np.radians(element.angle_deg)
        rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        top = np.column_stack([u.ravel(), v.ravel()]) @ rotation.T + centre
        direction = across(element.centre_mm, 0.0, camera)
        direction = direction / max(float(np.linalg.norm(direction)), 1e-9)
        a_grid, h_grid = np.meshgrid(across_steps * side, up)
        front = np.column_stack(
            [
                centre[0] + a_grid.ravel() * direction[0],
                centre[1] + a_grid.ravel() * direction[1],
                h_grid.ravel(),
            ]
        )
        out.append(np.vstack([np.column_stack([top, np.zeros(len(top))]), front]))
    return np.array(out)


@dataclass(frozen=True)
class SquarePlan:
    """What one view fixes of the squares' maps (made again when the view moves):
    each grid point's pixel, whether it is in the picture, the board point its ray
    meets and the empty board's log colour there."""

    count: int
    pixels: Float32Array  # (squares * points, 2)
    inside: NDArray[np.bool_]
    ground: FloatArray  # (squares * points, 2) mm
    bare: FloatArray  # (squares * points, 3)

    def only(self, rows: Sequence[int]) -> SquarePlan:
        """The plan of the squares at ``rows`` alone (in that order)."""
        points = len(self.pixels) // max(self.count, 1)
        index = (np.asarray(rows, dtype=np.intp)[:, None] * points + np.arange(points)).ravel()
        return SquarePlan(
            len(rows), self.pixels[index], self.inside[index], self.ground[index], self.bare[index]
        )


def plan_squares(view: Any, appearance: SetAppearance, grids: FloatArray) -> SquarePlan:
    """The :class:`SquarePlan` of ``grids`` (:func:`square_grids`) in ``view``."""
    flat = grids.reshape(-1, 3)
    pixels = view.to_image(flat if view.projection is not None else flat[:, :2])
    inside = in_picture(pixels, view.image_size)
    ground = view.to_board(pixels)
    return SquarePlan(
        len(grids), pixels.astype(np.float32), inside, ground, appearance.bare_log(ground)
    )


def square_maps(
    frame: NDArray[Any],
    plan: SquarePlan,
    appearance: SetAppearance,
    light: LightField,
    values: Mapping[str, Sequence[Any]],
) -> Float32Array:
    """(squares, points, channels) maps of ``frame`` (see the module's docstring);
    ``values``: each kind's piece values, in the network's order."""
    seen = log_colour(linear(np.asarray(sample(frame, plan.pixels), dtype=np.uint8)))
    seen = seen - light.at(plan.ground)
    maps = np.zeros((len(seen), channels_of(values)), dtype=np.float32)
    maps[:, 0:3] = seen - plan.bare
    maps[:, 3] = distance(seen, plan.bare)
    columns, prototypes = [], []
    pairs = [(kind, value) for kind in STACK for value in values[kind]]
    for column, (kind, value) in enumerate(pairs, start=4):
        colours = appearance.colours.get(kind, {})
        if value in colours:
            found = np.atleast_2d(colours[value])[:PROTOTYPES]
            columns.append(column)
            # each value's colours made as many as the most kept (the first repeated)
            prototypes.append(np.vstack([found, np.repeat(found[:1], PROTOTYPES - len(found), 0)]))
        else:
            maps[:, column] = FAR
    if prototypes:
        # every piece colour at once (|a - b|^2 = |a|^2 + |b|^2 - 2 a.b), then the
        # nearest of each value's colours, up to FAR
        weights = np.array([BRIGHTNESS_WEIGHT, 1.0, 1.0])
        a = seen * weights
        b = np.vstack(prototypes) * weights
        squared = (a * a).sum(axis=1)[:, None] + (b * b).sum(axis=1)[None, :] - 2.0 * (a @ b.T)
        squared = squared.reshape(len(seen), len(columns), PROTOTYPES)
        least = squared[:, :, 0]
        for k in range(1, PROTOTYPES):
            least = np.minimum(least, squared[:, :, k])
        maps[:, columns] = np.minimum(np.sqrt(np.maximum(least, 0.0)), FAR)
    maps[:, 4 + len(pairs)] = plan.inside
    maps[~plan.inside] = 0.0
    return maps.reshape(plan.count, -1, maps.shape[1])


# --- the network, channels last ----------------------------------------------------------------


def _conv(x: Float32Array, kernel: Float32Array, bias: Float32Array) -> Float32Array:
    """A 3x3 convolution with a border of zeros: ``x`` (N, H, W, C), ``kernel`` (9C, O)
    in (row, column, channel) order."""
    n, h, w, c = x.shape
    padded = np.zeros((n, h + 2, w + 2, c), x.dtype)
    padded[:, 1:-1, 1:-1] = x
    columns = np.concatenate(
        [padded[:, i : i + h, j : j + w] for i in range(3) for j in range(3)], axis=-1
    ).reshape(-1, 9 * c)
    return np.asarray((columns @ kernel + bias).reshape(n, h, w, -1), dtype=np.float32)


def _pool(x: Float32Array) -> Float32Array:
    """A 2x2 max pool (an odd row or column kept on its own)."""
    n, h, w, c = x.shape
    ph, pw = -h % 2, -w % 2
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, ph), (0, pw), (0, 0)), constant_values=-np.inf)
    return np.asarray(x.reshape(n, (h + ph) // 2, 2, (w + pw) // 2, 2, c).max(axis=(2, 4)))


BRANCHES = ("top", "front")
LAYERS = ("c1", "c2", "c3")
WIDTHS = (24, 32, 32)
"""Channels of each branch's three convolutions."""
HIDDEN = 64
"""Units of the hidden layer the two branches feed."""


def _shapes(channels: int) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    for branch in BRANCHES:
        before = channels
        for layer, width in zip(LAYERS, WIDTHS, strict=True):
            shapes[f"{branch}.{layer}.w"] = (9 * before, width)
            shapes[f"{branch}.{layer}.b"] = (width,)
            before = width
    pooled = [(TOP + 1) // 2 * ((TOP + 1) // 2), (FRONT_H + 1) // 2 * ((FRONT_W + 1) // 2)]
    shapes["hidden.w"] = (sum(pooled) * WIDTHS[-1], HIDDEN)
    shapes["hidden.b"] = (HIDDEN,)
    for k, alternatives in enumerate(ALTERNATIVES):
        shapes[f"head{k}.w"] = (HIDDEN, alternatives)
        shapes[f"head{k}.b"] = (alternatives,)
    return shapes


def initial(channels: int, rng: np.random.Generator) -> dict[str, Float32Array]:
    """Starting weights: uniform within one over the root of each unit's inputs."""
    params: dict[str, Float32Array] = {}
    shapes = _shapes(channels)
    for name, shape in shapes.items():
        fan_in = shapes[name[:-1] + "w"][0]
        bound = 1.0 / np.sqrt(fan_in)
        params[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return params


def _split(maps: Float32Array) -> dict[str, Float32Array]:
    n, _, c = maps.shape
    return {
        "top": np.ascontiguousarray(maps[:, : TOP * TOP]).reshape(n, TOP, TOP, c),
        "front": np.ascontiguousarray(maps[:, TOP * TOP :]).reshape(n, FRONT_H, FRONT_W, c),
    }


def forward(params: Mapping[str, Float32Array], maps: Float32Array) -> list[Float32Array]:
    """Each kind's logits for ``maps`` (squares, points, channels)."""
    summaries = []
    for branch, x in _split(maps).items():
        for layer in LAYERS:
            if layer == "c3":
                x = _pool(x)
            x = np.maximum(
                _conv(x, params[f"{branch}.{layer}.w"], params[f"{branch}.{layer}.b"]), 0.0
            )
        summaries.append(x.reshape(len(x), -1))
    hidden = np.maximum(
        np.concatenate(summaries, axis=1) @ params["hidden.w"] + params["hidden.b"], 0.0
    )
    return [hidden @ params[f"head{k}.w"] + params[f"head{k}.b"] for k in range(len(ALTERNATIVES))]


# --- the fitted networks ---------------------------------------------------------------------


class SquareNetwork:
    """Networks fitted from several starts, averaged, and each kind's temperature;
    ``values``: each kind's piece values the network's alternatives stand for (after
    *none*, before *something else*), as the fitted file spells them."""

    def __init__(
        self,
        members: Sequence[Mapping[str, Float32Array]],
        temperatures: Sequence[float],
        values: Mapping[str, Sequence[Any]],
        provenance: Mapping[str, Any] | None = None,
    ) -> None:
        self.members = [dict(m) for m in members]
        self.temperatures = tuple(float(t) for t in temperatures)
        self.values = {kind: [_jsonable(v) for v in values[kind]] for kind in STACK}
        self.provenance = dict(provenance or {})

    def reads(self, values: Mapping[str, Sequence[Any]]) -> bool:
        """Whether the network's alternatives are ``values`` (a game's, see
        :func:`network_values`)."""
        return all([_jsonable(v) for v in values[kind]] == self.values[kind] for kind in STACK)

    def logits(self, maps: Float32Array) -> list[Float32Array]:
        """Each kind's logits, averaged over the members (untempered)."""
        total: list[Float32Array] = []
        for member in self.members:
            logits = forward(member, maps)
            total = logits if not total else [t + x for t, x in zip(total, logits, strict=True)]
        return [np.asarray(t / np.float32(len(self.members)), dtype=np.float32) for t in total]

    def probabilities(self, maps: Float32Array) -> list[FloatArray]:
        """Each kind's probabilities per square (tempered)."""
        out = []
        for logits, temperature in zip(self.logits(maps), self.temperatures, strict=True):
            z = logits.astype(np.float64) / temperature
            e = np.exp(z - z.max(axis=1, keepdims=True))
            out.append(e / e.sum(axis=1, keepdims=True))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "values": self.values,
            "temperatures": list(self.temperatures),
            "provenance": self.provenance,
            "members": [{name: _encoded(w) for name, w in m.items()} for m in self.members],
        }

    @classmethod
    def from_json(cls, raw: Any, source: str) -> SquareNetwork:
        """Raises ``AppearanceError`` for a network that cannot be used."""
        try:
            values = {kind: [str(v) for v in raw["values"][kind]] for kind in STACK}
            shapes = _shapes(channels_of(values))
            members = []
            for member in raw["members"]:
                arrays = {name: _decoded(member[name], shapes[name]) for name in shapes}
                if not all(np.isfinite(a).all() for a in arrays.values()):
                    raise AppearanceError(f"{source}: the square network has a weight not a number")
                members.append(arrays)
            temperatures = [float(t) for t in raw["temperatures"]]
            if len(temperatures) != len(STACK) or not members or min(temperatures) <= 0:
                raise AppearanceError(f"{source}: the square network cannot be used")
            return cls(members, temperatures, values, raw.get("provenance"))
        except (KeyError, TypeError, ValueError, binascii.Error) as error:
            if isinstance(error, AppearanceError):
                raise
            raise AppearanceError(
                f"{source}: the square network cannot be used ({error})"
            ) from None


def _encoded(weights: Float32Array) -> dict[str, Any]:
    """An array as the fitted file keeps it: its shape and its float32 bytes (little
    endian) in base64, exactly as fitted."""
    data = np.ascontiguousarray(weights, dtype="<f4").tobytes()
    return {"shape": list(weights.shape), "float32": base64.b64encode(data).decode("ascii")}


def _decoded(raw: Any, shape: tuple[int, ...]) -> Float32Array:
    """An array from :func:`_encoded`; raises ``ValueError`` unless it is ``shape``."""
    data = base64.b64decode(str(raw["float32"]), validate=True)
    if tuple(raw["shape"]) != shape or len(data) != 4 * int(np.prod(shape)):
        raise ValueError(f"an array is {raw['shape']}, not {list(shape)}")
    return np.frombuffer(data, dtype="<f4").reshape(shape).astype(np.float32)


def squares_of(elements: Sequence[str], model: Any) -> list[str]:
    """The squares of a stacked board, in the order of ``elements``."""
    return [e.split(" ", 1)[0] for e in elements if model.elements[e].kind == "monk"]


def network_values(schema: Any, square: str) -> dict[str, list[Any]]:
    """Each kind's piece values on ``square``, in the network's order: the values but
    the bare one, by their spelling (as a stacked element's alternatives)."""
    out: dict[str, list[Any]] = {}
    for kind in STACK:
        values = sorted(schema.values[f"{square} {kind}"], key=repr)
        bare = bare_value(values)
        out[kind] = [v for v in values if v != bare]
    return out


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


TEMPERATURE = (1.79, 1.58, 1.32)
"""Each kind's temperature (tile, cushion, monk), chosen on validation halls."""


def stacked(game: str) -> bool:
    """Whether ``game``'s board holds stacked squares (a tile, a cushion, a monk)."""
    return any(e.endswith(" monk") for e in referee_schema(game).elements)
