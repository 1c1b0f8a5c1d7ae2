"""The protocol's messages as typed values, and its named constants (docs/protocol.md).

Device to host: ``DeviceInfo``, ``Snapshot``, ``Event``, ``Heartbeat``, ``Ack``,
``ErrorReport``. Host to device: ``Hello``, ``GetSnapshot``, ``SetLeds``,
``HostHeartbeat``. ``firmware_bridge.codec`` turns them into bytes and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag

PROTOCOL_VERSION = 1
BAUD = 115200
"""The nominal link rate: 8 data bits, no parity, one stop bit (10 bit times a byte)."""
MAX_POSITIONS = 255
"""Protocol version 1 numbers positions with one byte."""
MAX_PAYLOAD = 512
MAX_FIRMWARE_NAME = 32
HEADER_SIZE = 3  # type, sequence (little-endian u16)
CRC_SIZE = 2
SEQ_MODULO = 1 << 16
NO_SEQ = 0xFFFF
"""The ``acked`` sequence of an error about a frame whose sequence could not be read."""

# A reading byte: the stack height in the top two bits, the sensor code in the low six.
CODE_MASK = 0x3F
HEIGHT_SHIFT = 6
CODE_EMPTY = 0
CODE_UNREADABLE = 0x3F
"""The sensor cannot read this position (fault, or a reading out of every range)."""
NO_HEIGHT = 3
"""The position has no stack-height sensor, or it could not measure."""
MAX_HEIGHT = 2

HEARTBEAT_MS = 250
"""How often the device sends a heartbeat (also told in ``DeviceInfo``)."""
HOST_HEARTBEAT_MS = 500
HOST_SILENCE_MS = 3000
"""A device that hears nothing from the host for this long turns its LEDs off."""
SCAN_HZ = 100
DEBOUNCE_SCANS = 3
"""A position's new reading is reported once it read the same this many scans in a row."""
LINK_SILENCE_HEARTBEATS = 4
"""The host declares the link lost after this many heartbeat periods without a frame."""
SNAPSHOT_REFRESH_MS = 2000
"""The host asks for a fresh snapshot this often. A scrambled frame that passes the
CRC (about one in 65536) can leave a wrong reading in the host's copy; the next
snapshot corrects it, so no wrong reading lives longer than this and a round trip."""


class MessageType(IntEnum):
    # device -> host
    INFO = 0x01
    SNAPSHOT = 0x02
    EVENT = 0x03
    HEARTBEAT = 0x04
    ACK = 0x05
    ERROR = 0x06
    # host -> device
    HELLO = 0x81
    GET_SNAPSHOT = 0x82
    SET_LEDS = 0x83
    HOST_HEARTBEAT = 0x84


HOST_TO_DEVICE = 0x80
"""The high bit of a message type: set on commands from the host."""


class Game(IntEnum):
    SHANGRILA = 1
    SHENDAO = 2
    SHENSHI = 3


class Capability(IntFlag):
    HEIGHTS = 0x01
    """Spaces report stack heights."""
    LEDS = 0x02
    """Every position has an LED."""


class ErrorCode(IntEnum):
    CRC_MISMATCH = 0x01
    MALFORMED_FRAME = 0x02
    UNKNOWN_TYPE = 0x03
    BAD_LENGTH = 0x04
    UNSUPPORTED_VERSION = 0x05
    POSITION_OUT_OF_RANGE = 0x06
    BAD_VALUE = 0x07
    OVERFLOW = 0x08
    """The device's output queue overflowed: queued events were replaced by a snapshot."""


class Colour(IntEnum):
    OFF = 0
    RED = 1
    GREEN = 2
    BLUE = 3
    AMBER = 4
    YELLOW = 5
    VIOLET = 6
    WHITE = 7


class Pattern(IntEnum):
    STEADY = 0
    BLINK = 1
    PULSE = 2


LED_CLEAR_OTHERS = 0x01
"""``SetLeds`` flag: every position not listed goes off."""


