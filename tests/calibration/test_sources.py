"""Frame sources: folders, videos and live cameras (a scripted fake stands in)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.errors import SourceError
from calibration.sources import (
    WARM_UP_FRAMES,
    camera_frames,
    folder_frames,
    grab_frame,
    image_files,
    read_image,
    video_frames,
)


class FakeCapture:
    """A camera that delivers numbered frames, then fails after ``frames``."""

    def __init__(self, opened: bool = True, frames: int = 1000) -> None:
        self.opened = opened
        self.frames = frames
        self.count = 0
        self.released = False

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        if self.count >= self.frames:
            return False, None
        self.count += 1
        return True, np.full((4, 4, 3), self.count, np.uint8)

    def release(self) -> None:
        self.released = True


def test_folder_frames_in_name_order_with_unreadable_files(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "b.png"), np.zeros((3, 3, 3), np.uint8))
    cv2.imwrite(str(tmp_path / "a.jpg"), np.zeros((3, 3, 3), np.uint8))
    (tmp_path / "c.png").write_bytes(b"not a picture")
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    frames = list(folder_frames(tmp_path))
    assert [label for label, _ in frames] == ["a.jpg", "b.png", "c.png"]
    assert frames[2][1] is None and frames[0][1] is not None


def test_missing_sources_say_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="is not a folder"):
        image_files(tmp_path / "nowhere")
    with pytest.raises(SourceError, match="no images"):
        image_files(tmp_path)
    with pytest.raises(SourceError, match="no image file at"):
        read_image(tmp_path / "x.png")
    (tmp_path / "bad.png").write_bytes(b"xx")
    with pytest.raises(SourceError, match="cannot be read as an image"):
        read_image(tmp_path / "bad.png")
    with pytest.raises(SourceError, match="no video file"):
        list(video_frames(tmp_path / "v.avi", 1))


def test_video_frames_every_nth(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(7):
        writer.write(np.full((48, 64, 3), i * 30, np.uint8))
    writer.release()
    assert [label for label, _ in video_frames(path, 3)] == ["frame 0", "frame 3", "frame 6"]


def test_live_camera_frames_and_stills() -> None:
    fake = FakeCapture()
    now = [0.0]

    def clock() -> float:
        return now[0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    frames = list(camera_frames(0, 1.0, 3.5, lambda index: fake, clock, sleep))
    assert [label for label, _ in frames] == [
        "camera frame 1",
        "camera frame 2",
        "camera frame 3",
        "camera frame 4",
    ]
    assert frames[0][1][0, 0, 0] == WARM_UP_FRAMES + 1
    assert fake.released
    still = grab_frame(0, lambda index: FakeCapture())
    assert still[0, 0, 0] == WARM_UP_FRAMES + 1


def test_camera_failures() -> None:
    with pytest.raises(SourceError, match="cannot open camera 2"):
        grab_frame(2, lambda index: FakeCapture(opened=False))
    with pytest.raises(SourceError, match="stopped delivering frames"):
        list(
            camera_frames(
                0,
                0.0,
                10.0,
                lambda index: FakeCapture(frames=WARM_UP_FRAMES + 1),
                lambda: 0.0,
                lambda s: None,
            )
        )
    with pytest.raises(SourceError, match="delivered no frame"):
        grab_frame(0, lambda index: FakeCapture(frames=0))


def test_folder_frames_stop_at_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((3, 3, 3), np.uint8))
    (tmp_path / "b.png").mkdir()
    frames = folder_frames(tmp_path)
    assert next(frames)[0] == "a.png"
    with pytest.raises(SourceError, match=r"cannot read .*b\.png: Is a directory"):
        next(frames)
