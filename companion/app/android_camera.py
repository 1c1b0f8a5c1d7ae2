"""Frames from an Android tablet's camera, behind ``frames.FrameSource``: OpenCV cannot
open Android's cameras, so frames come from Kivy's own camera provider for Android
(``kivy.core.camera``, which is ``CameraAndroid`` there).

Kivy's provider keeps the newest preview frame as NV21 bytes, safe to take from any
thread (``grab_frame``); that is how frames are read here, turned into BGR. A provider
without it (another platform's) is read from its texture instead: the texture's pixels
(RGBA, bottom row first) are copied on the UI thread, the only one that may touch
textures, and turned into BGR on the reading thread.

Android asks the player before an app may use the camera. The question is asked when
the source is made, which returns at once; the first ``read`` waits for the answer,
then has the camera opened on the UI thread. A refusal, a camera that does not open and
a camera that stops delivering frames are each a ``FeedError`` from ``read``, saying
what to do. Nothing here is imported on the desktop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import cv2
import numpy as np

from companion.app.frames import FeedError, Image

RESOLUTION = (1280, 720)
"""What the camera is asked for: enough to read a board across the table."""
FALLBACK_RESOLUTION = (640, 480)
"""Asked for when the camera refuses ``RESOLUTION`` (every Android camera has it)."""
FRAME_RATE = 30.0
PERMISSION_WAIT = 120.0
"""Seconds the first frame waits for the player to answer Android's question."""
OPEN_WAIT = 10.0
"""Seconds for the camera to open and deliver its first frame."""
STALL_WAIT = 5.0
"""Seconds without a new frame after which the camera is taken as stopped."""


class Ui(Protocol):
    """Runs work on the UI thread: ``once(work)`` soon, ``every(work, seconds)`` until
    the returned function is called."""

    def once(self, work: Callable[[], None]) -> None: ...

    def every(self, work: Callable[[], None], seconds: float) -> Callable[[], None]: ...


class KivyUi:
    """The UI thread through Kivy's clock."""

    def once(self, work: Callable[[], None]) -> None:
        from kivy.clock import Clock  # deferred: kivy

        Clock.schedule_once(lambda _dt: work())

    def every(self, work: Callable[[], None], seconds: float) -> Callable[[], None]:
        from kivy.clock import Clock  # deferred: kivy

        event = Clock.schedule_interval(lambda _dt: work(), seconds)
        cancel: Callable[[], None] = event.cancel
        return cancel


class CameraPermission:
    """Android's CAMERA permission through python-for-android's ``android.permissions``:
    asked at once, answered later. ``granted`` is None until the player answers."""

    def __init__(self, permissions: Any = None) -> None:
        self.answered = threading.Event()
        self.granted: bool | None = None
        if permissions is None:
            try:
                import android.permissions as permissions  # type: ignore[import-not-found, no-redef]  # deferred: Android only
            except ImportError:  # not the Android package: nothing to ask
                self._answer(True)
                return
        camera = permissions.Permission.CAMERA
        if permissions.check_permission(camera):
            self._answer(True)
            return
        permissions.request_permissions(
            [camera], lambda asked, grants: self._answer(bool(grants) and all(grants))
        )

    def _answer(self, granted: bool) -> None:
        self.granted = granted
        self.answered.set()

    def wait(self, seconds: float) -> bool | None:
        """The answer, waiting at most ``seconds`` for it (None: not answered yet)."""
        self.answered.wait(seconds)
        return self.granted


def kivy_camera(index: int, resolution: tuple[int, int]) -> Any:
    """Kivy's camera provider for this platform, started. Raises ``FeedError``."""
    from kivy.core.camera import Camera  # deferred: kivy

    if Camera is None:
        raise FeedError("no camera provider: this Kivy has no camera support")
    return Camera(index=index, resolution=resolution, stopped=False)


