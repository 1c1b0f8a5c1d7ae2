"""``companion bench players``: strength of the engine players, measured by play.

For each game: each level against the level below, and the default level against
random and one-ply greedy players. One seat is the player measured, every other seat
the opponent kind; seats rotate game by game. A shared first place counts in part.

The Elo-like figure assumes Bradley-Terry strengths: with ``n`` players of which ``n-1``
are equal opponents, a first-place share ``s`` gives a strength difference of
``ln((n-1) s / (1 - s))``, shown on the Elo scale (x 400 / ln 10). Levels are chained
from level 1 = 0.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from engines import Dice, rules_class
from engines.search.players import (
    DEFAULT_LEVEL,
    LEVELS,
    GreedyPlayer,
    RandomPlayer,
    SearchPlayer,
    play_match,
)

PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 2}


class PlayoutRandom:
    """Random play from the game's playout draw: for ShenShi, whose uniform draw over a
    million turns takes seconds; elsewhere the uniform random player."""

    def __init__(self, seed: int) -> None:
        self.dice = Dice(seed)
        self.name = "random"

    def choose(self, state: Any) -> Any:
        draw = getattr(state, "playout_move", state.random_move)
        return draw(self.dice)


@dataclass
class Pairing:
    game: str
    players: int
    measured: str
    opponent: str
    games: int
    first_place_share: float
    elo_difference: float | None
    seconds: float


def elo(share: float, players: int) -> float | None:
    """Elo-like difference from a first-place share against equal opponents; None when
    the share is 0 or 1 (unbounded)."""
    if share <= 0.0 or share >= 1.0:
        return None
    return 400.0 / math.log(10) * math.log((players - 1) * share / (1.0 - share))


def _opponent(kind: str, seed: int, game: str) -> Any:
    if kind == "random":
        return PlayoutRandom(seed) if game == "shenshi" else RandomPlayer(seed)
    if kind == "greedy":
        return GreedyPlayer(seed)
    return SearchPlayer(int(kind.split()[1]), seed=seed)


def pairing(game: str, measured: int, opponent: str, games: int, seed: int) -> Pairing:
    cls = rules_class(game)
    n = PLAYERS[game]
    rules = cls.from_record(cls.default_players(n), {})
    share = 0.0
    start = time.perf_counter()
    for g in range(games):
        seat = g % n
        players = [_opponent(opponent, seed + 100 * g + i, game) for i in range(n)]
        players[seat] = SearchPlayer(measured, seed=seed + 100 * g + 50)
        result = play_match(rules, players)
        if seat in result.winners:
            share += 1.0 / len(result.winners)
        print(f"\r{game}: level {measured} vs {opponent}: {g + 1}/{games}", end="",
              file=sys.stderr, flush=True)
    print(file=sys.stderr)
    share /= games
    return Pairing(game, n, f"level {measured}", opponent, games, round(share, 3),
                   None if (d := elo(share, n)) is None else round(d),
                   round(time.perf_counter() - start, 1))


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = bench_sub.add_parser(
        "players", help="strength of the engine players: level against level, and "
        "against random and greedy play",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", choices=sorted(PLAYERS),
                        help="only this game (repeatable; default all)")
    parser.add_argument("--games", type=int, default=40, help="games per pairing (40)")
    parser.add_argument("--levels", type=int, default=DEFAULT_LEVEL,
                        help=f"measure levels 2..N against the level below "
                        f"(default {DEFAULT_LEVEL}; highest {max(LEVELS)})")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=players_command)

    search = bench_sub.add_parser(
        "search", help="search iterations per second, per game",
        description="Run one search at a level from a mid-game position of each game and "
        "print iterations per second (one core).")
    search.add_argument("--game", action="append", choices=sorted(PLAYERS),
                        help="only this game (repeatable; default all)")
    search.add_argument("--level", type=int, default=DEFAULT_LEVEL, choices=sorted(LEVELS),
                        help=f"search level (default {DEFAULT_LEVEL})")
    search.add_argument("--seed", type=int, default=3, help="random seed (default 3)")
    search.add_argument("--json", action="store_true", help="print the figures as JSON")
    search.set_defaults(handler=search_command)


def search_command(args: argparse.Namespace) -> int:
    """Iterations per second of the search at ``--level``, from a mid-game position of
    each game (reached by the game's playout draw from ``--seed``)."""
    from engines.search import MCTS

    figures = []
    for game in args.game or sorted(PLAYERS):
        cls = rules_class(game)
        rules = cls.from_record(cls.default_players(PLAYERS[game]), {})
        state = rules.initial_state()
        dice = Dice(args.seed)
        for _ in range(30 if game == "shangrila" else 8):
            draw = getattr(state, "playout_move", state.random_move)
            state.apply(draw(dice))
        config = LEVELS[args.level]
        result = MCTS(config).search(state)
        rate = result.iterations / result.seconds
        figures.append({"game": game, "level": args.level, "iterations": result.iterations,
                        "seconds": round(result.seconds, 3), "iterations_per_second":
                        round(rate)})
        if not args.json:
            print(f"{game:<10} level {args.level}: {rate:>7.0f} iterations/s "
                  f"({result.iterations} in {result.seconds:.2f} s, playouts cut at "
                  f"{config.rollout_moves} moves)")
    if args.json:
        print(json.dumps({"figures": figures}))
    return 0


def players_command(args: argparse.Namespace) -> int:
    from companion.cli import UsageError

    if args.games < 1 or not 2 <= args.levels <= max(LEVELS):
        raise UsageError(f"--games must be positive and --levels within 2 and {max(LEVELS)}")
    results: list[Pairing] = []
    for game in args.game or sorted(PLAYERS):
        for level in range(2, args.levels + 1):
            results.append(pairing(game, level, f"level {level - 1}", args.games, args.seed))
        for kind in ("random", "greedy"):
            results.append(pairing(game, DEFAULT_LEVEL, kind, args.games, args.seed))
    if args.json:
        print(json.dumps({"figures": [asdict(r) for r in results]}))
        return 0
    print(f"{'game':<10} {'measured':<9} {'against':<9} {'games':>5} {'first place':>11} "
          f"{'Elo diff':>8} {'time':>7}")
    for r in results:
        diff = "inf" if r.elo_difference is None else f"{r.elo_difference:+d}"
        print(f"{r.game:<10} {r.measured:<9} {r.opponent:<9} {r.games:>5} "
              f"{100 * r.first_place_share:>10.1f}% {diff:>8} {r.seconds:>6.0f}s")
    return 0
