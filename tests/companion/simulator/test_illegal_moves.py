"""Every illegal move a table can show, staged as a player would try it: the referee
flags it with its rule, and the repair brings back ``table_restored``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.simulator import TableConfig, TableSimulator, referee_game
from companion.simulator.core import ATTEMPT, REPAIR
from companion.simulator.shangrila import STAGEABLE, ShangrilaHandling
from engines.shangrila import ShangrilaState
from tests.engines.shangrila.helpers import THREE, position

CAMERA = ("camera",)
BOTH = ("camera", "sensors")
SENSORS = ("sensors",)


def placing_three() -> ShangrilaState:
    """Placement phase, 3 players, red to move: red has a master in village 4 (the
    colour limit), village 6 is full (the village limit), the red village 2 has its
    stone."""
    return position(
        {4: {"A": "red", "P": "blue"}, 6: {"H": "blue", "A": "yellow"}},
        players=THREE,
        phase="setup",
    )


def playing_four(**options: Any) -> ShangrilaState:
    """Play phase, 4 players, red to move: two free red masters in village 4, blue's
    student in 4 and master in 7, a stone on village 6."""
    return position(
        {4: {"A": "red", "H": "red", "R": "blue+"}, 7: {"D": "blue"}, 6: {"A": "yellow"}},
        broken=((0, 6), (3, 6), (6, 10)),
        **options,
    )


SCENES: dict[str, tuple[Any, tuple[str, ...]]] = {
    "turn.wrong-player": (playing_four, CAMERA),
    "place.no-master-in-village": (playing_four, CAMERA),
    "place.space-occupied": (playing_four, BOTH),
    "village.has-stone": (placing_three, CAMERA),
    "setup.discipline-placed": (placing_three, CAMERA),
    "setup.colour-limit": (placing_three, CAMERA),
    "setup.village-limit": (placing_three, BOTH),
    "setup.only-placements": (placing_three, CAMERA),
    "journey.no-student": (playing_four, CAMERA),
    "recruit.no-own-master": (playing_four, SENSORS),
    "recruit.two-when-possible": (lambda: playing_four(recruit="one-when-forced"), BOTH),
    "pass.has-action": (playing_four, BOTH),
}


def test_every_stageable_rule_has_a_scene() -> None:
    assert set(SCENES) == set(STAGEABLE)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rule", sorted(SCENES))
def test_an_illegal_attempt_is_flagged_with_its_rule_then_put_right(rule: str, seed: int) -> None:
    scene, sources = SCENES[rule]
    start = scene()
    config = TableConfig(sources=sources, illegal=1.0, illegal_rules=(rule,), hands=0.3)
    move = start.legal_moves()[seed]
    simulator = TableSimulator(start.rules, [move], config, seed, start)
    phases = [s.truth.phase for s in simulator]
    assert phases[0] == ATTEMPT and phases[-1] == "move"
    score = referee_game(simulator)
    staged = score.rules[rule]
    assert (staged.tried, staged.caught, staged.right_rule) == (1, 1, 1)
    assert staged.restored == staged.repaired == (REPAIR in phases)
    assert (score.exact, score.false_flags) == (1, 0)


def test_a_rule_the_table_cannot_show_is_not_staged() -> None:
    # From above, a student on another player's master is a tile on top of it: the
    # referee names that place.space-occupied, so it is staged under that rule only.
    handling = ShangrilaHandling(playing_four().rules)
    assert "recruit.no-own-master" not in handling.stageable(TableConfig(sources=BOTH))
    assert "recruit.no-own-master" in handling.stageable(TableConfig(sources=SENSORS))
    assert "pass.has-action" not in handling.stageable(TableConfig(sources=CAMERA))
    assert (
        handling.attempt(
            placing_three(), "journey.no-student", np.random.default_rng(0), TableConfig()
        )
        is None
    )
