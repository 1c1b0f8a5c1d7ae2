"""A camera or video that cannot be used is said on the Play screen and stays said:
the failure comes after the game's first view (which would otherwise replace it), and
the picture's place no longer says the camera is starting. A video that opens but gives
no picture is such a failure too, not a video that "has ended"."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.app.controller import PlayController, PlayView
from companion.app.feeds import NoRecognition
from companion.app.gamesetup import GameSetup
from companion.app.i18n import Translator
from companion.app.session import Session
from companion.referee.events import Output
from tests.app.conftest import Driver


class Log:
    """A Listener keeping what it is shown, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def show_view(self, view: PlayView, outputs: list[Output]) -> None:
        with self.lock:
            self.events.append(("view", ""))

    def show_frame(self, frame: Any, message: str) -> None:
        with self.lock:
            self.events.append(("frame", ""))

    def show_notice(self, key: str, detail: str) -> None:
        with self.lock:
            self.events.append((key, detail))


def _unreadable_video(path: Path) -> Path:
    """An AVI whose headers are sound but whose every frame is zeros: OpenCV opens it
    and reads no picture from it."""
    import cv2
    import numpy as np

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for _ in range(5):
        writer.write(np.full((48, 64, 3), 100, np.uint8))
    writer.release()
    data = bytearray(path.read_bytes())
    chunk = data.find(b"00dc")
    while chunk >= 0:
        start = chunk + 8
        data[start : start + 600] = bytes(len(data[start : start + 600]))
        chunk = data.find(b"00dc", start)
    path.write_bytes(bytes(data))
    return path


def _setups(tmp_path: Path) -> dict[str, GameSetup]:
    base = GameSetup.default("shangrila")
    corrupt = tmp_path / "corrupt.avi"
    corrupt.write_bytes(b"RIFF\x00\x00\x00\x00AVI LIST" + bytes(range(256)) * 8)
    return {
        "camera 9": replace(base, camera="index", camera_index=9),
        "camera -1": replace(base, camera="index", camera_index=-1),
        "corrupt video": replace(base, camera="video", video=str(corrupt)),
        "video without a picture": replace(
            base, camera="video", video=str(_unreadable_video(tmp_path / "zeros.avi"))
        ),
    }


@pytest.mark.parametrize(
    "source", ["camera 9", "camera -1", "corrupt video", "video without a picture"]
)
def test_the_failure_comes_after_the_first_view(tmp_path: Path, source: str) -> None:
    setup = _setups(tmp_path)[source]
    log = Log()
    controller = PlayController.start(setup, Translator(), None)
    session = Session(
        controller,
        setup,
        log,
        lambda callback: callback(),
        recogniser=NoRecognition("not in this test"),
        paced=False,
    )
    session.start()
    ends = ("notice.camera_failed", "notice.video_ended")
    try:
        deadline = time.monotonic() + 10.0
        while not any(key in ends for key, _ in log.events) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        session.stop()
    with log.lock:
        events = list(log.events)
    failures = [i for i, (key, _) in enumerate(events) if key == "notice.camera_failed"]
    assert failures, events
    assert events[0] == ("view", ""), events
    assert not any(key == "view" for key, _ in events[failures[-1] :]), events
    assert ("notice.video_ended", "") not in events


def test_the_play_screen_says_the_camera_failed(ui: Driver, tmp_path: Path) -> None:
    app = ui.app
    play = app.root.ids.play
    starting = app.t("play.camera_starting")
    for source, setup in _setups(tmp_path).items():
        controller = PlayController.start(setup, app.translator, None)
        play.attach(
            controller, setup, None, recogniser=NoRecognition("not in this test"), paced=False
        )
        try:
            assert ui.wait(lambda: play.ids.camera.message != starting, 10.0), source
            ui.pump(5)
            assert play.ids.camera.message.startswith(app.t("notice.camera_failed", detail="")), (
                source
            )
            assert play.status == play.ids.camera.message, source
        finally:
            play.detach()
