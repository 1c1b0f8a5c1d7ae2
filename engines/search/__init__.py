"""Engine players: Monte Carlo tree search over the common game interface."""

from engines.search.evaluate import default_evaluator, evaluator_for, outcome, score_shares
from engines.search.mcts import MCTS, MoveStat, SearchConfig, SearchResult, search_parallel

__all__ = [
    "MCTS",
    "MoveStat",
    "SearchConfig",
    "SearchResult",
    "default_evaluator",
    "evaluator_for",
    "outcome",
    "score_shares",
    "search_parallel",
]
