"""The serial link on Android: the sensor board over USB OTG, through usb4a and
usbserial4a (Android does not let pyserial open ``/dev/tty*`` devices).

Targets start with ``usb:``:

- ``usb:`` — the attached USB serial device, the reference board first when several are;
- ``usb:VID:PID`` — the device with these ids, in hexadecimal (``usb:2341:0042``);
- ``usb:/dev/bus/usb/001/002`` — one device by its Android name (it changes at each
  plugging in, so ``usb:`` and ``usb:VID:PID`` are the ones to keep in a setting).

Android asks the player before an app may use a USB device. Opening a device without
that permission shows the question and waits for the answer (up to
``PERMISSION_WAIT`` seconds); a refusal is remembered until the device is plugged in
again, so the board's reconnection attempts do not ask over and over.

``UsbSerialTransport`` behaves like the desktop's ``SerialTransport``: every failure
(no device, permission refused, the cable pulled, a write that cannot complete) is a
``LinkLost`` with the same words, so the bridge above reports it and reconnects the
same way. usbserial4a reads a detached device as silence, so a quiet link checks every
``PRESENCE_CHECK`` seconds that the device is still attached.

The libraries are imported only when a ``usb:`` target is opened: the desktop never
needs them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from firmware_bridge.errors import LinkLost
from firmware_bridge.messages import BAUD

USB_PREFIX = "usb:"
PERMISSION_ACTION = "com.access.device.USB_PERMISSION"
"""The broadcast usb4a's permission request asks Android to send with the answer."""
PERMISSION_WAIT = 30.0
"""Seconds a player has to answer Android's question before the attempt gives up (the
bridge then tries again, and Android asks again)."""
PERMISSION_POLL = 0.1
PRESENCE_CHECK = 0.5
READ_CHUNK = 4096
POLL_SECONDS = 0.05
WRITE_TIMEOUT = 0.5

REFERENCE_BOARDS: tuple[tuple[int, int], ...] = (
    (0x2341, 0x0010),
    (0x2341, 0x0042),
    (0x2A03, 0x0010),
    (0x2A03, 0x0042),
    (0x2341, 0x0210),
    (0x2341, 0x0242),
    (0x1A86, 0x7523),
)
"""USB ids of the reference board: the Arduino Mega 2560 (its six ids in Arduino's
``boards.txt``), and the CH340 adapter most Mega 2560 copies carry. The Android
package's ``device_filter.xml`` lists the same ids."""

_LOST = "the cable was pulled or the board is gone"


class UsbDevice(Protocol):
    """What is used of Android's ``UsbDevice`` (a Java object through pyjnius)."""

    def getDeviceName(self) -> str: ...

    def getVendorId(self) -> int: ...

    def getProductId(self) -> int: ...


@dataclass(frozen=True)
class UsbTarget:
    """A parsed ``usb:`` target: any device, one by ids, or one by Android name."""

    vid: int | None = None
    pid: int | None = None
    device_name: str = ""

    @classmethod
    def parse(cls, text: str) -> UsbTarget:
        """Raises ``LinkLost`` for text that is not a ``usb:`` target."""
        if not text.startswith(USB_PREFIX):
            raise LinkLost(
                f"cannot open {text}: not a USB target (usb:, usb:VID:PID or usb:/dev/bus/usb/...)"
            )
        rest = text[len(USB_PREFIX) :].strip()
        if not rest:
            return cls()
        if rest.startswith("/"):
            return cls(device_name=rest)
        parts = rest.split(":")
        try:
            if len(parts) != 2:
                raise ValueError
            vid, pid = (int(part, 16) for part in parts)
            if not (0 <= vid <= 0xFFFF and 0 <= pid <= 0xFFFF):
                raise ValueError
        except ValueError:
            raise LinkLost(
                f"cannot open {text}: write usb:, usb:VID:PID with the ids in "
                "hexadecimal (usb:2341:0042) or usb:/dev/bus/usb/..."
            ) from None
        return cls(vid, pid)

    def format(self) -> str:
        if self.device_name:
            return USB_PREFIX + self.device_name
        if self.vid is not None and self.pid is not None:
            return f"{USB_PREFIX}{self.vid:04x}:{self.pid:04x}"
        return USB_PREFIX

    def matches(self, device: UsbDevice) -> bool:
        if self.device_name:
            return str(device.getDeviceName()) == self.device_name
        if self.vid is not None:
            return (device.getVendorId(), device.getProductId()) == (self.vid, self.pid)
        return True


