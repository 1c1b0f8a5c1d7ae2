"""Analysis of a game record: how good was each move, and how well did each player play?

For every position of the game the search gives each player's **win chance**: their
chance of first place (a shared first place counts in part), a number in [0, 1]; with
four players an even position is about 0.25. For the player to move it gives the win
chance the best move keeps and the one the played move keeps. The **loss** of a move
is the first minus the second, never below 0. Judgements (``JUDGEMENTS``):

=============  ==================
judgement      loss (win chance)
=============  ==================
best           the analysis' best move, or a loss up to 0.02
good           up to 0.05
inaccuracy     up to 0.10
mistake        up to 0.20
blunder        more than 0.20
=============  ==================

A move that was the only legal one is *forced*: not judged, not counted.

A move's **accuracy** and a player's **game accuracy** follow Lichess
(``engines.search.accuracy``): each move scores from the win chance before and after
it, and the game accuracy is the mean of a volatility-weighted mean and a harmonic mean
of the player's move scores. A player with no judged move has no accuracy (NaN in
``PlayerReport``, null in JSON, "no moves" in words).

Each judged move also gets its **edge** (``engines.search.edge``): how it compares, by
the game's static evaluation, with the turns random play would have drawn there.

Each player's **strength** on the engine level scale, with a range, comes from their
judged moves and the fitted model of ``engines.search.strength``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from engines.base import GameState
from engines.record import GameRecord
from engines.search.accuracy import game_accuracy, move_accuracy, volatility_weight, window_size
from engines.search.edge import move_edge
from engines.search.evaluate import outcome
from engines.search.mcts import MCTS, SearchConfig
from engines.search.strength import (
    MODEL_PATH,
    Evidence,
    StrengthEstimate,
    StrengthModel,
    estimate_evidence,
    model_for,
    table_loss,
)

JUDGEMENTS: tuple[tuple[str, float], ...] = (
    ("best", 0.02),
    ("good", 0.05),
    ("inaccuracy", 0.10),
    ("mistake", 0.20),
    ("blunder", math.inf),
)
"""(judgement, largest loss it covers), in order."""

ANALYSIS_ITERATIONS = 300
ANALYSIS_ROLLOUT = 20
"""The analysis' default budget: iterations a position, playout length (the budget of
engine level 3). The strength model is fitted on analyses of this budget."""
GAME_BUDGETS: dict[str, tuple[int, int]] = {"shenshi": (100, 10)}
"""Games analysed at another budget by default (iterations a position, playout length):
a ShenShi playout move costs about a millisecond, so ShenShi is analysed at the budget
of engine level 2, the one the tablet's report uses; its strength model is fitted on
analyses of that budget."""

MIN_VISITS = 20
"""A played move explored less than this in the position's search gets a search of its
own (``PLAYED_SHARE`` of the budget) for its value."""
PLAYED_SHARE = 0.3


def analysis_config(
    iterations: int = ANALYSIS_ITERATIONS,
    rollout_moves: int | None = ANALYSIS_ROLLOUT,
    seed: int = 0,
) -> SearchConfig:
    """The search budget of an analysis (default: the one the strength model knows)."""
    return SearchConfig(iterations=iterations, rollout_moves=rollout_moves, seed=seed)


def analysis_budget(game: str) -> tuple[int, int]:
    """(iterations a position, playout length): ``game``'s default analysis budget, the
    one its strength model is fitted with."""
    return GAME_BUDGETS.get(game, (ANALYSIS_ITERATIONS, ANALYSIS_ROLLOUT))


def game_config(game: str, seed: int = 0) -> SearchConfig:
    """The default analysis of ``game`` (``analysis_budget``)."""
    iterations, rollout = analysis_budget(game)
    return analysis_config(iterations, rollout, seed)


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
    accuracy: float | None
    """The move's accuracy, 0-100 (None: forced)."""
    judgement: str
    forced: bool
    """The only legal move (not judged, not counted in accuracy)."""
    win_chances: list[float]
    """Every player's win chance before the move (a forced move's position is not
    searched: the point before it, or an even share at the start)."""
    edge: float | None = None
    """The move's edge (``engines.search.edge``: the share of the turns random play
    draws there that the static evaluation likes less); None when forced, or in an
    analysis kept from before edges were found."""


@dataclass
class PlayerReport:
    player: int
    name: str
    moves: int
    """Judged moves."""
    accuracy: float
    """Game accuracy, 0-100; NaN with no judged move (``accuracy_text``: "no moves")."""
    mean_loss: float
    """Mean loss of the judged moves (NaN with none)."""
    best_share: float
    """Share of judged moves that were the analysis' best move (NaN with none)."""
    counts: dict[str, int] = field(default_factory=dict)
    strength: StrengthEstimate | None = None
    """The level this player played like; None without a model for the game."""

    def accuracy_text(self) -> str:
        """``87.5%``, or ``no moves``."""
        return "no moves" if not self.moves else f"{self.accuracy:.1f}%"


