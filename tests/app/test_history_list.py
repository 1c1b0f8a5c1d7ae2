"""The History list: each past game with its scores and winner, read from the journal's
verdicts (moves accepted less those taken back) without replaying the referee, the same
game as a replay gives; the strength report kept with a game and read back."""

from __future__ import annotations

from pathlib import Path

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup
from companion.app.history import (
    list_games,
    load_analysis,
    replay_record,
    report_folder,
    save_analysis,
)
from companion.app.i18n import Translator
from companion.app.report import strength
from companion.simulator import random_game


def test_scores_come_from_the_verdicts_and_match_a_replay(tmp_path: Path) -> None:
    controller = PlayController.start(
        GameSetup.default("shendao"), Translator(), tmp_path / "games"
    )
    rules = controller.referee.rules
    moves = [rules.format_move(m) for m in random_game(rules, seed=4)]
    for text in moves[:6]:
        controller.typed(text)
    controller.takeback()
    controller.takeback()
    for text in moves[4:]:
        controller.typed(text)
    controller.journal.close()
    [past] = list_games(tmp_path / "games")
    record = replay_record(past.path)
    assert record.moves == moves and past.moves == len(moves)
    state = record.starting_state()
    for text in record.moves:
        state.play_text(text)
    assert past.over and past.scores == tuple(state.scores())
    assert past.winners == tuple(state.winners())


def test_the_strength_report_is_kept_with_its_game(tmp_path: Path) -> None:
    controller = PlayController.start(
        GameSetup.default("shendao"), Translator(), tmp_path / "games"
    )
    for text in ("W1", "E8", "Sa"):
        controller.typed(text)
    record = controller.referee.record()
    analysis = strength(record, level=1)
    folder = report_folder(tmp_path, controller.journal.path)
    save_analysis(folder, analysis)
    again = load_analysis(folder, record)
    assert again is not None
    assert [m.judgement for m in again.moves] == [m.judgement for m in analysis.moves]
    assert again.chances == analysis.chances
    assert [s.accuracy_text() for s in again.summary] == [
        s.accuracy_text() for s in analysis.summary
    ]
    controller.typed("Nh")  # the game went on: the report no longer fits it
    assert load_analysis(folder, controller.referee.record()) is None
