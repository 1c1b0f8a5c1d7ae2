"""The strength report worked out while the game is played: the worker thread fed by
the controller gives the report the Game end screen would work out from scratch, also
after a move taken back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup
from companion.app.i18n import Translator
from companion.app.live_analysis import AnalysisFailed, LiveAnalyser, level_config
from companion.app.report import strength
from engines import GameRecord
from tests.engines.search.test_live import random_record, upto

LEVEL = 1


def without_time(data: dict[str, Any]) -> dict[str, Any]:
    data.pop("seconds")
    return data


def test_the_worker_gives_the_report_from_scratch() -> None:
    record = random_record(4, 12)
    worker = LiveAnalyser(level_config(LEVEL))
    seen: list[tuple[int, int]] = []
    try:
        for n in range(1, 13):
            worker.feed(upto(record, n))
        found = worker.wait(lambda done, total: seen.append((done, total)), timeout=120)
    finally:
        worker.stop()
    assert seen[-1] == (12, 12)
    assert without_time(found.to_json()) == without_time(strength(record, LEVEL).to_json())


def test_the_controller_feeds_accepted_and_taken_back_moves(tmp_path: Path) -> None:
    controller = PlayController.start(GameSetup.default("shendao"), Translator(), tmp_path)
    fed: list[GameRecord] = []
    controller.moves_changed = fed.append
    controller.typed("W1")
    controller.typed("E8")
    controller.typed("not a move")
    controller.takeback()
    assert [r.moves for r in fed] == [["W1"], ["W1", "E8"], ["W1"]]
    worker = LiveAnalyser(level_config(LEVEL))
    controller.moves_changed = worker.feed
    try:
        controller.typed("E8")
        controller.typed("Sa")
        found = worker.wait(timeout=120)
    finally:
        worker.stop()
    record = controller.referee.record()
    assert [m.played for m in found.moves] == ["W1", "E8", "Sa"]
    assert without_time(found.to_json()) == without_time(strength(record, LEVEL).to_json())


def test_a_record_that_does_not_replay_fails_the_report() -> None:
    worker = LiveAnalyser(level_config(LEVEL))
    bad = random_record(1, 3)
    bad.moves.append("no such move")
    try:
        worker.feed(bad)
        with pytest.raises(AnalysisFailed):
            worker.wait(timeout=30)
    finally:
        worker.stop()


def test_the_end_screen_has_the_report_analysed_during_the_game(ui: Any) -> None:
    from tests.app.test_game_flow import _play, _start

    play = _start(ui, GameSetup.default("shendao"))
    _play(ui, play, ("W1", "E8", "Sa", "Nh"))
    end = ui.app.root.ids.end
    worker = end._live
    assert worker is not None and end._followed is play.controller
    assert ui.wait(lambda: worker.progress() == (4, 4), 60)
    record = play.controller.referee.record()
    play.end_game()
    play.confirmation.buttons[-1].dispatch("on_release")
    ui.pump(3)
    assert ui.wait(lambda: end.analysis is not None, 20)
    expected = strength(record, ui.app.analysis_level)
    assert without_time(end.analysis.to_json()) == without_time(expected.to_json())


def test_the_end_screen_works_the_report_out_when_the_live_one_failed(ui: Any) -> None:
    from tests.app.test_game_flow import _play, _start

    play = _start(ui, GameSetup.default("shendao"))
    _play(ui, play, ("W1", "E8"))
    end = ui.app.root.ids.end
    end._live.stop()  # as if the worker had failed
    record = play.controller.referee.record()
    play.end_game()
    play.confirmation.buttons[-1].dispatch("on_release")
    ui.pump(3)
    assert ui.wait(lambda: end.analysis is not None, 30)
    assert not end.message
    expected = strength(record, ui.app.analysis_level)
    assert without_time(end.analysis.to_json()) == without_time(expected.to_json())
