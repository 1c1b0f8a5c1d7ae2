"""Observations: shape checks, merging two sources, JSON."""

from __future__ import annotations

import pytest

from engines import RecordError
from engines.observation import Observation, Reading
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import (
    expected,
    from_camera_above,
    schema,
)


@pytest.fixture
def table() -> Observation:
    state = ShangrilaRules().state_from_json({
        "phase": "play", "to_move": 0, "spaces": {"4": {"H": "red+"}},
        "bridges": [f"{a}-{b}" for a, b in ShangrilaRules().bridges], "stones": []})
    return expected(state)


def test_a_state_shows_every_element(table: Observation) -> None:
    assert len(table) == 91 * 2 + 23 + 13
    assert table["4H"] == Reading("red", 1.0)
    assert table["4H^"] == Reading(2, 1.0)
    assert table["4R^"] == Reading(0, 1.0)
    assert table["bridge 4-7"] == Reading(True, 1.0)
    assert table["stone 4"] == Reading(False, 1.0)


def test_a_camera_above_cannot_see_stack_heights(table: Observation) -> None:
    above = from_camera_above(table)
    assert not above["4H^"].known
    assert above["4H"].value == "red"


def test_merging_camera_and_sensors_gives_both(table: Observation) -> None:
    camera = from_camera_above(table)
    sensors = Observation(table.schema, {"4H^": 2, "4H": Reading("red", 0.6)})
    merged = camera.merge(sensors)
    assert merged["4H^"] == Reading(2, 1.0)
    assert merged["4H"].value == "red" and merged["4H"].confidence == 1.0


def test_disagreeing_sources_keep_the_surer_value_less_sure(table: Observation) -> None:
    a = Observation(table.schema, {"4H": Reading("red", 0.9)})
    b = Observation(table.schema, {"4H": Reading("blue", 0.6)})
    merged = a.merge(b)
    assert merged["4H"].value == "red"
    assert merged["4H"].confidence == pytest.approx(0.3)


def test_json_round_trip_keeps_confidence(table: Observation) -> None:
    seen = table.replace({"4H": Reading("red", 0.75), "7A": None})
    again = Observation.from_json(table.schema, seen.to_json())
    assert again == seen
    assert not again["7A"].known


@pytest.mark.parametrize("readings", [
    {"4Z": "red"},
    {"4H": "green"},
    {"4H^": 3},
    {"bridge 4-7": 1},  # a flag, not a count
    {"4H^": True},
    {"4H": ["red", 2.0]},
])
def test_wrong_shapes_are_refused_with_the_element(readings: dict[str, object]) -> None:
    rules = ShangrilaRules()
    with pytest.raises(RecordError):
        Observation.from_json(schema(rules), {"readings": readings})


def test_an_observation_of_another_game_is_refused() -> None:
    with pytest.raises(RecordError, match="shendao"):
        Observation.from_json(schema(ShangrilaRules()), {"game": "shendao", "readings": {}})
