"""The sensor board over USB on Android, with fakes of usb4a, usbserial4a and p4a's
broadcast receiver: targets, choosing the device, the permission question (granted,
refused, unanswered), reading and writing, a pulled cable mid-game with the same words
and reconnection as on the desktop, and the run-time choice in ``transport``."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import serial  # type: ignore[import-untyped]

from engines import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected, schema
from firmware_bridge import android_serial, transport
from firmware_bridge.android_serial import (
    PERMISSION_ACTION,
    PRESENCE_CHECK,
    AndroidUsb,
    PermissionAnswers,
    UsbTarget,
)
from firmware_bridge.bridge import (
    Connected,
    ConnectFailed,
    Disconnected,
    SensorBridge,
    TableChanged,
)
from firmware_bridge.errors import LinkLost
from firmware_bridge.layouts import layout_for
from firmware_bridge.simulator import BoardSimulator
from tests.firmware_bridge.boards import next_event
from tests.firmware_bridge.fakes import FakeClock

MEGA = (0x2341, 0x0042)
OTHER = (0x0BDA, 0x8153)  # a USB network adapter on the same hub


class FakeDevice:
    """Android's ``UsbDevice`` as pyjnius shows it."""

    def __init__(self, name: str, ids: tuple[int, int], product: str = "") -> None:
        self.name, self.ids, self.product = name, ids, product

    def getDeviceName(self) -> str:
        return self.name

    def getVendorId(self) -> int:
        return self.ids[0]

    def getProductId(self) -> int:
        return self.ids[1]

    def getProductName(self) -> str:
        return self.product


class FakeUsb:
    """usb4a's ``usb`` module on a tablet whose player answers ``answer`` ("yes",
    "no", or None: the question is left on the screen)."""

    def __init__(self, answer: str | None = "yes") -> None:
        self.devices: list[FakeDevice] = []
        self.allowed: set[str] = set()
        self.answer = answer
        self.asked: list[str] = []
        self.receivers: list[Any] = []

    def get_usb_device_list(self) -> list[FakeDevice]:
        return list(self.devices)

    def has_usb_permission(self, device: FakeDevice) -> bool:
        return device.name in self.allowed

    def request_usb_permission(self, device: FakeDevice) -> None:
        self.asked.append(device.name)
        if self.answer == "yes":
            self.allowed.add(device.name)
        if self.answer is not None:
            for receiver in list(self.receivers):
                receiver.callback("context", {"permission": self.answer == "yes"})

    def broadcast_module(self) -> types.ModuleType:
        """p4a's ``android.broadcast``: receivers hear this tablet's answers."""
        usb = self

        class BroadcastReceiver:
            def __init__(self, callback: Callable[[Any, Any], None], actions: list[str]) -> None:
                assert actions == [PERMISSION_ACTION]
                self.callback = callback

            def start(self) -> None:
                usb.receivers.append(self)

            def stop(self) -> None:
                usb.receivers.remove(self)

        module = types.ModuleType("android.broadcast")
        module.BroadcastReceiver = BroadcastReceiver  # type: ignore[attr-defined]
        return module


class ScriptedPort:
    """A usbserial4a port: ``incoming`` is read; a detached device reads as nothing
    (usbserial4a turns the failed transfer into a timeout) and fails to write."""

    def __init__(self) -> None:
        self.incoming = bytearray()
        self.written = bytearray()
        self.detached = False
        self.is_open = True

    @property
    def in_waiting(self) -> int:
        return 0 if self.detached else len(self.incoming)

    def read(self, size: int = 1) -> bytes:
        if self.detached:
            return b""
        data = bytes(self.incoming[:size])
        del self.incoming[:size]
        return data

    def write(self, data: bytes) -> int | None:
        if not self.is_open:
            return None
        if self.detached:
            raise serial.SerialException(f"Failed to write {data!r}: -1")
        self.written += data
        return len(data)

    def close(self) -> None:
        self.is_open = False


