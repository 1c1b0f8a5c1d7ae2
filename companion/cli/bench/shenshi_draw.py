"""``companion bench shenshi-draw``: the time of ShenShi's uniform draw of a turn
(``engines.shenshi.bench_draw``)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from companion.cli import Subparsers
from engines.shenshi import bench_draw

ORDER = 100
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    parser = bench_sub.add_parser(
        "shenshi-draw",
        help="time of ShenShi's uniform draw of a turn",
        description=bench_draw.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--games", type=int, default=3, help="games per player count and lift limit (default 3)"
    )
    parser.add_argument("--seed", type=int, default=101, help="random seed (default 101)")
    parser.add_argument(
        "--no-compare", action="store_true", help="do not time the draw that counts every turn"
    )
    parser.add_argument(
        "--no-enumeration",
        action="store_true",
        help="do not go through the widest position's 73 million turns",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=draw_command)


def draw_command(args: argparse.Namespace) -> int:
    figures = []
    for lifts in (1, 2):
        for players in (2, 3, 4):
            figure = bench_draw.random_games(
                players, lifts, args.games, args.seed, not args.no_compare
            )
            figures.append(figure)
            if not args.json:
                counted = (
                    ""
                    if figure.counted_ms is None
                    else (
                        f"; counting every turn {figure.counted_ms:.1f} ms (worst "
                        f"{figure.counted_worst_ms:.0f} ms)"
                    )
                )
                print(
                    f"{players} players, {lifts} lift{'s' if lifts > 1 else ''}: "
                    f"{figure.moves} moves, draw {figure.draw_ms:.1f} ms per move (median "
                    f"{figure.draw_median_ms:.1f}, worst {figure.draw_worst_ms:.0f} ms)"
                    f"{counted}",
                    flush=True,
                )
    wide = bench_draw.widest(not args.no_enumeration)
    if args.json:
        print(json.dumps({"games": [asdict(f) for f in figures], "widest": asdict(wide)}))
        return 0
    line = (
        f"widest position ({wide.turns:,} turns): draw {wide.draw_s:.3f} s, counting "
        f"draw {wide.counted_s:.3f} s, count {wide.count_s:.3f} s"
    )
    if wide.enumeration_s is not None:
        line += (
            f", going through every turn {wide.enumeration_s:.1f} s "
            f"({wide.enumeration_s / wide.draw_s:.0f} times the draw)"
        )
    print(line)
    return 0
