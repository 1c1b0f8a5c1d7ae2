"""Analysis of game records, and search on tiny positions with a known best move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from engines import GameRecord
from engines.search import MCTS, SearchConfig
from engines.search.analysis import analyse, judge, move_accuracy
from tests.engines.search.test_mcts import winning_journey_position
from tests.engines.shendao.helpers import position as shendao_position


def losing_record() -> GameRecord:
    """Red to move can end the game winning (0>1); a recruit instead lets blue end it
    winning with 3>4."""
    state = winning_journey_position()
    rules = state.rules  # type: ignore[attr-defined]
    return GameRecord("shangrila", list(rules.players), rules.options_json(),
                      ["+P0", "3>4"], state.to_json())  # type: ignore[attr-defined]


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


def test_thresholds_and_accuracy() -> None:
    assert [judge(x) for x in (0.0, 0.03, 0.08, 0.15, 0.5)] == [
        "best", "good", "inaccuracy", "mistake", "blunder"]
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=0.01)
    assert move_accuracy(1.0) == 0.0
    assert 40 < move_accuracy(0.15) < 60


def test_the_command_prints_a_table_and_draws_charts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(losing_record().dumps())
    assert main(["analyse", str(path), "--level", "2", "--workers", "1",
                 "--plots", str(tmp_path / "charts")]) == 0
    out = capsys.readouterr().out
    assert "blunder" in out and "accuracy" in out
    assert "red      plays like level" in out and "only 1 judged moves" in out
    for chart in ("win-chance.png", "loss.png", "strength.png"):
        assert (tmp_path / "charts" / chart).stat().st_size > 5000
    assert main(["analyse", str(path), "--level", "1", "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [m["played"] for m in data["moves"]] == ["+P0", "3>4"]
    strength = data["summary"][0]["strength"]
    assert strength["low"] <= strength["level"] <= strength["high"]
    assert sum(strength["posterior"].values()) == pytest.approx(1.0, abs=1e-3)


def test_the_shendao_tile_that_joins_two_groups_is_found() -> None:
    # Light's groups b4-a4 and c5-c6; entering at Nb stops on b5 and joins them (5
    # against dark's 4). Only Nb and W8 are open and there are no cards: after light,
    # dark plays the last gate and the game ends.
    closed = " ".join(g for g in (
        *(f"W{r}" for r in range(1, 8)), *(f"E{r}" for r in range(1, 9)),
        *(f"S{f}" for f in "abcdefgh"), *(f"N{f}" for f in "acdefgh"),
        "SW", "SE", "NW", "NE"))
    state = shendao_position("a4 b4 c5 c6", "g1 h1 g2 h2", closed=closed, variant="chaton")
    result = MCTS(SearchConfig(iterations=200, seed=2)).search(state)
    assert state.rules.format_move(result.best) == "Nb"
