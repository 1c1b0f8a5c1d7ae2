"""``companion device ...``: the sensor board — list ports, show live readings (and
referee them), run the board simulator; ``companion bench device``: its figures.

This is where the bridge meets the referee: ``TableChanged`` events become
``Seen(observation, "sensors")`` inputs, and the referee's ``Indicators`` become the
board's lights.
"""

from __future__ import annotations

import argparse
import json
import queue
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from companion.cli import UsageError
from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Indicators, MoveAccepted, Output, Seen
from engines import Dice, rules_class
from engines.registry import GAMES
from firmware_bridge.bridge import (
    BoardError,
    BoardRestarted,
    BridgeEvent,
    Connected,
    ConnectFailed,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.errors import BridgeError
from firmware_bridge.layouts import Layout, layout_for, table_schema
from firmware_bridge.messages import BAUD, MAX_EVENT_RATE, Game, reading_code
from firmware_bridge.simulator import add_arguments, churn_change, simulate

SOURCE = "sensors"


def to_referee(event: BridgeEvent) -> Seen | None:
    """The referee's input for a bridge event: a table read by the board, else None."""
    if isinstance(event, TableChanged) and event.observation is not None:
        return Seen(event.observation, SOURCE)
    return None


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "device",
        help="the sensor and LED board: ports, live readings, simulator",
        description="The optional sensor and LED board under the table (docs/device.md).",
    )
    device_sub = parser.add_subparsers(dest="device_command", required=True, metavar="COMMAND")

    ports = device_sub.add_parser(
        "ports",
        help="list the serial ports (and which one is a board)",
        description="List this machine's serial ports. With --probe, say hello on each "
        "and show which one is a board, of which game.",
    )
    ports.add_argument(
        "--probe",
        action="store_true",
        help="send the handshake to each port (writes a few bytes to it)",
    )
    ports.set_defaults(handler=ports_command)

    show = device_sub.add_parser(
        "show",
        help="open a board and show its readings live",
        description="Open a board (a device path, a pyserial URL, or the first port "
        "answering the handshake) and print every change it reads. With --referee, "
        "referee a game from the board and light its LEDs. Stops after --seconds or "
        "Ctrl-C; reconnects by itself when the cable is pulled.",
    )
    show.add_argument(
        "target", nargs="?", help="device path or pyserial URL (default: search every port)"
    )
    show.add_argument(
        "--game",
        default="shangrila",
        choices=GAMES,
        help="the board's game: %(choices)s (default shangrila)",
    )
    show.add_argument(
        "--layouts",
        metavar="FILE",
        help="layouts and calibration (default: the packaged layouts.json)",
    )
    show.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="stop after this many seconds (default: run until Ctrl-C)",
    )
    show.add_argument(
        "--raw", action="store_true", help="show sensor codes, not the calibrated values"
    )
    show.add_argument(
        "--referee", action="store_true", help="referee a new game from the board (Shangri-La)"
    )
    show.add_argument(
        "--players", nargs="+", metavar="COLOUR", help="players in turn order, with --referee"
    )
    show.set_defaults(handler=show_command)

    sim = device_sub.add_parser(
        "simulate",
        help="run a simulated board on a pseudo-terminal",
        description="A simulated board: prints 'board PATH' (open PATH with device "
        "show), then reads observations as JSON lines (Observation.to_json) and the "
        "commands unplug [SECONDS], plug, churn N and quit.",
    )
    add_arguments(sim)
    sim.set_defaults(handler=simulate_command)


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = bench_sub.add_parser(
        "device",
        help="sensor board: zero-loss throughput and change-to-verdict latency",
        description="Run the board simulator as a separate process on a pseudo-terminal "
        f"paced to {BAUD} baud. Throughput: change the table once per scan at the "
        f"protocol's ceiling ({MAX_EVENT_RATE} one-change events a second) for --seconds "
        "and check that every event arrives, in order and intact. Latency: play a "
        "seeded Shangri-La game on the simulated board and time each move from the "
        "table change to the referee's verdict.",
    )
    bench.add_argument(
        "--seconds",
        type=float,
        default=600.0,
        help="throughput run length (default 600; e.g. 60 for a short run)",
    )
    bench.add_argument(
        "--moves",
        type=int,
        default=60,
        help="moves timed for latency (default 60; 0 skips latency)",
    )
    bench.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(handler=bench_command)


# ----------------------------------------------------------------------------- ports


