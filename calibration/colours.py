"""The colour model: what each player's pieces and the empty board look like under
this table's light.

Every image is first straightened to a top view of the board (:func:`rectify`), then
white-balanced (:func:`white_balance_gains`: per-channel gains that make a reference
neutral, either the board's own border strip, measured again in every frame so the
model follows the light as it changes, or a grey card laid on the board at capture)
and converted to CIE Lab. A guided capture (:func:`capture_samples`: the empty board,
then the pieces of one colour at a time) yields Lab samples per class, from which
:func:`fit_colour_model` fits one Gaussian per class. :func:`classify` names the class
of a patch by the smallest Mahalanobis distance, or ``unknown`` when every class is far.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.boards import BoardGeometry
from calibration.config import ColourConfig
from calibration.errors import FitError, NotFoundError, ProfileError
from calibration.intrinsics import CameraProfile, distort_points
from calibration.profiles import KIND_COLOURS, Fields, now_iso, read_document, save_document
from calibration.registration import BoardProfile
from calibration.srgb import linear_light

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]
EMPTY = "empty"
UNKNOWN = "unknown"
WHITE_BALANCE_METHODS = ("border", "grey-card")
# The change mask is opened and closed with a disc this wide: specks of noise and
# hairline gaps from a shifted edge go, pieces stay.
_CHANGE_SMOOTHING_MM = 1.0
# A covariance in three dimensions needs four samples at the very least.
_MIN_SAMPLES = 4


@dataclass(frozen=True)
class ColourClass:
    """One class (a player's colour, or the empty board): Lab mean and covariance."""

    name: str
    mean: tuple[float, float, float]
    covariance: tuple[tuple[float, ...], ...]
    samples: int


@dataclass(frozen=True)
class ColourModel:
    """What ``companion calibrate colours`` stores. ``white_balance`` is ``border``
    (gains measured on the board's border in every frame) or ``grey-card`` (the gains
    measured on the card at capture, in ``gains_bgr``, used for every frame)."""

    game: str
    classes: tuple[ColourClass, ...]
    white_balance: str
    gains_bgr: tuple[float, float, float]
    px_per_mm: float
    board_created: str
    created: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.classes)

    def to_json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "game": self.game,
            "feature_space": "CIE Lab (D65)",
            "white_balance": self.white_balance,
            "gains_bgr": list(self.gains_bgr),
            "px_per_mm": self.px_per_mm,
            "board_created": self.board_created,
            "classes": [
                {
                    "name": c.name,
                    "mean": list(c.mean),
                    "covariance": [list(r) for r in c.covariance],
                    "samples": c.samples,
                }
                for c in self.classes
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: Path | str) -> ColourModel:
        """Check every field; raises ``ProfileError`` naming the first bad one."""
        fields = Fields(data, source, "colour model")
        classes = []
        for i, record in enumerate(fields.records("classes")):
            item = fields.sub(record, f"classes[{i}]")
            covariance = item.matrix("covariance", 3, 3)
            matrix = np.array(covariance)
            if not np.allclose(matrix, matrix.T) or np.any(np.linalg.eigvalsh(matrix) <= 0):
                raise item.fail("covariance", "is not symmetric positive definite")
            mean = item.numbers("mean", 3)
            classes.append(
                ColourClass(
                    item.string("name"),
                    (mean[0], mean[1], mean[2]),
                    covariance,
                    item.integer("samples", 1),
                )
            )
        names = [c.name for c in classes]
        if len(classes) < 2 or len(set(names)) != len(names):
            raise fields.fail("classes", "must hold two or more classes with different names")
        gains = fields.numbers("gains_bgr", 3)
        if min(gains) <= 0:
            raise fields.fail("gains_bgr", "must be positive")
        return cls(
            fields.string("game"),
            tuple(classes),
            fields.string("white_balance", WHITE_BALANCE_METHODS),
            (gains[0], gains[1], gains[2]),
            fields.number("px_per_mm", 1e-3),
            fields.string("board_created"),
            fields.string("created"),
        )


@dataclass(frozen=True)
class ColourMatch:
    """A classified patch: the best class (or ``unknown``), its Mahalanobis distance,
    and the runner-up with its distance."""

    name: str
    distance: float
    runner_up: str
    runner_up_distance: float


