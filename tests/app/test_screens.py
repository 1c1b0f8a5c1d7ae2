"""Each screen driven through events in a real (offscreen) Kivy window, with a
screenshot of each at 1280x800 and 800x1280 (under the session's temporary folder;
``COMPANION_WRITE_DOCS_SCREENS=1`` also writes them to docs/screens/)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.app.gamesetup import GameSetup, option_specs
from companion.app.layout import HIGHLIGHT_RGBA
from companion.simulator import TableConfig, TableSimulator
from engines import available_games
from tests.app.conftest import Driver


def _region(path: Path, widget: Any, window_height: int) -> np.ndarray:
    """The pixels of ``widget`` in a window screenshot (Kivy's y goes up)."""
    image = cv2.imread(str(path))
    x, y = widget.to_window(widget.x, widget.y)
    top = window_height - int(y + widget.height)
    return image[max(0, top) : top + int(widget.height), int(x) : int(x + widget.width)]


def _touch_targets(widget: Any) -> list[Any]:
    from kivy.uix.button import Button
    from kivy.uix.slider import Slider
    from kivy.uix.textinput import TextInput

    found = []
    for child in widget.walk(restrict=True):
        if (
            isinstance(child, Button | TextInput | Slider)
            and child.opacity > 0
            and child.height > 0
            and child.get_root_window() is not None
        ):
            found.append(child)
    return found


def _check_targets(ui: Driver) -> None:
    from kivy.metrics import dp

    small = [
        (type(w).__name__, getattr(w, "text", ""), w.height)
        for w in _touch_targets(ui.app.root)
        if w.height < dp(48) - 0.5
    ]
    assert small == []


def _start(ui: Driver, setup: GameSetup) -> Any:
    ui.app.go("start")
    ui.app.root.ids.start.load(setup)
    ui.pump(2)
    ui.app.root.ids.start.begin()
    ui.pump(2)
    return ui.app.root.ids.play


def test_start_screen_offers_every_option(ui: Driver) -> None:
    app = ui.app
    app.go("start")
    screen = app.root.ids.start
    for game in available_games():
        screen.ids.game.text = app.t_name("game", game)
        ui.pump(2)
        assert screen.setup.game == game
        assert len(screen.ids.options.children) == len(option_specs(game))
        assert len(screen.ids.seats.children) == len(screen.setup.seats)
    screen.ids.game.text = app.t_name("game", "shangrila")
    screen.ids.count.text = app.t("start.count", count=3)
    ui.pump(2)
    assert [s.colour for s in screen.setup.seats] == ["red", "blue", "yellow"]
    screen.ids.count.text = app.t("start.count", count=4)
    screen.ids.camera.text = app.t_name("camera", "video")
    ui.pump(2)
    assert "choose a video file" in screen.problems
    screen.ids.camera.text = app.t_name("camera", "none")
    ui.pump(2)
    assert screen.problems == ""
    for orientation in ("landscape", "portrait"):
        path = ui.shot("start", orientation)
        assert cv2.imread(str(path)).std() > 10
        _check_targets(ui)
    ui.size("landscape")


def test_illegal_move_banner_on_both_images(ui: Driver) -> None:
    play = _start(ui, GameSetup.default("shangrila"))
    rules = play.controller.referee.rules
    steps = iter(TableSimulator.random(rules, TableConfig(illegal=0.15), seed=3))
    assert ui.feed(steps, lambda: play.banner_kind == "illegal")
    ui.pump(3)
    # who did what first, then the rule with its id
    assert play.banner_title.startswith(
        ("Illegal move", *(f"{name} " for name in play.view.players))
    )
    assert play.banner_body.endswith(f"[{play.view.banner.rule}]")
    assert "[" in play.banner_body and play.banner_steps.startswith("•")
    # shown at all and soon (how soon is a figure of `companion bench app`, not a test)
    assert play.banner_shown_at and 0 <= play.banner_shown_at[-1] < 10.0
    assert any(s.rgba == HIGHLIGHT_RGBA for s in play.ids.board.scene.blink_off.shapes)
    for orientation in ("landscape", "portrait"):
        path = ui.shot("play-illegal", orientation)
        banner = _region(path, play.ids.banner, 800 if orientation == "landscape" else 1280)
        b, g, r = banner.reshape(-1, 3).mean(axis=0)
        assert r > 120 and r > 2 * g and r > 2 * b, (r, g, b)
        board = _region(path, play.ids.board, 800 if orientation == "landscape" else 1280)
        red = (board[..., 2] > 200) & (board[..., 1] < 60) & (board[..., 0] < 60)
        assert red.sum() > 20  # the frames round what to put back
        _check_targets(ui)
    ui.size("landscape")
    # Put the table back: the banner goes.
    assert ui.feed(steps, lambda: play.banner_kind == "")
    assert "back as it was" in play.status


def test_question_buttons_answer_it(ui: Driver) -> None:
    play = _start(ui, GameSetup.default("shangrila"))  # a recruit seen from above is asked
    rules = play.controller.referee.rules
    simulator = TableSimulator.random(rules, TableConfig(illegal=0.15), seed=1)
    truth: list[str] = []

    def asked() -> bool:
        return bool(play.question_prompt)

    steps = iter(simulator)

    def tracked() -> Any:
        for step in steps:
            truth.append(step.truth.move)
            yield step

    assert ui.feed(tracked(), asked)
    buttons = list(play.ids.choices.children)
    assert len(buttons) >= 2
    for orientation in ("landscape", "portrait"):
        ui.shot("play-question", orientation)
    ui.size("landscape")
    button = next(b for b in buttons if b.move == truth[-1])
    button.dispatch("on_release")
    assert ui.wait(lambda: not play.question_prompt)
    assert "(as answered)" in play.status
    assert play.log_text.startswith(f"[b]{len(play.controller.referee.history)}.")


def test_language_switch_changes_labels(ui: Driver) -> None:
    app = ui.app
    play = _start(ui, GameSetup.default("shangrila"))
    english = (app.root.ids.nav_start.text, play.ids.done.text, play.turn)
    app.root.ids.language.text = "Français"
    ui.pump(3)
    assert app.lang == "fr"
    assert app.root.ids.nav_start.text == "Nouvelle partie"
    assert play.ids.done.text == "Fini" and play.turn == "À Rouge de jouer"
    app.root.ids.language.text = "Español"
    ui.pump(3)
    assert play.ids.done.text == "Hecho" and play.turn == "Juega Rojo"
    app.root.ids.language.text = "English"
    ui.pump(3)
    assert (app.root.ids.nav_start.text, play.ids.done.text, play.turn) == english


def test_end_screen_scores_strength_and_export(ui: Driver) -> None:
    play = _start(ui, GameSetup.default("shendao"))
    for move in ("W1", "E8", "Sa", "Nh", "W2", "E7"):
        play.type_move(move)
        assert ui.wait(
            lambda m=move: (
                play.controller.referee.history and play.controller.referee.history[-1][1] == m
            ),
            5,
        )
    play.end_game()  # not over: ended once the players confirm
    assert ui.app.root.ids.manager.current == "play"
    play.confirmation.buttons[-1].dispatch("on_release")
    end = ui.app.root.ids.end
    assert ui.app.root.ids.manager.current == "end"
    assert "before its end" in end.result_text
    assert ui.wait(lambda: end.chart, 60)
    ui.pump(3)
    assert "Light" in end.strength_text and "%" in end.strength_text
    table = end.ids.strength
    for orientation in ("landscape", "portrait"):
        path = ui.shot("end", orientation)
        chart = _region(path, end.ids.chart, 800 if orientation == "landscape" else 1280)
        assert chart.std() > 20  # the chart is drawn
        # the strength table: one line a player, whole, not under the chart
        assert len(table._label._cached_lines) == end.strength_text.count("\n") + 1
        assert table.texture_size[0] <= table.width + 1
        if orientation == "portrait":
            assert table.right <= end.ids.chart.x + 1
    ui.size("landscape")
    end.export()
    folder = Path(end.message.rsplit(" ", 1)[-1])
    assert (folder / "record.json").exists() and (folder / "win-chance.png").exists()


def test_history_replays_and_reopens(ui: Driver) -> None:
    play = _start(ui, GameSetup.default("shangrila"))
    for move in ("H@4", "F@7"):
        play.type_move(move)
        ui.wait(
            lambda m=move: (
                play.controller.referee.history and play.controller.referee.history[-1][1] == m
            ),
            5,
        )
    journal = play.controller.journal.path
    ui.app.go("history")
    ui.pump(3)
    history = ui.app.root.ids.history
    rows = [r for r in history.ids.games.children if r.path == str(journal)]
    assert rows and "2" in rows[0].label
    history.select(str(journal))
    ui.pump(2)
    review = history.ids.review
    assert review.last == 2 and review.index == 2
    history.show(1)
    ui.pump(2)
    assert review.caption.startswith("Move 1, Red: H@4")
    for orientation in ("landscape", "portrait"):
        ui.shot("history", orientation)
        _check_targets(ui)
    ui.size("landscape")
    history.reopen()
    ui.pump(3)
    assert ui.app.root.ids.manager.current == "play"
    reopened = ui.app.root.ids.play.controller
    assert [m for _, m in reopened.referee.history] == ["H@4", "F@7"]


def test_calibrate_wizard_registers_the_board(
    ui: Driver, board_video: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))  # the profiles go there
    app = ui.app
    app.setup = replace(GameSetup.default("shangrila"), camera="video", video=str(board_video))
    app.go("calibrate")
    screen = app.root.ids.calibrate
    assert ui.wait(lambda: screen.ids.camera.has_frame and screen.preview.last is not None)
    screen.go("board")
    screen.capture()
    assert ui.wait(lambda: not screen.busy and screen.message, 30)
    assert screen.message.startswith("board registered from markers"), screen.message
    screen.go("check")
    screen.capture()
    assert ui.wait(lambda: not screen.busy and "registration error" in screen.message, 30)
    assert "OK" in screen.message
    for orientation in ("landscape", "portrait"):
        ui.shot("calibrate", orientation)
        _check_targets(ui)
    ui.size("landscape")
    app.go("start")
    assert ui.wait(lambda: screen.feed is None, 5)  # the camera stops with the screen
    assert (tmp_path / "profiles" / "default" / "board-shangrila.json").exists()


