"""A device simulator: a board on a pseudo-terminal, fed the table it should read.

``BoardSimulator`` runs ``DeviceCore`` in a thread on the master side of a pty; the host
opens the slave (``path``) like any serial device. Its sensors read whatever table it
is given (``show(observation)`` or raw ``set_readings``); it scans ``scan_hz`` times a
second, debounces, and paces its output to the link's baud rate as a UART would.
``unplug`` pulls the cable (mid-frame: half a frame, then the pty is closed); ``plug``
connects a freshly started board again (a new pty behind the same ``link`` path, as
udev's ``/dev/serial/by-id`` links behave).

As a process (``python -m firmware_bridge.simulator`` or ``companion device
simulate``) it prints ``board PATH`` and reads lines: an observation as JSON
(``Observation.to_json``), ``unplug [SECONDS]``, ``plug``, ``churn N`` (N changes
of a test pattern, one a scan, for benchmarks) or ``quit``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pty
import select
import signal
import sys
import threading
import time
import tty
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from engines.jsontext import parse_json
from engines.observation import Observation
from firmware_bridge.codec import encode_frame
from firmware_bridge.device import DeviceCore
from firmware_bridge.errors import BridgeError, LayoutError
from firmware_bridge.layouts import Layout, TableConverter, layout_for, table_schema
from firmware_bridge.messages import (
    BAUD,
    DEBOUNCE_SCANS,
    HEARTBEAT_MS,
    MAX_EVENT_RATE,
    NO_HEIGHT,
    SCAN_HZ,
    Colour,
    Heartbeat,
    Pattern,
    reading_byte,
)

TX_BURST = 64
"""Bytes a UART's transmit FIFO takes at once."""
SEND_CHUNK = 16
"""Bytes of credit the paced line waits for before writing again (fewer wake-ups)."""
CATCH_UP = 0.05
"""Seconds of scans and of line time this process makes up for after it was held up
(by the machine, as a board's timer and UART never are): missed scans run at once, and
the line sends what it would have sent meanwhile. Beyond that, both are skipped."""


def churn_change(layout: Layout, i: int) -> tuple[int, int]:
    """The ``i``-th change of the test pattern (from the table of all zeros): position
    ``i mod n`` takes the next of its kind's codes in turn (with a height for kinds
    that have one), so every change differs from the reading before it and stays for
    ``n`` scans, far longer than the debounce."""
    n = layout.positions
    position, round_ = i % n, i // n
    kind = layout.kinds[position]
    codes = sorted(kind.codes) if kind.codes is not None else [0, 1]
    if len(codes) < 2:
        codes = [0, 1]
    code = codes[(round_ + 1) % len(codes)]
    height = NO_HEIGHT
    if kind.height is not None:
        height = 0 if code == 0 else 1 + round_ % 2
    return position, reading_byte(code, height)


