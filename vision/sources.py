"""Where the camera pipeline's frames come from: a live camera, a video file, a folder of
images. Whatever the source, the pipeline sees one stream of :class:`SourceFrame`.

Opening a source that cannot work (no such file, a folder without images, a video that
decodes to nothing, a camera that does not open) raises
:class:`calibration.errors.SourceError` at once, with the path or camera number and what
to do. Once open, a source never raises: a frame that cannot be read (a damaged image in
the folder, a camera that stops delivering) comes as a frame without an image and a
``problem`` saying why, so the pipeline reports it and goes on or stops cleanly.
:func:`blank_frame` tells an empty or black picture from a real one.

Timestamps are seconds: from the video's own clock for a video, from the frame rate
given for a folder, from the monotonic clock since opening for a camera.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.errors import SourceError
from calibration.sources import (
    IMAGE_SUFFIXES,
    WARM_UP_FRAMES,
    Capture,
    CaptureFactory,
    image_files,
)

Image = NDArray[np.uint8]

# A frame whose mean level is under 12 of 255 and that hardly varies (standard deviation
# under 4) shows nothing: a lens cap, a dark room, a camera that delivers zeros.
BLACK_MEAN = 12.0
BLACK_STD = 4.0
# A frame that varies by less than 1.5 levels is one flat colour (a test pattern, a
# camera pointed at a wall); sensor noise alone varies by more than that on a real scene.
FLAT_STD = 1.5
# About ten thousand pixels, evenly spread, are enough to judge a frame's level and
# spread (every 8th pixel each way at least).
_SAMPLE_PIXELS = 10_000
_MIN_SAMPLE_STEP = 8
# A live camera may drop a few frames (USB hiccups); after this many failed reads in a
# row it is taken as stopped.
CAMERA_RETRIES = 5
# Folder frames are this many per second unless told otherwise: one image per move.
DEFAULT_FOLDER_FPS = 1.0


class SourceFrame(NamedTuple):
    """One frame: ``timestamp`` (seconds), ``image`` (BGR, ``None`` when the frame could
    not be read), ``label`` naming it in messages, ``problem`` saying why there is no
    image (empty otherwise)."""

    timestamp: float
    image: Image | None
    label: str
    problem: str = ""


def blank_frame(image: Image | None) -> str | None:
    """Why ``image`` holds no picture to read (empty, not an image, black, one flat
    colour), or ``None`` when it is a real picture."""
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        return "empty frame: the source delivered no picture"
    if (
        image.dtype != np.uint8
        or image.ndim not in (2, 3)
        or (image.ndim == 3 and image.shape[2] not in (1, 3, 4))
    ):
        return (
            f"not a picture: an array of {image.dtype} with shape {image.shape} "
            "(expected 8-bit grey or BGR)"
        )
    step = max(_MIN_SAMPLE_STEP, int((image.shape[0] * image.shape[1] / _SAMPLE_PIXELS) ** 0.5))
    sample = image[::step, ::step].astype(np.float32)
    mean, spread = float(sample.mean()), float(sample.std())
    if mean < BLACK_MEAN and spread < BLACK_STD:
        return "black frame: the camera sees nothing (lens cap on, or the light off?)"
    if spread < FLAT_STD:
        return "blank frame: the picture is one flat colour (is the camera pointed at the table?)"
    return None


@dataclass
class FrameSource:
    """An open source of frames; iterate it for :class:`SourceFrame` s, ``close`` it
    (or use it in a ``with`` block) to free a camera or video file."""

    name: str
    _frames: Iterator[SourceFrame]
    _close: Callable[[], None]

    def __iter__(self) -> Iterator[SourceFrame]:
        return self._frames

    def close(self) -> None:
        self._close()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_source(
    spec: str | int | Path,
    fps: float | None = None,
    factory: CaptureFactory = cv2.VideoCapture,
    clock: Callable[[], float] = time.monotonic,
) -> FrameSource:
    """Open ``spec``: a camera number (``0`` or ``"0"``), a folder of images, an image
    file or a video file. ``fps`` sets the timestamps of folder images (default one a
    second). Raises ``SourceError`` when the source cannot be opened."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return open_camera(int(spec), factory, clock)
    path = Path(spec)
    if path.is_dir():
        return open_folder(path, fps or DEFAULT_FOLDER_FPS)
    if not path.exists():
        raise SourceError(f"no file or folder at {path}")
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return open_images([path], fps or DEFAULT_FOLDER_FPS, str(path))
    return open_video(path, factory)


