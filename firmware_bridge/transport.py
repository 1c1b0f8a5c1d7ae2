"""The serial link: the only module that imports pyserial.

``open_transport`` opens a device path (``/dev/ttyACM0``, a pseudo-terminal) or any
pyserial URL (``loop://``, ``socket://host:port``, ...). Every failure of the port — it
cannot be opened, the cable was pulled (EOF / EIO), a write that cannot complete —
becomes ``LinkLost``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import serial  # type: ignore[import-untyped]  # pyserial ships no type hints
import serial.tools.list_ports  # type: ignore[import-untyped]

from firmware_bridge.errors import LinkLost
from firmware_bridge.messages import BAUD

READ_CHUNK = 4096
POLL_SECONDS = 0.05
"""How long ``read`` waits for a byte: the reader checks for a stop request this often."""
WRITE_TIMEOUT = 0.5


@dataclass(frozen=True)
class PortInfo:
    """A serial port of this machine."""

    device: str
    description: str
    hwid: str


def list_ports() -> list[PortInfo]:
    """The serial ports of this machine (USB adapters, built-in UARTs), by device path."""
    return sorted((PortInfo(p.device, p.description or "", p.hwid or "")
                   for p in serial.tools.list_ports.comports()), key=lambda p: p.device)


class SerialTransport:
    """One open serial port. ``read`` returns what arrived within ``poll`` seconds (may
    be ``b""``); ``read`` and ``write`` raise ``LinkLost`` when the port fails."""

    def __init__(self, target: str, baud: int = BAUD, poll: float = POLL_SECONDS) -> None:
        self.name = target
        try:
            self._port = serial.serial_for_url(target, baudrate=baud, timeout=poll,
                                               write_timeout=WRITE_TIMEOUT)
        except (serial.SerialException, OSError, ValueError) as error:
            raise LinkLost(f"cannot open {target}: {error}") from None

    def read(self) -> bytes:
        try:
            waiting = self._port.in_waiting
            data: bytes = self._port.read(min(max(waiting, 1), READ_CHUNK))
        except (serial.SerialException, OSError) as error:
            raise LinkLost(f"{self.name}: the cable was pulled or the board is gone "
                           f"({error})") from None
        return data

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except serial.SerialTimeoutException:
            raise LinkLost(f"{self.name}: the board stopped reading") from None
        except (serial.SerialException, OSError) as error:
            raise LinkLost(f"{self.name}: the cable was pulled or the board is gone "
                           f"({error})") from None

    def close(self) -> None:
        # closing a port whose device is gone: nothing is left to release
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()


def open_transport(target: str) -> SerialTransport:
    """Open ``target`` (a device path or a pyserial URL). Raises ``LinkLost``."""
    return SerialTransport(target)
