"""Every screen of the app, taken from the real app (offscreen) at 1280x800 and 800x1280
for docs/screens/, each showing one game only: the New game screen; a game read by
the (simulated) camera, with an illegal move and a question; a second game with its
clocks, the "end the game?" question, the game over, the result with the game gone
over, the export's message, the History screen with both games; then the second game's
last table seen by the camera on a light table and on a dark one, on the Play and
Calibrate screens.

Slow (about two minutes). ``COMPANION_WRITE_DOCS_SCREENS=1`` writes the pictures to
docs/screens/; without it they stay under the test's temporary folder.
"""

from __future__ import annotations

import functools
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.app.clock import ClockSettings
from companion.app.feeds import NoRecognition
from companion.app.gamesetup import GameSetup, Seat
from companion.referee.events import TypedMove
from companion.simulator import TableConfig, TableSimulator, random_game
from engines.registry import table_model
from tests.app.conftest import DOCS_SCREENS, WRITE_DOCS, Driver

ORIENTATIONS = ("landscape", "portrait")
TABLES = {"light": (0.80, 0.72, 0.60), "dark": (0.13, 0.09, 0.06)}
"""The table under the board, as average sRGB: pale oak, dark walnut."""


def _window_shot(ui: Driver, name: str, orientation: str) -> Path:
    """The screens with the open dialog over them, as the window shows them (each drawn
    on its own, then laid one over the other by the dialog's transparency)."""
    import cv2
    import numpy as np

    ui.size(orientation)
    ui.pump(4)
    path = ui.shots / f"{name}-{orientation}.png"
    ui.app.root.export_to_png(str(path))
    below = cv2.imread(str(path), cv2.IMREAD_UNCHANGED).astype(np.float32)
    height = below.shape[0]
    for popup in _popups():
        # the dialog dims the screens under it, then its box is drawn where it is
        shade = popup.overlay_color
        below[..., :3] = below[..., :3] * (1 - shade[3]) + np.array(shade[2::-1]) * 255 * shade[3]
        over_path = ui.shots / f"{name}-{orientation}-dialog.png"
        popup.export_to_png(str(over_path))
        over = cv2.imread(str(over_path), cv2.IMREAD_UNCHANGED).astype(np.float32)
        over_path.unlink()
        x, top = int(popup.x), int(height - popup.y - over.shape[0])
        box = below[top : top + over.shape[0], x : x + over.shape[1]]
        alpha = over[: box.shape[0], : box.shape[1], 3:4] / 255.0
        box[..., :3] = over[: box.shape[0], : box.shape[1], :3] * alpha + box[..., :3] * (1 - alpha)
    cv2.imwrite(str(path), below.astype(np.uint8))
    if WRITE_DOCS:
        DOCS_SCREENS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENS / path.name)
    return path


def _shots(ui: Driver, name: str) -> None:
    for orientation in ORIENTATIONS:
        ui.shot(name, orientation)
    ui.size("landscape")


def _still(ui: Driver) -> None:
    """Let the screen finish coming in, and every property change, layout and redraw
    settle, before a picture."""
    assert ui.wait(lambda: not ui.app.root.ids.manager.transition.is_active, 10)
    ui.pump(6)
    time.sleep(0.05)
    ui.pump(2)


def _table_video(state: Any, rgb: tuple[float, float, float], folder: Path) -> Path:
    """A short video of ``state``'s table photographed on a table of colour ``rgb``."""
    import cv2

    import vision.synth.table as synth_table
    from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
    from vision.synth.table import TableOptions, render_table

    camera = Camera.from_fov(1280, 720, 60.0, k1=0.0)
    original = synth_table.table_texture
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(synth_table, "table_texture", functools.partial(original, rgb=rgb))
        image = render_table(
            table_model(state.rules.game).expected(state),
            camera,
            Pose(60.0, 0.0, 800.0),
            light=LIGHTS["daylight"],
            imaging=Imaging(),
            options=TableOptions(markers=True),
            seed=1,
        ).image
    path = folder / f"table-{state.rules.game}-{rgb[0]:.2f}.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (1280, 720))
    for _ in range(20):
        writer.write(image)
    writer.release()
    return path


