"""Layouts and calibration: counts and names per game, the Shangri-La table schema,
readings <-> observations, LEDs by element."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from engines.observation import UNKNOWN, Observation, Reading
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected, schema
from firmware_bridge.errors import LayoutError, ProtocolError
from firmware_bridge.layouts import TableConverter, layout_for, layout_of, load_layouts
from firmware_bridge.messages import (
    CODE_UNREADABLE,
    NO_HEIGHT,
    Capability,
    DeviceInfo,
    reading_byte,
)
from tests.engines.shangrila.helpers import position


def _count(game: str, kind: str) -> int:
    layout = layout_for(game)
    return sum(1 for k in layout.kinds if k.name == kind)


def test_position_counts() -> None:
    assert (
        _count("shangrila", "space"),
        _count("shangrila", "bridge"),
        _count("shangrila", "stone"),
    ) == (91, 23, 13)
    assert (_count("shendao", "square"), _count("shendao", "gate")) == (64, 36)
    assert _count("shenshi", "square") == 49


def test_names() -> None:
    shendao = layout_for("shendao").names
    assert shendao[:2] == ("a1", "b1") and shendao[63] == "h8"
    assert shendao[64:] == (
        *(f"W{i}" for i in range(1, 9)),
        *(f"E{i}" for i in range(1, 9)),
        *(f"S{f}" for f in "abcdefgh"),
        *(f"N{f}" for f in "abcdefgh"),
        "SW",
        "SE",
        "NW",
        "NE",
    )
    assert layout_for("shenshi").names[-1] == "g7"
    shangrila = layout_for("shangrila")
    assert shangrila.names[33] == "4H" and shangrila.elements(33) == ("4H", "4H^")
    assert shangrila.elements(shangrila.names.index("bridge 4-7")) == ("bridge 4-7",)


def test_shangrila_layout_covers_its_table_schema_exactly() -> None:
    layout = layout_for("shangrila")
    elements = {e for p in range(layout.positions) for e in layout.elements(p)}
    assert elements == set(schema(ShangrilaRules()).elements)


def test_readings_and_observations_round_trip() -> None:
    # a student on the blue Healer of village 4
    state = position({4: {"A": "red", "H": "blue+"}, 7: {"Y": "yellow"}})
    table = expected(state)
    converter = TableConverter(layout_for("shangrila"), table.schema)
    readings = converter.readings(table)
    assert readings[33] == reading_byte(2, 2)  # 4H: blue (code 2), height 2
    assert converter.observation(readings) == table


def test_unreadable_uncalibrated_and_unmeasured_are_unknown() -> None:
    layout = layout_for("shangrila")
    converter = TableConverter(layout, schema(ShangrilaRules()))
    readings = bytearray(
        reading_byte(0, 0) if p < 91 else reading_byte(1) for p in range(layout.positions)
    )
    readings[0] = reading_byte(CODE_UNREADABLE, NO_HEIGHT)
    readings[1] = reading_byte(9, 1)  # a code the calibration does not know
    readings[2] = reading_byte(1, NO_HEIGHT)  # red, height not measured
    seen = converter.observation(bytes(readings))
    assert seen["0R"] == UNKNOWN and seen["0R^"] == UNKNOWN
    assert seen["0P"] == UNKNOWN and seen.value("0P^") == 1
    assert seen.value("0Y") == "red" and seen["0Y^"] == UNKNOWN
    assert seen.value("bridge 0-1") is True and seen.value("stone 12") is True


def test_unknown_elements_become_unreadable_sensors() -> None:
    table = expected(ShangrilaRules().initial_state())
    converter = TableConverter(layout_for("shangrila"), table.schema)
    blind = table.replace({"4H": None, "4H^": None})
    assert converter.readings(blind)[33] == reading_byte(CODE_UNREADABLE, NO_HEIGHT)


def test_a_confidence_for_sensor_readings() -> None:
    table = expected(ShangrilaRules().initial_state())
    converter = TableConverter(layout_for("shangrila"), table.schema, confidence=0.95)
    seen = converter.observation(converter.readings(table))
    assert seen["4H"] == Reading("empty", 0.95)


def test_shendao_layout_covers_its_table_schema_and_round_trips() -> None:
    from engines.shendao import ShendaoRules
    from engines.shendao.observation import expected as shendao_table
    from engines.shendao.observation import schema as shendao_schema

    rules = ShendaoRules()
    layout = layout_for("shendao")
    assert layout.calibrated
    elements = {e for p in range(layout.positions) for e in layout.elements(p)}
    assert elements == set(shendao_schema(rules).elements)
    state = rules.initial_state()
    state.play_text("W3")
    table = shendao_table(state)
    converter = TableConverter(layout, table.schema)
    readings = converter.readings(table)
    assert readings[layout.names.index("W3")] == reading_byte(1)  # closed, no height
    assert converter.observation(readings) == table


def test_a_shenshi_square_reads_its_cushion_and_its_monk() -> None:
    from engines.shenshi import ShenshiRules
    from engines.shenshi.observation import expected as shenshi_table
    from engines.shenshi.observation import schema as shenshi_schema

    rules = ShenshiRules.from_record(ShenshiRules.default_players(4), {})
    layout = layout_for("shenshi")
    assert layout.elements(layout.names.index("c3")) == ("c3 cushion", "c3 monk")
    table = shenshi_table(rules.initial_state())
    converter = TableConverter(layout, shenshi_schema(rules))
    back = converter.observation(converter.readings(table))
    for element in table:
        if element.endswith((" cushion", " monk")):
            assert back[element] == table[element]
        else:  # printed tiles and path tokens are the camera's to read
            assert not back[element].known
    assert layout.describe(0, reading_byte(10)) == "a1: blond, silver-grand"


def test_uncalibrated_layouts_give_raw_readings_only(tmp_path: Path) -> None:
    data = json.loads(
        resources.files("firmware_bridge").joinpath("layouts.json").read_text("utf-8")
    )
    del data["layouts"]["shenshi"]["kinds"]["square"]["codes"]
    path = tmp_path / "layouts.json"
    path.write_text(json.dumps(data))
    layout = layout_for("shenshi", path)
    assert not layout.calibrated
    assert layout.describe(3, reading_byte(5)) == "d1: code 5"
    with pytest.raises(LayoutError, match="not calibrated"):
        TableConverter(layout, schema(ShangrilaRules()))


def test_describe() -> None:
    layout = layout_for("shangrila")
    assert layout.describe(33, reading_byte(1, 2)) == "4H: red, height 2"
    assert layout.describe(33, reading_byte(CODE_UNREADABLE)) == "4H: unreadable"
    assert layout.describe(33, reading_byte(9, 1)) == "4H: uncalibrated code 9, height 1"
    bridge = layout.names.index("bridge 4-7")
    assert layout.describe(bridge, reading_byte(1)) == "bridge 4-7: true"


def test_leds_by_element() -> None:
    layout = layout_for("shangrila")
    assert layout.position_of("4H") == layout.position_of("4H^") == 33
    with pytest.raises(KeyError):
        layout.position_of("4Q")


def test_handshake_must_name_the_layout() -> None:
    layout = layout_for("shangrila")
    good = DeviceInfo(1, 1, 1, 127, Capability.HEIGHTS, 250, "x")
    layout.check_info(good)
    assert layout_of(good) is layout
    with pytest.raises(ProtocolError, match="expected shangrila"):
        layout.check_info(DeviceInfo(1, 1, 1, 126, Capability.HEIGHTS, 250, "x"))
    with pytest.raises(ProtocolError, match="unknown board"):
        layout_of(DeviceInfo(1, 9, 1, 10, Capability(0), 250, "x"))


def test_a_calibration_must_fit_the_schema(tmp_path: Path) -> None:
    data = json.loads((Path(__file__).parents[2] / "firmware_bridge" / "layouts.json").read_text())
    data["layouts"]["shangrila"]["kinds"]["space"]["codes"]["5"] = "green"
    path = tmp_path / "layouts.json"
    path.write_text(json.dumps(data))
    layout = layout_for("shangrila", path)
    with pytest.raises(LayoutError, match=r"position 0 \(0R\): .*'green'"):
        TableConverter(layout, schema(ShangrilaRules()))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["layouts"]["shenshi"]["positions"][0]["names"].append("a1"),
            "is also position 0",
        ),
        (lambda d: d["layouts"]["shenshi"]["kinds"]["square"].update(value="x"), "value"),
        (lambda d: d["layouts"]["shenshi"]["kinds"]["square"].update(codes={"63": "x"}), "outside"),
        (lambda d: d["layouts"]["shenshi"].update(game_id=1), "share a game id"),
        (lambda d: d["layouts"]["shenshi"].pop("positions"), "malformed"),
    ],
)
def test_inconsistent_layouts_are_refused(tmp_path: Path, change: object, message: str) -> None:
    data = json.loads((Path(__file__).parents[2] / "firmware_bridge" / "layouts.json").read_text())
    change(data)  # type: ignore[operator]
    path = tmp_path / "layouts.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LayoutError, match=message):
        load_layouts(path)


def test_an_unreadable_layouts_file(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot read"):
        load_layouts(tmp_path / "missing.json")
    with pytest.raises(LayoutError, match="no sensor layout for 'chess'"):
        layout_for("chess")


def test_observation_of_the_wrong_length() -> None:
    converter = TableConverter(layout_for("shangrila"), schema(ShangrilaRules()))
    with pytest.raises(LayoutError, match="126 readings"):
        converter.observation(bytes(126))
    assert isinstance(converter.observation(bytes(127)), Observation)
