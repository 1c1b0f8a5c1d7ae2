"""Analysis of a game record: how good was each move, and how well did each player play?

For every position of the game the search (at a level) gives the expected result of the
best move for the player to move — their win chance, a number in [0, 1] (a shared win
counts in part) — and of the move played. The **loss** of a move is the best move's win
chance minus the played move's, never below 0. Judgements (``JUDGEMENTS``):

=============  ==================
judgement      loss (win chance)
=============  ==================
best           the best move, or a loss up to 0.02
good           up to 0.05
inaccuracy     up to 0.10
mistake        up to 0.20
blunder        more than 0.20
=============  ==================

A player's **accuracy** follows Lichess: each move scores
``103.1668 exp(-0.04354 x) - 3.1669`` (clamped to 0-100) where ``x`` is the loss in
percentage points, and the accuracy is the mean over the player's moves. A pass that was
the only legal move is not judged.

Each player's **strength** on the engine level scale, with a range, comes from their
judged losses and the calibration of ``engines.search.strength``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engines.base import GameState
from engines.record import GameRecord
from engines.search.mcts import MCTS, SearchConfig
from engines.search.strength import (
    CALIBRATION_PATH,
    StrengthEstimate,
    estimate,
    model_for,
    move_accuracy,
)

JUDGEMENTS: tuple[tuple[str, float], ...] = (
    ("best", 0.02), ("good", 0.05), ("inaccuracy", 0.10), ("mistake", 0.20),
    ("blunder", math.inf),
)
"""(judgement, largest loss it covers), in order."""

MIN_VISITS = 20
"""A played move explored less than this in the position's search gets a search of its
own (``PLAYED_SHARE`` of the budget) for its value."""
PLAYED_SHARE = 0.3


def judge(loss: float) -> str:
    """The judgement of a move losing ``loss`` win chance (``JUDGEMENTS``)."""
    for name, limit in JUDGEMENTS:
        if loss <= limit:
            return name
    return JUDGEMENTS[-1][0]


@dataclass
class MoveReport:
    index: int
    player: int
    played: str
    best: str
    best_value: float
    played_value: float
    loss: float
    judgement: str
    forced: bool
    """The only legal move (not judged, not counted in accuracy)."""
    win_chances: list[float]
    """Every player's expected result before the move, from the search."""


@dataclass
class PlayerReport:
    player: int
    name: str
    moves: int
    accuracy: float
    mean_loss: float
    counts: dict[str, int] = field(default_factory=dict)
    strength: StrengthEstimate | None = None
    """The level this player played like; None without a calibration for the game."""


@dataclass
class Analysis:
    game: str
    players: list[str]
    level_config: dict[str, Any]
    moves: list[MoveReport]
    summary: list[PlayerReport]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _analyse_position(args: tuple[GameState[Any], Any, SearchConfig, bool]) -> tuple[
        str, str, float, float, list[float]]:
    """(played text, best text, best value, played value, win chances) at one position."""
    state, move, config, forced = args
    fmt = state.rules.format_move
    me = state.to_move
    if forced:
        return fmt(move), fmt(move), 0.0, 0.0, [0.0] * state.rules.n_players
    result = MCTS(config).search(state)
    best = result.stats[0] if result.stats else None
    best_value = best.value if best is not None else 0.0
    chances = result.values
    stat = result.stat(move)
    if stat is not None and stat.visits >= MIN_VISITS:
        played_value = stat.value
    else:
        after = state.copy()
        after.apply(move)
        if after.is_over():
            from engines.search.evaluate import outcome
            played_value = outcome(after)[me]
        else:
            budget = max(50, int((config.iterations or 1000) * PLAYED_SHARE))
            small = SearchConfig(budget, None, config.exploration, config.rollout_moves,
                                 config.seed + 1)
            played_value = MCTS(small).search(after).values[me]
    best_text = fmt(best.move) if best is not None else fmt(move)
    if best is not None and best.move == move:
        played_value = best_value
    return fmt(move), best_text, best_value, played_value, chances


def analyse(record: GameRecord, config: SearchConfig, workers: int = 1,
            progress: Callable[[int, int], None] | None = None,
            calibration: Path | None = CALIBRATION_PATH) -> Analysis:
    """Analyse every move of ``record`` with a search of ``config``'s budget.

    ``workers`` > 1 analyses positions on that many processes. ``progress(done, total)``
    is called as positions finish. Each player's strength is estimated from the
    ``calibration`` file (None: no estimate). Raises ``RecordError`` / ``NotationError``
    / ``IllegalMoveError`` for a record that does not replay, ``CalibrationError`` for
    an unreadable calibration.
    """
    import time

    start = time.perf_counter()
    state = record.starting_state()
    rules = state.rules
    jobs = []
    for index, text in enumerate(record.moves):
        move = rules.parse_move(text)
        forced = len(state.legal_moves()) == 1 if not getattr(
            state, "wide_branching", False) else False
        position_config = SearchConfig(config.iterations, config.seconds, config.exploration,
                                       config.rollout_moves, config.seed + index)
        jobs.append((state.copy(), move, position_config, forced))
        state.play(move)
    results: list[tuple[str, str, float, float, list[float]]] = []
    total = len(jobs)
    if workers > 1 and total > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for done, item in enumerate(pool.map(_analyse_position, jobs, chunksize=4), 1):
                results.append(item)
                if progress is not None:
                    progress(done, total)
    else:
        for done, job in enumerate(jobs, 1):
            results.append(_analyse_position(job))
            if progress is not None:
                progress(done, total)
    reports = []
    for index, ((played, best, best_value, played_value, chances), job) in enumerate(
            zip(results, jobs, strict=True)):
        forced = job[3]
        loss = 0.0 if forced else max(0.0, best_value - played_value)
        reports.append(MoveReport(index, job[0].to_move, played, best, round(best_value, 4),
                                  round(played_value, 4), round(loss, 4),
                                  "forced" if forced else judge(loss), forced,
                                  [round(c, 4) for c in chances]))
    model = model_for(rules.game, calibration) if calibration is not None else None
    summary = []
    for p, name in enumerate(rules.players):
        mine = [r for r in reports if r.player == p and not r.forced]
        counts = {j: sum(1 for r in mine if r.judgement == j) for j, _ in JUDGEMENTS}
        accuracy = (sum(move_accuracy(r.loss) for r in mine) / len(mine)) if mine else 100.0
        mean_loss = (sum(r.loss for r in mine) / len(mine)) if mine else 0.0
        # no judged move, no estimate (the prior alone would read as a level)
        strength = (estimate(model, [r.loss for r in mine], config.iterations)
                    if model is not None and mine else None)
        summary.append(PlayerReport(p, name, len(mine), round(accuracy, 1),
                                    round(mean_loss, 4), counts, strength))
    config_json = {"iterations": config.iterations, "seconds": config.seconds,
                   "rollout_moves": config.rollout_moves, "seed": config.seed}
    return Analysis(rules.game, list(rules.players), config_json, reports, summary,
                    round(time.perf_counter() - start, 2))
