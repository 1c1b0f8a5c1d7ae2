"""A player's level over several games: pooling under the strength model, its fitted
shared part and a small held-out check, and head-to-head results."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engines.search.bench_strength import (
    TEST_SEED,
    games_of_seeds,
    games_path,
    marked_fitting_rows,
)
from engines.search.calibration import labelled, read_games
from engines.search.pooling import (
    Finish,
    HeadToHead,
    check_pooled,
    fit_shared_held_out,
    fold_models,
    head_to_head,
    load_shared,
    pooled_estimate,
    pooled_groups,
    pooled_posterior,
    shared_for,
)
from engines.search.strength import (
    COVERAGE,
    CalibrationError,
    Evidence,
    Labelled,
    estimate,
    fit_logistic,
    load_models,
)


def evidence(accuracy: float, best: float, moves: int) -> Evidence:
    hits = round(best * moves)
    return Evidence((accuracy,) * moves, (True,) * hits + (False,) * (moves - hits))


@pytest.mark.parametrize("shared", [0.0, 0.5, 1.0])
def test_one_game_pooled_alone_is_that_games_estimate(shared: float) -> None:
    model = load_models()["shendao-2"]
    game = Evidence((80.0, 40.0, 95.0, 60.0, 70.0, 88.0), (True, False, True, False, False, True))
    alone = estimate(model, game.accuracies, game.best)
    pooled = pooled_estimate(model, [game], shared)
    assert (pooled.level, pooled.low, pooled.high) == (alone.level, alone.low, alone.high)
    assert pooled.posterior == alone.posterior


def test_more_games_alike_narrow_the_range_down_to_the_shared_spread() -> None:
    model = load_models()["shendao-2"]
    game = evidence(80.0, 0.5, 6)
    widths = [
        (lambda e: e.high - e.low)(pooled_estimate(model, [game] * k, 0.0)) for k in (1, 2, 4, 8)
    ]
    assert widths == sorted(widths, reverse=True) and widths[-1] < widths[0]
    # all of what sets a game apart shared: eight games alike say what one says
    many = pooled_posterior(model, [game] * 8, 1.0)
    assert many == pytest.approx(pooled_posterior(model, [game], 0.0))


def test_thin_evidence_over_games_gives_no_level() -> None:
    model = load_models()["shangrila-4"]
    found = pooled_estimate(model, [evidence(90.0, 1.0, 1), evidence(90.0, 1.0, 2)])
    assert found.level is None and found.whole_scale and found.moves == 3
    assert found.describe() == "not enough moves (3 judged)"


def test_a_strong_and_a_weak_players_games_pool_to_levels_in_order() -> None:
    model = load_models()["shendao-2"]
    shared = shared_for("shendao-2")
    weak = pooled_estimate(model, [evidence(40.0, 0.1, 25)] * 3, shared)
    strong = pooled_estimate(model, [evidence(90.0, 0.6, 25)] * 3, shared)
    assert weak.level is not None and strong.level is not None
    assert weak.level < strong.level


def test_the_pooling_file_loads_and_holds_on_test_games() -> None:
    shares = load_shared()
    models = load_models()
    assert set(shares) <= set(models) and "shendao-2" in shares
    model = models["shendao-2"]
    rows = labelled(read_games(games_path("shendao-2", TEST_SEED))[:40], ("full",), model.levels)
    found = check_pooled(model, pooled_groups(rows, (3,)), shares["shendao-2"])
    assert found.tested >= 20
    assert found.coverage >= 0.8  # 0.97 on all 60 test games by strength-pool-check


def _rows() -> list[Labelled]:
    """Players of three levels, two a game; every sixth game marked a table where
    everyone plays at random."""
    shapes = {0: (30.0, 0.0), 1: (70.0, 0.2), 2: (95.0, 0.6)}
    rows = []
    for group in range(30):
        for level in (group % 3, (group + 1) % 3):
            accuracy, best = shapes[level]
            game = evidence(accuracy + group % 5, best, 8 + group % 4)
            kept = Evidence(game.accuracies, game.best, (0.3 + 0.1 * level,) * game.moves)
            rows.append(Labelled(level, kept, group, random_table=group % 6 == 0))
    return rows


def test_pooling_is_learned_under_fold_models_of_the_shipped_kind() -> None:
    """The folds' models are fitted as the shipped model was (here its levels split by
    the lead and its random tables weighed more), with its temperature and level-0
    rule; games that only chose the level-0 rule (``Labelled.tuning``) are neither
    learned from nor pooled."""
    rows = _rows()
    model = replace(
        fit_logistic("test", rows, [0, 1, 2], 0.5, 300, table_weight=3.0, lead_split=True),
        temperature=1.5,
        random_threshold=0.3,
        random_moves=10,
    )
    tuning = [replace(r, group=r.group + 100, tuning=True) for r in rows]
    folds = fold_models(model, rows + tuning)
    assert len(folds) == 5
    for held, whole in folds:
        assert held.lead_split and held.table_weight == 3.0
        assert len(held.weights[0]) == 2 * len(held.levels)
        assert (held.temperature, held.random_threshold, held.random_moves) == (1.5, 0.3, 10)
        assert whole and not any(r.tuning for r in whole)
    pooled = sorted(id(r) for _, whole in folds for r in whole)
    assert pooled == sorted(id(r) for r in rows)


def test_pooled_ranges_hold_the_level_on_games_never_fitted_on() -> None:
    """Shendao's players of the development games of seeds 5, 8, 9 and 10 (never
    fitted on, never part of the pooling's fit), taken 3 and 5 games at a time: the
    pooled range holds their level at least ``COVERAGE`` of the time (88% over three
    games and 84% over five with a quarter shared, the share learned before Shendao's
    fitting games gained 40 tables where both play at random)."""
    model = load_models()["shendao-2"]
    games = [g for found in games_of_seeds("shendao-2", (5, 8, 9, 10)).values() for g in found]
    rows = labelled(games, ("full",), model.levels)
    for size in (3, 5):
        found = check_pooled(model, pooled_groups(rows, (size,)), shared_for("shendao-2"))
        assert found.tested >= 60
        assert found.coverage >= COVERAGE, (size, found)


def test_the_shared_part_holds_the_level_for_every_number_of_games() -> None:
    """Three-player Shangri-La's fitting games, each pooled under a model fitted without
    it: with nothing shared the ranges held the level 90.2% of the time over 2, 3 and 5
    games together, but 82.4% over five games alone; the share is the smallest whose
    ranges hold it ``COVERAGE`` of the time for each number of games, and the pooling
    file holds the share the fit finds."""
    model = load_models()["shangrila-3"]
    rows = marked_fitting_rows("shangrila-3")
    shared, fitted = fit_shared_held_out(model, rows)
    assert shared == shared_for("shangrila-3") > 0.0
    folds = fold_models(model, rows)
    for size in (2, 3, 5):
        found = [check_pooled(held, pooled_groups(whole, (size,)), shared) for held, whole in folds]
        tested = sum(c.tested for c in found)
        assert sum(c.coverage * c.tested for c in found) >= COVERAGE * tested, size
    assert fitted.tested == 287


def test_an_unreadable_pooling_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "pooling.json"
    path.write_text('{"models": {"shendao-2": {"shared": 3}}}')
    with pytest.raises(CalibrationError):
        load_shared(path)


def test_head_to_head_counts_who_finished_ahead() -> None:
    finishes = [
        Finish(("Ann", "Bob", "Cy"), (10, 7, 7), (0,)),
        Finish(("Bob", "Ann"), (5, 5), (0,)),  # equal scores, Bob won the tie-break
        Finish(("Ann", "Bob"), (3, 3), (0, 1)),  # a shared win
        Finish(("Bob", "Cy"), (9, 2), (0,)),  # without Ann
    ]
    assert head_to_head("Ann", finishes) == [
        HeadToHead("Bob", 3, 1, 1, 1),
        HeadToHead("Cy", 1, 1, 0, 0),
    ]
    assert head_to_head("Cy", finishes) == [  # most games first
        HeadToHead("Bob", 2, 0, 1, 1),
        HeadToHead("Ann", 1, 0, 1, 0),
    ]
