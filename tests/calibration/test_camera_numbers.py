"""Camera numbers below 0 never reach OpenCV (``VideoCapture(-1)`` can crash the
process): the frame sources and the command line's argument type refuse them."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from calibration.errors import SourceError
from calibration.sources import camera_frames, grab_frame
from companion.cli import camera_index


def _never(index: Any) -> Any:
    raise AssertionError(f"OpenCV was asked for camera {index!r}")


@pytest.mark.parametrize("index", [-1, -7, True])
def test_sources_refuse_what_is_not_a_camera_number(index: Any) -> None:
    with pytest.raises(SourceError, match="not a camera number"):
        grab_frame(index, _never)
    with pytest.raises(SourceError, match="not a camera number"):
        next(camera_frames(index, 0.0, 1.0, _never))


@pytest.mark.parametrize("text", ["-1", "x", "1.5", ""])
def test_the_argument_type_refuses_them(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="not a camera number"):
        camera_index(text)


def test_the_argument_type_takes_zero_and_up() -> None:
    assert camera_index("0") == 0 and camera_index("3") == 3
