"""The board's side of the protocol, without I/O (the simulator runs it on a
pseudo-terminal; ``firmware/device.c`` is the same logic in C).

``DeviceCore`` takes the host's bytes (``receive``), the sensors' readings
(``sense``), and the time (``scan``, ``tick``); it queues the frames to send
(``take_frame``). A position's new reading is reported once it has read the same
``debounce`` scans in a row; every change that settles in one scan goes into one
``Event``. When the output queue is full (the host stopped reading), the queued events
are replaced by one snapshot of the table, and an ``OVERFLOW`` error says so.
"""

from __future__ import annotations

from collections import deque

from firmware_bridge.codec import Direction, FrameParser, encode_frame
from firmware_bridge.errors import FrameError
from firmware_bridge.layouts import Layout
from firmware_bridge.messages import (
    DEBOUNCE_SCANS,
    HEARTBEAT_MS,
    HOST_SILENCE_MS,
    NO_SEQ,
    PROTOCOL_VERSION,
    SEQ_MODULO,
    Ack,
    Capability,
    Colour,
    DeviceInfo,
    DeviceMessage,
    ErrorCode,
    ErrorReport,
    Event,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostHeartbeat,
    Pattern,
    SetLeds,
    Snapshot,
)

QUEUE_LIMIT = 64
"""Frames the device holds for sending before it overflows."""
FIRMWARE_NAME = "companion-sim 1"


class DeviceCore:
    """One board: its layout, sensors, debounced readings, LEDs and output queue.
    Times are in milliseconds since the board started."""

    def __init__(self, layout: Layout, readings: bytes | None = None, *,
                 debounce: int = DEBOUNCE_SCANS, heartbeat_ms: int = HEARTBEAT_MS,
                 firmware: str = FIRMWARE_NAME, queue_limit: int = QUEUE_LIMIT,
                 leds: bool = True) -> None:
        n = layout.positions
        self.layout = layout
        start = bytes(readings) if readings is not None else bytes(n)
        if len(start) != n:
            raise ValueError(f"{len(start)} readings for {n} positions")
        self.sensors = bytearray(start)
        """What the sensors read now."""
        self.reported = bytearray(start)
        """The debounced readings the host was told."""
        self.leds: list[tuple[Colour, Pattern]] = [(Colour.OFF, Pattern.STEADY)] * n
        self.debounce = debounce
        capabilities = Capability(0)
        if layout.has_heights:
            capabilities |= Capability.HEIGHTS
        if leds:
            capabilities |= Capability.LEDS
        self.info = DeviceInfo(PROTOCOL_VERSION, layout.game_id, layout.layout, n,
                               capabilities, heartbeat_ms, firmware)
        self.parser = FrameParser(Direction.FROM_HOST)
        self.queue_limit = queue_limit
        self.overflows = 0
        self.scans = 0
        self._out: deque[DeviceMessage] = deque()
        self._seq = 0
        self._watch: dict[int, tuple[int, int]] = {}  # position -> (candidate, count)
        self._last_heartbeat = 0.0
        self._host_seen = 0.0

    # ------------------------------------------------------------------ sensors

    def sense(self, readings: bytes | bytearray) -> None:
        """What the sensors read from now on (the whole table)."""
        if len(readings) != len(self.sensors):
            raise ValueError(f"{len(readings)} readings for {len(self.sensors)} positions")
        for position, (old, new) in enumerate(zip(self.sensors, readings, strict=True)):
            if old != new:
                self.sensors[position] = new
                self._watch.setdefault(position, (self.reported[position], 0))

    def sense_one(self, position: int, reading: int) -> None:
        if self.sensors[position] != reading:
            self.sensors[position] = reading
            self._watch.setdefault(position, (self.reported[position], 0))

    def scan(self) -> None:
        """Read every sensor once. Positions that read as the host was told need no
        work, so only those with a change under way are looked at."""
        self.scans += 1
        if not self._watch:
            return
        changes = []
        for position, (candidate, count) in list(self._watch.items()):
            value = self.sensors[position]
            count = count + 1 if value == candidate else 1
            if count >= self.debounce:
                del self._watch[position]
                if value != self.reported[position]:
                    self.reported[position] = value
                    changes.append((position, value))
            else:
                self._watch[position] = (value, count)
        if changes:
            changes.sort()
            self._queue_event(Event(tuple(changes)))

    # ------------------------------------------------------------------ host

    def receive(self, data: bytes | bytearray, now_ms: float) -> None:
        """Bytes from the host: answer every command (ACK or ERROR, then the reply)."""
        for frame in self.parser.feed(data):
            self._host_seen = now_ms
            message, seq = frame.message, frame.seq
            if isinstance(message, Hello):
                if message.protocol != PROTOCOL_VERSION:
                    self._queue(ErrorReport(seq, ErrorCode.UNSUPPORTED_VERSION))
                else:
                    self._queue(Ack(seq))
                self._queue(self.info)
            elif isinstance(message, GetSnapshot):
                self._queue(Ack(seq))
                self._queue(Snapshot(bytes(self.reported)))
            elif isinstance(message, SetLeds):
                self._set_leds(message, seq)
            elif not isinstance(message, HostHeartbeat):
                self._queue(ErrorReport(seq, ErrorCode.UNKNOWN_TYPE))
        for error in self.parser.errors:
            self._queue(frame_error_answer(error))
        self.parser.errors.clear()

    def _set_leds(self, message: SetLeds, seq: int) -> None:
        if any(led.index >= len(self.leds) for led in message.leds):
            self._queue(ErrorReport(seq, ErrorCode.POSITION_OUT_OF_RANGE))
            return
        if message.clear_others:
            self.leds = [(Colour.OFF, Pattern.STEADY)] * len(self.leds)
        for led in message.leds:
            self.leds[led.index] = (led.colour, led.pattern)
        self._queue(Ack(seq))

    def tick(self, now_ms: float) -> None:
        """Heartbeats, and the LEDs off when the host has been silent too long."""
        if now_ms - self._last_heartbeat >= self.info.heartbeat_ms:
            self._last_heartbeat = now_ms
            self._queue(Heartbeat(int(now_ms), self.parser.dropped, self.overflows))
        if now_ms - self._host_seen > HOST_SILENCE_MS and any(
                colour != Colour.OFF for colour, _ in self.leds):
            self.leds = [(Colour.OFF, Pattern.STEADY)] * len(self.leds)

    # ------------------------------------------------------------------ output

    def _queue(self, message: DeviceMessage) -> None:
        self._out.append(message)

    def _queue_event(self, event: Event) -> None:
        if len(self._out) >= self.queue_limit:
            self.overflows += 1
            kept = [m for m in self._out if not isinstance(m, Event | Snapshot)]
            self._out = deque(kept)
            self._queue(ErrorReport(NO_SEQ, ErrorCode.OVERFLOW))
            self._queue(Snapshot(bytes(self.reported)))
            return
        self._queue(event)

    @property
    def queued(self) -> int:
        return len(self._out)

    def take_frame(self) -> bytes | None:
        """The next frame to send, numbered now; ``None`` when nothing is queued."""
        if not self._out:
            return None
        message = self._out.popleft()
        seq = self._seq
        self._seq = (seq + 1) % SEQ_MODULO
        return encode_frame(seq, message)


def frame_error_answer(error: FrameError) -> ErrorReport:
    """The ``ERROR`` a device sends for a frame it could not read."""
    return ErrorReport(NO_SEQ if error.seq is None else error.seq, error.code)
