"""Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999).

``encode`` removes every zero byte from a packet at a cost of one byte per 254 (plus
one), so that a zero can delimit frames on the wire: a receiver that lost its place
resynchronises at the next zero.
"""

from __future__ import annotations

from firmware_bridge.errors import FrameError

DELIMITER = 0x00
MAX_RUN = 0xFF
"""A code byte of 0xFF: 254 data bytes follow and no zero is implied after them."""


def encode(data: bytes | bytearray) -> bytes:
    """Stuff ``data``; the result holds no zero byte (the delimiter is not appended)."""
    out = bytearray([0])
    code_at, code = 0, 1
    last = len(data) - 1
    for i, byte in enumerate(data):
        if byte == DELIMITER:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
            continue
        out.append(byte)
        code += 1
        if code == MAX_RUN and i < last:  # a full block, and more data follows
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def encoded_size_bound(size: int) -> int:
    """The largest stuffed size of a ``size``-byte packet."""
    return size + size // 254 + 1


def decode(data: bytes | bytearray) -> bytes:
    """Unstuff one frame (without its delimiter). Raises ``FrameError`` for a zero byte
    inside, or a code byte that runs past the end."""
    out = bytearray()
    i, n = 0, len(data)
    if n == 0:
        raise FrameError("empty COBS frame")
    while i < n:
        code = data[i]
        if code == DELIMITER:
            raise FrameError(f"zero byte inside a COBS frame at offset {i}")
        end = i + code
        if end > n:
            raise FrameError(f"COBS code {code} at offset {i} runs past the frame end ({n})")
        block = data[i + 1 : end]
        if DELIMITER in block:
            raise FrameError(
                f"zero byte inside a COBS frame at offset {i + 1 + block.index(DELIMITER)}"
            )
        out += block
        i = end
        if code != MAX_RUN and i < n:
            out.append(DELIMITER)
    return bytes(out)