@dataclass(frozen=True)
class Separation:
    """How well the model tells its classes apart: the closest pair and their
    Mahalanobis separation, and the share of the capture's own samples classified
    correctly."""

    closest: tuple[str, str]
    distance: float
    training_accuracy: float


# --- images -------------------------------------------------------------------------


def rectify(
    config: ColourConfig, profile: BoardProfile, camera: CameraProfile | None, image: Image
) -> Image:
    """A top view of the board, ``config.px_per_mm`` pixels per mm, from ``image``."""
    w_mm, h_mm = profile.geometry.size_mm
    width, height = round(w_mm * config.px_per_mm), round(h_mm * config.px_per_mm)
    scale = np.diag([1.0 / config.px_per_mm, 1.0 / config.px_per_mm, 1.0])
    centre = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    to_image = profile.matrix @ scale @ centre
    if camera is None:
        return np.asarray(
            cv2.warpPerspective(
                image, to_image, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
            )
        )
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    grid = np.column_stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    ideal = grid @ to_image.T
    ideal = ideal[:, :2] / ideal[:, 2:3]
    pixels = distort_points(camera, ideal).astype(np.float32).reshape(height, width, 2)
    return np.asarray(cv2.remap(image, pixels[:, :, 0], pixels[:, :, 1], cv2.INTER_LINEAR))


def linear_rgb(image: Image) -> NDArray[np.float32]:
    """8-bit sRGB (BGR order) decoded to linear light, 0..1."""
    return linear_light(image)


def lab(linear: NDArray[np.float32], gains_bgr: Sequence[float]) -> NDArray[np.float32]:
    """CIE Lab of white-balanced linear BGR."""
    balanced = np.clip(linear * np.asarray(gains_bgr, dtype=np.float32), 0.0, 1.0)
    return np.asarray(cv2.cvtColor(balanced.astype(np.float32), cv2.COLOR_LBGR2Lab))


def _rect_px(config: ColourConfig, mm: float) -> int:
    return max(1, round(mm * config.px_per_mm))


def markers_mask(config: ColourConfig, geometry: BoardGeometry) -> NDArray[np.bool_]:
    """Top-view pixels covered by the marker cards."""
    h, w = _rect_px(config, geometry.size_mm[1]), _rect_px(config, geometry.size_mm[0])
    mask = np.zeros((h, w), dtype=bool)
    for placement in geometry.markers:
        half = geometry.card_mm(placement.id) / 2.0 + config.edge_margin_mm
        x0, y0 = (
            (placement.centre_mm[0] - half) * config.px_per_mm,
            (placement.centre_mm[1] - half) * config.px_per_mm,
        )
        x1, y1 = (
            (placement.centre_mm[0] + half) * config.px_per_mm,
            (placement.centre_mm[1] + half) * config.px_per_mm,
        )
        mask[max(0, int(y0)) : int(np.ceil(y1)), max(0, int(x0)) : int(np.ceil(x1))] = True
    return mask


def border_mask(config: ColourConfig, geometry: BoardGeometry) -> NDArray[np.bool_]:
    """Top-view pixels of the board's border strip (``border_mm`` wide, less the outer
    ``edge_margin_mm`` and the marker cards): the white-balance reference."""
    h, w = _rect_px(config, geometry.size_mm[1]), _rect_px(config, geometry.size_mm[0])
    outer = _rect_px(config, config.edge_margin_mm)
    inner = _rect_px(config, geometry.border_mm)
    if inner <= outer:
        raise FitError(
            f"the {geometry.name} border ({geometry.border_mm:g} mm in boards.json) "
            f"is too narrow to measure white balance on; use a grey card"
        )
    mask = np.zeros((h, w), dtype=bool)
    mask[outer : h - outer, outer : w - outer] = True
    mask[inner : h - inner, inner : w - inner] = False
    return mask & ~markers_mask(config, geometry)


def play_mask(config: ColourConfig, geometry: BoardGeometry) -> NDArray[np.bool_]:
    """Top-view pixels where pieces may lie: inside the border, off the markers."""
    h, w = _rect_px(config, geometry.size_mm[1]), _rect_px(config, geometry.size_mm[0])
    inner = _rect_px(config, geometry.border_mm)
    mask = np.zeros((h, w), dtype=bool)
    mask[inner : h - inner, inner : w - inner] = True
    return mask & ~markers_mask(config, geometry)


