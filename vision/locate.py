"""Where the board lies in each frame: by its corner markers, by a reference picture of
the empty board, and by tracking between frames.

A :class:`Locator` serves one game's board. For every frame :meth:`Locator.locate`
returns a :class:`Location`: a :class:`~vision.view.BoardView` when the board is found,
or a status and a message in plain words saying why not (an empty or black frame, no
marker seen, too few, the board out of the picture, the reference not matched).

- **markers**: the ArUco markers stuck at the board's corners (``calibration/boards.json``)
  are found with calibration's sub-pixel detector (in a large frame, first in a copy
  half its size, then again at full size in a window round each marker found: the same
  corners in less time); those under 60 px are measured again more exactly, and small,
  blurred ones OpenCV does not read are read from its candidate squares
  (:mod:`vision.markers`; with two markers or more found, only round where these put
  the others). Markers still missing are sought where the others put them, first read
  in place, then enlarged. A marker that disagrees with
  the others (a stray copy on the table) is left out. Markers under 20 px bring a
  message to bring the camera closer. Four markers fix the board's homography. A hand
  often covers one or two corners: with two or three markers the clusters of corners
  leave a homography's perspective poorly fixed, so the camera's pose (six unknowns,
  not eight) is solved with the focal length (the lens profile's, or estimated from
  earlier frames); from two markers the far side of the board may still be a few mm
  off, and the message says so. One marker alone never places the board.
- **reference**: without markers, features (ORB) of a stored picture of the empty board
  with a known homography (``companion calibrate board --method reference``) are
  matched against the frame, and a homography is fitted with RANSAC.
- **tracking**: once found, the next frames only confirm the view: small patches cut
  from the frame where the board was found (the markers' corners, or the strongest
  matched features spread over the board) are matched in small windows round where
  the view puts them, which costs a millisecond or two. Observations the previous view
  explains within :attr:`LocateConfig.keep_mm` keep that very view (so later stages
  reuse its rectification maps); a small drift (a camera moving slowly) is followed;
  a large one is a bump: the board is located again in the whole frame and the move
  reported ("board moved by 12 mm: located again"). When the patches do not confirm
  the view (a hand over them, a bump), the whole frame is searched again; markers seen
  exactly where the previous view puts them keep it ("board in place").

Heights above the board (``BoardView.projection``) come from the homography and a
camera matrix: the lens profile's when there is one, otherwise square pixels, the
principal point at the image centre and a focal length estimated from the homographies
seen so far; in a near top-down view the focal length is not observable and a default
field of view is assumed (:func:`focal_from_homography`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.boards import BoardGeometry, board_geometry, load_boards
from calibration.config import RegistrationConfig, load_config
from calibration.errors import NotFoundError
from calibration.intrinsics import CameraProfile
from calibration.registration import (
    BoardProfile,
    BoardRegistration,
    detect_markers,
    registration_from_markers,
)
from vision.markers import (
    CoveredMarkerConfig,
    SmallMarkerConfig,
    candidate_squares,
    find_small_markers,
    match_covered_marker,
    reread_markers,
)
from vision.sources import blank_frame
from vision.view import BoardView, Lens, pose_from_homography

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

# Statuses of a Location. The first three carry a view.
FOUND = "found"
TRACKED = "tracked"
MOVED = "moved"
BAD_FRAME = "bad_frame"
WRONG_SIZE = "wrong_size"
NO_MARKERS = "no_markers"
TOO_FEW_MARKERS = "too_few_markers"
OUT_OF_VIEW = "out_of_view"
NO_MATCH = "no_match"
# Tracking could not confirm the view: the whole frame is searched (never returned).
_UNCONFIRMED = "unconfirmed"


@dataclass(frozen=True)
class LocateConfig:
    """Thresholds of localisation and tracking; the reasons are beside each value.

    Marker detection and reference matching themselves use calibration's
    ``RegistrationConfig`` (``calibration/config.json``), so both commands agree."""

    # Tracking looks for each marker this many marker sides round where the last view
    # puts it: a camera moving slowly shifts it by far less between frames.
    track_margin_share: float = 0.6
    # ...but at least this many pixels, for markers seen small.
    track_margin_min_px: float = 12.0
    # Markers (of the 4) that confirm a tracked view; one corner marker alone cannot
    # tell a small turn of the board about it.
    track_min_markers: int = 2
    # If the previous view puts every seen point within 0.3 mm of where it is seen,
    # nothing moved: the view is kept as it is (marker corners jitter by 0.1 to 0.2 mm
    # between frames; a kept view stays stable, and so do the maps made from it).
    keep_mm: float = 0.3
    # A board moving more than 3 mm between two frames was bumped (a camera drifting
    # slowly moves it by a fraction of that): it is reported as moved.
    bump_mm: float = 3.0
    # Below half of the board in the picture, too much of it is unreadable to go on.
    min_in_view: float = 0.5
    # The field of view assumed when no lens profile says and the view is too straight
    # down to measure it: typical webcams have 60 to 78 degrees.
    default_hfov_deg: float = 65.0
    # Under 12 degrees of tilt the focal length hardly changes the homography: it is
    # not estimated from it (the error would exceed the default's).
    min_tilt_deg: float = 12.0
    # Focal lengths outside these fields of view are not believed.
    min_hfov_deg: float = 20.0
    max_hfov_deg: float = 130.0
    # The focal length used is the median of the last estimates, against noise.
    focal_history: int = 15
    # Tracking patches: squares of 21 px (at marker corners, or one per cell of a 5x5
    # grid over the board for a reference picture), sought 10 px round their predicted
    # place: a camera drifting slowly moves them far less between frames, a bump more.
    patch_px: int = 21
    patch_search_px: int = 10
    patch_grid: int = 5
    # A patch matching with a normalised correlation under 0.8 is covered or changed.
    min_patch_score: float = 0.8
    # Patches that must agree for a tracked view: a homography needs 4; twice that
    # leaves room for a hand over some.
    min_patches: int = 8
    # Markers missed in the whole frame are sought again round where the others put
    # them, enlarged 2 and then 3 times (ArUco reads markers of 15 to 25 px better
    # enlarged; which factor works depends on how the marker's cells fall on pixels), up
    # to 20 mm from that place (a fit from two markers is off by a few mm).
    missing_zooms: tuple[float, ...] = (2.0, 3.0)
    missing_reach_mm: float = 20.0
    # One marker alone places the others within a few centimetres (its corners are
    # close together): they are sought up to 60 mm away.
    missing_reach_one_mm: float = 60.0
    # Markers under 20 px a side are read less reliably (under the hardest blur, noise
    # and JPEG the companion renders, 99% are read from 20 px up): the player is told to
    # bring the camera closer.
    reliable_side_px: float = 20.0
    # Marker corners are found to about 0.3 px (0.24 median, 0.4 at the 95th
    # percentile on markers of 12 to 25 px under the hardest imaging); a board whose
    # corners that noise could put more than 10 mm off (twice their spread) is not
    # used: that is a quarter of a Shendao or ShenShi square, and readings would fall
    # between squares. (Two markers of 25 px or more leave 1 to 8 mm: used, with a
    # message.)
    corner_noise_px: float = 0.3
    max_uncertain_mm: float = 10.0
    small_markers: SmallMarkerConfig = field(default_factory=SmallMarkerConfig)
    # Where two markers or more are seen, a missing one that cannot be read whole is
    # matched, partly covered, by its known pattern where they put it
    # (:func:`vision.markers.match_covered_marker`).
    covered_markers: CoveredMarkerConfig = field(default_factory=CoveredMarkerConfig)
    # A frame this wide (or high) or more is first searched shrunk this many times: a
    # quarter of the pixels takes about a quarter of the time, and markers of 30 px or
    # more are still read there. Each marker found is detected again at full size in a
    # window of this many of its sides (at least this many pixels) round it: wider than
    # the detector's largest threshold window (23 px), so its corners are the same as
    # in the whole frame.
    quick_scale: float = 2.0
    quick_min_frame_px: int = 1280
    quick_margin_sides: float = 1.0
    quick_margin_px: float = 32.0
    # In a window round a marker of known size (seen in the shrunk copy, or put there by
    # the others), squares under half its side are not considered: OpenCV's smallest
    # square is a share of the image's size, so in a small window it examined every
    # speck of the board's print (most of its time there), and the marker, even seen
    # at a slant or from a rough guess of its size, is larger.
    window_min_side_share: float = 0.5
    # A tracked patch farther than 1.5 px from the fitted homography is an outlier.
    patch_ransac_px: float = 1.5
    # The reference picture is matched with its features inside the board's outline
    # shrunk by this share of its size, away from the table round it.
    reference_inset: float = 0.02


@dataclass(frozen=True)
class Location:
    """The board in one frame: ``view`` (``None`` when not found), ``status`` (one of
    ``found``, ``tracked``, ``moved`` with a view; ``bad_frame``, ``wrong_size``,
    ``no_markers``, ``too_few_markers``, ``out_of_view``, ``no_match`` without),
    ``message`` in plain words, the ``markers`` seen and, for ``moved``, how far the
    board moved (mm, its farthest corner)."""

    status: str
    message: str
    view: BoardView | None = None
    markers: tuple[int, ...] = ()
    moved_mm: float = 0.0

    @property
    def found(self) -> bool:
        return self.view is not None


_NOT_CONFIRMED = Location(_UNCONFIRMED, "tracking did not confirm the view")


@dataclass(frozen=True, eq=False)
class BoardReference:
    """A picture of the empty board and its homography (board mm to its ideal pixels:
    lens distortion removed with ``lens`` when the board was registered with a camera
    profile), as ``companion calibrate board --method reference`` stores them."""

    image: Image
    homography: FloatArray
    lens: Lens | None = None

    @classmethod
    def from_profile(
        cls, profile: BoardProfile, image: Image, camera: CameraProfile | None = None
    ) -> BoardReference:
        """The reference of a stored board profile and its picture
        (``calibration.registration.load_reference_image``)."""
        return cls(image, profile.matrix, None if camera is None else Lens.of(camera))


@dataclass
class _Patch:
    """A small piece of the board tracked between frames: its grey template and the
    board point at its centre."""

    template: Image
    board_mm: FloatArray


@dataclass
class _ReferenceFeatures:
    """The reference picture's ORB features on the board and their board mm."""

    keypoints_mm: FloatArray
    descriptors: NDArray[np.uint8]


