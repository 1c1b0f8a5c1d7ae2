"""Real photographs of a printed grid board: where its grid lies, and what stands on
each intersection, read the way :mod:`vision.appearance` reads our games.

The photographs (``../shared/data/real-boards/``, see ``companion bench real-boards``)
are of a 19x19 Go board: not one of our games, but real light, lenses, shadows and JPEG.
Two stages, each a pure function:

1. :func:`find_grid` locates the 19x19 grid with no corners given: the print's thin
   dark lines (a black-hat filter), straight lines through them (Hough), split into the
   two directions of the grid; each direction's vanishing point makes the view affine,
   where the grid's lines are equally spaced and a comb of 19 teeth finds them; then
   every line is refitted to the lines seen along it, and the homography to the 361
   crossings of the fitted lines.
2. :func:`read_board` reads every intersection (empty, black or white) from the grid and
   the set's calibration (:func:`calibrate`: the bare board from an empty or early
   photo, each stone colour from a photo with stones on known points). The features are
   those of :mod:`vision.appearance` (distances in :func:`~vision.appearance_core.log_colour`
   space to the bare board and to each stone colour, after the light of the frame is
   fitted against the bare board) and the probabilities come from its conditional logit,
   with weights fitted (:func:`fit_board_weights`) on photos of other boards.

Board coordinates: the grid's intersection ``(row, column)`` lies at
``(MARGIN + column * CELL, MARGIN + row * CELL)`` board units, rows counted from the top
of the photo and columns from its left, as the label files count them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.arrays import array_of
from engines.observation import TableSchema
from vision.appearance import Example, Sampling, features, fit_light
from vision.appearance_core import (
    BARE_PX_PER_MM,
    OTHER,
    SHOWN_AT,
    SetAppearance,
    distance,
    fit_weights,
    linear,
    log_colour,
    probabilities,
    sample,
)
from vision.models import BoardModel
from vision.view import BoardView, in_picture

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

LINES = 19
"""Lines of the grid each way."""
CELL = 22.0
"""Board units between two lines: millimetres of a common Go board, so that the
appearance reader's sizes in millimetres keep their meaning."""
MARGIN = CELL / 2
"""Board units kept around the outer lines (half a cell: the stones on the edge)."""
BOARD_UNITS = (MARGIN * 2 + CELL * (LINES - 1),) * 2
VALUES = ("empty", "black", "white")
"""What an intersection holds; the label files write them ``.``, ``B`` and ``W``."""
LABEL_LETTERS = {".": "empty", "B": "black", "W": "white"}
KIND = "intersection"

WORKING_SIDE = 800
"""Photos are searched for their grid at this longer side (pixels)."""
LINE_FILTER_PX = 7
"""The black-hat filter's side at the working size: wider than a printed line, narrower
than a cell."""
SEARCH_HALF_CELL = 0.35
"""A line is looked for this share of a cell either side of where it is expected."""
CENTRED_SHARE = 0.1
"""A line counts as seen where its response peaks within this share of a cell of where
the grid puts it."""
REFINEMENTS = 3
MIN_LINE_POINTS = 6
"""A line seen at fewer of its samples keeps the position the rest of the grid gives it."""
SAMPLE_RADIUS = 0.3
"""Sample points of an intersection lie within this share of a cell of it: inside a stone
standing there, on the board's print when none does."""
SAMPLE_STEPS = 7
TURN_PX_PER_UNIT = 0.5
"""The board is compared with its calibration at this scale to find how it was turned."""
SMOOTHING = 0.1
"""Photos and the bare board are compared after a blur of this share of a cell, so that
a grid fitted a pixel or two off (a folded board is not quite flat) still puts a photo's
printed lines on the bare board's."""


class GridNotFound(ValueError):
    """No 19x19 grid could be located in a photo; the message says what was missing."""


class LabelError(ValueError):
    """A label file that is not 19 lines of 19 tokens among ``.``, ``B`` and ``W``."""


