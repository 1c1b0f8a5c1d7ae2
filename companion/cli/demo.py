"""``companion demo``: the whole companion at work on a filmed game (``companion.demo``)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from calibration.errors import SourceError
from companion.app.i18n import system_language
from companion.cli import Subparsers, UsageError
from companion.demo.base import GAMES, READERS

ORDER = 90
"""Where the group is listed in ``companion --help``."""


def register(sub: Subparsers) -> None:
    parser = sub.add_parser(
        "demo",
        help="see the referee work on a filmed game (no camera or board needed)",
        description="Calibrate the demo's table as a player does (the empty board and the "
        "calibration position), film a game with the renderer (a recruit, journeys, an "
        "illegal move put right, the end), then referee the film as a camera reading "
        "through that calibration: vision, referee, scores and how well each player "
        "played. Without a display it prints as it goes and writes a report (JSON, PNG "
        "charts, one HTML page) to a folder it names.",
    )
    parser.add_argument("--game", choices=GAMES, default="shangrila")
    parser.add_argument("--seed", type=int, default=0, help="the game and the film (0)")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="where the report goes (default: ./companion-demo-GAME)",
    )
    parser.add_argument(
        "--sensor-sim",
        action="store_true",
        help="add the simulated sensor board, over a pseudo-terminal",
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="print and write the report even when a display is there",
    )
    parser.add_argument(
        "--moves",
        type=int,
        default=None,
        metavar="N",
        help="film only the game's last N moves (default: the game's own)",
    )
    parser.add_argument(
        "--level",
        type=int,
        default=3,
        choices=range(1, 7),
        metavar="1-6",
        help="the analysis' search level (3)",
    )
    parser.add_argument(
        "--reader",
        choices=READERS,
        default="appearance",
        help="how the camera reads the table: by the set's appearance "
        "learned at calibration (appearance), or by the colour reader, to "
        "compare (colours)",
    )
    parser.add_argument(
        "--language",
        choices=("en", "fr", "es"),
        default=None,
        help="the app's and the report's language (default: the system's, "
        "English when it is none of these)",
    )
    parser.set_defaults(handler=demo_command)


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def demo_command(args: argparse.Namespace) -> int:
    from companion.demo.film import QUIET_END  # deferred: loads OpenCV
    from companion.demo.run import DemoOptions, run_demo  # deferred: loads OpenCV

    if args.moves is not None and args.moves <= QUIET_END:
        raise UsageError(
            f"--moves {args.moves}: the film shows at least {QUIET_END + 1} "
            f"moves (an illegal move is tried, then put right, before its "
            f"last {QUIET_END})"
        )
    out = args.out or Path(f"companion-demo-{args.game}")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file: the report needs a folder")
    from calibration.sources import opencv_path  # deferred: loads OpenCV

    try:
        opencv_path(out)  # the film is written there by OpenCV
    except SourceError as error:
        raise UsageError(f"--out: {error}") from None

    options = DemoOptions(
        game=args.game,
        seed=args.seed,
        out=out,
        sensor=args.sensor_sim,
        moves=args.moves,
        level=args.level,
        reader=args.reader,
        language=args.language or system_language(),
    )
    if has_display() and not args.headless:
        from companion.demo.run import open_app  # deferred: loads OpenCV

        return open_app(options)
    start = time.perf_counter()
    run_demo(options, sys.stdout)
    print(f"\nDemo finished in {time.perf_counter() - start:.0f} s.")
    return 0
