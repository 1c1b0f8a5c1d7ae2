"""The demo's camera: the vision pipeline (markers, stillness, reading) over the film's
frames, built from the table profile the demo calibrated before the film
(:mod:`companion.demo.calibrate`), as a player's camera is built from theirs."""

from __future__ import annotations

from typing import Any

import numpy as np

from calibration.intrinsics import CameraProfile
from calibration.profiles import now_iso
from companion.demo.base import READERS
from companion.demo.film import Shot
from engines.observation import Observation
from vision.pipeline import STILL, Pipeline, PipelineResult, draw_recognised, reader_for


def lens_profile(shot: Shot) -> Any:
    """The renderer's camera as a calibration profile (exact: no calibration error)."""
    camera = shot.camera()
    matrix = tuple(tuple(float(v) for v in row) for row in camera.matrix)
    return CameraProfile(
        (camera.width, camera.height),
        matrix,
        tuple(float(v) for v in camera.distortion),
        0.0,
        (),
        (),
        "the demo's renderer",
        now_iso(),
    )


def camera_pipeline(profile: Any, rules: Any, reader: str = "appearance") -> Pipeline:
    """The camera pipeline of the table ``profile`` (a ``TableProfile``) describes, told
    what ``rules`` put on the table. ``reader``: ``appearance``, the profile's own reader
    (the set's appearance when it was calibrated); ``colours``, the colour reader, with
    the profile's lens and layout. Raises ``ValueError`` for another reader."""
    if reader == "appearance":
        return profile.pipeline(rules=rules)  # type: ignore[no-any-return]
    if reader == "colours":
        return Pipeline(
            profile.game,
            locator=profile.locator(),
            reader=reader_for(profile.game, profile.model, profile.colours, rules),
            model=profile.model,
            rules=rules,
        )
    raise ValueError(f"no reader {reader!r}; choose one of {', '.join(READERS)}")


class CameraReader:
    """Frames in, the still table out (see ``companion.demo.chain.Recogniser``)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.last: PipelineResult | None = None
        self.messages: list[str] = []

    def feed(self, frame: np.ndarray[Any, Any]) -> Observation | None:
        result = self.pipeline.process(frame)
        if (
            result.status != STILL
            and result.message
            and (not self.messages or self.messages[-1] != result.message)
        ):
            self.messages.append(result.message)
        if result.status == STILL:
            self.last = result
        return result.observation

    def picture(self, frame: np.ndarray[Any, Any] | None) -> np.ndarray[Any, Any] | None:
        """``frame`` with what was last read outlined on it (None without a reading)."""
        last = self.last
        if frame is None or last is None or last.view is None or last.observation is None:
            return None
        return draw_recognised(frame, last.view, last.observation, self.pipeline.model)