def region_mask(
    config: ColourConfig, geometry: BoardGeometry, region_mm: tuple[float, float, float, float]
) -> NDArray[np.bool_]:
    """Top-view pixels of a rectangle ``(x, y, width, height)`` in board mm."""
    h, w = _rect_px(config, geometry.size_mm[1]), _rect_px(config, geometry.size_mm[0])
    x, y, rw, rh = (v * config.px_per_mm for v in region_mm)
    mask = np.zeros((h, w), dtype=bool)
    mask[max(0, round(y)) : max(0, round(y + rh)), max(0, round(x)) : max(0, round(x + rw))] = True
    if not mask.any():
        raise FitError(f"the grey card region {region_mm} mm is not on the board")
    return mask


def white_balance_gains(
    linear: NDArray[np.float32], reference: NDArray[np.bool_]
) -> tuple[float, float, float]:
    """Per-channel gains (B, G, R) that make the median colour of the ``reference``
    pixels neutral at its own brightness. Raises ``FitError`` for a black reference."""
    medians = np.median(linear[reference], axis=0)
    if np.any(medians <= 1e-4):
        raise FitError(
            "the white-balance reference is black in one colour channel: is it "
            "lit and in the picture?"
        )
    grey = float(np.mean(medians))
    gains = grey / medians
    return float(gains[0]), float(gains[1]), float(gains[2])


# --- sampling ------------------------------------------------------------------------


def tile_features(
    config: ColourConfig,
    lab_image: NDArray[np.float32],
    mask: NDArray[np.bool_],
    rng: np.random.Generator,
) -> FloatArray:
    """Mean Lab of the ``tile_mm`` squares lying wholly inside ``mask``, at most
    ``max_tiles_per_class`` of them chosen at random, shape (N, 3)."""
    tile = _rect_px(config, config.tile_mm)
    h, w = mask.shape
    rows, cols = h // tile, w // tile
    cropped = mask[: rows * tile, : cols * tile].reshape(rows, tile, cols, tile)
    full = cropped.all(axis=(1, 3))
    values = lab_image[: rows * tile, : cols * tile].reshape(rows, tile, cols, tile, 3)
    means = values.mean(axis=(1, 3))[full]
    if len(means) > config.max_tiles_per_class:
        means = means[rng.choice(len(means), config.max_tiles_per_class, replace=False)]
    return np.asarray(means, dtype=np.float64)


def piece_mask(
    config: ColourConfig,
    empty_lab: NDArray[np.float32],
    pieces_lab: NDArray[np.float32],
    where: NDArray[np.bool_],
) -> tuple[NDArray[np.bool_], int]:
    """Where the pieces lie in a capture: pixels of ``where`` whose colour changed by
    more than ``change_threshold`` from the empty board, in blobs of at least
    ``min_piece_area_mm2``, shrunk by ``edge_margin_mm``. Returns the mask and the
    number of blobs (pieces, or touching groups of pieces)."""
    change = np.linalg.norm(pieces_lab - empty_lab, axis=2)
    changed = ((change > config.change_threshold) & where).astype(np.uint8)
    smooth = max(1, _rect_px(config, _CHANGE_SMOOTHING_MM))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * smooth + 1, 2 * smooth + 1))
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, kernel)
    changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    min_area = config.min_piece_area_mm2 * config.px_per_mm**2
    keep = np.zeros(count, dtype=bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= min_area
    blobs = keep[labels].astype(np.uint8)
    margin = _rect_px(config, config.edge_margin_mm)
    inner = cv2.erode(
        blobs, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1))
    )
    return inner.astype(bool), int(keep.sum())


@dataclass(frozen=True)
class Capture:
    """Samples from a guided capture: Lab tiles per class, pieces (blobs) found per
    colour, and the white balance used."""

    samples: dict[str, FloatArray]
    pieces: dict[str, int]
    white_balance: str
    gains_bgr: tuple[float, float, float]


