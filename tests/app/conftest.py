"""Kivy offscreen for the app's tests: SDL's offscreen driver renders real pixels with
no display. The environment must be set before Kivy is first imported, so it is set
here, when pytest collects this folder (never SDL_VIDEODRIVER=dummy: the process
exits). One app serves the whole session (Kivy has one window per process)."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ.setdefault("KIVY_WINDOW", "sdl2")
os.environ["KIVY_NO_ARGS"] = "1"
os.environ["KIVY_NO_CONSOLELOG"] = "1"
os.environ["KIVY_LOG_MODE"] = "PYTHON"
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="companion-kivy-"))

import pytest

DOCS_SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"
WRITE_DOCS = os.environ.get("COMPANION_WRITE_DOCS_SCREENS") == "1"
"""Set to 1 to refresh docs/screens/ from the tests' screenshots."""

SIZES = {"landscape": (1280, 800), "portrait": (800, 1280)}


class Driver:
    """Steps the Kivy event loop and takes screenshots."""

    def __init__(self, app: Any, shots: Path) -> None:
        self.app = app
        self.shots = shots

    def pump(self, frames: int = 1) -> None:
        from kivy.base import EventLoop

        for _ in range(frames):
            EventLoop.idle()

    def wait(self, predicate: Callable[[], Any], timeout: float = 20.0) -> bool:
        deadline = time.perf_counter() + timeout
        while not predicate():
            if time.perf_counter() > deadline:
                return False
            self.pump()
        return True

    def size(self, name: str) -> None:
        from kivy.core.window import Window

        Window.size = SIZES[name]
        self.pump(4)

    def shot(self, screen: str, orientation: str) -> Path:
        """Screenshot of the whole window at ``orientation``'s size."""
        self.size(orientation)
        path = self.shots / f"{screen}-{orientation}.png"
        self.app.root.export_to_png(str(path))
        if WRITE_DOCS:
            DOCS_SCREENS.mkdir(parents=True, exist_ok=True)
            (DOCS_SCREENS / path.name).write_bytes(path.read_bytes())
        return path

    def feed(self, steps: Iterator[Any], until: Callable[[], Any], limit: int = 2000) -> bool:
        """Send simulator steps to the playing session, one at a time (each judged
        before the next), until ``until()`` holds."""
        session = self.app.root.ids.play.session
        for _, step in zip(range(limit), steps, strict=False):
            before = session.worker.handled
            session.send(step.event)
            self.wait(lambda b=before: session.worker.handled > b, 5.0)
            self.pump()
            if until():
                return True
        return False


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("appdata")


@pytest.fixture(scope="session")
def ui(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driver]:
    from kivy.core.window import Window

    from companion.app.main import CompanionApp

    Window.size = SIZES["landscape"]
    app = CompanionApp(data_dir=data_dir, muted=True, analysis_level=1)
    app._run_prepare()
    driver = Driver(app, tmp_path_factory.mktemp("screens"))
    driver.pump(3)
    yield driver
    app.root.ids.play.detach()
    app.root.ids.calibrate.close()


@pytest.fixture(scope="session")
def board_video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short video of a Shangri-La table with its corner markers (two rendered
    pictures, 8 frames each), 640x480."""
    import cv2

    from engines import Dice
    from engines.shangrila import ShangrilaRules
    from engines.shangrila.observation import expected
    from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
    from vision.synth.table import TableOptions, render_table

    state = ShangrilaRules().initial_state()
    camera = Camera.from_fov(640, 480, 60.0, k1=0.0)
    path = tmp_path_factory.mktemp("video") / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (640, 480))
    dice = Dice(3)
    for picture in range(2):
        image = render_table(
            expected(state),
            camera,
            Pose(75.0, 0.0, 750.0),
            light=LIGHTS["daylight"],
            imaging=Imaging(),
            options=TableOptions(markers=True),
            seed=picture,
        ).image
        for _ in range(8):
            writer.write(image)
        for _ in range(4):
            state.play(state.random_move(dice))
    writer.release()
    return path
