"""Property tests over random legal Shangri-La games (hypothesis picks seeds and options)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines import Dice, GameState
from engines.shangrila import ShangrilaRules, ShangrilaState
from tests.conformance import play_random_game
from tests.engines.shangrila.helpers import position

options = st.fixed_dictionaries(
    {
        "stones": st.sampled_from([11, 12]),
        "tie_break": st.sampled_from(["destination", "origin"]),
        "recruit": st.sampled_from(["one-or-two", "one-when-forced"]),
    }
)


def recount(state: ShangrilaState) -> None:
    """Recompute every piece of bookkeeping from the board and compare."""
    rules = state.rules
    n = rules.n_players
    on_board = Counter()
    for s, p in enumerate(state.owner):
        if p >= 0:
            on_board[p, s % 7] += 1 + state.student[s]
        else:
            assert state.student[s] == 0
    for p in range(n):
        for d in range(7):
            # each player's 42 tiles: supply + masters + students
            assert state.supply_of(p, d) + on_board[p, d] == 6
            assert state.supply_of(p, d) >= 0
        assert state.score[p] == sum(1 for q in state.owner if q == p)
    for v in range(13):
        cells = range(v * 7, v * 7 + 7)
        assert state.vt[v] == sum(1 + state.student[s] for s in cells if state.owner[s] >= 0)
        assert state.vm[v] == sum(1 for s in cells if state.owner[s] >= 0)
    # stones: exactly the villages with no standing bridge, capped at the stone count
    bare = [v for v in range(13) if not any(state.bridges[e] for e, _ in rules.links[v])]
    stones = [v for v in range(13) if state.stones[v]]
    assert set(stones) <= set(bare)
    assert len(stones) == min(len(bare), rules.stones)
    assert state.nstones == len(stones)


class Watch:
    """Invariants across moves: broken bridges never return; the game ends exactly when
    the stone count is reached or a full round of players has passed."""

    def __init__(self) -> None:
        self.broken: set[int] = set()

    def __call__(self, state: GameState[Any]) -> None:
        assert isinstance(state, ShangrilaState)
        recount(state)
        broken = {e for e, up in enumerate(state.bridges) if not up}
        assert self.broken <= broken
        assert len(broken - self.broken) <= 1
        self.broken = broken
        ended = state.nstones >= state.rules.stones or (
            state.phase == 1 and state.passes >= state.rules.n_players
        )
        assert state.is_over() is ended


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([3, 4]), opts=options)
def test_random_games_keep_every_invariant(seed: int, players: int, opts: dict[str, Any]) -> None:
    rules = ShangrilaRules.from_record(ShangrilaRules.default_players(players), opts)
    state, record = play_random_game(rules, seed, invariant=Watch(), deep_every=3)
    assert state.is_over()
    assert len(record.moves) >= 7 * players


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_suggested_setup_games_end(seed: int) -> None:
    rules = ShangrilaRules(["blue", "red", "yellow"], setup="suggested")
    play_random_game(rules, seed, invariant=Watch(), deep_every=5)


def test_random_move_is_uniform_over_the_legal_moves() -> None:
    # A position with places, single and paired recruits (one discipline with a single
    # tile left in supply, so some pairs are illegal) and journeys.
    spaces = {v: {"H": "red"} for v in (0, 1, 3, 5)}
    spaces[4] = {"H": "red", "R": "red", "P": "red+"}
    spaces[7] = {"A": "blue+"}
    state = position(spaces)
    legal = state.legal_moves()
    dice = Dice(7)
    draws = 200 * len(legal)
    counts = Counter(state.random_move(dice) for _ in range(draws))
    assert set(counts) == set(legal)
    expected = draws / len(legal)
    chi2 = sum((counts[m] - expected) ** 2 / expected for m in legal)
    # df = len(legal) - 1 (about 45): 99.9th percentile is below 85
    assert chi2 < 85, chi2
