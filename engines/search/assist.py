"""What the app asks of the engine: a hint for the player to move, and the game-end
report of how each player played. Both are pure (same arguments and seed, same
answer; nothing is written) and use the same search as the engine seats
(``engines.search.players.SearchPlayer``) and ``companion analyse``.

``hint(state, level)`` -> ``Hint`` (the move, its text, the mover's win chance after
it, the runners-up). ``strength_report(record, level)`` -> ``StrengthReport`` (per
player: accuracy, good moves, inaccuracies, mistakes, blunders, the engine level they
played like with its range; every player's win chance after each move).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from engines.base import GameState
from engines.record import GameRecord
from engines.search.analysis import Analysis, analyse
from engines.search.evaluate import outcome
from engines.search.mcts import MCTS, SearchConfig, search_parallel
from engines.search.players import DEFAULT_LEVEL, LEVELS
from engines.search.strength import StrengthEstimate

RUNNERS_UP = 3
"""Moves after the best that a hint lists."""


def level_config(level: int, seed: int = 0) -> SearchConfig:
    """The search budget of ``level`` with ``seed``. Raises ValueError for an unknown
    level."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {sorted(LEVELS)}, not {level!r}")
    base = LEVELS[level]
    return SearchConfig(base.iterations, base.seconds, base.exploration, base.rollout_moves, seed)


@dataclass(frozen=True)
class Hint:
    move: Any
    """The suggested move (the game's move value: apply or play it)."""
    text: str
    """The move in the game's notation."""
    win_chance: float
    """The mover's expected result after it, 0-1 (1: a sure win; a shared first place
    counts in part)."""
    runners_up: tuple[tuple[str, float], ...] = ()
    """The next best moves, (notation, win chance), best first."""


def hint(
    state: GameState[Any], level: int = DEFAULT_LEVEL, seed: int = 0, workers: int = 1
) -> Hint:
    """The move the engine of ``level`` would play in ``state`` (left unchanged), with
    its win chance. ``workers`` > 1 searches on that many processes (root parallelism).
    Raises ValueError when the game is over or the level is unknown."""
    config = level_config(level, seed)
    if state.is_over():
        raise ValueError("the game is over: there is no move to suggest")
    result = search_parallel(state, config, workers) if workers > 1 else MCTS(config).search(state)
    fmt = state.rules.format_move
    best = result.stat(result.best)
    chance = best.value if best is not None else result.values[state.to_move]
    others = tuple((fmt(s.move), round(s.value, 4)) for s in result.stats if s.move != result.best)[
        :RUNNERS_UP
    ]
    return Hint(result.best, fmt(result.best), round(chance, 4), others)


@dataclass
class PlayerStrength:
    player: int
    name: str
    moves: int
    """Judged moves (a move that was the only legal one is not judged)."""
    accuracy: float
    """0-100, as Lichess computes it from win-chance losses."""
    good_moves: int
    """Best or good moves."""
    inaccuracies: int
    mistakes: int
    blunders: int
    level: StrengthEstimate | None
    """The engine level they played like, with its range (None: no calibration)."""


@dataclass
class StrengthReport:
    game: str
    players: list[PlayerStrength]
    win_chances: list[list[float]]
    """Per player, their win chance before the first move and after every move (the
    last point is the result when the game is over)."""
    analysis: Analysis = field(repr=False)
    """The full move-by-move analysis behind the report."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["analysis"] = self.analysis.to_json()
        return data


def win_chance_series(analysis: Analysis, final: GameState[Any]) -> list[list[float]]:
    """Per player, the search's win chance at every position of the game: before each
    move (a forced move's position, not searched, repeats the point before it) and,
    for a finished game, its result."""
    n = len(analysis.players)
    points: list[list[float]] = []
    for move in analysis.moves:
        if move.forced and points:
            points.append(points[-1])
        elif move.forced:
            points.append([1.0 / n] * n)
        else:
            points.append(list(move.win_chances))
    if final.is_over():
        points.append(outcome(final))
    return [[round(point[p], 4) for point in points] for p in range(n)]


def strength_report(
    record: GameRecord,
    level: int = DEFAULT_LEVEL,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> StrengthReport:
    """How each player of ``record`` played, judged by the search of ``level``:
    ``companion analyse`` in a form for the game-end screen. ``progress(done, total)``
    as positions finish. Raises ``RecordError`` / ``NotationError`` /
    ``IllegalMoveError`` for a record that does not replay, ValueError for an unknown
    level, ``CalibrationError`` for an unreadable calibration file."""
    analysis = analyse(record, level_config(level, seed), workers=workers, progress=progress)
    final = record.starting_state()
    for text in record.moves:
        final.play_text(text)
    players = []
    for summary in analysis.summary:
        counts = summary.counts
        players.append(
            PlayerStrength(
                summary.player,
                summary.name,
                summary.moves,
                summary.accuracy,
                counts.get("best", 0) + counts.get("good", 0),
                counts.get("inaccuracy", 0),
                counts.get("mistake", 0),
                counts.get("blunder", 0),
                summary.strength,
            )
        )
    return StrengthReport(analysis.game, players, win_chance_series(analysis, final), analysis)