# --- the grid --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GridFit:
    """Where the grid lies in a photo.

    ``homography`` maps board units to the photo's pixels; ``corners`` are the four outer
    intersections (top-left, top-right, bottom-right, bottom-left of the photo) in pixels;
    ``line_support`` the share of the 38 lines' length where a printed line was seen
    where the fit puts it; ``residual_px`` the RMS distance of those line points to the
    fitted grid's lines (pixels of the photo)."""

    homography: FloatArray
    image_size: tuple[int, int]
    corners: FloatArray
    line_support: float
    residual_px: float

    def view(self, turn: int = 0) -> BoardView:
        """The grid as a :class:`BoardView` of board units, the board turned ``turn``
        quarter turns (see :func:`turned`)."""
        return BoardView(self.homography @ turned(turn), self.image_size, method="reference")

    def intersections(self) -> FloatArray:
        """Pixels of every intersection, (19, 19, 2) by row and column."""
        return project(self.homography, intersection_units().reshape(-1, 2)).reshape(
            LINES, LINES, 2
        )


def intersection_units() -> FloatArray:
    """Board units of every intersection, (19, 19, 2) by row and column."""
    steps = MARGIN + CELL * np.arange(LINES, dtype=np.float64)
    columns, rows = np.meshgrid(steps, steps)
    return np.stack([columns, rows], axis=-1)


def project(homography: NDArray[np.floating[Any]], points: FloatArray) -> FloatArray:
    homogeneous = np.column_stack([points, np.ones(len(points))]) @ homography.T
    return np.asarray(homogeneous[:, :2] / homogeneous[:, 2:3])


def turned(turn: int) -> FloatArray:
    """Board units of a board turned ``turn`` quarter turns clockwise about its centre,
    mapped to the unturned board's units (3x3)."""
    centre = BOARD_UNITS[0] / 2
    a = (turn % 4) * math.pi / 2
    c, s = round(math.cos(a)), round(math.sin(a))
    rotate = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    shift = np.array([[1.0, 0.0, centre], [0.0, 1.0, centre], [0.0, 0.0, 1.0]])
    back = np.array([[1.0, 0.0, -centre], [0.0, 1.0, -centre], [0.0, 0.0, 1.0]])
    return np.asarray(shift @ rotate @ back)


