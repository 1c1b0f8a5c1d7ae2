"""The camera's reading pipeline (``vision.pipeline``) as the live view's
``Recogniser``: it locates the board in each frame, waits until the board is still,
reads every element, and draws what it read (``draw_recognised``); on top of that the
app frames, where the board lies in the picture, the elements the referee wants put
back (red) and those a hint or an engine move changes (green)."""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import Any

import cv2
import numpy as np

from calibration.errors import ProfileError
from companion.app.feeds import NoRecognition, Recogniser
from companion.app.frames import Image
from engines.observation import Observation
from vision.models import ModelError
from vision.pipeline import Pipeline, draw_recognised
from vision.table_profile import load_table_profile

HIGHLIGHT_BGR = (20, 20, 235)
SUGGEST_BGR = (60, 200, 60)


class VisionRecogniser:
    """A ``vision.pipeline.Pipeline`` behind the ``feeds.Recogniser`` interface."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.model = pipeline.model
        self.message = ""
        self.view: Any = None
        self._shown: Observation | None = None
        """The last reading drawn: kept while a hand moves over the board."""

    def feed(self, frame: Image) -> Observation | None:
        result = self.pipeline.process(frame, time.monotonic())
        self.view = result.view
        observation = result.observation
        self.message = "" if observation is not None else result.message
        if observation is not None:
            self._shown = observation
        elif result.view is None:
            self._shown = None
        return observation

    def overlay(
        self,
        frame: Image,
        observation: Observation | None,
        highlight: Collection[str],
        suggest: Collection[str],
    ) -> Image:
        view = self.view
        if view is None:
            return frame
        shown = observation or self._shown
        image = (
            draw_recognised(frame, view, shown, self.model) if shown is not None else frame.copy()
        )
        scale = max(2, round(max(image.shape[:2]) / 400))
        for elements, colour in ((suggest, SUGGEST_BGR), (highlight, HIGHLIGHT_BGR)):
            for name in elements:
                if not self.model.on_board(name):  # beside the board (ShenShi's tokens)
                    continue
                region = self.model.region(name)
                corners = view.to_image(region.corners_mm() * 1.0)
                centre = corners.mean(axis=0)
                grown = centre + (corners - centre) * 1.35
                outline = np.rint(grown).astype(np.int32).reshape(-1, 1, 2)
                cv2.polylines(image, [outline], True, colour, scale, cv2.LINE_AA)
        return image


def make_recogniser(game: str, rules: Any = None, profile: str | None = None) -> Recogniser:
    """The pipeline for ``game`` with what the calibration ``profile`` (the default one
    for ``None``) holds for it: the lens, the board's reference picture, its fitted
    layout, and the set's appearance or colour model (``vision.table_profile``);
    ``rules``, when given, tell the reader what is in play (ShenShi's metals).
    ``NoRecognition`` with the reason when it cannot be made."""
    try:
        return VisionRecogniser(load_table_profile(game, profile).pipeline(rules=rules))
    except (ModelError, ProfileError, OSError, ValueError) as error:
        return NoRecognition(str(error))
