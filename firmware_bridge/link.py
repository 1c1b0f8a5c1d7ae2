"""The byte link a board is reached through: what ``protocol.BoardLink`` needs of it,
implemented by ``transport.SerialTransport``, on Android by
``android_serial.UsbSerialTransport``, and by scripted fakes in tests. Kept apart from
both sides so that the protocol does not load pyserial and the transports do not load
the protocol."""

from __future__ import annotations

from typing import Protocol


class Transport(Protocol):
    """A serial link, opened; ``name`` says which in messages."""

    name: str

    def read(self) -> bytes:
        """What arrived within a short wait (``b""`` if nothing). Raises ``LinkLost``."""
        ...

    def write(self, data: bytes) -> None:
        """Raises ``LinkLost``."""
        ...

    def close(self) -> None: ...