def line_response(gray: Image) -> Image:
    """How much each pixel looks like part of a thin dark printed line (black-hat)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (LINE_FILTER_PX, LINE_FILTER_PX))
    return np.asarray(cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel))


def _hough_families(response: Image) -> tuple[FloatArray, FloatArray]:
    """Straight lines through the printed lines, split into the grid's two directions,
    as (rho, theta) rows."""
    _, binary = cv2.threshold(response, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    h, w = response.shape
    found = cv2.HoughLines(binary, 1, np.pi / 360, int(min(h, w) * 0.25))
    if found is None or len(found) < 8:
        raise GridNotFound("too few straight lines in the photo")
    lines = found[:200, 0].astype(np.float64)
    doubled = np.column_stack([np.cos(2 * lines[:, 1]), np.sin(2 * lines[:, 1])])
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 1e-4)
    # No starting labels (None) with k-means++ centres; the stubs do not allow None.
    _, labels, _ = cv2.kmeans(
        doubled.astype(np.float32),
        2,
        None,  # type: ignore[call-overload]
        criteria,
        5,
        cv2.KMEANS_PP_CENTERS,
    )
    labels = labels.ravel()
    first, second = lines[labels == 0], lines[labels == 1]
    if min(len(first), len(second)) < 4:
        raise GridNotFound("the straight lines do not run in two directions")
    # The family of near-vertical lines (|cos theta| large) fixes the x positions.
    if np.mean(np.abs(np.cos(first[:, 1]))) < np.mean(np.abs(np.cos(second[:, 1]))):
        first, second = second, first
    return first, second


def _vanishing_point(lines: FloatArray) -> FloatArray:
    """Where a family of (rho, theta) lines meet, homogeneous (at infinity when parallel);
    lines far from the common point are dropped."""
    homogeneous = np.column_stack([np.cos(lines[:, 1]), np.sin(lines[:, 1]), -lines[:, 0]])
    point = np.zeros(3)
    for _ in range(4):
        _, _, vt = np.linalg.svd(homogeneous)
        point = vt[-1]
        residual = np.abs(homogeneous @ point)
        keep = residual <= 3.0 * np.median(residual) + 1e-12
        if keep.sum() < 3 or keep.all():
            break
        homogeneous = homogeneous[keep]
    return np.asarray(point)


def _affine_rectifier(
    vertical: FloatArray, horizontal: FloatArray, size: tuple[int, int]
) -> FloatArray:
    """A homography sending the vanishing point of the near-vertical lines to infinity
    along y and that of the near-horizontal lines along x: the grid's lines become
    upright, level and equally spaced."""
    w, h = size
    origin = np.array([w / 2, h / 2, 1.0])
    inverse = np.column_stack([_vanishing_point(horizontal), _vanishing_point(vertical), origin])
    if abs(np.linalg.det(inverse)) < 1e-12:
        raise GridNotFound("the grid's two directions meet at one point")
    forward = np.linalg.inv(inverse)
    # Scale and orient so that one pixel at the centre is about one unit, x right, y down.
    centre = origin[:2]
    step = project(
        forward, np.array([centre, centre + np.array([1.0, 0.0]), centre + np.array([0.0, 1.0])])
    )
    jacobian = np.column_stack([step[1] - step[0], step[2] - step[0]])
    scale = np.diag(
        [
            1.0 / max(float(np.linalg.norm(jacobian[0])), 1e-12),
            1.0 / max(float(np.linalg.norm(jacobian[1])), 1e-12),
            1.0,
        ]
    )
    if jacobian[0, 0] < 0:
        scale[0, 0] *= -1
    if jacobian[1, 1] < 0:
        scale[1, 1] *= -1
    return np.asarray(scale @ forward)


def _comb(profile: FloatArray) -> tuple[float, float]:
    """The offset and spacing of 19 equally spaced peaks in ``profile`` (the grid's lines
    seen across one direction): the spacing from the profile's autocorrelation, then both
    by the comb that best separates the lines from the middles between them."""
    n = len(profile)
    centred = profile - profile.mean()
    auto = np.correlate(centred, centred, mode="full")[n - 1 :]
    lo, hi = 6, max(7, n // (LINES - 1))
    if hi <= lo + 1:
        raise GridNotFound("the photo is too small for a 19x19 grid")
    lags = np.arange(lo, hi)
    peaks = [
        lag
        for lag in lags
        if auto[lag] >= auto[lag - 1] and auto[lag] >= auto[lag + 1] and auto[lag] > 0
    ]
    if not peaks:
        raise GridNotFound("the lines of the grid do not repeat evenly")
    rough = float(max(peaks, key=lambda lag: auto[lag]))
    teeth = np.arange(LINES, dtype=np.float64)
    positions = np.arange(n, dtype=np.float64)
    best = (-np.inf, 0.0, rough)
    for spacing in np.linspace(rough * 0.9, rough * 1.1, 41):
        offsets = np.arange(0.0, n - spacing * (LINES - 1) - 1, 0.5)
        if len(offsets) == 0:
            continue
        on = np.interp(offsets[:, None] + teeth * spacing, positions, profile)
        off = np.interp(offsets[:, None] + (teeth[:-1] + 0.5) * spacing, positions, profile)
        scores = on.sum(axis=1) - off.sum(axis=1) * LINES / (LINES - 1)
        k = int(np.argmax(scores))
        if scores[k] > best[0]:
            best = (float(scores[k]), float(offsets[k]), float(spacing))
    if not np.isfinite(best[0]):
        raise GridNotFound("no room for 19 lines in the photo")
    return best[1], best[2]


def _initial_grid(response: Image) -> FloatArray:
    """A first homography, board units to working pixels."""
    h, w = response.shape
    vertical, horizontal = _hough_families(response)
    rectifier = _affine_rectifier(vertical, horizontal, (w, h))
    corners = project(rectifier, np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))
    low = corners.min(axis=0)
    extent = corners.max(axis=0) - low
    limit = 3.0 * max(w, h)
    if not np.all(np.isfinite(extent)) or extent.max() > limit:
        # A steep view stretches the far side without bound: keep what lies near the photo.
        low = np.maximum(low, -limit / 2)
        extent = np.minimum(corners.max(axis=0), limit / 2) - low
    shift = np.array([[1.0, 0.0, -low[0]], [0.0, 1.0, -low[1]], [0.0, 0.0, 1.0]])
    warp = shift @ rectifier
    canvas = (math.ceil(extent[0]) + 1, math.ceil(extent[1]) + 1)
    flat = cv2.warpPerspective(
        response.astype(np.float32), warp, canvas, flags=cv2.INTER_LINEAR, borderValue=-1.0
    )
    seen = flat >= 0
    flat = np.where(seen, flat, 0.0)
    columns = flat.sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
    rows = flat.sum(axis=1) / np.maximum(seen.sum(axis=1), 1)
    x0, sx = _comb(columns.astype(np.float64))
    y0, sy = _comb(rows.astype(np.float64))
    to_flat = np.array(
        [
            [sx / CELL, 0.0, x0 - MARGIN * sx / CELL],
            [0.0, sy / CELL, y0 - MARGIN * sy / CELL],
            [0.0, 0.0, 1.0],
        ]
    )
    return np.asarray(np.linalg.inv(warp) @ to_flat)


def _line_profile(
    response: Image, homography: FloatArray, direction: int, position: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Along the grid line at ``position`` board units (``direction`` 0: a row, 1: a
    column): the search offsets across it, the line response at each offset and sample
    along it (across, along), and their pixels."""
    h, w = response.shape
    along = MARGIN + np.linspace(0.0, CELL * (LINES - 1), 4 * (LINES - 1) + 1)
    across = np.linspace(-SEARCH_HALF_CELL, SEARCH_HALF_CELL, 15) * CELL
    grid_a, grid_b = np.meshgrid(along, position + across)
    units = (
        np.stack([grid_a, grid_b], axis=-1)
        if direction == 0
        else np.stack([grid_b, grid_a], axis=-1)
    )
    pixels = project(homography, units.reshape(-1, 2)).reshape(len(across), len(along), 2)
    values = sample(response.astype(np.float32), pixels.reshape(-1, 2).astype(np.float32)).reshape(
        len(across), len(along)
    )
    inside = in_picture(pixels, (w, h))
    return across, np.where(inside, values, 0.0), pixels


