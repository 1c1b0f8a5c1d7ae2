"""The demo's camera: the vision pipeline (markers, stillness, reading) over the film's
frames, with the lens profile a ``companion calibrate camera`` would have made of the
renderer's camera — the demo's camera was calibrated, as a player's would be."""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.demo.film import Shot
from companion.demo.script import Script
from engines.observation import Observation
from vision.pipeline import STILL, Pipeline, PipelineResult, draw_recognised


def lens_profile(shot: Shot) -> Any:
    """The renderer's camera as a calibration profile (exact: no calibration error)."""
    from calibration.intrinsics import CameraProfile
    from calibration.profiles import now_iso

    camera = shot.camera()
    matrix = tuple(tuple(float(v) for v in row) for row in camera.matrix)
    return CameraProfile((camera.width, camera.height), matrix,
                         tuple(float(v) for v in camera.distortion), 0.0, (), (),
                         "the demo's renderer", now_iso())


class CameraReader:
    """Frames in, the still table out (see ``companion.demo.chain.Recogniser``)."""

    def __init__(self, script: Script, shot: Shot) -> None:
        from vision.locate import Locator

        game = script.spec.game
        self.pipeline = Pipeline(game, locator=Locator(game, camera=lens_profile(shot)),
                                 rules=script.rules)
        self.last: PipelineResult | None = None
        self.messages: list[str] = []

    def feed(self, frame: np.ndarray[Any, Any]) -> Observation | None:
        result = self.pipeline.process(frame)
        if result.status != STILL and result.message and (
                not self.messages or self.messages[-1] != result.message):
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
