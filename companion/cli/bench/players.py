"""``companion bench players`` and ``companion bench policies``: the engine players'
strength measured by play. What is measured and how the figures are read:
:mod:`engines.search.bench_players`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from companion.cli import Subparsers, UsageError
from engines import Dice, rules_class
from engines.search import MCTS
from engines.search.bench_players import (
    PLAYERS,
    SETTINGS,
    Pairing,
    _rounded,
    elo,
    pairing,
    policy_game,
    share_interval,
)
from engines.search.mcts import POLICIES
from engines.search.players import (
    DEFAULT_LEVEL,
    LEVELS,
)

ORDER = 50
"""Where the topic is listed in ``companion bench --help``."""


def _elo_text(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.0f}"


def row(result: Pairing) -> str:
    """One pairing as a line of the text table (``-inf``/``inf``: unbounded)."""
    diff = _elo_text(result.elo_difference, "inf" if result.first_place_share > 0 else "-inf")
    interval = f"{_elo_text(result.elo_low, '-inf')} to {_elo_text(result.elo_high, 'inf')}"
    return (
        f"{result.game:<10} {result.measured:<9} {result.opponent:<9} "
        f"{result.games:>5} {100 * result.first_place_share:>10.1f}% {diff:>8} "
        f"{interval:>16} {result.seconds:>6.0f}s"
    )


def register(bench_sub: Subparsers) -> None:
    parser = bench_sub.add_parser(
        "players",
        help="strength of the engine players: level against level, and "
        "against random and greedy play",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        action="append",
        choices=sorted(PLAYERS),
        help="only this game (repeatable; default all)",
    )
    parser.add_argument("--games", type=int, default=40, help="games per pairing (40)")
    parser.add_argument(
        "--levels",
        type=int,
        default=DEFAULT_LEVEL,
        help=f"measure levels 2..N against the level below "
        f"(default {DEFAULT_LEVEL}; highest {max(LEVELS)})",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=players_command)

    search = bench_sub.add_parser(
        "search",
        help="search iterations per second, per game",
        description="Run one search at a level from a mid-game position of each game and "
        "print iterations per second (one core).",
    )
    search.add_argument(
        "--game",
        action="append",
        choices=sorted(PLAYERS),
        help="only this game (repeatable; default all)",
    )
    search.add_argument(
        "--level",
        type=int,
        default=DEFAULT_LEVEL,
        choices=sorted(LEVELS),
        help=f"search level (default {DEFAULT_LEVEL})",
    )
    search.add_argument("--seed", type=int, default=3, help="random seed (default 3)")
    search.add_argument("--json", action="store_true", help="print the figures as JSON")
    search.set_defaults(handler=search_command)

    policies = bench_sub.add_parser(
        "policies",
        help="the multiplayer search policies against each other, by play",
        description=POLICIES_DOC,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    policies.add_argument("--game", default="shangrila", choices=sorted(PLAYERS))
    policies.add_argument("--players", type=int, default=3, help="players a game (3)")
    policies.add_argument(
        "--policy",
        default="paranoid",
        choices=POLICIES,
        help="the policy of the measured seat (default paranoid)",
    )
    policies.add_argument(
        "--against",
        default="maxn",
        choices=POLICIES,
        help="the policy of every other seat (default maxn)",
    )
    policies.add_argument(
        "--level",
        type=int,
        default=DEFAULT_LEVEL,
        choices=sorted(LEVELS),
        help=f"the search budget of every seat (default {DEFAULT_LEVEL})",
    )
    policies.add_argument("--games", type=int, default=60, help="games (60)")
    policies.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    policies.add_argument(
        "--log",
        type=Path,
        default=None,
        help="a file of one game a line: a run goes on from the games "
        "it holds, and a run stopped early keeps them",
    )
    policies.add_argument("--json", action="store_true", help="print the figures as JSON")
    policies.set_defaults(handler=policies_command)


def search_command(args: argparse.Namespace) -> int:
    """Iterations per second of the search at ``--level``, from a mid-game position of
    each game (reached by the game's playout draw from ``--seed``)."""

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
        figures.append(
            {
                "game": game,
                "level": args.level,
                "iterations": result.iterations,
                "seconds": round(result.seconds, 3),
                "iterations_per_second": round(rate),
            }
        )
        if not args.json:
            print(
                f"{game:<10} level {args.level}: {rate:>7.0f} iterations/s "
                f"({result.iterations} in {result.seconds:.2f} s, playouts cut at "
                f"{config.rollout_moves} moves)"
            )
    if args.json:
        print(json.dumps({"figures": figures}))
    return 0


def players_command(args: argparse.Namespace) -> int:
    if args.games < 1 or not 2 <= args.levels <= max(LEVELS):
        raise UsageError(f"--games must be positive and --levels within 2 and {max(LEVELS)}")
    plan = []
    for game in args.game or sorted(PLAYERS):
        plan += [(game, level, f"level {level - 1}") for level in range(2, args.levels + 1)]
        plan += [(game, DEFAULT_LEVEL, kind) for kind in ("random", "greedy")]
    if not args.json:
        print(
            f"{'game':<10} {'measured':<9} {'against':<9} {'games':>5} "
            f"{'first place':>11} {'Elo diff':>8} {'95 % interval':>16} {'time':>7}",
            flush=True,
        )
    results: list[Pairing] = []
    for game, level, opponent in plan:
        results.append(pairing(game, level, opponent, args.games, args.seed))
        if not args.json:
            # each line as soon as it is measured: a long run shows its figures as it goes
            print(row(results[-1]), flush=True)
    if args.json:
        print(json.dumps({"figures": [asdict(r) for r in results]}))
    return 0


POLICIES_DOC = """``companion bench policies``: one seat searches with a policy
(``--policy``), every other seat with another (``--against``), all with the same budget
(``--level``); seats rotate game by game and each game has its own seeds. The figure is
the measured seat's first-place share (a shared first place counts in part) with its
Wilson 95 % interval; with ``n`` players, equal policies take first place ``1/n`` of
the time, and a policy is significantly stronger when the whole interval lies above
``1/n``. The Elo-like figure reads the share as ``companion bench players`` does.

Policies: ``maxn``, every player plays for their own result; ``paranoid``, the
opponents play against the searching player; ``brs``, best-reply search: between two of
the searching player's turns only the opponent with the worst reply for them is
searched, the others play the move their playout policy gives them.

With ``--log``, each game is written as one line with its settings; a run goes on from
the games of a log written with the same settings and refuses one written with others."""


def policies_command(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError("--games must be positive")
    try:
        rules_class(args.game).default_players(args.players)
    except (KeyError, ValueError) as error:
        raise UsageError(f"{args.game} is not played by {args.players}: {error}") from None
    done: list[dict[str, Any]] = []
    if args.log is not None and args.log.exists():
        done = [
            json.loads(line)
            for line in args.log.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        for found in done:
            # lines written before the settings were kept say nothing: taken as they are
            other = {k: found[k] for k in SETTINGS if k in found and found[k] != vars(args)[k]}
            if other:
                raise UsageError(
                    f"{args.log} holds games played with other settings ({other}): "
                    "use another --log"
                )
    began = time.perf_counter()
    for index in range(len(done), args.games):
        found = policy_game(
            args.game, args.players, args.policy, args.against, args.level, args.seed, index
        )
        done.append(found)
        if args.log is not None:
            with args.log.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(found) + "\n")
        so_far = sum(g["share"] for g in done) / len(done)
        print(
            f"\r{args.game} {args.players}: {args.policy} vs {args.against}: "
            f"{index + 1}/{args.games}, first place so far {100 * so_far:.1f}%",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    games = done[: args.games]
    share = sum(g["share"] for g in games) / len(games)
    low, high = share_interval(share, len(games))
    figures = {
        "game": args.game,
        "players": args.players,
        "policy": args.policy,
        "against": args.against,
        "level": args.level,
        "games": len(games),
        "first_place_share": round(share, 3),
        "interval": [round(low, 3), round(high, 3)],
        "equal_share": round(1 / args.players, 3),
        "elo_difference": _rounded(elo(share, args.players)),
        "elo_interval": [_rounded(elo(low, args.players)), _rounded(elo(high, args.players))],
        "significantly_stronger": low > 1 / args.players,
        "significantly_weaker": high < 1 / args.players,
        "seconds": round(time.perf_counter() - began, 1),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    verdict = (
        "significantly stronger"
        if figures["significantly_stronger"]
        else "significantly weaker"
        if figures["significantly_weaker"]
        else "not told apart"
    )
    print(
        f"{args.game}, {args.players} players, level {args.level} budget: {args.policy} "
        f"against {args.against} in {len(games)} games: first place "
        f"{100 * share:.1f}% (95 % interval {100 * low:.1f}% to {100 * high:.1f}%; "
        f"equal: {100 / args.players:.1f}%): {verdict}"
    )
    return 0