def _line_evidence(
    response: Image, homography: FloatArray, direction: int, index: float, threshold: float
) -> float:
    """The share of a line's length where a printed line is seen right where the grid
    puts line ``index`` (rows or columns; indices outside 0-18 look beyond the grid)."""
    across, values, _ = _line_profile(response, homography, direction, MARGIN + CELL * index)
    best = values.argmax(axis=0)
    peak = values[best, np.arange(values.shape[1])]
    centred = np.abs(across[best]) <= CELL * CENTRED_SHARE
    return float(np.mean(centred & (peak > threshold)))


def _shift_to_lines(
    response: Image, homography: FloatArray, threshold: float
) -> tuple[FloatArray, bool]:
    """Move the grid by whole lines where the 19 consecutive lines with the most
    evidence are not the ones it covers (the comb found the grid's spacing but not which
    run of lines is the grid)."""
    shifts = []
    for direction in (0, 1):
        evidence = [
            _line_evidence(response, homography, direction, index, threshold)
            for index in range(-2, LINES + 2)
        ]
        sums = [sum(evidence[start : start + LINES]) for start in range(5)]
        shifts.append(int(np.argmax(sums)) - 2)
    if shifts == [0, 0]:
        return homography, False
    move = np.array([[1.0, 0.0, CELL * shifts[1]], [0.0, 1.0, CELL * shifts[0]], [0.0, 0.0, 1.0]])
    return np.asarray(homography @ move), True


def _nearest_peak(across: FloatArray, values: FloatArray, threshold: float) -> NDArray[np.intp]:
    """Per sample along a line, the index across it of the response's peak nearest to
    where the line is expected (a border line printed beside the grid can be darker than
    the grid's own outer line); the strongest value where no peak passes ``threshold``."""
    inner = values[1:-1]
    peaks = (inner >= values[:-2]) & (inner >= values[2:]) & (inner > threshold)
    distance_to = np.where(peaks, np.abs(across[1:-1])[:, None], np.inf)
    nearest = distance_to.argmin(axis=0) + 1
    return np.asarray(np.where(peaks.any(axis=0), nearest, values.argmax(axis=0)))


