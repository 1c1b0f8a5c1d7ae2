"""``companion analyse RECORD``: how good was each move, and how well did each player
play (engines.search.analysis), as a table, JSON, and charts."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion.cli import UsageError
from engines import GameRecord
from engines.search.analysis import JUDGEMENTS, Analysis
from engines.search.players import DEFAULT_LEVEL, LEVELS

# Line colours for the charts, by player name (Shangri-La colours, Shendao, ShenShi).
PLAYER_COLOURS = {
    "red": "#c62828", "blue": "#1565c0", "yellow": "#f9a825", "violet": "#6a1b9a",
    "light": "#bca77a", "dark": "#3e2723",
    "silver": "#9e9e9e", "copper": "#b87333", "gold": "#d4af37", "black": "#212121",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "analyse", help="judge every move of a game record and each player's play",
        description="Search every position of a game record and report, for each move, "
        "the win chance of the best move and of the move played, the loss and a judgement "
        "(best, good, inaccuracy, mistake, blunder); then each player's accuracy. "
        "Thresholds: docs/players.md.")
    parser.add_argument("record", help="the game record (JSON)")
    parser.add_argument("--level", type=int, default=DEFAULT_LEVEL,
                        choices=sorted(LEVELS),
                        help=f"search level (default {DEFAULT_LEVEL})")
    parser.add_argument("--workers", type=int, default=2,
                        help="processes to analyse on (default 2: both cores)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument("--plots", metavar="DIR", type=Path,
                        help="write win-chance.png and loss.png to DIR")
    parser.set_defaults(handler=analyse_command)


def _bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\ranalysing [{'#' * filled}{'.' * (width - filled)}] "
                     f"{done}/{total} positions")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def analyse_command(args: argparse.Namespace) -> int:
    from engines.search.analysis import analyse
    from engines.search.mcts import SearchConfig

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    record = GameRecord.load(args.record)
    base = LEVELS[args.level]
    config = SearchConfig(base.iterations, base.seconds, base.exploration,
                          base.rollout_moves, args.seed)
    result = analyse(record, config, workers=args.workers, progress=_bar)
    if args.plots is not None:
        write_plots(result, args.plots)
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(table(result))
    if args.plots is not None:
        print(f"\ncharts written to {args.plots / 'win-chance.png'} and "
              f"{args.plots / 'loss.png'}")
    return 0


def table(result: Analysis) -> str:
    """The moves and the players' summary, as text."""
    names = result.players
    lines = [f"{'#':>4}  {'player':<8} {'played':<26} {'best':<26} {'win%':>5} "
             f"{'loss':>5}  judgement"]
    for m in result.moves:
        lines.append(f"{m.index + 1:>4}  {names[m.player]:<8} {m.played:<26} "
                     f"{m.best:<26} {100 * m.played_value:>5.1f} {100 * m.loss:>5.1f}  "
                     f"{m.judgement}")
    lines.append("")
    head = "player    moves  accuracy  mean loss  " + "  ".join(j for j, _ in JUDGEMENTS)
    lines.append(head)
    for s in result.summary:
        counts = "  ".join(f"{s.counts.get(j, 0):>{len(j)}}" for j, _ in JUDGEMENTS)
        lines.append(f"{s.name:<8} {s.moves:>6}  {s.accuracy:>7.1f}%  "
                     f"{100 * s.mean_loss:>8.1f}%  {counts}")
    lines.append(f"\n(analysed in {result.seconds:.1f} s; win% is the played move's win "
                 "chance, loss the drop from the best move, in points)")
    return "\n".join(lines)


def write_plots(result: Analysis, folder: Path) -> None:
    """win-chance.png (each player's win chance over the game) and loss.png (the loss
    of every move, coloured by player)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    names = result.players
    colour: dict[str, Any] = {n: PLAYER_COLOURS.get(n) for n in names}
    xs = [m.index + 1 for m in result.moves if not m.forced]
    figure, axis = plt.subplots(figsize=(9, 4), dpi=110)
    for p, name in enumerate(names):
        ys = [100 * m.win_chances[p] for m in result.moves if not m.forced]
        axis.plot(xs, ys, label=name, color=colour[name], linewidth=1.8)
    axis.set_xlabel("move")
    axis.set_ylabel("win chance (%)")
    axis.set_ylim(0, 100)
    axis.set_title(f"{result.game}: win chance over the game")
    axis.grid(alpha=0.3)
    axis.legend(loc="upper left", ncol=len(names))
    figure.tight_layout()
    figure.savefig(folder / "win-chance.png")
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(9, 3.5), dpi=110)
    for p, name in enumerate(names):
        mine = [m for m in result.moves if m.player == p and not m.forced]
        axis.bar([m.index + 1 for m in mine], [100 * m.loss for m in mine], width=0.9,
                 color=colour[name], label=name)
    for name, limit in JUDGEMENTS[1:4]:
        axis.axhline(100 * limit, color="#888888", linewidth=0.6, linestyle="--")
        axis.text(0.5, 100 * limit + 0.5, name, fontsize=7, color="#666666")
    axis.set_xlabel("move")
    axis.set_ylabel("loss (win-chance points)")
    axis.set_title(f"{result.game}: loss per move")
    axis.legend(loc="upper left", ncol=len(names))
    figure.tight_layout()
    figure.savefig(folder / "loss.png")
    plt.close(figure)
