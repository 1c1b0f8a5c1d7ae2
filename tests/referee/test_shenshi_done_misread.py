"""Misreadings around a ShenShi done must not name the rule. A done waiting on a
reading believed just before it (a misreading may last three frames), when that
reading is then read otherwise twice running, is judged on the table without it, if
that table is illegal too, instead of waiting on while the player puts the pieces back
(and the rule named is a pass). And a done on a table still as before, with a monk read
unsure on the last two frames, is a pass: two unsure readings name no move. Both found
on simulated tables at 5% flicker: a tile misread three frames before a swap of two
monks not in line, then read as none, faded, none; a monk off the board read unsure
where it could enter, flagged as a misplaced entry."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import Output, Seen, TurnDone
from engines.observation import Observation, Reading
from engines.shenshi.observation import expected
from tests.companion.referee.streams import names, only, show
from tests.referee.test_shenshi_unsure_change import entering, start

TURN = "Me4-e5 NMa2-a4"
"""Silver's master and the neutral master: two masters in one turn."""


def frames(referee: Referee, tables: list[Observation]) -> list[Output]:
    out: list[Output] = []
    for table in tables:
        out += referee.handle(Seen(table, "camera"))
    return out


def test_a_done_on_a_tile_misread_just_before_is_judged_without_it() -> None:
    state = start()
    referee = Referee(state.rules, state)
    after = state.copy()
    after.apply(state.rules.parse_move(TURN))
    table = expected(after)
    out = show(referee, table)
    out += show(referee, table.replace({"c3 tile": "intact"}), times=3)  # believed
    out += referee.handle(TurnDone())
    assert "illegal_move" not in names(out)  # waits: the tile may be a misreading
    # read otherwise twice, the tile's value believed is left out
    out = frames(referee, [table.replace({"c3 tile": "faded"}), table])
    # the player puts the monks back, the tile still read now faded, now none
    putting_back = expected(state)
    out += frames(referee, [putting_back.replace({"c3 tile": v}) for v in ("faded", "none") * 5])
    assert only(out, "illegal_move").rule == "turn.one-master"


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
