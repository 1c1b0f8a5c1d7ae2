"""Where the board lies in one camera frame: the geometry every reading stage shares.

A :class:`BoardView` maps board millimetres (x right, y down from the board's top-left
corner, the board seen upright from the first player's seat: the coordinates of
:mod:`vision.models`) to pixels of one frame, and back. It holds

- ``homography``: the board plane to *ideal* pixels (the lens distortion removed), exact
  for a flat board;
- ``projection``: points *above* the board too (a tile's top, a stacked student, a
  monk's head), a 3x4 matrix for ``(x, y, z)`` with ``z`` in millimetres up from the
  board's surface, when the camera's pose is known;
- ``lens``: the distortion that turns ideal pixels into the frame's own, when known.

Views come from :mod:`vision.locate` (markers, a reference picture, tracking) or, for
rendered pictures, from the renderer's own camera (:func:`truth_view`), which is how the
other stages are measured apart from localisation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

METHODS = ("markers", "reference", "tracked", "truth")


@dataclass(frozen=True, eq=False)
class Lens:
    """A camera's intrinsics: ``matrix`` (3x3) and OpenCV's five distortion
    coefficients ``(k1, k2, p1, p2, k3)``."""

    matrix: FloatArray
    coefficients: FloatArray

    @classmethod
    def of(cls, camera: Any) -> Lens:
        """The lens of a calibration ``CameraProfile`` or a rendering ``Camera`` (both
        have ``matrix``; the profile has ``coefficients``, the camera ``distortion``)."""
        coefficients = getattr(camera, "coefficients", None)
        if coefficients is None:
            coefficients = camera.distortion
        return cls(
            np.asarray(camera.matrix, np.float64),
            np.asarray(coefficients, np.float64).reshape(-1)[:5],
        )

    @property
    def distorts(self) -> bool:
        return bool(np.any(self.coefficients != 0.0))

    def distort(self, ideal: FloatArray) -> FloatArray:
        """Frame pixels of ideal pixels, (N, 2): OpenCV's five-coefficient model."""
        points = np.asarray(ideal, dtype=np.float64).reshape(-1, 2)
        if not self.distorts:
            return points
        k1, k2, p1, p2, k3 = self.coefficients
        fx, fy = self.matrix[0, 0], self.matrix[1, 1]
        cx, cy = self.matrix[0, 2], self.matrix[1, 2]
        x = (points[:, 0] - cx) / fx
        y = (points[:, 1] - cy) / fy
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x)
        yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y
        return np.column_stack([xd * fx + cx, yd * fy + cy])

    def undistort(self, pixels: FloatArray) -> FloatArray:
        """Ideal pixels of frame pixels, (N, 2)."""
        points = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        if not self.distorts:
            return points
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
        ideal = cv2.undistortPoints(
            points.reshape(-1, 1, 2),
            self.matrix,
            self.coefficients,
            None,
            np.eye(3),
            self.matrix,
            criteria,
        )
        return np.asarray(ideal.reshape(-1, 2), dtype=np.float64)


@dataclass(frozen=True, eq=False)
class BoardView:
    """Where the board lies in one frame (see the module's docstring).

    ``image_size`` is the frame's (width, height); ``method`` how the view was found
    (one of :data:`METHODS`); ``residual_mm`` the fit's RMS error on the board plane
    (0 for a ``truth`` view)."""

    homography: FloatArray
    image_size: tuple[int, int]
    lens: Lens | None = None
    projection: FloatArray | None = None
    method: str = "markers"
    residual_mm: float = 0.0
    _maps: dict[tuple[float, tuple[int, int]], tuple[NDArray[np.float32], NDArray[np.float32]]] = (
        field(default_factory=dict, repr=False)
    )

    def to_image(self, points_mm: FloatArray) -> FloatArray:
        """Frame pixels (lens distortion included) of board points: (N, 2) on the board
        plane, or (N, 3) with a height in mm above it (needs ``projection``)."""
        points = np.asarray(points_mm, dtype=np.float64)
        if points.ndim == 1:
            points = points.reshape(1, -1)
        if points.shape[1] == 3:
            if self.projection is None:
                raise ValueError("this view knows the board plane only, not heights above it")
            homogeneous = np.column_stack([points, np.ones(len(points))]) @ self.projection.T
        else:
            homogeneous = np.column_stack([points, np.ones(len(points))]) @ self.homography.T
        ideal = homogeneous[:, :2] / homogeneous[:, 2:3]
        return ideal if self.lens is None else self.lens.distort(ideal)

    def camera_mm(self) -> FloatArray | None:
        """Where the camera is, in board millimetres (x, y, height above the board),
        or ``None`` when the view knows the board plane only."""
        if self.projection is None:
            return None
        return np.asarray(-np.linalg.solve(self.projection[:, :3], self.projection[:, 3]))

    def to_board(self, pixels: FloatArray) -> FloatArray:
        """Board millimetres of frame pixels, (N, 2), on the board plane."""
        points = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        ideal = points if self.lens is None else self.lens.undistort(points)
        homogeneous = (
            np.column_stack([ideal, np.ones(len(ideal))]) @ np.linalg.inv(self.homography).T
        )
        return np.asarray(homogeneous[:, :2] / homogeneous[:, 2:3])

    def rectify(self, frame: Image, size_mm: tuple[float, float], px_per_mm: float) -> Image:
        """The board seen from straight above: ``size_mm`` of it from its top-left
        corner at ``px_per_mm`` (pixel centres at ``(i + 0.5) / px_per_mm`` mm). The
        pixel map is made once per size and reused for later frames of this view."""
        width = max(1, round(size_mm[0] * px_per_mm))
        height = max(1, round(size_mm[1] * px_per_mm))
        key = (px_per_mm, (width, height))
        if key not in self._maps:
            xs = (np.arange(width, dtype=np.float64) + 0.5) / px_per_mm
            ys = (np.arange(height, dtype=np.float64) + 0.5) / px_per_mm
            grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
            pixels = self.to_image(grid).reshape(height, width, 2)
            self._maps[key] = (
                pixels[:, :, 0].astype(np.float32),
                pixels[:, :, 1].astype(np.float32),
            )
        map_x, map_y = self._maps[key]
        return np.asarray(
            cv2.remap(
                frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
            )
        )

    def visible(self, points_mm: FloatArray, margin_px: float = 0.0) -> NDArray[np.bool_]:
        """Which board points fall inside the frame, ``margin_px`` from its edges."""
        return in_picture(self.to_image(points_mm), self.image_size, margin_px)


