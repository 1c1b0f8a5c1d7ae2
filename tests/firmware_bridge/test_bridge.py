"""The bridge over real pseudo-terminals, against the simulated board: observations,
lights, a pulled cable, reconnection, back-off, prompt closing, finding the board."""

from __future__ import annotations

import os
import pty
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.referee.events import Light
from engines import Dice
from engines.shangrila import ShangrilaRules, ShangrilaState
from engines.shangrila.observation import expected, schema
from firmware_bridge.bridge import (
    Connected,
    ConnectFailed,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.errors import LightError
from firmware_bridge.layouts import layout_for
from firmware_bridge.messages import Colour, Pattern
from firmware_bridge.simulator import BoardSimulator
from tests.firmware_bridge.boards import next_event, wait_until

LAYOUT = layout_for("shangrila")
RULES = ShangrilaRules()
SCHEMA = schema(RULES)


@pytest.fixture
def state() -> ShangrilaState:
    return RULES.initial_state()


@pytest.fixture
def board(tmp_path: Path, state: ShangrilaState) -> Iterator[BoardSimulator]:
    simulator = BoardSimulator(LAYOUT, link=tmp_path / "board", debounce=2, scan_hz=200)
    simulator.show(expected(state))
    with simulator:
        yield simulator


@pytest.fixture
def bridge(board: BoardSimulator) -> Iterator[SensorBridge]:
    with SensorBridge(
        board.path, LAYOUT, schema=SCHEMA, first_retry=0.02, last_retry=0.1
    ) as running:
        yield running


def _play(state: ShangrilaState, seed: int) -> None:
    state.play(state.random_move(Dice(seed)))


def test_the_board_delivers_observations(
    board: BoardSimulator, bridge: SensorBridge, state: ShangrilaState
) -> None:
    connected = next_event(bridge, Connected)
    assert connected.port == board.path and connected.info.firmware == "companion-sim 1"
    first = next_event(bridge, TableChanged)
    assert first.cause == "snapshot" and first.observation == expected(state)
    for seed in range(3):
        _play(state, seed)
        board.show(expected(state))
        changed = next_event(bridge, TableChanged)
        assert changed.cause == "event" and changed.observation == expected(state)


def test_lights_reach_the_board(board: BoardSimulator, bridge: SensorBridge) -> None:
    next_event(bridge, TableChanged)
    bridge.show(
        [Light("4H", "red", "blink"), Light("4H^", "red", "blink"), Light("bridge 4-7", "green")]
    )
    bridge_47 = LAYOUT.names.index("bridge 4-7")

    def lit() -> dict[int, tuple[Colour, Pattern]]:
        return {i: led for i, led in enumerate(board.leds) if led[0] != Colour.OFF}

    wait_until(
        lambda: (
            lit() == {33: (Colour.RED, Pattern.BLINK), bridge_47: (Colour.GREEN, Pattern.STEADY)}
        )
    )
    bridge.show([])
    wait_until(lambda: lit() == {})


def test_lights_the_board_cannot_show(bridge: SensorBridge) -> None:
    with pytest.raises(LightError, match="no light for '4Q'"):
        bridge.show([Light("4Q", "red")])
    with pytest.raises(LightError, match="cannot show 'pink'"):
        bridge.show([Light("4H", "pink")])
    with pytest.raises(LightError, match="'strobe'"):
        bridge.show([Light("4H", "red", "strobe")])


def test_a_pulled_cable_is_reported_and_the_table_is_right_after_reconnecting(
    board: BoardSimulator, bridge: SensorBridge, state: ShangrilaState
) -> None:
    next_event(bridge, TableChanged)
    bridge.show([Light("4H", "amber", "pulse")])
    wait_until(lambda: board.leds[33] == (Colour.AMBER, Pattern.PULSE))
    board.unplug(mid_frame=True)
    lost = next_event(bridge, Disconnected)
    assert lost.port == board.path and "the cable was pulled" in lost.reason
    # meanwhile nothing the app calls waits for the board
    started = time.monotonic()
    bridge.show([Light("4H", "amber", "pulse"), Light("5H", "blue")])
    assert not bridge.connected
    assert time.monotonic() - started < 0.05
    # the table changes while the cable is out
    _play(state, 7)
    _play(state, 8)
    board.show(expected(state))
    failed = next_event(bridge, ConnectFailed)
    assert "cannot open" in failed.reason and failed.retry_in > 0
    board.plug()
    next_event(bridge, Connected)
    fresh = next_event(bridge, TableChanged)
    assert fresh.cause == "snapshot" and fresh.observation == expected(state)
    assert fresh.changed  # what moved while the cable was out
    # the freshly started board shows the latest lights again
    wait_until(
        lambda: (
            board.leds[33] == (Colour.AMBER, Pattern.PULSE)
            and board.leds[40] == (Colour.BLUE, Pattern.STEADY)
        )
    )
    assert bridge.disconnects == 1 and bridge.connects == 2
    assert bridge.stats.snapshots == 2


def test_closing_is_prompt(board: BoardSimulator) -> None:
    bridge = SensorBridge(board.path, LAYOUT, schema=SCHEMA).start()
    next_event(bridge, TableChanged)
    started = time.monotonic()
    bridge.close()
    assert time.monotonic() - started < 0.5


def test_closing_is_prompt_while_retrying(tmp_path: Path) -> None:
    bridge = SensorBridge(str(tmp_path / "nothing"), LAYOUT, first_retry=5.0).start()
    next_event(bridge, ConnectFailed)
    started = time.monotonic()
    bridge.close()
    assert time.monotonic() - started < 0.5


def test_retries_back_off(tmp_path: Path) -> None:
    with SensorBridge(
        str(tmp_path / "nothing"), LAYOUT, first_retry=0.01, last_retry=0.04
    ) as bridge:
        delays = [next_event(bridge, ConnectFailed).retry_in for _ in range(5)]
    assert delays == [0.01, 0.02, 0.04, 0.04, 0.04]


def test_a_loop_url_without_a_board() -> None:
    with SensorBridge("loop://", LAYOUT, first_retry=0.5) as bridge:
        failed = next_event(bridge, ConnectFailed)
    assert failed.target == "loop://" and "no board answered on loop://" in failed.reason


def test_the_board_is_found_among_the_ports(board: BoardSimulator) -> None:
    master, slave = pty.openpty()  # a port where nothing answers
    try:
        silent = os.ttyname(slave)
        with SensorBridge(None, LAYOUT, ports=lambda: [silent, board.path]) as bridge:
            assert next_event(bridge, Connected).port == board.path
            assert next_event(bridge, TableChanged).cause == "snapshot"
    finally:
        os.close(master)
        os.close(slave)


def test_raw_readings_without_a_schema(board: BoardSimulator) -> None:
    with SensorBridge(board.path, LAYOUT) as bridge:
        table = next_event(bridge, TableChanged)
    assert table.observation is None and len(table.readings) == 127
