"""Seeded randomness that stays fast in tight loops.

Drawing one number at a time from ``numpy.random.Generator`` costs microseconds; a
random playout draws hundreds. ``Dice`` draws uniform doubles from a seeded generator in
blocks and hands them out one by one, so every random game replays from its seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")

_BLOCK = 4096


class Dice:
    """Uniform choices from a seeded ``numpy.random.Generator``."""

    __slots__ = ("_block", "_i", "generator")

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.generator = (
            seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        )
        self._block: list[float] = []
        self._i = 0

    def random(self) -> float:
        """A float uniform in [0, 1)."""
        i = self._i
        if i == len(self._block):
            self._block = self.generator.random(_BLOCK).tolist()
            i = 0
        self._i = i + 1
        return self._block[i]

    def below(self, n: int) -> int:
        """An int uniform in [0, n); ``n`` must be positive."""
        return int(self.random() * n)

    def choice(self, items: Sequence[T]) -> T:
        """One item of a non-empty sequence, uniformly. Raises IndexError if empty."""
        if not items:
            raise IndexError("choice from an empty sequence")
        return items[int(self.random() * len(items))]
