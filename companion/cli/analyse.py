"""``companion analyse RECORD``: how good was each move, and how well did each player
play (engines.search.analysis), as a table, JSON, and charts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from companion.charts import CHARTS, write_plots
from companion.cli import Subparsers, UsageError
from engines import GameRecord
from engines.search.analysis import (
    ANALYSIS_ITERATIONS,
    GAME_BUDGETS,
    JUDGEMENTS,
    Analysis,
    analyse,
    analysis_config,
    game_config,
)
from engines.search.players import LEVELS
from engines.search.strength import CalibrationError

ORDER = 40
"""Where the group is listed in ``companion --help``."""


def register(sub: Subparsers) -> None:
    parser = sub.add_parser(
        "analyse",
        help="judge every move of a game record and each player's play",
        description="Search every position of a game record and report, for each move, "
        "the win chance of the best move and of the move played, the loss and a judgement "
        "(best, good, inaccuracy, mistake, blunder); then each player's accuracy and the "
        "engine level they played like, with its range. Thresholds: docs/players.md.",
    )
    parser.add_argument("record", help="the game record (JSON)")
    parser.add_argument(
        "--level",
        type=int,
        default=None,
        choices=sorted(LEVELS),
        help=f"search with the budget of this engine level instead of the "
        f"analysis' own ({ANALYSIS_ITERATIONS} iterations a position, "
        f"{GAME_BUDGETS['shenshi'][0]} in ShenShi: the budget the strength model was "
        f"fitted with)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="processes to analyse on (default 2: both cores)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument(
        "--plots",
        metavar="DIR",
        type=Path,
        help="write win-chance.png, loss.png and strength.png to DIR",
    )
    parser.set_defaults(handler=analyse_command)


class ProgressBar:
    """A progress line on stderr with the time so far."""

    def __init__(self) -> None:
        self.began = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(1, total)
        sys.stderr.write(
            f"\ranalysing [{'#' * filled}{'.' * (width - filled)}] "
            f"{done}/{total} positions, {time.perf_counter() - self.began:.0f} s"
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def analyse_command(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    record = GameRecord.load(args.record)
    if args.level is None:
        config = game_config(record.game, seed=args.seed)
    else:
        base = LEVELS[args.level]
        config = analysis_config(
            base.iterations or ANALYSIS_ITERATIONS, base.rollout_moves, args.seed
        )
    if args.plots is not None:  # a folder that cannot be made is said before the work
        args.plots.mkdir(parents=True, exist_ok=True)
    try:
        result = analyse(record, config, workers=args.workers, progress=ProgressBar())
    except CalibrationError as error:
        raise UsageError(str(error)) from None
    if args.plots is not None:
        write_plots(result, args.plots)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(table(result))
    if args.plots is not None:
        names = ", ".join(str(args.plots / name) for name in CHARTS)
        print(f"\ncharts written to {names}")
    return 0


def table(result: Analysis) -> str:
    """The moves and the players' summary, as text."""
    names = result.players
    lines = [
        f"{'#':>4}  {'player':<8} {'played':<26} {'best':<26} {'win%':>5} {'loss':>5}  judgement"
    ]
    for m in result.moves:
        lines.append(
            f"{m.index + 1:>4}  {names[m.player]:<8} {m.played:<26} "
            f"{m.best:<26} {100 * m.played_value:>5.1f} {100 * m.loss:>5.1f}  "
            f"{m.judgement}"
        )
    lines.append("")
    head = "player    moves  accuracy  mean loss  " + "  ".join(j for j, _ in JUDGEMENTS)
    lines.append(head)
    for s in result.summary:
        counts = "  ".join(f"{s.counts.get(j, 0):>{len(j)}}" for j, _ in JUDGEMENTS)
        loss = f"{100 * s.mean_loss:.1f}%" if s.moves else ""
        lines.append(f"{s.name:<8} {s.moves:>6}  {s.accuracy_text():>8}  {loss:>9}  {counts}")
    lines += strength_lines(result)
    lines.append(
        f"\n(analysed in {result.seconds:.1f} s; win% is the played move's win "
        "chance, loss the drop from the best move, in points)"
    )
    return "\n".join(lines)


def strength_lines(result: Analysis) -> list[str]:
    """Each player's estimated level, or why there is none."""
    estimates = [(s.name, s.strength) for s in result.summary if s.strength is not None]
    if not estimates:
        return ["", "(no strength estimate: no model for this game and player count)"]
    coverage = round(100 * estimates[0][1].coverage)
    lines = [
        "",
        f"strength on the engine level scale (level 0 is random play; the range "
        f"holds the level {coverage} % of the time on games the model never saw):",
    ]
    for name, strength in estimates:
        note = f"  ({strength.note})" if strength.note and strength.level is not None else ""
        lines.append(f"{name:<8} {strength.describe()}{note}")
    return lines
