"""``companion bench vision``: how well the camera reads the table (``vision.evaluate``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import vision.evaluate
from companion.cli import Subparsers, UsageError
from vision.evaluate import LEVELS, LOCATED_FRAMES
from vision.models import GAMES

ORDER = 60
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    """Add ``companion bench vision``."""
    parser = bench_sub.add_parser(
        "vision",
        help="how well the camera reads the table (rendered pictures)",
        description=vision.evaluate.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        action="append",
        help="only this game (repeatable; default every game with a board model)",
    )
    parser.add_argument(
        "--level",
        action="append",
        choices=LEVELS,
        help="only this level (repeatable; default all three)",
    )
    parser.add_argument(
        "--frames", type=int, default=30, help="pictures per game and level (default 30)"
    )
    parser.add_argument(
        "--seed",
        default="1",
        metavar="SEEDS",
        help="set seed (default 1), or several pooled: 1,2,7-13 (the "
        "timings and the run through localisation use the first)",
    )
    parser.add_argument(
        "--size",
        default="1920x1080",
        metavar="WxH",
        help="picture size of the sets (default 1920x1080)",
    )
    parser.add_argument(
        "--located-frames",
        type=int,
        default=LOCATED_FRAMES,
        metavar="N",
        help="pictures per game at the hardest level with corner markers, "
        f"read through the Locator (default {LOCATED_FRAMES}; 0: none)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE.md",
        help="also write the table there, and the figures as JSON beside it (FILE.json)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="where rendered pictures are kept (default ~/.cache/companion/bench-vision)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="render every picture again and keep none"
    )
    parser.add_argument("--no-timing", action="store_true", help="skip the one-core speed figures")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(handler=vision_command)


def vision_command(args: argparse.Namespace) -> int:
    from vision.evaluate.report import report_json, report_markdown  # deferred: OpenCV
    from vision.evaluate.run import parse_seeds, run_bench  # deferred: renderer, readers
    from vision.evaluate.sets import cache_dir  # deferred: with the renderer

    games = args.game or list(GAMES)
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise UsageError(f"no board model for {', '.join(unknown)}; known: {', '.join(GAMES)}")
    if args.frames < 1:
        raise UsageError("--frames must be at least 1")
    levels = args.level or list(LEVELS)
    try:
        seeds = parse_seeds(args.seed)
    except ValueError as error:
        raise UsageError(f"--seed: {error}") from None
    cache = None if args.no_cache else cache_dir(args.cache)
    command = " ".join(
        [
            "companion bench vision",
            *(f"--game {g}" for g in args.game or ()),
            *(f"--level {v}" for v in args.level or ()),
            f"--frames {args.frames}",
            f"--seed {args.seed}",
            *([f"--size {args.size}"] if args.size != "1920x1080" else []),
            *(
                [f"--located-frames {args.located_frames}"]
                if args.located_frames != LOCATED_FRAMES
                else []
            ),
        ]
    )

    def progress(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {args.size!r} is not WIDTHxHEIGHT") from None
    if not (160 <= width <= 4000 and 120 <= height <= 4000):
        raise UsageError(f"--size {args.size!r} is out of range")
    if args.located_frames < 0:
        raise UsageError("--located-frames must be 0 or more")
    results, timings, located = run_bench(
        games,
        levels,
        args.frames,
        seeds,
        cache,
        not args.no_timing,
        progress,
        (width, height),
        args.located_frames,
    )
    markdown = report_markdown(results, timings, command, (width, height), located)
    print(markdown, end="")
    if args.out is not None:
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(markdown, encoding="utf-8")
            json_path = args.out.with_suffix(".json")
            json_path.write_text(
                json.dumps(
                    report_json(results, timings, command, (width, height), located), indent=1
                ),
                encoding="utf-8",
            )
        except OSError as error:
            raise UsageError(f"cannot write {args.out}: {error.strerror or error}") from None
        print(f"wrote {args.out} and {json_path}", file=sys.stderr)
    return 0
