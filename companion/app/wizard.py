"""The Calibrate screen's steps, over the calibration commands of ``companion calibrate``
(docs/calibration.md), taking their pictures from the live view instead of files:

1. ``lens`` — show the printed ChArUco target in many places; each capture is one view;
   *finish* fits the lens and saves the camera profile;
2. ``board`` — register the board from its corner markers in the current frame;
3. ``check`` — check the registration on the current frame (within 3 mm);
4. ``layout`` — the empty board, then (Shangri-La, Shendao) the calibration position;
   the board's layout is fitted as ``companion calibrate layout`` fits it and stored in
   the profile with the set's appearance, then shown over the picture for the players
   to drag what is off back into place (``layout_editor``, :mod:`layout_edit`);
5. ``colours`` — the empty board, then each colour's pieces; the colour model is fitted
   and saved after the last (the colour reader's; a board whose set appearance was
   learnt in step 4 is read by its own look instead).

Every method returns a message for the players; the calibration package's errors
become messages (``CalibrationError``), never tracebacks. The live preview draws the
board model where the registration puts it (``overlay``); in the layout step the
screen draws the layout itself.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.boards import board_geometry
from calibration.colours import capture_samples, fit_colour_model, save_colour_model
from calibration.config import load_config
from calibration.errors import CalibrationError
from calibration.intrinsics import calibrate_camera, load_camera_profile, save_camera_profile
from calibration.layout import fit_layout, load_layout, registered_view, save_layout
from calibration.profiles import board_path, camera_path, colours_path, layout_path
from calibration.registration import (
    check_registration,
    draw_overlay,
    load_board_profile,
    save_board_profile,
)
from calibration.targets import CharucoTarget, RejectedView, detect_target
from companion.app.frames import Image
from companion.app.layout_edit import LayoutEditor
from engines.observation import Observation
from vision.appearance import calibrate, calibration_layout, save_appearance
from vision.appearance_clear import describe, obstructions
from vision.appearance_core import AppearanceError
from vision.locate import register_board
from vision.models import load_model, referee_schema

STEPS = ("lens", "board", "check", "layout", "colours")
EMPTY_BOARD = "empty"
POSITION_GAMES = ("shangrila", "shendao")
"""Games whose layout step needs a picture of the calibration position; these pictures
also teach the camera the set's appearance."""


@dataclass
class WizardState:
    step: int = 0
    lens_views: list[Any] = field(default_factory=list)
    lens_rejected: list[Any] = field(default_factory=list)
    colour_frames: dict[str, Image] = field(default_factory=dict)
    layout_empty: Image | None = None
    layout_position: Image | None = None


