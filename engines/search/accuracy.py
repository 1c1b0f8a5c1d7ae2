"""Accuracy as Lichess computes it, from win chances (in percent, 0-100).

A move's accuracy (``move_accuracy``) comes from the mover's win chance before it
(``before``: the chance the best move keeps) and after it (``after``: the chance the
played move keeps)::

    103.1668 * exp(-0.04354 * (before - after)) - 3.1669, clipped to 0..100

(100 when ``after`` is not below ``before``). A player's accuracy in a game
(``game_accuracy``) is the mean of two means of their moves' accuracies:

- a mean weighted by how much the game was moving around that move: the standard
  deviation (population) of the mover's win chance over a window of positions, the
  weight clamped to [0.5, 12]; the window is a tenth of the game's moves, at least 2
  and at most 8 positions, and ends on the position after the move (the first moves
  share the first window);
- a harmonic mean (each accuracy counted as at least 1), which a few bad moves pull
  down more than an ordinary mean does.

This follows ``AccuracyPercent.gameAccuracy`` and ``Maths`` in Lichess's source
(lichess-org/lila, ``modules/analyse/src/main/AccuracyPercent.scala`` and
``modules/common/src/main/Maths.scala``), with two differences: the win chance is each
player's chance of first place (a shared first place counts in part), so it also serves
three and four players; and Lichess's one-point "uncertainty bonus" on every imperfect
move is not added.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MIN_WEIGHT = 0.5
MAX_WEIGHT = 12.0
MIN_WINDOW = 2
MAX_WINDOW = 8


def move_accuracy(before: float, after: float) -> float:
    """The accuracy (0-100) of a move taking the mover's win chance from ``before`` to
    ``after`` (both in percent, 0-100)."""
    if after >= before:
        return 100.0
    raw = 103.1668 * math.exp(-0.04354 * (before - after)) - 3.1669
    return max(0.0, min(100.0, raw))


def window_size(moves: int) -> int:
    """Positions in a volatility window for a game of ``moves`` moves."""
    return max(MIN_WINDOW, min(MAX_WINDOW, moves // 10))


def population_sd(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def volatility_weight(series: Sequence[float], move: int, window: int) -> float:
    """The weight of move ``move`` (from position ``move`` to ``move + 1`` of
    ``series``, a player's win chance in percent at every position)."""
    start = max(0, move - window + 2)
    values = series[start : start + window]
    return max(MIN_WEIGHT, min(MAX_WEIGHT, population_sd(values)))


def harmonic_mean(values: Sequence[float]) -> float:
    """Lichess's harmonic mean: each value counted as at least 1."""
    return len(values) / sum(1.0 / max(1.0, v) for v in values)


def weighted_mean(pairs: Sequence[tuple[float, float]]) -> float:
    """Mean of ``(value, weight)`` pairs by their weights."""
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total


def game_accuracy(accuracies: Sequence[float], weights: Sequence[float]) -> float | None:
    """A player's game accuracy from their moves' accuracies and volatility weights;
    None for a player with no judged move."""
    if not accuracies:
        return None
    weighted = weighted_mean(list(zip(accuracies, weights, strict=True)))
    return (weighted + harmonic_mean(accuracies)) / 2.0
