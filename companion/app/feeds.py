"""Where readings of the table come from: a camera or a video (frames, read with OpenCV
and recognised by a ``Recogniser``), the table simulator (readings with no picture) and
the sensor board. Each runs on its own thread and hands its results to callbacks; none
of them touches the UI.

Kivy 2.3's own OpenCV camera does not know OpenCV 5, so frames are read here with
``cv2.VideoCapture`` and the app blits them into a texture itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import Any, Protocol

import cv2
import numpy as np

from calibration.errors import SourceError
from calibration.sources import opencv_path
from companion.app.frames import FeedError, FrameSource, Image
from companion.referee.events import Input, Seen
from engines.observation import Observation


class CaptureSource:
    """A camera (by index) or a video file, through ``cv2.VideoCapture``."""

    def __init__(self, target: int | str) -> None:
        self.target = target
        self.live = isinstance(target, int)
        if self.live and int(target) < 0:  # VideoCapture(-1) can crash the process
            raise FeedError(f"{target} is not a camera number (0 is the first camera)")
        if isinstance(target, str):
            try:
                target = opencv_path(target)
            except SourceError as error:
                raise FeedError(str(error)) from None
        self._capture = cv2.VideoCapture(target)
        if not self._capture.isOpened():
            self._capture.release()
            what = f"camera {target}" if self.live else f"the video {target}"
            raise FeedError(f"cannot open {what}")
        rate = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = rate if 1.0 <= rate <= 240.0 else 25.0

    def read(self) -> Image | None:
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return None
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return np.ascontiguousarray(frame)

    def close(self) -> None:
        self._capture.release()


def open_frame_source(target: int | str) -> FrameSource:
    """A camera (by index) or a video file. On an Android tablet a camera comes through
    the platform (``android_camera``: OpenCV cannot open Android's cameras); elsewhere
    both go through ``CaptureSource``. Raises ``FeedError``."""
    if isinstance(target, int):
        from kivy.utils import platform  # deferred: kivy; feeds is headless

        if platform == "android":
            from companion.app.android_camera import AndroidCameraSource  # deferred: Android only

            return AndroidCameraSource(target)
    return CaptureSource(target)


class Recogniser(Protocol):
    """Reads the table in frames: ``feed`` gives an observation (None while it cannot
    read one: board not found, frame black), ``overlay`` draws what it recognised and
    frames the ``highlight`` elements (what to put back) in red, ``suggest`` in green."""

    message: str
    """Why nothing is recognised now (empty when all is well)."""

    def feed(self, frame: Image) -> Observation | None: ...

    def overlay(
        self,
        frame: Image,
        observation: Observation | None,
        highlight: Collection[str],
        suggest: Collection[str],
    ) -> Image: ...


class NoRecognition:
    """Frames shown as they are, nothing read: used when the reading pipeline is not
    available, with the reason shown over the picture."""

    def __init__(self, reason: str) -> None:
        self.message = reason

    def feed(self, frame: Image) -> Observation | None:
        return None

    def overlay(
        self,
        frame: Image,
        observation: Observation | None,
        highlight: Collection[str],
        suggest: Collection[str],
    ) -> Image:
        return frame


DISPLAY_WIDTH = 960
"""Frames are shown at most this wide: the live view takes half a tablet's screen, and
a smaller texture is quicker to hand to the screen."""


def fit_width(frame: Image, width: int) -> Image:
    """``frame`` scaled down to ``width`` pixels wide (as it is when narrower)."""
    height, current = frame.shape[:2]
    if current <= width:
        return frame
    size = (width, max(1, round(height * width / current)))
    return np.asarray(cv2.resize(frame, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


def for_display(frame: Image) -> Image:
    """The frame as the live view draws it: at most ``DISPLAY_WIDTH`` wide, in BGRA (the
    layout the graphics driver takes without converting: measured 0.4 ms a blit against
    2.8 ms for BGR at 960x540)."""
    return np.asarray(
        cv2.cvtColor(fit_width(frame, DISPLAY_WIDTH), cv2.COLOR_BGR2BGRA), dtype=np.uint8
    )


def is_blank(frame: Image) -> bool:
    """A black or uniform frame (lens cap, camera still starting)."""
    small = frame[::16, ::16]
    return bool(small.max() - small.min() < 8)


class LiveFeed:
    """Reads a ``FrameSource`` and shows every frame (``for_display``), while the
    ``recogniser`` reads the newest frame on a second thread: the picture stays smooth
    however long reading the board takes (a frame arriving meanwhile replaces the one
    waiting, so readings never lag behind the table).

    ``on_frame(picture, message)`` gets each frame with the last recognition drawn on
    it; ``on_input`` gets each reading (``Seen`` from ``camera``); ``on_end`` is called
    once a video is over and its last frame read; ``on_error(why)`` instead when the
    source fails while reading (a ``FeedError``: a camera refused or gone).
    ``highlight``/``suggest`` are read on each frame, so the overlay follows the
    referee. A live camera is read as fast as it comes; a video at its own rate unless
    ``paced`` is False (benchmarks)."""

    def __init__(
        self,
        source: FrameSource,
        recogniser: Recogniser,
        on_input: Callable[[Input], None],
        on_frame: Callable[[Image, str], None],
        on_end: Callable[[], None] | None = None,
        paced: bool = True,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.source = source
        self.recogniser = recogniser
        self.on_input, self.on_frame, self.on_end = on_input, on_frame, on_end
        self.on_error = on_error
        self.failure = ""
        """Why the source failed while reading (empty while it has not)."""
        self.paced = paced
        self.highlight: Collection[str] = ()
        self.suggest: Collection[str] = ()
        self.frames = 0
        self.recognised = 0
        self.observations = 0
        """Frames read, frames recognised, and recognitions that gave an observation."""
        self._latest: Image | None = None
        self._observation: Observation | None = None
        self._message = ""
        self._lock = threading.Lock()
        self._fresh = threading.Event()
        self._read_all = threading.Event()
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, name="live-feed", daemon=True)
        self._thread = threading.Thread(target=self._recognise, name="recognition", daemon=True)

    def start(self) -> LiveFeed:
        self._reader.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._fresh.set()
        for thread in (self._reader, self._thread):
            if thread.is_alive() and thread is not threading.current_thread():
                thread.join(2.0)
        self.source.close()

    def _read(self) -> None:
        interval = 0.0 if self.source.live or not self.paced else 1.0 / self.source.fps
        next_at = time.perf_counter()
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except FeedError as error:
                self.failure = str(error)
                if self.on_error is not None:
                    self.on_error(self.failure)
                break
            if frame is None:
                break
            self.frames += 1
            with self._lock:
                self._latest = frame
                observation, message = self._observation, self._message
            self._fresh.set()
            shown = self.recogniser.overlay(frame, observation, self.highlight, self.suggest)
            self.on_frame(for_display(shown), message)
            if interval:
                next_at += interval
                delay = next_at - time.perf_counter()
                if delay > 0:
                    self._stop.wait(delay)
                else:
                    next_at = time.perf_counter()
        self._read_all.set()
        self._fresh.set()

    def _recognise(self) -> None:
        while not self._stop.is_set():
            self._fresh.wait(0.1)  # a timeout: the last frame may come as this one clears
            with self._lock:
                frame, self._latest = self._latest, None
                self._fresh.clear()
            if frame is None:
                if self._read_all.is_set():
                    break
                continue
            if is_blank(frame):
                observation, message = None, "blank"
            else:
                observation = self.recogniser.feed(frame)
                message = self.recogniser.message
            self.recognised += 1
            with self._lock:
                self._observation, self._message = observation, message
            if observation is not None:
                self.observations += 1
                self.on_input(Seen(observation, "camera"))
        if self.on_end is not None and not self._stop.is_set() and not self.failure:
            self.on_end()


class SimulatedTable:
    """The table simulator playing a game on the table: its readings (no picture) go
    to ``on_input`` every ``interval`` seconds; ``paused()`` holds them back (the
    players stop moving while the app is paused)."""

    def __init__(
        self,
        steps: Any,
        on_input: Callable[[Input], None],
        interval: float = 0.05,
        paused: Callable[[], bool] = lambda: False,
        on_end: Callable[[], None] | None = None,
    ) -> None:
        self.steps = steps
        self.on_input = on_input
        self.interval = interval
        self.paused = paused
        self.on_end = on_end
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-simulator", daemon=True)

    def start(self) -> SimulatedTable:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(2.0)

    def _run(self) -> None:
        for step in self.steps:
            while self.paused() and not self._stop.is_set():
                self._stop.wait(0.1)
            if self._stop.is_set():
                return
            self.on_input(step.event)
            self.sent += 1
            if self.interval:
                self._stop.wait(self.interval)
        if self.on_end is not None:
            self.on_end()
