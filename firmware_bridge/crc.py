"""CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final
XOR. Its check value (the CRC of ``b"123456789"``) is 0x29B1. The firmware computes the
same (``firmware/protocol.c``); both are tested on ``vectors.txt``."""

from __future__ import annotations

POLYNOMIAL = 0x1021
INITIAL = 0xFFFF
CHECK_VALUE = 0x29B1


def _table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ POLYNOMIAL) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return tuple(table)


_TABLE = _table()


def crc16(data: bytes | bytearray | memoryview, crc: int = INITIAL) -> int:
    """The CRC-16/CCITT-FALSE of ``data`` (continue a running CRC by passing ``crc``)."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ byte]
    return crc
