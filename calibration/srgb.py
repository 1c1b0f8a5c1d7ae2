"""sRGB decoding: cameras store light through a gamma curve; edges and colours are
measured in linear light, where a blurred step crosses half-way exactly at the edge and
white balance is a plain per-channel gain."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

# The sRGB curve for every 8-bit level.
SRGB_TO_LINEAR = np.array(
    [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (np.arange(256) / 255.0)],
    dtype=np.float32,
)


def linear_light(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    """8-bit sRGB values (any shape) decoded to linear light, 0..1."""
    return SRGB_TO_LINEAR[image]
