"""The host side of the protocol, joining the codecs to a transport.

``BoardLink`` owns one open transport: it shakes hands, keeps a mirror of the board's
readings, checks the device's sequence numbers (a gap means a frame was lost: it asks
for a snapshot and reports nothing until the snapshot arrives, so a table it reports is
never a wrong one), asks for a fresh snapshot every ``SNAPSHOT_REFRESH_MS`` (so a wrong
reading from a scrambled frame that passed the CRC does not stay), resends
unacknowledged commands, sends heartbeats and notices a board that fell silent. A
message that does not fit the board announced at the handshake is a ``ProtocolError``.
It never sleeps: every call returns after at most one ``Transport.read``.
``open_board`` and ``find_board`` connect by path or by asking each serial port for the
handshake.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields

from firmware_bridge.codec import Direction, FrameParser, encode_frame
from firmware_bridge.errors import LinkLost, ProtocolError
from firmware_bridge.layouts import Layout
from firmware_bridge.link import Transport
from firmware_bridge.messages import (
    HEARTBEAT_MS,
    HOST_HEARTBEAT_MS,
    LINK_SILENCE_HEARTBEATS,
    PROTOCOL_VERSION,
    SEQ_MODULO,
    SNAPSHOT_REFRESH_MS,
    Ack,
    DeviceInfo,
    ErrorCode,
    ErrorReport,
    Event,
    Frame,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostHeartbeat,
    HostMessage,
    Led,
    SetLeds,
    Snapshot,
)

ACK_TIMEOUT = 0.5
"""Seconds before an unacknowledged command is sent again."""
HANDSHAKE_TIMEOUT = 1.0
MAX_LEDS_PER_FRAME = 170
"""(512 payload bytes - 2) // 3 bytes per LED."""


@dataclass(frozen=True)
class TableUpdate:
    """The board's readings (one byte per position), after a snapshot or an event."""

    readings: bytes
    changed: tuple[int, ...]
    cause: str  # "snapshot" | "event"
    seq: int


@dataclass(frozen=True)
class DeviceFault:
    """The device refused a command or reported a problem (an ``ERROR`` frame)."""

    code: int
    name: str
    acked: int


@dataclass(frozen=True)
class DeviceRestarted:
    """The board started afresh without the link dropping (its uptime went back): its
    LEDs are off and the host has asked for a snapshot."""


Update = TableUpdate | DeviceFault | DeviceRestarted


@dataclass
class LinkStats:
    frames: int = 0
    dropped: int = 0
    """Frames that failed to decode (CRC, COBS, length)."""
    gaps: int = 0
    """Sequence gaps: frames lost on the way."""
    snapshots: int = 0
    events: int = 0
    device_errors: int = 0
    resent: int = 0
    device_rejected: int = 0
    """Host frames the device dropped as garbled (from its last heartbeat)."""
    device_overflows: int = 0
    """Times the device's output queue overflowed (from its last heartbeat)."""
    restarts: int = 0
    """Times the board started afresh while the link stayed up."""

    def plus(self, later: LinkStats) -> LinkStats:
        """Totals of two connections, this one first: counters add up, the device's
        own figures are ``later``'s."""
        total = LinkStats(
            **{f.name: getattr(self, f.name) + getattr(later, f.name) for f in fields(LinkStats)}
        )
        total.device_rejected = later.device_rejected
        total.device_overflows = later.device_overflows
        return total


