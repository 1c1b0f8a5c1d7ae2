"""The strength model's commands: fit on fitting games, check on test games (stored
games copied to a scratch folder, so the versioned model is left alone)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from engines.search.bench_strength import (
    FIT_SEEDS,
    TEST_SEED,
    TUNING_SEEDS,
    games_path,
    strong_above_weak,
)
from engines.search.calibration import read_games
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


def test_fit_judges_the_random_tables_held_out_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The random tables a model learns from are judged too, each by a model fitted
    without it: in the fit itself they are only learned from."""
    _scratch_games(tmp_path)
    source = games_path("shendao-2-random", FIT_SEEDS[-1])
    target = games_path("shendao-2-random", FIT_SEEDS[-1], tmp_path)
    target.write_text("".join(source.read_text().splitlines(keepends=True)[:10]))
    model = tmp_path / "model.json"
    assert main(["bench", "strength-fit", "--folder", str(tmp_path), "--output", str(model)]) == 0
    assert "of 20 seats named level 0" in capsys.readouterr().out
    tables = json.loads(model.read_text())["models"]["shendao-2"]["cross_validated_random_tables"]
    assert tables["seats"] == 20 and 10 <= tables["level_0"] <= 20


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


def _tiny_test_games(folder: Path) -> None:
    """A few stored Shendao games as test games of seeds 5 and 8 (4 and 3 games), and a
    few tables where both play at random (2 and 1 games), in ``folder``."""
    for key, source_seed, seed, count in (
        ("shendao-2", TEST_SEED, TEST_SEED, 4),
        ("shendao-2", 2, 8, 3),
        ("shendao-2-random", TEST_SEED, TEST_SEED, 2),
        ("shendao-2-random", TEST_SEED, 8, 1),
    ):
        lines = games_path(key, source_seed).read_text().splitlines(keepends=True)
        games_path(key, seed, folder).write_text("".join(lines[:count]))


def _check_json(folder: Path, capsys: pytest.CaptureFixture[str], *more: str) -> dict[str, Any]:
    argv = ["bench", "strength-check", "--folder", str(folder), "--set", "shendao-2", "--json"]
    assert main([*argv, *more]) == 0
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    return found


def test_check_pools_the_games_of_several_test_seeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The frozen model on the games of seeds 5 and 8 together: every figure counts the
    players of both, ``--seed`` repeated and ``--seeds 5,8`` alike."""
    _tiny_test_games(tmp_path)
    alone = {
        seed: _check_json(tmp_path, capsys, "--seed", str(seed))["figures"]["shendao-2"]
        for seed in (TEST_SEED, 8)
    }
    pooled = _check_json(tmp_path, capsys, "--seed", str(TEST_SEED), "--seed", "8")
    assert pooled["seeds"] == [TEST_SEED, 8]
    assert pooled["games"] == {"shendao-2": {str(TEST_SEED): 4, "8": 3}}
    found = pooled["figures"]["shendao-2"]
    assert found["test_games"] == 7
    for level in ("0", "1", "2", "3", "4"):
        assert found["levels"][level]["tested"] == sum(
            alone[seed]["levels"][level]["tested"] for seed in alone
        )
    assert found["views"]["full"]["tested"] == sum(
        a["views"]["full"]["tested"] for a in alone.values()
    )
    for key in ("random_play_level_0", "strong_above_weak"):
        assert found[key] == [sum(a[key][i] for a in alone.values()) for i in range(2)]
    assert found["random_tables"] == [
        sum(a["random_tables"][i] for a in alone.values()) for i in range(3)
    ]
    assert found["random_tables"][0] == 3 and found["random_tables"][2] == 6
    assert (
        _check_json(tmp_path, capsys, "--seeds", f"{TEST_SEED},8")["figures"] == pooled["figures"]
    )
    assert _check_json(tmp_path, capsys, "--seeds", f"{TEST_SEED},8", "--seed", "8") == pooled


def test_check_of_one_seed_is_as_before(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a seed the test seed is checked; a seed given once is checked alone."""
    _tiny_test_games(tmp_path)
    default = _check_json(tmp_path, capsys)
    assert default["seeds"] == [TEST_SEED]
    assert default == _check_json(tmp_path, capsys, "--seed", str(TEST_SEED))
    assert default["figures"]["shendao-2"]["test_games"] == 4
    assert default["games"] == {"shendao-2": {str(TEST_SEED): 4}}


def test_check_names_the_players_of_each_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_test_games(tmp_path)
    argv = ["bench", "strength-check", "--folder", str(tmp_path), "--set", "shendao-2"]
    assert main([*argv, "--seeds", f"{TEST_SEED},8"]) == 0
    out = capsys.readouterr().out
    assert f"shendao-2: 7 test games (seeds {TEST_SEED}, 8: 4 + 3)" in out
    assert "strong player above weak" in out
    assert "judged level 0 in" in out and "(3 games, seeds" in out
    for level in range(5):
        assert f"level {level} (whole games): " in out
    assert " players" in out


def test_check_refuses_fitting_seeds_and_missing_test_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_test_games(tmp_path)
    argv = ["bench", "strength-check", "--folder", str(tmp_path), "--set", "shendao-2"]
    for seed in FIT_SEEDS:
        assert main([*argv, "--seeds", f"{TEST_SEED},{seed}"]) == 2
        assert main([*argv, "--seed", "8", "--seed", str(seed)]) == 2
    assert "fitting games" in capsys.readouterr().err
    assert main([*argv, "--seeds", f"{TEST_SEED},9"]) == 2
    assert "no test games of seed 9" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*argv, "--seeds", "5,x"])


def test_strong_above_weak_counts_the_pairs_three_levels_apart() -> None:
    """Every pair at one table of a level-0 or level-1 seat and one 3 or more levels
    above it, once."""
    games = read_games(games_path("shendao-2", TEST_SEED))[:12]
    right, pairs = strong_above_weak(load_models()["shendao-2"], games)
    expected = sum(
        1 for g in games for high in g.levels for low in g.levels if low <= 1 and high - low >= 3
    )
    assert pairs == expected and 0 <= right <= pairs


def test_check_warns_of_seeds_a_model_was_tuned_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three-player Shangri-La's level-0 rule was chosen on the games of its tuning
    seeds: checked on them, a plain warning line and ``tuned_on`` in the JSON; none on
    a seed never used."""
    tuned, fresh = TUNING_SEEDS["shangrila-3"][-1], 99
    for source, seed in ((tuned, tuned), (12, fresh)):
        lines = games_path("shangrila-3", source).read_text().splitlines(keepends=True)
        games_path("shangrila-3", seed, tmp_path).write_text("".join(lines[:2]))
    argv = ["bench", "strength-check", "--folder", str(tmp_path), "--set", "shangrila-3"]
    assert main([*argv, "--seeds", f"{fresh},{tuned}"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"WARNING: shangrila-3's model was tuned on the games of seed {tuned}")
    assert "no fair test" in out
    assert main([*argv, "--seeds", f"{fresh},{tuned}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tuned_on"] == {"shangrila-3": [tuned]}
    assert main([*argv, "--seed", str(fresh)]) == 0
    assert "WARNING" not in capsys.readouterr().out
    assert main([*argv, "--seed", str(fresh), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tuned_on"] == {}


def test_check_warns_of_the_seeds_the_ranges_of_few_moves_were_chosen_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_test_games(tmp_path)
    argv = ["bench", "strength-check", "--folder", str(tmp_path), "--set", "shendao-2"]
    assert main([*argv, "--seed", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tuned_on"] == {"shendao-2": [8]}
