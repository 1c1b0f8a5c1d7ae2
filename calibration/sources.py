"""Where frames come from: image files, a folder of them, a video, a live camera.

Every reader raises ``SourceError`` with the path or camera number when the source
cannot be opened; the frame iterators yield ``(label, image)`` pairs, the label naming
the file or frame for messages. Live cameras are opened through a factory argument so
tests can pass a scripted fake.
"""

from __future__ import annotations

import os
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


def shown(path: Path | str) -> str:
    """``path`` as it can be printed, whatever bytes its name holds."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def opencv_path(path: Path | str) -> str:
    """``path`` as OpenCV's file functions take it. Raises ``SourceError`` for a name
    that is not UTF-8 text: OpenCV crashes the whole process on one."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise SourceError(f"the file name {shown(text)} is not UTF-8 text: rename it") from None
    return text


def decode_image(path: Path) -> Image | None:
    """The picture in the file at ``path`` (BGR), or None when it holds none. The file
    is read here and decoded from memory, so any name Python can open will do.
    Raises ``OSError`` when the file cannot be read."""
    data = np.fromfile(path, np.uint8)
    if data.size == 0:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return None if image is None else np.asarray(image)


def read_image(path: Path) -> Image:
    """The image at ``path`` (BGR). Raises ``SourceError`` when it cannot be read."""
    if not path.is_file():
        raise SourceError(f"no image file at {shown(path)}")
    try:
        image = decode_image(path)
    except OSError as error:
        raise SourceError(f"cannot read {shown(path)}: {error.strerror or error}") from None
    if image is None:
        raise SourceError(f"{shown(path)} cannot be read as an image")
    return image


def write_image(path: Path, image: Image) -> None:
    """Write ``image`` in the format its suffix names (``.png``, ``.jpg``...), making
    its folder if need be. Encoded here and written by Python, so any name will do.
    Raises ``SourceError``."""
    try:
        ok, encoded = cv2.imencode(path.suffix.lower() or ".none", image)
    except cv2.error:
        ok = False
    if not ok:
        raise SourceError(f"cannot write {shown(path)}: give it a picture's suffix (.png or .jpg)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(encoded.tobytes())
    except OSError as error:
        raise SourceError(f"cannot write {shown(path)}: {error.strerror or error}") from None


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
    """Every image of ``folder``; ``None`` for a file that holds no picture, so the
    caller can report it and go on. Raises ``SourceError`` naming a file that cannot
    be read at all (no permission, a folder, a disk error): that is for the player to
    put right, not a view to pass over."""
    for path in image_files(folder):
        try:
            image = decode_image(path)
        except OSError as error:
            raise SourceError(f"cannot read {shown(path)}: {error.strerror or error}") from None
        yield shown(path.name), image


def video_frames(path: Path, step: int) -> Iterator[tuple[str, Image]]:
    """Every ``step``-th frame of the video at ``path``. Raises ``SourceError`` when it
    cannot be opened or holds no frame."""
    if not path.is_file():
        raise SourceError(f"no video file at {shown(path)}")
    capture = cv2.VideoCapture(opencv_path(path))
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
        raise SourceError(
            f"cannot open camera {index}: no such camera, or another program is using it"
        )
    return capture


def camera_frames(
    index: int,
    interval_s: float,
    timeout_s: float,
    factory: CaptureFactory = cv2.VideoCapture,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[tuple[str, Image]]:
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
