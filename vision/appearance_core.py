"""What the appearance readers share: the colour space they compare in (linear light,
log colour, the distance between colours), the player's set as calibration saw it
(:class:`SetAppearance`), the light of a frame against it (:class:`LightField`), an
element's alternatives and their features (:class:`ElementFeatures`) and the
conditional logit that weighs them (:func:`fit_weights`, :func:`probabilities`).

:mod:`vision.appearance` reads pieces with these, :mod:`vision.appearance_heights`
stack heights and :mod:`vision.appearance_stacks` ShenShi's stacks; none of them
imports another for these pieces.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engines.observation import Value
from vision.view import BoardView

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

BARE_PX_PER_MM = 2.0
"""The bare board's picture (``SetAppearance.bare``): pixels per mm."""
LIGHT_PX_PER_MM = 0.2
"""The grid the light is fitted on: pixels per mm."""
_EPS = 1e-2
_SRGB_TO_LINEAR = np.array(
    [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (np.arange(256) / 255.0)],
    dtype=np.float32,
)
BRIGHTNESS_WEIGHT = 0.5
"""How much a change of brightness counts against a change of colour (shadows darken)."""
NEAR = 0.3
"""A point is *near* a colour within this distance (log linear light)."""
OTHER = "other"
"""The value standing for something else on an element: a hand, an object."""
SHOWN_AT = 0.6
"""Below this probability an element is left unknown (*unsure*)."""
BARE_VALUES = ("empty", "open", False, "none")
"""The values an element shows with nothing on it (one per kind of element)."""


# Features of each alternative: the bare value, a piece value, something else.
FEATURES = (
    "bare",
    "bare_change",
    "bare_changed_share",
    "bare_wins_share",
    "piece",
    "piece_distance",
    "piece_wins_share",
    "piece_margin",
    "piece_change",
    "other",
    "other_distance",
    "other_change",
)


class AppearanceError(ValueError):
    """A calibration or a parameter file that cannot be used; the message says why."""


def linear(image: Image) -> NDArray[np.float32]:
    """sRGB 8-bit BGR to linear light."""
    return np.asarray(_SRGB_TO_LINEAR[image])


def log_colour(lin: NDArray[np.floating[Any]]) -> FloatArray:
    """Log linear light as (brightness, red-green, blue-green): shadows move the first."""
    logs = np.log(np.maximum(lin, 0.0) + _EPS).astype(np.float64)
    b, g, r = logs[..., 0], logs[..., 1], logs[..., 2]
    return np.stack([(b + g + r) / 3.0, r - g, b - g], axis=-1)


def distance(a: FloatArray, b: FloatArray) -> FloatArray:
    d = a - b
    return np.asarray(
        np.sqrt((BRIGHTNESS_WEIGHT * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    )


def sample(image: NDArray[Any], pixels: NDArray[np.float32]) -> NDArray[Any]:
    """``image`` at sub-pixel ``pixels`` (bilinear), (P, channels)."""
    map_x = np.ascontiguousarray(pixels[:, 0].reshape(1, -1))
    map_y = np.ascontiguousarray(pixels[:, 1].reshape(1, -1))
    out = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out).reshape(len(pixels), -1)


@dataclass
class SetAppearance:
    """The player's board and pieces as the camera saw them at calibration.

    ``bare``: the empty board from above (linear light, ``BARE_PX_PER_MM``), ``colours``:
    per element kind, each piece value's appearance (log colour, see :func:`log_colour`),
    with the light of the calibration taken off."""

    game: str
    bare: NDArray[np.float32]
    colours: dict[str, dict[Value, FloatArray]]
    _bare_log: NDArray[np.float32] | None = field(default=None, repr=False)
    _light_bare: FloatArray | None = field(default=None, repr=False)

    def bare_log(self, ground_mm: FloatArray) -> FloatArray:
        """The bare board's log colour at board points."""
        if self._bare_log is None:  # looked up as float32 (cv2.remap), converted once
            self._bare_log = log_colour(self.bare).astype(np.float32)
        px = (ground_mm * BARE_PX_PER_MM - 0.5).astype(np.float32)
        return np.asarray(sample(self._bare_log, px), dtype=np.float64)

    def light_reference(self) -> FloatArray:
        """The bare board's log colour, shrunk for the light fit."""
        if self._light_bare is None:
            h, w = self.bare.shape[:2]
            scale = LIGHT_PX_PER_MM / BARE_PX_PER_MM
            small = cv2.resize(
                self.bare,
                (max(1, round(w * scale)), max(1, round(h * scale))),
                interpolation=cv2.INTER_AREA,
            )
            self._light_bare = log_colour(np.asarray(small, dtype=np.float32))
        return self._light_bare


def light_design(points_mm: FloatArray, size_mm: tuple[float, float]) -> FloatArray:
    x = points_mm[:, 0] / size_mm[0] - 0.5
    y = points_mm[:, 1] / size_mm[1] - 0.5
    return np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])