def ids(device: UsbDevice) -> str:
    return f"{device.getVendorId():04x}:{device.getProductId():04x}"


class PermissionAnswers:
    """Hears Android's answer to a USB permission question (a broadcast), while in a
    ``with`` block. Without p4a's ``android.broadcast`` only a yes can be seen (by
    asking Android whether the permission is there)."""

    def __init__(self) -> None:
        self.answered = threading.Event()
        self._receiver: Any = None

    def __enter__(self) -> PermissionAnswers:
        try:
            from android.broadcast import BroadcastReceiver  # type: ignore[import-not-found]  # deferred: Android only
        except ImportError:
            return self
        self._receiver = BroadcastReceiver(self._heard, actions=[PERMISSION_ACTION])
        self._receiver.start()
        return self

    def _heard(self, context: Any, intent: Any) -> None:
        self.answered.set()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._receiver is not None:
            self._receiver.stop()
            self._receiver = None


class AndroidUsb:
    """The USB devices of an Android tablet, through usb4a's ``usb`` module and
    usbserial4a's ``serial4a`` module (fakes in tests). Keeps the devices whose
    permission was refused."""

    def __init__(
        self,
        usb: Any,
        serial4a: Any,
        answers: Callable[[], PermissionAnswers] = PermissionAnswers,
        permission_wait: float = PERMISSION_WAIT,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.usb = usb
        self.serial4a = serial4a
        self.answers = answers
        self.permission_wait = permission_wait
        self.clock = clock
        self.sleep = sleep
        self.refused: set[str] = set()
        """Android names of the devices whose permission was refused."""

    @classmethod
    def load(cls) -> AndroidUsb:
        """The real libraries. Raises ``LinkLost`` when they are not installed."""
        try:
            from usb4a import usb  # type: ignore[import-not-found]  # deferred: Android only
            from usbserial4a import serial4a  # type: ignore[import-not-found]  # deferred: Android only
        except ImportError as error:
            raise LinkLost(
                f"USB serial needs usb4a and usbserial4a, which the Android "
                f"package includes ({error})"
            ) from None
        return cls(usb, serial4a)

    def devices(self) -> list[UsbDevice]:
        """The attached USB devices, the reference board first. Raises ``LinkLost``
        when Android cannot be asked."""
        try:
            found = [d for d in self.usb.get_usb_device_list() if d is not None]
        except Exception as error:  # a Java exception through pyjnius
            raise LinkLost(f"cannot list the USB devices: {error}") from None
        return sorted(
            found,
            key=lambda d: (
                (d.getVendorId(), d.getProductId()) not in REFERENCE_BOARDS,
                str(d.getDeviceName()),
            ),
        )

    def attached(self, device_name: str) -> bool:
        try:
            return any(
                str(d.getDeviceName()) == device_name
                for d in self.usb.get_usb_device_list()
                if d is not None
            )
        except Exception:  # Android cannot be asked: the read that follows will say
            return True

    def find(self, target: UsbTarget) -> UsbDevice:
        """The device ``target`` names. Raises ``LinkLost`` when none is attached."""
        devices = self.devices()
        for device in devices:
            if target.matches(device):
                return device
        seen = ", ".join(f"{ids(d)} at {d.getDeviceName()}" for d in devices) or "none"
        raise LinkLost(
            f"cannot open {target.format()}: no such USB device is attached "
            f"(attached: {seen}); is the board plugged in through a USB OTG "
            "adapter?"
        )

    def ask_permission(self, device: UsbDevice, label: str) -> None:
        """Make sure the app may use ``device``: ask the player when Android has not
        allowed it yet, and wait for the answer. Raises ``LinkLost`` when the player
        refuses (now or earlier, for this plugging in) or does not answer in time."""
        if self.usb.has_usb_permission(device):
            return
        name = str(device.getDeviceName())
        if name in self.refused:
            raise LinkLost(_refused(label))
        with self.answers() as answers:
            try:
                self.usb.request_usb_permission(device)
            except Exception as error:  # a Java exception through pyjnius
                raise LinkLost(
                    f"cannot open {label}: Android did not ask for the "
                    f"permission to use it ({error})"
                ) from None
            deadline = self.clock() + self.permission_wait
            while self.clock() < deadline:
                if self.usb.has_usb_permission(device):
                    return
                if answers.answered.is_set():
                    self.refused.add(name)
                    raise LinkLost(_refused(label))
                self.sleep(PERMISSION_POLL)
        raise LinkLost(
            f"cannot open {label}: Android asked whether Companion may use the "
            f"board and no answer came within {self.permission_wait:g} s"
        )

    def open(self, text: str, baud: int = BAUD, poll: float = POLL_SECONDS) -> UsbSerialTransport:
        """Open the ``usb:`` target ``text``. Raises ``LinkLost``."""
        target = UsbTarget.parse(text)
        device = self.find(target)
        name = str(device.getDeviceName())
        self.refused &= {str(d.getDeviceName()) for d in self.devices()}  # unplugged
        label = f"{USB_PREFIX}{ids(device)}"
        self.ask_permission(device, label)
        try:
            port = self.serial4a.get_serial_port(
                name, baudrate=baud, timeout=poll, write_timeout=WRITE_TIMEOUT
            )
        except Exception as error:  # SerialException, USBError or a Java exception
            raise LinkLost(f"cannot open {label}: {error}") from None
        if not getattr(port, "is_open", False):
            raise LinkLost(f"cannot open {label}: Android did not open the device")
        return UsbSerialTransport(label, name, port, self)


def _refused(label: str) -> str:
    return (
        f"cannot open {label}: the permission to use the board was refused; unplug "
        "it, plug it in again and allow Companion to use it"
    )


class UsbSerialTransport:
    """One open USB serial port, like ``transport.SerialTransport``: ``read`` returns
    what arrived within the port's poll time (may be ``b""``); ``read`` and ``write``
    raise ``LinkLost`` when the device fails or is detached."""

    def __init__(self, name: str, device_name: str, port: Any, usb: AndroidUsb) -> None:
        self.name = name
        self.device_name = device_name
        self._port = port
        self._usb = usb
        self._checked = usb.clock()

    def _lost(self, error: object) -> LinkLost:
        return LinkLost(f"{self.name}: {_LOST} ({error})")

    def read(self) -> bytes:
        try:
            waiting = int(self._port.in_waiting)
            data = bytes(self._port.read(min(max(waiting, 1), READ_CHUNK)))
        except Exception as error:  # SerialException, USBError or a Java exception
            raise self._lost(error) from None
        if not data:
            now = self._usb.clock()
            if now - self._checked >= PRESENCE_CHECK:
                self._checked = now
                if not self._usb.attached(self.device_name):
                    raise self._lost("the USB device was detached")
        return data

    def write(self, data: bytes) -> None:
        try:
            written = self._port.write(data)
        except Exception as error:  # SerialException, USBError or a Java exception
            if type(error).__name__ == "SerialTimeoutException":
                raise LinkLost(f"{self.name}: the board stopped reading") from None
            raise self._lost(error) from None
        if written is None:  # usbserial4a writes nothing to a port it has closed
            raise self._lost("the port is closed")

    def close(self) -> None:
        # closing a device that is gone: nothing is left to release
        with contextlib.suppress(Exception):
            self._port.close()


_default: AndroidUsb | None = None


def default_usb() -> AndroidUsb:
    """The tablet's USB devices through the real libraries (loaded once). Raises
    ``LinkLost`` when they are missing."""
    global _default
    if _default is None:
        _default = AndroidUsb.load()
    return _default


def open_usb(target: str) -> UsbSerialTransport:
    """Open a ``usb:`` target on this tablet. Raises ``LinkLost``."""
    return default_usb().open(target)


LIBRARIES = ("usb4a", "usbserial4a")
"""The modules USB serial needs on Android (the Android package includes them)."""


def libraries_installed() -> bool:
    """Whether ``LIBRARIES`` can be imported (found, not imported)."""
    for name in LIBRARIES:
        if name in sys.modules:
            if sys.modules[name] is None:  # marked as not importable
                return False
        elif importlib.util.find_spec(name) is None:
            return False
    return True


def list_usb_ports() -> list[tuple[str, str, str]]:
    """(target, description, hardware id) of each attached USB device, the reference
    board first; empty when the libraries are missing (there is no USB serial to list).
    Raises ``LinkLost`` when Android cannot be asked for its devices."""
    if _default is None and not libraries_installed():
        return []
    devices = default_usb().devices()
    ports = []
    for device in devices:
        description = ""
        with contextlib.suppress(Exception):  # a name is a nicety: Android may not say
            description = str(device.getProductName() or "")  # type: ignore[attr-defined]
        ports.append(
            (
                USB_PREFIX + str(device.getDeviceName()),
                description,
                f"USB VID:PID={ids(device).upper()}",
            )
        )
    return ports
