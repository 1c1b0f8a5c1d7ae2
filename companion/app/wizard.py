"""The Calibrate screen's steps, over the calibration commands of ``companion calibrate``
(docs/calibration.md), taking their pictures from the live view instead of files:

1. ``lens`` — show the printed ChArUco target in many places; each capture is one view;
   *finish* fits the lens and saves the camera profile;
2. ``board`` — register the board from its corner markers in the current frame;
3. ``check`` — check the registration on the current frame (within 3 mm);
4. ``colours`` — the empty board, then each colour's pieces; the colour model is fitted
   and saved after the last.

Every method returns a message for the players; the calibration package's errors
become messages (``CalibrationError``), never tracebacks. The live preview draws the
board model where the registration puts it (``overlay``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.app.feeds import Image
from engines.observation import Observation

STEPS = ("lens", "board", "check", "colours")
EMPTY_BOARD = "empty"


@dataclass
class WizardState:
    step: int = 0
    lens_views: list[Any] = field(default_factory=list)
    lens_rejected: list[Any] = field(default_factory=list)
    colour_frames: dict[str, Image] = field(default_factory=dict)


class CalibrationWizard:
    """The calibration of one game's table with one profile (see the module)."""

    def __init__(self, game: str, profile: str = "default") -> None:
        from calibration.config import load_config

        self.game = game
        self.profile = profile
        self.config = load_config(None)
        self.state = WizardState()
        self.message = ""
        self._board: Any = None
        self._camera: Any = None
        self._loaded = False

    @property
    def step(self) -> str:
        return STEPS[self.state.step]

    def go(self, step: str) -> None:
        self.state.step = STEPS.index(step)

    # ------------------------------------------------------------------ stored profiles

    def _load(self) -> None:
        """The stored camera and board profiles (None where there is none yet)."""
        from calibration.errors import CalibrationError
        from calibration.intrinsics import load_camera_profile
        from calibration.profiles import board_path, camera_path
        from calibration.registration import load_board_profile

        self._loaded = True
        try:
            path = camera_path(self.profile)
            self._camera = load_camera_profile(path) if path.exists() else None
            path = board_path(self.game, self.profile)
            self._board = load_board_profile(path, self.game) if path.exists() else None
        except CalibrationError as error:
            self._camera = self._board = None
            self.message = str(error)

    # ------------------------------------------------------------------ preview

    def overlay(self, frame: Image) -> Image:
        """The frame with the board model where the registration puts it (green)."""
        from calibration.errors import CalibrationError
        from calibration.registration import draw_overlay

        if not self._loaded:
            self._load()
        if self._board is None:
            return frame
        try:
            return draw_overlay(self.config.registration, self._board, self._camera, frame)
        except (CalibrationError, cv2.error):
            return frame

    # ------------------------------------------------------------------ the steps

    def capture_lens(self, frame: Image) -> str:
        from calibration.targets import CharucoTarget, RejectedView, detect_target

        defaults = self.config.charuco
        target = CharucoTarget(defaults.squares, defaults.square_mm, defaults.marker_mm,
                               defaults.dictionary)
        label = f"view {len(self.state.lens_views) + len(self.state.lens_rejected) + 1}"
        outcome = detect_target(self.config.camera, target, label, frame)
        if isinstance(outcome, RejectedView):
            self.state.lens_rejected.append(outcome)
            return f"{label}: {outcome.reason}"
        self.state.lens_views.append(outcome)
        return f"{label}: {len(outcome.ids)} corners ({len(self.state.lens_views)} views)"

    def finish_lens(self) -> str:
        from calibration.errors import CalibrationError
        from calibration.intrinsics import calibrate_camera, save_camera_profile
        from calibration.profiles import camera_path

        try:
            result = calibrate_camera(self.config.camera, self.state.lens_views,
                                      self.state.lens_rejected, "ChArUco")
            save_camera_profile(result.profile, camera_path(self.profile))
        except CalibrationError as error:
            return str(error)
        self._loaded = False
        profile = result.profile
        return (f"camera profile saved: RMS {profile.rms_px:.3f} px over "
                f"{len(profile.views)} views")

    def register(self, frame: Image) -> str:
        from calibration.boards import board_geometry
        from calibration.errors import CalibrationError
        from calibration.profiles import board_path
        from calibration.registration import register_with_markers, save_board_profile

        if not self._loaded:
            self._load()
        try:
            geometry = board_geometry(self.game, None)
            registration = register_with_markers(self.config.registration, geometry, frame,
                                                 self._camera)
            save_board_profile(registration.profile, board_path(self.game, self.profile))
        except CalibrationError as error:
            return str(error)
        self._board = registration.profile
        lines = [f"board registered from markers "
                 f"{', '.join(map(str, registration.profile.markers_seen))} "
                 f"({registration.profile.fit_rms_mm:.2f} mm RMS)"]
        return "\n".join([*lines, *registration.warnings])

    def check(self, frame: Image) -> str:
        from calibration.errors import CalibrationError
        from calibration.registration import check_registration

        if not self._loaded:
            self._load()
        if self._board is None:
            return "register the board first"
        try:
            result = check_registration(self.config.registration, self._board, self._camera,
                                        frame, None)
        except CalibrationError as error:
            return str(error)
        limit = self.config.registration.check_limit_mm
        verdict = "OK" if result.max_mm <= limit else "TOO LARGE: register the board again"
        return (f"registration error {result.rms_mm:.2f} mm RMS, {result.max_mm:.2f} mm "
                f"max: {verdict} (limit {limit:g} mm)")

    def colour_names(self) -> list[str]:
        """What to capture, in order: the empty board, then each colour."""
        from calibration.boards import board_geometry

        return [EMPTY_BOARD, *board_geometry(self.game, None).player_colours]

    def next_colour(self) -> str | None:
        for name in self.colour_names():
            if name not in self.state.colour_frames:
                return name
        return None

    def capture_colour(self, frame: Image) -> str:
        """Keep the frame for the next colour; after the last, fit and save the model."""
        name = self.next_colour()
        if name is None:
            self.state.colour_frames.clear()
            name = EMPTY_BOARD
        self.state.colour_frames[name] = frame.copy()
        following = self.next_colour()
        if following is not None:
            return f"{name}: captured; next: {following}"
        return self._fit_colours()

    def _fit_colours(self) -> str:
        from calibration.colours import capture_samples, fit_colour_model, save_colour_model
        from calibration.errors import CalibrationError
        from calibration.profiles import colours_path

        if not self._loaded:
            self._load()
        if self._board is None:
            return "register the board first"
        frames = dict(self.state.colour_frames)
        empty = frames.pop(EMPTY_BOARD)
        try:
            capture = capture_samples(self.config.colours, self._board, self._camera, empty,
                                      frames, np.random.default_rng(0))
            model, separation = fit_colour_model(self.config.colours, self._board, capture)
            save_colour_model(model, colours_path(self.game, self.profile))
        except CalibrationError as error:
            return str(error)
        a, b = separation.closest
        return (f"colour model saved; closest colours {a} and {b}, "
                f"{separation.distance:.1f} standard deviations apart")


class WizardPreview:
    """The wizard as the live view's recogniser: reads nothing, draws the model."""

    def __init__(self, wizard: CalibrationWizard) -> None:
        self.wizard = wizard
        self.message = ""
        self.last: Image | None = None

    def feed(self, frame: Image) -> Observation | None:
        self.last = frame
        return None

    def overlay(self, frame: Image, observation: Observation | None,
                highlight: Collection[str], suggest: Collection[str]) -> Image:
        return self.wizard.overlay(frame)
