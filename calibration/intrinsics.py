"""Camera intrinsics: fit the lens from target views, store it, undistort with it.

:func:`calibrate_camera` fits OpenCV's pinhole model with five distortion coefficients
(``cv2.calibrateCamera``) and drops, one at a time, views whose own reprojection error
is far out of line with the rest, saying why. The result is a :class:`CameraProfile`:
matrix, distortion, image size, RMS error, per-view errors, the rejected views and the
date, stored as JSON (kind ``companion.camera``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.config import CameraConfig
from calibration.errors import FitError, ProfileError
from calibration.profiles import (
    KIND_CAMERA,
    Fields,
    now_iso,
    read_document,
    save_document,
)
from calibration.targets import RejectedView, TargetView

Image = NDArray[np.uint8]
FloatArray = NDArray[np.float64]
# Iterations of OpenCV's fixed-point inverse distortion; its default 5 leaves errors of
# 0.15 px in the corners of a strongly distorted lens, 20 converge to 1e-9 px.
_UNDISTORT_ITERATIONS = 20


@dataclass(frozen=True)
class ViewError:
    """One accepted view: its label, RMS reprojection error and number of corners."""

    label: str
    error_px: float
    points: int


@dataclass(frozen=True)
class CameraProfile:
    """A calibrated camera: what ``companion calibrate camera`` stores."""

    image_size: tuple[int, int]
    camera_matrix: tuple[tuple[float, ...], ...]
    distortion: tuple[float, ...]
    rms_px: float
    views: tuple[ViewError, ...]
    rejected: tuple[RejectedView, ...]
    target: str
    created: str

    @property
    def matrix(self) -> FloatArray:
        return np.array(self.camera_matrix, dtype=np.float64)

    @property
    def coefficients(self) -> FloatArray:
        return np.array(self.distortion, dtype=np.float64)

    @property
    def fx(self) -> float:
        return self.camera_matrix[0][0]

    @property
    def fy(self) -> float:
        return self.camera_matrix[1][1]

    @property
    def cx(self) -> float:
        return self.camera_matrix[0][2]

    @property
    def cy(self) -> float:
        return self.camera_matrix[1][2]

    def fingerprint(self) -> str:
        """A short hash of the lens figures, so a board profile can tell which camera
        profile it was made with."""
        text = json.dumps([self.image_size, self.camera_matrix, self.distortion])
        return hashlib.sha256(text.encode("ascii")).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "target": self.target,
            "image_size": list(self.image_size),
            "camera_matrix": [list(row) for row in self.camera_matrix],
            "distortion": list(self.distortion),
            "distortion_model": "k1 k2 p1 p2 k3 (OpenCV)",
            "rms_px": self.rms_px,
            "views": [
                {"label": v.label, "error_px": v.error_px, "points": v.points} for v in self.views
            ],
            "rejected": [r.to_json() for r in self.rejected],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], source: Path | str) -> CameraProfile:
        """Check every field; raises ``ProfileError`` naming the first bad one."""
        fields = Fields(data, source, "camera profile")
        matrix = fields.matrix("camera_matrix", 3, 3)
        m = np.array(matrix)
        if not (
            m[0, 0] > 0
            and m[1, 1] > 0
            and m[2, 2] == 1.0
            and m[1, 0] == 0
            and m[2, 0] == 0
            and m[2, 1] == 0
        ):
            raise fields.fail(
                "camera_matrix", "is not a camera matrix (positive focal lengths, last row 0 0 1)"
            )
        views = []
        for i, record in enumerate(fields.records("views")):
            view = fields.sub(record, f"views[{i}]")
            views.append(
                ViewError(
                    view.string("label"), view.number("error_px", 0.0), view.integer("points", 1)
                )
            )
        rejected = []
        for i, record in enumerate(fields.records("rejected")):
            item = fields.sub(record, f"rejected[{i}]")
            rejected.append(RejectedView(item.string("label"), item.string("reason")))
        return cls(
            image_size=fields.size("image_size"),
            camera_matrix=matrix,
            distortion=fields.numbers("distortion", 5),
            rms_px=fields.number("rms_px", 0.0),
            views=tuple(views),
            rejected=tuple(rejected),
            target=fields.string("target"),
            created=fields.string("created"),
        )


@dataclass(frozen=True)
class CameraCalibration:
    """The outcome of :func:`calibrate_camera`: the profile, the share of the image the
    corners covered, and warnings for the user."""

    profile: CameraProfile
    coverage: float
    warnings: tuple[str, ...]


def calibrate_camera(
    config: CameraConfig,
    views: Sequence[TargetView],
    rejected: Sequence[RejectedView] = (),
    target: str = "",
) -> CameraCalibration:
    """Fit the lens to ``views`` (all of one image size).

    While more than ``config.min_views`` remain, the view with the largest RMS
    reprojection error is dropped if that error exceeds both
    ``config.max_view_error_px`` and ``config.outlier_factor`` times the median, and the
    fit is repeated; each drop is recorded with its reason. ``rejected`` (views already
    refused at detection) are carried into the profile.

    Raises ``FitError`` when fewer than ``config.min_views`` views are usable or the fit
    does not converge to finite figures.
    """
    kept = list(views)
    dropped = list(rejected)
    if len(kept) < config.min_views:
        raise FitError(
            f"only {len(kept)} usable views of the target (need "
            f"{config.min_views}); take more, from different angles and positions"
        )
    sizes = {v.image_size for v in kept}
    if len(sizes) != 1:
        raise FitError(f"the views have different image sizes: {sorted(sizes)}")
    size = kept[0].image_size
    flags = cv2.CALIB_FIX_K3 if config.fix_k3 else 0
    while True:
        rms, matrix, distortion, per_view = _fit(kept, size, flags)
        median = float(np.median(per_view))
        limit = max(config.max_view_error_px, config.outlier_factor * median)
        worst = int(np.argmax(per_view))
        if per_view[worst] <= limit or len(kept) <= config.min_views:
            break
        dropped.append(
            RejectedView(
                kept[worst].label,
                f"reprojection error {per_view[worst]:.2f} px is above the limit {limit:.2f} px "
                f"(median of the views {median:.2f} px): the target may be blurred, bent or "
                "partly misdetected in this view",
            )
        )
        del kept[worst]
    coverage = _coverage(config, kept, size)
    warnings = []
    if coverage < config.min_coverage:
        warnings.append(
            f"the target's corners covered only {coverage:.0%} of the image: add "
            "views with the target near the edges and in the corners, where the "
            "lens bends most"
        )
    if per_view[worst] > limit:
        warnings.append(
            f"view {kept[worst].label} has a large error ({per_view[worst]:.2f} px) "
            f"but was kept because only {len(kept)} views remain"
        )
    profile = CameraProfile(
        image_size=size,
        camera_matrix=tuple(tuple(float(x) for x in row) for row in matrix),
        distortion=tuple(float(x) for x in distortion.reshape(-1)[:5]),
        rms_px=float(rms),
        views=tuple(
            ViewError(v.label, float(e), len(v.ids)) for v, e in zip(kept, per_view, strict=True)
        ),
        rejected=tuple(dropped),
        target=target,
        created=now_iso(),
    )
    return CameraCalibration(profile, coverage, tuple(warnings))


def _fit(
    views: Sequence[TargetView], size: tuple[int, int], flags: int
) -> tuple[float, FloatArray, FloatArray, FloatArray]:
    object_points = [v.object_points for v in views]
    image_points = [v.image_points for v in views]
    try:
        # None asks OpenCV to start the matrix and distortion from scratch; the stubs
        # do not allow it.
        result = cv2.calibrateCameraExtended(  # type: ignore[call-overload]
            object_points, image_points, size, None, None, flags=flags
        )
    except cv2.error as error:
        raise FitError(f"OpenCV could not fit the camera: {error.err}") from None
    rms, matrix, distortion = result[0], result[1], result[2]
    per_view = np.asarray(result[-1], dtype=np.float64).reshape(-1)
    if not (
        np.isfinite(rms)
        and np.all(np.isfinite(matrix))
        and np.all(np.isfinite(distortion))
        and matrix[0, 0] > 0
        and matrix[1, 1] > 0
    ):
        raise FitError(
            "the camera fit did not converge: take sharper views from more varied angles"
        )
    return float(rms), matrix, distortion, per_view


def _coverage(config: CameraConfig, views: Sequence[TargetView], size: tuple[int, int]) -> float:
    cols, rows = config.coverage_grid
    hit = np.zeros((rows, cols), dtype=bool)
    for view in views:
        cells_x = np.clip((view.image_points[:, 0] / size[0] * cols).astype(int), 0, cols - 1)
        cells_y = np.clip((view.image_points[:, 1] / size[1] * rows).astype(int), 0, rows - 1)
        hit[cells_y, cells_x] = True
    return float(hit.mean())


def check_image_size(profile: CameraProfile, image: Image, what: str) -> None:
    """Raise ``ProfileError`` if ``image`` is not the size the profile was made at."""
    height, width = image.shape[:2]
    if (width, height) != profile.image_size:
        w, h = profile.image_size
        raise ProfileError(
            f"{what} is {width}x{height} but the camera profile was made at "
            f"{w}x{h}; set the camera to {w}x{h} or calibrate the camera again "
            "at this size"
        )


def undistort_image(profile: CameraProfile, image: Image) -> Image:
    """``image`` as a distortion-free pinhole camera with the same matrix would see it
    (straight lines straight). Raises ``ProfileError`` for an image of another size."""
    check_image_size(profile, image, "the image")
    return np.asarray(cv2.undistort(image, profile.matrix, profile.coefficients))


def undistort_points(profile: CameraProfile, pixels: FloatArray) -> FloatArray:
    """Ideal pixel positions (same camera matrix, no distortion) of image points (N, 2)."""
    points = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, _UNDISTORT_ITERATIONS, 1e-10)
    ideal = cv2.undistortPoints(
        points, profile.matrix, profile.coefficients, None, np.eye(3), profile.matrix, criteria
    )
    return np.asarray(ideal.reshape(-1, 2), dtype=np.float64)


def distort_points(profile: CameraProfile, ideal: FloatArray) -> FloatArray:
    """Image positions of ideal pixel positions (the inverse of :func:`undistort_points`):
    OpenCV's five-coefficient model, written out so a million points take milliseconds."""
    points = np.asarray(ideal, dtype=np.float64).reshape(-1, 2)
    k1, k2, p1, p2, k3 = profile.distortion
    x = (points[:, 0] - profile.cx) / profile.fx
    y = (points[:, 1] - profile.cy) / profile.fy
    r2 = x * x + y * y
    radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
    yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
    return np.column_stack([xd * profile.fx + profile.cx, yd * profile.fy + profile.cy])


def save_camera_profile(profile: CameraProfile, path: Path) -> None:
    """Write ``profile`` to ``path`` atomically. Raises ``ProfileError`` on failure."""
    save_document(path, KIND_CAMERA, profile.to_json())


def load_camera_profile(path: Path) -> CameraProfile:
    """Read a camera profile, checking everything. Raises ``ProfileError``."""
    return CameraProfile.from_json(read_document(path, KIND_CAMERA), path)
