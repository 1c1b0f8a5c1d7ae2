"""The simulator as a process on a real pty, fed observations as JSON lines: the whole
chain from a change on the simulated board to the referee's verdict."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Indicators, MoveAccepted
from companion.referee.sensors import to_referee
from engines import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected
from firmware_bridge.bridge import Connected, Disconnected, SensorBridge, TableChanged
from firmware_bridge.layouts import layout_for
from tests.firmware_bridge.boards import next_event

LAYOUT = layout_for("shangrila")


@pytest.fixture
def process(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "firmware_bridge.simulator",
            "--link",
            str(tmp_path / "board"),
            "--exit-at-end",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert child.stdout is not None
    assert child.stdout.readline().split() == ["board", str(tmp_path / "board")]
    yield child
    assert child.stdin is not None
    child.stdin.close()  # the end of the control stream ends the process
    assert child.wait(timeout=5) == 0


def _send(process: subprocess.Popen[str], line: str) -> None:
    assert process.stdin is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()


def test_from_a_change_on_the_board_to_the_verdict(
    process: subprocess.Popen[str], tmp_path: Path
) -> None:
    rules = ShangrilaRules()
    referee = Referee(rules, config=RefereeConfig(stable_frames=1))
    state = rules.initial_state()
    _send(process, json.dumps(expected(state).to_json()))
    start = expected(state)
    with SensorBridge(
        str(tmp_path / "board"), LAYOUT, schema=referee.schema, first_retry=0.02, last_retry=0.1
    ) as bridge:
        next_event(bridge, TableChanged, where=lambda e: e.observation == start)
        for seed in range(4):
            move = state.random_move(Dice(seed))
            state.play(move)
            _send(process, json.dumps(expected(state).to_json()))
            seen = to_referee(next_event(bridge, TableChanged))
            assert seen is not None and seen.source == "sensors"
            outputs = referee.handle(seen)
            accepted = [o for o in outputs if isinstance(o, MoveAccepted)]
            assert [a.move for a in accepted] == [rules.format_move(move)]
            lights = next(o for o in outputs if isinstance(o, Indicators)).lights
            bridge.show(lights)  # the referee's lights, on the board

        _send(process, "unplug 0.3")
        next_event(bridge, Disconnected)
        next_event(bridge, Connected)
        assert next_event(bridge, TableChanged).observation == expected(state)


def test_a_bad_control_line_is_reported_and_skipped(
    process: subprocess.Popen[str], tmp_path: Path
) -> None:
    _send(process, "dance")
    _send(process, '{"game": "shangrila", "readings": {"4H": "green"}}')
    _send(process, "quit")
    assert process.wait(timeout=5) == 0
    assert process.stderr is not None
    errors = process.stderr.read()
    assert "unknown line 'dance'" in errors and "'4H' cannot read 'green'" in errors
