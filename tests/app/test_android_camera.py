"""The Android camera source with fakes of Kivy's camera provider (a frame buffer, or a
texture's pixels), of python-for-android's permissions and of the UI thread: frames in
BGR the right way up, the camera touched only on the UI thread, the permission asked
once and waited for, a refusal or a stalled camera said plainly, and the run-time choice
in ``feeds``."""

from __future__ import annotations

import queue
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest

from companion.app import android_camera
from companion.app.android_camera import AndroidCameraSource, CameraPermission, decode
from companion.app.feeds import CaptureSource, FeedError, LiveFeed, NoRecognition

SIZE = (64, 48)


def picture(seed: int) -> np.ndarray:
    """A BGR picture of 2x2 blocks (so NV21's half-resolution colour loses nothing)."""
    blocks = np.random.default_rng(seed).integers(0, 256, (SIZE[1] // 2, SIZE[0] // 2, 3))
    return np.repeat(np.repeat(blocks, 2, axis=0), 2, axis=1).astype(np.uint8)


def nv21(bgr: np.ndarray) -> bytes:
    """``bgr`` as Android's camera preview gives it: Y, then V and U interleaved."""
    height, width = bgr.shape[:2]
    i420 = cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420).reshape(-1)
    y, rest = i420[: width * height], i420[width * height :]
    u, v = rest[: rest.size // 2], rest[rest.size // 2 :]
    vu = np.empty(rest.size, np.uint8)
    vu[0::2], vu[1::2] = v, u
    return bytes(np.concatenate([y, vu]))


class FakeUi:
    """The UI thread: runs what is handed to it, in order, on its own thread."""

    def __init__(self) -> None:
        self.work: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.repeating: list[tuple[Callable[[], None], float]] = []

    def _run(self) -> None:
        while (work := self.work.get()) is not None:
            work()

    def once(self, work: Callable[[], None]) -> None:
        self.work.put(work)

    def every(self, work: Callable[[], None], seconds: float) -> Callable[[], None]:
        stopped = threading.Event()

        def tick() -> None:
            if not stopped.is_set():
                work()
                threading.Timer(seconds, lambda: self.once(tick)).start()

        self.once(tick)
        self.repeating.append((work, seconds))
        return stopped.set

    def on_ui(self) -> bool:
        return threading.current_thread() is self.thread

    def close(self) -> None:
        self.work.put(None)


@pytest.fixture
def ui() -> Any:
    fake = FakeUi()
    yield fake
    fake.close()


class BufferCamera:
    """Kivy's ``CameraAndroid``: the newest preview frame as NV21 bytes."""

    def __init__(self, ui: FakeUi, index: int, resolution: tuple[int, int]) -> None:
        assert ui.on_ui(), "the camera is opened on the UI thread"
        self.resolution = resolution
        self.frame: bytes | None = None
        self.stopped = False
        self.ui = ui

    def grab_frame(self) -> bytes | None:
        return self.frame

    def stop(self) -> None:
        assert self.ui.on_ui()
        self.stopped = True

    def _release_camera(self) -> None:
        assert self.ui.on_ui() and self.stopped
        self.released = True


class Texture:
    def __init__(self, ui: FakeUi, rgba_bottom_up: bytes) -> None:
        self.ui, self.width, self.height = ui, *SIZE
        self._pixels = rgba_bottom_up

    @property
    def pixels(self) -> bytes:
        assert self.ui.on_ui(), "textures are read on the UI thread only"
        return self._pixels


class TextureCamera:
    """A Kivy camera provider with only a texture."""

    def __init__(self, ui: FakeUi, texture: Texture) -> None:
        self.texture = texture
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def permissions(granted: bool | None, already: bool = False) -> Any:
    """python-for-android's ``android.permissions``; ``granted`` None: the player has
    not answered yet (``answer`` answers later)."""
    module = types.SimpleNamespace(asked=[], callbacks=[])
    module.Permission = types.SimpleNamespace(CAMERA="android.permission.CAMERA")
    module.check_permission = lambda permission: already

    def request_permissions(asked: list[str], callback: Callable[..., None]) -> None:
        module.asked.append(asked)
        module.callbacks.append(callback)
        if granted is not None:
            callback(asked, [granted])

    module.request_permissions = request_permissions
    module.answer = lambda yes: module.callbacks[-1](["android.permission.CAMERA"], [yes])
    return module


def test_nv21_and_texture_frames_become_bgr_the_right_way_up() -> None:
    bgr = picture(1)
    assert np.abs(decode(nv21(bgr), SIZE, "nv21").astype(int) - bgr).max() <= 3
    rgba = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGBA)[::-1]  # bottom row first
    assert np.array_equal(decode(rgba.tobytes(), SIZE, "rgba"), bgr)
    with pytest.raises(FeedError, match="is not 64x48 NV21"):
        decode(b"\x00" * 100, SIZE, "nv21")


def test_frames_from_the_camera_buffer(ui: FakeUi) -> None:
    cameras: list[BufferCamera] = []

    def provider(index: int, resolution: tuple[int, int]) -> BufferCamera:
        cameras.append(BufferCamera(ui, index, resolution))
        return cameras[-1]

    source = AndroidCameraSource(
        0, SIZE, provider=provider, ui=ui, permission=CameraPermission(permissions(True))
    )
    frames = [picture(2), picture(3)]

    def camera_runs() -> None:  # the preview callback, on Android's thread
        while not cameras:
            time.sleep(0.001)
        for frame in frames:
            cameras[0].frame = nv21(frame)
            time.sleep(0.1)

    threading.Thread(target=camera_runs, daemon=True).start()
    for expected in frames:
        frame = source.read()
        assert frame is not None and frame.shape == (48, 64, 3)
        assert np.abs(frame.astype(int) - expected).max() <= 3  # each frame once, in order
    source.close()
    assert source.read() is None
    time.sleep(0.05)
    assert cameras[0].stopped and cameras[0].released  # the next game can open it


def test_a_size_the_camera_refuses_falls_back_to_640x480(ui: FakeUi) -> None:
    asked: list[tuple[int, int]] = []

    def provider(index: int, resolution: tuple[int, int]) -> BufferCamera:
        asked.append(resolution)
        if resolution != (640, 480):
            raise RuntimeError("setParameters failed")
        camera = BufferCamera(ui, index, resolution)
        camera.frame = nv21(np.zeros((480, 640, 3), np.uint8))
        return camera

    source = AndroidCameraSource(
        0, provider=provider, ui=ui, permission=CameraPermission(permissions(True))
    )
    frame = source.read()
    assert frame is not None and frame.shape == (480, 640, 3)
    assert asked == [(1280, 720), (640, 480)]
    source.close()


def test_frames_from_the_texture_are_read_on_the_ui_thread(ui: FakeUi) -> None:
    bgr = picture(4)
    texture = Texture(ui, cv2.cvtColor(bgr, cv2.COLOR_BGR2RGBA)[::-1].tobytes())
    camera = TextureCamera(ui, texture)
    source = AndroidCameraSource(
        0, SIZE, provider=lambda i, r: camera, ui=ui, permission=CameraPermission(permissions(True))
    )
    frame = source.read()
    assert frame is not None and np.array_equal(frame, bgr)
    assert ui.repeating and ui.repeating[0][1] == pytest.approx(1 / 30)
    source.close()


def test_the_permission_is_asked_at_once_and_waited_for(ui: FakeUi) -> None:
    android = permissions(None)
    permission = CameraPermission(android)
    assert android.asked == [["android.permission.CAMERA"]]
    camera = BufferCamera.__new__(BufferCamera)
    camera.resolution, camera.frame, camera.stopped, camera.ui = SIZE, nv21(picture(5)), False, ui
    source = AndroidCameraSource(
        0, SIZE, provider=lambda i, r: camera, ui=ui, permission=permission
    )
    threading.Timer(0.1, lambda: android.answer(True)).start()
    started = time.monotonic()
    assert source.read() is not None
    assert time.monotonic() - started >= 0.09
    already = permissions(None, already=True)
    assert CameraPermission(already).wait(0) is True and already.asked == []


def test_a_refusal_is_said_plainly(ui: FakeUi) -> None:
    opened: list[int] = []
    source = AndroidCameraSource(
        0,
        SIZE,
        provider=lambda i, r: opened.append(i),
        ui=ui,
        permission=CameraPermission(permissions(False)),
    )
    with pytest.raises(
        FeedError,
        match="the permission to use the camera was refused: allow it in Android's settings",
    ):
        source.read()
    assert opened == []


def test_a_camera_that_does_not_open_or_stops(ui: FakeUi) -> None:
    def busy(index: int, resolution: tuple[int, int]) -> Any:
        raise RuntimeError("Fail to connect to camera service")

    source = AndroidCameraSource(
        0, SIZE, provider=busy, ui=ui, permission=CameraPermission(permissions(True))
    )
    with pytest.raises(FeedError, match="cannot open camera 0: Fail to connect"):
        source.read()

    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    camera = BufferCamera.__new__(BufferCamera)
    camera.resolution, camera.frame, camera.stopped, camera.ui = SIZE, nv21(picture(6)), False, ui
    source = AndroidCameraSource(
        0,
        SIZE,
        provider=lambda i, r: camera,
        ui=ui,
        permission=CameraPermission(permissions(True)),
        clock=lambda: now[0],
        sleep=sleep,
    )
    assert source.read() is not None
    with pytest.raises(FeedError, match="camera 0 stopped delivering frames"):
        source.read()  # the same frame for ever
    assert android_camera.STALL_WAIT <= now[0] <= android_camera.STALL_WAIT + 0.1


def test_the_live_feed_says_why_a_source_failed() -> None:
    class Refused:
        fps, live = 30.0, True

        def read(self) -> Any:
            raise FeedError("the permission to use the camera was refused")

        def close(self) -> None:
            pass

    errors: list[str] = []
    ended: list[bool] = []
    feed = LiveFeed(
        Refused(),
        NoRecognition("none"),
        lambda event: None,
        lambda frame, message: None,
        on_end=lambda: ended.append(True),
        on_error=errors.append,
    ).start()
    deadline = time.monotonic() + 2.0
    while feed._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    feed.stop()
    assert errors == ["the permission to use the camera was refused"]
    assert ended == [] and feed.failure == errors[0]


def test_a_camera_comes_through_the_platform_on_android(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import kivy.utils

    from companion.app.feeds import open_frame_source

    monkeypatch.setattr(kivy.utils, "platform", "android")
    source = open_frame_source(0)  # nothing opened yet: the first read opens it
    assert isinstance(source, AndroidCameraSource) and source.live
    source.close()
    with pytest.raises(FeedError, match="cannot open the video"):
        open_frame_source(str(tmp_path / "missing.mp4"))  # a video: OpenCV, as ever
    monkeypatch.setattr(kivy.utils, "platform", "linux")
    monkeypatch.setattr(CaptureSource, "__init__", lambda self, target: None)
    assert isinstance(open_frame_source(0), CaptureSource)  # the desktop's camera
