"""Board registration: where the board lies in the camera image.

A :class:`BoardProfile` holds the homography from the board plane (millimetres, from the
board's top-left corner) to *ideal* image pixels: the camera's pixels with the lens
distortion removed when a camera profile is in use (then the model is exact for a flat
board), raw pixels otherwise. Two ways to make one:

- ``markers``: the ArUco markers stuck at the board's corners are found and fitted
  (:func:`register_with_markers`);
- ``reference``: a photograph of the empty board without markers; its outline is found
  (or given) and the photograph is kept, so later frames are matched to it by their
  features (:func:`register_with_outline`).

:func:`check_registration` measures, on a new frame, how far (in mm on the board) what
is seen lies from where the stored registration puts it; :func:`draw_overlay` draws the
board model over the frame.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.arrays import array_of
from calibration.boards import BoardGeometry, geometry_from_json, load_boards, model_polylines
from calibration.config import RegistrationConfig
from calibration.errors import FitError, NotFoundError, ProfileError
from calibration.intrinsics import (
    CameraProfile,
    check_image_size,
    distort_points,
    undistort_image,
    undistort_points,
)
from calibration.profiles import KIND_BOARD, Fields, now_iso, read_document, save_document
from calibration.srgb import linear_light
from calibration.targets import aruco_dictionary

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]
METHODS = ("markers", "reference")


@dataclass(frozen=True)
class BoardProfile:
    """A registered board: what ``companion calibrate board`` stores."""

    game: str
    method: str
    image_size: tuple[int, int]
    homography: tuple[tuple[float, ...], ...]
    camera: str | None
    fit_rms_mm: float
    markers_seen: tuple[int, ...]
    geometry: BoardGeometry
    reference_sha256: str | None
    created: str

    @property
    def matrix(self) -> FloatArray:
        return np.array(self.homography, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "game": self.game,
            "method": self.method,
            "image_size": list(self.image_size),
            "homography": [list(row) for row in self.homography],
            "homography_maps": "board mm to ideal pixels (lens distortion removed with the "
            "camera profile)"
            if self.camera
            else "board mm to pixels",
            "camera_profile": self.camera,
            "fit_rms_mm": self.fit_rms_mm,
            "markers_seen": list(self.markers_seen),
            "geometry": self.geometry.to_json(),
            "reference_sha256": self.reference_sha256,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: Path | str) -> BoardProfile:
        """Check every field; raises ``ProfileError`` naming the first bad one."""
        fields = Fields(data, source, "board profile")
        game = fields.string("game")
        method = fields.string("method", METHODS)
        homography = fields.matrix("homography", 3, 3)
        if abs(np.linalg.det(np.array(homography))) < 1e-12:
            raise fields.fail("homography", "is singular")
        camera = fields.get("camera_profile")
        if camera is not None and not isinstance(camera, str):
            raise fields.fail("camera_profile", "is neither null nor text")
        seen = fields.get("markers_seen")
        if not isinstance(seen, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in seen
        ):
            raise fields.fail("markers_seen", "is not a list of marker ids")
        reference = fields.get("reference_sha256")
        if method == "reference" and not isinstance(reference, str):
            raise fields.fail("reference_sha256", "is missing for a reference-image board")
        try:
            geometry = geometry_from_json(game, fields.get("geometry"))
        except ValueError as error:
            raise fields.fail("geometry", f"is inconsistent ({error})") from None
        return cls(
            game,
            method,
            fields.size("image_size"),
            homography,
            camera,
            fields.number("fit_rms_mm", 0.0),
            tuple(seen),
            geometry,
            reference if isinstance(reference, str) else None,
            fields.string("created"),
        )


@dataclass(frozen=True)
class BoardRegistration:
    """The outcome of a registration: the profile, and warnings for the user."""

    profile: BoardProfile
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class RegistrationCheck:
    """A registration checked on a frame: RMS and largest distance in mm on the board
    between what is seen and where the stored registration puts it, over ``points``
    points (marker corners or matched features), and what was seen."""

    rms_mm: float
    max_mm: float
    points: int
    seen: str


def ideal_image(camera: CameraProfile | None, image: Image) -> Image:
    """``image`` with the lens distortion removed when a camera profile is given."""
    return image if camera is None else undistort_image(camera, image)


def _ideal_points(camera: CameraProfile | None, pixels: FloatArray) -> FloatArray:
    return pixels if camera is None else undistort_points(camera, pixels)


def _apply(homography: NDArray[np.floating[Any]], points: FloatArray) -> FloatArray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, homography).reshape(-1, 2))


def board_to_image(
    profile: BoardProfile, camera: CameraProfile | None, points_mm: FloatArray
) -> FloatArray:
    """Image pixels (lens distortion included) of board points in mm, (N, 2)."""
    ideal = _apply(profile.matrix, points_mm)
    return ideal if camera is None else distort_points(camera, ideal)


def image_to_board(
    profile: BoardProfile, camera: CameraProfile | None, pixels: FloatArray
) -> FloatArray:
    """Board millimetres of image pixels, (N, 2)."""
    return _apply(np.linalg.inv(profile.matrix), _ideal_points(camera, pixels))


def detect_markers(
    config: RegistrationConfig,
    dictionary: str,
    image: Image,
    camera: CameraProfile | None = None,
    *,
    min_side_px: float = 0.0,
    refine: bool = True,
) -> dict[int, FloatArray]:
    """Every ArUco marker of ``dictionary`` in ``image``: id -> the corners of its black
    square (4, 2), in ArUco's order (the marker's top-left first). Corners are ideal
    pixels (lens distortion removed) when ``camera`` is given, raw pixels otherwise.

    OpenCV's own corner refinements are biased inwards by 0.4 to 1 px on small
    markers (they treat a square's corner like a chessboard crossing); here each side
    is refitted as a straight line through sub-pixel edge points, found in linear light
    so that blur does not move them, and the corners are the lines' crossings
    (``refine=False``: OpenCV's outline as it is, for a first look).

    ``min_side_px``: squares whose outline is shorter than four such sides are not
    considered (an image cut round a marker of known size): OpenCV's minimum is a share
    of the image's size, so in a small image it would examine every tiny square.
    """
    grey = image if image.ndim == 2 else array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    parameters.perspectiveRemovePixelPerCell = config.marker_cell_px
    parameters.perspectiveRemoveIgnoredMarginPerCell = config.marker_cell_margin
    if min_side_px > 0.0:
        parameters.minMarkerPerimeterRate = max(
            parameters.minMarkerPerimeterRate, 4.0 * min_side_px / max(grey.shape[:2])
        )
    aruco = aruco_dictionary(dictionary)
    corners, ids, _ = cv2.aruco.ArucoDetector(aruco, parameters).detectMarkers(grey)
    if ids is None:
        return {}
    if not refine:
        return {
            int(marker_id): _ideal_points(camera, coarse.reshape(4, 2).astype(np.float64))
            for marker_id, coarse in zip(ids.reshape(-1), corners, strict=True)
        }
    linear = linear_light(grey)
    modules = aruco.markerSize + 2
    found = {}
    for marker_id, coarse in zip(ids.reshape(-1), corners, strict=True):
        refined = _refine_square(linear, coarse.reshape(4, 2).astype(np.float64), modules, camera)
        if refined is not None:
            found[int(marker_id)] = refined
        else:
            coarse_px = coarse.reshape(4, 2).astype(np.float64)
            found[int(marker_id)] = _ideal_points(camera, coarse_px)
    return found


# Edge points are sought this far (in modules of the marker) either side of the coarse
# side: the black border and the white margin are each one module wide at least.
_EDGE_SEARCH_MODULES = 0.45
# Steps of the edge profile, in pixels.
_EDGE_STEP_PX = 0.25
# Near a corner the edge bends round: only the middle of each side is used.
_EDGE_SIDE_MARGIN = 0.12
# A profile must rise by this much (linear light, 0..1) from the black border to the white
# margin to be an edge, not shadow or glare.
_EDGE_MIN_CONTRAST = 0.08


def _bilinear(image: NDArray[np.float32], points: FloatArray) -> FloatArray:
    """``image`` sampled at (N, 2) pixel positions; exact bilinear, no quantisation."""
    x = np.clip(points[:, 0], 0.0, image.shape[1] - 1.001)
    y = np.clip(points[:, 1], 0.0, image.shape[0] - 1.001)
    x0, y0 = np.floor(x).astype(np.intp), np.floor(y).astype(np.intp)
    fx, fy = x - x0, y - y0
    top = image[y0, x0] * (1.0 - fx) + image[y0, x0 + 1] * fx
    bottom = image[y0 + 1, x0] * (1.0 - fx) + image[y0 + 1, x0 + 1] * fx
    return np.asarray(top * (1.0 - fy) + bottom * fy, dtype=np.float64)


def _refine_square(
    linear: NDArray[np.float32], coarse: FloatArray, modules: int, camera: CameraProfile | None
) -> FloatArray | None:
    """The corners of a dark square on a light margin, refitted from its four edges;
    ``None`` when an edge cannot be measured (the caller keeps the coarse corners). The
    search sizes follow from the marker's own size in the image."""
    side_px = float(np.mean(np.linalg.norm(coarse - np.roll(coarse, -1, axis=0), axis=1)))
    half = _EDGE_SEARCH_MODULES * side_px / modules
    offsets = np.arange(-half, half + 1e-9, _EDGE_STEP_PX)
    if len(offsets) < 5:
        return None
    lines = []
    for i in range(4):
        a, b = coarse[i], coarse[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / length
        outward = np.array([direction[1], -direction[0]])
        ts = np.linspace(_EDGE_SIDE_MARGIN, 1.0 - _EDGE_SIDE_MARGIN, max(6, int(length)))
        base = a + np.outer(ts * length, direction)
        samples = base[:, None, :] + offsets[None, :, None] * outward
        profiles = _bilinear(linear, samples.reshape(-1, 2)).reshape(len(ts), len(offsets))
        dark = profiles[:, :2].mean(axis=1)
        light = profiles[:, -2:].mean(axis=1)
        usable = light - dark > _EDGE_MIN_CONTRAST
        if usable.sum() < 4:
            return None
        points = []
        for row, lo, hi, base_point in zip(
            profiles[usable], dark[usable], light[usable], base[usable], strict=True
        ):
            level = (lo + hi) / 2.0
            above = np.nonzero(row >= level)[0]
            if len(above) == 0 or above[0] == 0:
                continue
            k = above[0]
            fraction = (level - row[k - 1]) / max(row[k] - row[k - 1], 1e-9)
            offset = offsets[k - 1] + fraction * _EDGE_STEP_PX
            points.append(base_point + offset * outward)
        if len(points) < 4:
            return None
        edge = _ideal_points(camera, np.array(points))
        vx, vy, x0, y0 = cv2.fitLine(edge.astype(np.float32), cv2.DIST_L2, 0, 0.001, 0.001).reshape(
            -1
        )
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    return square_corners(lines)


def square_corners(sides: Sequence[tuple[FloatArray, FloatArray]]) -> FloatArray | None:
    """The corners of a quadrilateral from its four sides in order, each a line (a
    point, a direction): corner ``i`` where side ``i - 1`` meets side ``i``. ``None``
    when two neighbouring sides are parallel."""
    corners = []
    for i in range(4):
        (p, u), (q, v) = sides[i - 1], sides[i]
        matrix = np.column_stack([u, -v])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return None
        t = np.linalg.solve(matrix, q - p)
        corners.append(p + t[0] * u)
    return np.array(corners)


def _board_markers(
    config: RegistrationConfig,
    geometry: BoardGeometry,
    image: Image,
    camera: CameraProfile | None,
) -> tuple[FloatArray, FloatArray, list[int], list[int]]:
    """The game's marker corners seen in ``image``: board mm, ideal pixels, the ids
    seen, and the ids of other markers of the dictionary."""
    found = detect_markers(config, geometry.dictionary, image, camera)
    ids = sorted(i for i in found if i in geometry.marker_ids)
    others = sorted(i for i in found if i not in geometry.marker_ids)
    if not ids:
        return np.empty((0, 2)), np.empty((0, 2)), ids, others
    board = np.vstack([geometry.marker_corners_mm(i) for i in ids])
    pixels = np.vstack([found[i] for i in ids])
    return board, pixels, ids, others


def _missing_markers_message(
    geometry: BoardGeometry, ids: list[int], others: list[int], need: int
) -> str:
    wanted = ", ".join(str(i) for i in geometry.marker_ids)
    message = (
        f"only {len(ids)} of the {geometry.name} board's markers ({wanted}) are "
        f"visible; need {need}"
    )
    if others:
        owners = sorted({g for g, b in load_boards().items() for i in others if i in b.marker_ids})
        message += f"; markers {', '.join(map(str, others))} were seen"
        if owners:
            message += f" (they belong to {', '.join(owners)}: is --game right?)"
    return message + ". Make sure the markers are stuck on, uncovered and in the picture"


def _residual_mm(
    homography: FloatArray,
    board_mm: FloatArray,
    ideal_px: FloatArray,
) -> FloatArray:
    """Distances in mm on the board between known points and where ``homography``
    sends their seen pixels back."""
    back = _apply(np.linalg.inv(homography), ideal_px)
    return np.asarray(np.linalg.norm(back - board_mm, axis=1))


def register_with_markers(
    config: RegistrationConfig, geometry: BoardGeometry, image: Image, camera: CameraProfile | None
) -> BoardRegistration:
    """Register the board from its corner markers in ``image``.

    Raises ``NotFoundError`` when fewer than ``config.min_markers`` of the game's
    markers are seen (naming markers of other games that were), ``ProfileError`` when
    the image is not the camera profile's size.
    """
    if camera is not None:
        check_image_size(camera, image, "the board image")
    board, pixels, ids, others = _board_markers(config, geometry, image, camera)
    if len(ids) < config.min_markers:
        raise NotFoundError(_missing_markers_message(geometry, ids, others, config.min_markers))
    found, _ = cv2.findHomography(board, pixels, 0)
    if found is None:
        raise FitError("the marker corners do not fix a homography (are they all on one line?)")
    return registration_from_markers(
        config, geometry, image, camera, array_of(np.float64, found), ids, board, pixels
    )


def registration_from_markers(
    config: RegistrationConfig,
    geometry: BoardGeometry,
    image: Image,
    camera: CameraProfile | None,
    homography: FloatArray,
    ids: Sequence[int],
    board: FloatArray,
    pixels: FloatArray,
) -> BoardRegistration:
    """The registration of the board placed by ``homography`` (board mm to ideal
    pixels) from the corners of the markers ``ids`` (``board`` mm, seen at ``pixels``,
    four a marker in ``ids``' order), with its warnings: markers that disagree with
    the board model, markers not seen, no camera profile."""
    ids = list(ids)
    homography = array_of(np.float64, homography)
    residual = _residual_mm(homography, board, pixels)
    rms = float(np.sqrt(np.mean(residual**2)))
    warnings = []
    if rms > config.fit_warn_mm:
        worst = ids[int(np.argmax(residual.reshape(-1, 4).max(axis=1)))]
        warnings.append(
            f"the markers disagree with the board model by {rms:.1f} mm RMS; marker "
            f"{worst} is the worst: check it is stuck where the marker sheet says, "
            "and that boards.json has this board's real size"
        )
    if len(ids) < len(geometry.markers):
        missing = sorted(set(geometry.marker_ids) - set(ids))
        warnings.append(
            f"marker(s) {', '.join(map(str, missing))} not seen; registered from {len(ids)} markers"
        )
    if camera is None:
        warnings.append(
            "no camera profile: lens distortion is not corrected, so the model "
            "may be off by a few mm away from the markers"
        )
    height, width = image.shape[:2]
    profile = BoardProfile(
        geometry.game,
        "markers",
        (width, height),
        _tuple(homography),
        None if camera is None else camera.fingerprint(),
        rms,
        tuple(ids),
        geometry,
        None,
        now_iso(),
    )
    return BoardRegistration(profile, tuple(warnings))


def _tuple(matrix: FloatArray) -> tuple[tuple[float, ...], ...]:
    m = matrix / matrix[2, 2]
    return tuple(tuple(float(x) for x in row) for row in m)


def png_sha256(image: Image) -> tuple[bytes, str]:
    """PNG bytes of ``image`` and their SHA-256, to store a reference image."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise RuntimeError("OpenCV could not encode a PNG image")
    data = encoded.tobytes()
    return data, hashlib.sha256(data).hexdigest()


# Outline finding. Edges come from Canny with thresholds tied to Otsu's split of the
# picture into board and table (half of it for weak edges), after a 5x5 blur against
# sensor noise; a contour is simplified to a polygon within 2% of its perimeter (board
# corners are sharp, so a true board outline stays a quadrilateral).
_OUTLINE_BLUR_PX = 5
_CANNY_LOW_SHARE = 0.5
_POLYGON_TOLERANCE = 0.02
# Each side is refitted through the edge pixels within 1% of its length (at least 3 px)
# of it, leaving out a tenth at either end where the corners round off; fewer than 10
# such pixels and the side is not visible.
_SIDE_BAND_SHARE = 0.01
_SIDE_BAND_MIN_PX = 3.0
_SIDE_END_SHARE = 0.1
_SIDE_MIN_PIXELS = 10


def find_board_outline(config: RegistrationConfig, image: Image) -> FloatArray:
    """The board's four corners in ``image`` (top-left, top-right, bottom-right,
    bottom-left; the first is the one nearest the image's top-left), to sub-pixel
    accuracy: the largest convex four-sided shape, its sides refitted as straight
    lines through the edge pixels. Raises ``NotFoundError`` when there is none."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    blurred = cv2.GaussianBlur(grey, (_OUTLINE_BLUR_PX, _OUTLINE_BLUR_PX), 0)
    otsu, _ = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    edges = array_of(np.uint8, cv2.Canny(blurred, otsu * _CANNY_LOW_SHARE, otsu))
    closed = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_area = config.outline_min_area * grey.shape[0] * grey.shape[1]
    best: FloatArray | None = None
    best_area = 0.0
    for contour in contours:
        hull = cv2.convexHull(contour)
        area = cv2.contourArea(hull)
        if area < min_area or area <= best_area:
            continue
        quad = cv2.approxPolyDP(hull, _POLYGON_TOLERANCE * cv2.arcLength(hull, True), True)
        if len(quad) == 4 and cv2.isContourConvex(quad):
            best, best_area = quad.reshape(4, 2).astype(np.float64), area
    if best is None:
        raise NotFoundError(
            "no board outline found: the board must cover at least "
            f"{config.outline_min_area:.0%} of the picture, with all four "
            "corners visible against a table of another colour; or give its "
            "corners with --corners"
        )
    corners = _order_corners(best)
    return _refine_outline(config, edges, corners)


def _order_corners(quad: FloatArray) -> FloatArray:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    ordered = quad[np.argsort(angles)]  # clockwise on screen (y down)
    start = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -start, axis=0)


def _refine_outline(config: RegistrationConfig, edges: Image, corners: FloatArray) -> FloatArray:
    ys, xs = np.nonzero(edges)
    points = np.column_stack([xs, ys]).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / length
        normal = np.array([-direction[1], direction[0]])
        along = (points - a) @ direction
        across = (points - a) @ normal
        band = max(_SIDE_BAND_MIN_PX, _SIDE_BAND_SHARE * length)
        near = (
            (np.abs(across) < band)
            & (along > _SIDE_END_SHARE * length)
            & (along < (1.0 - _SIDE_END_SHARE) * length)
        )
        if near.sum() < _SIDE_MIN_PIXELS:
            raise NotFoundError(
                "the board outline's sides are not visible as straight edges; "
                "give the corners with --corners"
            )
        vx, vy, x0, y0 = cv2.fitLine(
            points[near].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
        ).reshape(-1)
        unit = np.array([vx, vy], dtype=np.float64)
        origin = np.array([x0, y0], dtype=np.float64)
        distance = (points[near] - origin) @ np.array([-unit[1], unit[0]])
        if float(np.sqrt(np.mean(distance**2))) > config.outline_max_side_error * length:
            raise NotFoundError(
                "a side of the shape found is not straight, so it is not the "
                "board's edge; give the corners with --corners"
            )
        lines.append((origin, unit))
    refined = []
    for i in range(4):
        (p, u), (q, v) = lines[i - 1], lines[i]
        matrix = np.column_stack([u, -v])
        t = np.linalg.solve(matrix, q - p)
        refined.append(p + t[0] * u)
    return np.array(refined)


def register_with_outline(
    config: RegistrationConfig,
    geometry: BoardGeometry,
    image: Image,
    camera: CameraProfile | None,
    corners_px: FloatArray | None = None,
) -> tuple[BoardRegistration, bytes]:
    """Register the board from its outline in a photograph of the empty board (no
    markers needed). ``corners_px`` (top-left, top-right, bottom-right, bottom-left in
    the raw image) overrides the automatic outline. Returns the registration and the
    SHA-256 of the reference PNG to store beside it (see :func:`png_sha256`).

    Raises ``NotFoundError`` when no outline is found, ``ProfileError`` for an image of
    another size than the camera profile's.
    """
    if camera is not None:
        check_image_size(camera, image, "the board image")
    if corners_px is None:
        corners = find_board_outline(config, ideal_image(camera, image))
    else:
        corners = _ideal_points(camera, np.asarray(corners_px, dtype=np.float64).reshape(4, 2))
    found, _ = cv2.findHomography(geometry.outline_mm(), corners, 0)
    if found is None:
        raise FitError("the four corners given do not form a quadrilateral")
    homography = array_of(np.float64, found)
    data, digest = png_sha256(image)
    height, width = image.shape[:2]
    warnings = [
        "marker-free registration: keep the camera and the board still; run "
        "'companion calibrate check' if either is bumped"
    ]
    if camera is None:
        warnings.append(
            "no camera profile: lens distortion is not corrected, so the model "
            "may be off by a few mm in the middle of the board"
        )
    profile = BoardProfile(
        geometry.game,
        "reference",
        (width, height),
        _tuple(homography),
        None if camera is None else camera.fingerprint(),
        0.0,
        (),
        geometry,
        digest,
        now_iso(),
    )
    return BoardRegistration(profile, tuple(warnings)), data


def check_registration(
    config: RegistrationConfig,
    profile: BoardProfile,
    camera: CameraProfile | None,
    image: Image,
    reference: Image | None = None,
) -> RegistrationCheck:
    """Measure the stored registration on a new frame: the RMS and largest distance in
    mm, on the board plane, between the board's markers (or, for a reference-image
    registration, the reference's features) as seen now and where the registration
    puts them.

    Raises ``ProfileError`` when the frame, camera profile or reference image do not
    belong to this registration; ``NotFoundError`` when no marker (or too few matching
    features) is seen.
    """
    _check_compatible(profile, camera, image)
    if profile.method == "markers":
        board, pixels, ids, others = _board_markers(config, profile.geometry, image, camera)
        if not ids:
            raise NotFoundError(_missing_markers_message(profile.geometry, ids, others, 1))
        distances = _residual_mm(profile.matrix, board, pixels)
        seen = f"markers {', '.join(map(str, ids))}"
    else:
        if reference is None:
            raise ProfileError(
                "the board was registered from a reference image, which is needed to check it"
            )
        distances = _feature_drift_mm(config, profile, camera, reference, image)
        seen = f"{len(distances)} matched board features"
    return RegistrationCheck(
        float(np.sqrt(np.mean(distances**2))), float(distances.max()), len(distances), seen
    )


def _check_compatible(profile: BoardProfile, camera: CameraProfile | None, image: Image) -> None:
    height, width = image.shape[:2]
    if (width, height) != profile.image_size:
        w, h = profile.image_size
        raise ProfileError(
            f"the frame is {width}x{height} but the board was registered at "
            f"{w}x{h}; set the camera to {w}x{h} or register the board again"
        )
    used = None if camera is None else camera.fingerprint()
    if used != profile.camera:
        if profile.camera is None:
            raise ProfileError(
                "the board was registered without a camera profile but one is in "
                "use now; register the board again"
            )
        if camera is None:
            raise ProfileError(
                "the board was registered with a camera profile that is not "
                "available now; calibrate the camera or register the board again"
            )
        raise ProfileError(
            "the board was registered with another camera profile; register the board again"
        )


def _feature_drift_mm(
    config: RegistrationConfig,
    profile: BoardProfile,
    camera: CameraProfile | None,
    reference: Image,
    image: Image,
) -> FloatArray:
    ref = (
        cv2.cvtColor(ideal_image(camera, reference), cv2.COLOR_BGR2GRAY)
        if reference.ndim == 3
        else ideal_image(camera, reference)
    )
    now = (
        cv2.cvtColor(ideal_image(camera, image), cv2.COLOR_BGR2GRAY)
        if image.ndim == 3
        else ideal_image(camera, image)
    )
    mask = np.zeros(ref.shape, np.uint8)
    outline = _apply(profile.matrix, profile.geometry.outline_mm())
    cv2.fillConvexPoly(mask, np.rint(outline).astype(np.int32), 255)
    orb = cv2.ORB.create(config.orb_features)
    kp_ref, des_ref = orb.detectAndCompute(ref, mask)
    kp_now, des_now = orb.detectAndCompute(now, None)
    if des_ref is None or des_now is None or len(kp_ref) < config.min_matches:
        raise NotFoundError(
            "too few features on the reference image's board to match; use markers for this board"
        )
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(des_ref, des_now, k=2)
    good = [
        p[0] for p in pairs if len(p) == 2 and p[0].distance < config.match_ratio * p[1].distance
    ]
    if len(good) < config.min_matches:
        raise NotFoundError(
            f"only {len(good)} board features match the reference image (need "
            f"{config.min_matches}): is the board in view and lit as before?"
        )
    src = np.array([kp_ref[m.queryIdx].pt for m in good])
    dst = np.array([kp_now[m.trainIdx].pt for m in good])
    _, inliers = cv2.findHomography(src, dst, cv2.RANSAC, config.ransac_px)
    keep = inliers.reshape(-1).astype(bool) if inliers is not None else np.zeros(len(good), bool)
    if keep.sum() < config.min_matches:
        raise NotFoundError(
            f"only {int(keep.sum())} board features agree with one position of "
            f"the board (need {config.min_matches})"
        )
    inverse = np.linalg.inv(profile.matrix)
    before = _apply(inverse, src[keep])
    after = _apply(inverse, dst[keep])
    return np.asarray(np.linalg.norm(after - before, axis=1))


def draw_overlay(
    config: RegistrationConfig,
    profile: BoardProfile,
    camera: CameraProfile | None,
    image: Image,
    check: RegistrationCheck | None = None,
) -> Image:
    """``image`` with the board model drawn where the registration puts it (green, or
    red when the check's largest error is above ``config.check_limit_mm``) and the
    check's figures written in the corner."""
    out = (
        image.copy()
        if image.ndim == 3
        else array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_GRAY2BGR))
    )
    colour = (60, 220, 60)
    if check is not None and check.max_mm > config.check_limit_mm:
        colour = (40, 40, 230)
    scale = max(1, round(out.shape[1] / 640))
    for line in model_polylines(profile.geometry):
        dense = _densify(line, 5.0)
        pixels = board_to_image(profile, camera, dense)
        cv2.polylines(
            out,
            [np.rint(pixels).astype(np.int32).reshape(-1, 1, 2)],
            False,
            colour,
            scale,
            cv2.LINE_AA,
        )
    if check is not None:
        text = f"registration error {check.rms_mm:.1f} mm RMS, {check.max_mm:.1f} mm max"
        cv2.putText(
            out,
            text,
            (10 * scale, 25 * scale),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6 * scale,
            (0, 0, 0),
            3 * scale,
            cv2.LINE_AA,
        )
        cv2.putText(
            out,
            text,
            (10 * scale, 25 * scale),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6 * scale,
            colour,
            scale,
            cv2.LINE_AA,
        )
    return out


