"""The strength estimate: the model, the fitted file, and a small check on the stored
test games (never used in the fit)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engines.search.accuracy import move_accuracy
from engines.search.analysis import analysis_budget
from engines.search.bench_strength import TEST_SEED, games_path
from engines.search.calibration import (
    evidence_of,
    joined_at,
    read_games,
    seat_levels,
)
from engines.search.strength import (
    KEPT_BINS,
    L2,
    MAX_TEMPERATURE,
    MIN_MOVES,
    MODEL_PATH,
    QUANTITIES,
    TUNED_RANDOM_MOVES,
    CalibrationError,
    Evidence,
    Labelled,
    StrengthModel,
    against_random,
    credible_range,
    edge_evidence,
    edge_offsets,
    estimate,
    fit_logistic,
    fit_model,
    led,
    load_models,
    loss_of,
    model_for,
    random_reference,
    random_share,
    tune_random,
)


def synthetic_rows() -> list[Labelled]:
    """Level 0 rarely finds the best move and often loses a lot, level 2 mostly finds
    it; games of a level differ a little."""
    shapes = {
        0: ((40.0, False), (70.0, False), (95.0, False), (20.0, False), (100.0, True)),
        1: ((70.0, False), (90.0, True), (95.0, False), (60.0, False), (100.0, True)),
        2: ((100.0, True), (95.0, True), (90.0, False), (100.0, True), (85.0, True)),
    }
    rows = []
    for level, shape in shapes.items():
        for k in range(10):
            moves = shape * (3 + k % 3)
            accuracies = tuple(min(100.0, a + k % 4) for a, _ in moves)
            kept = tuple(0.2 + 0.05 * (i % 5) for i in range(len(moves)))
            rows.append(
                Labelled(
                    level,
                    Evidence(accuracies, tuple(b for _, b in moves), kept),
                    group=10 * level + k,
                )
            )
    return rows


def test_the_range_is_the_narrowest_run_holding_the_coverage() -> None:
    assert credible_range({0: 0.02, 1: 0.5, 2: 0.45, 3: 0.03}) == (1, 2)
    assert credible_range({0: 0.95, 1: 0.05}) == (0, 0)
    assert credible_range({0: 0.25, 1: 0.25, 2: 0.25, 3: 0.25}) == (0, 3)


def test_a_moves_loss_is_read_back_from_its_accuracy() -> None:
    for before, after in ((60.0, 60.0), (60.0, 55.0), (40.0, 10.0), (30.0, 29.5)):
        assert loss_of(move_accuracy(before, after)) == pytest.approx(
            (before - after) / 100, abs=1e-4
        )
    assert loss_of(0.0) == pytest.approx(0.8, abs=0.01)


def test_the_same_loss_weighs_more_for_a_player_with_less_to_lose() -> None:
    accuracy = move_accuracy(30.0, 25.0)
    leader = Evidence((accuracy,), (False,), (0.6,)).quantities(0.25)
    trailer = Evidence((accuracy,), (False,), (0.06,)).quantities(0.25)
    assert leader[0, 0] == pytest.approx(0.05 / 0.6, abs=1e-3)
    assert trailer[0, 0] == pytest.approx(0.05 / 0.06, abs=1e-3)
    assert trailer[0, 1] == 1.0 and leader[0, 1] == 0.0
    unknown = Evidence((accuracy,), (False,)).quantities(0.25)
    assert unknown[0, 0] == pytest.approx(0.05 / 0.25, abs=1e-3)


def test_thin_evidence_gives_no_level_or_a_wide_range() -> None:
    model, check = fit_model("test", synthetic_rows(), 300)
    assert check.tested > 0 and model.levels == [0, 1, 2]
    careless = synthetic_rows()[0].evidence
    full = estimate(model, careless.accuracies * 3, careless.best * 3, kept=careless.kept * 3)
    assert full.level == 0
    none = estimate(model, careless.accuracies[: MIN_MOVES - 1], careless.best[: MIN_MOVES - 1])
    assert none.level is None and none.describe() == "not enough moves (3 judged)"
    assert (none.low, none.high) == (0, 2)
    assert "iterations" in estimate(model, careless.accuracies, careless.best, 1000).note
    short = estimate(model, careless.accuracies[:MIN_MOVES], careless.best[:MIN_MOVES])
    assert "only 4 judged moves" in short.note
    # the shipped model: a player's first moves give wider ranges than all of them
    shipped = load_models()["shangrila-3"]
    wide = narrow = players = 0
    for stored in read_games(games_path("shangrila-3", TEST_SEED))[:12]:
        for seat in range(stored.players):
            moves = evidence_of(stored, seat)
            first = estimate(
                shipped,
                moves.accuracies[:MIN_MOVES],
                moves.best[:MIN_MOVES],
                kept=moves.kept[:MIN_MOVES],
            )
            whole = estimate(shipped, moves.accuracies, moves.best, kept=moves.kept)
            wide += first.high - first.low
            narrow += whole.high - whole.low
            players += 1
    assert wide > narrow and wide >= 2.5 * players  # of a scale 4 levels wide


def test_careless_moves_are_judged_lower_than_careful_ones() -> None:
    model, _ = fit_model("test", synthetic_rows(), 300)
    careless = estimate(model, [40.0, 20.0, 70.0, 95.0] * 5, [False] * 20, kept=[0.3] * 20)
    careful = estimate(
        model, [100.0, 95.0, 100.0, 90.0] * 5, [True, True, False, True] * 5, kept=[0.3] * 20
    )
    assert careless.level is not None and careful.level is not None
    assert careless.level < careful.level
    assert careless.expected is not None and careful.expected is not None
    assert careless.expected < careful.expected


def test_the_same_moves_give_the_same_estimate() -> None:
    first, _ = fit_model("test", synthetic_rows(), 300)
    again, _ = fit_model("test", synthetic_rows(), 300)
    assert first == again
    moves = synthetic_rows()[12].evidence
    assert estimate(first, moves.accuracies, moves.best, kept=moves.kept) == estimate(
        again, moves.accuracies, moves.best, kept=moves.kept
    )


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
        assert model.analysis_iterations == analysis_budget(key.rsplit("-", 1)[0])[0]
        assert 0 < model.temperature <= MAX_TEMPERATURE and 0 < model.random_threshold <= 1
        assert model.even_share == pytest.approx(1 / int(key.rsplit("-", 1)[1]))
        assert model.options, key
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
    fitted, _ = fit_model("test", synthetic_rows(), 300)
    blind = StrengthModel(
        "test",
        (0, 1, 2),
        fitted.population,
        fitted.centre,
        fitted.scale,
        tuple((0.0, 0.0, 0.0) for _ in fitted.weights),
        1.0,
        0.9,
        300,
        0.25,
    )
    few = estimate(blind, [60.0] * 4, [False] * 4)
    assert few.whole_scale and few.describe() == "not enough moves to tell (range 0-2)"
    careful = synthetic_rows()[25].evidence
    many = estimate(fitted, careful.accuracies * 4, careful.best * 4, kept=careful.kept * 4)
    assert not many.whole_scale and many.describe().startswith("plays like level 2")


def test_other_rules_options_are_said_to_be_a_rough_guide() -> None:
    fitted, _ = fit_model("test", synthetic_rows(), 300, options={"orange_lifts": 2})
    moves = synthetic_rows()[3].evidence
    same = estimate(
        fitted, moves.accuracies, moves.best, kept=moves.kept, options={"orange_lifts": 2}
    )
    other = estimate(
        fitted, moves.accuracies, moves.best, kept=moves.kept, options={"orange_lifts": 1}
    )
    assert "orange_lifts" not in same.note
    assert "orange_lifts as 2: a rough guide" in other.note
    assert other.level == same.level


def test_a_temperature_above_one_sharpens_the_chances_and_stays_in_bounds() -> None:
    fitted, _ = fit_model("test", synthetic_rows(), 300)
    moves = synthetic_rows()[15].evidence
    posteriors = [
        replace(fitted, temperature=t, few_moves=0.0).posterior(moves) for t in (1.0, 2.0)
    ]
    assert max(posteriors[1].values()) > max(posteriors[0].values())
    sharp = replace(fitted, temperature=MAX_TEMPERATURE)
    assert StrengthModel.from_json("test", sharp.to_json()).temperature == MAX_TEMPERATURE
    with pytest.raises(ValueError, match="temperature"):
        StrengthModel.from_json("test", {**sharp.to_json(), "temperature": MAX_TEMPERATURE + 0.5})


def test_level_0_is_named_from_the_models_own_number_of_judged_moves() -> None:
    """A game of few turns a player (ShenShi) names random play from fewer judged moves
    than the others: below ``random_moves`` the median is given, from it level 0."""
    fitted, _ = fit_model("test", synthetic_rows(), 300)
    leaning = {0: 0.3, 1: 0.1, 2: 0.6}
    short = replace(fitted, random_threshold=0.2, random_moves=8)
    assert [short.point(leaning, n) for n in (7, 8)] == [2, 0]
    assert short.span(leaning, 8) == (0, 2)
    assert replace(short, random_moves=15).point(leaning, 8) == 2
    assert StrengthModel.from_json("test", short.to_json()).random_moves == 8
    old = {k: v for k, v in short.to_json().items() if k != "random_moves"}
    assert StrengthModel.from_json("test", old).random_moves == 15
    with pytest.raises(ValueError, match="judged moves"):
        StrengthModel.from_json("test", {**short.to_json(), "random_moves": MIN_MOVES - 1})


def _with_edges(rows: list[Labelled]) -> list[Labelled]:
    """``rows`` with edges: random play's about a half, the others' higher, so that
    level 0 and level 1, losing win chance alike, differ in their edges only."""
    found = []
    for row in rows:
        moves = row.evidence.moves
        accuracies = row.evidence.accuracies
        best = row.evidence.best
        if row.level == 0:  # loses as level 1 does: only the edges tell them apart
            twin = synthetic_rows()[10 + row.group % 10].evidence
            accuracies, best = twin.accuracies, twin.best
            moves = twin.moves
        edge = 0.5 if row.level == 0 else 0.62
        edges = tuple(edge + 0.02 * ((i % 3) - 1) for i in range(moves))
        kept = tuple(0.2 + 0.05 * (i % 5) for i in range(moves))
        found.append(replace(row, evidence=Evidence(accuracies, best, kept, edges=edges)))
    return found


def test_a_model_reading_edges_tells_random_play_from_play_that_loses_as_much() -> None:
    rows = _with_edges(synthetic_rows())
    fitted, _ = fit_model("test", rows, 300, edges=True)
    blind, _ = fit_model("test", rows, 300)
    assert fitted.edges and not blind.edges
    random_play, level_1 = rows[3].evidence, rows[13].evidence
    assert random_play.accuracies == level_1.accuracies
    assert fitted.posterior(random_play)[0] > 0.8 > fitted.posterior(level_1)[0]
    assert blind.posterior(random_play)[0] == pytest.approx(blind.posterior(level_1)[0])
    # without edges the fitting players' mean edge is assumed: between the two
    unknown = fitted.posterior(replace(random_play, edges=()))[0]
    assert fitted.posterior(level_1)[0] < unknown < fitted.posterior(random_play)[0]
    again = StrengthModel.from_json("test", fitted.to_json())
    assert again.edges and again.posterior(random_play) == pytest.approx(
        fitted.posterior(random_play), abs=1e-4
    )
    old = {k: v for k, v in blind.to_json().items() if k != "edges"}
    assert not StrengthModel.from_json("test", old).edges
    with pytest.raises(ValueError, match="sizes"):
        StrengthModel.from_json("test", {**blind.to_json(), "edges": True})


def test_the_edges_weigh_more_the_more_moves_there_are() -> None:
    """The sum of the edges is evidence that grows with the moves: a random player's
    edges about a half tell them from a level whose moves beat more draws more surely
    over twenty moves than over five."""
    shift, spread, between = (0.0, 0.04, 0.08), (0.15, 0.15, 0.15), (0.0, 0.0, 0.0)
    few = edge_evidence([0.5] * 5, shift, spread, between)
    many = edge_evidence([0.5] * 20, shift, spread, between)
    assert few[0] > few[1] > few[2]
    assert many[0] - many[1] == pytest.approx(4 * (few[0] - few[1]))
    assert int(np.argmax(edge_evidence([0.54] * 30, shift, spread, between))) == 1
    # players of a level differing among themselves: the evidence grows more slowly
    apart = (0.0, 0.05, 0.05)
    short = edge_evidence([0.5] * 20, shift, spread, apart)
    long = edge_evidence([0.5] * 80, shift, spread, apart)
    assert 0 < short[0] - short[1] < long[0] - long[1] < 4 * (short[0] - short[1])
    rows = _with_edges(synthetic_rows())
    fitted, _ = fit_model("test", rows, 300, edges=True, edge_likelihood=True)
    assert fitted.edge_shift[0] == pytest.approx(0.0, abs=0.01) and fitted.edge_shift[1] > 0.1
    random_play = rows[3].evidence
    longer = replace(
        random_play,
        accuracies=random_play.accuracies * 2,
        best=random_play.best * 2,
        kept=random_play.kept * 2,
        edges=random_play.edges * 2,
    )
    assert fitted.logits(longer)[0] - fitted.logits(longer)[1] > (
        fitted.logits(random_play)[0] - fitted.logits(random_play)[1]
    )
    again = StrengthModel.from_json("test", fitted.to_json())
    assert again.posterior(random_play) == pytest.approx(fitted.posterior(random_play), abs=1e-4)
    # without edges (a report kept from before), the edges add nothing
    assert fitted.posterior(replace(random_play, edges=())) != fitted.posterior(random_play)
    with pytest.raises(ValueError, match="edge shift"):
        StrengthModel.from_json("test", {**fitted.to_json(), "edge_shift": [0.0]})
    old = {k: v for k, v in fitted.to_json().items() if not k.startswith("edge_")}
    assert not StrengthModel.from_json("test", old).edge_shift


def _fit_objective(model: StrengthModel, rows: list[Labelled]) -> float:
    """What the fit makes least: the mean negative log-probability of the true level
    (untempered, edges' evidence included) and the ridge penalty of the weights."""
    losses = []
    for row in rows:
        logits = model.logits(row.evidence)
        shifted = logits - logits.max()
        log_p = shifted - np.log(np.exp(shifted).sum())
        losses.append(-float(log_p[model.levels.index(row.level)]))
    weights = np.array(model.weights)[:-1]
    return float(np.mean(losses)) + L2 / (2 * len(rows)) * float((weights**2).sum())


def test_the_edges_are_counted_once_when_their_sum_is_weighed() -> None:
    """The logistic model is fitted with the sum of the edges' evidence in place: it
    learns what the averages (the mean edge among them) add to it, rather than saying
    again what the sum says. Fitted apart and then added to that evidence, it counts
    the edges twice, and fits the games worse."""
    rows = _with_edges(synthetic_rows())
    joint, _ = fit_model("test", rows, 300, edges=True, edge_likelihood=True)
    alone = fit_logistic("test", rows, joint.levels, 0.25, 300, edges=True)
    apart = replace(joint, centre=alone.centre, scale=alone.scale, weights=alone.weights)
    assert joint.edge_shift == apart.edge_shift and joint.weights != apart.weights
    assert _fit_objective(joint, rows) < 0.5 * _fit_objective(apart, rows)
    random_play = rows[3].evidence
    assert joint.posterior(random_play)[0] > 0.8


def test_edge_offsets_are_each_levels_evidence_about_its_mean() -> None:
    shift, spread, between = (0.0, 0.1), (0.1, 0.2), (0.0, 0.0)
    known = Evidence((90.0,) * 5, (False,) * 5, edges=(0.5,) * 5)
    unknown = Evidence((90.0,) * 5, (False,) * 5)
    rows = edge_offsets([known, unknown], shift, spread, between)
    assert rows.shape == (2, 2)
    assert rows[0].sum() == pytest.approx(0.0) and rows[0][0] > rows[0][1]
    assert list(rows[1]) == [0.0, 0.0]


def _moves_at(kept: float, losses: list[float]) -> Evidence:
    """Judged moves at win chance ``kept`` losing ``losses``."""
    return Evidence(
        tuple(move_accuracy(100 * kept, 100 * (kept - loss)) for loss in losses),
        tuple(loss == 0 for loss in losses),
        (kept,) * len(losses),
    )


def test_moves_are_compared_with_random_play_at_the_same_win_chance() -> None:
    """Random play gives away more where there is more to lose; a move is compared with
    random play in a position of the same win chance, so a random player who leads
    compares as random play does, and so does one who trails."""
    trailing = _moves_at(0.15, [0.05, 0.1, 0.15] * 20)
    leading = _moves_at(0.75, [0.1, 0.2, 0.3] * 20)
    reference = random_reference([trailing, leading], 0.5)
    assert len(reference) == KEPT_BINS and all(len(r) == len(QUANTITIES) - 1 for r in reference)
    for random_player in (trailing, leading):
        compared = against_random(random_player.quantities(0.5), reference)
        assert compared.shape == (random_player.moves, len(QUANTITIES) - 1)
        assert abs(compared.mean(axis=0)[-1]) < 0.03  # the loss, as random play's there
    careful = against_random(_moves_at(0.75, [0.0, 0.02] * 10).quantities(0.5), reference)
    assert careful.mean(axis=0)[-1] < -0.1
    # a bin without random moves takes random play's average over all win chances
    assert reference[5] == pytest.approx(
        tuple(np.concatenate([trailing.quantities(0.5), leading.quantities(0.5)])[:, :-1].mean(0))
    )
    with pytest.raises(ValueError, match="random play"):
        random_reference([Evidence((), ())], 0.5)


def test_a_model_comparing_moves_with_random_play_round_trips_without_the_win_chance() -> None:
    rows = synthetic_rows()
    compared, _ = fit_model("test", rows, 300, compare_random=True)
    plain, _ = fit_model("test", rows, 300)
    assert compared.random_reference and not plain.random_reference
    assert len(compared.population) == len(plain.population) - 1  # no win chance kept
    random_play = rows[3].evidence
    assert compared.posterior(random_play)[0] > 0.8
    again = StrengthModel.from_json("test", compared.to_json())
    assert np.allclose(again.random_reference, compared.random_reference, atol=1e-6)
    assert again.posterior(random_play) == pytest.approx(compared.posterior(random_play), abs=1e-4)
    assert "random_reference" not in plain.to_json()
    with pytest.raises(ValueError, match="bins"):
        StrengthModel.from_json("test", {**compared.to_json(), "random_reference": [[0.0] * 5] * 3})
    with pytest.raises(ValueError, match="sizes"):
        StrengthModel.from_json(
            "test", {**plain.to_json(), "random_reference": compared.to_json()["random_reference"]}
        )


def test_a_level_split_by_the_lead_adds_its_halves_and_round_trips() -> None:
    """Each level fitted as the players who led and those who did not: two columns a
    level, whose chances together are the level's, and the file keeps the split."""
    rows = synthetic_rows()
    split, _ = fit_model("test", rows, 300, lead_split=True)
    plain, _ = fit_model("test", rows, 300)
    assert split.lead_split and not plain.lead_split
    assert all(len(row) == 2 * len(split.levels) for row in split.weights)
    random_play = rows[3].evidence
    assert sum(split.posterior(random_play).values()) == pytest.approx(1.0)
    assert split.posterior(random_play)[0] > 0.8
    again = StrengthModel.from_json("test", split.to_json())
    assert again.lead_split
    assert again.posterior(random_play) == pytest.approx(split.posterior(random_play), abs=1e-4)
    assert "lead_split" not in plain.to_json()
    with pytest.raises(ValueError, match="sizes"):
        StrengthModel.from_json("test", {**plain.to_json(), "lead_split": True})


def test_a_player_led_when_the_win_chance_kept_averages_above_an_even_share() -> None:
    assert led(Evidence((90.0, 80.0), (True, False), (0.6, 0.5)), 0.5) == 1
    assert led(Evidence((90.0, 80.0), (True, False), (0.3, 0.5)), 0.5) == 0
    assert led(Evidence((90.0,), (True,)), 0.5) == 0  # not known: not said to lead


def test_random_tables_weigh_more_when_weighted() -> None:
    """A random table's player who plays like level 1 (careful moves in the lead): the
    more such players weigh in the fit, the more level 0 the model sees in such play."""
    rows = synthetic_rows()
    table = [
        replace(r, level=0, group=100 + i, borrowed=True, random_table=True)
        for i, r in enumerate(row for row in rows if row.level == 1)
    ][:3]
    light = fit_logistic("test", rows + table, [0, 1, 2], 0.25, 300)
    heavy = fit_logistic("test", rows + table, [0, 1, 2], 0.25, 300, table_weight=8.0)
    assert heavy.table_weight == 8.0 and light.table_weight == 1.0
    careful = table[0].evidence
    assert heavy.posterior(careful)[0] > light.posterior(careful)[0]
    again = StrengthModel.from_json("test", heavy.to_json())
    assert again.table_weight == 8.0
    with pytest.raises(ValueError, match="sizes"):
        StrengthModel.from_json("test", {**heavy.to_json(), "table_weight": 0.0})


def _tuning_rows() -> list[Labelled]:
    """Games never fitted on: engine players as in ``synthetic_rows``, and random players
    who lead tables of random players, half their moves as careful as level 1's."""
    rows = synthetic_rows()
    careful = [r.evidence for r in rows if r.level == 1]
    leaders = [
        replace(
            r,
            random_table=True,
            evidence=Evidence(
                r.evidence.accuracies + c.accuracies[:15],
                r.evidence.best + c.best[:15],
                r.evidence.kept + c.kept[:15],
            ),
        )
        for r, c in zip((r for r in rows if r.level == 0), careful, strict=True)
    ]
    return [replace(r, group=r.group + 1000, tuning=True) for r in rows + leaders]


def test_tuning_games_choose_the_level_0_rule_and_are_never_fitted_on() -> None:
    """Games never fitted on (``Labelled.tuning``) choose the level-0 threshold and
    ``random_moves`` only: the fitted log-odds are those fitted without them; random
    players who lead such tables, named by the median a level above, are named level 0
    by the rule they chose."""
    rows = synthetic_rows()
    plain, plain_check = fit_model("test", rows, 300)
    tuned, tuned_check = fit_model("test", rows + _tuning_rows(), 300)
    assert tuned.weights == plain.weights and tuned.temperature == plain.temperature
    assert tuned.few_moves == plain.few_moves
    assert tuned_check.tested == plain_check.tested
    again = tune_random(plain, _tuning_rows())
    assert (again.random_threshold, again.random_moves) == (
        tuned.random_threshold,
        tuned.random_moves,
    )
    median = replace(plain, random_threshold=1.0)
    whole = [(r.level, r.evidence.moves, plain.logits(r.evidence)) for r in _tuning_rows()]
    assert random_share(median, whole) < 1.0
    assert random_share(tune_random(median, _tuning_rows()), whole) == 1.0
    with pytest.raises(ValueError, match="random play"):
        tune_random(plain, [r for r in _tuning_rows() if r.level > 0])


def test_tuning_games_may_choose_only_from_how_many_moves_level_0_is_named() -> None:
    """Without ``tune_threshold`` the tuning games keep the cross-validated level-0
    threshold and choose only ``random_moves`` among ``TUNED_RANDOM_MOVES``; with it
    they may move the threshold too."""
    rows = synthetic_rows()
    plain, _ = fit_model("test", rows, 300)
    kept, _ = fit_model("test", rows + _tuning_rows(), 300, tune_threshold=False)
    assert kept.random_threshold == plain.random_threshold
    assert kept.random_moves in TUNED_RANDOM_MOVES
    assert kept.weights == plain.weights
    alone = tune_random(plain, _tuning_rows(), (plain.random_threshold,))
    assert (alone.random_threshold, alone.random_moves) == (
        kept.random_threshold,
        kept.random_moves,
    )
    median = replace(plain, random_threshold=1.0)
    assert tune_random(median, _tuning_rows(), (1.0,)).random_threshold == 1.0
    assert tune_random(median, _tuning_rows()).random_threshold < 1.0
