"""The benchmark commands run and print their figures (tiny budgets here)."""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from engines.search.bench_players import elo


def test_bench_search_prints_iterations_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "search", "--game", "shendao", "--level", "1", "--json"]) == 0
    figure = json.loads(capsys.readouterr().out)["figures"][0]
    assert figure["game"] == "shendao" and figure["iterations"] == 25
    assert figure["iterations_per_second"] > 0


def test_bench_players_plays_every_pairing(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["bench", "players", "--game", "shendao", "--games", "2", "--levels", "2", "--json"])
        == 0
    )
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert [(f["measured"], f["opponent"], f["games"]) for f in figures] == [
        ("level 2", "level 1", 2),
        ("level 4", "random", 2),
        ("level 4", "greedy", 2),
    ]


def test_the_elo_scale() -> None:
    assert elo(0.5, 2) == pytest.approx(0.0)
    assert elo(0.25, 4) == pytest.approx(0.0)  # an equal player among four
    assert elo(0.75, 2) == pytest.approx(190.8, abs=0.1)
    assert elo(1.0, 2) is None


def test_bench_rules_reports_both_draws(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "rules", "--game", "shangrila", "--seconds", "0.2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["figures"]
    assert {(f["players"], f["policy"]) for f in figures} == {
        (3, "uniform"),
        (3, "playout"),
        (4, "uniform"),
        (4, "playout"),
    }


def test_bench_referee_times_verdicts_on_the_clock_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            [
                "bench",
                "referee",
                "--game",
                "shendao",
                "--games",
                "1",
                "--flicker",
                "0.01",
                "--clock",
                "cpu",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["clock"] == "cpu" and data["referee"]["confirm_frames"] == 2
    run = data["runs"][0]
    assert run["games"] == 1 and run["moves"] > 10
    assert run["verdict_ms"]["verdicts"] == len(run["verdict_ms_all"]) > 0
    assert main(["bench", "referee", "--game", "shendao", "--games", "1", "--flicker", "0.01"]) == 0
    assert "verdict time (wall) median" in capsys.readouterr().out
