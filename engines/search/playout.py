"""The end of one tree-search iteration, the same for every policy: a playout from the
position the tree walk reached, then its rewards added on the path back to the root."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from engines.base import GameState
from engines.dice import Dice
from engines.search.evaluate import Evaluator


class Visited(Protocol):
    """A tree node as the back-up sees it: visit count, reward totals, parent."""

    visits: int
    totals: list[float]

    @property
    def parent(self) -> Visited | None: ...


def play_out_and_back_up(
    state: GameState[Any],
    tokens: Sequence[object],
    node: Visited,
    draw: Callable[[Dice], Any],
    dice: Dice,
    limit: int | None,
    evaluate: Evaluator,
) -> None:
    """Play ``draw``'s moves from ``state`` until the game ends or ``limit`` moves are
    made, score the position with ``evaluate``, undo the playout and then ``tokens``
    (the tree walk's moves), and add the rewards to ``node`` and each of its ancestors."""
    played = []
    steps = 0
    while not state.is_over() and (limit is None or steps < limit):
        played.append(state.apply(draw(dice)))
        steps += 1
    reward = evaluate(state)
    for token in reversed(played):
        state.undo(token)
    for token in reversed(tokens):
        state.undo(token)
    walk: Visited | None = node
    while walk is not None:
        walk.visits += 1
        totals = walk.totals
        for p, r in enumerate(reward):
            totals[p] += r
        walk = walk.parent
