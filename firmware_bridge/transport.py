"""The serial link: the only module that imports pyserial.

``open_transport`` opens a device path (``/dev/ttyACM0``, a pseudo-terminal) or any
pyserial URL (``loop://``, ``socket://host:port``, ...). Every failure of the port — it
cannot be opened, the cable was pulled (EOF / EIO), a write that cannot complete —
becomes ``LinkLost``. On an Android tablet, where pyserial cannot open the USB serial
devices, ``usb:`` targets go to ``android_serial`` and ``list_ports`` lists the USB
devices as such targets.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass

import serial  # type: ignore[import-untyped]  # pyserial ships no type hints
import serial.tools.list_ports  # type: ignore[import-untyped]

from firmware_bridge.android_serial import list_usb_ports, open_usb
from firmware_bridge.errors import LinkLost
from firmware_bridge.link import Transport
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


def on_android() -> bool:
    """Running inside the Android package (python-for-android sets ANDROID_ARGUMENT)."""
    return "ANDROID_ARGUMENT" in os.environ or sys.platform == "android"


def list_ports() -> list[PortInfo]:
    """The serial ports of this machine (USB adapters, built-in UARTs), by device path;
    on Android, the attached USB devices as ``usb:`` targets, the reference board first.
    Raises ``LinkLost`` when Android cannot be asked for its USB devices."""
    if on_android():
        return [PortInfo(*port) for port in list_usb_ports()]
    return sorted(
        (
            PortInfo(p.device, p.description or "", p.hwid or "")
            for p in serial.tools.list_ports.comports()
        ),
        key=lambda p: p.device,
    )


class SerialTransport:
    """One open serial port. ``read`` returns what arrived within ``poll`` seconds (may
    be ``b""``); ``read`` and ``write`` raise ``LinkLost`` when the port fails."""

    def __init__(self, target: str, baud: int = BAUD, poll: float = POLL_SECONDS) -> None:
        self.name = target
        try:
            self._port = serial.serial_for_url(
                target, baudrate=baud, timeout=poll, write_timeout=WRITE_TIMEOUT
            )
        except (serial.SerialException, OSError, ValueError) as error:
            raise LinkLost(f"cannot open {target}: {error}") from None

    def read(self) -> bytes:
        try:
            waiting = self._port.in_waiting
            data: bytes = self._port.read(min(max(waiting, 1), READ_CHUNK))
        except (serial.SerialException, OSError) as error:
            raise LinkLost(
                f"{self.name}: the cable was pulled or the board is gone ({error})"
            ) from None
        return data

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except serial.SerialTimeoutException:
            raise LinkLost(f"{self.name}: the board stopped reading") from None
        except (serial.SerialException, OSError) as error:
            raise LinkLost(
                f"{self.name}: the cable was pulled or the board is gone ({error})"
            ) from None

    def close(self) -> None:
        # closing a port whose device is gone: nothing is left to release
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()


def open_transport(target: str) -> Transport:
    """Open ``target``: a device path, a pyserial URL, or on Android a ``usb:`` target
    (``android_serial``). Raises ``LinkLost``."""
    if target.startswith("usb:"):
        return open_usb(target)
    return SerialTransport(target)
