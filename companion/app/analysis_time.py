"""The time of a whole game's analysis, from scratch and live as the app runs it while
the game goes on (``companion bench analysis-time``)."""

from __future__ import annotations

import time
from typing import Any

from companion.app.live_analysis import LiveAnalyser
from engines import GameRecord
from engines.search.analysis import analyse
from engines.search.bench_strength import _load, _processor_seconds
from engines.search.mcts import SearchConfig


def time_analysis(
    record: GameRecord, config: SearchConfig, workers: int, move_seconds: float
) -> dict[str, Any]:
    """Figures of the analysis of ``record`` from scratch and live (as the app analyses
    while the game goes on); ``same`` says whether both gave the same analysis."""

    figures: dict[str, Any] = {
        "moves": len(record.moves),
        "iterations": config.iterations,
        "load_before": _load(),
    }
    cpu, wall = _processor_seconds(), time.perf_counter()
    scratch = analyse(record, config, workers=workers)
    figures["scratch"] = {
        "workers": workers,
        "wall": round(time.perf_counter() - wall, 2),
        "cpu": round(_processor_seconds() - cpu, 2),
        "load": _load(),
    }
    worker = LiveAnalyser(config, niceness=0)
    positions = []
    try:
        cpu = _processor_seconds()
        for n in range(1, len(record.moves) + 1):
            fed = time.perf_counter()
            worker.feed(
                GameRecord(
                    record.game,
                    list(record.players),
                    dict(record.options),
                    record.moves[:n],
                    record.start,
                )
            )
            if n == len(record.moves):
                live = worker.wait()
                remainder = time.perf_counter() - fed
            elif move_seconds > 0:
                time.sleep(move_seconds)
            else:
                worker.wait()
                positions.append(time.perf_counter() - fed)
    finally:
        worker.stop()
    figures["live"] = {
        "move_seconds": move_seconds,
        "after_last_move": round(remainder, 3),
        "cpu": round(_processor_seconds() - cpu, 2),
        "slowest_move": round(max(positions), 3) if positions else None,
        "mean_move": round(sum(positions) / len(positions), 3) if positions else None,
        "load": _load(),
    }
    a, b = scratch.to_json(), live.to_json()
    a.pop("seconds")
    b.pop("seconds")
    figures["same"] = a == b
    return figures
