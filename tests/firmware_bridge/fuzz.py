"""Seeded generators of hostile frames for the link fuzz and the firmware differential:
frames whose CRC is right but whose content is nonsense, and mutants of good frames
(bits flipped, bytes inserted, dropped or cut; some with the CRC made right again)."""

from __future__ import annotations

import struct

import numpy as np

from firmware_bridge import cobs
from firmware_bridge.codec import encode_frame
from firmware_bridge.crc import crc16
from firmware_bridge.messages import (
    MAX_PAYLOAD,
    Ack,
    Capability,
    Colour,
    DeviceInfo,
    ErrorReport,
    Event,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostHeartbeat,
    Led,
    MessageType,
    Pattern,
    SetLeds,
    Snapshot,
)

DEVICE_TYPES = tuple(int(t) for t in MessageType if t < 0x80)
HOST_TYPES = tuple(int(t) for t in MessageType if t >= 0x80)


def raw_frame(kind: int, seq: int, payload: bytes) -> bytes:
    """A frame on the wire with a right CRC, whatever its content."""
    body = bytes([kind]) + struct.pack("<H", seq & 0xFFFF) + payload
    return cobs.encode(body + struct.pack("<H", crc16(body))) + b"\x00"


def _bytes(rng: np.random.Generator, n: int, high: int = 256) -> bytes:
    return bytes(rng.integers(0, high, n, dtype=np.uint8).tolist()) if n else b""


