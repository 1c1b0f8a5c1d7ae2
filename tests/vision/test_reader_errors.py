"""The reader error model: its file round-trips, the shipped files load, and readings
drawn from it reproduce its rates."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from engines.observation import TableSchema
from vision.reader_errors import (
    CHANCE_EDGES,
    NOT_SHOWN,
    RIGHT,
    UNSURE,
    WRONG,
    ReaderErrors,
    ReaderErrorsError,
    ReadingSampler,
    bin_of,
    dumps,
    load_errors,
)

SCHEMA = TableSchema(
    "test",
    ("a", "b", "g"),
    {
        "a": frozenset({"empty", "red", "blue"}),
        "b": frozenset({"empty", "red", "blue"}),
        "g": frozenset({True, False}),
    },
)
KINDS = {"a": "space", "b": "space", "g": "bridge"}


def _errors() -> ReaderErrors:
    """Made-up counts: red is read right 900 times, as blue 60 and as empty 20, unsure
    15 times and not shown 5; its right confidences split over three bins."""
    errors = ReaderErrors("test", provenance={"command": "made up for the test"})
    for _ in range(500):
        errors.add("space", "red", RIGHT, "red", 0.995)
    for _ in range(300):
        errors.add("space", "red", RIGHT, "red", 0.95)
    for _ in range(100):
        errors.add("space", "red", RIGHT, "red", 0.7)
    for _ in range(60):
        errors.add(
            "space",
            "red",
            WRONG,
            "blue",
            0.92,
            {"blue": 0.92, "red": 0.06, "empty": 0.01, "other": 0.01},
        )
    for _ in range(20):
        errors.add("space", "red", WRONG, "empty", 0.65, {"empty": 0.65, "red": 0.3, "blue": 0.05})
    for _ in range(15):
        errors.add("space", "red", UNSURE, chances={"red": 0.5, "blue": 0.3, "empty": 0.2})
    for _ in range(5):
        errors.add("space", "red", NOT_SHOWN, chances={"other": 0.9, "red": 0.1})
    for _ in range(1000):
        errors.add("space", "empty", RIGHT, "empty", 0.99995)
    for _ in range(200):
        errors.add("bridge", True, RIGHT, True, 0.97)
    errors.add("bridge", True, UNSURE, chances={"True": 0.55, "False": 0.4, "other": 0.05})
    return errors


def test_the_file_round_trips() -> None:
    import json

    errors = _errors()
    again = ReaderErrors.from_json(json.loads(dumps(errors)))
    assert again.to_json() == errors.to_json()
    red = again.kinds["space"].of("red")
    assert (red.right, red.wrong_total, red.unsure, red.not_shown) == (900, 80, 15, 5)
    assert again.kinds["bridge"].of(True).total == 201  # a flag stays a flag
    with pytest.raises(ReaderErrorsError):
        ReaderErrors.from_json({**errors.to_json(), "version": 99})
    with pytest.raises(ReaderErrorsError):
        ReaderErrors.from_json({**errors.to_json(), "kinds": {"space": {"values": 3}}})


def test_confidences_fall_in_their_bins() -> None:
    assert bin_of(0.0) == 0 and bin_of(1.0) == len(CHANCE_EDGES) - 2
    assert CHANCE_EDGES[bin_of(0.9)] == 0.9 and CHANCE_EDGES[bin_of(0.8999)] == 0.8


def _within(count: int, total: int, rate: float) -> bool:
    """``count`` of ``total`` is within five standard deviations of ``rate``."""
    return abs(count - total * rate) <= 5 * math.sqrt(total * rate * (1 - rate)) + 1


def test_drawn_readings_reproduce_the_measured_rates() -> None:
    errors = _errors()
    sampler = ReadingSampler(errors, SCHEMA, KINDS)
    rng = np.random.default_rng(7)
    n = 100_000
    outcomes: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    bins: Counter[int] = Counter()
    for u in rng.random((n, 3)).tolist():
        reading = sampler.draw("a", "red", u)
        if reading is None:
            outcomes[sampler.outcome("a", "red", u[0])[0]] += 1
            continue
        assert reading.value is not None
        assert 0.6 <= reading.confidence <= 1.0
        if reading.value == "red":
            outcomes[RIGHT] += 1
            bins[bin_of(reading.confidence)] += 1
        else:
            outcomes[WRONG] += 1
            wrong[str(reading.value)] += 1
    red = errors.kinds["space"].of("red")
    for outcome in (RIGHT, WRONG, UNSURE, NOT_SHOWN):
        assert _within(outcomes[outcome], n, red.rate(outcome)), (outcome, outcomes)
    assert _within(wrong["blue"], outcomes[WRONG], 60 / 80)
    assert _within(bins[bin_of(0.995)], outcomes[RIGHT], 500 / 900)
    assert _within(bins[bin_of(0.95)], outcomes[RIGHT], 300 / 900)
    assert _within(bins[bin_of(0.7)], outcomes[RIGHT], 100 / 900)


def test_a_value_never_measured_takes_its_kinds_rates() -> None:
    sampler = ReadingSampler(_errors(), SCHEMA, KINDS)
    rng = np.random.default_rng(3)
    n = 50_000
    counts = Counter(sampler.outcome("b", "blue", u)[0] for u in rng.random(n).tolist())
    pooled = _errors().kinds["space"].pooled()
    for outcome in (RIGHT, WRONG, UNSURE, NOT_SHOWN):
        assert _within(counts[outcome], n, pooled.rate(outcome)), (outcome, counts)
    # its wrong readings are the kind's other values, drawn evenly
    wrong = [u for u in np.linspace(0, 0.999, 1000) if sampler.outcome("b", "blue", u)[0] == WRONG]
    values = Counter(
        str(sampler.draw("b", "blue", (u, v, 0.5)).value)  # type: ignore[union-attr]
        for u in wrong
        for v in np.linspace(0, 0.999, 10)
    )
    assert set(values) == {"red", "empty"} and abs(values["red"] - values["empty"]) <= 20


def test_drawn_readings_carry_chances_when_asked() -> None:
    sampler = ReadingSampler(_errors(), SCHEMA, KINDS, chances=True)
    rng = np.random.default_rng(11)
    seen = Counter()
    for u in rng.random((5_000, 3)).tolist():
        outcome = sampler.outcome("a", "red", u[0])[0]
        reading = sampler.draw("a", "red", u)
        if outcome == NOT_SHOWN:
            assert reading is None
            continue
        assert reading is not None and reading.chances is not None
        # something else is left out, as the camera pipeline leaves it
        assert sum(p for _, p in reading.chances) <= 1.0 + 1e-9
        assert {v for v, _ in reading.chances} <= {"red", "blue", "empty"}
        seen[outcome] += 1
        if outcome == UNSURE:  # no value shown, the measured shape: red kept half
            assert reading.value is None
            assert dict(reading.chances)["red"] == pytest.approx(0.5)
        else:
            assert reading.chances[0] == (reading.value, reading.confidence)
        if outcome == RIGHT:
            assert reading.chances == (("red", reading.confidence),)
        if outcome == WRONG:
            # red keeps its share of what was not read in a measured wrong reading
            kept = dict(reading.chances)["red"] / (1 - reading.confidence)
            assert kept == pytest.approx(0.06 / 0.08) or kept == pytest.approx(0.3 / 0.35)
    assert seen[RIGHT] and seen[WRONG] and seen[UNSURE]


def test_the_shipped_reader_errors_load_and_come_from_the_test_set() -> None:
    from vision.models import load_model

    for game in ("shangrila", "shendao"):
        errors = load_errors(game)
        assert errors.provenance["set"] == "test"
        assert "landscape" in errors.provenance["kinds_of_world"]
        assert set(errors.kinds) == {
            e.kind for e in load_model(game).elements.values() if not e.name.endswith("^")
        } - {"height"}
        for kind in errors.kinds.values():
            pooled = kind.pooled()
            assert pooled.total >= 1000
            # the held-out pictures were read right nearly always
            assert pooled.rate(RIGHT) > 0.97
            assert sum(pooled.right_confidence) == pooled.right
    with pytest.raises(ReaderErrorsError, match="no reader errors"):
        load_errors("nosuchgame")
