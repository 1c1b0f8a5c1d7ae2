"""The sensor bridge: a reader thread between a board and the referee.

``SensorBridge`` connects (to a path or URL, or to whichever serial port answers the
handshake), asks for a snapshot, and turns every snapshot and event into a
``TableChanged`` carrying an ``Observation`` of the game's table. When the cable is
pulled it reports ``Disconnected``, retries with exponential back-off (reporting each
failed attempt as ``ConnectFailed``), and after reconnecting asks for a fresh snapshot
and shows the lights again. A board that breaks the protocol, or any other fault while
serving it, is a ``Disconnected`` too, and the bridge connects again: the reader thread
never dies of an exception. Should it stop all the same (``on_event`` itself failing),
it says so with ``BridgeStopped``. Nothing here blocks the caller: events go to an unbounded
queue (``events``) or to an ``on_event`` callback run in the reader thread (which must
return quickly and not raise), light commands are handed to the reader thread, and
``close`` returns within a poll interval.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from engines.observation import Observation, TableSchema
from firmware_bridge.errors import LightError, LinkLost, ProtocolError
from firmware_bridge.layouts import Layout, TableConverter
from firmware_bridge.messages import Colour, DeviceInfo, Led, Pattern
from firmware_bridge.protocol import (
    BoardLink,
    DeviceFault,
    DeviceRestarted,
    LinkStats,
    Opener,
    Update,
    find_board,
    open_board,
)

FIRST_RETRY = 0.05
LAST_RETRY = 2.0
"""Back-off between connection attempts: doubling from ``FIRST_RETRY`` up to this."""


class LightLike(Protocol):
    """A light command: ``companion.referee.events.Light`` fits, or any object with
    these attributes (colour and pattern by name, as ``Colour`` and ``Pattern``)."""

    @property
    def element(self) -> str: ...

    @property
    def colour(self) -> str: ...

    @property
    def pattern(self) -> str: ...


@dataclass(frozen=True)
class Connected:
    port: str
    info: DeviceInfo


@dataclass(frozen=True)
class TableChanged:
    """The board's table after a snapshot or an event: ``observation`` (``None`` when
    the bridge has no schema for the game), the raw ``readings``, the positions that
    changed, and when it arrived (``time.monotonic``)."""

    observation: Observation | None
    readings: bytes
    changed: tuple[int, ...]
    cause: str
    received: float


@dataclass(frozen=True)
class Disconnected:
    """The link was lost (cable pulled, board silent, protocol broken)."""

    port: str
    reason: str


@dataclass(frozen=True)
class ConnectFailed:
    """An attempt to (re)connect failed; the next is in ``retry_in`` seconds."""

    target: str
    reason: str
    retry_in: float


@dataclass(frozen=True)
class BoardRestarted:
    """The board started afresh while the link stayed up (a power glitch): the bridge
    reads its table again and shows the lights again."""


@dataclass(frozen=True)
class BoardError:
    """The board reported an error (``messages.ErrorCode``)."""

    code: int
    name: str


@dataclass(frozen=True)
class BridgeStopped:
    """The reader thread stopped for good (the board is no longer read): ``reason``
    says why. Never sent after ``close``."""

    reason: str


BridgeEvent = (
    Connected
    | TableChanged
    | Disconnected
    | ConnectFailed
    | BoardError
    | BoardRestarted
    | BridgeStopped
)


class SensorBridge:
    """Keep a board connected and deliver what it reads (see the module's docstring).

    ``target`` is a device path or pyserial URL; ``None`` searches ``ports()`` (by
    default every serial port of the machine) for a board answering the handshake.
    With a ``schema`` the bridge delivers observations; raises ``LayoutError`` at once
    when the layout's calibration does not fit it.
    """

    def __init__(
        self,
        target: str | None,
        layout: Layout,
        *,
        schema: TableSchema | None = None,
        on_event: Callable[[BridgeEvent], None] | None = None,
        opener: Opener | None = None,
        ports: Callable[[], list[str]] | None = None,
        first_retry: float = FIRST_RETRY,
        last_retry: float = LAST_RETRY,
    ) -> None:
        self.target = target
        self.layout = layout
        self.converter = TableConverter(layout, schema) if schema is not None else None
        self.events: queue.SimpleQueue[BridgeEvent] = queue.SimpleQueue()
        self._deliver = on_event or self.events.put
        self._opener = opener
        self._ports = ports
        self.first_retry, self.last_retry = first_retry, last_retry
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._leds: tuple[Led, ...] = ()
        self._leds_changed = False
        self._stats = LinkStats()
        self._link: BoardLink | None = None
        self._last_readings: bytes | None = None
        self.connects = 0
        self.disconnects = 0
        self.stopped: str | None = None
        """Why the reader thread stopped for good (``BridgeStopped``), else ``None``."""

    # ------------------------------------------------------------------ caller's side

    def start(self) -> SensorBridge:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sensor-bridge", daemon=True)
            self._thread.start()
        return self

    def close(self, timeout: float = 2.0) -> None:
        """Stop the reader and close the port; returns within about a poll interval."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> SensorBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._link is not None

    def show(self, lights: Iterable[LightLike]) -> None:
        """Show exactly these lights (every other LED goes off), now or as soon as the
        board is connected; never blocks. Raises ``LightError`` for an element the
        board has no LED for, or an unknown colour or pattern. A value element and its
        height element (``4H``, ``4H^``) share one LED: the first light listed wins."""
        chosen: dict[int, Led] = {}
        for light in lights:
            try:
                position = self.layout.position_of(light.element)
            except KeyError:
                raise LightError(
                    f"the {self.layout.game} board has no light for {light.element!r}"
                ) from None
            try:
                colour = Colour[light.colour.upper()]
                pattern = Pattern[light.pattern.upper()]
            except KeyError:
                raise LightError(
                    f"{light.element}: cannot show {light.colour!r} "
                    f"{light.pattern!r} (colours: "
                    f"{', '.join(c.name.lower() for c in Colour)}; "
                    f"patterns: {', '.join(p.name.lower() for p in Pattern)})"
                ) from None
            chosen.setdefault(position, Led(position, colour, pattern))
        with self._lock:
            self._leds = tuple(chosen.values())
            self._leds_changed = True

    @property
    def stats(self) -> LinkStats:
        """Totals over every connection so far."""
        with self._lock:
            link = self._link
            return self._stats.plus(link.stats) if link is not None else replace(self._stats)

    # ------------------------------------------------------------------ reader thread

    def _connect(self) -> BoardLink:
        cancelled = self._stop.is_set
        if self.target is not None:
            return open_board(self.target, self.layout, self._opener, cancelled=cancelled)
        if self._ports is not None:
            candidates = self._ports()
        else:
            from firmware_bridge.transport import list_ports  # deferred: pyserial

            candidates = [port.device for port in list_ports()]
        return find_board(candidates, self.layout, self._opener, cancelled=cancelled)

    def _run(self) -> None:
        try:
            self._keep_connected()
        except Exception as error:  # the app must hear why the board went quiet
            self.stopped = _describe(error)
            stopped = BridgeStopped(f"the sensor bridge stopped: {self.stopped}")
            try:
                self._deliver(stopped)
            except Exception:  # on_event is what failed: the queue still hears
                self.events.put(stopped)

    def _keep_connected(self) -> None:
        delay = self.first_retry
        while not self._stop.is_set():
            try:
                link = self._connect()
            except Exception as error:  # any failure to connect is retried
                if self._stop.is_set():
                    break
                reason = (
                    str(error) if isinstance(error, LinkLost | ProtocolError) else _describe(error)
                )
                self._deliver(ConnectFailed(self.target or "any serial port", reason, delay))
                self._stop.wait(delay)
                delay = min(delay * 2, self.last_retry)
                continue
            delay = self.first_retry
            self._serve(link)

    def _serve(self, link: BoardLink) -> None:
        assert link.info is not None
        with self._lock:
            self._link = link
            self._leds_changed = True  # a board that (re)starts has its LEDs off
        self.connects += 1
        lost: Exception | None = None
        try:
            self._deliver(Connected(link.transport.name, link.info))
            link.request_snapshot()
            while not self._stop.is_set():
                if self._leds_changed:
                    with self._lock:
                        leds, self._leds_changed = self._leds, False
                    link.set_leds(leds)
                for update in link.poll():
                    self._on_update(update)
        except (LinkLost, ProtocolError) as error:
            lost = error
        except Exception as error:  # a fault here must not end the reader
            lost = ProtocolError(f"{link.transport.name}: {_describe(error)}")
        finally:
            link.close()
            with self._lock:
                self._stats = self._stats.plus(link.stats)
                self._link = None
        if lost is not None and not self._stop.is_set():
            self.disconnects += 1
            self._deliver(Disconnected(link.transport.name, str(lost)))

    def _on_update(self, update: Update) -> None:
        if isinstance(update, DeviceFault):
            self._deliver(BoardError(update.code, update.name))
            return
        if isinstance(update, DeviceRestarted):
            self._leds_changed = True
            self._deliver(BoardRestarted())
            return
        changed = update.changed
        before = self._last_readings
        if update.cause == "snapshot" and before is not None:
            # a fresh link has no mirror yet: compare with what was last delivered
            changed = tuple(
                i for i, (a, b) in enumerate(zip(before, update.readings, strict=True)) if a != b
            )
        self._last_readings = update.readings
        observation = (
            self.converter.observation(update.readings) if self.converter is not None else None
        )
        self._deliver(
            TableChanged(observation, update.readings, changed, update.cause, time.monotonic())
        )


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"