@pytest.mark.parametrize("orientation", ["landscape", "portrait"])
def test_play_with_a_video_shows_the_picture(
    ui: Driver, board_video: Path, orientation: str
) -> None:
    setup = replace(GameSetup.default("shangrila"), camera="video", video=str(board_video))
    play = _start(ui, setup)
    assert ui.wait(lambda: play.ids.camera.has_frame)
    path = ui.shot("play-video", orientation)
    camera = _region(path, play.ids.camera, 800 if orientation == "landscape" else 1280)
    assert camera.std() > 20
    ui.size("landscape")


def test_game_over_banner_and_result_button(ui: Driver) -> None:
    from companion.referee.events import TypedMove
    from companion.simulator import random_game

    play = _start(ui, GameSetup.default("shendao"))
    rules = play.controller.referee.rules
    for move in random_game(rules, seed=4):
        play.session.send(TypedMove(rules.format_move(move)))
    assert ui.wait(lambda: play.over, 30)
    ui.pump(3)
    assert play.banner_kind == "over" and (
        "wins" in play.banner_body or "share" in play.banner_body
    )
    assert play.ids.end_game.text == "See the result"
    path = ui.shot("play-over", "landscape")
    b, g, r = _region(path, play.ids.banner, 800).reshape(-1, 3).mean(axis=0)
    assert g > r and g > b  # green
    play.end_game()
    assert ui.app.root.ids.end.result_text == play.banner_body
