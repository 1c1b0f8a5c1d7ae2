"""Monte Carlo tree search: finds known best moves at low budgets; seeded; reuses trees."""

from __future__ import annotations

import pytest

from engines.search import MCTS, SearchConfig, search_parallel
from engines.search.players import (
    GreedyPlayer,
    RandomPlayer,
    SearchPlayer,
    play_match,
)
from engines.shangrila import ShangrilaRules
from tests.engines.shangrila.helpers import position


def winning_journey_position() -> object:
    """Red to move: 0>1 isolates villages 0 and 1, the 11th stone ends the game, and red
    leads 3 masters to 2. Anything else lets blue play 3>4, which ends it with blue
    ahead on villages."""
    rules = ShangrilaRules()
    broken = tuple(b for b in rules.bridges if b not in {(0, 1), (3, 4)})
    return position(
        {0: {"H": "red+", "P": "red"}, 3: {"R": "blue+"}, 4: {"A": "blue"}}, broken=broken
    )


def test_the_journey_that_wins_at_once_is_found() -> None:
    state = winning_journey_position()
    result = MCTS(SearchConfig(iterations=400, seed=3)).search(state)  # type: ignore[arg-type]
    assert state.rules.format_move(result.best) == "0>1"  # type: ignore[attr-defined]
    assert result.stat(result.best).value == pytest.approx(1.0)  # type: ignore[union-attr]


def test_the_same_seed_gives_the_same_search() -> None:
    state = winning_journey_position()
    first = MCTS(SearchConfig(iterations=200, seed=9)).search(state)  # type: ignore[arg-type]
    again = MCTS(SearchConfig(iterations=200, seed=9)).search(state)  # type: ignore[arg-type]
    assert [(s.move, s.visits) for s in first.stats] == [(s.move, s.visits) for s in again.stats]


def test_the_tree_is_reused_after_the_moves_are_played() -> None:
    rules = ShangrilaRules()
    state = rules.initial_state()
    mcts = MCTS(SearchConfig(iterations=300, seed=1, rollout_moves=10))
    result = mcts.search(state)
    kept = next(s.visits for s in result.stats if s.move == result.best)
    mcts.advance(state, [result.best])
    state.play(result.best)
    assert mcts.root is not None and mcts.root.visits == kept
    again = mcts.search(state)
    assert mcts.root.visits == kept + again.iterations


def test_root_parallel_search_adds_the_trees_up() -> None:
    state = winning_journey_position()
    result = search_parallel(
        state,
        SearchConfig(iterations=150, seed=2),  # type: ignore[arg-type]
        workers=2,
    )
    assert result.iterations == 300
    assert sum(s.visits for s in result.stats) == 300
    assert state.rules.format_move(result.best) == "0>1"  # type: ignore[attr-defined]


def test_a_search_needs_a_budget_and_a_live_game() -> None:
    with pytest.raises(ValueError):
        SearchConfig(iterations=None, seconds=None)
    state = position({})  # nobody has a tile: a round of passes ends the game
    for _ in range(4):
        state.play_text("pass")
    assert state.is_over()
    with pytest.raises(ValueError):
        MCTS().search(state)


def test_players_finish_a_game() -> None:
    rules = ShangrilaRules(["red", "blue", "yellow"])
    result = play_match(rules, [SearchPlayer(1, seed=1), GreedyPlayer(2), RandomPlayer(3)])
    assert result.moves > 21 and result.winners
