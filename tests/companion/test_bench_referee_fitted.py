"""``companion bench referee --readers fitted``: the camera's readings drawn from the
fitted reader's measured errors, with and without each value's chance."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from companion.cli import main
from companion.simulator import TableSimulator
from companion.simulator.evaluate import BENCH_TABLE
from companion.simulator.handling import handling_for
from companion.simulator.readers import Reader
from engines import rules_class


def test_a_couple_of_games_with_fitted_readers(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "bench",
                "referee",
                "--game",
                "shendao",
                "--games",
                "1",
                "--readers",
                "fitted",
                "--chances",
                "both",
                "--clock",
                "cpu",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["table"]["camera_errors"] == "fitted"
    without, with_chances = data["runs"]
    assert (without["readers"], with_chances["readers"]) == ("fitted", "fitted, chances")
    for run in data["runs"]:
        assert run["games"] == 1 and run["moves"] > 10
        assert run["recognised_exactly_pct"] is not None
        assert run["verdict_ms"]["p99"] is not None
    assert without["moves"] == with_chances["moves"]  # the same games


def test_the_report_names_the_readers(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["bench", "referee", "--game", "shendao", "--games", "1", "--readers", "fitted"]) == 0
    )
    out = capsys.readouterr().out
    assert "fitted reader's measured errors" in out and "verdict time (wall) p99" in out


def test_fitted_readers_are_the_cameras(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "bench",
                "referee",
                "--game",
                "shendao",
                "--games",
                "1",
                "--readers",
                "fitted",
                "--sources",
                "sensors",
            ]
        )
        == 2
    )
    assert "--sources camera" in capsys.readouterr().err


def test_the_camera_reads_as_measured() -> None:
    """Over many frames of a still table, the drawn camera is wrong, unsure and blind
    about as often as the file says for the values on the table."""
    from vision.reader_errors import RIGHT, element_kinds, load_errors

    cls = rules_class("shangrila")
    rules = cls.from_record(cls.default_players(4), {})
    config = replace(BENCH_TABLE, camera_errors="fitted")
    simulator = TableSimulator(rules, [], config)
    reader = simulator.readers[0]
    assert isinstance(reader, Reader)
    table = handling_for(rules).table(rules.initial_state())
    rng = np.random.default_rng(5)
    frames = 400
    right = shown = 0
    for _ in range(frames):
        observation = reader.read(table, set(), rng)
        for element in reader.elements:
            got = observation[element]
            shown += got.known
            right += got.known and got.value == table[element]
    errors = load_errors("shangrila")
    kinds = element_kinds("shangrila", reader.elements)
    assert set(kinds) == set(reader.elements)
    expected = sum(errors.kinds[k].of(table[e]).rate(RIGHT) for e, k in kinds.items())
    assert abs(right / frames - expected) < 0.5
    assert shown >= right