def ports_command(args: argparse.Namespace) -> int:
    from firmware_bridge.protocol import open_board
    from firmware_bridge.transport import list_ports

    ports = list_ports()
    if not ports:
        print("No serial ports.")
        return 0
    for port in ports:
        line = f"{port.device:<20} {port.description}  [{port.hwid}]"
        if args.probe:
            try:
                link = open_board(port.device, timeout=0.5)
            except BridgeError as error:
                line += f"  — no board ({error})"
            else:
                info = link.info
                link.close()
                assert info is not None
                line += (
                    f"  — {_describe_board(info.game, info.layout, info.positions)}, "
                    f"firmware {info.firmware}"
                )
        print(line)
    return 0


def _describe_board(game: int, layout: int, positions: int) -> str:
    try:
        name = Game(game).name.lower()
    except ValueError:
        name = f"game {game}"
    return f"{name} board (layout {layout}, {positions} positions)"


# ----------------------------------------------------------------------------- show


def _layout(args: argparse.Namespace) -> Layout:
    try:
        return layout_for(args.game, args.layouts)
    except BridgeError as error:
        raise UsageError(str(error)) from None


def _print_readings(layout: Layout, event: TableChanged, raw: bool, first: bool) -> None:
    stamp = time.strftime("%H:%M:%S")
    if first and event.cause == "snapshot":
        occupied = [p for p, r in enumerate(event.readings) if reading_code(r) != 0]
        print(f"{stamp} table: {len(event.readings)} positions, {len(occupied)} not empty")
        positions = occupied
    else:
        print(f"{stamp} {event.cause}: {len(event.changed)} changed")
        positions = list(event.changed)
    for p in positions:
        reading = event.readings[p]
        shown = (
            f"{layout.names[p]}: code {reading_code(reading)}, height bits {reading >> 6}"
            if raw
            else layout.describe(p, reading)
        )
        print(f"  {shown}")


def show_command(args: argparse.Namespace) -> int:
    if args.seconds is not None and not args.seconds > 0:
        raise UsageError(
            f"--seconds {args.seconds:g}: give a positive time, or leave it out to run until Ctrl-C"
        )
    layout = _layout(args)
    referee: Referee | None = None
    schema = None
    if args.referee or (layout.calibrated and not args.raw):
        try:
            schema = table_schema(layout.game)
        except BridgeError as error:
            if args.referee:
                raise UsageError(str(error)) from None
    if args.referee:
        cls = rules_class(layout.game)
        players = args.players or cls.default_players(cls.max_players)
        rules = cls.from_record(players, {})
        # The board debounces its readings itself: one reading is enough.
        referee = Referee(rules, config=RefereeConfig(stable_frames=1))
        schema = referee.schema
    bridge = SensorBridge(args.target, layout, schema=schema)
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    connected_once = False
    last_failure: str | None = None
    first = True
    with bridge:
        while deadline is None or time.monotonic() < deadline:
            try:
                event = bridge.events.get(timeout=0.2)
            except queue.Empty:
                continue
            if isinstance(event, Connected):
                connected_once = True
                last_failure = None
                first = True
                info = event.info
                print(
                    f"Connected to {event.port}: "
                    f"{_describe_board(info.game, info.layout, info.positions)}, "
                    f"firmware {info.firmware}",
                    flush=True,
                )
            elif isinstance(event, TableChanged):
                _print_readings(layout, event, args.raw, first)
                first = False
                seen = to_referee(event)
                if referee is not None and seen is not None:
                    _referee(referee, bridge, seen)
            elif isinstance(event, Disconnected):
                print(f"Board disconnected ({event.reason}); reconnecting.", flush=True)
            elif isinstance(event, ConnectFailed):
                if event.reason != last_failure:
                    last_failure = event.reason
                    print(
                        f"No board answers on {event.target} ({event.reason}). Still "
                        "looking: plug the board in, or press Ctrl-C to stop.",
                        flush=True,
                    )
            elif isinstance(event, BoardError):
                print(f"The board reports: {event.name}.", flush=True)
            elif isinstance(event, BoardRestarted):
                print("The board restarted; reading its table again.", flush=True)
            sys.stdout.flush()
    stats = bridge.stats
    print(
        f"{stats.frames} frames, {stats.events} events, {stats.snapshots} snapshots, "
        f"{stats.dropped} garbled, {stats.gaps} lost (resynchronised), "
        f"{bridge.disconnects} disconnections."
    )
    return 0 if connected_once else 1


