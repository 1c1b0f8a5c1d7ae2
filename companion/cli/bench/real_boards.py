"""``companion bench real-boards``: grid finding and stone reading on real photographs
(``vision.evaluate.real_boards``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from companion.cli import Subparsers
from vision.evaluate.real_boards import DEFAULT_DATA, format_report, run

ORDER = 90
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    """Add ``companion bench real-boards``."""
    bench = bench_sub.add_parser(
        "real-boards",
        help="grid finding and stone reading on real photographs",
        description="Locate the printed grid of every real photograph with no corners "
        "given, calibrate on each game's first photos and read the later ones; the "
        "reader's weights for a game are fitted on the other games.",
    )
    bench.add_argument("--data", help=f"the folder of real photographs (default {DEFAULT_DATA})")
    bench.add_argument(
        "--fit-on",
        nargs="+",
        metavar="GAME",
        help="fit the weights on these games' photos (e.g. t1) and report "
        "on the others, instead of each game on all the others",
    )
    bench.add_argument("--json", help="also write the figures to this file")
    bench.set_defaults(handler=real_boards_command)


def real_boards_command(args: argparse.Namespace) -> int:
    data = Path(args.data) if args.data else DEFAULT_DATA
    if not data.is_dir():
        print(
            f"No real photographs here: {data} is not a folder. Pass --data FOLDER "
            "(the folder holding imago-go/)."
        )
        return 2
    try:
        result = run(data, tuple(args.fit_on or ()))
    except (FileNotFoundError, ValueError) as error:
        print(f"The real photographs cannot be used: {error}")
        return 2
    print(format_report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0