@dataclass(frozen=True)
class LightField:
    """The light of a frame against the calibration, in log colour: a quadratic over
    the board plus a smooth local correction (a lamp's pool, a shadow's edge)."""

    coefficients: FloatArray  # (6, 3)
    local: NDArray[np.float32]  # (h, w, 3) at LIGHT_PX_PER_MM
    size_mm: tuple[float, float]
    hand: NDArray[np.bool_] | None = None
    """The points of the grid a hand was found over (left out of the fit), if any."""

    def at(self, points_mm: FloatArray) -> FloatArray:
        px = (points_mm * LIGHT_PX_PER_MM - 0.5).astype(np.float32)
        local = np.asarray(sample(self.local, px), dtype=np.float64)
        return np.asarray(light_design(points_mm, self.size_mm) @ self.coefficients + local)

    def under_hand(self, points_mm: FloatArray) -> NDArray[np.bool_]:
        """Whether each board point lies under the hand found (none when none was)."""
        if self.hand is None or not self.hand.any():
            return np.zeros(len(points_mm), dtype=bool)
        h, w = self.hand.shape
        px = np.floor(points_mm * LIGHT_PX_PER_MM).astype(np.intp)
        ok = (px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] < w) & (px[:, 1] < h)
        out = np.zeros(len(points_mm), dtype=bool)
        out[ok] = self.hand[px[ok, 1], px[ok, 0]]
        return out


@lru_cache(maxsize=8)
def light_design_grid(h: int, w: int, size_mm: tuple[float, float]) -> FloatArray:
    """:func:`light_design` of every pixel of a light picture ``h`` x ``w`` (made once
    per size; read only)."""
    ys, xs = np.mgrid[0:h, 0:w]
    points = np.column_stack(
        [(xs.ravel() + 0.5) / LIGHT_PX_PER_MM, (ys.ravel() + 0.5) / LIGHT_PX_PER_MM]
    )
    design = light_design(points, size_mm)
    design.setflags(write=False)
    return design


@dataclass(frozen=True)
class ElementFeatures:
    """One element's alternatives (values, then ``OTHER``) and their feature rows."""

    element: str
    kind: str
    values: tuple[Value | str, ...]
    rows: FloatArray  # (alternatives, len(FEATURES))
    seen_share: float
    extra: FloatArray | None = None  # stacked kinds: what their classifier reads


def bare_value(values: Iterable[Value]) -> Value:
    """The value an element shows when nothing stands on it."""
    values = list(values)
    for bare in BARE_VALUES:
        if any(v == bare and type(v) is type(bare) for v in values):
            return bare
    raise AppearanceError(f"no bare value among {values!r}")


def probabilities(weights: FloatArray, rows: FloatArray) -> FloatArray:
    logits = rows @ weights
    logits = logits - logits.max()
    e = np.exp(logits)
    return np.asarray(e / e.sum())


SAME_VIEW_PX = 0.25
"""Two views that put every board corner within this many pixels read the same points."""


def same_view(a: BoardView, b: BoardView, size_mm: tuple[float, float]) -> bool:
    if a is b:
        return True
    if a.image_size != b.image_size or (a.projection is None) != (b.projection is None):
        return False
    w, h = size_mm
    corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h], [w / 2, h / 2]])
    return bool(np.abs(a.to_image(corners) - b.to_image(corners)).max() <= SAME_VIEW_PX)


RIDGE = 3.0
"""The fit's ridge penalty (chosen on the validation set)."""


class Labelled(Protocol):
    """An example of a conditional logit: its alternatives' feature rows and the index
    of the true one."""

    @property
    def rows(self) -> FloatArray: ...

    @property
    def truth(self) -> int: ...


def fit_weights(data: Sequence[Labelled], l2: float = RIDGE, iterations: int = 60) -> FloatArray:
    """Weights of the conditional logit by Newton's method with a small ridge; a step
    that would make the fit worse is halved until it does not."""
    size = data[0].rows.shape[1] if data else len(FEATURES)
    w = np.zeros(size)
    for _ in range(iterations):
        gradient = l2 * w
        hessian = l2 * np.eye(size)
        for example in data:
            p = probabilities(w, example.rows)
            mean = p @ example.rows
            gradient += mean - example.rows[example.truth]
            centred = example.rows - mean
            hessian += (centred * p[:, None]).T @ centred
        step = np.linalg.solve(hessian + 1e-9 * np.eye(size), gradient)
        before = _penalised_loss(w, data, l2)
        for _halving in range(40):
            if _penalised_loss(w - step, data, l2) <= before + 1e-9 * max(1.0, abs(before)):
                break
            step = step / 2.0
        w -= step
        if float(np.abs(step).max()) < 1e-7:
            break
    return w


def _penalised_loss(w: FloatArray, data: Sequence[Labelled], l2: float) -> float:
    """The fit's objective: the examples' negative log-likelihood plus the ridge."""
    total = 0.5 * l2 * float(w @ w)
    for example in data:
        logits = example.rows @ w
        top = float(logits.max())
        total += top + math.log(float(np.exp(logits - top).sum())) - float(logits[example.truth])
    return total
