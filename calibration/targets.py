"""Calibration targets (ChArUco and the classic chessboard) and finding them in images.

:func:`detect_target` is the detection stage: one image in, the target's corners with
their positions on the printed sheet out (a :class:`TargetView`), or the reason the
image cannot be used (a :class:`RejectedView`). :func:`collect_views` runs it over a
stream of frames and skips near-duplicates from videos and live cameras.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.arrays import array_of
from calibration.config import CameraConfig, CharucoConfig, ChessboardConfig
from calibration.errors import ConfigError

Image = NDArray[np.uint8]


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """OpenCV's predefined ArUco dictionary called ``name`` (``DICT_5X5_100``...).
    Raises ``ConfigError`` listing the known names for any other name."""
    value = getattr(cv2.aruco, name, None) if name.startswith("DICT_") else None
    if not isinstance(value, int):
        known = sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_") and n.upper() == n)
        raise ConfigError(f"unknown ArUco dictionary {name!r}; known: {', '.join(known)}")
    return cv2.aruco.getPredefinedDictionary(value)


def parse_grid(text: str) -> tuple[int, int]:
    """``"7x5"`` -> ``(7, 5)``. Raises ``ValueError`` for anything else."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match or int(match[1]) < 2 or int(match[2]) < 2:
        raise ValueError(f"{text!r} is not COLUMNSxROWS with both at least 2 (like 7x5)")
    return int(match[1]), int(match[2])


@dataclass(frozen=True)
class CharucoTarget:
    """A ChArUco board: ``squares`` (columns, rows) of ``square_mm``, with markers of
    ``marker_mm`` from ``dictionary`` in the white squares."""

    squares: tuple[int, int]
    square_mm: float
    marker_mm: float
    dictionary: str

    def __post_init__(self) -> None:
        if min(self.squares) < 2:
            raise ConfigError(f"a ChArUco board needs at least 2x2 squares, not {self.squares}")
        if not 0 < self.marker_mm < self.square_mm:
            raise ConfigError(
                f"ChArUco markers ({self.marker_mm} mm) must be smaller than "
                f"the squares ({self.square_mm} mm)"
            )
        aruco_dictionary(self.dictionary)

    @classmethod
    def from_config(cls, config: CharucoConfig) -> CharucoTarget:
        return cls(config.squares, config.square_mm, config.marker_mm, config.dictionary)

    def board(self) -> cv2.aruco.CharucoBoard:
        return cv2.aruco.CharucoBoard(
            self.squares, self.square_mm, self.marker_mm, aruco_dictionary(self.dictionary)
        )

    def describe(self) -> str:
        return (
            f"ChArUco {self.squares[0]}x{self.squares[1]} squares of {self.square_mm:g} mm, "
            f"markers {self.marker_mm:g} mm, {self.dictionary}"
        )

    @property
    def corner_count(self) -> int:
        return (self.squares[0] - 1) * (self.squares[1] - 1)


@dataclass(frozen=True)
class ChessboardTarget:
    """A classic chessboard with ``inner_corners`` (columns, rows) and ``square_mm``."""

    inner_corners: tuple[int, int]
    square_mm: float

    def __post_init__(self) -> None:
        if min(self.inner_corners) < 2 or self.square_mm <= 0:
            raise ConfigError(
                f"a chessboard needs at least 2x2 inner corners and a positive "
                f"square size, not {self.inner_corners}, {self.square_mm} mm"
            )

    @classmethod
    def from_config(cls, config: ChessboardConfig) -> ChessboardTarget:
        return cls(config.inner_corners, config.square_mm)

    def describe(self) -> str:
        return (
            f"chessboard {self.inner_corners[0]}x{self.inner_corners[1]} inner corners, "
            f"squares of {self.square_mm:g} mm"
        )

    @property
    def corner_count(self) -> int:
        return self.inner_corners[0] * self.inner_corners[1]

    def object_points(self) -> NDArray[np.float32]:
        """Corner positions on the sheet in mm, in OpenCV's detection order."""
        cols, rows = self.inner_corners
        grid = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2).astype(np.float32)
        return np.column_stack([grid * np.float32(self.square_mm), np.zeros(len(grid), np.float32)])


Target = CharucoTarget | ChessboardTarget


@dataclass(frozen=True, eq=False)
class TargetView:
    """The target found in one image: corner ``ids``, their ``object_points`` on the
    sheet (N, 3, mm) and ``image_points`` (N, 2, px)."""

    label: str
    image_size: tuple[int, int]
    ids: NDArray[np.int32]
    object_points: NDArray[np.float32]
    image_points: NDArray[np.float32]


@dataclass(frozen=True)
class RejectedView:
    """An image that was not used, and why, in words for the user."""

    label: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "reason": self.reason}


