"""An analysis kept up to date while the game is played.

``LiveAnalysis`` is told the game so far after every change (``update``): a new move
adds a position to analyse; a move taken back or corrected drops the analysis of that
move and of every later one, which are analysed again. Positions are analysed one at a
time, oldest first (``next_job``, then ``store`` with its result), so the caller
chooses where the work runs (a thread, a process) and may stop between positions.

Each position's search is seeded by its move number alone
(``engines.search.analysis.position_job``), so once every move is analysed the result
is the one ``analyse`` gives for the whole record from scratch, with the same seed.

Not thread-safe: a caller sharing it between threads holds a lock around each call
(``next_job`` and ``store`` are cheap; the search between them needs no lock).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engines.base import GameState
from engines.record import GameRecord
from engines.search.analysis import (
    Analysis,
    PositionJob,
    PositionResult,
    analysis_config,
    assemble,
    game_config,
    position_job,
)
from engines.search.mcts import SearchConfig
from engines.search.strength import MODEL_PATH


def _header(record: GameRecord) -> tuple[Any, ...]:
    """What makes two records the same game apart from their moves."""
    return (
        record.game,
        tuple(record.players),
        repr(sorted(record.options.items())),
        repr(record.start),
    )


class LiveAnalysis:
    """The analysis of a game being played (see the module's docstring)."""

    def __init__(
        self, config: SearchConfig | None = None, calibration: Path | None = MODEL_PATH
    ) -> None:
        self._given = config
        self.config = config or analysis_config()
        """The search of each position (default: the game's own, ``game_config``, once
        the game is known)."""
        self.calibration = calibration
        self._header: tuple[Any, ...] | None = None
        self._start: GameState[Any] | None = None
        self._moves: list[str] = []
        self._jobs: list[PositionJob] = []
        self._final: GameState[Any] | None = None
        self._results: list[PositionResult] = []
        self._seconds: list[float] = []
        self.redone = 0
        """Positions whose analysis was dropped by a move taken back or corrected."""

    @property
    def total(self) -> int:
        """Moves of the game so far."""
        return len(self._moves)

    @property
    def done(self) -> int:
        """Moves analysed (the first ``done`` of the game)."""
        return len(self._results)

    @property
    def complete(self) -> bool:
        return self._final is not None and self.done == self.total

    def update(self, record: GameRecord) -> int:
        """Follow ``record``, the game so far: the analysis of every move from the first
        that differs from the moves known is dropped. Returns that move's index (from
        0; ``total`` when nothing was dropped). Another game (other players, options or
        start) starts over. Raises ``RecordError`` / ``NotationError`` /
        ``IllegalMoveError`` for a record that does not replay (nothing changed then)."""
        header = _header(record)
        if header != self._header:
            start = record.starting_state()
            self._header, self._start = header, start
            if self._given is None:
                self.config = game_config(record.game)
            self._moves, self._jobs, self._results, self._seconds = [], [], [], []
            self._final = None
        assert self._start is not None
        common = min(len(self._moves), len(record.moves))
        first = next((i for i in range(common) if self._moves[i] != record.moves[i]), common)
        if first == len(self._moves) == len(record.moves) and self._final is not None:
            return first
        state = (
            self._jobs[first].state.copy()
            if first < len(self._jobs)
            else (
                self._final.copy()
                if self._final is not None and first == len(self._moves)
                else self._replayed(record.moves[:first])
            )
        )
        jobs = self._jobs[:first]
        rules = state.rules
        for index, text in enumerate(record.moves[first:], start=first):
            move = rules.parse_move(text)
            jobs.append(position_job(state, move, index, self.config))
            state.play(move)
        self.redone += max(0, len(self._results) - first)
        self._moves, self._jobs, self._final = list(record.moves), jobs, state
        del self._results[first:]
        del self._seconds[first:]
        return first

    def _replayed(self, moves: list[str]) -> GameState[Any]:
        assert self._start is not None
        state = self._start.copy()
        for text in moves:
            state.play(state.rules.parse_move(text))
        return state

    def next_job(self) -> PositionJob | None:
        """The oldest position not analysed yet, None when all are."""
        return self._jobs[self.done] if self.done < len(self._jobs) else None

    def store(self, job: PositionJob, result: PositionResult, seconds: float = 0.0) -> bool:
        """Keep ``result``, the analysis of ``job``'s position taking ``seconds``; False
        (and nothing kept) when the game changed meanwhile and it is no longer the next
        position to keep."""
        if (
            job.index != self.done
            or job.index >= len(self._jobs)
            or self._jobs[job.index] is not job
        ):
            return False
        self._results.append(result)
        self._seconds.append(seconds)
        return True

    def step(self) -> bool:
        """Analyse the next position here; False when there was none."""
        job = self.next_job()
        if job is None:
            return False
        began = time.perf_counter()
        result = job.run()
        self.store(job, result, time.perf_counter() - began)
        return True

    def analysis(self) -> Analysis | None:
        """The analysis of the game so far once every move is analysed, else None.
        ``seconds`` is the time spent on the positions it keeps. Raises
        ``CalibrationError`` for an unreadable model file."""
        if not self.complete or self._final is None:
            return None
        return assemble(
            self._final,
            self._jobs,
            self._results,
            self.config,
            self.calibration,
            sum(self._seconds),
        )
