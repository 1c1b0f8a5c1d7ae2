"""The referee weighs legal explanations of a table by how likely the readings make
them, and still flags a table no legal move explains."""

from __future__ import annotations

import json
import math

import pytest

from companion.referee.core import Debouncer
from companion.referee.inference import DECISIVE, Explainer, Weigher, likeliest
from engines.observation import Observation, Reading
from engines.shangrila.observation import expected, from_camera_above
from tests.engines.shangrila.helpers import position


def test_likeliest_keeps_what_the_best_is_not_decisively_likelier_than() -> None:
    margin = math.log(DECISIVE)
    scored = [(-1.0, "a"), (-1.0 - margin / 2, "b"), (-1.0 - margin, "c"), (-5.0, "d")]
    assert likeliest(scored) == ["a", "b"]
    assert likeliest([(-3.0, "x")]) == ["x"]
    assert likeliest([]) == []


def test_a_plain_reading_weighs_its_confidence_against_the_other_values() -> None:
    state = position({4: {"A": "red"}})
    before = expected(state)
    seen = before.replace({"4Y": Reading("red", 0.6), "4H": None})
    weigher = Weigher(seen, ["4Y", "4H"])
    # 4Y: 0.6 for red, 0.4 shared by the four other values; 4H unknown: no evidence
    assert weigher.log_likelihood(before) == pytest.approx(math.log(0.1))
    assert weigher.log_likelihood(before.replace({"4Y": "red"})) == pytest.approx(math.log(0.6))


def _two_placements(y: Reading, h: Reading) -> Observation:
    """Red to move beside its master in village 4: the camera above reads the Yeti
    and Healer spaces of village 4 unsure, everything else as it was."""
    state = position({4: {"A": "red"}})
    return from_camera_above(expected(state)).replace({"4Y": y, "4H": h})


def test_the_likelier_of_two_legal_moves_is_accepted() -> None:
    # Counting the readings each move overrules ties the two placements (one each);
    # their chances do not: 0.8 x 0.45 against 0.2 x 0.55.
    state = position({4: {"A": "red"}})
    seen = _two_placements(
        Reading.weighed({"red": 0.8, "empty": 0.2}), Reading.weighed({"red": 0.55, "empty": 0.45})
    )
    verdict = Explainer("shangrila").explain(state, seen, turn_done=True)
    assert verdict.kind == "accepted"
    assert [state.rules.format_move(m) for m in verdict.moves] == ["Y@4"]
    assert verdict.corrected == ["4H"]
    swapped = _two_placements(
        Reading.weighed({"red": 0.55, "empty": 0.45}), Reading.weighed({"red": 0.8, "empty": 0.2})
    )
    verdict = Explainer("shangrila").explain(state, swapped, turn_done=True)
    assert [state.rules.format_move(m) for m in verdict.moves] == ["H@4"]


def test_chances_too_unsure_to_show_a_value_still_count() -> None:
    state = position({4: {"A": "red"}})
    seen = _two_placements(
        Reading.weighed({"red": 0.7, "empty": 0.3}, shown=False),
        Reading.weighed({"red": 0.1, "empty": 0.9}),
    )
    verdict = Explainer("shangrila").explain(state, seen, turn_done=True)
    assert verdict.kind == "accepted"
    assert [state.rules.format_move(m) for m in verdict.moves] == ["Y@4"]


def test_two_moves_about_as_likely_are_asked_about() -> None:
    state = position({4: {"A": "red"}})
    seen = _two_placements(
        Reading.weighed({"red": 0.6, "empty": 0.4}), Reading.weighed({"red": 0.6, "empty": 0.4})
    )
    verdict = Explainer("shangrila").explain(state, seen, turn_done=True)
    assert verdict.kind == "ambiguous"
    assert sorted(state.rules.format_move(m) for m in verdict.moves) == ["H@4", "Y@4"]


def test_an_illegal_move_likelier_than_any_legal_one_is_flagged_with_its_rule() -> None:
    # Red to move; a blue tile appears: the legal explanations (a red placement there,
    # or nothing moved) are far less likely than blue's tile, which breaks a rule.
    state = position({4: {"A": "red", "H": "blue"}})
    seen = from_camera_above(expected(state)).replace(
        {"4Y": Reading.weighed({"blue": 0.95, "red": 0.04, "empty": 0.01})}
    )
    verdict = Explainer("shangrila").explain(state, seen)
    assert verdict.kind == "illegal"
    assert verdict.rule == "turn.wrong-player"
    assert verdict.fix_elements == {"4Y": "empty"}


def test_the_debouncer_keeps_chances_through_a_snapshot() -> None:
    state = position({4: {"A": "red"}})
    before = expected(state)
    weighed = Reading.weighed({"red": 0.7, "empty": 0.3}, shown=False)
    debouncer = Debouncer(before.schema, 2, before)
    for _ in range(2):
        debouncer.push(before.replace({"4Y": weighed}))
    assert debouncer.observation()["4Y"] == weighed
    again = Debouncer(before.schema, 2, before)
    again.restore(json.loads(json.dumps(debouncer.snapshot())))
    assert again.observation()["4Y"] == weighed
    assert again.snapshot() == debouncer.snapshot()
