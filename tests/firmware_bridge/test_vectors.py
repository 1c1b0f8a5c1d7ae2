"""The shared COBS / CRC / frame vectors (firmware_bridge/vectors.txt), Python side; the
C firmware checks the same file (test_firmware.py)."""

from __future__ import annotations

from importlib import resources

import pytest

from firmware_bridge import cobs
from firmware_bridge.codec import Direction, decode_frame, encode_payload
from firmware_bridge.crc import CHECK_VALUE, crc16


def _vectors(kind: str) -> list[list[str]]:
    text = resources.files("firmware_bridge").joinpath("vectors.txt").read_text("ascii")
    rows = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    return [row[1:] for row in rows if row[0] == kind]


def _hex(text: str) -> bytes:
    return b"" if text == "-" else bytes.fromhex(text)


def test_the_vectors_cover_every_kind() -> None:
    assert len(_vectors("crc")) >= 5
    assert len(_vectors("cobs")) >= 10
    assert len(_vectors("frame")) == 11  # one per message type and then some


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == CHECK_VALUE == 0x29B1


@pytest.mark.parametrize("data, crc", _vectors("crc"))
def test_crc(data: str, crc: str) -> None:
    assert crc16(_hex(data)) == int(crc, 16)


@pytest.mark.parametrize("data, stuffed", _vectors("cobs"))
def test_cobs(data: str, stuffed: str) -> None:
    assert cobs.encode(_hex(data)) == _hex(stuffed)
    assert cobs.decode(_hex(stuffed)) == _hex(data)


@pytest.mark.parametrize("kind, seq, payload, wire", _vectors("frame"))
def test_frames(kind: str, seq: str, payload: str, wire: str) -> None:
    frame = decode_frame(_hex(wire)[:-1])
    assert frame.seq == int(seq, 16)
    assert encode_payload(frame.message) == (int(kind, 16), _hex(payload))
    direction = Direction.FROM_HOST if int(kind, 16) & 0x80 else Direction.FROM_DEVICE
    assert decode_frame(_hex(wire)[:-1], direction) == frame
