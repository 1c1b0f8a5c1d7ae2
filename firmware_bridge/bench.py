"""The sensor board's figures (``companion bench device``): zero-loss throughput at the
protocol's ceiling, with the board simulator run as a separate process on a
pseudo-terminal, as a real board is reached through a serial device."""

from __future__ import annotations

import queue
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from firmware_bridge.bridge import BridgeEvent, SensorBridge, TableChanged
from firmware_bridge.errors import BridgeError
from firmware_bridge.layouts import Layout, layout_for, table_schema
from firmware_bridge.messages import MAX_EVENT_RATE
from firmware_bridge.simulator import churn_change


class SimulatorProcess:
    """The board simulator as a child process on a pty (a real serial device path)."""

    def __init__(self, game: str, *extra: str) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="companion-board-")
        link = str(Path(self.folder.name) / "board")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "firmware_bridge.simulator",
                "--game",
                game,
                "--link",
                link,
                "--exit-at-end",
                *extra,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().split()
        if len(line) != 2 or line[0] != "board":
            self.close()
            raise BridgeError("the board simulator did not start")
        self.path = line[1]

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.folder.cleanup()


def wait_for(
    bridge: SensorBridge, predicate: Callable[[BridgeEvent], bool], timeout: float
) -> BridgeEvent:
    """The first event of ``bridge`` that ``predicate`` accepts; ``BridgeError`` when
    none comes within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = bridge.events.get(timeout=0.1)
        except queue.Empty:
            continue
        if predicate(event):
            return event
    raise BridgeError(f"the bridge delivered nothing expected within {timeout:g} s")


@dataclass
class ThroughputFigure:
    seconds: float
    rate_asked: int
    events_expected: int
    events_received: int
    events_lost: int
    events_wrong: int
    events_per_second: float
    sequence_gaps: int
    garbled_frames: int
    resync_snapshots: int
    device_overflows: int


QUIET = 2.0
"""Seconds without an event, after the run, that end the wait for the last ones."""


def _find_change(layout: Layout, change: tuple[int, int], index: int) -> int | None:
    """The first change of the test pattern from ``index`` on that is ``change``
    (``index`` itself when nothing was lost), within two rounds of the positions."""
    for i in range(index, index + 2 * layout.positions * 8):
        if churn_change(layout, i) == change:
            return i
    return None


def throughput(seconds: float, game: str = "shangrila") -> ThroughputFigure:
    """Change the simulated board once a scan at the protocol's ceiling for ``seconds``
    and check every event that arrives against the test pattern."""
    layout = layout_for(game)
    schema = table_schema(game) if layout.calibrated else None
    rate = MAX_EVENT_RATE
    total = int(rate * seconds)
    board = SimulatorProcess(game, "--scan-hz", str(rate))
    try:
        with SensorBridge(board.path, layout, schema=schema) as bridge:
            wait_for(bridge, lambda e: isinstance(e, TableChanged), 5.0)
            board.send(f"churn {total}")
            start = time.monotonic()
            received = wrong = resyncs = 0
            index = 0  # the next change of the pattern expected
            last_arrival = start
            while received < total and not (
                time.monotonic() > start + seconds + QUIET
                and time.monotonic() - last_arrival > QUIET
            ):
                try:
                    event = bridge.events.get(timeout=0.5)
                except queue.Empty:
                    continue
                if not isinstance(event, TableChanged):
                    continue
                last_arrival = event.received
                if event.cause == "snapshot":
                    resyncs += 1  # events were lost; the table is right again
                    continue
                for position in event.changed:
                    change = (position, event.readings[position])
                    found = _find_change(layout, change, index)
                    if found != index:
                        wrong += 1
                    index = (found if found is not None else index) + 1
                    received += 1
            time.sleep(0.6)  # one more device heartbeat: its overflow count
            stats = bridge.stats
    finally:
        board.close()
    elapsed = max(last_arrival - start, 1e-9)
    return ThroughputFigure(
        round(elapsed, 2),
        rate,
        total,
        received,
        total - received,
        wrong,
        round(received / elapsed, 1),
        stats.gaps,
        stats.dropped,
        resyncs,
        stats.device_overflows,
    )
