"""The recruits no later table settles (``companion.simulator.settleable``): a recruit
is settled by what follows it, or by a slanted camera reading its stack, and a record
cut just after a recruit leaves it unsettled."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.simulator.core import random_game
from companion.simulator.settleable import measure, unsettled
from engines.shangrila import ShangrilaRules
from engines.shangrila.hidden import HEIGHTS, ShangrilaHidden

RULES = ShangrilaRules(["red", "blue", "yellow", "violet"])
HIDDEN = ShangrilaHidden()


def recruits(moves: Sequence[Any]) -> list[int]:
    return [i for i, m in enumerate(moves) if HIDDEN.spread(m)]


def test_later_tables_settle_some_recruits_and_not_others() -> None:
    moves = random_game(RULES, 7)
    found = unsettled(RULES, moves)
    assert set(found) <= set(recruits(moves))
    settled = [i for i in recruits(moves) if i not in found]
    assert found and settled
    # what settled them came later: cut just after it, each is unsettled
    for i in settled[:5]:
        assert unsettled(RULES, moves[: i + 1])[-1:] == [i]


def test_a_camera_reading_every_stack_settles_every_recruit() -> None:
    moves = random_game(RULES, 8)[:90]
    assert recruits(moves)
    assert unsettled(RULES, moves, HEIGHTS) == []
    some = HEIGHTS[: len(HEIGHTS) // 2]
    assert set(unsettled(RULES, moves, some)) <= set(unsettled(RULES, moves))


def test_the_figures_add_up() -> None:
    above = measure("shangrila", 2, 3, "above")
    slanted = measure("shangrila", 2, 3, "55")
    assert above.moves == slanted.moves and above.unseen == slanted.unseen > 0
    assert 0 < slanted.unsettled <= above.unsettled < above.unseen
    assert above.best_record_pct < 100.0
    assert measure("shendao", 1, 3, "above").unseen == 0