@dataclass
class _Track:
    """What the locator remembers between frames."""

    view: BoardView | None = None
    patches: dict[tuple[int, int], _Patch] = field(default_factory=dict)
    focals: list[float] = field(default_factory=list)


class Locator:
    """Finds one game's board in successive frames (see the module docstring).

    ``camera``: the lens profile, when the camera was calibrated (frames must then be
    of its size). ``reference``: a reference picture, for a board without markers
    (then markers are not looked for). ``geometry``: the board's markers and size
    (``calibration/boards.json`` by default)."""

    def __init__(
        self,
        game: str,
        *,
        camera: CameraProfile | None = None,
        reference: BoardReference | None = None,
        config: LocateConfig | None = None,
        registration: RegistrationConfig | None = None,
        geometry: BoardGeometry | None = None,
    ) -> None:
        self.game = game
        self.geometry = geometry or board_geometry(game)
        self.config = config or LocateConfig()
        self.registration = registration or load_config().registration
        self.camera = camera
        self.lens = None if camera is None else Lens.of(camera)
        self.reference = reference
        self._features = None if reference is None else self._reference_features(reference)
        self._card_ratios = tuple(
            sorted(
                {
                    self.geometry.card_mm(i) / self.geometry.marker_mm
                    for i in self.geometry.marker_ids
                }
            )
        )
        self._track = _Track()
        self._frame_size = (0, 0)
        w, h = self.geometry.size_mm
        grid = np.linspace(0.0, 1.0, 9)
        self._coverage_points = np.stack(np.meshgrid(grid * w, grid * h), -1).reshape(-1, 2)

    def reset(self) -> None:
        """Forget the last view: the next frame is searched whole."""
        self._track = _Track()

    def locate(self, frame: Image | None) -> Location:
        """Where the board lies in ``frame`` (BGR or grey), tracked from the previous
        frame when possible. Never raises for a bad frame: the Location says why."""
        problem = blank_frame(frame)
        if problem is not None:
            return Location(BAD_FRAME, f"board not found: {problem}")
        assert frame is not None
        height, width = frame.shape[:2]
        self._frame_size = (width, height)
        if self.camera is not None and (width, height) != self.camera.image_size:
            w, h = self.camera.image_size
            return Location(
                WRONG_SIZE,
                f"board not found: the frame is {width}x{height} but "
                f"the camera profile was made at {w}x{h}; set the camera to "
                f"{w}x{h} or calibrate it again at this size",
            )
        previous = self._track.view
        if previous is not None and previous.image_size != (width, height):
            self.reset()
            previous = None
        if previous is not None:
            tracked = self._track_patches(frame)
            if tracked.status != _UNCONFIRMED:
                return tracked
        return (
            self._locate_markers(frame) if self.reference is None else self._locate_reference(frame)
        )

    # --- markers ----------------------------------------------------------------------

    def find_markers(self, frame: Image) -> dict[int, FloatArray]:
        """Every marker of the board's dictionary seen in ``frame``: id -> the corners
        of its black square (ideal pixels when there is a lens profile). Markers
        OpenCV reads (those under ``small_markers.max_side_px`` measured again, more
        exactly); then, when some of the board's are missing, small ones read again
        from every square OpenCV considered (:mod:`vision.markers`); then those still
        missing sought where the others put them."""
        found = self._detect(frame)
        small = {
            i: self._raw(corners)
            for i, corners in found.items()
            if _side_px(corners) <= self.config.small_markers.max_side_px
        }
        for marker_id, marker in reread_markers(
            frame, self.geometry.dictionary, small, config=self.config.small_markers
        ).items():
            found[marker_id] = self._ideal(marker.corners)
        missing = set(self.geometry.marker_ids) - set(found)
        if missing:
            for marker_id, marker in find_small_markers(
                frame,
                self.geometry.dictionary,
                card_ratios=self._card_ratios,
                config=self.config.small_markers,
                candidates=self._candidates_near(frame, found, missing),
                wanted=missing,
                known=[self._raw(corners) for corners in found.values()],
            ).items():
                if marker_id not in found:
                    found[marker_id] = self._ideal(marker.corners)
        ids = sorted(i for i in found if i in self.geometry.marker_ids)
        if 0 < len(ids) < len(self.geometry.markers):
            found.update(self._find_missing(frame, ids, found))
        return found

    def _candidates_near(
        self, frame: Image, found: dict[int, FloatArray], missing: set[int]
    ) -> list[FloatArray] | None:
        """The squares the small-marker search considers, when two of the board's
        markers or more are known: only those in windows round where these put the
        missing ones (:meth:`_windows_near`). ``None`` (the whole frame) with fewer."""
        windows = self._windows_near(frame, found, missing)
        if windows is None:
            return None
        grey = _grey(frame)
        quads: list[FloatArray] = []
        for _, (x0, y0, x1, y1), _ in windows:
            offset = np.array([x0, y0], np.float64)
            quads.extend(
                q + offset
                for q in candidate_squares(
                    np.ascontiguousarray(grey[y0:y1, x0:x1]),
                    self.geometry.dictionary,
                    self.config.small_markers,
                )
            )
        quads.sort(key=lambda q: -_side_px(q))
        return quads[: self.config.small_markers.max_candidates]

    def _windows_near(
        self, frame: Image, found: dict[int, FloatArray], missing: set[int]
    ) -> list[tuple[int, tuple[int, int, int, int], float]] | None:
        """Windows of ``frame`` (x0, y0, x1, y1) round where two or more of the board's
        markers in ``found`` put each missing one, up to ``missing_reach_mm`` away with
        its card: a marker farther off would be left out as disagreeing with the others
        anyway, and a few windows cost a fraction of the whole frame. Each with the
        missing marker's id and its side there (px). ``None`` when fewer than two are
        known."""
        ids = sorted(i for i in found if i in self.geometry.marker_ids)
        if len(ids) < 2:
            return None
        height, width = frame.shape[:2]
        self._frame_size = (width, height)
        board, pixels = self._marker_points(ids, found)
        homography = self._fit(board, pixels, len(ids))
        if homography is None:
            return None
        guess = BoardView(homography, self._frame_size, self.lens)
        card = max((1.0, *self._card_ratios))
        reach = self.config.missing_reach_mm / self.geometry.marker_mm
        windows = []
        for marker_id in sorted(missing):
            predicted = guess.to_image(self.geometry.marker_corners_mm(marker_id))
            side = _side_px(predicted)
            margin = max(side * (card / 2.0 + reach), self.config.quick_margin_px)
            x0, y0 = np.floor(predicted.min(axis=0) - margin).astype(int)
            x1, y1 = np.ceil(predicted.max(axis=0) + margin).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
            if x1 - x0 >= 4 and y1 - y0 >= 4:
                windows.append((marker_id, (int(x0), int(y0), int(x1), int(y1)), side))
        return windows

    def _detect(self, frame: Image) -> dict[int, FloatArray]:
        """Calibration's detector over ``frame``; in a large frame, first over a copy
        shrunk ``quick_scale`` times (a quarter of the pixels or less), then each
        marker found there detected again at full size in a window round it only, which
        gives the very corners the whole frame gives (the detector's thresholds and the
        edge fit look no farther than the window). Board markers missing from the copy
        (small, blurred) are detected at full size in windows round where two or more
        found put them; with fewer found, the whole frame is searched as before."""
        quick = self._detect_quick(frame)
        if quick is not None:
            return quick
        return detect_markers(self.registration, self.geometry.dictionary, frame, self.camera)

    def _detect_quick(self, frame: Image) -> dict[int, FloatArray] | None:
        scale = self.config.quick_scale
        height, width = frame.shape[:2]
        if scale <= 1.0 or max(width, height) < self.config.quick_min_frame_px:
            return None
        grey = _grey(frame)
        small = cv2.resize(grey, None, fx=1.0 / scale, fy=1.0 / scale, interpolation=cv2.INTER_AREA)
        found = {}
        # the copy only says where to look: its corners are not refined
        for marker_id, shrunk in detect_markers(
            self.registration, self.geometry.dictionary, np.asarray(small, np.uint8), refine=False
        ).items():
            # shrunk pixel centres: x in the copy is (x + 0.5) / scale - 0.5 in the frame
            corners = (shrunk + 0.5) * scale - 0.5
            side = _side_px(corners)
            margin = max(self.config.quick_margin_sides * side, self.config.quick_margin_px)
            x0, y0 = np.floor(corners.min(axis=0) - margin).astype(int)
            x1, y1 = np.ceil(corners.max(axis=0) + margin).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
            seen = self._detect_in(grey, (int(x0), int(y0), int(x1), int(y1)), side)
            if marker_id in seen:
                found[marker_id] = seen[marker_id]
        missing = set(self.geometry.marker_ids) - set(found)
        if not missing:
            return found
        windows = self._windows_near(frame, found, missing)
        if windows is None:
            return None
        for marker_id, window, side in windows:
            seen = self._detect_in(grey, window, side)
            if marker_id in seen:
                found[marker_id] = seen[marker_id]
        return found

    def _detect_in(
        self, grey: Image, window: tuple[int, int, int, int], side_px: float
    ) -> dict[int, FloatArray]:
        """Calibration's detector in a window (x0, y0, x1, y1) of the frame round a
        marker of about ``side_px``; corners in the frame's (ideal) pixels."""
        x0, y0, x1, y1 = window
        seen = detect_markers(
            self.registration,
            self.geometry.dictionary,
            np.ascontiguousarray(grey[y0:y1, x0:x1]),
            _shifted(self.camera, x0, y0),
            min_side_px=self.config.window_min_side_share * side_px,
        )
        return {i: corners + np.array([x0, y0], np.float64) for i, corners in seen.items()}

    def _locate_markers(self, frame: Image) -> Location:
        found = self.find_markers(frame)
        ids = self._consistent(found, sorted(i for i in found if i in self.geometry.marker_ids))
        if not ids:
            return Location(
                NO_MARKERS,
                "board not found: no markers seen"
                + self._foreign_markers(found)
                + self._closer(found, ids),
            )
        board, pixels = self._marker_points(ids, found)
        previous = self._track.view
        if len(ids) < self.registration.min_markers:
            seen = ", ".join(map(str, ids))
            if previous is not None and self._explains(previous, board, pixels):
                return Location(
                    TRACKED,
                    f"board kept in place: only marker {seen} seen, where it was",
                    previous,
                    tuple(ids),
                )
            count = f"{len(ids)} marker" + ("s" if len(ids) > 1 else "")
            return Location(
                TOO_FEW_MARKERS,
                f"board not found: only {count} seen (need "
                f"{self.registration.min_markers}); uncover the board's corners"
                + self._foreign_markers(found)
                + self._closer(found, ids),
                markers=tuple(ids),
            )
        explained = previous is not None and self._explains(previous, board, pixels)
        # a board mostly out of the picture is said to be so (below), whatever its markers
        if (
            not explained
            and self._in_view_share(board, pixels, len(ids)) >= self.config.min_in_view
        ):
            uncertain = self._uncertainty_mm(board, pixels, ids, found)
            if uncertain > self.config.max_uncertain_mm:
                seen = ", ".join(map(str, ids))
                return Location(
                    TOO_FEW_MARKERS,
                    f"board not found: markers {seen} are too "
                    "small or too few to place the board (its corners could be "
                    f"{uncertain:.0f} mm off); bring the camera closer and uncover "
                    "the board's corners",
                    markers=tuple(ids),
                )
        location = self._conclude(board, pixels, tuple(ids), "markers", tracking=False)
        closer = self._closer(found, ids)
        if closer and location.status in (FOUND, MOVED):
            location = replace(location, message=location.message + closer)
        if location.view is not None:
            corners = location.view.to_image(board)
            self._keep_patches(
                frame,
                location.view,
                {(i, k): corners[4 * n + k] for n, i in enumerate(ids) for k in range(4)},
            )
        return location

    def _find_missing(
        self,
        frame: Image,
        ids: list[int],
        found: dict[int, FloatArray],
    ) -> dict[int, FloatArray]:
        """Markers the whole-frame search missed (small, far, blurred), sought again
        where the markers seen put them, in a window enlarged ``missing_zooms`` times:
        the detector reads small markers better enlarged. A marker found there counts
        only if it lies within ``missing_reach_mm`` of where it was expected (farther
        when a single marker was seen, which places the others roughly)."""
        board, pixels = self._marker_points(ids, found)
        homography = self._fit(board, pixels, len(ids))
        if homography is None:
            return {}
        guess = BoardView(homography, self._frame_size, self.lens)
        reach = self.config.missing_reach_mm if len(ids) > 1 else self.config.missing_reach_one_mm
        height, width = frame.shape[:2]
        extra = {}
        for marker_id in sorted(set(self.geometry.marker_ids) - set(ids)):
            corners_mm = self.geometry.marker_corners_mm(marker_id)
            predicted = guess.to_image(corners_mm)
            side = float(np.mean(np.linalg.norm(predicted - np.roll(predicted, 1, 0), axis=1)))
            margin = side * (0.5 + reach / self.geometry.marker_mm)
            x0, y0 = np.floor(predicted.min(axis=0) - margin).astype(int)
            x1, y1 = np.ceil(predicted.max(axis=0) + margin).astype(int)
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
            if x1 - x0 < side or y1 - y0 < side:
                continue
            # read where the others put it; else enlarged, round that place
            again = reread_markers(
                frame,
                self.geometry.dictionary,
                {marker_id: predicted},
                config=self.config.small_markers,
            )
            if marker_id in again:
                ideal = self._ideal(again[marker_id].corners)
                if _residual_mm(homography, corners_mm, ideal).max() <= reach:
                    extra[marker_id] = ideal
                    continue
            for zoom in self.config.missing_zooms:
                window = cv2.resize(
                    frame[y0:y1, x0:x1], None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC
                )
                seen = detect_markers(
                    self.registration,
                    self.geometry.dictionary,
                    np.asarray(window, np.uint8),
                    min_side_px=self.config.window_min_side_share * side * zoom,
                )
                if marker_id not in seen:
                    continue
                # pixel centres: x in the window is (x + 0.5) / zoom - 0.5 in the frame
                raw = (seen[marker_id] + 0.5) / zoom - 0.5 + np.array([x0, y0], np.float64)
                ideal = self._ideal(raw)
                if _residual_mm(homography, corners_mm, ideal).max() <= reach:
                    extra[marker_id] = ideal
                    break
            if marker_id in extra or len(ids) < 2:
                continue
            # not readable whole: partly covered (a hand, a box standing over a corner)
            covered = match_covered_marker(
                frame,
                self.geometry.dictionary,
                marker_id,
                predicted,
                config=self.config.covered_markers,
            )
            if covered is not None:
                ideal = self._ideal(covered.corners)
                if _residual_mm(homography, corners_mm, ideal).max() <= reach:
                    extra[marker_id] = ideal
        return extra

    def _consistent(self, found: dict[int, FloatArray], ids: list[int]) -> list[int]:
        """The markers that agree with one position of the board: while the board
        fitted to them all leaves one farther than ``missing_reach_mm`` from its
        place, the marker without which the others agree best is left out (a stray
        copy of a marker lying on the table, or a misread one). Two markers cannot be
        checked against each other."""
        keep = list(ids)
        while len(keep) >= 3 and self._disagreement_mm(found, keep) > self.config.missing_reach_mm:
            keep = min(
                ([j for j in keep if j != i] for i in keep),
                key=lambda rest: self._disagreement_mm(found, rest),
            )
        return keep

    def _disagreement_mm(self, found: dict[int, FloatArray], ids: list[int]) -> float:
        board, pixels = self._marker_points(ids, found)
        homography = self._fit(board, pixels, len(ids))
        if homography is None:
            return math.inf
        return float(_residual_mm(homography, board, pixels).max())

    def _uncertainty_mm(
        self, board: FloatArray, pixels: FloatArray, ids: list[int], found: dict[int, FloatArray]
    ) -> float:
        """How far the board's corners could be off, twice the spread that a noise of
        ``corner_noise_px`` on every marker corner gives them (through the derivatives
        of :meth:`_fit_plain`, by central differences). Every marker seen and none
        under ``reliable_side_px``: the markers span the board, and 0 is returned."""
        small = np.mean([_side_px(found[i]) for i in ids]) < self.config.reliable_side_px
        if len(ids) == len(self.geometry.markers) and not small:
            return 0.0
        every = len(ids) == len(self.geometry.markers)
        homography = self._fit_plain(board, pixels, every)
        if homography is None:
            return math.inf
        outline = self.geometry.outline_mm()
        at = _apply(homography, outline)
        step = self.config.corner_noise_px
        flat = pixels.reshape(-1)
        columns = []
        for k in range(len(flat)):
            moved = []
            for sign in (1.0, -1.0):
                shifted = flat.copy()
                shifted[k] += sign * step
                fitted = self._fit_plain(board, shifted.reshape(-1, 2), every)
                if fitted is None:
                    return math.inf
                moved.append(_apply(np.linalg.inv(fitted), at).reshape(-1))
            columns.append((moved[0] - moved[1]) / 2.0)
        # each column: the outline's move (mm) for a corner coordinate off by the noise
        spread = np.sqrt((np.array(columns) ** 2).sum(axis=0).reshape(-1, 2).sum(axis=1))
        return 2.0 * float(spread.max())

    def _in_view_share(self, board: FloatArray, pixels: FloatArray, markers: int) -> float:
        """The share of the board in the picture, where the markers put it."""
        homography = self._fit(board, pixels, markers)
        if homography is None:
            return 0.0
        view = BoardView(homography, self._frame_size, self.lens)
        return float(np.mean(view.visible(self._coverage_points)))

    def _fit_plain(
        self,
        board: FloatArray,
        pixels: FloatArray,
        every: bool,
    ) -> FloatArray | None:
        """The fit of :meth:`_fit` without its choice between a homography and a pose
        (which a small change of the corners may flip): a homography from every
        marker, else the camera's pose with the focal length known so far."""
        if every:
            found, _ = cv2.findHomography(board, pixels, 0)
            return None if found is None else np.asarray(found, np.float64)
        return self._pose_homography(board, pixels)

    def _closer(self, found: dict[int, FloatArray], ids: list[int]) -> str:
        """Advice when the markers are too small to be read reliably: with none seen,
        how large they must be; with some, how large they are (their mean side)."""
        reliable = self.config.reliable_side_px
        if not ids:
            return (
                "; if the board is in the picture, bring the camera closer or focus "
                f"it: each corner marker must be at least {reliable:.0f} px wide in the "
                "picture"
            )
        side = float(np.mean([_side_px(found[i]) for i in ids]))
        if side >= reliable:
            return ""
        return (
            f"; the markers are only {side:.0f} px wide in the picture: bring the "
            f"camera closer (from {reliable:.0f} px they are read reliably)"
        )

    def _marker_points(
        self,
        ids: list[int],
        found: dict[int, FloatArray],
    ) -> tuple[FloatArray, FloatArray]:
        board = np.vstack([self.geometry.marker_corners_mm(i) for i in ids])
        return board, np.vstack([found[i] for i in ids])

    def _foreign_markers(self, found: dict[int, FloatArray]) -> str:
        others = sorted(i for i in found if i not in self.geometry.marker_ids)
        if not others:
            return ""
        owners = sorted(
            {
                game
                for game, board in load_boards().items()
                if any(i in board.marker_ids for i in others)
            }
        )
        text = f"; markers {', '.join(map(str, others))} were seen"
        return text + (
            f" (they belong to {', '.join(owners)}: is the game right?)" if owners else ""
        )

    # --- the reference picture --------------------------------------------------------

    def _reference_features(self, reference: BoardReference) -> _ReferenceFeatures:
        grey = _grey(reference.image)
        outline = self.geometry.outline_mm()
        inset = self.config.reference_inset * np.array(self.geometry.size_mm)
        inner = outline + np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * inset
        corners = _apply(reference.homography, inner)
        if reference.lens is not None:
            corners = reference.lens.distort(corners)
        mask = np.zeros(grey.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.rint(corners).astype(np.int32), 255)
        orb = cv2.ORB.create(self.registration.orb_features)
        keypoints, descriptors = orb.detectAndCompute(grey, mask)
        if descriptors is None:
            descriptors = np.empty((0, 32), np.uint8)
        pixels = np.array([k.pt for k in keypoints], np.float64).reshape(-1, 2)
        if reference.lens is not None:
            pixels = reference.lens.undistort(pixels)
        return _ReferenceFeatures(
            _apply(np.linalg.inv(reference.homography), pixels), np.asarray(descriptors, np.uint8)
        )

    def _locate_reference(self, frame: Image) -> Location:
        features = self._features
        assert features is not None
        need = self.registration.min_matches
        if len(features.descriptors) < need:
            return Location(
                NO_MATCH,
                "board not found: the reference picture shows too few "
                "features of the board to match; use markers for this board",
            )
        grey = _grey(frame)
        orb = cv2.ORB.create(self.registration.orb_features)
        keypoints, descriptors = orb.detectAndCompute(grey, None)
        good: list[cv2.DMatch] = []
        if descriptors is not None and len(keypoints) >= 2:
            pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(features.descriptors, descriptors, k=2)
            good = [
                p[0]
                for p in pairs
                if len(p) == 2 and p[0].distance < self.registration.match_ratio * p[1].distance
            ]
        if len(good) < need:
            return Location(
                NO_MATCH,
                f"board not found: only {len(good)} board features "
                f"match the reference picture (need {need}); is the board in "
                "view and lit as when it was registered?",
            )
        board = features.keypoints_mm[[m.queryIdx for m in good]]
        pixels = self._ideal(np.array([keypoints[m.trainIdx].pt for m in good], np.float64))
        _, inliers = cv2.findHomography(board, pixels, cv2.RANSAC, self.registration.ransac_px)
        keep = np.zeros(len(good), bool) if inliers is None else inliers.reshape(-1) > 0
        if keep.sum() < need:
            return Location(
                NO_MATCH,
                f"board not found: only {int(keep.sum())} board features "
                f"agree with one position of the board (need {need})",
            )
        location = self._conclude(board[keep], pixels[keep], (), "reference", tracking=False)
        if location.view is not None:
            self._keep_patches(
                grey,
                location.view,
                self._spread(
                    location.view,
                    [keypoints[m.trainIdx] for m, k in zip(good, keep, strict=True) if k],
                ),
            )
        return location

    def _spread(
        self,
        view: BoardView,
        keypoints: list[cv2.KeyPoint],
    ) -> dict[tuple[int, int], FloatArray]:
        """The strongest matched feature in each cell of a grid over the board: places
        for tracking patches spread over the whole board."""
        cells = self.config.patch_grid
        size = np.array(self.geometry.size_mm)
        pixels = np.array([k.pt for k in keypoints], np.float64).reshape(-1, 2)
        board = view.to_board(pixels)
        best: dict[tuple[int, int], int] = {}
        for index, (mm, keypoint) in enumerate(zip(board, keypoints, strict=True)):
            cell = (
                int(np.clip(mm[0] / size[0] * cells, 0, cells - 1)),
                int(np.clip(mm[1] / size[1] * cells, 0, cells - 1)),
            )
            if cell not in best or keypoint.response > keypoints[best[cell]].response:
                best[cell] = index
        return {cell: pixels[index] for cell, index in best.items()}

    def _keep_patches(
        self, image: Image, view: BoardView, places: dict[tuple[int, int], FloatArray]
    ) -> None:
        """Cut a tracking patch round each place (frame pixels, ``image`` in colour or
        grey) and remember the board point at its centre; patches of places not seen now
        (under a hand) are kept from before. Only the patches are made grey."""
        half = self.config.patch_px // 2
        height, width = image.shape[:2]
        for key, (px, py) in places.items():
            x, y = round(px), round(py)
            if half <= x < width - half and half <= y < height - half:
                template = _grey(image[y - half : y + half + 1, x - half : x + half + 1]).copy()
                self._track.patches[key] = _Patch(
                    template, view.to_board(np.array([[x, y]], np.float64))[0]
                )

    def _track_patches(self, frame: Image) -> Location:
        """The view confirmed by the board's patches matched in small windows round
        where the last view puts them, or unconfirmed."""
        view = self._track.view
        keys = list(self._track.patches)
        patches = list(self._track.patches.values())
        if view is None or len(patches) < self.config.min_patches:
            return _NOT_CONFIRMED
        half, reach = self.config.patch_px // 2, self.config.patch_search_px
        height, width = frame.shape[:2]
        predicted = view.to_image(np.array([p.board_mm for p in patches]))
        board, pixels, seen = [], [], []
        for key, patch, (px, py) in zip(keys, patches, predicted, strict=True):
            x0, y0 = round(px) - half - reach, round(py) - half - reach
            x1, y1 = round(px) + half + reach + 1, round(py) + half + reach + 1
            if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
                continue
            window = _grey(frame[y0:y1, x0:x1])
            scores = np.asarray(
                cv2.matchTemplate(window, patch.template, cv2.TM_CCOEFF_NORMED), np.float32
            )
            _, score, _, (bx, by) = cv2.minMaxLoc(scores)
            if score < self.config.min_patch_score:
                continue
            dx, dy = _peak_offset(scores, bx, by)
            board.append(patch.board_mm)
            pixels.append([x0 + bx + half + dx, y0 + by + half + dy])
            seen.append(key)
        if len(board) < self.config.min_patches:
            return _NOT_CONFIRMED
        board_mm = np.array(board)
        ideal = self._ideal(np.array(pixels, np.float64))
        if self._explains(view, board_mm, ideal):
            return Location(TRACKED, "board tracked", view, _marker_ids(seen, self.reference))
        _, inliers = cv2.findHomography(board_mm, ideal, cv2.RANSAC, self.config.patch_ransac_px)
        if inliers is None or inliers.sum() < self.config.min_patches:
            return _NOT_CONFIRMED
        keep = inliers.reshape(-1) > 0
        # A marker's patches are keyed (marker id, corner): the markers still seen decide
        # how the view is fitted, as in a full search.
        ids = _marker_ids([key for key, k in zip(seen, keep, strict=True) if k], self.reference)
        return self._conclude(board_mm[keep], ideal[keep], ids, "tracked", tracking=True)

    # --- fitting and deciding ---------------------------------------------------------

    def _conclude(
        self,
        board: FloatArray,
        pixels: FloatArray,
        ids: tuple[int, ...],
        method: str,
        tracking: bool,
    ) -> Location:
        """Turn seen board points (mm) and their ideal pixels into a Location: keep the
        previous view when it explains them, else fit a new one and say whether the
        board moved. When tracking, a failed fit, a bump or a board leaving the picture
        leave the view unconfirmed: the whole frame is searched before that is
        believed."""
        previous = self._track.view
        if previous is not None and self._explains(previous, board, pixels):
            if tracking:
                return Location(TRACKED, "board tracked", previous, ids)
            seen = f" (markers {', '.join(map(str, ids))} seen)" if ids else ""
            return Location(FOUND, f"board in place{seen}", previous, ids)
        homography = self._fit(board, pixels, len(ids))
        if homography is None:
            return (
                _NOT_CONFIRMED
                if tracking
                else Location(
                    TOO_FEW_MARKERS,
                    "board not found: the markers seen do not fix the board's position",
                    markers=ids,
                )
            )
        moved = (
            0.0
            if previous is None
            else _moved_mm(previous.homography, homography, self.geometry.outline_mm())
        )
        if tracking and moved > self.config.bump_mm:
            return _NOT_CONFIRMED
        residual = _residual_mm(homography, board, pixels)
        view = BoardView(
            homography,
            self._frame_size,
            self.lens,
            self._projection(homography),
            method,
            float(np.sqrt(np.mean(residual**2))),
        )
        in_view = float(np.mean(view.visible(self._coverage_points)))
        if in_view < self.config.min_in_view:
            return (
                _NOT_CONFIRMED
                if tracking
                else Location(
                    OUT_OF_VIEW,
                    f"board not found: only {in_view:.0%} of the board is in the "
                    "picture; point the camera at the whole board",
                    markers=ids,
                )
            )
        self._track.view = view
        if moved > self.config.bump_mm:
            return Location(
                MOVED, f"board moved by {moved:.0f} mm: located again", view, ids, moved
            )
        status = TRACKED if tracking else FOUND
        return Location(status, _found_message(status, method, ids), view, ids)

    def _explains(self, view: BoardView, board: FloatArray, pixels: FloatArray) -> bool:
        return bool(_residual_mm(view.homography, board, pixels).max() <= self.config.keep_mm)

    def _fit(self, board: FloatArray, pixels: FloatArray, markers: int) -> FloatArray | None:
        """The board's homography from seen points. With every marker seen (or from
        reference features), a least-squares homography. With one marker (only to look
        for the others) or two or three,
        their clusters of corners leave the homography's perspective poorly fixed, so
        the camera's pose (six unknowns instead of eight) is solved with the known
        focal length instead; with none known yet, the homography is kept when it
        shows enough perspective to measure the focal length itself, and the default
        focal length is used for a near top-down view, where its error hardly
        matters."""
        found, _ = cv2.findHomography(board, pixels, 0)
        homography = (
            None
            if found is None or abs(np.linalg.det(found)) < 1e-12
            else np.asarray(found, np.float64)
        )
        partial = 1 <= markers < len(self.geometry.markers)
        if (
            markers >= 2
            and partial
            and self.camera is None
            and not self._track.focals
            and homography is not None
            and focal_from_homography(homography, self._frame_size, self.config) is not None
        ):
            partial = False
        if partial:
            posed = self._pose_homography(board, pixels)
            if posed is not None:
                homography = posed
        return None if homography is None else np.asarray(homography / homography[2, 2])

    def _pose_homography(self, board: FloatArray, pixels: FloatArray) -> FloatArray | None:
        """The board's homography from the camera's pose solved with the focal length
        known so far (:meth:`_matrix`); ``None`` when the pose cannot be solved."""
        matrix = self._matrix()
        points = np.column_stack([board, np.zeros(len(board))])
        ok, rvec, tvec = cv2.solvePnP(points, pixels, matrix, None, flags=cv2.SOLVEPNP_SQPNP)
        if not ok:
            return None
        rvec, tvec = cv2.solvePnPRefineLM(points, pixels, matrix, None, rvec, tvec)
        rotation, _ = cv2.Rodrigues(rvec)
        return np.asarray(
            matrix @ np.column_stack([rotation[:, 0], rotation[:, 1], tvec.reshape(3)])
        )

    def _projection(self, homography: FloatArray) -> FloatArray:
        if self.camera is None:
            focal = focal_from_homography(homography, self._frame_size, self.config)
            if focal is not None:
                self._track.focals = [*self._track.focals, focal][-self.config.focal_history :]
        return pose_from_homography(homography, self._matrix())

    def _matrix(self) -> FloatArray:
        """The camera matrix: the lens profile's, or square pixels, the principal point
        at the centre and the focal length estimated so far (or the default)."""
        if self.camera is not None:
            return np.asarray(self.camera.matrix, np.float64)
        width, height = self._frame_size
        if self._track.focals:
            focal = float(np.median(self._track.focals))
        else:
            focal = (width / 2.0) / math.tan(math.radians(self.config.default_hfov_deg) / 2.0)
        return np.array(
            [[focal, 0.0, (width - 1) / 2.0], [0.0, focal, (height - 1) / 2.0], [0.0, 0.0, 1.0]]
        )

    def _ideal(self, pixels: FloatArray) -> FloatArray:
        return pixels if self.lens is None else self.lens.undistort(pixels)

    def _raw(self, ideal: FloatArray) -> FloatArray:
        return ideal if self.lens is None else self.lens.distort(ideal)


