"""``companion device ...`` and ``companion bench device``."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.cli import main
from engines import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected
from firmware_bridge.bench import _find_change
from firmware_bridge.layouts import layout_for
from firmware_bridge.simulator import BoardSimulator, churn_change

LAYOUT = layout_for("shangrila")


@pytest.fixture
def board(tmp_path: Path) -> Iterator[BoardSimulator]:
    simulator = BoardSimulator(LAYOUT, link=tmp_path / "board", debounce=2, scan_hz=200)
    simulator.show(expected(ShangrilaRules().initial_state()))
    with simulator:
        yield simulator


def test_ports(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["device", "ports"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("No serial ports.") or "/dev/" in out


def test_show_prints_the_table_and_its_changes(
    board: BoardSimulator, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ShangrilaRules().initial_state()
    state.play(state.random_move(Dice(3)))
    threading.Timer(0.6, board.show, [expected(state)]).start()
    assert main(["device", "show", board.path, "--seconds", "1.2"]) == 0
    out = capsys.readouterr().out
    assert (
        f"Connected to {board.path}: shangrila board (layout 1, 127 positions), "
        "firmware companion-sim 1" in out
    )
    assert "table: 127 positions, 23 not empty" in out  # the bridges stand
    assert "event: 1 changed\n  1R: red, height 1\n" in out  # Red's first master
    assert "0 lost (resynchronised), 0 disconnections." in out


def test_show_referees_the_board_and_lights_it(
    board: BoardSimulator, capsys: pytest.CaptureFixture[str]
) -> None:
    state = ShangrilaRules().initial_state()
    move = state.random_move(Dice(3))
    state.play(move)
    threading.Timer(0.6, board.show, [expected(state)]).start()
    assert main(["device", "show", board.path, "--referee", "--seconds", "1.2"]) == 0
    out = capsys.readouterr().out
    assert f"Move 1: Red plays {state.rules.format_move(move)}." in out
    assert any(colour.name == "GREEN" for colour, _ in board.leds)


def test_show_raw_codes(board: BoardSimulator, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["device", "show", board.path, "--raw", "--seconds", "0.5"]) == 0
    assert "bridge 0-1: code 1, height bits 3" in capsys.readouterr().out


def test_show_without_a_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the bridge tries again several times within half a second: said once
    assert main(["device", "show", str(tmp_path / "none"), "--seconds", "0.5"]) == 1
    out = capsys.readouterr().out
    assert f"No board answers on {tmp_path / 'none'} (cannot open" in out
    assert out.count("No board answers") == 1


def test_show_an_unknown_game_lists_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["device", "show", "loop://", "--game", "chess", "--seconds", "0.1"])
    assert stop.value.code == 2
    assert "invalid choice: 'chess' (choose from 'shangrila'" in capsys.readouterr().err


def test_the_bench_checks_each_event_against_the_pattern() -> None:
    assert _find_change(LAYOUT, churn_change(LAYOUT, 5), 5) == 5
    assert _find_change(LAYOUT, churn_change(LAYOUT, 9), 5) == 9  # four lost
    assert _find_change(LAYOUT, (3, 0xEE), 0) is None


def test_a_short_bench(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "device", "--seconds", "0.5", "--moves", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    throughput = figures["throughput"]
    assert throughput["events_lost"] == throughput["events_wrong"] == 0
    assert throughput["events_received"] == throughput["events_expected"] == 566
    assert figures["latency"]["accepted"] == 2
