"""Misreadings around a ShenShi done must not name the rule: a done on a table still as
before, with a monk read unsure on the last two frames, is a pass (two unsure readings
name no move). Found on a simulated table at 5% flicker: a monk off the board read
unsure where it could enter, flagged as a misplaced entry."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import TurnDone
from engines.observation import Reading
from engines.shenshi.observation import expected
from tests.companion.referee.streams import only, show
from tests.referee.test_shenshi_unsure_change import entering


def test_done_on_a_monk_read_unsure_twice_is_still_a_pass() -> None:
    # silver's master, off the board, read unsure on g3 on the last two frames (and a
    # tile read turned over): an entry named from two unsure readings is a rule the
    # player did not break
    state = entering()
    referee = Referee(state.rules, state)
    table = expected(state)
    show(referee, table, times=6)
    late = table.replace({"g3 monk": Reading("silver-master", 0.6), "c5 tile": "intact"})
    show(referee, late, times=2)
    assert only(referee.handle(TurnDone()), "illegal_move").rule == "pass.has-turn"