class BoardLink:
    """The host's end of one connection. Raises ``LinkLost`` when the transport fails
    or the board falls silent, ``ProtocolError`` when the board breaks the protocol."""

    def __init__(
        self,
        transport: Transport,
        layout: Layout | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.transport = transport
        self.layout = layout
        self.clock = clock
        self.parser = FrameParser(Direction.FROM_DEVICE)
        self.stats = LinkStats()
        self.info: DeviceInfo | None = None
        self.readings: bytearray | None = None
        """The mirror of the board's readings; exact while ``synced``."""
        self.synced = False
        self._next_seq = 0
        self._expect: int | None = None
        self._pending: dict[int, tuple[HostMessage, float]] = {}
        self._snapshot_asked = False
        self._backlog: list[Frame] = []
        self._uptime: int | None = None
        now = clock()
        self._last_rx = now
        self._last_tx = now
        self._refreshed = now

    # ------------------------------------------------------------------ sending

    def send(self, message: HostMessage) -> int:
        """Send one command; its sequence number. Commands other than heartbeats are
        sent again until acknowledged."""
        seq = self._next_seq
        self._next_seq = (seq + 1) % SEQ_MODULO
        self.transport.write(encode_frame(seq, message))
        now = self.clock()
        self._last_tx = now
        if not isinstance(message, HostHeartbeat | Hello):
            self._pending[seq] = (message, now)
        return seq

    def request_snapshot(self) -> None:
        if not self._snapshot_asked:
            self._snapshot_asked = True
            self._refreshed = self.clock()
            self.send(GetSnapshot())

    def set_leds(self, leds: Iterable[Led]) -> None:
        """Show exactly these LEDs (every other position goes off). An earlier LED
        command still unacknowledged is superseded, not sent again."""
        chosen = sorted(leds, key=lambda led: led.index)
        for seq, (message, _) in list(self._pending.items()):
            if isinstance(message, SetLeds):
                del self._pending[seq]
        chunks = [
            chosen[i : i + MAX_LEDS_PER_FRAME] for i in range(0, len(chosen), MAX_LEDS_PER_FRAME)
        ] or [[]]
        for i, chunk in enumerate(chunks):
            self.send(SetLeds(tuple(chunk), clear_others=i == 0))

    # ------------------------------------------------------------------ receiving

    def handshake(
        self, timeout: float = HANDSHAKE_TIMEOUT, cancelled: Callable[[], bool] = lambda: False
    ) -> DeviceInfo:
        """Say hello and wait for the device's ``DeviceInfo``. Raises ``ProtocolError``
        when no board answers in time, it speaks another protocol version, or its
        layout is not ``layout``; ``LinkLost`` when the port fails."""
        self.transport.write(b"\x00")  # end whatever partial frame the device holds
        self.send(Hello(PROTOCOL_VERSION))
        deadline = self.clock() + timeout
        refused = False
        while self.clock() < deadline and not cancelled():
            frames = self.parser.feed(self.transport.read())
            for i, frame in enumerate(frames):
                message = frame.message
                if (
                    isinstance(message, ErrorReport)
                    and message.code == ErrorCode.UNSUPPORTED_VERSION
                ):
                    refused = True
                elif isinstance(message, DeviceInfo):
                    if refused or message.protocol != PROTOCOL_VERSION:
                        raise ProtocolError(
                            f"{self.transport.name} speaks protocol "
                            f"version {message.protocol}, not "
                            f"{PROTOCOL_VERSION}"
                        )
                    if self.layout is not None:
                        self.layout.check_info(message)
                    self.info = message
                    self._last_rx = self.clock()
                    self._backlog = frames[i + 1 :]
                    self._count(frame)
                    return message
                self._count(frame)
        raise ProtocolError(f"no board answered on {self.transport.name} within {timeout:g} s")

    def poll(self) -> list[Update]:
        """Read once, and do what is due: resend, heartbeat, check for silence."""
        data = self.transport.read()
        now = self.clock()
        updates: list[Update] = []
        frames, self._backlog = self._backlog, []
        if data:
            frames += self.parser.feed(data)
            self.stats.dropped = self.parser.dropped
        if frames:
            for frame in frames:
                self._last_rx = now
                update = self._on_frame(frame)
                if update is not None:
                    updates.append(update)
        self._timers(now)
        return updates

    def _count(self, frame: Frame) -> bool:
        """Track sequence numbers; True when a gap shows that a frame was lost."""
        self.stats.frames += 1
        gap = self._expect is not None and frame.seq != self._expect
        self._expect = (frame.seq + 1) % SEQ_MODULO
        if gap:
            self.stats.gaps += 1
        return gap

    def _on_frame(self, frame: Frame) -> Update | None:
        if self._count(frame):
            self.synced = False
            self.request_snapshot()
        message = frame.message
        if isinstance(message, Event):
            return self._on_event(message, frame.seq)
        if isinstance(message, Snapshot):
            return self._on_snapshot(message, frame.seq)
        if isinstance(message, Ack):
            self._on_ack(message.acked)
        elif isinstance(message, ErrorReport):
            self.stats.device_errors += 1
            refused = self._pending.pop(message.acked, None)
            if refused is not None and isinstance(refused[0], GetSnapshot):
                self._snapshot_asked = False  # the refresh timer asks again
            return DeviceFault(message.code, message.name, message.acked)
        elif isinstance(message, Heartbeat):
            self.stats.device_rejected = message.rejected
            self.stats.device_overflows = message.overflows
            uptime, self._uptime = self._uptime, message.uptime_ms
            if uptime is not None and message.uptime_ms < uptime:
                self.stats.restarts += 1
                self.synced = False
                self.request_snapshot()
                return DeviceRestarted()
        elif isinstance(message, DeviceInfo):
            self._on_info(message)
        return None

    def _on_info(self, info: DeviceInfo) -> None:
        """An ``INFO`` after the handshake: a repeat is harmless, another board is not
        (its readings would not fit the mirror nor the layout)."""
        if self.info is None:
            if self.layout is not None:
                self.layout.check_info(info)
            self.info = info
        elif info != self.info:
            raise ProtocolError(
                f"{self.transport.name}: the board announced game "
                f"{info.game} layout {info.layout} with {info.positions} "
                f"positions mid-stream; it was game {self.info.game} "
                f"layout {self.info.layout} with {self.info.positions}"
            )

    def _on_ack(self, acked: int) -> None:
        message = self._pending.pop(acked, None)
        if message is not None and isinstance(message[0], GetSnapshot):
            # The snapshot follows its ACK at once: a gap from here on may have lost it.
            self._snapshot_asked = False

    def _on_event(self, event: Event, seq: int) -> TableUpdate | None:
        self.stats.events += 1
        positions = self._positions()
        for index, _ in event.changes:
            if positions is not None and index >= positions:
                raise ProtocolError(f"event for position {index} of a {positions}-position board")
        if self.readings is None:
            return None
        for index, reading in event.changes:
            self.readings[index] = reading
        if not self.synced:
            return None
        return TableUpdate(bytes(self.readings), tuple(i for i, _ in event.changes), "event", seq)

    def _on_snapshot(self, snapshot: Snapshot, seq: int) -> TableUpdate | None:
        """The new table; ``None`` for a refresh that changed nothing."""
        self.stats.snapshots += 1
        self._snapshot_asked = False
        self._refreshed = self.clock()
        expected = self._positions()
        if expected is not None and len(snapshot.readings) != expected:
            raise ProtocolError(
                f"snapshot of {len(snapshot.readings)} readings from a {expected}-position board"
            )
        before, was_synced = self.readings, self.synced
        self.readings = bytearray(snapshot.readings)
        self.synced = True
        if before is None or len(before) != len(snapshot.readings):
            changed = tuple(range(len(snapshot.readings)))
        else:
            changed = tuple(
                i
                for i, (old, new) in enumerate(zip(before, snapshot.readings, strict=True))
                if old != new
            )
        if was_synced and not changed:
            return None
        return TableUpdate(bytes(snapshot.readings), changed, "snapshot", seq)

    def _positions(self) -> int | None:
        """How many readings the board has, as the layout or the handshake says."""
        if self.layout is not None:
            return self.layout.positions
        return self.info.positions if self.info is not None else None

    def _timers(self, now: float) -> None:
        heartbeat_ms = self.info.heartbeat_ms if self.info is not None else HEARTBEAT_MS
        silence = LINK_SILENCE_HEARTBEATS * heartbeat_ms / 1000
        if now - self._last_rx > silence:
            raise LinkLost(
                f"{self.transport.name}: no frame from the board for {now - self._last_rx:.1f} s"
            )
        for seq, (message, sent) in list(self._pending.items()):
            if now - sent > ACK_TIMEOUT:
                del self._pending[seq]
                self.stats.resent += 1
                if isinstance(message, GetSnapshot):
                    self._snapshot_asked = False
                    self.request_snapshot()
                else:
                    self.send(message)
        if self.info is not None and now - self._refreshed > SNAPSHOT_REFRESH_MS / 1000:
            self.request_snapshot()
        if now - self._last_tx > HOST_HEARTBEAT_MS / 1000:
            self.send(HostHeartbeat())

    def close(self) -> None:
        self.transport.close()


Opener = Callable[[str], Transport]


def _default_opener(target: str) -> Transport:
    from firmware_bridge.transport import open_transport  # deferred: pyserial, when a board opens

    return open_transport(target)


def open_board(
    target: str,
    layout: Layout | None = None,
    opener: Opener | None = None,
    timeout: float = HANDSHAKE_TIMEOUT,
    cancelled: Callable[[], bool] = lambda: False,
) -> BoardLink:
    """Open ``target`` (a device path, a pyserial URL, or on Android a ``usb:`` target)
    and shake hands. Raises
    ``LinkLost`` (cannot open) or ``ProtocolError`` (no board, or not ``layout``)."""
    transport = (opener or _default_opener)(target)
    link = BoardLink(transport, layout)
    try:
        link.handshake(timeout, cancelled)
    except BaseException:
        transport.close()
        raise
    return link


def find_board(
    candidates: Iterable[str],
    layout: Layout | None = None,
    opener: Opener | None = None,
    timeout: float = 0.5,
    cancelled: Callable[[], bool] = lambda: False,
) -> BoardLink:
    """The first of ``candidates`` (device paths) that answers the handshake, as an
    open link. Raises ``LinkLost`` naming every port tried when none does."""
    tried = []
    for target in candidates:
        if cancelled():
            break
        try:
            return open_board(target, layout, opener, timeout, cancelled)
        except (LinkLost, ProtocolError) as error:
            tried.append(f"{target} ({error})")
    raise LinkLost(
        "no board found" + (": tried " + "; ".join(tried) if tried else ": no serial port")
    )
