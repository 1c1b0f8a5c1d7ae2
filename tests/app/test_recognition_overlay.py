"""The live view frames the elements the referee names: one beside the board (ShenShi's
tokens) is not framed; a name the board does not have is an error, not skipped."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.app.recognition import HIGHLIGHT_BGR, VisionRecogniser
from vision.models import load_model


class _View:
    image_size = (400, 400)

    @staticmethod
    def to_image(points: Any) -> Any:
        return np.asarray(points) * 0.8 + 10


def _recogniser() -> VisionRecogniser:
    class Pipeline:
        model = load_model("shenshi")

    recogniser = VisionRecogniser(Pipeline())
    recogniser.view = _View()
    return recogniser


def test_elements_beside_the_board_are_not_framed_and_unknown_ones_are_errors() -> None:
    recogniser = _recogniser()
    frame = np.zeros((400, 400, 3), np.uint8)
    beside = recogniser.overlay(frame, None, ["tokens gold"], [])
    assert not np.all(beside == HIGHLIGHT_BGR, axis=-1).any()
    framed = recogniser.overlay(frame, None, ["tokens gold", "a7 monk"], [])
    assert np.all(framed == HIGHLIGHT_BGR, axis=-1).sum() > 20
    with pytest.raises(KeyError, match="no element 'z9 monk'"):
        recogniser.overlay(frame, None, ["z9 monk"], [])


@pytest.mark.parametrize("game", ["shangrila", "shendao", "shenshi"])
def test_every_element_the_referee_names_is_on_the_board_or_said_to_be_beside(game: str) -> None:
    from vision.models import referee_schema

    model = load_model(game)
    for element in referee_schema(game).elements:
        if model.on_board(element):
            model.region(element)  # raises KeyError for a name the board lacks
