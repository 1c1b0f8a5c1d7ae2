"""``companion bench reader-errors``: how often the camera's fitted reader errs, per
element kind and value (``vision.evaluate.reader_errors``), for the referee benchmark."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from companion.cli import Subparsers, UsageError, picture_size
from vision.evaluate import LEVELS
from vision.evaluate.appearance import GAMES, SETS, default_cache
from vision.evaluate.reader_errors import DEFAULT_SETUPS, FALLBACK_SETUPS, measure, report
from vision.reader_errors import dumps, errors_path

ORDER = 45
"""Where the topic is listed in ``companion bench --help``."""


def reader_errors_command(args: argparse.Namespace) -> int:
    from vision.appearance import fitted_path  # deferred: loads OpenCV

    if args.game not in GAMES:
        raise UsageError(
            f"the appearance pictures cannot show {args.game!r} yet (available: {', '.join(GAMES)})"
        )
    if not fitted_path(args.game).exists():
        raise UsageError(
            f"no fitted appearance reader for {args.game} "
            f"({fitted_path(args.game)}: companion vision fit makes it)"
        )
    if args.set not in SETS:
        raise UsageError(f"--set must be one of {', '.join(SETS)}")
    count = (
        args.setups if args.setups is not None else DEFAULT_SETUPS.get(args.game, FALLBACK_SETUPS)
    )
    if count < 1:
        raise UsageError("--setups must be at least 1")
    unknown = sorted(set(args.level or ()) - set(LEVELS))
    if unknown:
        raise UsageError(f"no level {', '.join(unknown)} (levels: {', '.join(LEVELS)})")
    command = (
        f"companion bench reader-errors --game {args.game} --set {args.set} "
        f"--setups {count}"
        + "".join(f" --level {lv}" for lv in args.level or ())
        + f" --size {args.size}"
    )
    cache = Path(args.cache).expanduser() if args.cache else default_cache()
    started = time.time()
    errors = measure(
        args.game,
        args.set,
        count,
        tuple(args.level or LEVELS),
        picture_size(args.size),
        cache,
        lambda m: print(m, flush=True),
        command,
    )
    out = Path(args.output) if args.output else errors_path(args.game)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(errors), encoding="utf-8")
    print(report(errors))
    print(f"wrote {out} in {time.time() - started:.0f} s")
    return 0


def register(bench_sub: Subparsers) -> None:
    """Add ``companion bench reader-errors``."""
    parser = bench_sub.add_parser(
        "reader-errors",
        help="how often the camera's fitted reader errs, per element "
        "kind and value, for the referee benchmark",
        description="Read the appearance test set's pictures (made-up boards the reader "
        "was never fitted on) with a game's fitted appearance reader and write, per "
        "element kind and true value, how often it read right, read another value "
        "(which), was unsure or did not show the element, with the confidences it gave; "
        "companion bench referee --readers fitted draws the camera's readings from it.",
    )
    parser.add_argument(
        "--game",
        default="shangrila",
        help="the game (one with a fitted appearance reader; default shangrila)",
    )
    parser.add_argument("--set", default="test", help="the set of pictures (default test)")
    parser.add_argument(
        "--setups",
        type=int,
        help="setups (world, camera, level) to read, "
        f"three pictures each (default {DEFAULT_SETUPS} by game, else "
        f"{FALLBACK_SETUPS})",
    )
    parser.add_argument(
        "--level", action="append", help="only this level (repeatable; default every level)"
    )
    parser.add_argument("--size", default="1280x720", help="picture size (default 1280x720)")
    parser.add_argument(
        "--cache", help="folder of rendered pictures (default ~/.cache/companion/appearance)"
    )
    parser.add_argument(
        "--output",
        help="where to write the rates (default: the file "
        "shipped in the package, vision/fitted/reader-errors-GAME.json)",
    )
    parser.set_defaults(handler=reader_errors_command)
