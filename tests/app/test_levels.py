"""Each player's level over their recorded games (History): games played through the
controller into a data folder, their strength reports kept, players matched by name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup, Seat
from companion.app.history import report_folder, save_analysis
from companion.app.i18n import Translator
from companion.app.levels import collect, person
from companion.app.report import strength
from engines.dice import Dice
from engines.search.pooling import HeadToHead, pooled_estimate, shared_for
from engines.search.strength import model_for

TABLES = [(("Ann", "Bob"), 1), (("bob ", "Ann"), 2), (("Ann", ""), 3), (("Cy", "Ann"), 4)]
"""Each game's seat names and the seed of its random moves."""


def play(
    data: Path, names: tuple[str, ...], seed: int, analyse: bool = True, moves: int = 1000
) -> PlayController:
    setup = GameSetup.default("shendao")
    setup = replace(
        setup, seats=tuple(Seat(s.colour, n) for s, n in zip(setup.seats, names, strict=True))
    )
    controller = PlayController.start(setup, Translator(), data / "games")
    dice = Dice(seed)
    state = controller.referee.state
    while not state.is_over() and len(controller.referee.history) < moves:
        controller.typed(state.rules.format_move(state.random_move(dice)))
        state = controller.referee.state
    if analyse:
        assert controller.journal is not None
        save_analysis(
            report_folder(data, controller.journal.path), strength(controller.referee.record(), 1)
        )
    return controller


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data")
    for names, seed in TABLES:
        play(folder, names, seed)
    play(folder, ("Ann", "Bob"), 5, analyse=False)  # no report kept: not in the levels
    play(folder, ("Ann", "Bob"), 6, moves=6)  # not finished: not head to head
    return folder


def test_players_are_matched_by_name_and_a_seat_without_one_is_left_out(data: Path) -> None:
    players = collect(data)
    assert set(players) == {"ann", "bob", "cy"}
    assert person("  Bob ") == "bob"
    ann = players["ann"]
    assert ann.name == "Ann" and ann.played == 6
    assert len(ann.games) == 5  # the game without a report is not one of them
    assert [g.key for g in ann.games] == ["shendao-2"] * 5
    assert len(players["bob"].games) == 3 and len(players["cy"].games) == 1


def test_the_pooled_level_is_that_of_all_the_players_games(data: Path) -> None:
    ann = collect(data)["ann"]
    model = model_for("shendao", 2)
    assert model is not None
    expected = pooled_estimate(model, [g.evidence for g in ann.games], shared_for("shendao-2"), 25)
    assert ann.pooled["shendao-2"] == expected
    assert "rough guide" in expected.note  # the app's reports use another budget
    for game in ann.games:
        assert game.estimate.moves == game.evidence.moves


def test_head_to_head_over_finished_games(data: Path) -> None:
    players = collect(data)
    ann = players["ann"]
    # with Bob: two games with a report and one without; the unfinished one not
    assert [(h.opponent, h.games) for h in ann.rivals] == [("Bob", 3), ("Cy", 1)]
    bob = next(h for h in ann.rivals if h.opponent == "Bob")
    back = next(h for h in players["bob"].rivals if h.opponent == "Ann")
    assert back == HeadToHead("Ann", 3, bob.behind, bob.ahead, bob.level)


def test_an_engine_seat_without_a_name_is_its_levels_engine(tmp_path: Path) -> None:
    setup = GameSetup.default("shendao")
    seats = (Seat(setup.seats[0].colour, "Ann"), Seat(setup.seats[1].colour, "", True, 3))
    controller = PlayController.start(replace(setup, seats=seats), Translator(), tmp_path / "games")
    controller.typed("W1")
    players = collect(tmp_path, lambda level: f"Engine {level}")
    assert set(players) == {"ann", "engine 3"}


def test_the_history_screen_shows_a_players_level_over_time(ui: Any, data: Path) -> None:
    kept = ui.app._data_dir
    ui.app._data_dir = data
    try:
        ui.app.go("history")
        ui.pump(3)
        history = ui.app.root.ids.history
        names = sorted(b.text for b in history.ids.players.children)
        assert names == ["Ann", "Bob", "Cy"]
        popup = history.show_player("ann")
        ui.pump(3)
        assert len(popup.chart.points) == 5 and len(popup.chart.pooled) == 3
        assert "Against Bob, 3 finished games: " in popup.summary.text
        assert "Against Cy, one finished game: " in popup.summary.text
        assert "All 5 games of Shendao (2 players) together: " in popup.summary.text
        from kivy.core.window import Window

        ui.size("landscape")

        assert Window.size == (1280, 800)
        ui.pump(3)
        shot = ui.shots / "history-levels-popup.png"
        popup.export_to_png(str(shot))
        assert shot.stat().st_size > 20_000
        popup.dismiss(animation=False)
        ui.pump(2)
    finally:
        ui.app._data_dir = kept


def test_games_that_cannot_be_read_are_left_out_and_said(
    ui: Any, data: Path, tmp_path: Path
) -> None:
    import shutil

    from companion.app.controller import SEATS_SUFFIX
    from companion.app.history import ANALYSIS_FILE
    from companion.app.levels import SkippedGame

    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    journals = sorted((copy / "games").glob("*.jsonl"))
    (report_folder(copy, journals[0]) / ANALYSIS_FILE).write_text("{", encoding="utf-8")
    Path(str(journals[1]) + SEATS_SUFFIX).write_text("[1]", encoding="utf-8")
    skipped: list[SkippedGame] = []
    players = collect(copy, skipped=skipped)
    assert len(skipped) == 2, skipped
    assert "analysis.json" in skipped[0].reason and "not valid JSON" in skipped[0].reason
    assert "is not a list of seats" in skipped[1].reason
    assert len(players["ann"].games) == 3  # five reports kept, two of them unreadable

    kept = ui.app._data_dir
    ui.app._data_dir = copy
    try:
        ui.app.go("history")
        history = ui.app.root.ids.history
        history.refresh()
        ui.pump(3)
        message = history.message
        assert message.startswith("2 games are left out of the players' levels: ")
        assert "not valid JSON" in message and "is not a list of seats" in message
    finally:
        ui.app._data_dir = kept
