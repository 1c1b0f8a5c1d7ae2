"""The picture size type under its earlier name, for the benchmarks still reading it
from here."""

from companion.cli import picture_size as _size

__all__ = ["_size"]
