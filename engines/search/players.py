"""Players that choose moves (random, greedy, search levels) and a match runner."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from engines.base import GameState, Rules
from engines.dice import Dice
from engines.search.evaluate import evaluator_for
from engines.search.mcts import MCTS, SearchConfig

# Search budgets per level: 1 is a beginner, the last is the strongest a few seconds
# allow on a small machine. The strength scale (docs/players.md) is measured on these.
LEVELS: dict[int, SearchConfig] = {
    1: SearchConfig(iterations=25, rollout_moves=10),
    2: SearchConfig(iterations=100, rollout_moves=10),
    3: SearchConfig(iterations=300, rollout_moves=20),
    4: SearchConfig(iterations=1000, rollout_moves=20),
    5: SearchConfig(iterations=3000, rollout_moves=30),
    6: SearchConfig(iterations=10000, rollout_moves=30),
}
DEFAULT_LEVEL = 4


class Player(Protocol):
    name: str

    def choose(self, state: GameState[Any]) -> Any: ...


class RandomPlayer:
    """Uniform over the legal moves."""

    def __init__(self, seed: int = 0) -> None:
        self.dice = Dice(seed)
        self.name = "random"

    def choose(self, state: GameState[Any]) -> Any:
        return state.random_move(self.dice)


class PlayoutRandomPlayer:
    """Random play by the game's playout draw (``playout_move``) where it has one, else
    uniform. In ShenShi a uniform draw over a million turns takes seconds and the
    playout draw does not; in Shangri-La it picks the kind of action first, so it does
    not recruit as often as uniform play. Level 0, random play, of the strength scale."""

    def __init__(self, seed: int = 0) -> None:
        self.dice = Dice(seed)
        self.name = "random"

    def choose(self, state: GameState[Any]) -> Any:
        draw = getattr(state, "playout_move", state.random_move)
        return draw(self.dice)


GREEDY_SAMPLE = 200
"""Moves the greedy player weighs in a game whose states have ``wide_branching``
(ShenShi): drawn by the playout policy, since listing a million turns is out of reach."""


class GreedyPlayer:
    """One ply: the move whose result the game's evaluation likes best for the mover
    (ties broken at random); in wide-branching games, the best of a sample of moves."""

    def __init__(self, seed: int = 0) -> None:
        self.dice = Dice(seed)
        self.name = "greedy"

    def choose(self, state: GameState[Any]) -> Any:
        evaluate = evaluator_for(state.rules.game)
        me = state.to_move
        best: list[Any] = []
        best_value = -1.0
        if getattr(state, "wide_branching", False):
            draw = getattr(state, "playout_move", state.random_move)
            moves = list(dict.fromkeys(draw(self.dice) for _ in range(GREEDY_SAMPLE)))
        else:
            moves = state.legal_moves()
        for move in moves:
            token = state.apply(move)
            value = evaluate(state)[me]
            state.undo(token)
            if value > best_value + 1e-12:
                best, best_value = [move], value
            elif abs(value - best_value) <= 1e-12:
                best.append(move)
        return self.dice.choice(best)


class SearchPlayer:
    """MCTS at a level (or an explicit config), reusing its tree between its moves."""

    def __init__(
        self, level: int = DEFAULT_LEVEL, seed: int = 0, config: SearchConfig | None = None
    ) -> None:
        base = config or LEVELS[level]
        self.config = replace(base, seed=seed)
        self.mcts = MCTS(self.config)
        self.name = f"level {level}" if config is None else "search"

    def choose(self, state: GameState[Any]) -> Any:
        return self.mcts.search(state).best


@dataclass
class MatchResult:
    winners: list[int]
    scores: list[int]
    moves: int


def play_match(
    rules: Rules[Any, Any], players: Sequence[Player], max_moves: int = 10_000
) -> MatchResult:
    """Play one game, seat ``i`` played by ``players[i]``."""
    state = rules.initial_state()
    moves = 0
    while not state.is_over():
        if moves >= max_moves:
            raise RuntimeError(f"the game did not end within {max_moves} moves")
        state.play(players[state.to_move].choose(state))
        moves += 1
    return MatchResult(state.winners(), state.scores(), moves)