class FakeSerial4a:
    """usbserial4a's ``serial4a`` module: ``ports`` makes the port of a device name."""

    def __init__(self, usb: FakeUsb, ports: Callable[[str], Any] | None = None) -> None:
        self.usb = usb
        self.ports = ports or (lambda name: ScriptedPort())
        self.opened: list[tuple[str, dict[str, Any]]] = []

    def get_serial_port(self, name: str, **settings: Any) -> Any:
        if not any(d.name == name for d in self.usb.devices):
            raise OSError("Device does not exist!")
        self.opened.append((name, settings))
        port = self.ports(name)
        if name not in self.usb.allowed:  # usbserial4a leaves such a port closed
            port.is_open = False
        return port


@pytest.fixture
def usb(monkeypatch: pytest.MonkeyPatch) -> FakeUsb:
    fake = FakeUsb()
    monkeypatch.setitem(sys.modules, "android", types.ModuleType("android"))
    monkeypatch.setitem(sys.modules, "android.broadcast", fake.broadcast_module())
    return fake


def tablet(
    usb: FakeUsb,
    clock: FakeClock | None = None,
    wait: float = 30.0,
    ports: Callable[[str], Any] | None = None,
) -> AndroidUsb:
    clock = clock or FakeClock()
    return AndroidUsb(
        usb, FakeSerial4a(usb, ports), permission_wait=wait, clock=clock, sleep=clock.advance
    )


# ---------------------------------------------------------------------- targets


@pytest.mark.parametrize(
    "text, target",
    [
        ("usb:", UsbTarget()),
        ("usb:2341:0042", UsbTarget(0x2341, 0x0042)),
        ("usb:/dev/bus/usb/001/004", UsbTarget(device_name="/dev/bus/usb/001/004")),
    ],
)
def test_targets_round_trip(text: str, target: UsbTarget) -> None:
    assert UsbTarget.parse(text) == target
    assert target.format() == text
    assert eval(repr(target)) == target


@pytest.mark.parametrize("text", ["usb:2341", "usb:zz:0042", "usb:2341:10000", "/dev/ttyACM0"])
def test_a_malformed_target_says_how_to_write_one(text: str) -> None:
    with pytest.raises(LinkLost, match=f"cannot open {text}: .*usb:"):
        UsbTarget.parse(text)


# ---------------------------------------------------------------------- devices


def test_usb_opens_the_reference_board_among_other_devices(usb: FakeUsb) -> None:
    usb.devices = [
        FakeDevice("/dev/bus/usb/001/002", OTHER),
        FakeDevice("/dev/bus/usb/001/003", MEGA, "Arduino Mega 2560"),
    ]
    serial4a = FakeSerial4a(usb)
    link = AndroidUsb(usb, serial4a).open("usb:")
    assert link.name == "usb:2341:0042" and link.device_name == "/dev/bus/usb/001/003"
    name, settings = serial4a.opened[0]
    assert name == "/dev/bus/usb/001/003" and settings["baudrate"] == 115200
    by_ids = AndroidUsb(usb, serial4a).open("usb:0bda:8153")
    assert by_ids.device_name == "/dev/bus/usb/001/002"


def test_no_device_attached(usb: FakeUsb) -> None:
    usb.devices = [FakeDevice("/dev/bus/usb/001/002", OTHER)]
    with pytest.raises(
        LinkLost,
        match=r"cannot open usb:2341:0042: no such USB device is "
        r"attached \(attached: 0bda:8153 at /dev/bus/usb/001/002\)",
    ):
        tablet(usb).open("usb:2341:0042")


# ---------------------------------------------------------------------- permission


def test_the_player_is_asked_once_and_allows(usb: FakeUsb) -> None:
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA)]
    android = tablet(usb)
    android.open("usb:")
    android.open("usb:")
    assert usb.asked == ["/dev/bus/usb/001/003"]  # Android remembers the yes
    assert usb.receivers == []  # the answer is no longer listened for


def test_a_refusal_is_said_plainly_and_not_asked_again_until_replugged(usb: FakeUsb) -> None:
    usb.answer = "no"
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA)]
    android = tablet(usb)
    for _ in range(3):  # the bridge's reconnection attempts
        with pytest.raises(
            LinkLost,
            match="cannot open usb:2341:0042: the permission to "
            "use the board was refused; unplug it, plug it "
            "in again and allow Companion to use it",
        ):
            android.open("usb:")
    assert usb.asked == ["/dev/bus/usb/001/003"]
    usb.devices = [FakeDevice("/dev/bus/usb/001/004", MEGA)]  # plugged in again
    usb.answer = "yes"
    assert android.open("usb:").device_name == "/dev/bus/usb/001/004"
    assert usb.asked == ["/dev/bus/usb/001/003", "/dev/bus/usb/001/004"]
    assert android.refused == set()