def register_board(
    registration: RegistrationConfig,
    geometry: BoardGeometry,
    image: Image,
    camera: CameraProfile | None,
) -> BoardRegistration:
    """Register the board from its corner markers in ``image`` as the camera finds
    them in play (:class:`Locator`): small markers read again, a marker partly covered
    matched where the others put it, the board placed from the camera's pose when some
    are missing, and not placed when the markers seen could put it too far off. Raises
    ``NotFoundError`` with the locator's message, in plain words, when it is not."""
    locator = Locator(geometry.game, camera=camera, registration=registration, geometry=geometry)
    location = locator.locate(image)
    if location.view is None:
        raise NotFoundError(location.message)
    found = locator.find_markers(image)
    ids = [i for i in location.markers if i in found]
    board, pixels = locator._marker_points(ids, found)
    return registration_from_markers(
        registration,
        geometry,
        image,
        camera,
        np.asarray(location.view.homography, np.float64),
        ids,
        board,
        pixels,
    )


def focal_from_homography(
    homography: FloatArray, image_size: tuple[int, int], config: LocateConfig
) -> float | None:
    """The focal length (pixels) that makes ``homography`` (board mm to pixels) the
    view of a flat board by a camera with square pixels and its principal point at the
    image centre: the first two columns of ``K^-1 H`` must be orthogonal and of equal
    length, two equations linear in ``1/f^2``, solved together by least squares.
    ``None`` when the board is seen too straight on (tilt under
    ``config.min_tilt_deg``: the equations then hardly depend on ``f``) or the answer
    is not a plausible lens."""
    width, height = image_size
    centred = (
        np.array([[1.0, 0.0, -(width - 1) / 2.0], [0.0, 1.0, -(height - 1) / 2.0], [0.0, 0.0, 1.0]])
        @ homography
    )
    h1, h2 = centred[:, 0], centred[:, 1]
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denominator = float(a @ a)
    if denominator <= 0.0:
        return None
    inverse_square = -float(a @ b) / denominator
    if inverse_square <= 0.0:
        return None
    focal = 1.0 / math.sqrt(inverse_square)
    scale = np.array([1.0 / focal, 1.0 / focal, 1.0])
    normal = np.cross(h1 * scale, h2 * scale)
    tilt = math.degrees(math.acos(min(1.0, abs(normal[2]) / float(np.linalg.norm(normal)))))
    hfov = math.degrees(2.0 * math.atan(width / 2.0 / focal))
    if tilt < config.min_tilt_deg or not config.min_hfov_deg <= hfov <= config.max_hfov_deg:
        return None
    return focal