class BoardSimulator:
    """A simulated board on a pseudo-terminal (see the module's docstring)."""

    def __init__(
        self,
        layout: Layout,
        *,
        link: str | Path | None = None,
        readings: bytes | None = None,
        scan_hz: float = SCAN_HZ,
        debounce: int = DEBOUNCE_SCANS,
        baud: int = BAUD,
        heartbeat_ms: int = HEARTBEAT_MS,
    ) -> None:
        self.layout = layout
        self.link = Path(link) if link is not None else None
        self.scan_hz = scan_hz
        self.debounce = debounce
        self.baud = baud
        self.heartbeat_ms = heartbeat_ms
        self.churn_total = 0
        """Changes of the test pattern asked for so far (``churn``)."""
        self.churned = 0
        self._sensors = bytearray(readings if readings is not None else bytes(layout.positions))
        self._converter: TableConverter | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._core: DeviceCore | None = None
        self._master = self._slave = -1
        self._slave_path = ""
        self._tx = bytearray()
        self._blocked = False
        self._requests: list[tuple[str, threading.Event]] = []
        self._readings_changed = False
        self.frames_sent = 0
        self.bytes_sent = 0
        self._started = time.monotonic()

    # ------------------------------------------------------------------ control

    @property
    def path(self) -> str:
        """What the host opens: the ``link`` path, or the pty's own path."""
        return str(self.link) if self.link is not None else self._slave_path

    def start(self) -> str:
        """Plug the board in and start scanning; the path to open."""
        self._plug()
        self._thread = threading.Thread(target=self._run, name="board-simulator", daemon=True)
        self._thread.start()
        return self.path

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._unplug(mid_frame=False)

    def __enter__(self) -> BoardSimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def show(self, observation: Observation) -> None:
        """Make the sensors read ``observation``. Raises ``LayoutError`` when the
        layout cannot represent it."""
        if self._converter is None or self._converter.schema is not observation.schema:
            self._converter = TableConverter(self.layout, observation.schema)
        self.set_readings(self._converter.readings(observation))

    def set_readings(self, readings: bytes) -> None:
        """Make the sensors read these raw readings (one byte per position)."""
        if len(readings) != self.layout.positions:
            raise ValueError(f"{len(readings)} readings for {self.layout.positions} positions")
        with self._lock:
            self._sensors[:] = readings
            self._readings_changed = True

    def churn(self, changes: int) -> None:
        """Make ``changes`` more changes of the test pattern, one a scan, starting where
        the last ended (``churn_change``; from a table of zeros)."""
        with self._lock:
            self.churn_total += changes

    def unplug(self, mid_frame: bool = True) -> None:
        """Pull the cable (by default half-way through a frame); returns once done."""
        self._request("unplug-mid" if mid_frame else "unplug")

    def plug(self) -> None:
        """Plug a freshly started board in again; returns once it is connected."""
        self._request("plug")

    def _request(self, what: str) -> None:
        done = threading.Event()
        with self._lock:
            self._requests.append((what, done))
        if self._thread is None or not self._thread.is_alive():
            self._serve_requests()
        done.wait(timeout=2.0)

    @property
    def plugged(self) -> bool:
        return self._master >= 0

    @property
    def leds(self) -> list[tuple[Colour, Pattern]]:
        core = self._core
        return list(core.leds) if core is not None else []

    @property
    def core(self) -> DeviceCore | None:
        return self._core

    # ------------------------------------------------------------------ the board

    def _plug(self) -> None:
        if self._master >= 0:
            return
        master, slave = pty.openpty()
        tty.setraw(slave)  # no echo, no line editing: a byte pipe like a UART
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._slave_path = os.ttyname(slave)
        with self._lock:
            readings = bytes(self._sensors)
            self._readings_changed = False
        self._core = DeviceCore(
            self.layout, readings, debounce=self.debounce, heartbeat_ms=self.heartbeat_ms
        )
        self._tx.clear()
        if self.link is not None:
            temporary = self.link.with_name(self.link.name + ".new")
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(self._slave_path)
            os.replace(temporary, self.link)

    def _unplug(self, mid_frame: bool) -> None:
        if self._master < 0:
            return
        if mid_frame:
            frame = encode_frame(0, Heartbeat(0, 0, 0))
            with contextlib.suppress(OSError):  # a full pty: the cable goes anyway
                os.write(self._master, frame[: len(frame) // 2])
            time.sleep(0.05)  # let the host read the half frame before the line dies
        if self.link is not None:
            self.link.unlink(missing_ok=True)
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = -1
        self._core = None

    def _serve_requests(self) -> None:
        with self._lock:
            requests, self._requests = self._requests, []
        for what, done in requests:
            if what == "plug":
                self._plug()
            else:
                self._unplug(mid_frame=what == "unplug-mid")
            done.set()

    def _run(self) -> None:
        period = 1.0 / self.scan_hz
        started = self._started
        next_scan = started
        last = started
        budget = 0.0
        rate = self.baud / 10
        while not self._stop.is_set():
            if self._requests:
                self._serve_requests()
            core = self._core
            now = time.monotonic()
            if core is None:
                self._stop.wait(period)
                next_scan = last = time.monotonic()
                continue
            if self._readings_changed:
                with self._lock:
                    core.sense(self._sensors)
                    self._readings_changed = False
            if now >= next_scan:
                if self.churned < self.churn_total:
                    position, reading = churn_change(self.layout, self.churned)
                    self.churned += 1
                    with self._lock:
                        self._sensors[position] = reading
                    core.sense_one(position, reading)
                core.scan()
                next_scan += period
                if now - next_scan > CATCH_UP:
                    # Held up longer than the line and the scans both make up for:
                    # skip the missed scans rather than run them in a burst.
                    next_scan = now + period
            core.tick((now - started) * 1000)
            if rate:
                budget = min(budget + (now - last) * rate, max(TX_BURST, rate * CATCH_UP))
            last = now
            budget = self._send(core, budget if rate else float(TX_BURST * 64), rate > 0)
            self._wait(core, next_scan, budget, rate)

    def _send(self, core: DeviceCore, budget: float, paced: bool) -> float:
        while budget >= 1:
            if not self._tx:
                frame = core.take_frame()
                if frame is None:
                    break
                self._tx += frame
                self.frames_sent += 1
            chunk = min(len(self._tx), int(budget))
            try:
                written = os.write(self._master, self._tx[:chunk])
            except BlockingIOError:
                self._blocked = True  # the host is not reading: the pty is full
                break
            except OSError:
                return budget  # the host side is gone; the next plug starts afresh
            del self._tx[:written]
            self.bytes_sent += written
            if paced:
                budget -= written
        return budget

    def _wait(self, core: DeviceCore, next_scan: float, budget: float, rate: float) -> None:
        """Until the next scan, host bytes to read, or (paced) credit for a chunk."""
        timeout = max(0.0, next_scan - time.monotonic())
        blocked, self._blocked = self._blocked, False
        if (self._tx or core.queued) and rate and not blocked:
            timeout = min(timeout, max(0.0, (SEND_CHUNK - budget) / rate))
        try:
            readable, _, _ = select.select(
                [self._master], [self._master] if blocked else [], [], timeout
            )
            if readable:
                data = os.read(self._master, 4096)
                core.receive(data, (time.monotonic() - self._started) * 1000)
        except (BlockingIOError, InterruptedError):
            pass  # nothing to read after all; the loop goes on
        except OSError:
            self._stop.wait(0.01)


# ----------------------------------------------------------------------------- process


def _control(simulator: BoardSimulator, line: str) -> bool:
    """Handle one line of the control stream; False on ``quit``."""
    text = line.strip()
    if not text:
        return True
    if text.startswith("{"):
        data: Any = parse_json(text, "the observation")
        schema = table_schema(simulator.layout.game)
        simulator.show(Observation.from_json(schema, data))
        return True
    word, _, rest = text.partition(" ")
    if word == "unplug":
        simulator.unplug()
        if rest:
            time.sleep(float(rest))
            simulator.plug()
        return True
    if word == "plug":
        simulator.plug()
        return True
    if word == "churn":
        simulator.churn(int(rest))
        return True
    if word == "quit":
        return False
    raise ValueError(
        f"unknown line {text[:40]!r} (an observation as JSON, unplug "
        "[SECONDS], plug, churn N, quit)"
    )


def run(simulator: BoardSimulator, stream: TextIO, out: TextIO, *, stay: bool = True) -> int:
    """Serve ``simulator`` and apply ``stream``'s lines; after the stream ends, keep
    serving until interrupted when ``stay``."""
    path = simulator.start()
    print(f"board {path}", file=out, flush=True)
    try:
        for line in stream:
            try:
                if not _control(simulator, line):
                    return 0
            except (ValueError, BridgeError) as error:
                print(f"simulator: {error}", file=sys.stderr, flush=True)
        while stay:
            time.sleep(3600)
        return 0
    finally:
        simulator.stop()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default="shangrila",
        help="the board's game: shangrila (default), shendao, shenshi",
    )
    parser.add_argument(
        "--link",
        metavar="PATH",
        help="also make PATH a link to the board's pty (kept across unplug and plug)",
    )
    parser.add_argument(
        "--table",
        default="-",
        metavar="FILE",
        help="the control stream: observations as JSON lines, unplug "
        "[SECONDS], plug, churn N, quit (default - : standard input)",
    )
    parser.add_argument(
        "--scan-hz",
        type=float,
        default=SCAN_HZ,
        help=f"scans a second (default {SCAN_HZ}; {MAX_EVENT_RATE} makes "
        "churn run at the protocol's ceiling)",
    )
    parser.add_argument(
        "--debounce",
        type=int,
        default=DEBOUNCE_SCANS,
        help=f"scans a change must hold (default {DEBOUNCE_SCANS})",
    )
    parser.add_argument(
        "--baud",
        type=int,
        default=BAUD,
        help=f"pace output to this link rate; 0: unpaced (default {BAUD})",
    )
    parser.add_argument(
        "--exit-at-end", action="store_true", help="stop when the control stream ends"
    )


def simulate(args: argparse.Namespace) -> int:
    """Run the simulator process from parsed ``add_arguments`` options."""
    layout = layout_for(args.game)
    simulator = BoardSimulator(
        layout, link=args.link, scan_hz=args.scan_hz, debounce=args.debounce, baud=args.baud
    )

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)
    try:
        if args.table == "-":
            return run(simulator, sys.stdin, sys.stdout, stay=not args.exit_at_end)
        with open(args.table, encoding="utf-8") as stream:
            return run(simulator, stream, sys.stdout, stay=not args.exit_at_end)
    except OSError as error:
        print(f"simulator: {error}", file=sys.stderr)
        return 2
    except LayoutError as error:
        print(f"simulator: {error}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m firmware_bridge.simulator",
        description="A simulated sensor board on a pseudo-terminal.",
    )
    add_arguments(parser)
    try:
        return simulate(parser.parse_args(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
