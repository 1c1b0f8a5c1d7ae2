"""``companion bench rules``: random complete games per second (``engines.bench``)."""

from __future__ import annotations

import argparse
import json
import platform
from dataclasses import asdict

from companion.cli import Subparsers
from engines import available_games
from engines.bench import one_core, rules_figures

ORDER = 10
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    rules = bench_sub.add_parser(
        "rules",
        help="random complete games per second on one core, per game",
        description="Play random complete games (each move drawn uniformly from the legal "
        "moves) for a fixed time per game and player count, on one core, and print games "
        "per second and moves per game. Games with a search playout policy are also "
        "measured with it (labelled 'playout').",
    )
    rules.add_argument(
        "--seconds", type=float, default=5.0, help="time per configuration (default 5)"
    )
    rules.add_argument(
        "--game", action="append", help="only this game (repeatable; default: every installed game)"
    )
    rules.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    rules.add_argument("--json", action="store_true", help="print the figures as JSON")
    rules.set_defaults(handler=rules_command)


def rules_command(args: argparse.Namespace) -> int:
    figures = []
    with one_core():
        for figure in rules_figures(args.game or available_games(), args.seconds, args.seed):
            figures.append(figure)
            if not args.json:
                print(
                    f"{figure.game:<10} {figure.players} players, {figure.policy:<7}: "
                    f"{figure.games_per_second:>9.1f} games/s ({figure.games} games "
                    f"in {figure.seconds:.1f} s, {figure.moves_per_game:.1f} moves "
                    "per game)",
                    flush=True,
                )
    if args.json:
        print(
            json.dumps(
                {
                    "python": platform.python_version(),
                    "figures": [asdict(figure) for figure in figures],
                }
            )
        )
    return 0