def _shifted(camera: CameraProfile | None, x0: int, y0: int) -> CameraProfile | None:
    """``camera`` for a window of its frames whose top-left pixel is (x0, y0): its
    principal point moved by as much, so that ideal pixels in the window are the
    frame's moved by as much too."""
    if camera is None:
        return None
    (fx, skew, cx), (_, fy, cy), last = camera.camera_matrix[:3]
    return replace(camera, camera_matrix=((fx, skew, cx - x0), (0.0, fy, cy - y0), tuple(last)))


def _marker_ids(
    keys: list[tuple[int, int]],
    reference: BoardReference | None,
) -> tuple[int, ...]:
    """The markers whose patches (keyed marker id, corner) were seen; none for a
    reference picture's patches (keyed by grid cell)."""
    return () if reference is not None else tuple(sorted({key[0] for key in keys}))


def _side_px(corners: FloatArray) -> float:
    """A marker's side in the picture: the square root of its area."""
    return math.sqrt(abs(float(cv2.contourArea(np.asarray(corners, np.float32)))))


def _found_message(status: str, method: str, ids: tuple[int, ...]) -> str:
    if status == TRACKED:
        return "board tracked"
    if method == "markers" and len(ids) == 2:
        return (
            f"board found from markers {ids[0]} and {ids[1]} only: its far side may be "
            "a few mm off until the other corners are uncovered"
        )
    if method == "markers":
        return f"board found from markers {', '.join(map(str, ids))}"
    return "board found by matching the reference picture"


