"""What the strength model learns from beyond a player's own moves: how the others at
the table played, and the games of another player count; and the analysis budget of
each game."""

from __future__ import annotations

from engines.search.analysis import (
    ANALYSIS_ITERATIONS,
    ANALYSIS_ROLLOUT,
    analysis_budget,
    game_config,
)
from engines.search.calibration import (
    EDGE_SETS,
    FIT_ALSO,
    RANDOM_TABLES,
    SETS,
    StoredGame,
    StoredMove,
    evidence_of,
    fitting_rows,
)
from engines.search.strength import Evidence, Labelled, held_out_logits, table_loss


def _stored(levels: tuple[int, ...], index: int = 0) -> StoredGame:
    """A small game: seat 0 always finds the best move, the others give away half."""
    n = len(levels)
    moves = []
    for k in range(4 * n):
        player = k % n
        played = 0.4 if player == 0 else 0.2
        moves.append(StoredMove(player, 0.4, played, player == 0, False))
    chances = tuple((0.25,) * n for _ in range(len(moves) + 1))
    return StoredGame("shangrila", n, 1, index, levels, tuple(moves), chances, 1.0, ("a", "b"))


def test_the_table_is_the_others_mean_relative_loss() -> None:
    careful = Evidence((100.0, 100.0), (True, True), (0.4, 0.4))
    careless = Evidence((0.0,), (False,), (0.4,))
    assert table_loss([careful], 0.25) == 0.0
    assert table_loss([careless], 0.25) == 1.0
    assert table_loss([careful, careless], 0.25) == 1.0 / 3
    assert table_loss([Evidence((), ())], 0.25) is None


def test_a_seats_evidence_knows_how_the_others_played() -> None:
    stored = _stored((4, 0, 0))
    strong, weak = evidence_of(stored, 0), evidence_of(stored, 1)
    assert strong.table is not None and weak.table is not None
    assert strong.table > 0.4 > weak.table
    assert StoredGame.from_json(stored.to_json()) == stored


def test_borrowed_games_are_fitted_on_but_never_held_out() -> None:
    own = [_stored((k % 5, 0, 1, 2), k) for k in range(6)]
    other = [_stored((k % 5, 3, 4), k) for k in range(4)]
    rows = fitting_rows("shangrila-4", lambda s: own if s == "shangrila-4" else other)
    assert len({r.group for r in rows if r.borrowed}) == 2 * len(other)
    assert FIT_ALSO["shangrila-4"] == ("shangrila-3", "shangrila-4-random")
    assert {r.borrowed for r in rows if r.group >= len(own)} == {True}
    assert not any(r.borrowed for r in rows if r.group < len(own))
    held = held_out_logits(rows, [0, 1, 2, 3, 4], 0.25)
    assert len(held) == sum(not r.borrowed for r in rows)
    assert all(not r.borrowed for r, _ in held)


def test_three_player_games_learn_the_edges_from_four_player_games() -> None:
    """Three-player Shangri-La's own mixed fitting games were stored without their
    moves: what the edges say of each level comes from the four-player games."""
    assert "shangrila-3" in EDGE_SETS
    assert set(FIT_ALSO["shangrila-3"]) >= {"shangrila-4", "shangrila-4-random"}
    own = [_stored((k % 5, 0, 1), k) for k in range(3)]
    four = [_stored((k % 5, 0, 1, 2), k) for k in range(2)]
    games = {"shangrila-3": own, "shangrila-4": four}
    rows = fitting_rows("shangrila-3", lambda s: games.get(s, []))
    assert {r.evidence.moves for r in rows if r.borrowed and r.view == "full"} == {4}
    assert sum(r.borrowed for r in rows) == 4 * len(four) * 3


def test_random_tables_seat_only_random_play_and_get_no_model_of_their_own() -> None:
    for table, base in RANDOM_TABLES.items():
        assert SETS[table][:2] == SETS[base][:2]
        assert SETS[table][2] == (0,)


def test_shenshi_is_analysed_at_its_own_budget() -> None:
    assert analysis_budget("shangrila") == (ANALYSIS_ITERATIONS, ANALYSIS_ROLLOUT)
    assert analysis_budget("shenshi") == (100, 10)
    config = game_config("shenshi", seed=7)
    assert (config.iterations, config.rollout_moves, config.seed) == (100, 10, 7)


def test_labelled_rows_are_not_borrowed_by_default() -> None:
    assert not Labelled(0, Evidence((), ()), 0).borrowed


def test_an_analysis_without_a_budget_takes_its_games_own() -> None:
    from engines.record import new_record
    from engines.registry import rules_class
    from engines.search.analysis import analyse
    from engines.search.live import LiveAnalysis

    cls = rules_class("shenshi")
    record = new_record(cls.from_record(cls.default_players(2), {}))
    assert analyse(record, calibration=None).level_config["iterations"] == 100
    live = LiveAnalysis(calibration=None)
    live.update(record)
    assert (live.config.iterations, live.config.rollout_moves) == (100, 10)


def test_a_player_named_random_has_level_0_in_their_range() -> None:
    from engines.search.strength import StrengthModel, credible_range

    width = 8
    model = StrengthModel(
        "test",
        (0, 1, 2, 3),
        (0.0,) * 7,
        (0.0,) * width,
        (1.0,) * width,
        tuple((0.0,) * 4 for _ in range(width + 1)),
        1.0,
        0.1,
        300,
        0.25,
    )
    posterior = {0: 0.08, 1: 0.02, 2: 0.6, 3: 0.3}
    assert credible_range(posterior) == (2, 3) and model.point(posterior) == 2
    assert model.span(posterior) == (2, 3)
    maybe_random = {0: 0.1, 1: 0.0, 2: 0.55, 3: 0.35}
    assert credible_range(maybe_random) == (2, 3) and model.point(maybe_random) == 0
    assert model.span(maybe_random) == (0, 3)
    # a few moves cannot tell random play: the median, and the range as it is (held to
    # the wider share of the posterior of few moves, it reaches level 0 anyway)
    assert model.point(maybe_random, moves=5) == 2
    assert model.span(maybe_random, moves=5, thin=False) == (2, 3)
    assert model.span(maybe_random, moves=5) == (0, 3)
    assert model.point(maybe_random, moves=15) == 0
