"""The fitted strength model on stored test games (``TEST_SEED``), made after it was
fitted and never part of a choice: a small held-out check that runs in the fast suite."""

from __future__ import annotations

import pytest

from engines.search.analysis import analyse, game_config
from engines.search.bench_strength import (
    TEST_SEED,
    THIN_COVERAGE_SEEDS,
    TUNED_THRESHOLD_SETS,
    TUNING_SEEDS,
    games_path,
    random_game,
)
from engines.search.calibration import StoredGame, evidence_of, labelled, read_games
from engines.search.strength import (
    COVERAGE,
    FEW_MOVES,
    RANDOM_AIM,
    THIN_AIM,
    THIN_COVERAGE,
    StrengthEstimate,
    StrengthModel,
    check,
    estimate_evidence,
    load_models,
)


def _test_games(key: str) -> list[StoredGame]:
    return read_games(games_path(key, TEST_SEED))


@pytest.mark.parametrize("key", ["shangrila-4", "shangrila-3", "shendao-2", "shenshi-2"])
def test_random_play_is_judged_random_on_test_games(key: str) -> None:
    model = load_models()[key]
    found = [
        estimate_evidence(model, r.evidence)
        for r in labelled(_test_games(key), ("full",))
        if r.level == 0
    ]
    assert len(found) >= 5
    assert sum(f.level == 0 for f in found) >= 0.9 * len(found)
    assert sum(f.low == 0 for f in found) >= 0.9 * len(found)


@pytest.mark.parametrize("key", ["shangrila-4", "shangrila-3", "shendao-2"])
def test_strong_and_weak_players_of_a_test_game_are_ranked_right(key: str) -> None:
    model = load_models()[key]
    pairs = right = 0
    for stored in _test_games(key):
        for strong, high in enumerate(stored.levels):
            for weak, low in enumerate(stored.levels):
                if high - low < 3 or low > 1:
                    continue
                a = _estimate(model, stored, strong)
                b = _estimate(model, stored, weak)
                pairs += 1
                right += (a.expected or 0) > (b.expected or 0)
    assert pairs >= 3
    assert right >= 0.8 * pairs


def _estimate(model: StrengthModel, stored: StoredGame, seat: int) -> StrengthEstimate:
    return estimate_evidence(model, evidence_of(stored, seat))


def test_every_seat_of_a_random_table_is_judged_random_on_test_tables() -> None:
    """Shendao tables where both play at random (never fitted on): a random player in
    the lead there keeps much win chance, and must still be judged level 0."""
    model = load_models()["shendao-2"]
    tables = _test_games("shendao-2-random")
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    assert len(found) >= 16
    assert sum(f.level == 0 for f in found) >= 0.85 * len(found)
    assert sum(f.low == 0 for f in found) >= 0.9 * len(found)


def test_four_player_levels_are_named_within_one_on_test_games() -> None:
    """The goal for the level named, which four-player Shangri-La reaches with the moves'
    edges (levels 1 and 2 lose win chance alike there): within one of the level that
    played on at least 80% of whole test games, the range holding it on 90%."""
    found = check(load_models()["shangrila-4"], labelled(_test_games("shangrila-4"), ("full",)))
    assert found.tested >= 100
    assert found.within_one >= 0.8
    assert found.coverage >= 0.9


def test_the_shenshi_model_holds_the_level_on_its_test_games() -> None:
    """ShenShi's model (games analysed at its own budget): its ranges hold the level
    that played on most test seats, and reach level 0 for random play."""
    model = load_models()["shenshi-2"]
    assert model.analysis_iterations == 100
    rows = labelled(_test_games("shenshi-2"), ("full",))
    found = [(r.level, estimate_evidence(model, r.evidence)) for r in rows]
    judged = [(level, f) for level, f in found if f.level is not None]
    assert len(judged) >= 15
    assert sum(f.low <= level <= f.high for level, f in judged) >= 0.8 * len(judged)
    random = [f for level, f in judged if level == 0]
    assert len(random) >= 5
    assert sum(f.low == 0 for f in random) >= 0.9 * len(random)


def test_every_seat_of_fresh_random_tables_is_judged_random() -> None:
    """Shendao tables of seed 8 where both play at random, made after the model was
    settled: a random player who leads such a table keeps much win chance and gives
    little of it away, as strong players do against weaker ones, and is still named
    level 0 (at least 39 times in 40, ``RANDOM_AIM``): its moves are compared with
    random play at the same win chance."""
    model = load_models()["shendao-2"]
    assert model.random_reference
    tables = read_games(games_path("shendao-2-random", 8))
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    assert len(found) >= 60
    assert sum(f.level == 0 for f in found) >= RANDOM_AIM * len(found)
    assert sum(f.low == 0 for f in found) >= RANDOM_AIM * len(found)