def _densify(line: FloatArray, step_mm: float) -> FloatArray:
    """Points every ``step_mm`` along a polyline, so straight board lines bend with the
    lens when drawn."""
    out = [line[:1]]
    for a, b in itertools.pairwise(line):
        count = max(1, int(np.ceil(np.linalg.norm(b - a) / step_mm)))
        t = np.linspace(0.0, 1.0, count + 1)[1:, None]
        out.append(a + (b - a) * t)
    return np.vstack(out)


def save_board_profile(profile: BoardProfile, path: Path) -> None:
    """Write ``profile`` to ``path`` atomically. Raises ``ProfileError`` on failure."""
    save_document(path, KIND_BOARD, profile.to_json())


def load_board_profile(path: Path, game: str | None = None) -> BoardProfile:
    """Read a board profile, checking everything (and that it is ``game``'s).
    Raises ``ProfileError``."""
    profile = BoardProfile.from_json(read_document(path, KIND_BOARD), path)
    if game is not None and profile.game != game:
        raise ProfileError(f"{path} registers the {profile.game} board, not {game}")
    return profile


def load_reference_image(path: Path, profile: BoardProfile) -> Image:
    """Read the reference photograph of a marker-free registration, refusing one that
    is not the image the profile was made with. Raises ``ProfileError``."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ProfileError(
            f"cannot read the board's reference image {path}: {error.strerror or error}"
        ) from None
    if hashlib.sha256(data).hexdigest() != profile.reference_sha256:
        raise ProfileError(
            f"the reference image {path} is not the one the board was registered "
            "with (damaged or replaced); register the board again"
        )
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ProfileError(
            f"the reference image {path} cannot be decoded; register the board again"
        )
    return np.asarray(image)
