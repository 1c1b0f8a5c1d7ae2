"""Scripted observation streams for referee tests."""

from __future__ import annotations

from typing import Any

from companion.referee.core import Referee
from companion.referee.events import Output, Seen
from engines.observation import Observation, Reading


def show(referee: Referee, table: Observation, times: int | None = None,
         source: str = "camera") -> list[Output]:
    """Show the same table ``times`` frames in a row (by default as many as the referee
    needs to believe it); the outputs."""
    out: list[Output] = []
    for _ in range(referee.config.stable_frames if times is None else times):
        out += referee.handle(Seen(table, source))
    return out


def names(outputs: list[Output]) -> list[str]:
    return [o.name for o in outputs if o.name != "indicators"]


def only(outputs: list[Output], name: str) -> Any:
    found = [o for o in outputs if o.name == name]
    assert len(found) == 1, outputs
    return found[0]


def unsure(value: Any, confidence: float = 0.5) -> Reading:
    return Reading(value, confidence)