def _refit(
    response: Image, homography: FloatArray, threshold: float
) -> tuple[FloatArray, float, float]:
    """Refit every line of the grid to the printed line seen along it; return the
    homography to the crossings of the fitted lines, the share of samples where a line
    was seen, and the RMS distance of the seen points to the new grid's lines."""
    fitted: dict[tuple[int, int], FloatArray] = {}
    points_of: dict[tuple[int, int], FloatArray] = {}
    seen_count = 0
    total = 0
    for direction in (0, 1):  # 0: rows (lines of constant y), 1: columns
        for index in range(LINES):
            across, values, pixels = _line_profile(
                response, homography, direction, MARGIN + CELL * index
            )
            along = np.arange(values.shape[1])
            best = _nearest_peak(across, values, threshold)
            peak = values[best, along]
            good = peak > threshold
            total += len(along)
            seen_count += int(good.sum())
            if good.sum() < MIN_LINE_POINTS:
                # Hidden (stones, glare): the line stays where its neighbours put it.
                chosen = pixels[len(values) // 2]
            else:
                chosen = pixels[best[good], along[good]]
            line = cv2.fitLine(chosen.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
            vx, vy, x0, y0 = (float(v) for v in np.asarray(line).ravel())
            fitted[(direction, index)] = np.cross([x0, y0, 1.0], [x0 + vx, y0 + vy, 1.0])
            points_of[(direction, index)] = chosen
    grid_units, crossings = [], []
    for row in range(LINES):
        for column in range(LINES):
            point = np.cross(fitted[(0, row)], fitted[(1, column)])
            if abs(point[2]) < 1e-12:
                raise GridNotFound("two lines of the grid do not cross")
            crossings.append(point[:2] / point[2])
            grid_units.append((MARGIN + CELL * column, MARGIN + CELL * row))
    found, _ = cv2.findHomography(np.array(grid_units), np.array(crossings), 0)
    if found is None:
        raise GridNotFound("the crossings of the grid's lines fit no view")
    new = array_of(np.float64, found)
    residuals = []
    for (direction, index), points in points_of.items():
        units = project(np.linalg.inv(new), points)
        residuals.append(units[:, 1 - direction] - (MARGIN + CELL * index))
    spread = np.concatenate(residuals)
    # Board units to pixels near the grid's centre, for a residual in pixels.
    middle = BOARD_UNITS[0] / 2
    centre = project(new, np.array([[middle, middle], [middle + 1.0, middle]]))
    px_per_unit = float(np.linalg.norm(centre[1] - centre[0]))
    rms = float(np.sqrt(np.mean(np.clip(spread, -CELL, CELL) ** 2))) * px_per_unit
    return np.asarray(new), seen_count / max(total, 1), rms


SIGN_TEST_LEVEL = 1e-3
"""A grid is accepted when its lines beat the middles between them more often than chance
would allow at this level (a sign test over the 38 lines)."""


def _check_printed(response: Image, homography: FloatArray, threshold: float) -> None:
    """Raise ``GridNotFound`` unless the fitted lines show a printed line more often than
    the middles half a cell beside them: a sign test over the 38 lines, so that a photo
    with no grid (where any comb fits noise) is refused."""
    wins = 0
    for direction in (0, 1):
        for index in range(LINES):
            on = _line_evidence(response, homography, direction, index, threshold)
            side = index + (0.5 if index < LINES - 1 else -0.5)
            off = _line_evidence(response, homography, direction, side, threshold)
            wins += on > off
    lines = 2 * LINES
    needed = next(
        k
        for k in range(lines + 1)
        if sum(math.comb(lines, j) for j in range(k, lines + 1)) / 2**lines < SIGN_TEST_LEVEL
    )
    if wins < needed:
        raise GridNotFound(
            f"no printed grid: its lines show more than the middles beside "
            f"them on only {wins} of {lines} lines"
        )


def find_grid(image: Image) -> GridFit:
    """Locate the 19x19 grid of a photo, with no corners given. Raises ``GridNotFound``
    when the photo shows no such grid."""
    h, w = image.shape[:2]
    scale = min(1.0, WORKING_SIDE / max(h, w))
    small = (
        image
        if scale == 1.0
        else cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    )
    gray = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    response = line_response(np.asarray(gray, dtype=np.uint8))
    threshold, _ = cv2.threshold(response, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    homography, _ = _shift_to_lines(response, _initial_grid(response), float(threshold))
    support, rms = 0.0, 0.0
    for _ in range(REFINEMENTS):
        homography, support, rms = _refit(response, homography, float(threshold))
        homography, moved = _shift_to_lines(response, homography, float(threshold))
        if moved:
            homography, support, rms = _refit(response, homography, float(threshold))
    _check_printed(response, homography, float(threshold))
    to_photo = np.diag([1.0 / scale, 1.0 / scale, 1.0])
    full = np.asarray(to_photo @ homography)
    full = full / full[2, 2]
    outer = np.array(
        [
            [MARGIN, MARGIN],
            [MARGIN + CELL * (LINES - 1), MARGIN],
            [MARGIN + CELL * (LINES - 1)] * 2,
            [MARGIN, MARGIN + CELL * (LINES - 1)],
        ]
    )
    return GridFit(full, (w, h), project(full, outer), support, rms / scale)


def read_photo(path: str | Path) -> Image:
    """A photo's pixels as stored (BGR), its EXIF orientation ignored: labels count rows
    and columns of the stored pixels, and OpenCV would otherwise turn the picture.
    Raises ``FileNotFoundError`` when it is missing or not a picture."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise FileNotFoundError(f"{path} is missing or not a picture")
    return np.asarray(image, dtype=np.uint8)


# --- labels ----------------------------------------------------------------------------------


def parse_labels(text: str, source: str) -> tuple[tuple[str, ...], ...]:
    """A label file's 19 rows of 19 values (:data:`VALUES`), top row of the photo first.
    Raises ``LabelError``."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    if len(rows) != LINES or any(len(row) != LINES for row in rows):
        raise LabelError(f"{source}: expected {LINES} lines of {LINES} tokens")
    try:
        return tuple(tuple(LABEL_LETTERS[token] for token in row) for row in rows)
    except KeyError as error:
        raise LabelError(f"{source}: unknown token {error.args[0]!r}") from None


def read_labels(path: str | Path) -> tuple[tuple[str, ...], ...]:
    """The labels of ``path`` (a ``.txt`` beside its photo). Raises ``LabelError``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LabelError(f"{path}: {error}") from None
    return parse_labels(text, str(path))


# --- the set's appearance --------------------------------------------------------------------


def sample_offsets() -> FloatArray:
    """Sample offsets around an intersection (board units): a disc of points."""
    steps = np.linspace(-SAMPLE_RADIUS, SAMPLE_RADIUS, SAMPLE_STEPS) * CELL
    u, v = np.meshgrid(steps, steps)
    keep = u**2 + v**2 <= (SAMPLE_RADIUS * CELL) ** 2 + 1e-9
    return np.column_stack([u[keep], v[keep]])


def _points(turn: int) -> tuple[FloatArray, NDArray[np.intp]]:
    """Every sample point in the calibration board's units, for a photo whose board is
    turned ``turn`` quarter turns from the calibration; and each point's intersection
    (row * 19 + column, in the photo's own order)."""
    offsets = sample_offsets()
    centres = project(np.linalg.inv(turned(turn)), intersection_units().reshape(-1, 2))
    points = (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    owner = np.repeat(np.arange(LINES * LINES), len(offsets))
    return points, owner.astype(np.intp)


def _smoothed(frame: Image, view: BoardView) -> Image:
    """``frame`` blurred by ``SMOOTHING`` of a cell at the board's centre."""
    middle = BOARD_UNITS[0] / 2
    centre = view.to_image(np.array([[middle, middle], [middle + CELL, middle]]))
    sigma = SMOOTHING * float(np.linalg.norm(centre[1] - centre[0]))
    if sigma <= 0:
        return frame
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), sigma), dtype=np.uint8)


def _seen(
    frame: Image, view: BoardView, appearance: SetAppearance, points: FloatArray
) -> FloatArray:
    """Log colour of ``frame`` (already smoothed) at board points, with the frame's light
    (against the bare board) taken off, as :func:`vision.appearance.features` sees it."""
    light = fit_light(frame, view, appearance, BOARD_UNITS)
    pixels = view.to_image(points).astype(np.float32)
    seen = log_colour(linear(np.asarray(sample(frame, pixels), dtype=np.uint8)))
    return np.asarray(seen - light.at(points))


def bare_board(
    empty: Image, fit: GridFit, labels: Sequence[Sequence[str]] | None = None
) -> NDArray[np.float32]:
    """The board without stones from above (linear light, ``BARE_PX_PER_MM`` pixels a
    board unit). Where ``labels`` put stones on the photo, the median look of the empty
    intersections stands in for what they hide."""
    view = fit.view()
    bare = linear(view.rectify(_smoothed(empty, view), BOARD_UNITS, BARE_PX_PER_MM))
    if labels is None or all(v == "empty" for row in labels for v in row):
        return bare
    half = round(0.6 * CELL * BARE_PX_PER_MM)
    centres = np.rint(intersection_units() * BARE_PX_PER_MM).astype(int)
    patches = []
    occupied = []
    h, w = bare.shape[:2]
    for row in range(LINES):
        for column in range(LINES):
            x, y = centres[row, column]
            if not (half <= x < w - half and half <= y < h - half):
                continue
            patch = bare[y - half : y + half, x - half : x + half]
            if labels[row][column] != "empty":
                occupied.append((y, x))
            elif (
                0 < row < LINES - 1
                and 0 < column < LINES - 1
                and all(
                    labels[r][c] == "empty"
                    for r in range(row - 1, row + 2)
                    for c in range(column - 1, column + 2)
                )
            ):
                patches.append(patch)
    if not patches:
        raise LabelError("the calibration photo shows no empty inner intersection")
    typical = np.median(np.stack(patches), axis=0).astype(np.float32)
    filled = bare.copy()
    for y, x in occupied:
        filled[y - half : y + half, x - half : x + half] = typical
    return filled


def best_turn(frame: Image, fit: GridFit, bare: NDArray[np.float32]) -> int:
    """How many quarter turns the board in ``frame`` lies from the calibration's: the
    turn under which the frame seen from above looks most like the bare board (the
    board's seam, grain and marks; stones are outliers of the median)."""
    size = bare.shape[1], bare.shape[0]
    small = (
        round(size[0] * TURN_PX_PER_UNIT / BARE_PX_PER_MM),
        round(size[1] * TURN_PX_PER_UNIT / BARE_PX_PER_MM),
    )
    reference = log_colour(
        array_of(np.float32, cv2.resize(bare, small, interpolation=cv2.INTER_AREA))
    )
    scores = []
    for turn in range(4):
        seen = fit.view(turn).rectify(frame, BOARD_UNITS, TURN_PX_PER_UNIT)
        difference = log_colour(linear(seen)) - reference
        difference -= np.median(difference.reshape(-1, 3), axis=0)
        scores.append(float(np.median(distance(difference, np.zeros(3)))))
    return int(np.argmin(scores))


def calibrate(
    empty: Image,
    empty_fit: GridFit,
    pieces: Sequence[tuple[Image, GridFit, Sequence[Sequence[str]]]],
    empty_labels: Sequence[Sequence[str]] | None = None,
    game: str = "go",
) -> SetAppearance:
    """The set's appearance: the bare board from the ``empty`` photo (stones its
    ``empty_labels`` show are filled in, see :func:`bare_board`), and each stone colour
    from ``pieces``, photos with their grids and labels. Raises ``LabelError`` when
    neither colour's stones are shown."""
    appearance = SetAppearance(game, bare_board(empty, empty_fit, empty_labels), {})
    gathered: dict[str, list[FloatArray]] = {}
    for frame, fit, labels in pieces:
        turn = best_turn(frame, fit, appearance.bare)
        points, owner = _points(turn)
        view = fit.view(turn)
        seen = _seen(_smoothed(frame, view), view, appearance, points)
        flat = [value for row in labels for value in row]
        for index, value in enumerate(flat):
            if value != "empty":
                gathered.setdefault(value, []).append(seen[owner == index])
    if not gathered:
        raise LabelError("no stone on the calibration photos")
    appearance.colours[KIND] = {
        value: np.median(np.vstack(parts), axis=0) for value, parts in gathered.items()
    }
    return appearance


# --- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardFeatures:
    """Every intersection's alternatives (:data:`VALUES` that the set shows, then
    ``OTHER``) and their feature rows (``vision.appearance_core.FEATURES``), in the photo's
    row order."""

    alternatives: tuple[str, ...]
    rows: FloatArray  # (361, alternatives, features)
    turn: int


ELEMENTS = tuple(f"{row + 1}-{column + 1}" for row in range(LINES) for column in range(LINES))
"""The intersections as elements of the appearance reader, row by row ("row-column")."""
SCHEMA = TableSchema("go", ELEMENTS, dict.fromkeys(ELEMENTS, frozenset(VALUES)))
MODEL = BoardModel("go", BOARD_UNITS, {}, {})


def board_features(frame: Image, fit: GridFit, appearance: SetAppearance) -> BoardFeatures:
    """The feature rows of every intersection of ``frame``, from
    :func:`vision.appearance.features` itself (the photo smoothed first)."""
    turn = best_turn(frame, fit, appearance.bare)
    points, owner = _points(turn)
    view = fit.view(turn)
    pixels = view.to_image(points)
    inside = in_picture(pixels, fit.image_size)
    sampling = Sampling(
        ELEMENTS, (KIND,) * len(ELEMENTS), owner, pixels.astype(np.float32), points, inside
    )
    items = features(_smoothed(frame, view), view, appearance, MODEL, sampling, SCHEMA)
    alternatives = tuple(str(v) for v in items[0].values)
    return BoardFeatures(alternatives, np.stack([item.rows for item in items]), turn)


def board_examples(features: BoardFeatures, labels: Sequence[Sequence[str]]) -> list[Example]:
    """Labelled examples of every intersection, for :func:`fit_board_weights`."""
    flat = [value for row in labels for value in row]
    return [
        Example(KIND, features.rows[index], features.alternatives.index(value))
        for index, value in enumerate(flat)
        if value in features.alternatives
    ]


def fit_board_weights(examples: Sequence[Example]) -> FloatArray:
    """The conditional logit's weights from labelled intersections
    (:func:`vision.appearance_core.fit_weights`)."""
    if not examples:
        raise ValueError("no labelled intersection to fit weights on")
    return fit_weights(examples)


@dataclass(frozen=True)
class BoardReading:
    """Every intersection's reading: the most likely value and its probability, or
    ``None`` where the reader abstains (below ``SHOWN_AT``, or *something else*)."""

    values: tuple[tuple[str | None, ...], ...]
    confidence: FloatArray  # (19, 19) probability of the most likely value
    best: tuple[tuple[str, ...], ...]  # the most likely alternative, abstained or not


def read_board(
    frame: Image, fit: GridFit, appearance: SetAppearance, weights: FloatArray
) -> BoardReading:
    """Read every intersection of ``frame`` from its grid and the set's calibration."""
    return reading_of(board_features(frame, fit, appearance), weights)


def reading_of(features: BoardFeatures, weights: FloatArray) -> BoardReading:
    """The reading of intersections from their features and the logit's weights."""
    values: list[str | None] = []
    best: list[str] = []
    confidence = np.zeros(LINES * LINES)
    for index in range(LINES * LINES):
        p = probabilities(weights, features.rows[index])
        top = int(np.argmax(p))
        value = features.alternatives[top]
        best.append(value)
        confidence[index] = float(p[top])
        values.append(value if value != OTHER and p[top] >= SHOWN_AT else None)
    return BoardReading(_rows_of(values), confidence.reshape(LINES, LINES), _rows_of(best))


def _rows_of(items: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple(items[r * LINES : (r + 1) * LINES]) for r in range(LINES))


# --- checking the grid -----------------------------------------------------------------------

CHECK_HALF_CELL = 0.3
"""How far either side of an intersection its printed lines are looked for when the grid
is checked."""


def crossing_offsets(image: Image, fit: GridFit, labels: Sequence[Sequence[str]]) -> FloatArray:
    """How far (pixels of the photo) each printed crossing lies from where the grid puts
    it, for every intersection that the labels leave empty with all its neighbours empty
    (stones hide lines): rows of (row, column, error). Each line through the
    intersection is found on its own, as the darkest line across a short stretch of the
    photo (sub-pixel), so the check does not reuse the fit's line points."""
    gray = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.float32)
    steps = np.linspace(-CHECK_HALF_CELL, CHECK_HALF_CELL, 25) * CELL
    across, along = np.meshgrid(steps, steps, indexing="ij")  # (across, along)
    units = intersection_units()
    out = []
    for row in range(LINES):
        for column in range(LINES):
            neighbours = [
                labels[r][c]
                for r in range(max(0, row - 1), min(LINES, row + 2))
                for c in range(max(0, column - 1), min(LINES, column + 2))
            ]
            if any(v != "empty" for v in neighbours):
                continue
            centre = units[row, column]
            found = []
            for direction in (0, 1):  # 0: the column line (x across), 1: the row line
                offsets = (
                    np.stack([across, along], axis=-1)
                    if direction == 0
                    else np.stack([along, across], axis=-1)
                )
                pixels = project(fit.homography, (centre + offsets).reshape(-1, 2))
                values = sample(gray, pixels.astype(np.float32)).reshape(across.shape)
                profile = values.mean(axis=1)
                k = int(np.argmin(profile))
                shift = 0.0
                if 0 < k < len(profile) - 1:
                    a, b, c = profile[k - 1], profile[k], profile[k + 1]
                    bend = a - 2 * b + c
                    shift = 0.5 * (a - c) / bend if bend > 0 else 0.0
                found.append(steps[k] + shift * (steps[1] - steps[0]))
            seen = project(fit.homography, np.array([centre + np.array(found), centre]))
            out.append((row, column, float(np.linalg.norm(seen[0] - seen[1]))))
    return np.array(out, dtype=np.float64).reshape(-1, 3)
