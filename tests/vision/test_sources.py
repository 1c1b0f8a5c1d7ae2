"""Frame sources: a folder, a video, a camera; bad inputs give clear messages or frames
with a problem, never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.errors import SourceError
from vision.sources import blank_frame, open_camera, open_source

FRAME = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)


def test_folder_frames_in_name_order_with_a_damaged_image(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), FRAME)
    (tmp_path / "b.png").write_bytes(b"not a picture")
    cv2.imwrite(str(tmp_path / "c.png"), FRAME)
    with open_source(tmp_path, fps=2.0) as source:
        frames = list(source)
    assert [f.label for f in frames] == ["a.png", "b.png", "c.png"]
    assert [f.timestamp for f in frames] == [0.0, 0.5, 1.0]
    assert frames[0].image is not None and frames[0].problem == ""
    assert frames[1].image is None
    assert frames[1].problem == (
        f"{tmp_path / 'b.png'} cannot be read as an image (damaged, or not an image)"
    )


def test_missing_and_empty_sources_say_so(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no file or folder at"):
        open_source(tmp_path / "nowhere.mp4")
    with pytest.raises(SourceError, match="no images"):
        open_source(tmp_path)


def test_video_frames_with_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (80, 60))
    for _ in range(3):
        writer.write(FRAME)
    writer.release()
    with open_source(path) as source:
        frames = list(source)
    assert len(frames) == 3
    assert [round(f.timestamp, 3) for f in frames] == [0.0, 0.1, 0.2]
    assert all(f.image is not None and f.image.shape == (60, 80, 3) for f in frames)


def test_a_corrupted_video_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "broken.mp4"
    path.write_bytes(np.random.default_rng(1).integers(0, 255, 5000, dtype=np.uint8).tobytes())
    with pytest.raises(
        SourceError,
        match=r"broken\.mp4 (cannot be opened as a video|holds "
        r"no readable frame)",
    ):
        open_source(path)


class _FakeCamera:
    """A scripted camera: opens or not, then delivers ``good`` frames and fails."""

    def __init__(self, opens: bool, good: int) -> None:
        self.opens, self.good, self.released = opens, good, False

    def isOpened(self) -> bool:
        return self.opens

    def read(self) -> tuple[bool, Any]:
        if self.good <= 0:
            return False, None
        self.good -= 1
        return True, FRAME

    def release(self) -> None:
        self.released = True


def test_a_camera_that_cannot_open() -> None:
    camera = _FakeCamera(opens=False, good=0)
    with pytest.raises(SourceError, match="cannot open camera 2: no such camera"):
        open_source("2", factory=lambda index: camera)
    assert camera.released


def test_a_camera_that_stops_ends_with_a_problem_frame() -> None:
    camera = _FakeCamera(opens=True, good=15 + 2)  # warm-up frames, then two
    ticks = iter(range(100))
    with open_camera(0, factory=lambda index: camera, clock=lambda: float(next(ticks))) as source:
        frames = list(source)
    assert [f.image is not None for f in frames] == [True, True, False]
    assert frames[-1].problem == "camera 0 stopped delivering frames (unplugged?)"
    assert camera.released


def test_a_camera_that_delivers_nothing() -> None:
    with pytest.raises(SourceError, match="camera 0 opened but delivered no frame"):
        open_camera(0, factory=lambda index: _FakeCamera(opens=True, good=0))


def test_blank_frames_are_told_apart_from_pictures() -> None:
    assert blank_frame(None) == "empty frame: the source delivered no picture"
    assert blank_frame(np.zeros((0, 10, 3), np.uint8)) is not None
    assert "not a picture" in str(blank_frame(np.zeros((10, 10, 3), np.float32)))
    assert "black frame" in str(blank_frame(np.full((40, 40, 3), 3, np.uint8)))
    assert "flat colour" in str(blank_frame(np.full((40, 40, 3), 200, np.uint8)))
    assert blank_frame(FRAME) is None
