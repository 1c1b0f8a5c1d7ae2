"""Helpers for tests over real pseudo-terminals: a simulated board and a bridge."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import TypeVar

from firmware_bridge.bridge import BridgeEvent, SensorBridge

E = TypeVar("E")


def next_event(
    bridge: SensorBridge,
    kind: type[E],
    timeout: float = 3.0,
    where: Callable[[E], bool] = lambda e: True,
) -> E:
    """The next event of ``kind`` (satisfying ``where``); others are skipped. Fails
    the test when none comes within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    skipped: list[BridgeEvent] = []
    while time.monotonic() < deadline:
        try:
            event = bridge.events.get(timeout=0.05)
        except queue.Empty:
            continue
        if isinstance(event, kind) and where(event):
            return event
        skipped.append(event)
    raise AssertionError(f"no {kind.__name__} within {timeout} s; skipped {skipped}")


def wait_until(predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not come true in time")
        time.sleep(0.01)
