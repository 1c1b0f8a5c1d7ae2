"""The Calibrate screen: the calibration wizard's steps with the live preview; each
step runs on a thread. In the layout step the fitted layout is drawn over the
picture (``widgets.LayoutOverlay``) and dragged into place there."""

from __future__ import annotations

import threading
from typing import Any

from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.feeds import CaptureSource, LiveFeed
from companion.app.frames import FeedError
from companion.app.gamesetup import GameSetup
from companion.app.screens.common import post
from companion.app.screens.common import running_app as _app


class CalibrateScreen(Screen):
    """The calibration wizard with its live preview."""

    step = StringProperty("lens")
    message = StringProperty("")
    busy = BooleanProperty(False)
    next_colour = StringProperty("")
    layout_editor = ObjectProperty(None, allownone=True)
    """The fitted layout being corrected (``layout_edit.LayoutEditor``)."""
    can_undo = BooleanProperty(False)
    needs_position = BooleanProperty(True)
    """Whether the game's layout step takes the calibration position's picture."""
    position_words = StringProperty("")
    game = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.wizard: Any = None
        self.preview: Any = None
        self.feed: Any = None

    def on_kv_post(self, base_widget: Any) -> None:
        # one row of buttons at a time, under the message: the layout step's own or
        # the other steps' Capture and Finish
        # (kept by a strong reference: ``ids`` holds only weak ones)
        self._buttons = {
            "layout": self.ids.layout_buttons.__self__,
            "other": self.ids.capture_buttons.__self__,
        }
        for row in self._buttons.values():
            row.parent.remove_widget(row)
        self.on_step(self, self.step)

    def on_step(self, _screen: Any, step: str) -> None:
        buttons = getattr(self, "_buttons", None)
        if buttons is None:
            return
        actions = self.ids.actions
        actions.clear_widgets()
        actions.add_widget(buttons["layout" if step == "layout" else "other"])

    def on_enter(self, *args: Any) -> None:
        self.open(_app().setup)

    def on_leave(self, *args: Any) -> None:
        self.close()

    def open(self, setup: GameSetup) -> None:
        from companion.app.wizard import (  # deferred: the calibration tools, when calibrating
            CalibrationWizard,
            WizardPreview,
        )

        self.close()
        app = _app()
        self.wizard = CalibrationWizard(setup.game)
        self.wizard.go(self.step)
        self.preview = WizardPreview(self.wizard)
        self.next_colour = app.t_name("colour", self.wizard.next_colour() or "")
        self.game = setup.game
        self.needs_position = len(self.wizard.layout_pictures()) > 1
        self.position_words = self.wizard.position_words()
        self.layout_editor = None
        if self.step == "layout":
            self.message = self.wizard.open_layout()
            self._editor_changed()
        camera = self.ids.camera
        camera.has_frame = False
        camera.texture = None
        if setup.camera not in ("index", "video"):
            camera.message = app.t("calibrate.no_camera")
            return
        target: int | str = setup.camera_index if setup.camera == "index" else setup.video
        try:
            source = CaptureSource(target)
        except FeedError as error:
            camera.message = str(error)
            return
        camera.message = app.t("play.camera_starting")
        self.feed = LiveFeed(
            source,
            self.preview,
            lambda _event: None,
            lambda frame, said: post(lambda: self._frame(frame, said)),
        ).start()

    def _frame(self, frame: Any, said: str) -> None:
        """A frame of the live view, and the wizard's problem with it, if any."""
        self.ids.camera.show_frame(frame)
        if said and said != self.message:
            self.message = said

    def close(self) -> None:
        """Stop the camera; its last frame is not kept (the next visit shows its own)."""
        if self.feed is not None:
            self.feed.stop()
            self.feed = None
        if self.preview is not None:
            self.preview.last = None

    def go(self, step: str) -> None:
        self.step = step
        if self.wizard is not None:
            self.wizard.go(step)
            if step == "layout":
                self.message = self.wizard.open_layout()
                self._editor_changed()

    def capture(self) -> None:
        frame = self.preview.last if self.preview is not None else None
        if frame is None:
            self.message = _app().t("calibrate.no_frame")
            return
        action = {
            "lens": self.wizard.capture_lens,
            "board": self.wizard.register,
            "check": self.wizard.check,
            "colours": self.wizard.capture_colour,
            "layout": self.wizard.capture_layout_empty,
        }[self.step]
        self._run(action, frame.copy())

    def finish_lens(self) -> None:
        self._run(lambda: self.wizard.finish_lens())

    # ------------------------------------------------------------------ the layout step

    def capture_empty(self) -> None:
        if not self.needs_position:
            self.message = _app().t("calibrate.layout.fitting")
        self._capture_with(lambda frame: self.wizard.capture_layout_empty(frame))

    def capture_position(self) -> None:
        self.message = _app().t("calibrate.layout.fitting")
        self._capture_with(lambda frame: self.wizard.capture_layout_position(frame))

    def undo_layout(self) -> None:
        if self.wizard is not None:
            self.message = self.wizard.undo_layout()
            self._editor_changed()

    def save_layout(self) -> None:
        if self.wizard is not None:
            self._run(self.wizard.save_layout)

    def layout_moved(self, label: str, shift_mm: tuple[float, float]) -> None:
        """After a drag on the picture (``LayoutOverlay.on_moved``)."""
        dx, dy = shift_mm
        self.message = _app().t(
            "calibrate.layout.moved", what=label, mm=f"{(dx * dx + dy * dy) ** 0.5:.1f}"
        )
        self.can_undo = self.layout_editor is not None and self.layout_editor.can_undo

    def _capture_with(self, action: Any) -> None:
        frame = self.preview.last if self.preview is not None else None
        if frame is None:
            self.message = _app().t("calibrate.no_frame")
            return
        self._run(action, frame.copy())

    def _editor_changed(self) -> None:
        editor = self.wizard.layout_editor if self.wizard is not None else None
        if editor is not self.layout_editor:
            self.layout_editor = editor
        elif self.step == "layout":
            self.ids.layout.redraw()
        self.can_undo = editor is not None and editor.can_undo

    def _run(self, action: Any, *args: Any) -> None:
        self.busy = True

        def work() -> None:
            text = action(*args)
            post(lambda: self._done(text))

        threading.Thread(target=work, daemon=True, name="calibration").start()

    def _done(self, text: str) -> None:
        self.busy = False
        self.message = text
        if self.wizard is not None:
            self.next_colour = _app().t_name("colour", self.wizard.next_colour() or "")
            self._editor_changed()
