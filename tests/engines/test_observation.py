"""Observations: shape checks, merging two sources, JSON."""

from __future__ import annotations

import json

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
    state = ShangrilaRules().state_from_json(
        {
            "phase": "play",
            "to_move": 0,
            "spaces": {"4": {"H": "red+"}},
            "bridges": [f"{a}-{b}" for a, b in ShangrilaRules().bridges],
            "stones": [],
        }
    )
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


@pytest.mark.parametrize(
    "readings",
    [
        {"4Z": "red"},
        {"4H": "green"},
        {"4H^": 3},
        {"bridge 4-7": 1},  # a flag, not a count
        {"4H^": True},
        {"4H": ["red", 2.0]},
    ],
)
def test_wrong_shapes_are_refused_with_the_element(readings: dict[str, object]) -> None:
    rules = ShangrilaRules()
    with pytest.raises(RecordError):
        Observation.from_json(schema(rules), {"readings": readings})


def test_an_observation_of_another_game_is_refused() -> None:
    with pytest.raises(RecordError, match="shendao"):
        Observation.from_json(schema(ShangrilaRules()), {"game": "shendao", "readings": {}})


# --- readings with chances ---------------------------------------------------------------


def test_a_weighed_reading_shows_its_likeliest_value() -> None:
    reading = Reading.weighed({"empty": 0.06, "red": 0.93, "blue": 0.01})
    assert reading.value == "red" and reading.confidence == pytest.approx(0.93)
    assert [v for v, _ in reading.chances or ()] == ["red", "empty", "blue"]
    unsure = Reading.weighed({"red": 0.5, "empty": 0.5}, shown=False)
    assert not unsure.known and unsure.evidence and unsure.confidence == 0.0
    assert Reading("red", 0.8) == Reading("red", 0.8, None)  # plain readings as before


def test_a_readings_chance_of_each_value() -> None:
    weighed = Reading.weighed({"red": 0.9, "empty": 0.06})
    assert weighed.chance("red", 5) == pytest.approx(0.9 / 0.96)
    plain = Reading("red", 0.6)
    assert plain.chance("red", 5) == pytest.approx(0.6)
    assert plain.chance("blue", 5) == pytest.approx(0.1)
    assert Reading(True, 1.0).chance(False, 2) == pytest.approx(0.001)  # never impossible
    assert Reading(True, 0.7).chance(1, 2) == pytest.approx(0.3)  # a count is not a flag
    assert Reading(None, 0.0).chance("red", 5) == Reading(None, 0.0).chance("blue", 5)


def test_json_round_trip_keeps_chances(table: Observation) -> None:
    seen = table.replace(
        {
            "4H": Reading.weighed({"red": 0.93, "empty": 0.06, "blue": 0.01}),
            "7A": Reading.weighed({"empty": 0.55, "blue": 0.45}, shown=False),
            "4H^": Reading.weighed({2: 0.7, 1: 0.3}),
            "bridge 4-7": Reading.weighed({True: 0.8, False: 0.2}),
        }
    )
    data = seen.to_json()
    readings = data["readings"]
    assert readings["4H"] == {"red": 0.93, "empty": 0.06, "blue": 0.01}
    assert readings["7A"] == [None, {"empty": 0.55, "blue": 0.45}]
    assert readings["4H^"] == {"2": 0.7, "1": 0.3}
    assert readings["bridge 4-7"] == {"true": 0.8, "false": 0.2}
    assert readings["4R"] == "empty"  # plain readings keep their form
    again = Observation.from_json(table.schema, json.loads(json.dumps(data)))
    assert again == seen
    assert again["4H^"].value == 2 and type(again["4H^"].value) is int
    assert again["bridge 4-7"].value is True


def test_old_files_and_partial_chances_still_load(table: Observation) -> None:
    old = Observation.from_json(table.schema, {"readings": {"4H": ["red", 0.75], "7A": "blue"}})
    assert old["4H"] == Reading("red", 0.75) and old["7A"] == Reading("blue", 1.0)
    listed = Observation.from_json(table.schema, {"readings": {"4H": {"red": 0.8}}})
    assert listed["4H"].chance("blue", 5) == pytest.approx(0.05)  # the rest, shared
    shown = Observation.from_json(
        table.schema, {"readings": {"4H": ["blue", {"red": 0.6, "blue": 0.4}]}}
    )
    assert shown["4H"].value == "blue" and shown["4H"].confidence == pytest.approx(0.4)


@pytest.mark.parametrize(
    "raw",
    [
        {"green": 0.9},
        {"red": 1.5},
        {"red": True},
        {"red": 0.8, "blue": 0.7},
        {},
        ["green", {"red": 0.9}],
    ],
)
def test_wrong_chances_are_refused_with_the_element(raw: object) -> None:
    with pytest.raises(RecordError, match="4H"):
        Observation.from_json(schema(ShangrilaRules()), {"readings": {"4H": raw}})


def test_merging_chances_multiplies_them(table: Observation) -> None:
    a = Observation(table.schema, {"4H": Reading.weighed({"red": 0.6, "blue": 0.4})})
    b = Observation(table.schema, {"4H": Reading.weighed({"red": 0.3, "blue": 0.7})})
    merged = a.merge(b)["4H"]
    # 0.18 against 0.28, the three other values at the least chance twice over
    assert merged.value == "blue"
    assert merged.confidence == pytest.approx(0.28 / 0.46, abs=1e-4)
    assert merged.chance("red", 5) == pytest.approx(0.18 / 0.46, abs=1e-4)
    assert a.merge(Observation(table.schema))["4H"] == a["4H"]


def test_merging_chances_with_a_plain_reading_weighs_it_by_its_confidence(
    table: Observation,
) -> None:
    camera = Observation(
        table.schema, {"4H": Reading.weighed({"red": 0.55, "blue": 0.45}, shown=False)}
    )
    sensors = Observation(table.schema, {"4H": Reading("blue", 0.8)})
    merged = camera.merge(sensors)["4H"]
    assert merged.value == "blue"  # shown: the sensors showed a value
    assert merged.chance("blue", 5) == pytest.approx(
        0.45 * 0.8 / (0.45 * 0.8 + 0.55 * 0.05), abs=1e-3
    )
