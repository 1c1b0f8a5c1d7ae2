"""The strength estimate: the model, the fitted file, and a small check on the stored
test games (never used in the fit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.search.calibration import (
    joined_at,
    seat_levels,
)
from engines.search.strength import (
    MIN_MOVES,
    MODEL_PATH,
    CalibrationError,
    Evidence,
    Labelled,
    StrengthModel,
    credible_range,
    estimate,
    fit_model,
    isotonic,
    load_models,
    model_for,
)


def synthetic_rows() -> list[Labelled]:
    """Level 0 rarely finds the best move and often loses a lot, level 2 mostly finds
    it; games of a level differ a little."""
    shapes = {0: ((40.0, False), (70.0, False), (95.0, False), (20.0, False), (100.0, True)),
              1: ((70.0, False), (90.0, True), (95.0, False), (60.0, False), (100.0, True)),
              2: ((100.0, True), (95.0, True), (90.0, False), (100.0, True), (85.0, True))}
    rows = []
    for level, shape in shapes.items():
        for k in range(10):
            moves = shape * (3 + k % 3)
            accuracies = tuple(min(100.0, a + k % 4) for a, _ in moves)
            rows.append(Labelled(level, Evidence(accuracies, tuple(b for _, b in moves)),
                                 group=10 * level + k))
    return rows


def test_the_range_is_the_narrowest_run_holding_the_coverage() -> None:
    assert credible_range({0: 0.02, 1: 0.5, 2: 0.45, 3: 0.03}) == (1, 2)
    assert credible_range({0: 0.95, 1: 0.05}) == (0, 0)
    assert credible_range({0: 0.25, 1: 0.25, 2: 0.25, 3: 0.25}) == (0, 3)


def test_level_means_are_made_to_rise_with_the_level() -> None:
    means = isotonic({0: 50.0, 1: 60.0, 2: 55.0, 3: 70.0}, {0: 1, 1: 1, 2: 1, 3: 2})
    assert means == {0: 50.0, 1: 57.5, 2: 57.5, 3: 70.0}


def test_thin_evidence_gives_no_level_or_a_wide_range() -> None:
    model, check = fit_model("test", synthetic_rows(), 300)
    assert check.tested > 0 and model.levels == [0, 1, 2]
    careless = synthetic_rows()[0].evidence
    full = estimate(model, careless.accuracies * 3, careless.best * 3)
    assert full.level == 0
    short = estimate(model, careless.accuracies[:MIN_MOVES], careless.best[:MIN_MOVES])
    assert short.level is not None and short.high - short.low > full.high - full.low
    assert "only 4 judged moves" in short.note
    none = estimate(model, careless.accuracies[:MIN_MOVES - 1],
                    careless.best[:MIN_MOVES - 1])
    assert none.level is None and none.describe() == "not enough moves (3 judged)"
    assert (none.low, none.high) == (0, 2)
    assert "iterations" in estimate(model, careless.accuracies, careless.best, 1000).note


def test_a_higher_score_never_points_to_a_lower_level() -> None:
    model, _ = fit_model("test", synthetic_rows(), 300)
    found = [estimate(model, [a] * 20, [a > 90] * 20).level for a in range(0, 101, 5)]
    assert found == sorted(found)  # type: ignore[type-var]


def test_the_seats_mix_levels_and_the_first_seat_cycles() -> None:
    levels = (0, 1, 2, 3, 4, 5)
    seats = [seat_levels(levels, 4, 1, i) for i in range(12)]
    assert seats == [seat_levels(levels, 4, 1, i) for i in range(12)]
    assert seats != [seat_levels(levels, 4, 2, i) for i in range(12)]
    assert {lv for s in seats for lv in s} == set(levels)
    assert any(max(s) - min(s) >= 3 for s in seats)


def test_views_join_the_game_late() -> None:
    assert [joined_at(v, 100) for v in ("full", "half", "late")] == [0, 50, 80]
    assert joined_at("late", 12) == 0


def test_the_model_file_loads_and_knows_every_level_of_its_games() -> None:
    models = load_models(MODEL_PATH)
    assert "shangrila-4" in models and "shendao-2" in models
    for key, model in models.items():
        assert model.levels[0] == 0, key
        means = [model.means[lv] for lv in model.levels]
        assert means == sorted(means)
        assert model.analysis_iterations == 300
    document = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    for entry in document["models"].values():
        assert entry["command"].startswith("companion bench strength-fit")


def test_an_unreadable_model_file_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.json"
    bad.write_text('{"models": {"shendao-2": {"model": {"means": {}}}}}')
    with pytest.raises(CalibrationError, match="malformed"):
        load_models(bad)
    with pytest.raises(CalibrationError, match="cannot read"):
        load_models(tmp_path / "missing.json")
    assert model_for("shendao", 3) is None


def test_a_range_over_the_whole_scale_says_the_moves_did_not_tell() -> None:
    model = StrengthModel("test", {0: 50.0, 1: 60.0, 2: 70.0}, 900.0, 1.0, 1.0, 1.0, 300)
    few = estimate(model, [60.0] * 4, [False] * 4)
    assert few.whole_scale and few.describe() == "not enough moves to tell (range 0-2)"
    many = estimate(model, [60.0] * 200, [False] * 200)
    assert not many.whole_scale and many.describe() == "plays like level 1 (range 1)"