def test_an_unanswered_question_gives_up_after_the_wait(usb: FakeUsb) -> None:
    usb.answer = None
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA)]
    clock = FakeClock()
    started = clock.now
    with pytest.raises(LinkLost, match="no answer came within 5 s"):
        tablet(usb, clock, wait=5.0).open("usb:")
    assert 5.0 <= clock.now - started < 5.2
    usb.answer = "yes"  # answered late: the next attempt asks again and opens
    assert tablet(usb).open("usb:").name == "usb:2341:0042"


def test_a_yes_is_seen_without_the_broadcast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "android.broadcast", None)  # not importable
    usb = FakeUsb("yes")
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA)]
    with PermissionAnswers() as answers:
        assert not answers.answered.is_set()
    assert tablet(usb).open("usb:").name == "usb:2341:0042"


# ---------------------------------------------------------------------- the link


def test_reads_and_writes(usb: FakeUsb) -> None:
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA)]
    port = ScriptedPort()
    link = tablet(usb, ports=lambda name: port).open("usb:")
    port.incoming += b"\x01\x02\x03"
    assert link.read() == b"\x01\x02\x03"
    assert link.read() == b""
    link.write(b"\x00hello")
    assert bytes(port.written) == b"\x00hello"
    link.close()
    assert not port.is_open


def test_a_pulled_cable_is_lost_in_the_desktop_words(usb: FakeUsb) -> None:
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA)]
    port = ScriptedPort()
    clock = FakeClock()
    link = tablet(usb, clock, ports=lambda name: port).open("usb:")
    port.detached = True
    usb.devices = []
    assert link.read() == b""  # silence, until the presence check
    clock.advance(PRESENCE_CHECK)
    with pytest.raises(
        LinkLost,
        match="usb:2341:0042: the cable was pulled or the board is "
        r"gone \(the USB device was detached\)",
    ):
        link.read()
    with pytest.raises(LinkLost, match="the cable was pulled or the board is gone"):
        link.write(b"\x00")


# ---------------------------------------------------------------------- run-time choice


def _install(monkeypatch: pytest.MonkeyPatch, usb: FakeUsb) -> FakeSerial4a:
    """usb4a and usbserial4a as the Android package has them, and a fresh default."""
    serial4a = FakeSerial4a(usb)
    usb4a = types.ModuleType("usb4a")
    usb4a.usb = usb  # type: ignore[attr-defined]
    usbserial4a = types.ModuleType("usbserial4a")
    usbserial4a.serial4a = serial4a  # type: ignore[attr-defined]
    for name, module in [
        ("usb4a", usb4a),
        ("usb4a.usb", usb),
        ("usbserial4a", usbserial4a),
        ("usbserial4a.serial4a", serial4a),
    ]:
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(android_serial, "_default", None)
    return serial4a


def test_open_transport_chooses_usb_for_usb_targets(
    monkeypatch: pytest.MonkeyPatch, usb: FakeUsb
) -> None:
    usb.devices = [FakeDevice("/dev/bus/usb/001/003", MEGA, "Arduino Mega 2560")]
    _install(monkeypatch, usb)
    link = transport.open_transport("usb:")
    assert isinstance(link, android_serial.UsbSerialTransport)
    monkeypatch.setenv("ANDROID_ARGUMENT", "/data/data/org.companion.companion/files/app")
    assert transport.list_ports() == [
        transport.PortInfo("usb:/dev/bus/usb/001/003", "Arduino Mega 2560", "USB VID:PID=2341:0042")
    ]