def _referee(referee: Referee, bridge: SensorBridge, seen: Seen) -> list[Output]:
    from companion.referee.words import say

    outputs = referee.handle(seen)
    for output in outputs:
        if isinstance(output, Indicators):
            bridge.show(output.lights)
        text = say(output, referee.rules.players, referee.rules.game)
        if text:
            print(text, flush=True)
    return outputs


# ----------------------------------------------------------------------------- simulate


def simulate_command(args: argparse.Namespace) -> int:
    """``device simulate``, once its options are known to be usable: a game with a
    sensor layout, a positive scan rate, a debounce of at least one scan, a baud rate
    of 0 (unpaced) or more, and a control file that can be opened."""
    try:
        layout_for(args.game)
    except BridgeError as error:
        raise UsageError(str(error)) from None
    if not args.scan_hz > 0:
        raise UsageError(
            f"--scan-hz {args.scan_hz:g}: the board must scan a positive number of times a second"
        )
    if args.debounce < 1:
        raise UsageError(f"--debounce {args.debounce}: a change must hold for at least one scan")
    if args.baud < 0:
        raise UsageError(f"--baud {args.baud}: 0 (unpaced) or a positive rate")
    if args.table != "-":
        try:
            with open(args.table, encoding="utf-8"):
                pass
        except OSError as error:
            raise UsageError(f"--table {args.table}: {error.strerror or error}") from None
    return simulate(args)


# ----------------------------------------------------------------------------- bench


class _SimulatorProcess:
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


def _wait_for(bridge: SensorBridge, predicate: Any, timeout: float) -> BridgeEvent:
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
    board = _SimulatorProcess(game, "--scan-hz", str(rate))
    try:
        with SensorBridge(board.path, layout, schema=schema) as bridge:
            _wait_for(bridge, lambda e: isinstance(e, TableChanged), 5.0)
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
    from engines.shangrila import ShangrilaRules
    from engines.shangrila.observation import expected
    from firmware_bridge.messages import DEBOUNCE_SCANS, SCAN_HZ

    rules = ShangrilaRules()
    state = rules.initial_state()
    referee = Referee(rules, config=RefereeConfig(stable_frames=1))
    layout = layout_for("shangrila")
    dice = Dice(seed)
    board = _SimulatorProcess("shangrila")
    delivered: list[float] = []
    verdicts: list[float] = []
    try:
        board.send(json.dumps(expected(state).to_json()))
        with SensorBridge(board.path, layout, schema=referee.schema) as bridge:
            first = expected(state)
            _wait_for(bridge, lambda e: isinstance(e, TableChanged) and e.observation == first, 5.0)
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


def bench_command(args: argparse.Namespace) -> int:
    figures: dict[str, Any] = {}
    if args.seconds > 0:
        if not args.json:
            print(f"throughput: {args.seconds:g} s at {MAX_EVENT_RATE} events/s ...", flush=True)
        figure = throughput(args.seconds)
        figures["throughput"] = asdict(figure)
        if not args.json:
            print(
                f"  {figure.events_received}/{figure.events_expected} events in "
                f"{figure.seconds:.1f} s ({figure.events_per_second:.1f}/s): "
                f"{figure.events_lost} lost, {figure.events_wrong} wrong, "
                f"{figure.sequence_gaps} sequence gaps, {figure.garbled_frames} garbled "
                f"frames, {figure.resync_snapshots} resync snapshots, "
                f"{figure.device_overflows} device overflows",
                flush=True,
            )
    if args.moves > 0:
        figure_l = latency(args.moves, args.seed)
        figures["latency"] = asdict(figure_l)
        if not args.json:
            print(
                f"latency: {figure_l.accepted}/{figure_l.moves} moves accepted; "
                f"board change -> bridge delivery median {figure_l.delivered_median_ms} "
                f"ms (p90 {figure_l.delivered_p90_ms}); -> referee verdict median "
                f"{figure_l.verdict_median_ms} ms (p90 {figure_l.verdict_p90_ms}, max "
                f"{figure_l.verdict_max_ms}); board scans at {figure_l.scan_hz} Hz, "
                f"debounce {figure_l.debounce_scans} scans",
                flush=True,
            )
    if args.json:
        print(json.dumps({"python": sys.version.split()[0], "baud": BAUD, **figures}))
    lost = figures.get("throughput", {}).get("events_lost", 0)
    wrong = figures.get("throughput", {}).get("events_wrong", 0)
    return 1 if lost or wrong else 0
