"""Search in ShenShi, whose positions can hold a million turns: a capture that brings a
player to 8 path tokens (RULINGS 3.2 "Paths": the first to hold 8 wins at once) is found
at a low budget, although the search only ever sees the turns its playout draw offers."""

from __future__ import annotations

import pytest

from engines.search import MCTS, SearchConfig
from tests.engines.shenshi.test_paths import duel


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_capture_that_reaches_eight_paths_is_found(seed: int) -> None:
    # Silver holds 6 tokens; its Grand Master on d4 removing copper's master on d5 (by
    # stopping on d5 or walking through it) earns 2 more and ends the game at once.
    state = duel("d4", "g7", ("b2", "d5"), tokens={"silver": 6})
    result = MCTS(SearchConfig(iterations=200, seed=seed)).search(state)
    after = state.copy()
    after.apply(result.best)
    assert after.is_over() and after.winners() == [0], state.rules.format_move(result.best)
    assert after.tokens[0] == 8
    assert result.stat(result.best).value == pytest.approx(1.0)  # type: ignore[union-attr]
