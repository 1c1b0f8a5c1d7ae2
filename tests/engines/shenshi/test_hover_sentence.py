"""The sentence for a hover by a monk off any cushion names the monk once."""

from __future__ import annotations

import pytest

from engines import IllegalMoveError
from engines.shenshi import ShenshiRules
from tests.engines.shenshi.positions import position


def test_a_hover_off_a_cushion_names_the_monk_once() -> None:
    rules = ShenshiRules(["silver", "copper"])
    state = position(
        rules, blond="g7 a1 a3", faded="d6", monks={"silver": ("d6", "g7"), "neutral": ("a1", "a3")}
    )
    with pytest.raises(IllegalMoveError) as caught:
        state.validate(rules.parse_move("Gd6~d7 Mg7~g6"))
    message = caught.value.message
    assert caught.value.rule == "hover.no-cushion"
    assert "stands on a faded mandala on d6, not on a cushion" in message, message
    assert " on it" not in message, message
