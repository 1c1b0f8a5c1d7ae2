"""``companion device ...``: the sensor board — list ports, show live readings (and
referee them, through ``companion.referee.sensors``), run the board simulator."""

from __future__ import annotations

import argparse
import queue
import sys
import time

from companion.cli import UsageError
from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Indicators, Output, Seen
from companion.referee.sensors import to_referee
from companion.referee.words import say
from engines import rules_class
from engines.registry import GAMES
from firmware_bridge.bridge import (
    BoardError,
    BoardRestarted,
    Connected,
    ConnectFailed,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.errors import BridgeError
from firmware_bridge.layouts import Layout, layout_for, table_schema
from firmware_bridge.messages import Game, reading_code
from firmware_bridge.protocol import open_board
from firmware_bridge.simulator import add_arguments, simulate

ORDER = 60
"""Where the group is listed in ``companion --help``."""


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


# ----------------------------------------------------------------------------- ports


def ports_command(args: argparse.Namespace) -> int:
    from firmware_bridge.transport import list_ports  # deferred: loads pyserial

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
