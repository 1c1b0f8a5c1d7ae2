"""The final record compared with the moves played, up to what the table cannot tell:
two Shendao stopping tiles, one taken by Tigre Blanc and one by Loung, in either order."""

from __future__ import annotations

import time

from companion.referee.core import Referee
from companion.referee.events import TypedMove
from companion.simulator import TableSimulator
from companion.simulator.core import random_game
from companion.simulator.scoring import RefereedGame
from engines import rules_class

PLAYED_9, RECORD_9 = "Nd tigre", "Nd loung d5"
PLAYED_13, RECORD_13 = "E5 loung e5", "E5 tigre"


def refereed(record: list[str], played: list[str]) -> RefereedGame:
    """A refereed game whose referee was told ``record`` while ``played`` was played."""
    cls = rules_class("shendao")
    rules = cls.from_record(cls.default_players(2), {})
    referee = Referee(rules)
    game = RefereedGame(TableSimulator(rules, played), referee, time.perf_counter)
    for text in record:
        referee.handle(TypedMove(text))
    state = rules.initial_state()
    for text in played:
        state.play(rules.parse_move(text))
        game.positions.append(state.copy())
    return game


def test_two_stopping_tiles_taken_in_the_other_order_are_alike_not_right() -> None:
    rules = rules_class("shendao").from_record(rules_class("shendao").default_players(2), {})
    played = [rules.format_move(m) for m in random_game(rules, 1004)[:13]]
    assert (played[8], played[12]) == (PLAYED_9, PLAYED_13)
    record = [*played[:8], RECORD_9, *played[9:12], RECORD_13]
    game = refereed(record, played)
    assert [text for _, text in game.referee.history] == record
    start = rules.initial_state()
    assert game.record_right(start) == 11
    assert game.record_alike(start) == 13
    # cut before the second tile is taken: the record never meets the truth again
    assert refereed(record[:12], played[:12]).record_alike(start) == 11
