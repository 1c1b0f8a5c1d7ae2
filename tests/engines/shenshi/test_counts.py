"""Counting the turns (``count_turns``: hovers that end a turn are counted, remembered by
what they depend on, an orange cushion's in closed form) agrees with listing them."""

from __future__ import annotations

from typing import Any

import pytest

from engines import Dice
from engines.shenshi import ShenshiRules, movegen

CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (2, {"orange_lifts": 1}),
    (2, {"orange_lifts": 2, "seed": 1}),
    (3, {"orange_lifts": 1, "seed": 2}),
    (3, {"orange_lifts": 2, "seed": 3, "lift_put_down": "also-orange-square"}),
    (4, {"orange_lifts": 1, "seed": 4}),
    (4, {"orange_lifts": 2, "seed": 5, "black_start": "board"}),
    (2, {"variant": "expert", "orange_lifts": 1, "seed": 6}),
    (2, {"variant": "expert", "orange_lifts": 2, "seed": 7, "neutral_return": "turn"}),
]


def _check(players: int, options: dict[str, Any], positions: int, listed: int) -> None:
    """Compare on ``positions`` positions of random games (quick playout turns) with at
    most ``listed`` turns."""
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), options)
    dice = Dice(players)
    checked = 0
    while checked < positions:
        state = rules.initial_state()
        while not state.is_over() and checked < positions:
            if state.phase == 0:
                count = movegen.count_turns(state, limit=listed)
                if count <= listed:
                    assert count == len(movegen.legal_turns(state)), state.to_json()
                    assert movegen.count_turns(state) == count
                    checked += 1
            state.apply(state.playout_move(dice))


@pytest.mark.parametrize(("players", "options"), CONFIGS[:-1])  # the last: seldom short
def test_the_count_is_the_length_of_the_list(players: int, options: dict[str, Any]) -> None:
    _check(players, options, positions=8, listed=4000)


@pytest.mark.slow  # 320 positions, up to 15,000 turns each listed
@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_the_count_is_the_length_of_the_list_in_many_positions(
    players: int, options: dict[str, Any]
) -> None:
    _check(players, options, positions=40, listed=15_000)
