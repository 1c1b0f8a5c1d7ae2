"""``companion analyse RECORD``: how good was each move, and how well did each player
play (engines.search.analysis), as a table, JSON, and charts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.cli import UsageError
from engines import GameRecord
from engines.search.analysis import ANALYSIS_ITERATIONS, GAME_BUDGETS, JUDGEMENTS, Analysis
from engines.search.players import LEVELS

# Line colours for the charts, by player name (Shangri-La colours, Shendao, ShenShi).
PLAYER_COLOURS = {
    "red": "#c62828",
    "blue": "#1565c0",
    "yellow": "#f9a825",
    "violet": "#6a1b9a",
    "light": "#bca77a",
    "dark": "#3e2723",
    "silver": "#9e9e9e",
    "copper": "#b87333",
    "gold": "#d4af37",
    "black": "#212121",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    from engines.search.analysis import analyse, analysis_config, game_config
    from engines.search.strength import CalibrationError

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


def _who(result: Analysis, player: int, names: Sequence[str] | None) -> str:
    """The player as the legends name them: their name and colour ("Ann (red)"), or the
    colour alone when the record knows no other name."""
    colour = result.players[player]
    name = names[player] if names is not None and player < len(names) else colour
    return colour if name == colour else f"{name} ({colour})"


def _label(result: Analysis, player: int, names: Sequence[str] | None = None) -> str:
    """The player's name, and the level they played like when it is known."""
    summary = result.summary[player]
    who = _who(result, player, names)
    if summary.strength is None or summary.strength.level is None:
        return who
    strength = summary.strength
    span = f"{strength.low}" if strength.low == strength.high else f"{strength.low}-{strength.high}"
    return f"{who}: like level {strength.level} (range {span})"


CHARTS = ("win-chance.png", "loss.png", "strength.png")


def write_plots(
    result: Analysis, folder: Path, first_move: int = 1, names: Sequence[str] | None = None
) -> None:
    """win-chance.png (each player's win chance after each move, ending on the result,
    labelled with the level they played like), loss.png (the loss of every move,
    coloured by player) and strength.png (each player's probability of each level).
    ``first_move``: the game's number of the record's first move (a record that joins
    a game late), so the charts count moves as the game does. ``names``: the players'
    names by seat, shown in the legends with their colours (the record's colours alone
    without them)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    players = result.players
    colour: dict[str, Any] = {n: PLAYER_COLOURS.get(n) for n in players}
    played_before = first_move - 1
    xs = [played_before + k for k in range(len(result.chances))]
    figure, axis = plt.subplots(figsize=(9, 4), dpi=110)
    for p, name in enumerate(players):
        ys = [100 * chances[p] for chances in result.chances]
        axis.plot(xs, ys, label=_label(result, p, names), color=colour[name], linewidth=1.8)
        if ys:
            axis.plot(xs[-1:], ys[-1:], "o", color=colour[name])
    axis.set_xlabel("moves played (the last point: the result)")
    axis.set_ylabel("win chance (%)")
    axis.set_ylim(0, 100)
    _whole_moves(axis, xs)
    axis.set_title(f"{result.game}: win chance over the game")
    axis.grid(alpha=0.3)
    _legend_below(axis, len(players))
    figure.savefig(folder / "win-chance.png", bbox_inches="tight")
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(9, 3.5), dpi=110)
    for p, name in enumerate(players):
        mine = [m for m in result.moves if m.player == p and not m.forced]
        axis.bar(
            [first_move + m.index for m in mine],
            [100 * m.loss for m in mine],
            width=0.9,
            color=colour[name],
            label=name,
        )
    for name, limit in JUDGEMENTS[1:4]:
        axis.axhline(100 * limit, color="#888888", linewidth=0.6, linestyle="--")
        axis.text(first_move - 0.4, 100 * limit + 0.5, name, fontsize=7, color="#666666")
    axis.set_xlabel("move")
    axis.set_ylabel("loss (win-chance points)")
    _whole_moves(axis, [first_move + m.index for m in result.moves])
    axis.set_title(f"{result.game}: loss per move")
    from matplotlib.patches import Patch  # every player in the legend, bars or none

    shown = [_who(result, p, names) for p in range(len(players))]
    handles = [Patch(color=colour[n], label=w) for n, w in zip(players, shown, strict=True)]
    axis.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18),
        ncol=len(players) if max(map(len, shown), default=0) <= 16 else min(2, len(players)),
        frameon=False,
        fontsize=9,
    )
    figure.savefig(folder / "loss.png", bbox_inches="tight")
    plt.close(figure)
    _strength_chart(result, folder / "strength.png", colour, plt, names)


def _whole_moves(axis: Any, xs: list[int]) -> None:
    """Ticks on whole moves only, and the axis from the first x to the last."""
    from matplotlib.ticker import MaxNLocator

    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    if xs:
        axis.set_xlim(min(xs) - 0.5, max(xs) + 0.5)


def _legend_below(axis: Any, entries: int) -> None:
    """The legend under the chart, where it hides no line and is never cut: one row
    for short names, two columns for long labels."""
    labels = axis.get_legend_handles_labels()[1]
    columns = entries if max((len(t) for t in labels), default=0) <= 16 else min(2, entries)
    axis.legend(
        loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=columns, frameon=False, fontsize=9
    )


def _strength_chart(
    result: Analysis,
    path: Path,
    colour: dict[str, Any],
    plt: Any,
    names: Sequence[str] | None = None,
) -> None:
    """Bars of each player's probability per level, the estimated range shaded."""
    figure, axis = plt.subplots(figsize=(9, 3.5), dpi=110)
    shown = [s for s in result.summary if s.strength is not None and s.strength.level is not None]
    if not shown:
        axis.text(
            0.5,
            0.5,
            "no strength estimate (no model, or too few moves)",
            ha="center",
            va="center",
            transform=axis.transAxes,
        )
        axis.set_axis_off()
    width = 0.8 / max(1, len(shown))
    for k, summary in enumerate(shown):
        strength = summary.strength
        assert strength is not None
        levels = sorted(strength.posterior)
        offset = (k - (len(shown) - 1) / 2) * width
        axis.bar(
            [lv + offset for lv in levels],
            [100 * strength.posterior[lv] for lv in levels],
            width=width,
            color=colour[summary.name],
            label=_label(result, summary.player, names),
        )
        axis.hlines(
            -3 - 2 * k,
            strength.low - 0.4,
            strength.high + 0.4,
            color=colour[summary.name],
            linewidth=3,
        )
    if shown:
        axis.set_xticks(sorted(shown[0].strength.posterior))  # type: ignore[union-attr]
        axis.set_xlabel("engine level (0: random play); lines below: each player's range")
        axis.set_ylabel("probability (%)")
        axis.set_title(f"{result.game}: which level each player played like")
        _legend_below(axis, len(shown))
        axis.set_ylim(-4 - 2 * len(shown), 100)
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)
