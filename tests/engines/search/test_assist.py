"""What the app calls: a hint, and the game-end strength report."""

from __future__ import annotations

import json
import math

import pytest

from engines.search.assist import hint, strength_report
from tests.engines.search.test_analysis import losing_record
from tests.engines.search.test_mcts import winning_journey_position


def test_the_hint_is_the_winning_journey_with_its_win_chance() -> None:
    state = winning_journey_position()
    before = state.to_json()  # type: ignore[attr-defined]
    suggestion = hint(state, level=2, seed=3)  # type: ignore[arg-type]
    assert suggestion.text == "0>1"
    assert suggestion.win_chance == pytest.approx(1.0)
    assert all(chance < 1.0 for _, chance in suggestion.runners_up)
    assert state.to_json() == before  # type: ignore[attr-defined]
    assert hint(state, level=2, seed=3) == suggestion  # type: ignore[arg-type]


def test_no_hint_when_the_game_is_over_or_the_level_is_unknown() -> None:
    state = winning_journey_position()
    with pytest.raises(ValueError, match="level must be one of"):
        hint(state, level=9)  # type: ignore[arg-type]
    state.play_text("0>1")  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="game is over"):
        hint(state, level=1)  # type: ignore[arg-type]


def test_the_strength_report_counts_the_blunder_and_ends_on_the_result() -> None:
    report = strength_report(losing_record(), level=2, seed=1)
    red, blue = report.players[:2]
    assert (red.name, red.moves, red.blunders, red.good_moves) == ("red", 1, 1, 0)
    assert red.accuracy < 20
    assert (blue.moves, blue.good_moves, blue.blunders) == (1, 1, 0)
    assert red.level is not None and red.level.level is None  # one move says nothing
    assert red.level.describe() == "not enough moves (1 judged)"
    assert math.isnan(report.players[2].accuracy)  # yellow never moved
    assert report.to_json()["analysis"]["summary"][2]["accuracy"] is None
    # a point before each of the two moves, then the result: blue won
    assert [len(series) for series in report.win_chances] == [3] * 4
    assert [series[-1] for series in report.win_chances] == [0.0, 1.0, 0.0, 0.0]
    assert report.win_chances[0][0] > 0.5  # red could have won at once
    assert report.win_chances[0][0] == report.analysis.moves[0].win_chances[0]
    data = json.loads(json.dumps(report.to_json()))
    assert data["players"][0]["blunders"] == 1
    assert data["analysis"]["moves"][0]["judgement"] == "blunder"
