"""Clocks and game flow in the real (offscreen) app: clocks shown and kept with the
game, stopped by the pause, kept on reopening; ending a game asks first; the End and
History screens step through the game; the export says what it wrote; History rows
read date, game, players with their scores and the winner."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.app.clock import ClockSettings, clock_path, load_clock
from companion.app.gamesetup import GameSetup
from tests.app.conftest import Driver


def _start(ui: Driver, setup: GameSetup) -> Any:
    ui.app.go("start")
    ui.app.root.ids.start.load(setup)
    ui.pump(2)
    ui.app.root.ids.start.begin()
    ui.pump(2)
    return ui.app.root.ids.play


def _play(ui: Driver, play: Any, moves: tuple[str, ...]) -> None:
    for move in moves:
        play.type_move(move)
        assert ui.wait(
            lambda m=move: (
                play.controller.referee.history and play.controller.referee.history[-1][1] == m
            ),
            5,
        )
    ui.pump(2)


def _popups() -> list[Any]:
    from kivy.core.window import Window
    from kivy.uix.modalview import ModalView

    return [w for w in Window.children if isinstance(w, ModalView)]


def _close_popups(ui: Driver) -> None:
    for popup in _popups():
        popup.dismiss(animation=False)
    ui.pump(2)


def test_clocks_run_for_the_player_to_move_and_stop_with_the_pause(ui: Driver) -> None:
    setup = replace(GameSetup.default("shendao"), clocks=ClockSettings.same(2, 600.0, 60.0))
    play = _start(ui, setup)
    clocks = play.ids.clocks
    assert clocks.clock is not None and clocks.height > 0
    assert "10:00" in clocks.text or "9:59" in clocks.text
    _play(ui, play, ("W1",))
    journal = play.controller.journal.path
    kept = load_clock(journal)
    assert kept is not None and kept.moves == 1 and kept.to_move == 1
    play.set_paused(True)
    ui.wait(lambda: play.paused, 3)
    ui.pump(2)
    stopped = clocks.clock.readings(time.monotonic())
    time.sleep(0.3)
    later = clocks.clock.readings(time.monotonic())
    assert [r.used for r in later] == [r.used for r in stopped]  # paused: no time goes
    assert not any(r.running for r in later)
    play.set_paused(False)
    ui.wait(lambda: not play.paused, 3)
    ui.pump(2)
    assert clocks.clock.readings(time.monotonic())[1].running
    for orientation in ("landscape", "portrait"):
        ui.shot("play-clocks", orientation)
    ui.size("landscape")
    # the game reopened from History goes on with the times it had
    used = clocks.clock.readings(time.monotonic())[0].used
    play.detach()
    assert json.loads(clock_path(journal).read_text())["used"][0] == round(used, 3)
    ui.app.reopen(journal)
    ui.pump(3)
    again = ui.app.root.ids.play.ids.clocks.clock
    assert again is not None and again.used[0] == round(used, 3)
    assert again.settings.limits[1].per_move == 60.0


def test_ending_a_game_asks_first_and_the_end_screen_steps_through_it(
    ui: Driver, data_dir: Path
) -> None:
    _close_popups(ui)  # left by tests before (an export's message)
    play = _start(ui, GameSetup.default("shendao"))
    _play(ui, play, ("W1", "E8", "Sa", "Nh"))
    play.end_game()
    ui.pump(2)
    assert ui.app.root.ids.manager.current == "play" and len(_popups()) == 1
    ui.shot("play-end-confirm", "landscape")
    play.confirmation.buttons[0].dispatch("on_release")  # keep playing
    ui.pump(2)
    assert ui.app.root.ids.manager.current == "play" and not _popups()
    play.end_game()
    play.confirmation.buttons[-1].dispatch("on_release")  # end it
    ui.pump(3)
    end = ui.app.root.ids.end
    assert ui.app.root.ids.manager.current == "end"
    review = end.ids.review
    assert review.last == 4 and review.index == 4
    assert review.caption.startswith("Move 4, Dark: Nh")
    review.step(-1)
    assert review.index == 3 and review.caption.startswith("Move 3, Light: Sa")
    review.show(0)
    assert review.caption == "Before the first move."
    from kivy.core.window import Window  # the keyboard: arrows step, End and Home jump

    assert ui.wait(lambda: not ui.app.root.ids.manager.transition.is_active, 5)
    ui.pump(2)  # the screen has come in: it takes the keyboard

    for key, index in ((275, 1), (275, 2), (276, 1), (279, 4), (278, 0)):
        Window.dispatch("on_key_down", key, 0, None, [])
        assert review.index == index
    assert ui.wait(lambda: end.analysis is not None, 60)
    ui.pump(3)
    review.show(2)
    judged = end.analysis.moves[1]
    assert ("Judged: " + judged.judgement) in review.caption
    # the analysis is kept with the game for the History screen
    journal = play.controller.journal.path
    assert (data_dir / "reports" / journal.stem / "analysis.json").is_file()
    end.export()
    ui.pump(2)
    popups = _popups()
    assert len(popups) == 1 and "report.html" in popups[0].content.children[-1].text
    folder = Path(end.message.rsplit(" ", 1)[-1])
    for name in ("report.html", "record.json", "moves.txt", "report.json"):
        assert (folder / name).stat().st_size > 0
    assert (folder / "moves.txt").read_text().startswith("1. Light: W1\n2. Dark: E8")
    ui.shot("end-exported", "landscape")
    popups[0].buttons[0].dispatch("on_release")
    ui.pump(2)
    assert not _popups()
    # History: the row reads from its first character, the review has the judgements
    ui.app.go("history")
    ui.pump(3)
    history = ui.app.root.ids.history
    row = next(r for r in history.ids.games.children if r.path == str(journal))
    when = time.strftime("%Y-%m-%d")
    assert row.label.startswith(when)
    ui.pump(2)
    button = row.ids.row
    assert button.texture_size[1] <= button.height  # every line shown, the date first
    assert "Shendao" in row.label and "Light 0, Dark 0" in row.label
    assert "not finished (4 moves)" in row.label
    history.select(str(journal))
    ui.pump(2)
    panel = history.ids.review
    assert panel.last == 4
    panel.show(2)
    assert ("Judged: " + judged.judgement) in panel.caption
    history.export()
    ui.pump(2)
    assert len(_popups()) == 1 and "exports" in history.message
    _close_popups(ui)


def test_a_finished_game_in_history_names_its_winner(ui: Driver) -> None:
    from companion.app.history import PastGame
    from companion.app.screens.history import row_text

    past = PastGame(
        Path("g.jsonl"),
        "shangrila",
        ("red", "blue", "yellow"),
        57,
        "2026-11-26 14:03",
        scores=(31, 28, 20),
        winners=(0,),
        over=True,
        names=("Ann", "", ""),
    )
    assert row_text(past) == (
        "2026-11-26 14:03 · The Bridges of Shangri-La · Ann 31, "
        "Blue 28, Yellow 20 · winner: Ann (57 moves)"
    )


def test_the_start_screen_sets_the_clocks(ui: Driver) -> None:
    app = ui.app
    app.go("start")
    start = app.root.ids.start
    start.load(GameSetup.default("shendao"))
    ui.pump(2)
    start.ids.clock_total.text = "15 min a player"
    start.ids.clock_move.text = "30 s a move"
    ui.pump(2)
    assert start.setup.clocks == ClockSettings.same(2, 900.0, 30.0)
    start.ids.game.text = app.t_name("game", "shangrila")  # another game keeps the clocks
    ui.pump(2)
    assert start.setup.game == "shangrila" and start.setup.clocks.limits[0].total == 900.0
    start.ids.clock_total.text = "no clock"
    start.ids.clock_move.text = "no clock"
    ui.pump(2)
    assert not start.setup.clocks.timed