def in_picture(
    pixels: NDArray[Any], image_size: tuple[int, int], margin_px: float = 0.0
) -> NDArray[np.bool_]:
    """Which ``pixels`` (..., 2: x, y) fall inside a picture of ``image_size`` (w, h),
    ``margin_px`` from its edges."""
    w, h = image_size
    return np.asarray(
        (pixels[..., 0] >= margin_px)
        & (pixels[..., 0] <= w - 1 - margin_px)
        & (pixels[..., 1] >= margin_px)
        & (pixels[..., 1] <= h - 1 - margin_px)
    )


def pose_from_homography(homography: FloatArray, matrix: FloatArray) -> FloatArray:
    """The 3x4 projection of board points ``(x, y, z up)`` from the board plane's
    homography (board mm to ideal pixels) and the camera matrix: the rotation's first
    two columns and the translation come out of ``K^-1 H`` up to scale; the nearest
    rotation is taken, and "up" points towards the camera."""
    b = np.linalg.solve(matrix, homography)
    scale = 2.0 / (np.linalg.norm(b[:, 0]) + np.linalg.norm(b[:, 1]))
    if b[2, 2] * scale < 0:  # the board lies in front of the camera
        scale = -scale
    r1, r2, t = b[:, 0] * scale, b[:, 1] * scale, b[:, 2] * scale
    u, _, vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
    rotation = u @ vt
    if np.linalg.det(rotation) < 0:
        rotation = u @ np.diag([1.0, 1.0, -1.0]) @ vt
    # x right and y down on the board make r1 x r2 point into the board, away from the
    # camera: up is its opposite.
    return np.asarray(
        matrix @ np.column_stack([rotation[:, 0], rotation[:, 1], -rotation[:, 2], t])
    )


def truth_view(
    camera: Any,
    pose: Any,
    board_size_mm: tuple[float, float],
    board_centre_mm: tuple[float, float] = (0.0, 0.0),
    board_angle_deg: float = 0.0,
) -> BoardView:
    """The exact view of a rendered picture: the renderer's ``Camera`` at ``Pose``, the
    board of ``board_size_mm`` lying on the table at ``board_centre_mm`` turned by
    ``board_angle_deg`` (as in ``vision.synth.table.TableOptions``)."""
    rotation, translation = pose.extrinsics()
    a = math.radians(board_angle_deg)
    turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    # board (x, y, z up, 1) -> table (X, Y, Z, 1); the table's Z points down.
    to_table = np.zeros((4, 4))
    to_table[:2, :2] = turn
    to_table[:2, 3] = np.array(board_centre_mm) - turn @ (np.array(board_size_mm) / 2.0)
    to_table[2, 2] = -1.0
    to_table[3, 3] = 1.0
    lens = Lens.of(camera)
    projection = lens.matrix @ np.column_stack([rotation, translation]) @ to_table
    homography = projection[:, [0, 1, 3]]
    scale = homography[2, 2]
    return BoardView(
        homography / scale,
        (camera.width, camera.height),
        lens if lens.distorts else None,
        projection / scale,
        "truth",
        0.0,
    )
