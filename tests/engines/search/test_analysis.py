"""Analysis of game records, and search on tiny positions with a known best move."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from companion.cli import main
from engines import GameRecord
from engines.search import MCTS, SearchConfig
from engines.search.accuracy import game_accuracy, move_accuracy, volatility_weight, window_size
from engines.search.analysis import analyse, judge, player_game_accuracy
from tests.engines.search.test_mcts import winning_journey_position
from tests.engines.shendao.helpers import position as shendao_position


def losing_record() -> GameRecord:
    """Red to move can end the game winning (0>1); a recruit instead lets blue end it
    winning with 3>4."""
    state = winning_journey_position()
    rules = state.rules  # type: ignore[attr-defined]
    return GameRecord(
        "shangrila", list(rules.players), rules.options_json(), ["+P0", "3>4"], state.to_json()
    )  # type: ignore[attr-defined]


def test_an_obviously_losing_move_is_a_blunder() -> None:
    result = analyse(losing_record(), SearchConfig(iterations=300, seed=1))
    first = result.moves[0]
    assert first.best == "0>1"
    assert first.judgement == "blunder"
    assert first.loss > 0.5
    assert result.summary[0].counts["blunder"] == 1
    assert result.summary[0].accuracy < 20


def test_the_same_seed_gives_the_same_analysis() -> None:
    a = analyse(losing_record(), SearchConfig(iterations=200, seed=4)).to_json()
    b = analyse(losing_record(), SearchConfig(iterations=200, seed=4)).to_json()
    a.pop("seconds")
    b.pop("seconds")
    assert a == b


def test_two_processes_give_the_same_analysis_as_one() -> None:
    one = analyse(losing_record(), SearchConfig(iterations=100, seed=4)).to_json()
    two = analyse(losing_record(), SearchConfig(iterations=100, seed=4), workers=2).to_json()
    one.pop("seconds")
    two.pop("seconds")
    assert one == two


def test_thresholds() -> None:
    assert [judge(x) for x in (0.0, 0.02, 0.03, 0.05, 0.08, 0.15, 0.2, 0.5)] == [
        "best",
        "best",
        "good",
        "good",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
    ]


def test_move_accuracy_by_hand() -> None:
    # 103.1668 * exp(-0.4354) - 3.1669 = 103.1668 * 0.64701 - 3.1669 = 63.583
    assert move_accuracy(50.0, 40.0) == pytest.approx(63.583, abs=0.01)
    assert move_accuracy(30.0, 30.0) == 100.0
    assert move_accuracy(30.0, 45.0) == 100.0  # a gain counts as perfect
    # 103.1668 * exp(-0.02177) - 3.1669 = 103.1668 * 0.978465 - 3.1669 = 97.778
    assert move_accuracy(0.5, 0.0) == pytest.approx(97.778, abs=0.01)
    assert move_accuracy(100.0, 0.0) == 0.0  # 103.1668 * 0.012859 - 3.1669 < 0


def test_game_accuracy_by_hand() -> None:
    # Player 0's win chance (percent) at the five positions of a four-move game: the
    # window is 2 positions, so each move's weight is the spread of its own two.
    series = [50.0, 60.0, 40.0, 45.0, 30.0]
    assert window_size(4) == 2
    assert [volatility_weight(series, k, 2) for k in range(4)] == [5.0, 10.0, 2.5, 7.5]
    # weighted (100 * 5 + 50 * 2.5) / 7.5 = 83.333; harmonic 2 / (1/100 + 1/50) = 66.667
    assert game_accuracy([100.0, 50.0], [5.0, 2.5]) == pytest.approx(75.0)
    assert game_accuracy([], []) is None
    # weights are clamped to [0.5, 12], accuracies count as at least 1 in the harmonic
    assert volatility_weight([50.0, 50.0, 50.0], 0, 2) == 0.5
    assert volatility_weight([0.0, 100.0], 0, 2) == 12.0
    assert game_accuracy([0.0, 100.0], [1.0, 1.0]) == pytest.approx((50.0 + 2 / (1 + 1 / 100)) / 2)
    # a 30-move game's window is 3 positions; the first two moves share the first one
    wide = [float(10 * (k % 3)) for k in range(31)]
    assert window_size(30) == 3
    assert volatility_weight(wide, 0, 3) == volatility_weight(wide, 1, 3)
    assert volatility_weight(wide, 2, 3) == pytest.approx(volatility_weight(wide[1:4], 0, 3))


def test_a_player_with_no_move_has_no_accuracy() -> None:
    result = analyse(losing_record(), SearchConfig(iterations=100, seed=1))
    yellow = result.summary[2]
    assert yellow.moves == 0 and math.isnan(yellow.accuracy)
    assert result.to_json()["summary"][2]["accuracy"] is None
    assert yellow.accuracy_text() == "no moves"
    assert player_game_accuracy(result.moves, result.chances, 2) is None
    assert len(result.chances) == len(result.moves) + 1


def test_the_command_prints_a_table_and_draws_charts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(losing_record().dumps())
    assert (
        main(
            [
                "analyse",
                str(path),
                "--level",
                "2",
                "--workers",
                "1",
                "--plots",
                str(tmp_path / "charts"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "blunder" in out and "accuracy" in out
    assert "red      not enough moves (1 judged)" in out
    assert "yellow        0  no moves" in out
    for chart in ("win-chance.png", "loss.png", "strength.png"):
        assert (tmp_path / "charts" / chart).stat().st_size > 5000
    assert main(["analyse", str(path), "--level", "1", "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [m["played"] for m in data["moves"]] == ["+P0", "3>4"]
    strength = data["summary"][0]["strength"]
    assert strength["level"] is None and strength["moves"] == 1
    assert data["summary"][2]["accuracy"] is None


def test_the_shendao_tile_that_joins_two_groups_is_found() -> None:
    # Light's groups b4-a4 and c5-c6; entering at Nb stops on b5 and joins them (5
    # against dark's 4). Only Nb and W8 are open and there are no cards: after light,
    # dark plays the last gate and the game ends.
    closed = " ".join(
        g
        for g in (
            *(f"W{r}" for r in range(1, 8)),
            *(f"E{r}" for r in range(1, 9)),
            *(f"S{f}" for f in "abcdefgh"),
            *(f"N{f}" for f in "acdefgh"),
            "SW",
            "SE",
            "NW",
            "NE",
        )
    )
    state = shendao_position("a4 b4 c5 c6", "g1 h1 g2 h2", closed=closed, variant="chaton")
    result = MCTS(SearchConfig(iterations=200, seed=2)).search(state)
    assert state.rules.format_move(result.best) == "Nb"
