"""Pure byte codecs: typed messages to frames on the wire, and a parser back.

A frame is ``type (1) | seq (2, little-endian) | payload | CRC-16 (2, little-endian)``,
the CRC taken over everything before it, then COBS-stuffed and followed by a zero byte.
``encode_frame`` builds one; ``FrameParser`` takes bytes as they arrive (any chunking),
buffers a partial frame, drops (and counts) every frame that fails to decode, and yields
the typed frames it can read — never a guessed one.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from enum import Enum
from typing import Any

from firmware_bridge import cobs
from firmware_bridge.crc import crc16
from firmware_bridge.errors import FrameError
from firmware_bridge.messages import (
    CRC_SIZE,
    HEADER_SIZE,
    HOST_TO_DEVICE,
    LED_CLEAR_OTHERS,
    MAX_FIRMWARE_NAME,
    MAX_PAYLOAD,
    Ack,
    Capability,
    Colour,
    DeviceInfo,
    ErrorCode,
    ErrorReport,
    Event,
    Frame,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostHeartbeat,
    Led,
    Message,
    MessageType,
    Pattern,
    SetLeds,
    Snapshot,
)

_INFO = struct.Struct("<BBBBBH")  # protocol, game, layout, positions, capabilities, hb ms
_HEARTBEAT = struct.Struct("<IHH")
_U16 = struct.Struct("<H")
_ERROR = struct.Struct("<HB")
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
MAX_STUFFED = cobs.encoded_size_bound(MAX_FRAME)


class Direction(Enum):
    """Which messages a parser accepts: the host reads device messages and vice versa."""

    FROM_DEVICE = "from device"
    FROM_HOST = "from host"


# ----------------------------------------------------------------------------- encoding


def _payload_info(m: DeviceInfo) -> bytes:
    name = m.firmware.encode("ascii")
    return (
        _INFO.pack(m.protocol, m.game, m.layout, m.positions, int(m.capabilities), m.heartbeat_ms)
        + name
    )


def _payload_event(m: Event) -> bytes:
    return bytes([len(m.changes), *(b for change in m.changes for b in change)])


def _payload_set_leds(m: SetLeds) -> bytes:
    out = bytearray([LED_CLEAR_OTHERS if m.clear_others else 0, len(m.leds)])
    for led in m.leds:
        out += bytes((led.index, int(led.colour), int(led.pattern)))
    return bytes(out)


def _payload_heartbeat(m: Heartbeat) -> bytes:
    return _HEARTBEAT.pack(
        m.uptime_ms & 0xFFFFFFFF, min(m.rejected, 0xFFFF), min(m.overflows, 0xFFFF)
    )


_ENCODERS: dict[type, tuple[MessageType, Callable[[Any], bytes]]] = {
    DeviceInfo: (MessageType.INFO, _payload_info),
    Snapshot: (MessageType.SNAPSHOT, lambda m: bytes([len(m.readings)]) + m.readings),
    Event: (MessageType.EVENT, _payload_event),
    Heartbeat: (MessageType.HEARTBEAT, _payload_heartbeat),
    Ack: (MessageType.ACK, lambda m: _U16.pack(m.acked)),
    ErrorReport: (MessageType.ERROR, lambda m: _ERROR.pack(m.acked, m.code)),
    Hello: (MessageType.HELLO, lambda m: bytes([m.protocol])),
    GetSnapshot: (MessageType.GET_SNAPSHOT, lambda m: b""),
    SetLeds: (MessageType.SET_LEDS, _payload_set_leds),
    HostHeartbeat: (MessageType.HOST_HEARTBEAT, lambda m: b""),
}


def encode_payload(message: Message) -> tuple[MessageType, bytes]:
    """The message's type and payload bytes. Raises ``ValueError`` for a message that
    does not fit the protocol (too many positions, a non-ASCII firmware name, ...)."""
    kind, encoder = _ENCODERS[type(message)]
    try:
        payload = encoder(message)
    except (struct.error, UnicodeEncodeError, ValueError) as error:
        raise ValueError(f"{message!r} does not fit the protocol: {error}") from None
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"{kind.name} payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    return kind, payload


def encode_frame(seq: int, message: Message) -> bytes:
    """The bytes on the wire for ``message`` numbered ``seq``: stuffed, zero-terminated."""
    kind, payload = encode_payload(message)
    body = bytes([kind]) + _U16.pack(seq & 0xFFFF) + payload
    return cobs.encode(body + _U16.pack(crc16(body))) + bytes([cobs.DELIMITER])


# ----------------------------------------------------------------------------- decoding


def _need(payload: bytes, size: int, kind: MessageType, seq: int) -> None:
    if len(payload) != size:
        raise FrameError(
            f"{kind.name} payload of {len(payload)} bytes (expected {size})",
            ErrorCode.BAD_LENGTH,
            seq,
        )


def _bad(text: str, seq: int) -> FrameError:
    return FrameError(text, ErrorCode.BAD_VALUE, seq)


def _decode_info(p: bytes, seq: int) -> DeviceInfo:
    if not _INFO.size <= len(p) <= _INFO.size + MAX_FIRMWARE_NAME:
        raise FrameError(f"INFO payload of {len(p)} bytes", ErrorCode.BAD_LENGTH, seq)
    protocol, game, layout, positions, capabilities, heartbeat = _INFO.unpack_from(p)
    name = p[_INFO.size :]
    if any(not 0x20 <= c < 0x7F for c in name):
        raise _bad("INFO firmware name is not printable ASCII", seq)
    if capabilities & ~int(Capability.HEIGHTS | Capability.LEDS) or heartbeat == 0:
        raise _bad(f"INFO capabilities {capabilities:#x} / heartbeat {heartbeat}", seq)
    return DeviceInfo(
        protocol, game, layout, positions, Capability(capabilities), heartbeat, name.decode("ascii")
    )


def _decode_snapshot(p: bytes, seq: int) -> Snapshot:
    if not p or p[0] != len(p) - 1:
        raise FrameError(
            f"SNAPSHOT of {len(p)} bytes does not hold its count", ErrorCode.BAD_LENGTH, seq
        )
    return Snapshot(p[1:])


def _decode_event(p: bytes, seq: int) -> Event:
    if not p or p[0] == 0 or len(p) != 1 + 2 * p[0]:
        raise FrameError(
            f"EVENT of {len(p)} bytes does not hold its count", ErrorCode.BAD_LENGTH, seq
        )
    changes = tuple((p[i], p[i + 1]) for i in range(1, len(p), 2))
    if len({index for index, _ in changes}) != len(changes):
        raise _bad("EVENT names a position twice", seq)
    return Event(changes)


def _decode_heartbeat(p: bytes, seq: int) -> Heartbeat:
    _need(p, _HEARTBEAT.size, MessageType.HEARTBEAT, seq)
    return Heartbeat(*_HEARTBEAT.unpack(p))


def _decode_ack(p: bytes, seq: int) -> Ack:
    _need(p, _U16.size, MessageType.ACK, seq)
    return Ack(_U16.unpack(p)[0])


def _decode_error(p: bytes, seq: int) -> ErrorReport:
    _need(p, _ERROR.size, MessageType.ERROR, seq)
    acked, code = _ERROR.unpack(p)
    return ErrorReport(acked, code)


def _decode_hello(p: bytes, seq: int) -> Hello:
    _need(p, 1, MessageType.HELLO, seq)
    return Hello(p[0])


def _decode_get_snapshot(p: bytes, seq: int) -> GetSnapshot:
    _need(p, 0, MessageType.GET_SNAPSHOT, seq)
    return GetSnapshot()


def _decode_host_heartbeat(p: bytes, seq: int) -> HostHeartbeat:
    _need(p, 0, MessageType.HOST_HEARTBEAT, seq)
    return HostHeartbeat()


def _decode_set_leds(p: bytes, seq: int) -> SetLeds:
    if len(p) < 2 or len(p) != 2 + 3 * p[1]:
        raise FrameError(
            f"SET_LEDS of {len(p)} bytes does not hold its count", ErrorCode.BAD_LENGTH, seq
        )
    if p[0] & ~LED_CLEAR_OTHERS:
        raise _bad(f"SET_LEDS flags {p[0]:#04x}", seq)
    leds = []
    for i in range(2, len(p), 3):
        index, colour, pattern = p[i], p[i + 1], p[i + 2]
        if colour not in _COLOURS or pattern not in _PATTERNS:
            raise _bad(f"SET_LEDS colour {colour} / pattern {pattern} at position {index}", seq)
        leds.append(Led(index, Colour(colour), Pattern(pattern)))
    if len({led.index for led in leds}) != len(leds):
        raise _bad("SET_LEDS names a position twice", seq)
    return SetLeds(tuple(leds), bool(p[0] & LED_CLEAR_OTHERS))


_COLOURS = frozenset(int(c) for c in Colour)
_PATTERNS = frozenset(int(p) for p in Pattern)
_DECODERS: dict[int, Callable[[bytes, int], Message]] = {
    MessageType.INFO: _decode_info,
    MessageType.SNAPSHOT: _decode_snapshot,
    MessageType.EVENT: _decode_event,
    MessageType.HEARTBEAT: _decode_heartbeat,
    MessageType.ACK: _decode_ack,
    MessageType.ERROR: _decode_error,
    MessageType.HELLO: _decode_hello,
    MessageType.GET_SNAPSHOT: _decode_get_snapshot,
    MessageType.SET_LEDS: _decode_set_leds,
    MessageType.HOST_HEARTBEAT: _decode_host_heartbeat,
}


def decode_frame(stuffed: bytes | bytearray, accept: Direction | None = None) -> Frame:
    """Decode one stuffed frame (without its delimiter). ``accept`` limits the message
    types to one direction. Raises ``FrameError`` (with the protocol's error code)."""
    if len(stuffed) > MAX_STUFFED:
        raise FrameError(
            f"frame of {len(stuffed)} stuffed bytes exceeds {MAX_STUFFED}",
            ErrorCode.MALFORMED_FRAME,
        )
    body = cobs.decode(stuffed)
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(
            f"frame of {len(body)} bytes is shorter than a header and a CRC",
            ErrorCode.MALFORMED_FRAME,
        )
    (crc,) = _U16.unpack_from(body, len(body) - CRC_SIZE)
    if crc16(body[:-CRC_SIZE]) != crc:
        raise FrameError("CRC mismatch", ErrorCode.CRC_MISMATCH)
    kind = body[0]
    (seq,) = _U16.unpack_from(body, 1)
    decoder = _DECODERS.get(kind)
    from_host = bool(kind & HOST_TO_DEVICE)
    if (
        decoder is None
        or (accept is Direction.FROM_DEVICE and from_host)
        or (accept is Direction.FROM_HOST and not from_host)
    ):
        raise FrameError(f"unexpected message type {kind:#04x}", ErrorCode.UNKNOWN_TYPE, seq)
    return Frame(seq, decoder(bytes(body[HEADER_SIZE:-CRC_SIZE]), seq))


class FrameParser:
    """Bytes in, frames out. Partial frames are buffered across ``feed`` calls; a frame
    that fails to decode is dropped, counted in ``dropped`` and kept as ``last_error``
    (with its sequence number when the CRC matched, so a device can answer an error;
    ``feed_all`` gives each such error in its place among the frames)."""

    def __init__(self, accept: Direction) -> None:
        self.accept = accept
        self._buffer = bytearray()
        self._overlong = False
        self.frames = 0
        self.dropped = 0
        self.last_error: FrameError | None = None

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        """The frames completed by ``data``, in order."""
        return [item for item in self.feed_all(data) if isinstance(item, Frame)]

    def feed_all(self, data: bytes | bytearray) -> list[Frame | FrameError]:
        """Every frame completed by ``data``, in order: the decoded ones, and a
        ``FrameError`` for each one dropped (a device answers each in turn)."""
        out: list[Frame | FrameError] = []
        start = 0
        while True:
            end = data.find(cobs.DELIMITER, start)
            if end < 0:
                self._take(data[start:])
                return out
            self._take(data[start:end])
            if self._overlong:
                out.append(
                    self._reject(
                        FrameError(
                            f"frame longer than {MAX_STUFFED} stuffed bytes",
                            ErrorCode.MALFORMED_FRAME,
                        )
                    )
                )
            elif self._buffer:
                try:
                    out.append(decode_frame(self._buffer, self.accept))
                    self.frames += 1
                except FrameError as error:
                    out.append(self._reject(error))
            self._buffer.clear()
            self._overlong = False
            start = end + 1

    def _take(self, chunk: bytes | bytearray) -> None:
        if self._overlong:
            return
        if len(self._buffer) + len(chunk) > MAX_STUFFED:
            self._overlong = True
            self._buffer.clear()
            return
        self._buffer += chunk

    def _reject(self, error: FrameError) -> FrameError:
        self.dropped += 1
        self.last_error = error
        return error

    @property
    def pending(self) -> int:
        """Bytes of an unfinished frame held in the buffer."""
        return len(self._buffer)
