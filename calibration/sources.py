"""Where frames come from: image files, a folder of them, a video, a live camera.

Every reader raises ``SourceError`` with the path or camera number when the source
cannot be opened; the frame iterators yield ``(label, image)`` pairs, the label naming
the file or frame for messages. Live cameras are opened through a factory argument so
tests can pass a scripted fake.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import SourceError

Image = NDArray[np.uint8]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
# Webcams settle their exposure and white balance over their first frames: about half
# a second at 30 frames per second is thrown away before a still is kept.
WARM_UP_FRAMES = 15


class Capture(Protocol):
    """What is used of ``cv2.VideoCapture``."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, Any]: ...

    def release(self) -> None: ...


CaptureFactory = Callable[[int], Capture]


def read_image(path: Path) -> Image:
    """The image at ``path`` (BGR). Raises ``SourceError`` when it cannot be read."""
    if not path.is_file():
        raise SourceError(f"no image file at {path}")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise SourceError(f"{path} cannot be read as an image")
    return np.asarray(image)


def image_files(folder: Path) -> list[Path]:
    """The image files in ``folder``, sorted by name. Raises ``SourceError`` when it is
    not a folder or holds no images."""
    if not folder.is_dir():
        raise SourceError(f"{folder} is not a folder")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {folder}")
    return files


def folder_frames(folder: Path) -> Iterator[tuple[str, Image | None]]:
    """Every image of ``folder``; ``None`` for a file that cannot be decoded, so the
    caller can report it and go on."""
    for path in image_files(folder):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        yield path.name, None if image is None else np.asarray(image)


def video_frames(path: Path, step: int) -> Iterator[tuple[str, Image]]:
    """Every ``step``-th frame of the video at ``path``. Raises ``SourceError`` when it
    cannot be opened or holds no frame."""
    if not path.is_file():
        raise SourceError(f"no video file at {path}")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise SourceError(f"{path} cannot be opened as a video")
    try:
        index = 0
        any_frame = False
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            any_frame = True
            if index % step == 0:
                yield f"frame {index}", np.asarray(frame)
            index += 1
        if not any_frame:
            raise SourceError(f"{path} holds no readable frame")
    finally:
        capture.release()


def _open_camera(index: int, factory: CaptureFactory) -> Capture:
    # OpenCV's VideoCapture(-1) ("any camera") can crash the process on some systems.
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise SourceError(f"{index!r} is not a camera number (0 is the first camera)")
    capture = factory(index)
    if not capture.isOpened():
        capture.release()
        raise SourceError(f"cannot open camera {index}: no such camera, or another program "
                          "is using it")
    return capture


def camera_frames(index: int, interval_s: float, timeout_s: float,
                  factory: CaptureFactory = cv2.VideoCapture,
                  clock: Callable[[], float] = time.monotonic,
                  sleep: Callable[[float], None] = time.sleep) -> Iterator[tuple[str, Image]]:
    """Frames from live camera ``index``, one every ``interval_s`` seconds, for at most
    ``timeout_s`` seconds. Raises ``SourceError`` when the camera cannot be opened or
    stops delivering frames."""
    capture = _open_camera(index, factory)
    try:
        for _ in range(WARM_UP_FRAMES):
            capture.read()
        start = clock()
        count = 0
        while clock() - start < timeout_s:
            ok, frame = capture.read()
            if not ok:
                raise SourceError(f"camera {index} stopped delivering frames")
            count += 1
            yield f"camera frame {count}", np.asarray(frame)
            sleep(interval_s)
    finally:
        capture.release()


def grab_frame(index: int, factory: CaptureFactory = cv2.VideoCapture) -> Image:
    """One still from live camera ``index``, after its exposure has settled.
    Raises ``SourceError``."""
    capture = _open_camera(index, factory)
    try:
        frame = None
        for _ in range(WARM_UP_FRAMES + 1):
            ok, grabbed = capture.read()
            if ok:
                frame = grabbed
        if frame is None:
            raise SourceError(f"camera {index} delivered no frame")
        return np.asarray(frame)
    finally:
        capture.release()
