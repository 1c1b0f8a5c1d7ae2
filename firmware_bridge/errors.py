"""Exceptions of the firmware bridge, split by kind.

``FrameError`` (bytes that are not a valid frame) never escapes the parser, which drops
such frames and counts them; it is raised by the single-frame decoder. The others reach
the caller: a board that breaks the protocol, a link that failed, a layout or
calibration that cannot be used, a light the board cannot show.
"""

from __future__ import annotations


class BridgeError(Exception):
    """Base class of every error of the firmware bridge."""


class FrameError(BridgeError):
    """Bytes that do not decode to a frame: bad COBS, bad CRC, wrong length, unknown type.

    ``code`` is the protocol's error code for it (``messages.ErrorCode``), ``seq`` the
    frame's sequence number when it could be read (the CRC matched), else ``None``.
    """

    def __init__(self, message: str, code: int = 0x02, seq: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.seq = seq


class ProtocolError(BridgeError):
    """The board answered, but not as the protocol says (a failed handshake, a board of
    another game or layout, a command the board refused)."""


class LinkLost(BridgeError):
    """The serial link cannot be used: the port cannot be opened, the cable was pulled
    (EOF / EIO), or the board fell silent."""


class LayoutError(BridgeError):
    """A layout or calibration table that is inconsistent, unknown, or does not fit the
    referee's table schema."""


class LightError(BridgeError):
    """A light command the board cannot show: an element it has no LED for, an unknown
    colour or pattern."""
