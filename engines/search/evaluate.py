"""Rewards for search: one number in [0, 1] per player.

A finished game scores its winners ``1 / len(winners)`` each, the others 0. A game cut
short (a playout stopped early) is scored by a per-game heuristic; the default shares a
point in proportion to each player's lead over the weakest score, which suits every game
whose ``scores()`` grow with advantage (masters, group sizes, path tokens).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import GameState

Evaluator = Callable[[GameState[Any]], list[float]]


def outcome(state: GameState[Any]) -> list[float]:
    """Win shares of a finished game."""
    winners = state.winners()
    share = 1.0 / len(winners)
    return [share if p in winners else 0.0 for p in range(state.rules.n_players)]


def score_shares(state: GameState[Any]) -> list[float]:
    """For an unfinished game: a soft win share from the current scores, or from the
    game's ``heuristic_scores()`` when it has them (Shangri-La counts students too)."""
    heuristic = getattr(state, "heuristic_scores", None)
    scores = heuristic() if heuristic is not None else state.scores()
    low = min(scores)
    leads = [s - low + 1.0 for s in scores]
    total = sum(leads)
    return [lead / total for lead in leads]


def default_evaluator(state: GameState[Any]) -> list[float]:
    return outcome(state) if state.is_over() else score_shares(state)


_EVALUATORS: dict[str, Evaluator] = {}


def register(game: str, evaluator: Evaluator) -> None:
    """Use ``evaluator`` for ``game`` (games may register a stronger heuristic)."""
    _EVALUATORS[game] = evaluator


def evaluator_for(game: str) -> Evaluator:
    return _EVALUATORS.get(game, default_evaluator)
