"""``companion bench app``: the app's figures (start time, live view frame rate with
recognition, verdict-to-banner delay), measured headless by ``companion.app.bench``."""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.cli import Subparsers, UsageError

ORDER = 110
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    parser = bench_sub.add_parser(
        "app",
        help="app start time, live view frames per second, verdict-to-banner delay",
        description="Measure the app headless (SDL's offscreen driver): the start time "
        "(fresh processes, to the first frame), the live view's frames per second on a "
        "1280x720 video with the camera pipeline recognising every frame, and the time "
        "from the referee's illegal-move verdict to the first frame showing the banner.",
    )
    parser.add_argument(
        "--video",
        metavar="FILE",
        help="a 1280x720 video of a Shangri-La table with its markers "
        "(default: render one, about 10 s)",
    )
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="longest time to play the video (default 20)"
    )
    parser.add_argument("--starts", type=int, default=3, help="start-time runs (default 3)")
    parser.add_argument(
        "--banners", type=int, default=10, help="illegal moves to time (default 10)"
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--demo-games",
        type=int,
        default=0,
        metavar="N",
        help="also play the app's demo mode to the end N times and count "
        "its false alarms (default 0)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=bench_command)


def bench_command(args: argparse.Namespace) -> int:
    if args.starts < 1 or args.banners < 1 or args.seconds <= 0 or args.demo_games < 0:
        raise UsageError(
            "--starts and --banners must be at least 1, --seconds positive, --demo-games 0 or more"
        )
    if args.video is not None and not Path(args.video).exists():
        raise UsageError(f"--video {args.video}: no such file")
    from companion.app.bench import bench_command as run  # deferred: renders with OpenCV

    return run(args)
