"""The link under attack: after a good handshake the board sends CRC-valid nonsense and
damaged frames. ``BoardLink`` drops what does not decode, raises ``ProtocolError`` for
every message that does not fit the board, and nothing else; ``SensorBridge`` turns
each of those into a ``Disconnected``, connects again, and its reader never dies; if
it must stop, the app hears it."""

from __future__ import annotations

import queue
import threading
import time
from collections import deque

import numpy as np
import pytest

from companion.app.sensors import SensorLink
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import schema
from firmware_bridge.bridge import (
    BridgeEvent,
    BridgeStopped,
    Connected,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.codec import Direction, FrameParser, encode_frame
from firmware_bridge.device import DeviceCore
from firmware_bridge.errors import LinkLost, ProtocolError
from firmware_bridge.layouts import layout_for
from firmware_bridge.messages import (
    SNAPSHOT_REFRESH_MS,
    Capability,
    DeviceInfo,
    Event,
    GetSnapshot,
    Heartbeat,
    Message,
    Snapshot,
)
from firmware_bridge.protocol import ACK_TIMEOUT, BoardLink, TableUpdate, Transport
from tests.firmware_bridge.boards import next_event
from tests.firmware_bridge.fakes import FakeClock, ScriptedTransport
from tests.firmware_bridge.fuzz import (
    DEVICE_TYPES,
    good_device_frame,
    mutate,
    nonsense_frame,
)

LAYOUT = layout_for("shangrila")
SCHEMA = schema(ShangrilaRules())
INFO = DeviceInfo(1, 1, 1, 127, Capability.HEIGHTS | Capability.LEDS, 250, "fuzz")


def hostile_frames(seed: int, count: int) -> list[bytes]:
    """``count`` items: mostly one CRC-valid nonsense frame, or a damaged good one; one
    in twenty an ``INFO`` of another board with a snapshot of its size."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        roll = rng.random()
        if roll < 0.05:
            positions = int(rng.choice([49, 100, 128, 200, 255]))
            other = DeviceInfo(1, 1, 1, positions, INFO.capabilities, 250, "other")
            out.append(encode_frame(i, other) + encode_frame(i + 1, Snapshot(bytes(positions))))
        elif roll < 0.65:
            out.append(nonsense_frame(rng, DEVICE_TYPES))
        else:
            out.append(mutate(rng, good_device_frame(rng, i)))
    return out


def fits(message: Message) -> bool:
    """Whether a decoded message fits the board announced at the handshake."""
    if isinstance(message, DeviceInfo):
        return message == INFO
    if isinstance(message, Snapshot):
        return len(message.readings) == LAYOUT.positions
    if isinstance(message, Event):
        return all(index < LAYOUT.positions for index, _ in message.changes)
    return True


def _synced_link(clock: FakeClock) -> tuple[BoardLink, ScriptedTransport]:
    transport = ScriptedTransport([encode_frame(0, INFO)], clock, step=0.01)
    link = BoardLink(transport, LAYOUT, clock)
    link.handshake()
    transport.chunks.append(encode_frame(1, Snapshot(bytes(LAYOUT.positions))))
    link.poll()
    assert link.synced
    return link, transport


def _asks_for_a_snapshot(link: BoardLink, transport: ScriptedTransport, clock: FakeClock) -> bool:
    """Whether the host asks for a snapshot within a refresh period and a resend, the
    board only sending heartbeats meanwhile (nothing the host received may keep it
    from reading the table again)."""
    asked = len(_host_messages(transport, GetSnapshot))
    uptime = link._uptime or 0
    for _ in range(int((SNAPSHOT_REFRESH_MS / 1000 + ACK_TIMEOUT) / transport.step) + 20):
        uptime = min(uptime + 10, 0xFFFFFFFF)
        seq = link._expect if link._expect is not None else 0
        transport.chunks.append(encode_frame(seq, Heartbeat(uptime, 0, 0)))
        link.poll()
        if len(_host_messages(transport, GetSnapshot)) > asked:
            return True
    return False


def _host_messages(transport: ScriptedTransport, kind: type) -> list[object]:
    parser = FrameParser(Direction.FROM_HOST)
    return [
        f.message for f in parser.feed(b"".join(transport.written)) if isinstance(f.message, kind)
    ]


def link_fuzz(seed: int, count: int) -> dict[str, int]:
    """Each hostile frame (ended by an extra delimiter) through a synced ``BoardLink``;
    a fresh link after each protocol error. Fails at the first frame whose outcome is
    not the one the decoder and ``fits`` predict."""
    clock = FakeClock()
    link, transport = _synced_link(clock)
    figures = {"frames": 0, "dropped": 0, "protocol_errors": 0, "fitting": 0}
    for i, frame in enumerate(hostile_frames(seed, count)):
        chunk = frame + b"\x00"
        decoded = FrameParser(Direction.FROM_DEVICE).feed(chunk)
        misfit = next((f for f in decoded if not fits(f.message)), None)
        transport.chunks.append(chunk)
        figures["frames"] += 1
        try:
            updates = link.poll()
        except ProtocolError:
            assert misfit is not None, (
                f"frame {i} ({chunk.hex()}): a protocol error for {[f.message for f in decoded]}"
            )
            figures["protocol_errors"] += 1
            link, transport = _synced_link(clock)
            continue
        except LinkLost as error:
            raise AssertionError(f"frame {i}: the link was lost ({error})") from None
        assert misfit is None, f"frame {i} ({chunk.hex()}): {misfit} was taken"
        if i % 50 == 0:
            assert _asks_for_a_snapshot(link, transport, clock), (
                f"frame {i} ({chunk.hex()}): the host stopped asking for snapshots"
            )
        figures["fitting"] += len(decoded)
        figures["dropped"] += not decoded
        assert link.readings is not None and len(link.readings) == LAYOUT.positions
        for update in updates:
            if isinstance(update, TableUpdate):
                assert len(update.readings) == LAYOUT.positions
    return figures


def test_every_hostile_frame_is_dropped_taken_or_a_protocol_error() -> None:
    figures = link_fuzz(seed=3, count=1500)
    assert figures["frames"] == 1500
    assert figures["protocol_errors"] > 100 and figures["fitting"] > 100
    assert figures["dropped"] > 100


@pytest.mark.slow
def test_every_hostile_frame_is_dropped_taken_or_a_protocol_error_wide() -> None:
    for seed in range(20):
        assert link_fuzz(seed=100 + seed, count=5000)["frames"] == 5000


# ----------------------------------------------------------------------------- bridge


class FuzzedBoard:
    """A simulated board (``DeviceCore``) in real time that, once it has sent the
    snapshot the host asked for after the handshake, slips one hostile frame from the
    shared ``frames`` into each read."""

    def __init__(self, frames: deque[bytes], name: str) -> None:
        self.name = name
        self.core = DeviceCore(LAYOUT)
        self.frames = frames
        self.started = time.monotonic()
        self._host = FrameParser(Direction.FROM_HOST)
        self._asked = False
        self._live = False

    def _ms(self) -> float:
        return (time.monotonic() - self.started) * 1000

    def read(self) -> bytes:
        time.sleep(0.0005)
        self.core.scan()
        self.core.tick(self._ms())
        out = bytearray()
        while (frame := self.core.take_frame()) is not None:
            out += frame
        if self._live and self.frames:
            out += self.frames.popleft() + b"\x00"
        self._live = self._live or self._asked
        return bytes(out)

    def write(self, data: bytes) -> None:
        self._asked = self._asked or any(
            isinstance(f.message, GetSnapshot) for f in self._host.feed(data)
        )
        self.core.receive(data, self._ms())

    def close(self) -> None:
        pass


def bridge_fuzz(seed: int, count: int, timeout: float) -> dict[str, int]:
    """``count`` hostile frames through a ``SensorBridge``; its figures."""
    frames = deque(hostile_frames(seed, count))
    opened = 0

    def opener(target: str) -> Transport:
        nonlocal opened
        opened += 1
        return FuzzedBoard(frames, f"{target} #{opened}")

    bridge = SensorBridge(
        "fuzzed", LAYOUT, schema=SCHEMA, opener=opener, first_retry=0.001, last_retry=0.01
    ).start()
    deadline = time.monotonic() + timeout
    while frames and time.monotonic() < deadline and bridge.stopped is None:
        time.sleep(0.01)
    thread = bridge._thread
    alive = thread is not None and thread.is_alive()
    bridge.close()
    events: list[BridgeEvent] = []
    while True:
        try:
            events.append(bridge.events.get_nowait())
        except queue.Empty:
            break
    assert not frames, f"{len(frames)} frames were never read within {timeout} s"
    lost = [e for e in events if isinstance(e, Disconnected)]
    unexpected = [e.reason for e in lost if "Error: " in e.reason]
    return {
        "frames": count,
        "deaths": int(not alive) + sum(isinstance(e, BridgeStopped) for e in events),
        "disconnects": len(lost),
        "faults": len(unexpected),
        "connects": sum(isinstance(e, Connected) for e in events),
        "tables": sum(isinstance(e, TableChanged) for e in events),
    }


def test_another_board_announced_mid_stream_is_a_disconnection() -> None:
    other = DeviceInfo(1, 1, 1, 200, INFO.capabilities, 250, "other")
    frames = deque([encode_frame(50, other) + encode_frame(51, Snapshot(bytes(200)))])
    bridge = SensorBridge(
        "board",
        LAYOUT,
        schema=SCHEMA,
        first_retry=0.01,
        opener=lambda target: FuzzedBoard(frames, target),
    ).start()
    try:
        lost = next_event(bridge, Disconnected)
        assert "200 positions mid-stream" in lost.reason
        next_event(bridge, Connected)
        assert next_event(bridge, TableChanged).cause == "snapshot"
        assert bridge.stopped is None
    finally:
        bridge.close()


def test_the_bridge_survives_hostile_frames() -> None:
    figures = bridge_fuzz(seed=7, count=300, timeout=60)
    assert figures["deaths"] == 0 and figures["faults"] == 0
    assert figures["disconnects"] > 20
    assert figures["connects"] == figures["disconnects"] + 1


@pytest.mark.slow
def test_the_bridge_survives_hostile_frames_wide() -> None:
    figures = bridge_fuzz(seed=8, count=5000, timeout=600)
    assert figures["deaths"] == 0 and figures["faults"] == 0


# ----------------------------------------------------------------------------- a stop


def test_a_stopped_bridge_says_so_and_the_app_hears_it() -> None:
    # The callback fails on everything: not even the disconnection can be told, so the
    # reader stops, and what it could not deliver goes to the queue.
    heard: list[BridgeEvent] = []

    def on_event(event: BridgeEvent) -> None:
        heard.append(event)
        raise RuntimeError("the app could not take it")

    opened = threading.Event()

    def opener(target: str) -> Transport:
        opened.set()
        return FuzzedBoard(deque(), target)

    bridge = SensorBridge("board", LAYOUT, on_event=on_event, opener=opener).start()
    stopped = next_event(bridge, BridgeStopped)
    assert opened.is_set()
    assert [type(e) for e in heard] == [Connected, Disconnected, BridgeStopped]
    assert "RuntimeError: the app could not take it" in stopped.reason
    assert bridge.stopped is not None and bridge._thread is not None
    bridge._thread.join(1)
    assert not bridge._thread.is_alive()
    bridge.close()

    notices: list[tuple[str, str]] = []
    link = SensorLink.__new__(SensorLink)
    link.on_input, link.notice = (lambda _: None), (lambda k, d: notices.append((k, d)))
    link._told, link.stopped = threading.Condition(), False
    link._event(stopped)
    assert notices == [("notice.sensors_failed", stopped.reason)]
    assert link.stopped  # whoever waits for the board's readings stops waiting