def _count_and_items(rng: np.random.Generator, item: int, high_index: int) -> bytes:
    """A count byte and that many items; sometimes a count that does not match."""
    count = int(rng.integers(0, 256)) if rng.random() < 0.3 else int(rng.integers(0, 12))
    items = int(rng.integers(0, 256)) if rng.random() < 0.15 else count
    items = min(items, (MAX_PAYLOAD - 1) // item)
    out = bytearray([count])
    for _ in range(items):
        out.append(int(rng.integers(0, high_index)))
        out += _bytes(rng, item - 1)
    return bytes(out)


def device_payload(rng: np.random.Generator, kind: int) -> bytes:
    """A payload shaped like ``kind``'s, with random (often wrong) values and lengths."""
    roll = rng.random()
    if roll < 0.15:
        return _bytes(rng, int(rng.integers(0, 40)))
    if kind == MessageType.INFO:
        fields = [
            1 if rng.random() < 0.7 else int(rng.integers(0, 256)),
            int(rng.integers(0, 5)),
            int(rng.integers(0, 3)),
            int(rng.choice([49, 100, 127, 128, 200, 255, 0])),
            int(rng.integers(0, 4)),
            int(rng.choice([250, 0, 1, 65535])),
        ]
        name = _bytes(rng, int(rng.integers(0, 36)), 128)
        return struct.pack("<BBBBBH", *fields) + name
    if kind == MessageType.SNAPSHOT:
        n = int(rng.choice([127, 127, 49, 100, 128, 255, 0, int(rng.integers(0, 256))]))
        count = n if rng.random() < 0.85 else int(rng.integers(0, 256))
        return bytes([count & 0xFF]) + _bytes(rng, n)
    if kind == MessageType.EVENT:
        return _count_and_items(rng, 2, 256 if rng.random() < 0.3 else 127)
    if kind == MessageType.HEARTBEAT:
        return struct.pack(
            "<IHH",
            int(rng.integers(0, 1 << 32)),
            int(rng.integers(0, 1 << 16)),
            int(rng.integers(0, 1 << 16)),
        )
    if kind in (MessageType.ACK, MessageType.ERROR):
        # often one of the host's first sequence numbers: a command it is waiting on
        acked = int(rng.integers(0, 8)) if rng.random() < 0.5 else int(rng.integers(0, 1 << 16))
        code = bytes([int(rng.integers(0, 12))]) if kind == MessageType.ERROR else b""
        return struct.pack("<H", acked) + code
    return _bytes(rng, int(rng.integers(0, 20)))


def host_payload(rng: np.random.Generator, kind: int, positions: int = 127) -> bytes:
    """A payload shaped like the host command ``kind``'s, often wrong."""
    roll = rng.random()
    if roll < 0.1:
        return _bytes(rng, int(rng.integers(0, 40)))
    if kind == MessageType.HELLO:
        return (
            bytes([1 if rng.random() < 0.7 else int(rng.integers(0, 256))])
            if rng.random() < 0.8
            else _bytes(rng, int(rng.integers(0, 4)))
        )
    if kind in (MessageType.GET_SNAPSHOT, MessageType.HOST_HEARTBEAT):
        return b"" if rng.random() < 0.6 else _bytes(rng, int(rng.integers(1, 6)))
    if kind == MessageType.SET_LEDS:
        flags = int(rng.integers(0, 2)) if rng.random() < 0.85 else int(rng.integers(0, 256))
        count = int(rng.integers(0, 8))
        leds = bytearray()
        for _ in range(count):
            index = (
                int(rng.integers(0, positions)) if rng.random() < 0.8 else int(rng.integers(0, 256))
            )
            colour = int(rng.integers(0, 8)) if rng.random() < 0.9 else int(rng.integers(0, 256))
            pattern = int(rng.integers(0, 3)) if rng.random() < 0.9 else int(rng.integers(0, 256))
            leds += bytes((index, colour, pattern))
        if count and rng.random() < 0.1:
            leds += leds[:3]  # a position named twice
            count += 1
        declared = count if rng.random() < 0.9 else int(rng.integers(0, 256))
        return bytes([flags, declared & 0xFF]) + bytes(leds)
    return _bytes(rng, int(rng.integers(0, 20)))


def nonsense_frame(rng: np.random.Generator, types: tuple[int, ...], host: bool = False) -> bytes:
    """A CRC-valid frame of a random type (sometimes one of no side) with a random
    sequence number and a random payload shaped like its type's."""
    kind = int(rng.choice(types)) if rng.random() < 0.9 else int(rng.integers(0, 256))
    seq = int(rng.integers(0, 1 << 16))
    payload = host_payload(rng, kind) if host else device_payload(rng, kind)
    return raw_frame(kind, seq, payload)


def good_device_frame(rng: np.random.Generator, seq: int) -> bytes:
    readings = _bytes(rng, 127)
    choices = [
        DeviceInfo(1, 1, 1, 127, Capability.HEIGHTS | Capability.LEDS, 250, "fuzz"),
        Snapshot(readings),
        Event(((int(rng.integers(0, 127)), int(rng.integers(0, 256))),)),
        Heartbeat(int(rng.integers(0, 1 << 31)), 0, 0),
        Ack(int(rng.integers(0, 1 << 16))),
        ErrorReport(int(rng.integers(0, 1 << 16)), int(rng.integers(1, 9))),
    ]
    return encode_frame(seq, choices[int(rng.integers(0, len(choices)))])


def good_host_frame(rng: np.random.Generator, seq: int, positions: int = 127) -> bytes:
    leds = tuple(
        Led(int(i), Colour(int(rng.integers(0, 8))), Pattern(int(rng.integers(0, 3))))
        for i in rng.choice(positions, int(rng.integers(0, 6)), replace=False)
    )
    choices = [Hello(), GetSnapshot(), SetLeds(leds, bool(rng.integers(0, 2))), HostHeartbeat()]
    return encode_frame(seq, choices[int(rng.integers(0, len(choices)))])


def mutate(rng: np.random.Generator, frame: bytes) -> bytes:
    """``frame`` damaged once or a few times. Half the time the damage is done to the
    unstuffed frame and the CRC made right again (what a 1-in-65536 miss delivers)."""
    if rng.random() < 0.5:
        body = bytearray(cobs.decode(frame[:-1])[:-2])
        _damage(rng, body, allow_zero=True)
        if len(body) < 3:
            body += _bytes(rng, 3 - len(body))
        return raw_frame(body[0], int.from_bytes(body[1:3], "little"), bytes(body[3:]))
    stuffed = bytearray(frame)
    for _ in range(int(rng.integers(1, 4))):
        _damage(rng, stuffed, allow_zero=rng.random() < 0.2)
    return bytes(stuffed)


def _damage(rng: np.random.Generator, data: bytearray, allow_zero: bool) -> None:
    if not data:
        data.append(int(rng.integers(1, 256)))
        return
    at = int(rng.integers(0, len(data)))
    what = rng.random()
    if what < 0.5:
        data[at] ^= 1 << int(rng.integers(0, 8))
    elif what < 0.7:
        data.insert(at, int(rng.integers(0 if allow_zero else 1, 256)))
    elif what < 0.85:
        del data[at]
    else:
        del data[at:]
    if not allow_zero:
        for i, b in enumerate(data[:-1]):
            if b == 0:
                data[i] = 1
