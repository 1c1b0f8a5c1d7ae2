"""The strength report worked out while the game is played: a thread analyses each
move the referee accepts (``engines.search.live``), so the Game end screen has the
report when the game ends, or soon after. A move taken back or corrected is analysed
again, with every later move.

No Kivy here: the worker is a plain thread, fed by ``PlayController.moves_changed``
and read by the Game end screen and ``companion bench analysis-time``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from engines import GameRecord
from engines.search.analysis import Analysis
from engines.search.live import LiveAnalysis
from engines.search.mcts import SearchConfig
from engines.search.players import LEVELS
from engines.search.strength import MODEL_PATH

WORKER_NICENESS = 10
"""How much the analysis thread yields the processor to the rest of the app (Linux and
Android set it per thread)."""


def level_config(level: int, seed: int = 0) -> SearchConfig:
    """The search of the app's strength report at engine ``level`` (as
    ``companion.app.report.strength``)."""
    base = LEVELS[level]
    return SearchConfig(base.iterations, base.seconds, base.exploration, base.rollout_moves, seed)


class AnalysisFailed(RuntimeError):
    """The analysis could not go on (the message says why)."""


class LiveAnalyser:
    """One game's analysis on a background thread. ``feed`` the game so far after each
    change; ``wait`` for the report."""

    def __init__(
        self,
        config: SearchConfig,
        calibration: Path | None = MODEL_PATH,
        niceness: int = WORKER_NICENESS,
    ) -> None:
        self.live = LiveAnalysis(config, calibration)
        self._changed = threading.Condition()
        self._stopped = False
        self._error: str | None = None
        self._niceness = niceness
        self._fed = False
        self._thread = threading.Thread(target=self._work, daemon=True, name="live analysis")
        self._thread.start()

    @property
    def config(self) -> SearchConfig:
        return self.live.config

    def feed(self, record: GameRecord) -> None:
        """Follow ``record``, the game so far (cheap: the work is on the thread)."""
        with self._changed:
            try:
                self.live.update(record)
            except Exception as error:  # a record that does not replay stops the report
                self._error = f"{type(error).__name__}: {error}"
            self._fed = True
            self._changed.notify_all()

    def progress(self) -> tuple[int, int]:
        """(moves analysed, moves so far)."""
        with self._changed:
            return self.live.done, self.live.total

    def ready(self) -> Analysis | None:
        """The report of the game so far when every move is analysed, else None."""
        with self._changed:
            return self.live.analysis() if self._fed and self.live.complete else None

    def wait(
        self, progress: Callable[[int, int], None] | None = None, timeout: float | None = None
    ) -> Analysis:
        """The report of the game so far, once every move is analysed; ``progress(done,
        total)`` is called as moves finish. Raises ``AnalysisFailed`` when the analysis
        failed or was stopped, ``TimeoutError`` after ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        shown = None
        with self._changed:
            while True:
                if self._error is not None:
                    raise AnalysisFailed(self._error)
                if self._stopped:
                    raise AnalysisFailed("the analysis was stopped")
                now = (self.live.done, self.live.total)
                if progress is not None and now != shown:
                    progress(*now)
                    shown = now
                if self._fed and self.live.complete:
                    return self._assembled()
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError("the analysis is not done yet")
                self._changed.wait(
                    0.5 if deadline is None else max(0.0, min(0.5, deadline - time.monotonic()))
                )

    def _assembled(self) -> Analysis:
        try:
            found = self.live.analysis()
        except Exception as error:
            raise AnalysisFailed(f"{type(error).__name__}: {error}") from error
        assert found is not None
        return found

    def stop(self) -> None:
        """End the thread after the position it is on (its work is dropped)."""
        with self._changed:
            self._stopped = True
            self._changed.notify_all()

    def _work(self) -> None:
        with contextlib.suppress(AttributeError, OSError):  # else at the app's priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self._niceness)
        while True:
            with self._changed:
                while not self._stopped and (
                    self._error is not None or self.live.next_job() is None
                ):
                    self._changed.wait()
                if self._stopped:
                    return
                job = self.live.next_job()
            assert job is not None
            began = time.perf_counter()
            try:
                result = job.run()
            except Exception as error:  # the report must never take the app down
                with self._changed:
                    self._error = f"{type(error).__name__}: {error}"
                    self._changed.notify_all()
                continue
            with self._changed:
                self.live.store(job, result, time.perf_counter() - began)
                self._changed.notify_all()