def test_without_the_libraries_usb_is_refused_plainly(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("usb4a", "usbserial4a"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setattr(android_serial, "_default", None)
    with pytest.raises(LinkLost, match="USB serial needs usb4a and usbserial4a"):
        transport.open_transport("usb:")
    monkeypatch.setenv("ANDROID_ARGUMENT", "app")
    assert transport.list_ports() == []
    for name in ("usb4a", "usbserial4a"):  # a machine without them: not found
        monkeypatch.delitem(sys.modules, name)
    assert not android_serial.libraries_installed()


def test_android_failing_to_list_its_devices_is_said_not_an_empty_list(
    monkeypatch: pytest.MonkeyPatch, usb: FakeUsb
) -> None:
    def fails() -> list[FakeDevice]:
        raise RuntimeError("java.lang.SecurityException: USB service unavailable")

    _install(monkeypatch, usb)
    monkeypatch.setattr(usb, "get_usb_device_list", fails)
    monkeypatch.setenv("ANDROID_ARGUMENT", "app")
    assert android_serial.libraries_installed()
    with pytest.raises(LinkLost, match=r"cannot list the USB devices: .*SecurityException"):
        transport.list_ports()


# ---------------------------------------------------------------------- a game's board

LAYOUT = layout_for("shangrila")
RULES = ShangrilaRules()


class PtyPort:
    """A usbserial4a port to the simulated board's pseudo-terminal, failing as
    usbserial4a does once the cable is pulled: reads give nothing, writes raise."""

    def __init__(self, path: str) -> None:
        self._port = serial.serial_for_url(path, baudrate=115200, timeout=0.05)
        self.is_open = True

    @property
    def in_waiting(self) -> int:
        try:
            return int(self._port.in_waiting)
        except (serial.SerialException, OSError):
            return 0

    def read(self, size: int = 1) -> bytes:
        try:
            return bytes(self._port.read(size))
        except (serial.SerialException, OSError):
            return b""

    def write(self, data: bytes) -> int:
        try:
            return int(self._port.write(data))
        except (serial.SerialException, OSError) as error:
            raise serial.SerialException(f"Failed to write: -1 ({error})") from None

    def close(self) -> None:
        self._port.close()


class PluggedBoard:
    """The simulated board behind the fake tablet's USB: each plugging in gives the
    device a new Android name, as Android does."""

    def __init__(self, board: BoardSimulator, usb: FakeUsb) -> None:
        self.board, self.usb, self.pluggings = board, usb, 0
        self.plug()

    def plug(self) -> None:
        self.board.plug()
        self.pluggings += 1
        self.usb.devices = [FakeDevice(f"/dev/bus/usb/001/{self.pluggings + 2:03d}", MEGA)]

    def unplug(self) -> None:
        self.usb.devices = []
        self.board.unplug(mid_frame=True)

    def port(self, name: str) -> PtyPort:
        return PtyPort(self.board.path)


@pytest.fixture
def board(tmp_path: Path) -> Iterator[BoardSimulator]:
    simulator = BoardSimulator(LAYOUT, link=tmp_path / "board", debounce=2, scan_hz=200)
    simulator.show(expected(RULES.initial_state()))
    with simulator:
        yield simulator


def test_a_pulled_cable_mid_game_reconnects_with_the_table_right(
    board: BoardSimulator, usb: FakeUsb
) -> None:
    plugged = PluggedBoard(board, usb)
    android = AndroidUsb(usb, FakeSerial4a(usb, plugged.port))
    state = RULES.initial_state()
    with SensorBridge(
        "usb:", LAYOUT, schema=schema(RULES), opener=android.open, first_retry=0.02, last_retry=0.1
    ) as bridge:
        assert next_event(bridge, Connected).port == "usb:2341:0042"
        assert next_event(bridge, TableChanged).observation == expected(state)
        plugged.unplug()
        lost = next_event(bridge, Disconnected)
        assert lost.port == "usb:2341:0042"
        assert "the cable was pulled or the board is gone" in lost.reason
        failed = next_event(bridge, ConnectFailed)
        assert "no such USB device is attached" in failed.reason
        for seed in (1, 2):
            state.play(state.random_move(Dice(seed)))
        board.show(expected(state))
        plugged.plug()
        next_event(bridge, Connected)
        fresh = next_event(bridge, TableChanged)
        assert fresh.cause == "snapshot" and fresh.observation == expected(state)
        assert bridge.disconnects == 1 and bridge.connects == 2
    assert usb.asked == ["/dev/bus/usb/001/003", "/dev/bus/usb/001/004"]