@pytest.mark.slow
def test_every_screen_for_the_docs(ui: Driver, tmp_path: Path) -> None:
    app = ui.app
    for popup in _popups():  # left by tests before (an export's message)
        popup.dismiss(animation=False)
    seats = (Seat("red", "Ann"), Seat("blue", "Ben"), Seat("yellow"), Seat("violet"))
    setup = replace(
        GameSetup.default("shangrila"), seats=seats, clocks=ClockSettings.same(4, 30 * 60.0, 60.0)
    )
    app.go("start")
    app.root.ids.start.load(setup)
    _still(ui)
    _shots(ui, "start")

    # A first game, its table seen by the camera move by move: an illegal move (put
    # right again) and a question. It is left there, not finished.
    app.root.ids.start.begin()
    ui.pump(3)
    play = app.root.ids.play
    rules = play.controller.referee.rules
    moves = random_game(rules, 5)
    simulator = TableSimulator(rules, moves, TableConfig(illegal=0.12), 5)
    steps = iter(simulator)
    assert ui.feed(steps, lambda: play.banner_kind == "illegal")
    _still(ui)
    _shots(ui, "play-illegal")
    while not play.question_prompt:
        assert ui.feed(steps, lambda: play.banner_kind != "illegal" and bool(play.question_prompt))
    _still(ui)
    _shots(ui, "play-question")

    # A second game, played to its end (moves typed in, as when the camera misreads):
    # its clocks, the question before ending it early, the game over, the result, the
    # export, History, and its table seen by the camera on a light and a dark table.
    app.go("start")
    app.root.ids.start.load(setup)
    ui.pump(2)
    app.root.ids.start.begin()
    ui.pump(3)
    journal = play.controller.journal.path
    game = [rules.format_move(m) for m in random_game(rules, 11)]
    half = len(game) // 2
    for move in game[:half]:
        play.session.send(TypedMove(move))
    assert ui.wait(lambda: len(play.controller.referee.history) == half, 60)
    time.sleep(2.5)  # the player to move thinks a moment
    _still(ui)
    _shots(ui, "play-clocks")
    play.end_game()  # not over: the app asks first
    for orientation in ORIENTATIONS:
        _window_shot(ui, "play-end-confirm", orientation)
    play.confirmation.buttons[0].dispatch("on_release")  # keep playing
    for move in game[half:]:
        play.session.send(TypedMove(move))
    assert ui.wait(lambda: play.over, 60)
    _still(ui)
    _shots(ui, "play-over")
    play.end_game()
    end = app.root.ids.end
    assert ui.wait(lambda: end.analysis is not None, 600)  # a loaded machine: slower
    review = end.ids.review
    shown = next(i for i, m in enumerate(review.review.moves, start=1) if m.best)
    review.show(shown)
    _still(ui)
    _shots(ui, "end")
    end.export()
    for orientation in ORIENTATIONS:
        _window_shot(ui, "end-exported", orientation)
    for popup in _popups():
        popup.dismiss(animation=False)

    app.go("history")
    history = app.root.ids.history
    history.select(str(journal))
    history.ids.review.show(shown)
    _still(ui)
    _shots(ui, "history")

    # The same game's last table, seen by the camera on a light and on a dark table.
    state = play.controller.referee.state.copy()
    for table, rgb in TABLES.items():
        video = _table_video(state, rgb, tmp_path)
        app.setup = replace(app.setup, camera="video", video=str(video))
        # The camera has not been calibrated on this table: the picture is shown, not
        # read (a reading without calibration would be a wrong one).
        app.session_options = {
            "recogniser": NoRecognition(
                "the camera is not calibrated on this table yet (Calibrate)"
            )
        }
        app.reopen(journal)
        camera = app.root.ids.play.ids.camera
        assert ui.wait(lambda c=camera: c.has_frame, 30)
        _still(ui)
        _shots(ui, f"play-video-{table}")
        app.go("calibrate")
        picture = app.root.ids.calibrate.ids.camera
        assert ui.wait(lambda c=picture: c.has_frame, 30)
        _still(ui)
        _shots(ui, f"calibrate-{table}")
        app.go("start")
        ui.pump(3)
    # Shendao's and ShenShi's tables seen by the camera, light and dark, on Play.
    for other in ("shendao", "shenshi"):
        _other_game_on_camera(ui, other, tmp_path)
    app.setup = replace(app.setup, camera="none", video="")
    app.session_options = {}


def _other_game_on_camera(ui: Driver, game: str, folder: Path) -> None:
    """A few moves of ``game``, then its table seen by the camera on a light and on a
    dark table: play-video-<game>-<table>-<orientation>.png."""
    app = ui.app
    app.setup = replace(GameSetup.default(game), camera="none", video="")
    app.session_options = {}
    app.go("start")
    app.root.ids.start.load(app.setup)
    ui.pump(2)
    app.root.ids.start.begin()
    ui.pump(3)
    play = app.root.ids.play
    rules = play.controller.referee.rules
    moves = [rules.format_move(m) for m in random_game(rules, 3)][:6]
    for move in moves:
        play.session.send(TypedMove(move))
    assert ui.wait(lambda: len(play.controller.referee.history) == len(moves), 60)
    journal = play.controller.journal.path
    state = play.controller.referee.state.copy()
    for table, rgb in TABLES.items():
        video = _table_video(state, rgb, folder)
        app.setup = replace(app.setup, camera="video", video=str(video))
        app.session_options = {
            "recogniser": NoRecognition(
                "the camera is not calibrated on this table yet (Calibrate)"
            )
        }
        app.reopen(journal)
        camera = app.root.ids.play.ids.camera
        assert ui.wait(lambda c=camera: c.has_frame, 30)
        _still(ui)
        _shots(ui, f"play-video-{game}-{table}")
        app.go("start")
        ui.pump(3)


def _popups() -> list[Any]:
    from kivy.core.window import Window
    from kivy.uix.modalview import ModalView

    return [w for w in Window.children if isinstance(w, ModalView)]
