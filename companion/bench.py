"""``companion bench ...``: figures measured on this machine, not timed tests.

``bench rules`` measures random complete games with every move drawn uniformly from the
legal moves; for games whose states also offer ``playout_move`` (the cheaper, non-uniform
draw that search playouts use), it measures that too, labelled ``playout``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from engines import Dice, Rules, available_games, rules_class

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
        draw = state.playout_move if playout else state.random_move  # type: ignore[attr-defined]
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


def rules_command(args: argparse.Namespace) -> int:
    with one_core():
        return _rules(args)


def _rules(args: argparse.Namespace) -> int:
    games = args.game or available_games()
    figures = []
    for game in games:
        cls = rules_class(game)
        for n in PLAYER_COUNTS.get(game, (cls.min_players,)):
            rules = cls.from_record(cls.default_players(n), {})
            policies = [False]
            if hasattr(rules.initial_state(), "playout_move"):
                policies.append(True)
            for playout in policies:
                figure = random_games(rules, args.seconds, args.seed, playout)
                figures.append(figure)
                if not args.json:
                    print(
                        f"{game:<10} {n} players, {figure.policy:<7}: "
                        f"{figure.games_per_second:>9.1f} games/s ({figure.games} games "
                        f"in {figure.seconds:.1f} s, {figure.moves_per_game:.1f} moves "
                        "per game)",
                        flush=True,
                    )
    if args.json:
        print(
            json.dumps(
                {"python": platform.python_version(), "figures": [asdict(f) for f in figures]}
            )
        )
    return 0
