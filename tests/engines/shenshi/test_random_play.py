"""The quick playout draw used by search: always a legal turn, seeded."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from engines import Dice
from engines.shenshi import ShenshiRules, ShenshiState, draw, movegen
from engines.shenshi.bench_draw import WIDEST  # the widest position met in random games
from tests.engines.shenshi.positions import position


@pytest.mark.parametrize("players", [2, 3, 4])
def test_playout_turns_are_legal_and_games_end(players: int) -> None:
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), {})
    state = rules.initial_state()
    dice = Dice(players)
    moves = 0
    while not state.is_over():
        move = state.playout_move(dice)
        state.check(move)  # raises IllegalMoveError for an illegal turn
        if moves % 15 == 0 and movegen.count_turns(state, limit=20_000) <= 20_000:
            assert move in state.legal_moves()  # listed only where the list is short
        state.apply(move)
        moves += 1
        assert moves < 2000
    assert state.winners()


def test_playouts_replay_from_their_seed() -> None:
    rules = ShenshiRules.from_record(ShenshiRules.default_players(2), {})

    def game(seed: int) -> list[str]:
        state, dice, out = rules.initial_state(), Dice(seed), []
        for _ in range(20):
            if state.is_over():
                break
            move = state.playout_move(dice)
            out.append(rules.format_move(move))
            state.apply(move)
        return out

    assert game(5) == game(5)
    assert game(5) != game(6)


def _lifting_position() -> ShenshiState:
    """Four players (no neutral monks), silver to move: its Grand Master on an orange
    cushion that may lift blond cushions, its master hemmed in; 2,387 legal turns."""
    rules = ShenshiRules(["silver", "copper", "gold", "black"])
    return position(
        rules,
        orange="d4 a7 a1 c1 g1",
        blond="b4 g7 f7 g6 d5 d3 e4 c7 e7 e1 a3 a5 g3 c5",
        faded="b6 d6 f6 f2",
        intact="b2 d2 f4",
        monks={
            "silver": ("d4", "g7"),
            "copper": ("f7", "g6"),
            "gold": ("d5", "d3"),
            "black": ("e4", "c5"),
        },
        reserves={p: (0, 0) for p in rules.players},
    )


def test_the_counted_draw_is_the_draw_from_the_list_of_legal_turns() -> None:
    state = _lifting_position()
    legal = state.legal_moves()
    assert len(legal) == 2387
    for seed in range(40):
        index = int(Dice(seed).random() * len(legal))
        assert movegen.counted_move(state, Dice(seed)) == legal[index]


def test_the_uniform_draw_gives_legal_turns_and_replays_from_its_seed() -> None:
    state = _lifting_position()
    legal = set(state.legal_moves())
    drawn = [draw.random_move(state, Dice(seed)) for seed in range(40)]
    assert set(drawn) <= legal
    assert len(set(drawn)) > 30
    assert drawn == [draw.random_move(state, Dice(seed)) for seed in range(40)]


@pytest.mark.slow  # 1,500 draws; the test above shows each is the list's draw
def test_the_uniform_draw_is_uniform() -> None:
    state = _lifting_position()
    legal = state.legal_moves()
    place = {move: i for i, move in enumerate(legal)}
    bins, draws = 15, 1500
    dice = Dice(11)
    counts = Counter(
        place[draw.random_move(state, dice)] * bins // len(legal) for _ in range(draws)
    )
    expected = draws / bins
    chi2 = sum((counts[b] - expected) ** 2 / expected for b in range(bins))
    assert chi2 < 36.1, chi2  # df = 14: the 99.9th percentile is 36.1


@pytest.mark.slow
def test_the_uniform_draw_costs_less_than_one_count_of_the_turns() -> None:
    # The draw does not count the turns of the hovers in the middle of a turn: on the
    # widest position it takes less time than counting them all (itself some 70 times
    # quicker than listing them).
    rules = ShenshiRules(["silver", "copper", "gold"])
    state = rules.state_from_json(WIDEST)
    start = time.process_time()
    count = movegen.count_turns(state)
    counted = time.process_time() - start
    assert count == 73_322_267
    start = time.process_time()
    drawn = [draw.random_move(state, Dice(seed)) for seed in range(5)]
    took = (time.process_time() - start) / 5
    assert took < counted, (took, counted)
    for move in drawn:
        state.check(move)


@pytest.mark.slow  # goes through 73 million turns one by one (about 1.5 minutes)
def test_the_uniform_draw_is_a_hundred_times_quicker_than_going_through_the_turns() -> None:
    from engines.shenshi.bench_draw import enumerate_turns

    rules = ShenshiRules(["silver", "copper", "gold"])
    state = rules.state_from_json(WIDEST)
    start = time.process_time()
    assert enumerate_turns(state) == 73_322_267
    walked = time.process_time() - start
    start = time.process_time()
    for seed in range(5):
        draw.random_move(state, Dice(seed))
    took = (time.process_time() - start) / 5
    assert took * 100 < walked, (took, walked)
