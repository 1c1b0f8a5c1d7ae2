"""The charts of a game's analysis (win chance, loss of each move, strength), as PNG
files: for ``companion analyse --plots``, the app's report and the demo's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engines.registry import title
from engines.search.analysis import JUDGEMENTS, Analysis

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
    import matplotlib  # deferred: loads matplotlib only when charts are drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: with matplotlib

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
    axis.set_title(f"{title(result.game)}: win chance over the game")
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
    axis.set_title(f"{title(result.game)}: loss per move")
    # every player in the legend, bars or none
    from matplotlib.patches import Patch  # deferred: with matplotlib

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
    from matplotlib.ticker import MaxNLocator  # deferred: with matplotlib

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
        axis.set_title(f"{title(result.game)}: which level each player played like")
        _legend_below(axis, len(shown))
        axis.set_ylim(-4 - 2 * len(shown), 100)
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)