@pytest.mark.parametrize("seed", [1, 4])
def test_a_shendao_game_of_random_moves_is_judged_random(seed: int) -> None:
    """The games of random moves of ``companion rules demo --game shendao --seed 1`` and
    ``--seed 4``, analysed as ``companion analyse`` does: both players are named level 0
    (their dark players were named level 2 and level 1 when the model read the win
    chance a player has: the one the other let take the lead looked careful)."""
    analysis = analyse(random_game("shendao", 2, seed), game_config("shendao"))
    for summary in analysis.summary:
        assert summary.strength is not None
        assert summary.strength.level == 0, (seed, summary.name, summary.strength.describe())
        assert summary.strength.low == 0


def test_shenshi_random_play_is_named_level_0() -> None:
    """The goal for random play: named level 0 on at least 95% of whole test games (one
    short, 18 of 19, before each level was split by the lead and the random tables
    weighed more in the fit)."""
    model = load_models()["shenshi-2"]
    assert model.lead_split
    rows = labelled(_test_games("shenshi-2"), ("full",))
    found = [estimate_evidence(model, r.evidence) for r in rows if r.level == 0]
    judged = [f for f in found if f.level is not None]
    assert len(judged) >= 10
    assert sum(f.level == 0 for f in judged) >= 0.95 * len(judged)


def test_shenshi_levels_are_named_within_one_on_fresh_test_games() -> None:
    """ShenShi's test games of seed 7, made after its edges were counted once: the level
    within one of the truth on at least 80% of whole games, the range holding it on 90%,
    in whole games and over the last 20 moves alike."""
    model = load_models()["shenshi-2"]
    games = read_games(games_path("shenshi-2", 7))
    whole = check(model, labelled(games, ("full",)))
    late = check(model, labelled(games, ("late",)))
    assert whole.tested >= 200
    assert whole.within_one >= 0.8
    assert whole.coverage >= 0.9 and late.coverage >= 0.9


def test_shenshi_random_tables_of_fresh_games_are_judged_random() -> None:
    """ShenShi tables of seed 9 where both play at random, made after the model was
    settled (each level split by the lead, the random tables weighed more in the fit):
    the goal, every seat named level 0 in at least 95% of whole games."""
    model = load_models()["shenshi-2"]
    tables = read_games(games_path("shenshi-2-random", 9))
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    judged = [f for f in found if f.level is not None]
    assert len(judged) >= 60
    assert sum(f.level == 0 for f in judged) >= 0.95 * len(judged)
    assert sum(f.low == 0 for f in judged) >= 0.95 * len(judged)


@pytest.mark.parametrize("key", ["shangrila-4", "shendao-2"])
def test_fresh_random_tables_of_seed_10_are_judged_random(key: str) -> None:
    """Tables of seed 10 where every seat plays at random, never fitted on nor used to
    choose how the models are built: the goal, every seat named level 0 in at least 95%
    of whole games (four-player Shangri-La's random tables weigh 4 times in its fit).
    Three-player Shangri-La misses it (55 of 60)."""
    model = load_models()[key]
    tables = read_games(games_path(f"{key}-random", 10))
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    judged = [f for f in found if f.level is not None]
    assert len(judged) >= 60
    assert sum(f.level == 0 for f in judged) >= 0.95 * len(judged)
    assert sum(f.low == 0 for f in judged) >= 0.95 * len(judged)


def test_three_player_random_tables_are_judged_random_with_the_edges() -> None:
    """Three-player Shangri-La tables where every seat plays at random, of seeds 8, 9
    and 10 (never fitted on): the random player the others let take the lead gives
    away as little of its win chance as a leading level 1 or 2 player, and only its
    moves' edges (no better than random draws) tell it apart. Named level 0 at least
    19 times in 20 (163 of 180 seats before the model read the edges)."""
    model = load_models()["shangrila-3"]
    assert model.edges
    tables = [g for seed in (8, 9, 10) for g in read_games(games_path("shangrila-3-random", seed))]
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    assert len(found) == 180
    assert sum(f.level == 0 for f in found) >= 0.95 * len(found)
    assert sum(f.low == 0 for f in found) >= 0.95 * len(found)


