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
    Message,
    Pattern,
    SetLeds,
    Snapshot,
)

QUEUE_LIMIT = 64
"""Frames the device holds for sending before it overflows."""
MAX_ANSWERS = 8
"""Commands answered per ``receive`` (the firmware's answer queue, ``DEVICE_MAX_ANSWERS``):
the host never has that many waiting; beyond it a command is still carried out but goes
unanswered, and the host sends it again."""
GARBLED = frozenset({ErrorCode.CRC_MISMATCH, ErrorCode.MALFORMED_FRAME})
"""Frame errors counted as rejected in the heartbeat: the frame could not be read."""
FIRMWARE_NAME = "companion-sim 1"


class DeviceCore:
    """One board: its layout, sensors, debounced readings, LEDs and output queue.
    Times are in milliseconds since the board started."""

    def __init__(
        self,
        layout: Layout,
        readings: bytes | None = None,
        *,
        debounce: int = DEBOUNCE_SCANS,
        heartbeat_ms: int = HEARTBEAT_MS,
        firmware: str = FIRMWARE_NAME,
        queue_limit: int = QUEUE_LIMIT,
        leds: bool = True,
    ) -> None:
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
        self.info = DeviceInfo(
            PROTOCOL_VERSION, layout.game_id, layout.layout, n, capabilities, heartbeat_ms, firmware
        )
        self.parser = FrameParser(Direction.FROM_HOST)
        self.queue_limit = queue_limit
        self.overflows = 0
        self.rejected = 0
        """Host frames that could not be read at all (``GARBLED``)."""
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
        """Bytes from the host: answer each command in turn (``ACK`` or ``ERROR``, then
        the reply), at most ``MAX_ANSWERS`` of them. Any frame with a right CRC shows
        that the host is there; one that could not be read at all counts as rejected."""
        answered = 0
        replies: list[DeviceMessage]
        for item in self.parser.feed_all(data):
            if isinstance(item, FrameError):
                if item.seq is not None:
                    self._host_seen = now_ms
                if item.code in GARBLED:
                    self.rejected += 1
                replies = [frame_error_answer(item)]
            else:
                self._host_seen = now_ms
                replies = self._obey(item.message, item.seq)
            if replies and answered < MAX_ANSWERS:
                answered += 1
                self._out.extend(replies)

    def _obey(self, message: Message, seq: int) -> list[DeviceMessage]:
        """Carry out one command; the frames that answer it."""
        if isinstance(message, Hello):
            if message.protocol != PROTOCOL_VERSION:
                return [ErrorReport(seq, ErrorCode.UNSUPPORTED_VERSION), self.info]
            return [Ack(seq), self.info]
        if isinstance(message, GetSnapshot):
            return [Ack(seq), Snapshot(bytes(self.reported))]
        if isinstance(message, SetLeds):
            return [self._set_leds(message, seq)]
        if isinstance(message, HostHeartbeat):
            return []
        return [ErrorReport(seq, ErrorCode.UNKNOWN_TYPE)]

    def _set_leds(self, message: SetLeds, seq: int) -> Ack | ErrorReport:
        if any(led.index >= len(self.leds) for led in message.leds):
            return ErrorReport(seq, ErrorCode.POSITION_OUT_OF_RANGE)
        if message.clear_others:
            self.leds = [(Colour.OFF, Pattern.STEADY)] * len(self.leds)
        for led in message.leds:
            self.leds[led.index] = (led.colour, led.pattern)
        return Ack(seq)

    def tick(self, now_ms: float) -> None:
        """Heartbeats, and the LEDs off when the host has been silent too long."""
        if now_ms - self._last_heartbeat >= self.info.heartbeat_ms:
            self._last_heartbeat = now_ms
            self._queue(Heartbeat(int(now_ms), self.rejected, self.overflows))
        dark = (Colour.OFF, Pattern.STEADY)
        if now_ms - self._host_seen > HOST_SILENCE_MS and any(led != dark for led in self.leds):
            self.leds = [dark] * len(self.leds)

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