class CalibrationWizard:
    """The calibration of one game's table with one profile (see the module)."""

    def __init__(self, game: str, profile: str = "default") -> None:
        self.game = game
        self.profile = profile
        self.config = load_config(None)
        self.state = WizardState()
        self.message = ""
        self._overlay_problem = ""
        self._board: Any = None
        self._camera: Any = None
        self._loaded = False
        self.layout_settings: Any = None
        """How finely the layout is fitted (``LayoutSettings``; None: the command's)."""
        self.layout_editor: Any = None
        """The fitted layout being corrected (``layout_edit.LayoutEditor``), once there
        is one."""

    @property
    def step(self) -> str:
        return STEPS[self.state.step]

    def go(self, step: str) -> None:
        self.state.step = STEPS.index(step)

    # ------------------------------------------------------------------ stored profiles

    def _load(self) -> None:
        """The stored camera and board profiles (None where there is none yet)."""
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
        if not self._loaded:
            self._load()
        if self._board is None or (self.step == "layout" and self.layout_editor is not None):
            return frame
        try:
            drawn = draw_overlay(self.config.registration, self._board, self._camera, frame)
        except (CalibrationError, cv2.error) as error:
            self.message = self._overlay_problem = f"the board model cannot be drawn: {error}"
            return frame
        if self._overlay_problem and self.message == self._overlay_problem:
            self.message = ""  # drawn again: the problem said before is over
        self._overlay_problem = ""
        return drawn

    # ------------------------------------------------------------------ the steps

    def capture_lens(self, frame: Image) -> str:
        defaults = self.config.charuco
        target = CharucoTarget(
            defaults.squares, defaults.square_mm, defaults.marker_mm, defaults.dictionary
        )
        label = f"view {len(self.state.lens_views) + len(self.state.lens_rejected) + 1}"
        outcome = detect_target(self.config.camera, target, label, frame)
        if isinstance(outcome, RejectedView):
            self.state.lens_rejected.append(outcome)
            return f"{label}: {outcome.reason}"
        self.state.lens_views.append(outcome)
        return f"{label}: {len(outcome.ids)} corners ({len(self.state.lens_views)} views)"

    def finish_lens(self) -> str:
        try:
            result = calibrate_camera(
                self.config.camera, self.state.lens_views, self.state.lens_rejected, "ChArUco"
            )
            save_camera_profile(result.profile, camera_path(self.profile))
        except CalibrationError as error:
            return str(error)
        self._loaded = False
        profile = result.profile
        return f"camera profile saved: RMS {profile.rms_px:.3f} px over {len(profile.views)} views"

    def register(self, frame: Image) -> str:
        if not self._loaded:
            self._load()
        try:
            geometry = board_geometry(self.game, None)
            registration = register_board(self.config.registration, geometry, frame, self._camera)
            save_board_profile(registration.profile, board_path(self.game, self.profile))
        except CalibrationError as error:
            return str(error)
        self._board = registration.profile
        self.layout_editor = None  # drawn through the old registration
        lines = [
            f"board registered from markers "
            f"{', '.join(map(str, registration.profile.markers_seen))} "
            f"({registration.profile.fit_rms_mm:.2f} mm RMS)"
        ]
        return "\n".join([*lines, *registration.warnings])

    def check(self, frame: Image) -> str:
        if not self._loaded:
            self._load()
        if self._board is None:
            return "register the board first"
        try:
            result = check_registration(
                self.config.registration, self._board, self._camera, frame, None
            )
        except CalibrationError as error:
            return str(error)
        limit = self.config.registration.check_limit_mm
        verdict = "OK" if result.max_mm <= limit else "TOO LARGE: register the board again"
        return (
            f"registration error {result.rms_mm:.2f} mm RMS, {result.max_mm:.2f} mm "
            f"max: {verdict} (limit {limit:g} mm)"
        )

    def colour_names(self) -> list[str]:
        """What to capture, in order: the empty board, then each colour."""
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
        if not self._loaded:
            self._load()
        if self._board is None:
            return "register the board first"
        frames = dict(self.state.colour_frames)
        empty = frames.pop(EMPTY_BOARD)
        try:
            capture = capture_samples(
                self.config.colours,
                self._board,
                self._camera,
                empty,
                frames,
                np.random.default_rng(0),
            )
            model, separation = fit_colour_model(self.config.colours, self._board, capture)
            save_colour_model(model, colours_path(self.game, self.profile))
        except CalibrationError as error:
            return str(error)
        a, b = separation.closest
        return (
            f"colour model saved; closest colours {a} and {b}, "
            f"{separation.distance:.1f} standard deviations apart"
        )

    # ------------------------------------------------------------------ the layout step

    def layout_pictures(self) -> tuple[str, ...]:
        """The pictures the layout step takes: the empty board, then (Shangri-La,
        Shendao) the calibration position."""
        return (EMPTY_BOARD, "position") if self.game in POSITION_GAMES else (EMPTY_BOARD,)

    def position_words(self) -> str:
        """The calibration position in words ("" for a game that needs none)."""
        position = self._calibration_position()
        if position is None:
            return ""
        by_colour: dict[str, list[str]] = {}
        for element in self._nominal().elements.values():
            value = position.value(element.name)
            if element.kind in ("space", "square") and value not in (None, "empty"):
                by_colour.setdefault(str(value), []).append(element.name)
        pieces = (
            "a stick in every gate"
            if self.game == "shendao"
            else "every bridge and every stone in place"
        )
        tiles = "; ".join(f"{colour} on {', '.join(names)}" for colour, names in by_colour.items())
        return f"{pieces}, and one tile each: {tiles}"

    def open_layout(self) -> str:
        """Show the layout stored in the profile for correcting, when there is one and
        the board is registered; a message saying what to do otherwise."""
        if not self._loaded:
            self._load()
        if self._board is None:
            return "register the board first (step 2): the layout is found through it"
        if self.layout_editor is not None:
            return ""
        path = layout_path(self.game, self.profile)
        if not path.exists():
            return ""
        try:
            fit = load_layout(path, self._nominal())
            self.layout_editor = self._editor(fit)
        except (CalibrationError, ValueError) as error:
            return f"{error}; capture the pictures again to fit it anew"
        return (
            "the layout stored in the profile is drawn over the picture; drag an "
            "outline that is off, or capture the pictures again to fit it anew"
        )

    def capture_layout_empty(self, frame: Image) -> str:
        """Keep ``frame`` as the empty board; a game that needs nothing more is fitted
        at once."""
        problem = self._layout_picture_problem(frame, "the empty board")
        if problem:
            return problem
        self.state.layout_empty = frame.copy()
        self.state.layout_position = None
        if self.game not in POSITION_GAMES:
            return self._fit_layout()
        return (
            f"empty board captured; now set up the calibration position "
            f"({self.position_words()}) and tap 'Pieces in place'"
        )

    def capture_layout_position(self, frame: Image) -> str:
        """Keep ``frame`` as the calibration position, then fit and store the layout
        and the set's appearance."""
        if self.game not in POSITION_GAMES:
            return f"{self.game} needs only the empty board"
        if self.state.layout_empty is None:
            return "take the picture of the empty board first ('Empty board')"
        problem = self._layout_picture_problem(frame, "the calibration position")
        if problem:
            return problem
        self.state.layout_position = frame.copy()
        return self._fit_layout()

    def undo_layout(self) -> str:
        editor = self.layout_editor
        if editor is None or not editor.undo():
            return "nothing to undo"
        return "last move undone; tap Save to keep the layout as it is now"

    def save_layout(self) -> str:
        """Write the corrected layout to the profile (and learn the set's appearance
        again from the pictures taken at this step, if there are any, at the corrected
        places)."""
        editor = self.layout_editor
        if editor is None:
            return "there is no layout to save yet: capture the pictures first"
        path = layout_path(self.game, self.profile)
        try:
            editor.save(path)
            learnt = self._learn_appearance(editor.fit.model)
        except (CalibrationError, AppearanceError) as error:
            return str(error)
        moved = len(editor.moved)
        return (
            f"board layout saved to {path} ({moved} element{'s' if moved != 1 else ''} "
            f"placed by hand)" + (f"; {learnt}" if learnt else "")
        )

    def _layout_picture_problem(self, frame: Image, what: str) -> str:
        if not self._loaded:
            self._load()
        if self._board is None:
            return "register the board first (step 2): the layout is found through it"
        height, width = frame.shape[:2]
        w, h = self._board.image_size
        if (width, height) != (w, h):
            return (
                f"the picture is {width}x{height} but the board was registered on "
                f"{w}x{h} pictures: register the board again (step 2), then take "
                f"{what}"
            )
        return ""

    def _nominal(self) -> Any:
        return load_model(self.game)

    def _calibration_position(self) -> Any:
        if self.game not in POSITION_GAMES:
            return None
        return calibration_layout(
            referee_schema(self.game),
            self._nominal(),
            list(board_geometry(self.game, None).player_colours),
        )

    def _view(self) -> Any:
        board = self._board
        return registered_view(
            board.matrix, board.image_size, self._camera if board.camera else None
        )

    def _editor(self, fit: Any) -> Any:
        return LayoutEditor(fit, self._view(), self._nominal())

    def _fit_layout(self) -> str:
        """Fit the layout from the pictures kept, as ``companion calibrate layout``
        does, store it and the set's appearance, and open it for correcting."""
        empty = self.state.layout_empty
        if empty is None:
            return "take the picture of the empty board first ('Empty board')"
        try:
            view = self._view()
            calibration = []
            if self.state.layout_position is not None:
                calibration.append((self.state.layout_position, view, self._calibration_position()))
            fit = fit_layout(
                self.game, self._nominal(), empty, view, calibration, self.layout_settings
            )
            path = layout_path(self.game, self.profile)
            save_layout(fit, path)
            self.layout_editor = self._editor(fit)
            learnt = self._learn_appearance(fit.model)
        except (CalibrationError, AppearanceError) as error:
            self.state.layout_position = None
            return f"{error}"
        furthest = max(fit.elements.values(), key=lambda f: f.moved_mm)
        doubtful = fit.doubtful()
        lines = [
            f"board layout saved: {len(fit.elements)} elements, the furthest from "
            f"the plan moved {furthest.moved_mm:.1f} mm ({furthest.name})"
        ]
        if doubtful:
            lines.append(
                f"check these (orange): {', '.join(doubtful[:8])}"
                + (" ..." if len(doubtful) > 8 else "")
            )
        if learnt:
            lines.append(learnt)
        lines.append("drag any outline that is off onto its printed place, then tap Save")
        return "\n".join(lines)

    def _learn_appearance(self, model: Any) -> str:
        """Learn and store the set's appearance from the pictures taken at this step (Shangri-La,
        Shendao); "" when there are none. Raises ``AppearanceError``, ``ProfileError``."""
        empty, position = self.state.layout_empty, self.state.layout_position
        if empty is None or position is None or self.game not in POSITION_GAMES:
            return ""
        view = self._view()
        layout = self._calibration_position()
        appearance = calibrate(self.game, model, empty, view, [(position, view, layout)])
        save_appearance(appearance, self.profile)
        found = obstructions(model, empty, view, position, view, layout)
        return "\n".join(
            [
                "set appearance saved: the camera now reads your set by its own look",
                *(f"warning: {w}" for w in describe(found, model.size_mm)),
            ]
        )


class WizardPreview:
    """The wizard as the live view's recogniser: reads nothing, draws the model."""

    def __init__(self, wizard: CalibrationWizard) -> None:
        self.wizard = wizard
        self.last: Image | None = None

    @property
    def message(self) -> str:
        """The wizard's message (a stored profile or the model that cannot be used)."""
        return self.wizard.message

    def feed(self, frame: Image) -> Observation | None:
        self.last = frame
        return None

    def overlay(
        self,
        frame: Image,
        observation: Observation | None,
        highlight: Collection[str],
        suggest: Collection[str],
    ) -> Image:
        return self.wizard.overlay(frame)
