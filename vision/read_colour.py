"""Colour in linear light, for the readers: sRGB decoding, log features and the
colour distance, the classes of an element kind, and the light falling on the board
(a quadratic field per channel fitted robustly to the board's paper, and glare).

See :mod:`vision.read` for how they are used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.read_config import BGR

FloatArray = NDArray[np.float64]

# sRGB decoding of every 8-bit level (linear light, 0..1).
SRGB_TO_LINEAR = np.array(
    [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (np.arange(256) / 255.0)],
    dtype=np.float64,
)
EPS = 1e-2

# The light fit's random minimal sets, drawn once (the same frame reads the same way).
_RANSAC_DRAWS = np.random.default_rng(0).random((256, 16))
# The light's guesses are planes: a constant and a slope across the board.
_PLANE_TERMS = 3


@dataclass(frozen=True)
class Light:
    """The light of one frame: ``field`` (6 x 3 quadratic coefficients, linear light
    per channel) and the ``glare`` (white light added, in paper units) measured at the
    paper points ``used`` (a mask over the reader's paper points)."""

    field: FloatArray
    used: NDArray[np.bool_]
    glare: FloatArray


@dataclass(frozen=True)
class Kind:
    """One element kind's classes: prototype features and the value each stands for."""

    names: tuple[str, ...]
    values: tuple[Any, ...]
    prototypes: FloatArray  # (P, 3) log linear light
    linear: FloatArray  # (P, 3) linear light
    owner: NDArray[np.intp]  # class of each prototype


def linear_of(bgr: BGR | tuple[int, ...]) -> FloatArray:
    return np.asarray(SRGB_TO_LINEAR[np.array(bgr, dtype=np.intp)], dtype=np.float64)


def features_of(linear: FloatArray) -> FloatArray:
    return np.asarray(np.log(np.maximum(linear, 0.0) + EPS))


def nearest_class(
    distances: FloatArray, kind: Kind
) -> tuple[NDArray[np.intp], FloatArray, FloatArray]:
    """Per row of prototype ``distances`` (E, P): the nearest class, its distance and
    the next class's."""
    per_class = np.full((len(distances), len(kind.names)), np.inf)
    for p, owner in enumerate(kind.owner):
        per_class[:, owner] = np.minimum(per_class[:, owner], distances[:, p])
    order = np.argsort(per_class, axis=1)
    rows = np.arange(len(distances))
    return order[:, 0], per_class[rows, order[:, 0]], per_class[rows, order[:, 1]]


def hue_angle(linear: FloatArray) -> FloatArray:
    """The direction (degrees) of colours' channel differences (green - blue, red -
    green) in linear light: neither white light added nor the light's strength
    changes it."""
    return np.asarray(
        np.degrees(np.arctan2(linear[..., 2] - linear[..., 1], linear[..., 1] - linear[..., 0]))
    )


def channel_difference_distance(linear: FloatArray, prototypes: FloatArray) -> FloatArray:
    """Distances (E, P) between colours in linear light by their channel differences
    (green - blue, red - green): white light added to a colour leaves them as they are."""

    def differences(colours: FloatArray) -> FloatArray:
        return np.stack(
            [colours[..., 1] - colours[..., 0], colours[..., 2] - colours[..., 1]], axis=-1
        )

    return np.asarray(
        np.linalg.norm(differences(linear)[:, None, :] - differences(prototypes)[None], axis=2)
    )


def fit_light(design: FloatArray, linear: FloatArray) -> FloatArray:
    """Least squares of each channel's light on ``design``, in relative error."""
    coefficients = np.zeros((design.shape[1], 3))
    weights = 1.0 / np.maximum(linear, 1e-3)
    for channel in range(3):
        w = weights[:, channel]
        coefficients[:, channel] = np.linalg.lstsq(
            design * w[:, None], linear[:, channel] * w, rcond=None
        )[0]
    return coefficients


def log_residual(linear: FloatArray, fitted: FloatArray) -> FloatArray:
    return np.asarray(np.abs(np.log((linear + EPS) / (np.maximum(fitted, 1e-4) + EPS))).max(axis=1))


def ransac_inliers(
    design: FloatArray, linear: FloatArray, tolerance: float, rounds: int, points: int
) -> NDArray[np.bool_]:
    """The paper samples one smooth light explains: the largest consensus of fits to
    random small sets (a hand or a shadow over half of the paper does not pull the
    fit). The guesses are planes (the first three columns of ``design``: four points
    each, so that many guesses hold no outlier), scored with half as much tolerance
    again for the curvature they lack; the inliers of the best are then those of the
    full fit to them. Seeded, so a frame always gives the same answer."""
    n = design.shape[0]
    plane = design[:, :_PLANE_TERMS]
    picks = np.floor(_RANSAC_DRAWS[:rounds, : _PLANE_TERMS + 1] * n).astype(np.intp)
    coefficients = np.linalg.pinv(plane[picks]) @ linear[picks]  # (R, 3, 3)
    # each guess is scored on an even subset of the paper
    scored = slice(None, None, max(1, n // points))
    fitted = np.maximum(np.einsum("nt,rtc->rnc", plane[scored], coefficients), 1e-4)
    residual = np.abs(np.log((linear[scored][None] + EPS) / (fitted + EPS))).max(axis=2)
    winner = coefficients[int(np.argmax((residual < 1.5 * tolerance).sum(axis=1)))]
    rough = log_residual(linear, plane @ winner) < 1.5 * tolerance
    if rough.sum() < design.shape[1] + 2:
        return rough
    return np.asarray(
        log_residual(linear, design @ fit_light(design[rough], linear[rough])) < tolerance
    )


def colour_distance(a: FloatArray, b: FloatArray, brightness_weight: float) -> FloatArray:
    """Colour distance of log-light features ``a`` (..., 3) to prototypes ``b`` (P, 3),
    (..., P): the difference's colour part in full, its brightness part (along grey)
    weighted down. Both are mapped so that the distance is Euclidean, which turns it
    into one matrix product."""
    squash = np.eye(3) + (brightness_weight - 1.0) / 3.0
    pa = a @ squash
    pb = b @ squash
    d2 = (pa**2).sum(axis=-1)[..., None] + (pb**2).sum(axis=-1) - 2.0 * pa @ pb.T
    return np.asarray(np.sqrt(np.maximum(d2, 0.0)))


def quadratic(points_mm: FloatArray, size_mm: tuple[float, float]) -> FloatArray:
    x = points_mm[:, 0] / size_mm[0] - 0.5
    y = points_mm[:, 1] / size_mm[1] - 0.5
    return np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])
