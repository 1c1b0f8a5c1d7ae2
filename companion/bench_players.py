"""``companion bench players``: strength of the engine players, measured by play.

For each game: each level against the level below, and the default level against
random and one-ply greedy players. One seat is the player measured, every other seat
the opponent kind; seats rotate game by game. A shared first place counts in part.

The Elo-like figure assumes Bradley-Terry strengths: with ``n`` players of which ``n-1``
are equal opponents, a first-place share ``s`` gives a strength difference of
``ln((n-1) s / (1 - s))``, shown on the Elo scale (x 400 / ln 10). Levels are chained
from level 1 = 0. The 95 % interval maps the Wilson score interval of the share (the
number of games behind it) through the same formula.
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
    PlayoutRandomPlayer,
    RandomPlayer,
    SearchPlayer,
    play_match,
)

PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 2}


@dataclass
class Pairing:
    game: str
    players: int
    measured: str
    opponent: str
    games: int
    first_place_share: float
    elo_difference: float | None
    elo_low: float | None
    """Lower end of the 95 % interval (None: unbounded below)."""
    elo_high: float | None
    """Upper end of the 95 % interval (None: unbounded above)."""
    seconds: float


def elo(share: float, players: int) -> float | None:
    """Elo-like difference from a first-place share against equal opponents; None when
    the share is 0 or 1 (unbounded)."""
    if share <= 0.0 or share >= 1.0:
        return None
    return 400.0 / math.log(10) * math.log((players - 1) * share / (1.0 - share))


WILSON_Z = 1.96
"""Normal quantile of a two-sided 95 % interval."""


def share_interval(share: float, games: int) -> tuple[float, float]:
    """Wilson score 95 % interval of a first-place share measured over ``games``: unlike
    the normal approximation it stays inside [0, 1] and is honest at 0 % or 100 %."""
    z2 = WILSON_Z * WILSON_Z
    centre = (share + z2 / (2 * games)) / (1 + z2 / games)
    half = WILSON_Z * math.sqrt(share * (1 - share) / games + z2 / (4 * games * games)) / (
        1 + z2 / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value)


def _opponent(kind: str, seed: int, game: str) -> Any:
    if kind == "random":
        # ShenShi's uniform draw over a million turns takes seconds: its playout draw
        return PlayoutRandomPlayer(seed) if game == "shenshi" else RandomPlayer(seed)
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
    low, high = share_interval(share, games)
    return Pairing(game, n, f"level {measured}", opponent, games, round(share, 3),
                   _rounded(elo(share, n)), _rounded(elo(low, n)), _rounded(elo(high, n)),
                   round(time.perf_counter() - start, 1))


def _elo_text(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.0f}"


def row(result: Pairing) -> str:
    """One pairing as a line of the text table (``-inf``/``inf``: unbounded)."""
    diff = _elo_text(result.elo_difference, "inf" if result.first_place_share > 0 else "-inf")
    interval = f"{_elo_text(result.elo_low, '-inf')} to {_elo_text(result.elo_high, 'inf')}"
    return (f"{result.game:<10} {result.measured:<9} {result.opponent:<9} "
            f"{result.games:>5} {100 * result.first_place_share:>10.1f}% {diff:>8} "
            f"{interval:>16} {result.seconds:>6.0f}s")


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

    from companion.bench_strength import register as register_strength

    register_strength(bench_sub)


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
    plan = []
    for game in args.game or sorted(PLAYERS):
        plan += [(game, level, f"level {level - 1}") for level in range(2, args.levels + 1)]
        plan += [(game, DEFAULT_LEVEL, kind) for kind in ("random", "greedy")]
    if not args.json:
        print(f"{'game':<10} {'measured':<9} {'against':<9} {'games':>5} "
              f"{'first place':>11} {'Elo diff':>8} {'95 % interval':>16} {'time':>7}",
              flush=True)
    results: list[Pairing] = []
    for game, level, opponent in plan:
        results.append(pairing(game, level, opponent, args.games, args.seed))
        if not args.json:
            # each line as soon as it is measured: a long run shows its figures as it goes
            print(row(results[-1]), flush=True)
    if args.json:
        print(json.dumps({"figures": [asdict(r) for r in results]}))
    return 0
