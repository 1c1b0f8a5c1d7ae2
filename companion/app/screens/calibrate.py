"""The Calibrate screen: the calibration wizard's steps with the live preview; each
step runs on a thread."""

from __future__ import annotations

import threading
from typing import Any

from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.gamesetup import GameSetup
from companion.app.screens.common import post
from companion.app.screens.common import running_app as _app


class CalibrateScreen(Screen):
    """The calibration wizard with its live preview."""

    step = StringProperty("lens")
    message = StringProperty("")
    busy = BooleanProperty(False)
    next_colour = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.wizard: Any = None
        self.preview: Any = None
        self.feed: Any = None

    def on_enter(self, *args: Any) -> None:
        self.open(_app().setup)

    def on_leave(self, *args: Any) -> None:
        self.close()

    def open(self, setup: GameSetup) -> None:
        from companion.app.feeds import CaptureSource, FeedError, LiveFeed
        from companion.app.wizard import CalibrationWizard, WizardPreview

        self.close()
        app = _app()
        self.wizard = CalibrationWizard(setup.game)
        self.preview = WizardPreview(self.wizard)
        self.next_colour = app.t_name("colour", self.wizard.next_colour() or "")
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
        self.feed = LiveFeed(source, self.preview, lambda _event: None,
                             lambda frame, _m: post(lambda: camera.show_frame(frame))).start()

    def close(self) -> None:
        if self.feed is not None:
            self.feed.stop()
            self.feed = None

    def go(self, step: str) -> None:
        self.step = step
        if self.wizard is not None:
            self.wizard.go(step)

    def capture(self) -> None:
        frame = self.preview.last if self.preview is not None else None
        if frame is None:
            self.message = _app().t("calibrate.no_frame")
            return
        action = {"lens": self.wizard.capture_lens, "board": self.wizard.register,
                  "check": self.wizard.check, "colours": self.wizard.capture_colour}[self.step]
        self._run(action, frame.copy())

    def finish_lens(self) -> None:
        self._run(lambda: self.wizard.finish_lens())

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