def _grey(image: Image) -> Image:
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY))
    if image.shape[2] == 1:
        return np.asarray(image[:, :, 0])
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def _apply(homography: NDArray[np.floating], points: FloatArray) -> FloatArray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, homography).reshape(-1, 2))


def _residual_mm(
    homography: NDArray[np.floating], board: FloatArray, pixels: FloatArray
) -> FloatArray:
    """How far (mm on the board) each seen pixel lies from its board point under
    ``homography``."""
    back = _apply(np.linalg.inv(homography), pixels)
    return np.asarray(np.linalg.norm(back - board, axis=1))


def _moved_mm(
    before: NDArray[np.floating], after: NDArray[np.floating], outline: FloatArray
) -> float:
    """How far the board moved between two homographies: the largest distance, on
    the board as it was, between where its corners were and are."""
    now = _apply(np.linalg.inv(before), _apply(after, outline))
    return float(np.linalg.norm(now - outline, axis=1).max())


def _peak_offset(scores: NDArray[np.float32], x: int, y: int) -> tuple[float, float]:
    """Sub-pixel offset of a correlation peak: a parabola through it and its
    neighbours, in each direction."""

    def vertex(left: float, centre: float, right: float) -> float:
        curvature = float(left) - 2.0 * float(centre) + float(right)
        if curvature >= 0.0:
            return 0.0
        return min(0.5, max(-0.5, 0.5 * (float(left) - float(right)) / curvature))

    h, w = scores.shape
    dx = vertex(scores[y, x - 1], scores[y, x], scores[y, x + 1]) if 0 < x < w - 1 else 0.0
    dy = vertex(scores[y - 1, x], scores[y, x], scores[y + 1, x]) if 0 < y < h - 1 else 0.0
    return dx, dy
