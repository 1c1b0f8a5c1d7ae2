"""The strength model's commands: fit on fitting games, check on test games (stored
games copied to a scratch folder, so the versioned model is left alone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from engines.search.bench_strength import FIT_SEEDS, TEST_SEED, games_path
from engines.search.strength import load_models


def _scratch_games(folder: Path) -> None:
    """30 stored Shendao games as fitting games (the first fitting seed) and 30 others
    as test games, in ``folder``."""
    for source_seed, seed in ((1, FIT_SEEDS[0]), (2, TEST_SEED)):
        source = games_path("shendao-2", source_seed)
        target = games_path("shendao-2", seed, folder)
        target.write_text("".join(source.read_text().splitlines(keepends=True)[:30]))


def test_fit_then_check_on_a_scratch_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _scratch_games(tmp_path)
    model = tmp_path / "model.json"
    assert main(["bench", "strength-fit", "--folder", str(tmp_path), "--output", str(model)]) == 0
    assert "shendao-2: 30 games" in capsys.readouterr().out
    entry = json.loads(model.read_text())["models"]["shendao-2"]
    assert entry["command"] == "companion bench strength-fit --set shendao-2"
    assert load_models(model)["shendao-2"].levels == [0, 1, 2, 3, 4]
    assert (
        main(
            ["bench", "strength-check", "--folder", str(tmp_path), "--model", str(model), "--json"]
        )
        == 0
    )
    figures = json.loads(capsys.readouterr().out)["figures"]["shendao-2"]
    assert figures["test_games"] == 30
    assert set(figures["views"]) == {"full", "half", "late"}
    assert figures["views"]["full"]["tested"] > 50
    check = ["bench", "strength-check", "--folder", str(tmp_path), "--model", str(model)]
    fresh = games_path("shendao-2", 7, tmp_path)
    fresh.write_text(games_path("shendao-2", TEST_SEED, tmp_path).read_text())
    assert main([*check, "--seed", "7", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["figures"]["shendao-2"] == figures
    assert main([*check, "--seed", str(FIT_SEEDS[0])]) != 0
    assert main([*check, "--seed", str(FIT_SEEDS[-1])]) != 0


def test_fit_without_games_is_a_usage_error(tmp_path: Path) -> None:
    assert (
        main(
            [
                "bench",
                "strength-fit",
                "--folder",
                str(tmp_path),
                "--output",
                str(tmp_path / "m.json"),
            ]
        )
        != 0
    )


def test_analysis_time_gives_both_times_and_the_same_analysis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert (
        main(
            [
                "bench",
                "analysis-time",
                "--game",
                "shendao",
                "--players",
                "2",
                "--level",
                "1",
                "--workers",
                "1",
                "--json",
            ]
        )
        == 0
    )
    found = json.loads(capsys.readouterr().out)
    assert found["moves"] == 32 and found["iterations"] == 25
    assert found["scratch"]["wall"] > 0 and found["scratch"]["cpu"] > 0
    assert found["live"]["after_last_move"] >= 0 and found["live"]["mean_move"] > 0
    assert found["same"] is True


def test_pool_fit_then_check_on_a_scratch_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _scratch_games(tmp_path)
    pooling = tmp_path / "pooling.json"
    assert (
        main(["bench", "strength-pool-fit", "--folder", str(tmp_path), "--output", str(pooling)])
        == 0
    )
    assert "shendao-2: shared " in capsys.readouterr().out
    entry = json.loads(pooling.read_text())["models"]["shendao-2"]
    assert 0.0 <= entry["shared"] <= 1.0 and entry["fitted"]["tested"] > 10
    assert (
        main(
            [
                "bench",
                "strength-pool-check",
                "--folder",
                str(tmp_path),
                "--pooling",
                str(pooling),
                "--json",
            ]
        )
        == 0
    )
    figures = json.loads(capsys.readouterr().out)["figures"]["shendao-2"]
    assert set(figures["games"]) == {"1", "2", "3", "5"}
    assert figures["games"]["3"]["tested"] > 5