def open_folder(folder: Path, fps: float = DEFAULT_FOLDER_FPS) -> FrameSource:
    """The images of ``folder`` in name order. Raises ``SourceError`` when it is not a
    folder or holds no image files."""
    return open_images(image_files(folder), fps, str(folder))


def open_images(paths: list[Path], fps: float, name: str) -> FrameSource:
    """The images at ``paths``, ``fps`` a second; an unreadable one comes as a frame
    with a problem. Raises ``SourceError`` for a frame rate that is not positive."""
    if not fps > 0:
        raise SourceError(f"frame rate {fps} for {name} is not positive")

    def frames() -> Iterator[SourceFrame]:
        for index, path in enumerate(paths):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                yield SourceFrame(
                    index / fps,
                    None,
                    path.name,
                    f"{path} cannot be read as an image (damaged, or not an image)",
                )
            else:
                yield SourceFrame(index / fps, np.asarray(image), path.name)

    return FrameSource(name, frames(), lambda: None)


def open_video(path: Path, factory: CaptureFactory = cv2.VideoCapture) -> FrameSource:
    """The frames of the video at ``path``. Raises ``SourceError`` when it cannot be
    opened or its first frame cannot be decoded (a damaged or foreign file)."""
    if not path.is_file():
        raise SourceError(f"no video file at {path}")
    capture = factory(str(path))  # type: ignore[arg-type]
    if not capture.isOpened():
        capture.release()
        raise SourceError(
            f"{path} cannot be opened as a video (damaged, or a format OpenCV cannot read)"
        )
    ok, first = capture.read()
    if not ok or first is None:
        capture.release()
        raise SourceError(f"{path} holds no readable frame (damaged or empty video)")
    fps = _video_fps(capture)

    def frames() -> Iterator[SourceFrame]:
        index, frame = 0, first
        while True:
            yield SourceFrame(index / fps, np.asarray(frame), f"frame {index}")
            ok, frame = capture.read()
            if not ok or frame is None:
                break
            index += 1
        capture.release()

    return FrameSource(str(path), frames(), capture.release)


def _video_fps(capture: Capture) -> float:
    """The video's frame rate, or 30 when the file does not say (some containers)."""
    get = getattr(capture, "get", None)
    fps = float(get(cv2.CAP_PROP_FPS)) if get is not None else 0.0
    return fps if 1.0 <= fps <= 1000.0 else 30.0


def open_camera(
    index: int,
    factory: CaptureFactory = cv2.VideoCapture,
    clock: Callable[[], float] = time.monotonic,
) -> FrameSource:
    """Live camera ``index``, after its exposure has settled. Raises ``SourceError``
    when it cannot be opened or delivers no frame at all; a camera that stops later
    ends the stream with a frame whose problem says so."""
    capture = factory(index)
    if not capture.isOpened():
        capture.release()
        raise SourceError(
            f"cannot open camera {index}: no such camera, or another program is using it"
        )
    delivered = sum(1 for _ in range(WARM_UP_FRAMES) if capture.read()[0])
    if delivered == 0:
        capture.release()
        raise SourceError(
            f"camera {index} opened but delivered no frame; unplug it and plug "
            "it in again, or try another camera number"
        )
    start = clock()

    def frames() -> Iterator[SourceFrame]:
        count = failures = 0
        while True:
            ok, frame = capture.read()
            if not ok or frame is None:
                failures += 1
                if failures >= CAMERA_RETRIES:
                    yield SourceFrame(
                        clock() - start,
                        None,
                        f"camera frame {count + 1}",
                        f"camera {index} stopped delivering frames (unplugged?)",
                    )
                    break
                continue
            failures = 0
            count += 1
            yield SourceFrame(clock() - start, np.asarray(frame), f"camera frame {count}")
        capture.release()

    return FrameSource(f"camera {index}", frames(), capture.release)