class AndroidCameraSource:
    """Camera ``index`` of the tablet as a ``FrameSource`` (see the module's docstring).
    ``provider(index, resolution)`` opens the camera (Kivy's by default), ``ui`` runs
    work on the UI thread, ``permission`` is the camera permission, asked now."""

    live = True

    def __init__(
        self,
        index: int = 0,
        resolution: tuple[int, int] = RESOLUTION,
        *,
        provider: Callable[[int, tuple[int, int]], Any] = kivy_camera,
        ui: Ui | None = None,
        permission: CameraPermission | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if index < 0:
            raise FeedError(f"{index} is not a camera number (0 is the first camera)")
        self.index = index
        self.resolution = resolution
        self.fps = FRAME_RATE
        self.provider_factory = provider
        self.ui = ui or KivyUi()
        self.permission = permission or CameraPermission()
        self.clock, self.sleep = clock, sleep
        self.camera: Any = None
        self._opened = threading.Event()
        self._failure = ""
        self._closed = False
        self._stop_copying: Callable[[], None] | None = None
        self._pixels: tuple[bytes, tuple[int, int]] | None = None
        self._pixels_lock = threading.Lock()
        self._last: bytes | None = None
        self._last_at = 0.0

    # ------------------------------------------------------------------ opening

    def _start(self) -> None:
        """Wait for the permission, then for the camera to open on the UI thread.
        Raises ``FeedError``."""
        granted = self.permission.wait(PERMISSION_WAIT)
        if granted is None:
            raise FeedError(
                "the camera was not allowed in time: allow Companion to use "
                "the camera, then start the game again"
            )
        if not granted:
            raise FeedError(
                "the permission to use the camera was refused: allow it in "
                "Android's settings (Apps, Companion, Permissions), then start "
                "the game again"
            )
        self.ui.once(self._open)
        if not self._opened.wait(OPEN_WAIT):
            raise FeedError(f"camera {self.index} did not open within {OPEN_WAIT:g} s")
        if self._failure:
            raise FeedError(self._failure)

    def _open(self) -> None:
        """On the UI thread: open the camera, and copy its texture when it has no
        frame buffer to take frames from."""
        try:
            if not self._closed:
                try:
                    self.camera = self.provider_factory(self.index, self.resolution)
                except FeedError:
                    raise
                except Exception:  # a size this camera does not offer: the one all offer
                    if self.resolution == FALLBACK_RESOLUTION:
                        raise
                    self.resolution = FALLBACK_RESOLUTION
                    self.camera = self.provider_factory(self.index, self.resolution)
                if not hasattr(self.camera, "grab_frame"):
                    self._stop_copying = self.ui.every(self._copy_texture, 1.0 / self.fps)
        except FeedError as error:
            self._failure = str(error)
        except Exception as error:  # a Java exception: camera in use, no such camera
            self._failure = f"cannot open camera {self.index}: {error}"
        self._opened.set()

    def _copy_texture(self) -> None:
        """On the UI thread: the texture's pixels, kept for the reading thread."""
        texture = getattr(self.camera, "texture", None)
        if texture is None:
            return
        pixels = bytes(texture.pixels)
        with self._pixels_lock:
            self._pixels = (pixels, (int(texture.width), int(texture.height)))

    # ------------------------------------------------------------------ reading

    def read(self) -> Image | None:
        """The next frame in BGR, waiting for it (at most the camera's frame rate).
        Raises ``FeedError`` when the camera cannot be used or stops delivering."""
        if self._closed:
            return None
        if self.camera is None:
            self._start()
            self._last_at = self.clock()
        else:
            early = self._last_at + 1.0 / self.fps - self.clock()
            if early > 0:
                self.sleep(early)
        wait = OPEN_WAIT if self._last is None else STALL_WAIT
        while not self._closed:
            raw = self._take()
            # the provider hands the newest frame again until the next one comes
            if raw is not None and raw[0] != self._last:
                self._last, self._last_at = raw[0], self.clock()
                return decode(*raw)
            if self.clock() - self._last_at > wait:
                raise FeedError(
                    f"camera {self.index} stopped delivering frames: close "
                    "other apps using it, then start the game again"
                )
            self.sleep(1.0 / (4 * self.fps))
        return None

    def _take(self) -> tuple[bytes, tuple[int, int], str] | None:
        """The newest raw frame (bytes, size, layout), or None while there is none."""
        grab = getattr(self.camera, "grab_frame", None)
        if grab is not None:
            data = grab()
            if data is None:
                return None
            size = tuple(self.camera.resolution)
            return bytes(data), (int(size[0]), int(size[1])), "nv21"
        with self._pixels_lock:
            pixels = self._pixels
        return None if pixels is None else (pixels[0], pixels[1], "rgba")

    def close(self) -> None:
        self._closed = True
        stop, self._stop_copying = self._stop_copying, None
        if stop is not None:
            stop()
        camera, self.camera = self.camera, None
        if camera is not None:
            self.ui.once(lambda: release(camera))


def release(camera: Any) -> None:
    """On the UI thread: stop ``camera`` and give it back to Android at once, so the
    next game can open it (Kivy's Android provider otherwise keeps it until it is
    garbage-collected)."""
    camera.stop()
    give_back = getattr(camera, "_release_camera", None)
    if give_back is not None:
        give_back()


def decode(data: bytes, size: tuple[int, int], layout: str) -> Image:
    """A raw camera frame as a BGR picture: ``nv21`` (Android's preview format: the
    luma plane then interleaved V and U at half resolution) or ``rgba`` (a texture's
    pixels, bottom row first). Raises ``FeedError`` for bytes that do not fit ``size``."""
    width, height = size
    buffer = np.frombuffer(data, dtype=np.uint8)
    if layout == "nv21":
        if buffer.size != width * height * 3 // 2:
            raise FeedError(f"a camera frame of {buffer.size} bytes is not {width}x{height} NV21")
        return np.ascontiguousarray(
            cv2.cvtColor(buffer.reshape(height * 3 // 2, width), cv2.COLOR_YUV2BGR_NV21)
        )
    if buffer.size != width * height * 4:
        raise FeedError(f"a camera texture of {buffer.size} bytes is not {width}x{height} RGBA")
    rgba = buffer.reshape(height, width, 4)[::-1]
    return np.ascontiguousarray(cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGR))
