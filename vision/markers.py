"""Small, blurred ArUco markers: found where OpenCV's own reading gives up.

OpenCV's detector finds a marker's outline in a thresholded picture and reads its bits
from a straightened copy. Below about 25 px a side (modules of 3 to 4 px), under blur
and JPEG, its outline is off by one or two pixels and the bits it reads are wrong, so
the marker is rejected even when a person reads it at a glance. Here every square
OpenCV considered (its rejected candidates too) is taken again:

1. **the outline is measured**: each side is found again as the step from the white
   card round the marker to its black border, in linear light (where a blurred step
   crosses half-way exactly at the edge), along profiles across the side, and the
   corners are the crossings of the lines fitted through them; twice, the second time
   in a narrower band. A candidate may be the marker's black square or the white card
   it is printed on (whose size the board's geometry gives): both are tried.
2. **the bits are read** at the centres of the modules of the measured square, each an
   average over the middle of its module, against a threshold half-way between the
   black border and the white card round it; the marker is the dictionary's code (in
   one of four turns) within ``max_bit_errors`` bits, with every other code at least
   ``min_code_margin`` bits farther, and a border with at most ``max_border_errors``
   modules out of place.

:func:`find_small_markers` is the stage; it runs alone on a picture from the command
line: ``python -m vision.markers PICTURE --game shendao``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.arrays import array_of
from calibration.boards import board_geometry
from calibration.registration import square_corners
from calibration.srgb import linear_light
from calibration.targets import aruco_dictionary

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]


@dataclass(frozen=True)
class SmallMarkerConfig:
    """Settings of the small-marker search; the reasons are beside each value."""

    # OpenCV's adaptive threshold windows (first, last, step; pixels): small ones keep
    # a marker of 10 to 20 px apart from the board round it (OpenCV's default, up to
    # 23 px, merges them); 3 and 7 found about as many as 3, 5, 7 and 9 on the tuning
    # pictures, in less time.
    threshold_windows: tuple[int, int, int] = (3, 7, 4)
    # Squares smaller than this (side, px) hold modules under 1.2 px: not readable.
    min_side_px: float = 7.0
    # Larger squares are read by OpenCV itself.
    max_side_px: float = 60.0
    # At most this many candidates are examined, largest first (a busy, sharp picture
    # gives about this many; the board's markers are among the larger squares).
    max_candidates: int = 80
    # Edge profiles run this many modules either side of a side, then (second pass)
    # this many: the first catches a side a module off, the second keeps the interior
    # bits out.
    search_modules: tuple[float, ...] = (1.0, 0.45)
    # Step along a profile, in pixels (finer steps gain nothing against the noise),
    # and at most this share of a module.
    step_px: float = 0.25
    max_step_modules: float = 0.08
    # A profile must rise from the black border to the card by this share of the
    # card's light (linear light: a dim side of the board keeps its ratios).
    min_edge_contrast: float = 0.3
    # The black border's light, at most, as a share of the white card's round it.
    max_black_share: float = 0.6
    # Bits that may be misread, and how much farther every other code must be.
    max_bit_errors: int = 1
    min_code_margin: int = 2
    # Border modules (of 20) that may read white.
    max_border_errors: int = 1


@dataclass(frozen=True)
class SmallMarker:
    """A marker read by :func:`find_small_markers`: its id, the corners of its black
    square (4, 2) in frame pixels in ArUco's order (its top-left first), and the bits
    that disagreed with its code."""

    marker_id: int
    corners: FloatArray
    bit_errors: int


def find_small_markers(
    image: Image,
    dictionary: str,
    *,
    card_ratios: Sequence[float] = (),
    config: SmallMarkerConfig | None = None,
    candidates: Sequence[FloatArray] | None = None,
    wanted: Collection[int] = (),
    known: Sequence[FloatArray] = (),
) -> dict[int, SmallMarker]:
    """Markers of ``dictionary`` in ``image`` (BGR or grey) read from OpenCV's
    candidate squares (or the given ``candidates``, (4, 2) pixel quads), as the module
    docstring says. ``card_ratios``: the sides of the white cards the markers are
    printed on, over the marker's side (a candidate may be the card). A marker read
    from several candidates keeps the reading with the fewest bit errors. The search
    stops once every id in ``wanted`` is read; candidates inside the cards of
    ``known`` markers (corners, pixels: read already) are passed over."""
    config = config or SmallMarkerConfig()
    grey = image if image.ndim == 2 else array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    codes = _codes(dictionary)
    modules = codes.modules
    if candidates is None:
        candidates = candidate_squares(grey, dictionary, config)
    widest = max((1.0, *card_ratios))
    cards = [_scaled(np.asarray(k, np.float64), widest).astype(np.float32) for k in known]
    found: dict[int, SmallMarker] = {}
    for quad in candidates:
        if wanted and set(wanted) <= set(found):
            break
        side = _side(quad)
        if not config.min_side_px <= side <= config.max_side_px * widest:
            continue
        centre = quad.mean(axis=0)
        if any(
            cv2.pointPolygonTest(card, (float(centre[0]), float(centre[1])), False) >= 0
            for card in cards
        ):
            continue
        for ratio in (1.0, *card_ratios):
            square = _scaled(quad, 1.0 / ratio)
            if _side(square) < config.min_side_px:
                continue
            marker = _read(grey, square, modules, codes, config)
            if marker is not None and (
                marker.marker_id not in found
                or marker.bit_errors < found[marker.marker_id].bit_errors
            ):
                found[marker.marker_id] = marker
            if marker is not None:
                break
    return found


def reread_markers(
    image: Image,
    dictionary: str,
    markers: dict[int, FloatArray],
    *,
    config: SmallMarkerConfig | None = None,
) -> dict[int, SmallMarker]:
    """Markers another detector read (id -> corners, frame pixels), measured again as
    the module docstring says; those read again with the same id. OpenCV's corners of a
    marker under about 60 px are often a pixel off; these are a few tenths of one."""
    config = config or SmallMarkerConfig()
    grey = image if image.ndim == 2 else array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    codes = _codes(dictionary)
    again = {}
    for marker_id, corners in markers.items():
        marker = _read(grey, np.asarray(corners, np.float64), codes.modules, codes, config)
        if marker is not None and marker.marker_id == marker_id:
            again[marker_id] = marker
    return again


def candidate_squares(
    grey: Image, dictionary: str, config: SmallMarkerConfig | None = None
) -> list[FloatArray]:
    """The squares OpenCV's detector considers in ``grey``, read or rejected, with
    adaptive threshold windows for small markers, largest first (at most
    ``config.max_candidates``)."""
    config = config or SmallMarkerConfig()
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    low, high, step = config.threshold_windows
    parameters.adaptiveThreshWinSizeMin = low
    parameters.adaptiveThreshWinSizeMax = high
    parameters.adaptiveThreshWinSizeStep = step
    parameters.minMarkerPerimeterRate = 4.0 * config.min_side_px / max(grey.shape)
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), parameters)
    corners, _, rejected = detector.detectMarkers(grey)
    quads = [np.asarray(q, np.float64).reshape(4, 2) for q in (*corners, *rejected)]
    quads = [q for q in quads if config.min_side_px <= _side(q)]
    quads.sort(key=lambda q: -_side(q))
    return quads[: config.max_candidates]


@dataclass(frozen=True)
class _Codes:
    """A dictionary's codes in their four turns: ``bits`` (codes * 4, cells) of 0/1,
    ``ids`` and ``turns`` of each row, ``modules`` across the marker with its border."""

    bits: NDArray[np.int8]
    ids: NDArray[np.int64]
    turns: NDArray[np.int64]
    modules: int


@cache
def _codes(dictionary: str) -> _Codes:
    aruco = aruco_dictionary(dictionary)
    size = aruco.markerSize
    rows, ids, turns = [], [], []
    for marker_id in range(len(aruco.bytesList)):
        bits = cv2.aruco.Dictionary.getBitsFromByteList(
            aruco.bytesList[marker_id : marker_id + 1], size
        ).reshape(size, size)
        for turn in range(4):
            # the code as it reads when the marker's top-left corner is the quad's
            # corner ``turn`` (quad corners run clockwise in the picture)
            rows.append(np.rot90(bits, turn).reshape(-1))
            ids.append(marker_id)
            turns.append(turn)
    return _Codes(np.array(rows, np.int8), np.array(ids), np.array(turns), size + 2)


def _side(quad: FloatArray) -> float:
    return math.sqrt(abs(float(cv2.contourArea(np.asarray(quad, np.float32)))))


def _clockwise(quad: FloatArray) -> FloatArray:
    """The quad's corners running clockwise in the picture (y down), as a marker's
    corners do, from the same first corner."""
    x, y = quad[:, 0], quad[:, 1]
    twice_area = float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    return quad if twice_area > 0 else quad[[0, 3, 2, 1]]


def _scaled(quad: FloatArray, factor: float) -> FloatArray:
    """The quad scaled by ``factor`` about its centre, in perspective (through the
    homography of the unit square to it)."""
    if factor == 1.0:
        return quad
    homography = _unit_homography(quad)
    low, high = 0.5 - factor / 2.0, 0.5 + factor / 2.0
    return _map(homography, np.array([[low, low], [high, low], [high, high], [low, high]]))


def _unit_homography(quad: FloatArray) -> FloatArray:
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32)), np.float64)


def _map(homography: FloatArray, points: FloatArray) -> FloatArray:
    pts = np.column_stack([points, np.ones(len(points))]) @ homography.T
    return np.asarray(pts[:, :2] / pts[:, 2:3])


def _bilinear(image: NDArray[np.float32], points: FloatArray) -> FloatArray:
    x = np.clip(points[:, 0], 0.0, image.shape[1] - 1.001)
    y = np.clip(points[:, 1], 0.0, image.shape[0] - 1.001)
    x0, y0 = np.floor(x).astype(np.intp), np.floor(y).astype(np.intp)
    fx, fy = x - x0, y - y0
    top = image[y0, x0] * (1.0 - fx) + image[y0, x0 + 1] * fx
    bottom = image[y0 + 1, x0] * (1.0 - fx) + image[y0 + 1, x0 + 1] * fx
    return np.asarray(top * (1.0 - fy) + bottom * fy, np.float64)


def _cell_samples(modules: int, ring: int) -> FloatArray:
    """Sample points of a marker's cells in the unit square of its black square of
    ``modules`` cells a side, ``ring`` more cells round it (the white card's), row by
    row: nine points a cell round its centre, a fifth of a cell apart (cells, 9, 2)
    flattened to (cells * 9, 2)."""
    centres = (np.arange(-ring, modules + ring) + 0.5) / modules
    spread = np.array([-0.2, 0.0, 0.2]) / modules
    grid_x, grid_y = np.meshgrid(centres, centres)
    cells = np.column_stack([grid_x.reshape(-1), grid_y.reshape(-1)])
    jitter = np.array([(dx, dy) for dx in spread for dy in spread])
    return np.asarray((cells[:, None, :] + jitter[None, :, :]).reshape(-1, 2))


def _read(
    grey: Image, quad: FloatArray, modules: int, codes: _Codes, config: SmallMarkerConfig
) -> SmallMarker | None:
    """The marker whose black square lies near ``quad``, or ``None``. The work is done
    in linear light on a patch round the quad only."""
    height, width = grey.shape
    side = _side(quad)
    low = np.floor(quad.min(axis=0) - side).astype(int)
    high = np.ceil(quad.max(axis=0) + side).astype(int)
    x0, y0 = max(int(low[0]), 0), max(int(low[1]), 0)
    x1, y1 = min(int(high[0]), width), min(int(high[1]), height)
    inside = np.all((quad >= 1.0) & (quad <= np.array([width - 2.0, height - 2.0])))
    if not inside or x1 - x0 < 4 or y1 - y0 < 4:
        return None
    linear = linear_light(np.asarray(grey[y0:y1, x0:x1], np.uint8))
    origin = np.array([x0, y0], np.float64)
    square: FloatArray | None = _clockwise(quad) - origin
    for reach in config.search_modules:
        assert square is not None
        square = _measure_square(linear, square, modules, reach, config)
        if square is None:
            return None
    assert square is not None
    marker = _decode(linear, square, modules, codes, config)
    if marker is None:
        return None
    return SmallMarker(marker.marker_id, marker.corners + origin, marker.bit_errors)


def _measure_square(
    linear: NDArray[np.float32],
    quad: FloatArray,
    modules: int,
    reach: float,
    config: SmallMarkerConfig,
) -> FloatArray | None:
    """The black square's corners, each side found again as the white-to-black step
    within ``reach`` modules of where ``quad`` puts it; ``None`` when a side shows no
    such step."""
    homography = _unit_homography(quad)
    module = 1.0 / modules
    step = min(config.max_step_modules, config.step_px * modules / max(_side(quad), 1.0))
    offsets = np.arange(-reach, reach + 1e-9, step) * module
    # a profile per pixel of side (at least 9), away from the corners, where the
    # neighbouring side's blur bends the edge; the four sides at once
    count = max(9, round(_side(quad)))
    along = np.linspace(0.15, 0.85, count)
    ones, zeros = np.ones(count), np.zeros(count)
    base = np.stack(
        [
            np.column_stack([along, zeros]),
            np.column_stack([ones, along]),
            np.column_stack([along[::-1], ones]),
            np.column_stack([zeros, along[::-1]]),
        ]
    )
    outward = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    samples = base[:, :, None, :] + offsets[None, None, :, None] * outward[:, None, None, :]
    pixels = _map(homography, samples.reshape(-1, 2)).reshape(4 * count, len(offsets), 2)
    profiles = _bilinear(linear, pixels.reshape(-1, 2)).reshape(4 * count, len(offsets))
    dark = profiles[:, offsets <= 0].min(axis=1)
    outer = np.where(offsets >= 0, profiles, -1.0)
    brightest = outer.argmax(axis=1)
    light = outer.max(axis=1)
    level = (dark + light) / 2.0
    # from the card's brightest point inwards, the first sample below half-way ends the
    # step (beyond the card the board may be dark too)
    before = np.arange(len(offsets))[None, :] < brightest[:, None]
    below = (profiles < level[:, None]) & before
    usable = (light > 0.0) & (light - dark >= config.min_edge_contrast * light) & below.any(axis=1)
    lines = []
    for side in range(4):
        rows = side * count + np.nonzero(usable[side * count : (side + 1) * count])[0]
        if len(rows) < 4:
            return None
        k = len(offsets) - 1 - below[rows, ::-1].argmax(axis=1)
        low, high = profiles[rows, k], profiles[rows, k + 1]
        fraction = ((level[rows] - low) / np.maximum(high - low, 1e-9))[:, None]
        points = pixels[rows, k] + fraction * (pixels[rows, k + 1] - pixels[rows, k])
        vx, vy, x0, y0 = cv2.fitLine(
            points.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).reshape(-1)
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    square = square_corners(lines)
    if square is None:
        return None
    if not 0.5 < _side(square) / max(_side(quad), 1e-9) < 2.0:
        return None
    return square


def _decode(
    linear: NDArray[np.float32],
    square: FloatArray,
    modules: int,
    codes: _Codes,
    config: SmallMarkerConfig,
) -> SmallMarker | None:
    """Read the modules of the black square ``square``; the marker, or ``None``."""
    homography = _unit_homography(square)
    samples = _cell_samples(modules, 0)
    values = _bilinear(linear, _map(homography, samples)).reshape(modules**2, -1).mean(axis=1)
    values = values.reshape(modules, modules)
    border = np.concatenate([values[0], values[-1], values[1:-1, 0], values[1:-1, -1]])
    ring_t = (np.arange(modules + 2) + 0.5) / (modules + 2) * (1.0 + 2.0 / modules) - 1.0 / modules
    out = 0.5 / modules
    ring = np.concatenate(
        [
            np.column_stack([ring_t, np.full_like(ring_t, -out)]),
            np.column_stack([ring_t, np.full_like(ring_t, 1.0 + out)]),
            np.column_stack([np.full_like(ring_t, -out), ring_t]),
            np.column_stack([np.full_like(ring_t, 1.0 + out), ring_t]),
        ]
    )
    white = float(np.median(_bilinear(linear, _map(homography, ring))))
    black = float(np.median(border))
    if white <= 0.0 or black > config.max_black_share * white:
        return None
    level = (white + black) / 2.0
    if int((border > level).sum()) > config.max_border_errors:
        return None
    bits = (values[1:-1, 1:-1] > level).reshape(-1).astype(np.int8)
    distances = (codes.bits != bits[None, :]).sum(axis=1)
    order = np.argsort(distances, kind="stable")
    best = int(order[0])
    others = distances[codes.ids != codes.ids[best]]
    if (
        distances[best] > config.max_bit_errors
        or int(others.min()) - int(distances[best]) < config.min_code_margin
    ):
        return None
    # ArUco's order starts at the marker's own top-left corner
    corners = np.roll(square, int(codes.turns[best]), axis=0)
    return SmallMarker(int(codes.ids[best]), corners, int(distances[best]))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the small markers read in a picture."""
    parser = argparse.ArgumentParser(
        prog="python -m vision.markers", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("picture")
    parser.add_argument(
        "--game",
        default="shangrila",
        help="the board whose marker cards to expect (default shangrila)",
    )
    args = parser.parse_args(argv)
    image = cv2.imread(args.picture, cv2.IMREAD_COLOR)
    if image is None:
        print(f"{args.picture} cannot be read as an image", file=sys.stderr)
        return 2
    geometry = board_geometry(args.game)
    ratios = sorted({geometry.card_mm(i) / geometry.marker_mm for i in geometry.marker_ids})
    found = find_small_markers(array_of(np.uint8, image), geometry.dictionary, card_ratios=ratios)
    for marker in found.values():
        corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in marker.corners)
        print(f"marker {marker.marker_id}: {corners} ({marker.bit_errors} bits misread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# --- a marker partly covered ------------------------------------------------------------


@dataclass(frozen=True)
class CoveredMarkerConfig:
    """Settings of :func:`match_covered_marker`; the reasons are beside each value."""

    # Where the markers seen put a missing one is a few pixels off (two markers leave
    # the board's far side a few mm off): its place is sought this many modules round
    # the prediction, in steps of this share of a module, then to a tenth of a pixel.
    reach_modules: float = 2.0
    step_modules: float = 0.25
    # The cells compared: the black square's (border and code) and the white card's
    # ring round it. Each agrees with its expected shade by -1 to 1 (how far past the
    # half-way light between black and white it lies, in halves of the contrast); a
    # covered cell agrees by about 0 on average (a hand or a box is one shade: half the
    # cells come out right). The place is taken when the mean agreement reaches this:
    # on validation pictures (hardest level), the markers found half covered agreed by
    # 0.54 to 0.81; the board's print at a marker's place on boards without markers, at
    # the best place sought, by 0.41 at most.
    min_agreement: float = 0.5
    # ...and the best place is this much better than every place a module or more away
    # (a single clear peak: the code's pattern, not a stripe of the border, placed it).
    min_peak_margin: float = 0.2
    # The place is refined on the steps between cells that agree with their shade by
    # this much or more at the best place sought (the others may be covered).
    shown_agreement: float = 0.3
    # ...on a grid of this step (pixels) round the best place sought.
    fine_px: float = 0.125
    # The code's own cells (what tells one marker from another) must agree by this
    # much: on validation pictures the right marker half covered gave 0.52 to 0.97,
    # another marker's code at the place of one wholly seen at most 0.25.
    min_code_agreement: float = 0.45
    # The card must be this much lighter than the black border (as a share of the
    # card's light), as a marker read whole must.
    min_contrast: float = 0.35


@dataclass(frozen=True)
class CoveredMarker:
    """A marker found partly covered: the corners of its black square (4, 2) in frame
    pixels in ArUco's order, and how well its cells agreed with its code (0 to 1)."""

    marker_id: int
    corners: FloatArray
    agreement: float
    code_agreement: float
    """The same over the code's cells alone (what tells one marker from another)."""


def match_covered_marker(
    image: Image,
    dictionary: str,
    marker_id: int,
    predicted: FloatArray,
    *,
    config: CoveredMarkerConfig | None = None,
) -> CoveredMarker | None:
    """The marker ``marker_id`` near ``predicted`` (its black square's corners in frame
    pixels, ArUco's order: where the markers seen put it) when something covers part
    of it, so that it cannot be read as a whole: its known pattern of cells, the white
    card round it included, is slid round the prediction and kept where the cells that
    show agree with it clearly, better than anywhere a module or more away. ``None``
    when no place does (covered too much, or not there)."""
    config = config or CoveredMarkerConfig()
    predicted = np.asarray(predicted, np.float64)
    codes = _codes(dictionary)
    modules = codes.modules
    row = int(np.flatnonzero((codes.ids == marker_id) & (codes.turns == 0))[0])
    expected = np.ones((modules + 2, modules + 2))  # the white card's ring
    expected[1:-1, 1:-1] = 0.0  # the black border
    expected[2:-2, 2:-2] = codes.bits[row].reshape(modules - 2, modules - 2)
    sign = 2.0 * expected.reshape(-1) - 1.0
    grey = image if image.ndim == 2 else array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    height, width = grey.shape
    side = _side(predicted)
    module = side / modules
    reach = config.reach_modules * module
    low = np.floor(predicted.min(axis=0) - 2.0 * module - reach - 2.0).astype(int)
    high = np.ceil(predicted.max(axis=0) + 2.0 * module + reach + 2.0).astype(int)
    if low[0] < 0 or low[1] < 0 or high[0] > width or high[1] > height or side < 4.0:
        return None
    linear = linear_light(np.asarray(grey[low[1] : high[1], low[0] : high[0]], np.uint8))
    homography = _unit_homography(predicted - low)
    cells = (modules + 2) ** 2
    points = _map(homography, _cell_samples(modules, 1))

    inner = np.zeros((modules + 2, modules + 2), bool)
    inner[2:-2, 2:-2] = True
    code = inner.reshape(-1)

    def cell_agreement(shifts: FloatArray) -> FloatArray:
        """How far each cell agrees with its shade (-1 to 1) at each of ``shifts``
        (shifts, cells); NaN rows where black and white differ too little."""
        sampled = _bilinear(linear, (points[None, :, :] + shifts[:, None, :]).reshape(-1, 2))
        values = sampled.reshape(len(shifts), cells, -1).mean(axis=2)
        white = np.percentile(values[:, sign > 0], 75, axis=1)[:, None]
        black = np.percentile(values[:, sign < 0], 25, axis=1)[:, None]
        half = np.maximum((white - black) / 2.0, 1e-9)
        out = np.clip((values - (white + black) / 2.0) / half * sign, -1.0, 1.0)
        out[((white <= 0.0) | (white - black < config.min_contrast * white)).reshape(-1)] = np.nan
        return np.asarray(out)

    steps = np.arange(-reach, reach + 1e-9, config.step_modules * module)
    shifts = np.array([(dx, dy) for dy in steps for dx in steps])
    scores = np.nan_to_num(cell_agreement(shifts).mean(axis=1), nan=-1.0)
    best = int(np.argmax(scores))
    far = np.linalg.norm(shifts - shifts[best], axis=1) >= module
    if scores[best] < config.min_agreement or (
        far.any() and scores[best] - scores[far].max() < config.min_peak_margin
    ):
        return None
    # the place, to a tenth of a pixel, by the steps between the cells' shades (a
    # cover of one shade has none, so it pulls the place nowhere, where the cells it
    # covers would pull it towards the shade it has)
    edges = _pattern_edges(expected, modules)
    shift = shifts[best].copy()
    shown = cell_agreement(shift[None, :])[0]
    if not np.isnan(shown).any():  # steps beside a cell that does not look as it should
        keep = (shown[edges.cells] >= config.shown_agreement).all(axis=1)
        if keep.sum() >= 8:
            edges = _Edges(
                edges.points[keep], edges.normals[keep], edges.signs[keep], edges.cells[keep]
            )
    at = _map(homography, edges.points)
    normals = _map(homography, edges.points + 0.05 / modules * edges.normals) - at
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
    gx = np.asarray(cv2.Sobel(linear, cv2.CV_32F, 1, 0, ksize=3) / 8.0, np.float32)
    gy = np.asarray(cv2.Sobel(linear, cv2.CV_32F, 0, 1, ksize=3) / 8.0, np.float32)

    def steps_across(shifts: FloatArray) -> FloatArray:
        """The picture's gradient across each of the pattern's steps, signed (positive
        where it goes the pattern's way), at each of ``shifts`` (shifts, steps)."""
        where = (at[None, :, :] + shifts[:, None, :]).reshape(-1, 2)
        g = np.stack([_bilinear(gx, where), _bilinear(gy, where)], axis=-1)
        across = np.sum(g.reshape(len(shifts), len(at), 2) * normals[None], axis=2)
        return np.asarray(edges.signs * across)

    # each step counts up to the strength of a typical one (a strong step of the cover's
    # outline does not outweigh the pattern's)
    scale = max(float(np.percentile(steps_across(shift[None, :])[0], 75)), 1e-6)
    half = config.step_modules * module  # the coarse step: the place is within it
    fine = np.arange(-half, half + 1e-9, config.fine_px)
    around = shift + np.array([(dx, dy) for dy in fine for dx in fine])
    shift = around[int(np.argmax(np.clip(steps_across(around) / scale, -1.0, 1.0).mean(axis=1)))]
    final = cell_agreement(shift[None, :])[0]
    if np.isnan(final).any() or float(np.mean(final[code])) < config.min_code_agreement:
        return None
    return CoveredMarker(
        marker_id, predicted + shift, float(np.mean(final)), float(np.mean(final[code]))
    )


@dataclass(frozen=True)
class _Edges:
    """Points on the steps between cells of different shades of a marker's pattern
    (unit square of its black square), the step's normal there and its sign (1 where
    the shade goes from black to white along the normal)."""

    points: FloatArray
    normals: FloatArray
    signs: FloatArray
    cells: NDArray[np.intp]
    """The two cells (flat indices) either side of each point."""


def _pattern_edges(expected: FloatArray, modules: int) -> _Edges:
    """The steps of ``expected`` (cells of the black square and the card's ring, 1
    white), three points along each cell side where the shade changes."""
    along = np.array([0.2, 0.5, 0.8])
    points, normals, signs, cells = [], [], [], []
    n = len(expected)
    for i in range(n):
        for j in range(n - 1):  # across x, between cells (i, j) and (i, j + 1)
            change = expected[i, j + 1] - expected[i, j]
            if change:
                for a in along:
                    points.append((j / modules, (i - 1 + a) / modules))
                    normals.append((1.0, 0.0))
                    signs.append(change)
                    cells.append((i * n + j, i * n + j + 1))
    for i in range(n - 1):
        for j in range(n):  # across y, between cells (i, j) and (i + 1, j)
            change = expected[i + 1, j] - expected[i, j]
            if change:
                for a in along:
                    points.append(((j - 1 + a) / modules, i / modules))
                    normals.append((0.0, 1.0))
                    signs.append(change)
                    cells.append((i * n + j, (i + 1) * n + j))
    return _Edges(np.array(points), np.array(normals), np.array(signs, np.float64), np.array(cells))