def reading_byte(code: int, height: int = NO_HEIGHT) -> int:
    """Pack a sensor code (0..63) and a stack height (0..2, or ``NO_HEIGHT``)."""
    if not 0 <= code <= CODE_MASK:
        raise ValueError(f"a sensor code is within 0 and {CODE_MASK}, not {code}")
    if not 0 <= height <= NO_HEIGHT:
        raise ValueError(f"a stack height is within 0 and {NO_HEIGHT}, not {height}")
    return (height << HEIGHT_SHIFT) | code


def reading_code(reading: int) -> int:
    return reading & CODE_MASK


def reading_height(reading: int) -> int:
    return reading >> HEIGHT_SHIFT


# ----------------------------------------------------------------------------- device


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """The device's answer to ``Hello``: what it is and how its positions are laid out."""

    protocol: int
    game: int
    layout: int
    positions: int
    capabilities: Capability
    heartbeat_ms: int
    firmware: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Every position's reading byte, in layout order."""

    readings: bytes


@dataclass(frozen=True, slots=True)
class Event:
    """Positions whose debounced reading changed in one scan: (index, reading) pairs."""

    changes: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Heartbeat:
    uptime_ms: int
    rejected: int
    """Host frames the device dropped as garbled since it started (saturates at 65535)."""
    overflows: int
    """Times the device's output queue overflowed since it started (saturates)."""


@dataclass(frozen=True, slots=True)
class Ack:
    acked: int
    """The sequence number of the host command this acknowledges."""


@dataclass(frozen=True, slots=True)
class ErrorReport:
    acked: int
    """The command's sequence number, or ``NO_SEQ`` when it could not be read."""
    code: int

    @property
    def name(self) -> str:
        try:
            return ErrorCode(self.code).name.lower().replace("_", " ")
        except ValueError:
            return f"error {self.code:#04x}"


# ----------------------------------------------------------------------------- host


@dataclass(frozen=True, slots=True)
class Hello:
    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class GetSnapshot:
    pass


@dataclass(frozen=True, slots=True)
class Led:
    index: int
    colour: Colour
    pattern: Pattern = Pattern.STEADY


@dataclass(frozen=True, slots=True)
class SetLeds:
    leds: tuple[Led, ...]
    clear_others: bool = True


@dataclass(frozen=True, slots=True)
class HostHeartbeat:
    pass


DeviceMessage = DeviceInfo | Snapshot | Event | Heartbeat | Ack | ErrorReport
HostMessage = Hello | GetSnapshot | SetLeds | HostHeartbeat
Message = DeviceMessage | HostMessage


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded frame: its sequence number and message."""

    seq: int
    message: Message


def wire_bytes(frame_size: int) -> int:
    """Bytes on the wire for a frame of ``frame_size`` bytes before stuffing (header,
    payload and CRC): the COBS overhead and the delimiter added."""
    return frame_size + frame_size // 254 + 1 + 1


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


SINGLE_EVENT_WIRE_BYTES = wire_bytes(HEADER_SIZE + 1 + 2 + CRC_SIZE)
"""A one-change ``Event`` on the wire: 10 bytes."""
HEARTBEAT_WIRE_BYTES = wire_bytes(HEADER_SIZE + 8 + CRC_SIZE)
"""A heartbeat on the wire: 15 bytes, four times a second."""
REFRESH_WIRE_BYTES = wire_bytes(HEADER_SIZE + 2 + CRC_SIZE) + wire_bytes(
    HEADER_SIZE + 1 + MAX_POSITIONS + CRC_SIZE
)
"""The device's answer to a refresh: an ``ACK`` and the largest snapshot, 273 bytes."""
MAX_EVENT_RATE = (
    BAUD // 10
    - HEARTBEAT_WIRE_BYTES * 1000 // HEARTBEAT_MS
    - _ceil_div(REFRESH_WIRE_BYTES * 1000, SNAPSHOT_REFRESH_MS)
) // SINGLE_EVENT_WIRE_BYTES
"""One-change events a second that a 115200-baud link carries beside the heartbeats and
the refresh snapshots: (11520 - 60 - 137) // 10 = 1132, the protocol's ceiling."""
