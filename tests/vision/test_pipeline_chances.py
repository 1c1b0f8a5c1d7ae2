"""The appearance reader's probabilities reach the observation as chances."""

from __future__ import annotations

import numpy as np
import pytest

from engines.observation import Observation, Reading
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import schema
from vision.appearance import AppearanceReading
from vision.pipeline import STILL, Pipeline, weighed_observation


def _reading() -> AppearanceReading:
    table = schema(ShangrilaRules())
    shown = Observation(table, {"4H": Reading("red", 0.9), "bridge 0-1": Reading(True, 0.8)})
    probabilities = {
        "4H": {
            "empty": 0.05,
            "red": 0.9,
            "blue": 0.03,
            "yellow": 0.01,
            "violet": 0.0,
            "other": 0.01,
        },
        "bridge 0-1": {"True": 0.8, "False": 0.15, "other": 0.05},
        "7A": {"empty": 0.45, "blue": 0.4, "red": 0.05, "other": 0.1},  # unsure
        "5D": {"empty": 0.2, "red": 0.1, "other": 0.7},  # a hand, most likely
    }
    return AppearanceReading(
        shown, probabilities, {"7A": "unsure", "5D": "a hand"}, frozenset({"5D"})
    )


def test_probabilities_become_chances_keyed_by_the_schemas_values() -> None:
    reading = _reading()
    observation = weighed_observation(reading.observation, reading.probabilities)
    space = observation["4H"]
    assert space.value == "red" and space.confidence == 0.9  # the reader's confidence
    assert space.chances is not None and space.chances[0] == ("red", 0.9)
    assert dict(space.chances)["empty"] == pytest.approx(0.05)
    bridge = observation["bridge 0-1"]
    assert bridge.value is True and bridge.chances == ((True, 0.8), (False, 0.15))
    unsure = observation["7A"]
    assert not unsure.known and unsure.chances is not None
    assert unsure.chances[0] == ("empty", 0.45)
    assert not observation["5D"].evidence  # no value evidence under a hand
    assert observation["4R"] == Reading(None, 0.0)  # not read: no chances


class _Reader:
    def read(self, frame: object, view: object, covered: object = ()) -> AppearanceReading:
        return _reading()


class _Here:
    view = object()
    message = ""

    def locate(self, frame: object) -> _Here:
        return self


def test_the_pipeline_passes_the_chances_on() -> None:
    pipeline = Pipeline(
        "shangrila",
        locator=_Here(),
        reader=_Reader(),  # type: ignore[arg-type]
        require_still=False,
    )
    result = pipeline.process(np.zeros((8, 8, 3), np.uint8))
    assert result.status == STILL and result.observation is not None
    assert result.observation["7A"].chances is not None
    assert result.observation.to_json()["readings"]["bridge 0-1"] == {"true": 0.8, "false": 0.15}
