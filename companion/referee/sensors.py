"""Where the sensor board meets the referee: a bridge's ``TableChanged`` event becomes
``Seen(observation, "sensors")``, and the referee's ``Indicators`` become the board's
lights. ``latency`` times that chain (``companion bench device``)."""

from __future__ import annotations

import json
import queue
import statistics
import time
from dataclasses import dataclass

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Indicators, MoveAccepted, Output, Seen
from engines.dice import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected
from firmware_bridge.bench import SimulatorProcess, wait_for
from firmware_bridge.bridge import BridgeEvent, SensorBridge, TableChanged
from firmware_bridge.layouts import layout_for
from firmware_bridge.messages import DEBOUNCE_SCANS, SCAN_HZ

SOURCE = "sensors"


def to_referee(event: BridgeEvent) -> Seen | None:
    """The referee's input for a bridge event: a table read by the board, else None."""
    if isinstance(event, TableChanged) and event.observation is not None:
        return Seen(event.observation, SOURCE)
    return None


@dataclass
class LatencyFigure:
    moves: int
    accepted: int
    delivered_median_ms: float
    delivered_p90_ms: float
    verdict_median_ms: float
    verdict_p90_ms: float
    verdict_max_ms: float
    scan_hz: int
    debounce_scans: int


def latency(moves: int, seed: int) -> LatencyFigure:
    """Play ``moves`` of a seeded Shangri-La game on the simulated board; time each from
    the table change to the bridge's delivery and to the referee's ``MoveAccepted``."""
    rules = ShangrilaRules()
    state = rules.initial_state()
    referee = Referee(rules, config=RefereeConfig(stable_frames=1))
    layout = layout_for("shangrila")
    dice = Dice(seed)
    board = SimulatorProcess("shangrila")
    delivered: list[float] = []
    verdicts: list[float] = []
    try:
        board.send(json.dumps(expected(state).to_json()))
        with SensorBridge(board.path, layout, schema=referee.schema) as bridge:
            first = expected(state)
            wait_for(bridge, lambda e: isinstance(e, TableChanged) and e.observation == first, 5.0)
            for _ in range(moves):
                if state.is_over():
                    break
                state.play(state.random_move(dice))
                line = json.dumps(expected(state).to_json())
                board.send(line)
                t0 = time.monotonic()
                accepted = False
                while not accepted and time.monotonic() - t0 < 3.0:
                    try:
                        event = bridge.events.get(timeout=0.5)
                    except queue.Empty:
                        continue
                    seen = to_referee(event)
                    if seen is None or not isinstance(event, TableChanged):
                        continue
                    outputs = _handle_quietly(referee, bridge, seen)
                    if any(isinstance(o, MoveAccepted) for o in outputs):
                        verdicts.append((time.monotonic() - t0) * 1000)
                        delivered.append((event.received - t0) * 1000)
                        accepted = True
                if not accepted:
                    break
    finally:
        board.close()

    def quantile(values: list[float], q: float) -> float:
        if not values:
            return float("nan")
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

    return LatencyFigure(
        moves,
        len(verdicts),
        round(statistics.median(delivered), 1) if delivered else float("nan"),
        quantile(delivered, 0.9),
        round(statistics.median(verdicts), 1) if verdicts else float("nan"),
        quantile(verdicts, 0.9),
        round(max(verdicts), 1) if verdicts else float("nan"),
        SCAN_HZ,
        DEBOUNCE_SCANS,
    )


def _handle_quietly(referee: Referee, bridge: SensorBridge, seen: Seen) -> list[Output]:
    outputs = referee.handle(seen)
    for output in outputs:
        if isinstance(output, Indicators):
            bridge.show(output.lights)
    return outputs
