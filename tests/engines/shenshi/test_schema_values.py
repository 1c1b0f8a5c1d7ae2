"""``values``: what the table of a ShenShi position shows on a few elements, as the
whole table (``expected``) shows it, for the referee's quick ruling out of turns."""

from __future__ import annotations

import pytest

from engines import Dice
from engines.shenshi import ShenshiRules
from engines.shenshi.observation import TABLE
from engines.shenshi.schema import expected, values


@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_are_the_whole_tables_values(players: int) -> None:
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), {"seed": players})
    state = rules.initial_state()
    dice = Dice(players)
    for _ in range(12):
        table = expected(state)
        elements = list(table)
        shown = values(state, elements)
        assert shown == [table.value(e) for e in elements]
        assert [type(v) for v in shown] == [type(table.value(e)) for e in elements]
        assert TABLE.values(state, elements[:5]) == shown[:5]
        state.apply(state.playout_move(dice))
        if state.is_over():
            break


def test_an_element_of_no_player_is_refused() -> None:
    state = ShenshiRules(["silver", "copper"]).initial_state()
    with pytest.raises(KeyError):
        values(state, ["tokens gold"])