@dataclass
class Analysis:
    game: str
    players: list[str]
    level_config: dict[str, Any]
    moves: list[MoveReport]
    summary: list[PlayerReport]
    chances: list[list[float]]
    """Every player's win chance at each position: before each move, and at the end
    (a finished game's result, else the last point again)."""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Everything as JSON values (a figure with no move behind it is null)."""
        data = asdict(self)
        for row in data["summary"]:
            for key in ("accuracy", "mean_loss", "best_share"):
                if math.isnan(row[key]):
                    row[key] = None
        return data


PositionResult = tuple[str, str, float, float, list[float] | None, float | None]
"""(played text, best text, best value, played value, win chances, edge) at one
position; the last two None when the move was forced."""


def _analyse_position(
    args: tuple[GameState[Any], Any, SearchConfig, bool, int],
) -> PositionResult:
    """The result (``PositionResult``) at the position of move ``index``."""
    state, move, config, forced, index = args
    fmt = state.rules.format_move
    me = state.to_move
    if forced:
        return fmt(move), fmt(move), 0.0, 0.0, None, None
    result = MCTS(config).search(state)
    best = result.stats[0] if result.stats else None
    best_value = best.value if best is not None else 0.0
    stat = result.stat(move)
    if best is not None and best.move == move:
        played_value = best_value
    elif stat is not None and stat.visits >= MIN_VISITS:
        played_value = stat.value
    else:
        after = state.copy()
        after.apply(move)
        if after.is_over():
            played_value = outcome(after)[me]
        else:
            budget = max(50, int((config.iterations or 1000) * PLAYED_SHARE))
            small = SearchConfig(
                budget, None, config.exploration, config.rollout_moves, config.seed + 1
            )
            played_value = MCTS(small).search(after).values[me]
    best_text = fmt(best.move) if best is not None else fmt(move)
    edge = round(move_edge(state, move, index), 5)
    return fmt(move), best_text, best_value, played_value, result.values, edge


def _is_forced(state: GameState[Any]) -> bool:
    if getattr(state, "wide_branching", False):
        return False  # too many moves to list; a lone move there is rare
    return len(state.legal_moves()) == 1


@dataclass(frozen=True)
class PositionJob:
    """One position to analyse: the state before the move, the move, the search it
    gets (its seed is the analysis' seed plus ``index``, so a position's result does not
    depend on which other positions are analysed, nor when), whether it was forced."""

    index: int
    state: GameState[Any]
    move: Any
    config: SearchConfig
    forced: bool

    def run(self) -> PositionResult:
        return _analyse_position((self.state, self.move, self.config, self.forced, self.index))


def position_job(state: GameState[Any], move: Any, index: int, config: SearchConfig) -> PositionJob:
    """The job of move ``index`` (from 0), ``move`` played in ``state`` (copied)."""
    position_config = SearchConfig(
        config.iterations,
        config.seconds,
        config.exploration,
        config.rollout_moves,
        config.seed + index,
    )
    return PositionJob(index, state.copy(), move, position_config, _is_forced(state))


def _run_job(job: PositionJob) -> PositionResult:
    return job.run()


def analyse(
    record: GameRecord,
    config: SearchConfig | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    calibration: Path | None = MODEL_PATH,
) -> Analysis:
    """Analyse every move of ``record`` with a search of ``config``'s budget (default
    the game's own, ``game_config``).

    ``workers`` > 1 analyses positions on that many processes. ``progress(done, total)``
    is called as positions finish. Each player's strength is estimated from the model
    file ``calibration`` (None: no estimate). The same record and config give the same
    analysis, whatever ``workers``, and the same as ``engines.search.live`` analysing
    the moves as they come. Raises ``RecordError`` / ``NotationError`` /
    ``IllegalMoveError`` for a record that does not replay, ``CalibrationError`` for an
    unreadable model file.
    """
    config = config or game_config(record.game)
    start = time.perf_counter()
    state = record.starting_state()
    rules = state.rules
    jobs = []
    for index, text in enumerate(record.moves):
        move = rules.parse_move(text)
        jobs.append(position_job(state, move, index, config))
        state.play(move)
    results: list[PositionResult] = []
    total = len(jobs)
    if progress is not None:
        progress(0, total)
    if workers > 1 and total > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for done, item in enumerate(pool.map(_run_job, jobs, chunksize=2), 1):
                results.append(item)
                if progress is not None:
                    progress(done, total)
    else:
        for done, job in enumerate(jobs, 1):
            results.append(job.run())
            if progress is not None:
                progress(done, total)
    return assemble(state, jobs, results, config, calibration, time.perf_counter() - start)


def assemble(
    final: GameState[Any],
    jobs: Sequence[PositionJob],
    results: Sequence[PositionResult],
    config: SearchConfig,
    calibration: Path | None,
    seconds: float,
) -> Analysis:
    """The analysis of a game from each position's result (``jobs`` and ``results`` in
    move order) and the position after the last move, ``final``. Raises
    ``CalibrationError`` for an unreadable model file."""
    rules = final.rules
    n = rules.n_players
    chances: list[list[float]] = []
    reports = []
    for index, ((played, best, best_value, played_value, values, edge), job) in enumerate(
        zip(results, jobs, strict=True)
    ):
        forced = job.forced
        if values is None:
            values = chances[-1] if chances else [1.0 / n] * n
        chances.append([round(v, 4) for v in values])
        loss = 0.0 if forced else max(0.0, best_value - played_value)
        accuracy = None if forced else round(move_accuracy(100 * best_value, 100 * played_value), 2)
        reports.append(
            MoveReport(
                index,
                job.state.to_move,
                played,
                best,
                round(best_value, 4),
                round(played_value, 4),
                round(loss, 4),
                accuracy,
                "forced" if forced else judge(loss),
                forced,
                chances[-1],
                edge,
            )
        )
    if final.is_over():
        chances.append([round(v, 4) for v in outcome(final)])
    else:
        chances.append(list(chances[-1]) if chances else [1.0 / n] * n)
    model = model_for(rules.game, n, calibration) if calibration is not None else None
    options = rules.options_json()
    summary = [
        summarise(p, name, reports, chances, model, config, options)
        for p, name in enumerate(rules.players)
    ]
    config_json = {
        "iterations": config.iterations,
        "seconds": config.seconds,
        "rollout_moves": config.rollout_moves,
        "seed": config.seed,
    }
    return Analysis(
        rules.game, list(rules.players), config_json, reports, summary, chances, round(seconds, 2)
    )


def player_game_accuracy(
    reports: list[MoveReport], chances: list[list[float]], player: int
) -> float | None:
    """``player``'s game accuracy over ``reports`` (Lichess: volatility windows over
    their win chance at every position of ``chances``, one point more than moves)."""
    window = window_size(len(reports))
    series = [100 * point[player] for point in chances]
    scores, weights = [], []
    for k, r in enumerate(reports):
        if r.player == player and r.accuracy is not None:
            scores.append(r.accuracy)
            weights.append(volatility_weight(series, k, window))
    return game_accuracy(scores, weights)


def evidence_of(reports: Sequence[MoveReport], player: int) -> Evidence:
    """``player``'s judged moves among ``reports``, as the strength model reads them
    (without how the others played: ``Evidence.table``)."""
    mine = [r for r in reports if r.player == player and not r.forced]
    edges = [r.edge for r in mine if r.edge is not None]
    return Evidence(
        tuple(r.accuracy or 0.0 for r in mine),
        tuple(r.played == r.best for r in mine),
        tuple(r.best_value for r in mine),
        edges=tuple(edges) if len(edges) == len(mine) else (),
    )


def seat_evidence(reports: Sequence[MoveReport], player: int) -> Evidence:
    """``player``'s judged moves among ``reports`` with how the others played in them
    (``Evidence.table``): what the strength estimate reads."""
    seats = sorted({r.player for r in reports} | {player})
    others = [evidence_of(reports, p) for p in seats if p != player]
    return replace(evidence_of(reports, player), table=table_loss(others, 1 / len(seats)))


def summarise(
    player: int,
    name: str,
    reports: list[MoveReport],
    chances: list[list[float]],
    model: StrengthModel | None,
    config: SearchConfig,
    options: dict[str, Any] | None = None,
) -> PlayerReport:
    """One player's summary of the analysed ``reports`` (of a game of the rules
    ``options``, when given)."""
    mine = [r for r in reports if r.player == player and not r.forced]
    counts = {j: sum(1 for r in mine if r.judgement == j) for j, _ in JUDGEMENTS}
    accuracy = player_game_accuracy(reports, chances, player)
    mean_loss = sum(r.loss for r in mine) / len(mine) if mine else math.nan
    best_share = sum(r.played == r.best for r in mine) / len(mine) if mine else math.nan
    strength = (
        estimate_evidence(model, seat_evidence(reports, player), config.iterations, options)
        if model is not None
        else None
    )
    return PlayerReport(
        player,
        name,
        len(mine),
        math.nan if accuracy is None else round(accuracy, 1),
        round(mean_loss, 4),
        round(best_share, 3),
        counts,
        strength,
    )
