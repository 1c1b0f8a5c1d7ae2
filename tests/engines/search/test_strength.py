"""The strength estimate on the level scale: the model, its calibration data, and the
calibration command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from engines.search.analysis import Analysis, analyse
from engines.search.assist import level_config
from engines.search.calibration import close_pairs, play_recorded, seating
from engines.search.players import DEFAULT_LEVEL, SearchPlayer
from engines.search.strength import (
    CALIBRATION_PATH,
    COVERAGE,
    CalibrationError,
    PlayerGame,
    StrengthEstimate,
    credible_range,
    estimate,
    fit_levels,
    fit_model,
    fits_to_json,
    load_models,
)
from engines.shendao import ShendaoRules


def synthetic_data() -> list[PlayerGame]:
    """Level 1 often loses 10-30 points, level 2 sometimes, level 3 rarely; games of
    each level differ a little."""
    shapes = {1: (0.0, 0.02, 0.1, 0.15, 0.3), 2: (0.0, 0.0, 0.03, 0.08, 0.15),
              3: (0.0, 0.0, 0.0, 0.01, 0.05)}
    return [PlayerGame(level, shape * (3 + k % 2) + (0.01 * k,))
            for level, shape in shapes.items() for k in range(6)]


def test_the_range_is_the_narrowest_run_holding_the_coverage() -> None:
    assert credible_range({0: 0.02, 1: 0.5, 2: 0.45, 3: 0.03}) == (1, 2)
    assert credible_range({0: 0.95, 1: 0.05}) == (0, 0)
    assert credible_range({0: 0.25, 1: 0.25, 2: 0.25, 3: 0.25}) == (0, 3)


def test_fewer_moves_give_a_wider_range_and_the_right_level() -> None:
    model, _ = fit_model("test", synthetic_data(), 1000)
    careless = [0.0, 0.02, 0.1, 0.15, 0.3] * 4
    full = estimate(model, careless)
    short = estimate(model, careless[:3])
    assert full.level == 1 and full.low == 1
    assert short.high - short.low > full.high - full.low
    assert "only 3 judged moves" in short.note
    assert sum(full.posterior.values()) == pytest.approx(1.0, abs=1e-3)
    assert "iterations" not in full.note
    assert "1000 iterations" in estimate(model, careless, 300).note
    nothing = estimate(model, [])
    assert (nothing.low, nothing.high) == (1, 3) and nothing.moves == 0


def test_a_level_fit_splits_move_noise_from_game_noise() -> None:
    fits = fit_levels(synthetic_data())
    assert list(fits) == [1, 2, 3]
    assert fits[1].mean < fits[2].mean < fits[3].mean
    assert all(fit.player_games == 6 and fit.game_variance > 0 for fit in fits.values())
    model, _ = fit_model("test", synthetic_data(), 1000)
    assert model.variance(5) > model.variance(50) > model.game_variance


def test_the_temperature_is_fitted_for_the_coverage_on_held_out_games() -> None:
    model, check = fit_model("test", synthetic_data(), 1000)
    assert check.coverage >= COVERAGE and check.tested == 18
    assert check.within_one == 1.0 and 0 <= check.mean_width <= 2
    assert 0 < model.temperature <= 1


def test_the_stored_calibration_is_the_fit_of_its_own_data() -> None:
    document = json.loads(CALIBRATION_PATH.read_text(encoding="utf-8"))
    assert set(document["games"]) == {"shangrila", "shendao", "shenshi"}
    for game, entry in document["games"].items():
        data = [PlayerGame.from_json(row) for row in entry["player_games"]]
        model, check = fit_model(game, data, entry["analysis_iterations"])
        assert model.temperature == entry["temperature"], game
        assert check.coverage == pytest.approx(entry["held_out_coverage"], abs=1e-3), game
        assert check.within_one == pytest.approx(entry["held_out_within_one"], abs=1e-3)
        assert fits_to_json(model.fits) == entry["fits"], game
        assert entry["command"].startswith("companion bench calibrate-strength")
        assert len(data) == entry["games"] * (4 if game == "shangrila" else 2)


def test_a_malformed_calibration_is_refused_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"games": {"shendao": {"levels": [1]}}}')
    with pytest.raises(CalibrationError, match=r"broken\.json"):
        load_models(path)
    with pytest.raises(CalibrationError, match="cannot read"):
        load_models(tmp_path / "missing.json")


def test_a_short_run_seats_every_level_and_the_order_does_not_change_the_games() -> None:
    two = [seating(range(6), 2, i) for i in range(30)]
    assert [s.levels for s in two[:6]] == [[level, level] for level in range(6)]
    assert all(abs(s.levels[0] - s.levels[1]) <= 2 for s in two)
    # a full cycle plays every close pair once; its seeds follow the pair, not the order
    pairs = close_pairs(range(6))
    assert sorted(s.seed_index for s in two[:15]) == list(range(15))
    assert all(sorted(pairs[s.seed_index % 15]) == sorted(s.levels) for s in two)
    assert {s.seed_index for s in two} == set(range(30))
    mixed = [s.levels for s in two if s.levels[0] != s.levels[1]]
    assert any(a < b for a, b in mixed) and any(a > b for a, b in mixed)
    four = [seating(range(6), 4, i).levels for i in range(10)]
    assert {level for seats in four for level in seats} == set(range(6))
    assert all(len(set(seats)) == 2 and seats.count(seats[0]) == 2 for seats in four)


def test_the_calibration_command_writes_and_extends_a_calibration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "calibration.json"
    command = ["bench", "calibrate-strength", "--game", "shendao", "--levels", "1",
               "--analysis-level", "1", "--output", str(output)]
    assert main([*command, "--games", "1"]) == 0
    first = json.loads(output.read_text())["games"]["shendao"]
    assert first["games"] == 1 and len(first["player_games"]) == 2
    assert main([*command, "--games", "2"]) == 0
    second = json.loads(output.read_text())["games"]["shendao"]
    assert second["games"] == 2 and second["player_games"][:2] == first["player_games"]
    assert all(len(row["losses"]) > 10 for row in second["player_games"])
    assert "--games 2" in second["command"]
    assert set(load_models(output)) == {"shendao"}
    assert "held-out coverage" in capsys.readouterr().out
    output.write_text("not json")
    assert main([*command, "--games", "1"]) == 2
    assert "cannot read the calibration" in capsys.readouterr().err



def played_and_analysed(level: int, seed: int) -> Analysis:
    """A Shendao game between two engines of ``level``, analysed at the calibration's
    analysis level."""
    rules = ShendaoRules.from_record(ShendaoRules.default_players(2), {})
    record = play_recorded(rules, [SearchPlayer(level, seed=seed + seat) for seat in (0, 1)])
    return analyse(record, level_config(DEFAULT_LEVEL, seed))


@pytest.fixture(scope="module")
def level_one_and_four() -> tuple[Analysis, Analysis]:
    return played_and_analysed(1, seed=5), played_and_analysed(4, seed=5)


def estimates(analysis: Analysis) -> list[StrengthEstimate]:
    found = [s.strength for s in analysis.summary]
    assert all(e is not None for e in found)
    return found  # type: ignore[return-value]


def test_level_one_play_estimates_lower_than_level_four_play(
        level_one_and_four: tuple[Analysis, Analysis]) -> None:
    weak, strong = (estimates(a) for a in level_one_and_four)
    assert max(e.expected for e in weak) < min(e.expected for e in strong)
    assert sum(e.level for e in weak) < sum(e.level for e in strong)
    assert all(e.low <= e.level <= e.high for e in weak + strong)
    assert all(not e.note for e in weak + strong)  # enough moves, the calibrated budget


def test_the_range_widens_with_fewer_moves_of_a_real_game(
        level_one_and_four: tuple[Analysis, Analysis]) -> None:
    model = load_models()["shendao"]
    for analysis in level_one_and_four:
        for summary in analysis.summary:
            # the same accuracy over fewer moves: less evidence, a wider range
            ranges = [credible_range(model.posterior(summary.accuracy, n))
                      for n in (summary.moves, 8, 3)]
            widths = [high - low for low, high in ranges]
            assert widths[0] <= widths[1] <= widths[2] and widths[0] < widths[2], ranges
