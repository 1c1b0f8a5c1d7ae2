"""The C reference firmware: built with gcc against the POSIX stub of the hardware,
checked on the shared vectors, and run against the host bridge over a pty."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.referee.events import Light
from engines import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected, schema
from firmware_bridge.bridge import (
    Connected,
    ConnectFailed,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.layouts import TableConverter, layout_for
from tests.firmware_bridge.boards import next_event, wait_until

FIRMWARE = Path(__file__).parents[2] / "firmware_bridge" / "firmware"
VECTORS = FIRMWARE.parent / "vectors.txt"
LAYOUT = layout_for("shangrila")

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("make") is None,
    reason="the C firmware needs gcc and make to build (apt-get install gcc make)",
)


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("firmware")
    subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE), f"BUILD={folder}", "CC=gcc"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return folder


def test_the_c_code_passes_the_shared_vectors(build: Path) -> None:
    result = subprocess.run(
        [str(build / "test_vectors"), str(VECTORS)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith("vectors, 0 failures")


def test_the_arduino_sources_compile() -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ is needed to check the Arduino sources")
    subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE), "arduino-syntax", "CC=gcc", "CXX=g++"],
        check=True,
        capture_output=True,
        timeout=120,
    )


class CBoard:
    """board_sim: the firmware on the stub; its LED lines are collected."""

    def __init__(self, build: Path, link: Path) -> None:
        self.process = subprocess.Popen(
            [str(build / "board_sim"), "shangrila", str(link)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        self.lines: list[str] = []
        self.plugged = threading.Event()
        first = self.process.stdout.readline().split()
        assert first == ["board", str(link)]
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.strip())
            if line.startswith("board "):
                self.plugged.set()

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def leds(self) -> dict[int, tuple[int, int]]:
        lit: dict[int, tuple[int, int]] = {}
        for line in list(self.lines):
            if line.startswith("led "):
                _, position, colour, pattern = line.split()
                lit[int(position)] = (int(colour), int(pattern))
        return {p: led for p, led in lit.items() if led[0] != 0}

    def close(self) -> None:
        self.send("quit")
        self.process.wait(timeout=5)


@pytest.fixture
def c_board(build: Path, tmp_path: Path) -> Iterator[CBoard]:
    board = CBoard(build, tmp_path / "board")
    yield board
    board.close()


def test_the_c_firmware_talks_to_the_host(c_board: CBoard, tmp_path: Path) -> None:
    rules = ShangrilaRules()
    state = rules.initial_state()
    converter = TableConverter(LAYOUT, schema(rules))
    c_board.send(converter.readings(expected(state)).hex())
    with SensorBridge(
        str(tmp_path / "board"), LAYOUT, schema=schema(rules), first_retry=0.02, last_retry=0.1
    ) as bridge:
        info = next_event(bridge, Connected).info
        assert (info.firmware, info.positions) == ("companion-c 1", 127)
        # the board debounces the table it was just given: it may take a scan or two
        start = expected(state)
        next_event(bridge, TableChanged, where=lambda e: e.observation == start)
        for seed in range(3):
            state.play(state.random_move(Dice(seed)))
            c_board.send(converter.readings(expected(state)).hex())
            changed = next_event(bridge, TableChanged)
            assert changed.cause == "event" and changed.observation == expected(state)
        bridge.show([Light("4H", "red", "blink"), Light("bridge 4-7", "green")])
        bridge_47 = LAYOUT.names.index("bridge 4-7")
        wait_until(lambda: c_board.leds() == {33: (1, 1), bridge_47: (2, 0)})

        c_board.plugged.clear()
        c_board.send("unplug")
        assert "the cable was pulled" in next_event(bridge, Disconnected).reason
        state.play(state.random_move(Dice(9)))
        c_board.send(converter.readings(expected(state)).hex())
        next_event(bridge, ConnectFailed)
        c_board.send("plug")
        assert c_board.plugged.wait(3)
        next_event(bridge, Connected)
        fresh = next_event(bridge, TableChanged)
        assert fresh.cause == "snapshot" and fresh.observation == expected(state)
        wait_until(lambda: c_board.leds() == {33: (1, 1), bridge_47: (2, 0)})
        assert bridge.stats.gaps == 0 and bridge.stats.dropped == 0
