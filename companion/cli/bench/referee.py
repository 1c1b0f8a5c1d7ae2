"""``companion bench referee``: the referee on simulated tables, against the truth
(measured by ``companion.simulator.evaluate``)."""

from __future__ import annotations

import argparse
import json
import platform
from dataclasses import replace
from typing import Any

from companion.cli import Subparsers, UsageError
from companion.referee.core import RefereeConfig
from companion.simulator import TableConfig
from companion.simulator.config import VIEWS
from companion.simulator.evaluate import (
    BENCH_TABLE,
    CHANCES,
    CLOCKS,
    PLAYER_COUNTS,
    READERS,
    report,
    run,
)
from vision.reader_errors import ReaderErrorsError, load_errors

ORDER = 40
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    parser = bench_sub.add_parser(
        "referee",
        help="the referee on simulated tables: recognition, false alarms, "
        "illegal moves caught, questions, verdict time",
        description="Play random legal games on a simulated table (pieces moved one at a "
        "time, readings that flicker, hands, pauses, changes of mind, illegal attempts "
        "and their repair) into a fresh referee per game, and compare every verdict with "
        "the truth. Runs for minutes: progress goes to stderr.",
    )
    parser.add_argument(
        "--games", type=int, default=200, help="games per flicker rate (default 200)"
    )
    parser.add_argument(
        "--flicker",
        type=float,
        nargs="+",
        default=[0.01, 0.05],
        metavar="RATE",
        help="share of readings wrong for one frame (default 0.01 0.05)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--game",
        default="shangrila",
        choices=sorted(PLAYER_COUNTS),
        help="the game (default shangrila)",
    )
    parser.add_argument(
        "--sources",
        nargs="+",
        default=["camera"],
        choices=["camera", "sensors"],
        help="what reads the table (default: camera)",
    )
    parser.add_argument(
        "--stable-frames",
        type=int,
        default=RefereeConfig.stable_frames,
        help="the referee's debouncing: frames in a row an element must "
        f"read the same (default {RefereeConfig.stable_frames})",
    )
    parser.add_argument(
        "--clock",
        default="wall",
        choices=sorted(CLOCKS),
        help="how verdict times are measured: wall (default) or cpu, the "
        "processor time of this process alone (a shared machine's waiting "
        "for a core left out)",
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="keep what the table hides part by part (Shangri-La: village "
        "by village) instead of as whole games (RefereeConfig.parts)",
    )
    parser.add_argument(
        "--unseen",
        action="store_true",
        help="write a move the table cannot show (a Shangri-La recruit seen from "
        "above) as the likeliest and keep it open instead of asking "
        "(RefereeConfig.unseen)",
    )
    parser.add_argument(
        "--gap",
        type=float,
        default=0.0,
        metavar="RATE",
        help="share of moves after which the table goes unseen for a few "
        "moves (a cable pulled, a paused camera; default 0)",
    )
    parser.add_argument(
        "--gap-moves",
        type=int,
        nargs=2,
        default=[2, 2],
        metavar=("LOW", "HIGH"),
        help="how many moves a gap lasts (default 2 2)",
    )
    parser.add_argument(
        "--gap-hidden",
        action="store_true",
        help="during a gap the readers see a hand over the whole table rather than nothing",
    )
    parser.add_argument(
        "--unsure",
        type=float,
        metavar="RATE",
        help="share of right readings the camera marks unsure (default: "
        "the flicker rate); with --flicker-sure, the error rates a reader "
        "was measured at (companion bench appearance)",
    )
    parser.add_argument(
        "--flicker-sure",
        type=float,
        metavar="SHARE",
        help=f"share of wrong readings given with a sure confidence "
        f"(default {BENCH_TABLE.flicker_sure})",
    )
    parser.add_argument(
        "--readers",
        default="flicker",
        choices=READERS,
        help="how the camera reads: flicker (default; the flat rates of "
        "--flicker, --unsure and --flicker-sure) or fitted (each element "
        "read as often right, wrong, unsure or not shown as the game's "
        "fitted reader was measured to be, companion bench "
        "reader-errors; --flicker is then not used)",
    )
    parser.add_argument(
        "--chances",
        default="without",
        choices=CHANCES,
        help="with --readers fitted: whether each camera reading carries "
        "the chance of every value (without: the default; with; both: "
        "one run each)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rules option for every game (a JSON value: "
        "--option orange_lifts=1 --option lift_put_down="
        "'\"also-orange-square\"' make ShenShi's turns fewer and its "
        "games quicker to referee); may be repeated",
    )
    parser.add_argument(
        "--view",
        default="above",
        choices=VIEWS,
        help="where the camera looks from: above (default; no stack "
        "heights) or 55 degrees, reading the heights of the stacks "
        "whose side shows, as often and as well as measured "
        "(TableConfig.side_heights)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=referee_command)


def referee_command(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if any(not 0.0 <= f <= 0.5 for f in args.flicker):
        raise UsageError("--flicker rates must be within 0 and 0.5")
    if args.game not in PLAYER_COUNTS:
        raise UsageError(
            f"no table simulator for {args.game!r} yet (available: {', '.join(PLAYER_COUNTS)})"
        )
    if args.stable_frames < 1:
        raise UsageError("--stable-frames must be at least 1")
    if not 0.0 <= args.gap <= 1.0:
        raise UsageError("--gap must be within 0 and 1")
    if not 2 <= args.gap_moves[0] <= args.gap_moves[1]:
        raise UsageError("--gap-moves must be LOW HIGH with 2 <= LOW <= HIGH")
    for name in ("unsure", "flicker_sure"):
        value = getattr(args, name, None)
        if value is not None and not 0.0 <= value <= 1.0:
            raise UsageError(f"--{name.replace('_', '-')} must be within 0 and 1")
    table = replace(
        BENCH_TABLE,
        sources=tuple(args.sources),
        gap=args.gap,
        view=getattr(args, "view", "above"),
        gap_moves=tuple(args.gap_moves),
        gap_hidden=args.gap_hidden,
    )
    if getattr(args, "flicker_sure", None) is not None:
        table = replace(table, flicker_sure=args.flicker_sure)
    referee = RefereeConfig(
        stable_frames=args.stable_frames,
        parts=getattr(args, "parts", False),
        unseen=getattr(args, "unseen", False),
    )
    options = _options(getattr(args, "option", []))
    readers = getattr(args, "readers", "flicker")
    if readers == "fitted":
        chances = {"without": [False], "with": [True], "both": [False, True]}[
            getattr(args, "chances", "without")
        ]
        _check_fitted(args.game, table)
        runs = [
            run(
                args.game,
                args.games,
                0.0,
                args.seed,
                replace(table, camera_errors="fitted", camera_chances=c),
                referee,
                progress=True,
                clock=args.clock,
                options=options,
            )
            for c in chances
        ]
    else:
        runs = [
            run(
                args.game,
                args.games,
                f,
                args.seed,
                table,
                referee,
                progress=True,
                clock=args.clock,
                unsure=getattr(args, "unsure", None),
                options=options,
            )
            for f in args.flicker
        ]
    shown = replace(table, camera_errors="fitted") if readers == "fitted" else table
    if args.json:
        print(
            json.dumps(
                {
                    "game": args.game,
                    "seed": args.seed,
                    "options": options,
                    "python": platform.python_version(),
                    "table": shown.to_json(),
                    "referee": referee.to_json(),
                    "clock": args.clock,
                    "runs": runs,
                }
            )
        )
    else:
        print(
            report(
                args.game,
                args.seed,
                shown,
                referee,
                runs,
                args.clock,
                getattr(args, "unsure", None),
            )
        )
    return 0


def _options(texts: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` s as a dict. Raises ``UsageError``."""
    options: dict[str, Any] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise UsageError(f"--option wants NAME=VALUE, not {text!r}")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value  # a plain word
    return options


def _check_fitted(game: str, table: TableConfig) -> None:
    """Raise ``UsageError`` unless the camera can read ``game`` by measured errors."""

    if "camera" not in table.sources:
        raise UsageError("--readers fitted is the camera's: add --sources camera")
    try:
        load_errors(game)
    except ReaderErrorsError as error:
        raise UsageError(str(error)) from None