def capture_samples(
    config: ColourConfig,
    profile: BoardProfile,
    camera: CameraProfile | None,
    empty: Image,
    pieces: Mapping[str, Image],
    rng: np.random.Generator,
    grey_card_mm: tuple[float, float, float, float] | None = None,
) -> Capture:
    """Lab samples of the empty board and of each colour's pieces.

    ``empty`` shows the empty board; ``pieces[colour]`` the board with (only) that
    colour's pieces on it, spread out. With ``grey_card_mm`` (a rectangle in board mm
    where a grey card lies in ``empty``), the card sets the white balance for good and
    its place is not searched for pieces; otherwise each image is balanced on its own
    border strip.

    Raises ``NotFoundError`` when a colour's pieces cannot be told from the empty board,
    ``FitError`` for an unusable white-balance reference, ``ValueError`` for a colour
    named ``empty`` or ``unknown``.
    """
    geometry = profile.geometry
    for name in pieces:
        if name in (EMPTY, UNKNOWN):
            raise ValueError(f"{name!r} is reserved; name the colours after the pieces")
    empty_linear = linear_rgb(rectify(config, profile, camera, empty))
    if grey_card_mm is not None:
        gains = white_balance_gains(empty_linear, region_mask(config, geometry, grey_card_mm))
        method = "grey-card"
    else:
        reference = border_mask(config, geometry)
        gains = white_balance_gains(empty_linear, reference)
        method = "border"
    empty_lab = lab(empty_linear, gains)
    play = play_mask(config, geometry)
    if grey_card_mm is not None:
        play &= ~region_mask(config, geometry, grey_card_mm)
    samples = {EMPTY: tile_features(config, empty_lab, play, rng)}
    found = {}
    for name, image in pieces.items():
        linear = linear_rgb(rectify(config, profile, camera, image))
        image_gains = (
            gains
            if method == "grey-card"
            else white_balance_gains(linear, border_mask(config, geometry))
        )
        image_lab = lab(linear, image_gains)
        mask, count = piece_mask(config, empty_lab, image_lab, play)
        tiles = tile_features(config, image_lab, mask, rng)
        if count == 0 or len(tiles) == 0:
            raise NotFoundError(
                f"no {name} pieces found: put them on the board, spread out and "
                "away from the markers, and check that the board and camera "
                "did not move since the empty-board picture"
            )
        samples[name] = tiles
        found[name] = count
    return Capture(samples, found, method, gains)


# --- the model ---------------------------------------------------------------------------


def fit_colour_model(
    config: ColourConfig, profile: BoardProfile, capture: Capture
) -> tuple[ColourModel, Separation]:
    """One Gaussian per class (Lab mean, covariance plus ``covariance_floor``), and how
    well they separate. Raises ``FitError`` when a class has fewer samples than it
    needs for a covariance."""
    classes = []
    for name, samples in capture.samples.items():
        if len(samples) < _MIN_SAMPLES:
            raise FitError(
                f"only {len(samples)} samples of {name}: put more {name} pieces "
                "on the board, or larger ones, and capture again"
            )
        covariance = np.cov(samples.T) + config.covariance_floor * np.eye(3)
        mean = samples.mean(axis=0)
        classes.append(
            ColourClass(
                name,
                (float(mean[0]), float(mean[1]), float(mean[2])),
                tuple(tuple(float(x) for x in row) for row in covariance),
                len(samples),
            )
        )
    model = ColourModel(
        profile.game,
        tuple(classes),
        capture.white_balance,
        capture.gains_bgr,
        config.px_per_mm,
        profile.created,
        now_iso(),
    )
    return model, separation(config, model, capture.samples)


def _distances(model: ColourModel, features: FloatArray) -> FloatArray:
    """Mahalanobis distance of each feature (N, 3) to each class: (N, classes)."""
    out = np.empty((len(features), len(model.classes)))
    for k, cls in enumerate(model.classes):
        delta = features - np.array(cls.mean)
        inverse = np.linalg.inv(np.array(cls.covariance))
        out[:, k] = np.sqrt(np.einsum("ni,ij,nj->n", delta, inverse, delta))
    return out


