"""The session's threads without Kivy: the referee worker, the table simulator, the
simulated sensor board (its LEDs follow the referee), the engine's hint, a video."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.app.controller import PlayController, PlayView
from companion.app.feeds import NoRecognition
from companion.app.gamesetup import GameSetup, Seat
from companion.app.i18n import Translator
from companion.app.session import Session
from companion.referee.events import IllegalMove, Output, TypedMove


class Recorder:
    """A Listener that keeps everything it is shown."""

    def __init__(self) -> None:
        self.views: list[PlayView] = []
        self.outputs: list[Output] = []
        self.frames = 0
        self.notices: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def show_view(self, view: PlayView, outputs: list[Output]) -> None:
        with self.lock:
            self.views.append(view)
            self.outputs.extend(outputs)

    def show_frame(self, frame: Any, message: str) -> None:
        self.frames += 1

    def show_notice(self, key: str, detail: str) -> None:
        self.notices.append((key, detail))


def _wait(predicate: Callable[[], Any], timeout: float = 20.0) -> bool:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            return False
        time.sleep(0.01)
    return True


def _session(setup: GameSetup, listener: Recorder, **options: Any) -> Session:
    controller = PlayController.start(setup, Translator(), None)
    return Session(controller, setup, listener, lambda callback: callback(), **options)


def test_simulated_table_and_board_light_the_leds() -> None:
    """The demo table plays on the simulated sensor board (over a pseudo-terminal);
    an illegal move reaches the referee and its red lights reach the board."""
    setup = replace(GameSetup.default("shangrila"), demo=True, sensors="simulator", seed=3)
    listener = Recorder()
    session = _session(setup, listener, simulator_interval=0.01)
    session.start()
    try:
        assert _wait(lambda: any(isinstance(o, IllegalMove) for o in listener.outputs), 30)
        board = session.sensors.board
        assert _wait(lambda: any(colour.name == "RED" for colour, _ in board.leds), 10)
        assert ("notice.sensors_connected", board.path) in listener.notices
    finally:
        session.stop()


def test_hint_and_engine_seat_run_off_the_ui_thread() -> None:
    seats = (Seat("red"), Seat("blue", engine=True, level=1), Seat("yellow"), Seat("violet"))
    setup = replace(GameSetup.default("shangrila"), seats=seats)
    listener = Recorder()
    session = _session(setup, listener)
    session.start()
    try:
        session.hint()
        assert _wait(lambda: listener.views and listener.views[-1].suggestion)
        assert listener.views[-1].suggestion.startswith("Hint:")
        assert listener.views[-1].suggest
        session.send(TypedMove("H@4"))
        assert _wait(
            lambda: (
                listener.views[-1].engine_turn
                and listener.views[-1].suggestion.startswith("The engine plays")
            )
        )
    finally:
        session.stop()


def test_video_frames_are_shown_and_a_missing_file_is_a_notice(board_video: Path) -> None:
    listener = Recorder()
    setup = replace(GameSetup.default("shangrila"), camera="video", video=str(board_video))
    session = _session(setup, listener, recogniser=NoRecognition("not in this test"), paced=False)
    session.start()
    try:
        assert _wait(lambda: ("notice.video_ended", "") in listener.notices)
        assert listener.frames >= 1 and session.feed.frames == 16
    finally:
        session.stop()
    listener = Recorder()
    missing = replace(setup, video=str(board_video.with_name("nowhere.avi")))
    session = _session(missing, listener)
    session.start()
    session.stop()
    assert listener.notices[0][0] == "notice.camera_failed"
    assert "nowhere.avi" in listener.notices[0][1]


def test_the_camera_pipeline_reads_the_video_for_the_referee(board_video: Path) -> None:
    """The real reading pipeline on a rendered video: readings reach the referee and
    the picture shown has the recognised elements outlined."""
    listener = Recorder()
    setup = replace(GameSetup.default("shangrila"), camera="video", video=str(board_video))
    session = _session(setup, listener)  # at the video's own rate, as a camera gives it
    shown: list[Any] = []
    listener.show_frame = lambda frame, message: shown.append(frame)  # type: ignore[method-assign]
    session.start()
    try:
        assert _wait(lambda: ("notice.video_ended", "") in listener.notices, 30)
        assert session.feed.observations >= 1
        assert "camera" in session.controller.referee.sources
        assert not any(key == "notice.no_recognition" for key, _ in listener.notices)
    finally:
        session.stop()
    import cv2
    import numpy as np

    capture = cv2.VideoCapture(str(board_video))
    frames = []
    while (frame := capture.read()[1]) is not None:
        frames.append(frame)
    assert len(shown) == len(frames)  # here posting is a plain call: every frame shown
    assert not np.array_equal(shown[-1], frames[-1])  # the outlines are drawn on it


class BlackCamera:
    """A camera whose lens is covered: three black frames, then nothing."""

    fps = 10.0
    live = False

    def __init__(self) -> None:
        self.left = 3

    def read(self) -> Any:
        import numpy as np

        if not self.left:
            return None
        self.left -= 1
        return np.zeros((120, 160, 3), np.uint8)

    def close(self) -> None:
        self.left = 0


def test_a_black_picture_is_said_and_never_read() -> None:
    from companion.app.feeds import LiveFeed

    class Refuses(NoRecognition):
        def feed(self, frame: Any) -> None:
            raise AssertionError("a black frame reached the recogniser")

    inputs: list[Any] = []
    messages: list[str] = []
    ended = threading.Event()
    feed = LiveFeed(
        BlackCamera(),
        Refuses(""),
        inputs.append,
        lambda frame, message: messages.append(message),
        ended.set,
    )
    feed.start()
    assert ended.wait(5)
    feed.stop()
    assert inputs == [] and feed.recognised >= 1 and feed.frames == 3
    assert "blank" in messages  # the frames after the first say why nothing is read


def test_a_journal_that_cannot_be_written_stops_the_referee_with_a_notice() -> None:
    from companion.referee.journal import JournalError

    listener = Recorder()
    setup = GameSetup("shangrila", seats=(Seat("red"), Seat("blue"), Seat("yellow")))
    session = _session(setup, listener)

    def full_disk(event: Any) -> list[Output]:
        raise JournalError("cannot write the journal: No space left on device")

    session.controller.handle = full_disk  # type: ignore[method-assign]
    session.start()
    try:
        session.worker.put(TypedMove("H@1"))
        assert _wait(lambda: listener.notices)
        key, detail = listener.notices[-1]
        assert key == "notice.journal_failed" and "No space left" in detail
        assert not session.worker._thread.is_alive()
        text = Translator().text(key, detail=detail)
        assert "No space left" in text and "every move shown" in text
    finally:
        session.stop()