def test_three_player_random_tables_are_named_random_by_the_rule_chosen_on_them() -> None:
    """Three-player Shangri-La's level-0 rule is chosen on games with the moves' edges
    never fitted on (``TUNING_SEEDS``; its fitting games have none): on those games the
    seats of tables where everyone plays at random are named level 0 at least 96% of
    the time (95% by the rule the cross-validation chose), random players at tables of
    engines every time but once at most, and players of games joined at the middle
    within one of their level 80% of the time (75% before). Not a fair test (the rule
    was chosen on these games): a check that the model file holds the rule chosen."""
    model = load_models()["shangrila-3"]
    seeds = TUNING_SEEDS["shangrila-3"]
    tables = [g for s in seeds for g in read_games(games_path("shangrila-3-random", s))]
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    assert len(found) >= 150
    assert sum(f.level == 0 for f in found) >= 0.96 * len(found)
    games = [g for s in seeds for g in read_games(games_path("shangrila-3", s))]
    random = [estimate_evidence(model, r.evidence) for r in labelled(games, ("full",), [0])]
    assert len(random) >= 50
    assert sum(f.level != 0 for f in random) <= 1
    middle = check(model, labelled(games, ("half",)))
    assert middle.within_one >= 0.8
    assert middle.coverage >= 0.9


def test_four_player_players_joined_at_the_middle_are_named_by_the_rule_chosen_on_them() -> None:
    """Four-player Shangri-La chooses on games never fitted on (``TUNING_SEEDS``) from
    how many judged moves level 0 is named, keeping its cross-validated threshold
    (``TUNED_THRESHOLD_SETS``): players seen from the middle of a game (13 to 21 judged
    moves) are placed within one of their level at least 80% of the time there (72%
    when level 0 was named from 15 judged moves), whole games as before. Not a fair
    test (the rule was chosen on these games): a check that the model file holds it."""
    model = load_models()["shangrila-4"]
    assert "shangrila-4" not in TUNED_THRESHOLD_SETS
    seeds = TUNING_SEEDS["shangrila-4"]
    games = [g for s in seeds for g in read_games(games_path("shangrila-4", s))]
    middle = check(model, labelled(games, ("half",)))
    whole = check(model, labelled(games, ("full",)))
    assert middle.tested >= 250 and whole.tested >= 250
    assert middle.within_one >= 0.8
    assert whole.within_one >= 0.8
    assert middle.coverage >= 0.9 and whole.coverage >= 0.9
    tables = [g for s in seeds for g in read_games(games_path("shangrila-4-random", s))]
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    assert len(found) >= 200
    assert sum(f.level == 0 for f in found) >= 0.95 * len(found)


def test_three_player_random_tables_are_named_random_on_fresh_games() -> None:
    """Three-player Shangri-La's tables of seed 12 where everyone plays at random, made
    while its level-0 rule was chosen and never part of a choice: at least 95% of the
    seats named level 0 (84 of 90 by the rule chosen on the fitting games, 86 now)."""
    model = load_models()["shangrila-3"]
    assert 12 not in TUNING_SEEDS["shangrila-3"]
    tables = read_games(games_path("shangrila-3-random", 12))
    found = [estimate_evidence(model, r.evidence) for r in labelled(tables, ("full",))]
    assert len(found) >= 90
    assert sum(f.level == 0 for f in found) >= 0.95 * len(found)
    assert sum(f.low == 0 for f in found) >= 0.95 * len(found)


def test_the_range_of_few_moves_holds_the_wider_share_of_the_posterior() -> None:
    """Below ``FEW_MOVES`` judged moves the range holds ``THIN_COVERAGE`` of the
    posterior, from there on ``COVERAGE``: the last 20 moves of a three-player game
    (6 or 7 judged moves a player) against the whole game."""
    model = load_models()["shangrila-3"]
    for view, share in (("late", THIN_COVERAGE), ("full", COVERAGE)):
        rows = labelled(_test_games("shangrila-3"), (view,))
        assert rows and all((r.evidence.moves < FEW_MOVES) == (view == "late") for r in rows)
        for row in rows:
            found = estimate_evidence(model, row.evidence)
            held = sum(p for lv, p in found.posterior.items() if found.low <= lv <= found.high)
            assert held >= share - 1e-3, (view, found)


@pytest.mark.parametrize("key", ["shangrila-3", "shangrila-4"])
def test_ranges_of_the_last_20_moves_hold_the_level_on_games_never_fitted_on(key: str) -> None:
    """The last 20 moves of the Shangri-La games of the seeds ``THIN_COVERAGE`` was
    chosen on (seen, never fitted on): the range holds the level ``THIN_AIM`` of the
    time (91.8% and 92.7% when it held ``COVERAGE`` of the posterior), and on every
    seed's games at least ``COVERAGE`` of the time (three-player seed 12: 89% then)."""
    model = load_models()[key]
    found = {
        seed: check(model, labelled(read_games(games_path(key, seed)), ("late",)))
        for seed in THIN_COVERAGE_SEEDS
        if games_path(key, seed).exists()
    }
    assert len(found) >= 7
    tested = sum(c.tested for c in found.values())
    assert sum(c.coverage * c.tested for c in found.values()) >= THIN_AIM * tested
    assert all(c.coverage >= COVERAGE for c in found.values()), found
