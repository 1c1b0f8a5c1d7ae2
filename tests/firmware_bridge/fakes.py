"""Fake transports for protocol tests: scripted bytes, or a device core in-process."""

from __future__ import annotations

from collections.abc import Iterable

from firmware_bridge.device import DeviceCore
from firmware_bridge.errors import LinkLost


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ScriptedTransport:
    """Each ``read`` returns the next scripted chunk (``b""`` once the script is over);
    a ``LinkLost`` in the script is raised instead. Writes are kept."""

    name = "scripted"

    def __init__(
        self,
        chunks: Iterable[bytes | LinkLost] = (),
        clock: FakeClock | None = None,
        step: float = 0.0,
    ) -> None:
        self.chunks = list(chunks)
        self.written: list[bytes] = []
        self.closed = False
        self.clock, self.step = clock, step

    def read(self) -> bytes:
        if self.clock is not None:
            self.clock.advance(self.step)
        if not self.chunks:
            return b""
        chunk = self.chunks.pop(0)
        if isinstance(chunk, LinkLost):
            raise chunk
        return chunk

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def close(self) -> None:
        self.closed = True


class CoreTransport:
    """A ``DeviceCore`` behind a transport: writes go to the device at once; each read
    advances the fake clock by ``step``, lets the device scan and tick, and returns
    what it sends. ``drop`` (frame numbers, counted from 0) loses device frames on
    the way; ``pulled`` makes the link fail."""

    name = "core"

    def __init__(self, core: DeviceCore, clock: FakeClock, step: float = 0.01) -> None:
        self.core, self.clock, self.step = core, clock, step
        self.started = clock.now
        self.drop: set[int] = set()
        self.sent = 0
        self.pulled = False
        self.closed = False
        self.host_bytes = bytearray()

    def _ms(self) -> float:
        return (self.clock.now - self.started) * 1000

    def read(self) -> bytes:
        if self.pulled:
            raise LinkLost("core: cable pulled")
        self.clock.advance(self.step)
        self.core.scan()
        self.core.tick(self._ms())
        out = bytearray()
        while (frame := self.core.take_frame()) is not None:
            if self.sent not in self.drop:
                out += frame
            self.sent += 1
        return bytes(out)

    def write(self, data: bytes) -> None:
        if self.pulled:
            raise LinkLost("core: cable pulled")
        self.host_bytes += data
        self.core.receive(data, self._ms())

    def close(self) -> None:
        self.closed = True