def _grey(image: Image) -> Image:
    if image.ndim == 2:
        return image
    return array_of(np.uint8, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def detect_target(
    config: CameraConfig, target: Target, label: str, image: Image
) -> TargetView | RejectedView:
    """Find ``target`` in ``image`` (grey or BGR): its corners to sub-pixel accuracy,
    or the reason the image is of no use."""
    grey = _grey(image)
    size = (grey.shape[1], grey.shape[0])
    if isinstance(target, ChessboardTarget):
        return _detect_chessboard(config, target, label, grey, size)
    return _detect_charuco(config, target, label, grey, size)


def _detect_chessboard(
    config: CameraConfig, target: ChessboardTarget, label: str, grey: Image, size: tuple[int, int]
) -> TargetView | RejectedView:
    found, corners = cv2.findChessboardCorners(grey, target.inner_corners, None)
    if not found:
        return RejectedView(
            label,
            f"the {target.inner_corners[0]}x{target.inner_corners[1]} "
            "chessboard was not found (all inner corners must be visible)",
        )
    window = (config.subpix_window_px, config.subpix_window_px)
    criteria = (
        cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER,
        config.subpix_max_iterations,
        config.subpix_epsilon_px,
    )
    refined = cv2.cornerSubPix(grey, corners, window, (-1, -1), criteria)
    ids = np.arange(target.corner_count, dtype=np.int32)
    return TargetView(
        label, size, ids, target.object_points(), refined.reshape(-1, 2).astype(np.float32)
    )


def _detect_charuco(
    config: CameraConfig, target: CharucoTarget, label: str, grey: Image, size: tuple[int, int]
) -> TargetView | RejectedView:
    board = target.board()
    corners, ids, _, marker_ids = cv2.aruco.CharucoDetector(board).detectBoard(grey)
    found = 0 if ids is None else len(ids)
    if found == 0:
        markers = 0 if marker_ids is None else len(marker_ids)
        what = "no ChArUco corners found" if markers else "no ChArUco target found"
        return RejectedView(label, f"{what} ({markers} markers seen)")
    if found < config.min_corners:
        return RejectedView(
            label,
            f"only {found} of the target's {target.corner_count} "
            f"corners found (need {config.min_corners})",
        )
    corner_ids = np.asarray(ids, dtype=np.int32).reshape(-1)
    if board.checkCharucoCornersCollinear(corner_ids):
        return RejectedView(label, "the corners found lie on one line, which fixes no pose")
    # The stubs ask for a sequence of corners; OpenCV takes the detector's (N, 1, 2) array.
    object_points, image_points = board.matchImagePoints(corners, corner_ids)  # type: ignore[call-overload]
    return TargetView(
        label,
        size,
        corner_ids,
        object_points.reshape(-1, 3).astype(np.float32),
        image_points.reshape(-1, 2).astype(np.float32),
    )


def _mean_motion(view: TargetView, other: TargetView) -> float | None:
    common, here, there = np.intersect1d(view.ids, other.ids, return_indices=True)
    if len(common) == 0:
        return None
    moved = view.image_points[here] - other.image_points[there]
    return float(np.mean(np.linalg.norm(moved, axis=1)))


def collect_views(
    config: CameraConfig,
    target: Target,
    frames: Iterable[tuple[str, Image | None]],
    stream: bool,
    report: Callable[[TargetView | RejectedView], None] | None = None,
) -> tuple[list[TargetView], list[RejectedView]]:
    """Detect ``target`` in every frame (``None`` for a file that could not be read).

    All views must have one image size. With ``stream`` (a video or a live camera),
    frames too similar to a kept view are skipped and collection stops after
    ``config.stream_views`` kept views. ``report`` sees every outcome as it happens.
    """
    views: list[TargetView] = []
    rejected: list[RejectedView] = []
    for label, image in frames:
        outcome: TargetView | RejectedView
        if image is None:
            outcome = RejectedView(label, "the file could not be read as an image")
        else:
            outcome = detect_target(config, target, label, image)
        if isinstance(outcome, TargetView) and views and outcome.image_size != views[0].image_size:
            w, h = outcome.image_size
            w0, h0 = views[0].image_size
            outcome = RejectedView(
                label,
                f"the image is {w}x{h} but the first view is "
                f"{w0}x{h0}; a camera profile holds for one image size",
            )
        if isinstance(outcome, TargetView) and stream:
            outcome = _skip_duplicate(config, outcome, views)
        if isinstance(outcome, TargetView):
            views.append(outcome)
        else:
            rejected.append(outcome)
        if report is not None:
            report(outcome)
        if stream and len(views) >= config.stream_views:
            break
    return views, rejected


def _skip_duplicate(
    config: CameraConfig, view: TargetView, kept: list[TargetView]
) -> TargetView | RejectedView:
    for other in kept:
        motion = _mean_motion(view, other)
        if motion is not None and motion < config.stream_min_motion_px:
            return RejectedView(
                view.label,
                f"too similar to {other.label} (the corners moved "
                f"{motion:.1f} px on average; move the target at least "
                f"{config.stream_min_motion_px:g} px)",
            )
    return view
