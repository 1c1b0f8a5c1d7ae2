"""What every source of frames shares: the picture type, the error a source raises and
the protocol a source follows. ``feeds`` opens sources; ``android_camera`` is one of
them, used only on Android."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]


class FeedError(Exception):
    """A camera, video or board that cannot be used; the message says why."""


class FrameSource(Protocol):
    """Frames in BGR, one at a time; ``read`` returns None at the end of a video."""

    fps: float
    live: bool

    def read(self) -> Image | None: ...

    def close(self) -> None: ...
