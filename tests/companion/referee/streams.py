"""Scripted observation streams for referee tests."""

from __future__ import annotations

from typing import Any

from companion.referee.core import Referee
from companion.referee.events import Output, Seen
from engines.observation import Observation, Reading


def show(
    referee: Referee, table: Observation, times: int | None = None, source: str = "camera"
) -> list[Output]:
    """Show the same table ``times`` frames in a row (by default as many as the referee
    needs to believe it, and to confirm an illegal move); the outputs."""
    out: list[Output] = []
    frames = referee.config.frames_for(source)
    if times is None:
        times = frames + (referee.config.confirm_frames if frames > 1 else 0)
    for _ in range(times):
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
