"""``companion bench settleable``: the moves no later table can settle, a bound on what
any referee knows without asking (``companion.simulator.settleable``)."""

from __future__ import annotations

import argparse
import json

from companion.cli import Subparsers, UsageError
from companion.simulator import settleable
from companion.simulator.config import VIEWS
from companion.simulator.evaluate import PLAYER_COUNTS
from engines.registry import table_model

ORDER = 42
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    parser = bench_sub.add_parser(
        "settleable",
        help="the moves no later table can settle (Shangri-La recruits)",
        description=settleable.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        default="shangrila",
        choices=[g for g in sorted(PLAYER_COUNTS) if table_model(g).hidden_parts()],
        help="the game (default shangrila; the games whose table hides some moves)",
    )
    parser.add_argument("--games", type=int, default=200, help="games (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="first game's seed (default 1)")
    parser.add_argument(
        "--view",
        choices=(*VIEWS, "both"),
        default="both",
        help="where the camera looks from (default both)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=settleable_command)


def settleable_command(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    views = VIEWS if args.view == "both" else (args.view,)
    figures = [settleable.measure(args.game, args.games, args.seed, view) for view in views]
    if args.json:
        print(json.dumps([f.to_json() for f in figures], indent=1))
        return 0
    for f in figures:
        where = "from above" if f.view == "above" else f"at {f.view} degrees"
        print(
            f"{f.game}, {f.games} games from seed {args.seed}, camera {where}: "
            f"{f.unseen} of {f.moves} moves not shown by the table; {f.unsettled} of them "
            f"({f.unsettled_pct:.1f}%, {f.unsettled / f.games:.1f} a game) another move "
            "could replace with every later table the same. A referee asking about none "
            f"of them writes at most {f.best_record_pct:.2f}% of the moves right."
        )
    return 0
