"""Random complete games per second (``companion bench rules``).

It measures random complete games with every move drawn uniformly from the
legal moves; for games whose states also offer ``playout_move`` (the cheaper, non-uniform
draw that search playouts use), it measures that too, labelled ``playout``."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from engines.base import Rules
from engines.dice import Dice
from engines.registry import rules_class

# Player counts measured per game.
PLAYER_COUNTS = {"shangrila": (3, 4), "shendao": (2,), "shenshi": (2, 3, 4)}


@dataclass
class RulesFigure:
    game: str
    policy: str  # "uniform" (every legal move equally likely) or "playout"
    players: int
    games: int
    seconds: float
    games_per_second: float
    moves_per_game: float


def random_games(
    rules: Rules[Any, Any], seconds: float, seed: int, playout: bool = False
) -> RulesFigure:
    """Play random complete games (uniform over legal moves, unchecked apply) for about
    ``seconds``; return the rate. ``playout``: draw with the game's search playout
    policy (``playout_move``) instead of uniformly."""
    dice = Dice(seed)
    games = moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = rules.initial_state()
        draw = state.playout_move if playout else state.random_move
        while not state.is_over():
            state.apply(draw(dice))
            moves += 1
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return RulesFigure(
        rules.game,
        "playout" if playout else "uniform",
        rules.n_players,
        games,
        round(elapsed, 3),
        round(games / elapsed, 1),
        round(moves / games, 1),
    )


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """Run on one core (the figures are per core), then on the cores allowed before."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def rules_figures(games: Iterable[str], seconds: float, seed: int) -> Iterator[RulesFigure]:
    """For each game and player count of ``PLAYER_COUNTS`` (the fewest players for a
    game not listed there), the rate of random games drawn uniformly and, for games
    whose states offer ``playout_move``, with the playout policy; yielded as measured."""
    for game in games:
        cls = rules_class(game)
        for n in PLAYER_COUNTS.get(game, (cls.min_players,)):
            rules = cls.from_record(cls.default_players(n), {})
            policies = [False]
            if hasattr(rules.initial_state(), "playout_move"):
                policies.append(True)
            for playout in policies:
                yield random_games(rules, seconds, seed, playout)
