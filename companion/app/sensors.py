"""The sensor board for the app: a ``SensorBridge`` to a serial port (or the simulated
board on a pseudo-terminal), turned into referee inputs and notices. The bridge's own
reader thread does the serial I/O; nothing here blocks the caller."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from companion.app.frames import FeedError
from companion.app.gamesetup import GameSetup
from companion.referee.events import Input, Light, Seen
from engines.observation import Observation, TableSchema
from firmware_bridge.bridge import (
    BridgeStopped,
    Connected,
    ConnectFailed,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.errors import BridgeError, LightError
from firmware_bridge.layouts import TableConverter, layout_for
from firmware_bridge.simulator import BoardSimulator


class SensorLink:
    """Keeps the board connected; its tables go to ``on_input`` as ``Seen`` from
    ``sensors``; connection changes to ``notice(key, detail)``. Raises ``FeedError``
    when the board cannot be set up (no layout for the game, simulator not starting).
    Should the bridge stop reading the board for good, the notice says so.
    ``initial``: the table the simulated board's sensors read from the start (the
    game's table as it is set up), rather than an empty board."""

    def __init__(
        self,
        setup: GameSetup,
        schema: TableSchema,
        on_input: Callable[[Input], None],
        notice: Callable[[str, str], None],
        initial: Observation | None = None,
    ) -> None:
        self.on_input = on_input
        self.notice = notice
        self.board: Any = None
        self.readings = 0
        """Tables the board has told so far (its first, on connecting, included)."""
        self.last = b""
        """The raw readings of the last table told."""
        self._converter: Any = None
        self._told = threading.Condition()
        self.stopped = False
        """The bridge has stopped reading the board for good."""
        try:
            layout = layout_for(setup.game)
            target: str | None = setup.port or None
            if setup.sensors == "simulator":
                self._converter = TableConverter(layout, schema)
                self.board = BoardSimulator(layout)
                if initial is not None:
                    self.board.show(initial)  # read from its first scan
                target = self.board.start()
            self.bridge = SensorBridge(target, layout, schema=schema, on_event=self._event)
        except (BridgeError, OSError, ValueError) as error:
            if self.board is not None:
                self.board.stop()
            raise FeedError(f"sensor board: {error}") from None
        self.bridge.start()

    def _event(self, event: Any) -> None:
        if isinstance(event, TableChanged) and event.observation is not None:
            self.on_input(Seen(event.observation, "sensors"))
            with self._told:
                self.readings += 1
                self.last = event.readings
                self._told.notify_all()
        elif isinstance(event, Connected):
            self.notice("notice.sensors_connected", event.port)
        elif isinstance(event, Disconnected):
            self.notice("notice.sensors_lost", event.reason)
        elif isinstance(event, ConnectFailed) and event.retry_in >= 1.0:
            self.notice("notice.sensors_retry", event.reason)
        elif isinstance(event, BridgeStopped):
            with self._told:
                self.stopped = True
                self._told.notify_all()
            self.notice("notice.sensors_failed", event.reason)

    def show(self, lights: Iterable[Light]) -> None:
        """The referee's lights on the board (never blocks)."""
        try:
            self.bridge.show(lights)
        except LightError as error:
            self.notice("notice.lights_failed", str(error))

    def place(self, observation: Observation) -> None:
        """Simulated board only: make its sensors read ``observation``."""
        if self.board is None:
            return
        try:
            self.board.show(observation)
        except (BridgeError, ValueError) as error:
            self.notice("notice.sensors_failed", str(error))

    def wait_for(
        self, observation: Observation, timeout: float | None, cancel: threading.Event | None = None
    ) -> bool:
        """Simulated board only: wait until the last table it told (and gave to
        ``on_input``) is ``observation`` as its sensors read it; False when not
        within ``timeout`` seconds (None: as long as it takes), once ``cancel`` is
        set or the bridge has stopped for good (or no simulated board). A table its
        sensors cannot read gives False and a ``notice.sensors_failed`` notice saying
        why."""
        if self._converter is None:
            return False
        try:
            readings = self._converter.readings(observation)
        except (BridgeError, ValueError) as error:
            self.notice("notice.sensors_failed", str(error))
            return False

        def told() -> bool:
            return bool(self.last == readings)

        def given_up() -> bool:
            return self.stopped or (cancel is not None and cancel.is_set())

        with self._told:
            if timeout is not None:
                return self._told.wait_for(lambda: told() or given_up(), timeout) and told()
            while not (told() or given_up()):
                self._told.wait(0.2)  # ``cancel`` is looked at now and then
            return told()

    def close(self) -> None:
        self.bridge.close()
        if self.board is not None:
            self.board.stop()
