"""A ShenShi turn that leaves a square it touched as it was: an orange hover lifts the
blond cushions in its way, and the second one is put down where the first was lifted
(``Ge6~e2(e4>e6,e2>e4)``). The finished table shows e4 unchanged, and the table search,
which acts on squares that changed, finds no turn for it; half way, with e4 empty, the
turn was found as one the table was on its way to. A done on the finished table is that
turn, not a diagonal step. Found on a simulated table at 1% flicker."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import TurnDone
from engines.observation import Observation
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.observation import expected
from tests.companion.referee.streams import names, only, show
from tests.engines.shenshi.positions import position

TWO = ShenshiRules(["silver", "copper"])
TURN = "Ge6~e2(e4>e6,e2>e4) Mf1-e1"


def start() -> ShenshiState:
    """Silver's Grand Master on an orange cushion on e6, blond cushions on e4 and e2."""
    return position(
        TWO,
        blond="e4 e2 f1 e1 a1 c3 g1",
        orange="e6 a7",
        monks={"silver": ("e6", "f1"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )


def after(state: ShenshiState, text: str) -> Observation:
    other = state.copy()
    other.apply(state.rules.parse_move(text))
    return expected(other)


def test_a_hover_putting_a_cushion_back_where_it_lifted_one_is_found_at_done() -> None:
    state = start()
    referee = Referee(state.rules, state)
    table = expected(state)
    show(referee, table, times=6)
    # the Grand Master and its orange cushion in hand, e4's cushion put on e6, e2's
    # cushion lifted: e4 and e2 empty
    halfway = table.replace(
        {"e6 cushion": "blond", "e6 monk": "none", "e4 cushion": "none", "e2 cushion": "none"}
    )
    assert "move_in_progress" in names(show(referee, halfway, times=4))
    show(referee, after(state, TURN), times=6)
    accepted = only(referee.handle(TurnDone()), "move_accepted")
    assert accepted.move == TURN


def test_a_table_no_turn_on_the_way_explains_is_still_flagged() -> None:
    # the same half way, then the Grand Master put down on e3: no turn leaves that
    state = start()
    referee = Referee(state.rules, state)
    table = expected(state)
    show(referee, table, times=6)
    halfway = table.replace(
        {"e6 cushion": "blond", "e6 monk": "none", "e4 cushion": "none", "e2 cushion": "none"}
    )
    show(referee, halfway, times=4)
    wrong = after(state, TURN).replace({"e2 monk": "none", "e3 monk": "silver-grand"})
    show(referee, wrong, times=6)
    assert "illegal_move" in names(referee.handle(TurnDone()))


def test_a_referee_resumed_half_way_finds_the_turn_too() -> None:
    # the turns seen on the way are part of the referee's snapshot (a journal resumes
    # from it)
    state = start()
    referee = Referee(state.rules, state)
    table = expected(state)
    show(referee, table, times=6)
    halfway = table.replace(
        {"e6 cushion": "blond", "e6 monk": "none", "e4 cushion": "none", "e2 cushion": "none"}
    )
    show(referee, halfway, times=4)
    snapshot = referee.snapshot()
    assert snapshot is not None and TURN in snapshot["on_the_way"]
    resumed = Referee(state.rules, state)
    resumed.restore(snapshot)
    show(resumed, after(state, TURN), times=6)
    assert only(resumed.handle(TurnDone()), "move_accepted").move == TURN