def separation(
    config: ColourConfig, model: ColourModel, samples: Mapping[str, FloatArray]
) -> Separation:
    """The closest pair of classes (Mahalanobis distance between their means under the
    pair's average covariance) and the share of ``samples`` classified correctly."""
    best = (("", ""), float("inf"))
    for i, a in enumerate(model.classes):
        for b in model.classes[i + 1 :]:
            delta = np.array(a.mean) - np.array(b.mean)
            pooled = (np.array(a.covariance) + np.array(b.covariance)) / 2.0
            distance = float(np.sqrt(delta @ np.linalg.solve(pooled, delta)))
            if distance < best[1]:
                best = ((a.name, b.name), distance)
    correct = total = 0
    for name, features in samples.items():
        matches = classify_features(config, model, features)
        correct += sum(m.name == name for m in matches)
        total += len(matches)
    return Separation(best[0], best[1], correct / total if total else 0.0)


def classify_features(
    config: ColourConfig, model: ColourModel, features: FloatArray
) -> list[ColourMatch]:
    """Classify Lab features (N, 3): the nearest class, or ``unknown`` when even the
    nearest is farther than ``config.max_distance``."""
    distances = _distances(model, np.asarray(features, dtype=np.float64).reshape(-1, 3))
    order = np.argsort(distances, axis=1)
    names = model.names
    out = []
    for row, ranking in zip(distances, order, strict=True):
        best, second = int(ranking[0]), int(ranking[1])
        name = names[best] if row[best] <= config.max_distance else UNKNOWN
        out.append(ColourMatch(name, float(row[best]), names[second], float(row[second])))
    return out


def frame_lab(
    config: ColourConfig,
    model: ColourModel,
    profile: BoardProfile,
    camera: CameraProfile | None,
    image: Image,
) -> NDArray[np.float32]:
    """The white-balanced Lab top view of a frame, as the model expects it."""
    linear = linear_rgb(rectify(config, profile, camera, image))
    gains = (
        model.gains_bgr
        if model.white_balance == "grey-card"
        else white_balance_gains(linear, border_mask(config, profile.geometry))
    )
    return lab(linear, gains)


def classify_patches(
    config: ColourConfig,
    model: ColourModel,
    profile: BoardProfile,
    camera: CameraProfile | None,
    image: Image,
    centres_mm: FloatArray,
    radius_mm: float,
) -> list[ColourMatch]:
    """Classify round patches of ``radius_mm`` at board positions ``centres_mm`` (N, 2)
    in a camera frame. Raises ``ProfileError`` when the model was made for another
    registration than ``profile``."""
    if model.board_created != profile.created or model.game != profile.game:
        raise ProfileError(
            "the colour model was made with another board registration; capture the colours again"
        )
    lab_image = frame_lab(config, model, profile, camera, image)
    h, w = lab_image.shape[:2]
    radius = radius_mm * config.px_per_mm
    features = []
    for cx, cy in np.asarray(centres_mm, dtype=np.float64).reshape(-1, 2):
        px, py = (cx * config.px_per_mm - 0.5, cy * config.px_per_mm - 0.5)
        x0, x1 = max(0, int(px - radius)), min(w, int(np.ceil(px + radius)) + 1)
        y0, y1 = max(0, int(py - radius)), min(h, int(np.ceil(py + radius)) + 1)
        ys, xs = np.mgrid[y0:y1, x0:x1]
        inside = (xs - px) ** 2 + (ys - py) ** 2 <= radius**2
        if not inside.any():
            raise ValueError(f"the patch at ({cx:g}, {cy:g}) mm is off the board")
        features.append(lab_image[y0:y1, x0:x1][inside].mean(axis=0))
    return classify_features(config, model, np.array(features))


def save_colour_model(model: ColourModel, path: Path) -> None:
    """Write ``model`` to ``path`` atomically. Raises ``ProfileError`` on failure."""
    save_document(path, KIND_COLOURS, model.to_json())


def load_colour_model(path: Path, game: str | None = None) -> ColourModel:
    """Read a colour model, checking everything (and that it is ``game``'s).
    Raises ``ProfileError``."""
    model = ColourModel.from_json(read_document(path, KIND_COLOURS), path)
    if game is not None and model.game != game:
        raise ProfileError(f"{path} is the colour model of {model.game}, not {game}")
    return model
