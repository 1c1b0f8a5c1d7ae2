"""ShenShi turns that go on after the referee accepted their beginning, and another
player's monk moved after a turn: found on simulated tables, each on a scripted stream."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import TurnDone
from engines.observation import Observation, Reading
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.observation import TABLE, expected
from engines.shenshi.turn_search import extends
from tests.companion.referee.streams import names, only, show
from tests.engines.shenshi.positions import position

TWO = ShenshiRules(["silver", "copper"])
FOUR = ShenshiRules(["silver", "copper", "gold", "black"])


def after(state: ShenshiState, text: str) -> Observation:
    """The table once ``text`` is played (unchecked)."""
    other = state.copy()
    other.apply(state.rules.parse_move(text))
    return expected(other)


def swap_position() -> ShenshiState:
    return position(
        TWO,
        blond="d2 d3 e2 a1 g6",
        orange="g7",
        monks={"silver": ("d3", "d2"), "copper": ("a1", None), "neutral": ("g6", "g7")},
    )


def test_a_turn_whose_first_actions_are_no_turn_goes_on_from_one_alike() -> None:
    # The master swaps with the Grand Master and hovers on, then the Grand Master
    # walks: its first two actions alone lack a Grand Master's action, but they leave
    # the table as the turn accepted (the swap written from the Grand Master's side).
    state = swap_position()
    rules = state.rules
    accepted = rules.parse_move("Gd3=d2 Md3~f3")
    state.check(accepted)
    assert extends(state, accepted, rules.parse_move("Md2=d3 Md3~f3 Gd2-e2"))
    assert not extends(state, accepted, rules.parse_move("Gd3-e3 Md2~d1"))


def test_a_monk_entered_then_hovered_on_goes_on_from_a_turn_as_long() -> None:
    # Entered on g1 with the cushion taken from f1, the table looks like an entry on
    # f1 and a hover to g1, accepted; the monk then hovers on to g2.
    state = position(
        FOUR, blond="f1 a1 c3", monks={"copper": ("c3", None)}, reserves={"silver": (0, 0)}
    )
    rules = state.rules
    assert extends(state, rules.parse_move("M@f1:f1 Mf1~g1"), rules.parse_move("M@g1:f1 Mg1~g2"))
    referee = Referee(rules, state)
    out = show(referee, after(state, "M@g1:f1"))
    assert only(out, "move_accepted").move == "M@f1:f1 Mf1~g1"
    out = show(referee, after(state, "M@g1:f1 Mg1~g2"))
    assert names(out) == ["move_taken_back", "move_accepted"]
    assert [text for _, text in referee.history] == ["M@g1:f1 Mg1~g2"]


def test_the_referee_takes_back_a_turn_that_goes_on() -> None:
    state = swap_position()
    referee = Referee(state.rules, state)
    out = show(referee, after(state, "Gd3=d2 Md3~f3"))
    assert only(out, "move_accepted").move == "Gd3=d2 Md3~f3"
    out = show(referee, after(state, "Md2=d3 Md3~f3 Gd2-e2"))
    assert "illegal_move" not in names(out)
    assert [text for _, text in referee.history] == ["Md2=d3 Md3~f3 Gd2-e2"]


def test_another_players_monk_moved_after_a_turn_is_flagged_as_such() -> None:
    # Silver's Grand Master slides after silver's turn of the neutral Grand Master and
    # the master: nothing from before that turn explains the table either (it would be
    # half of any turn), so the turn stays and the flag names the wrong player, not a
    # rule of silver's turn.
    state = position(
        TWO,
        blond="d2 d3 e2 a1 f6 g6 b1",
        orange="g7",
        monks={"silver": ("a1", "d2"), "copper": ("d3", None), "neutral": ("g6", "g7")},
    )
    referee = Referee(state.rules, state)
    out = show(referee, after(state, "NGg6-f6 Md2-e2"))
    assert only(out, "move_accepted").move == "Md2-e2 NGg6-f6"
    moved = after(state, "NGg6-f6 Md2-e2").replace({"a1 monk": "none", "b1 monk": "silver-grand"})
    out = show(referee, moved)
    assert only(out, "illegal_move").rule == "turn.wrong-player"
    assert [text for _, text in referee.history] == ["Md2-e2 NGg6-f6"]


def test_a_walk_going_on_before_its_path_tokens_are_taken_is_under_way() -> None:
    # The Grand Master removes copper's master on e2: until silver takes the path
    # tokens, no turn explains the table, from before silver's turn either; the
    # Grand Master acted once, so silver may be going on: no flag.
    state = position(
        TWO,
        blond="d2 d3 e2 a1 g6 b1",
        orange="g7",
        monks={"silver": ("d3", "d2"), "copper": ("a1", "e2"), "neutral": ("g6", "g7")},
    )
    referee = Referee(state.rules, state)
    show(referee, after(state, "Gd3=d2 Md3~f3"))
    whole = after(state, "Md2=d3 Md3~f3 Gd2-e2")
    out = show(referee, whole.replace({"tokens silver": 1}))
    assert "illegal_move" not in names(out)
    out = show(referee, whole)
    assert only(out, "move_accepted").move == "Md2=d3 Md3~f3 Gd2-e2"


def test_a_neutral_monk_moved_twice_then_on_by_the_next_player_keeps_both_turns() -> None:
    # Copper walks the Grand Master and walks the neutral master, then hovers it on
    # (three actions). Silver lifts that monk with its cushion, the cushion seen gone
    # a frame before the monk: from the two-action turn that looks like silver
    # starting to hover it from b6, but half a turn does not take copper's third
    # action back; once the monk is down on a5, where only the three actions lead,
    # silver's turn is accepted, with no flag. (Found on a simulated table, where the
    # flag came at silver's done.)
    state = position(
        TWO,
        intact="d6 f6 b2",
        faded="b4 f4 d2",
        blond="b7 b6 c6 b5 d5 c4 f2 d1",
        orange="e3 e2",
        monks={"silver": ("f2", "d5"), "copper": ("d2", "d1"), "neutral": ("b5", "b7")},
        reserves={"silver": (0, 0), "copper": (1, 0)},
        tokens={"silver": 1, "copper": 2},
        to_move=1,
    )
    rules = state.rules
    copper = "Gd2-e2 NMb7-b6 NMb6~a6"
    referee = Referee(rules, state)
    show(referee, after(state, "Gd2-e2 NMb7-b6"))
    show(referee, after(state, copper))
    assert [text for _, text in referee.history] == [copper]
    then = state.copy()
    then.apply(rules.parse_move(copper))
    lifted = expected(then).replace({"a6 cushion": "none"})
    out = show(referee, lifted)
    out += show(referee, after(then, "NMa6~a5"))
    out += show(referee, after(then, "NMa6~a5").replace({"f2 cushion": "none", "f2 monk": "none"}))
    out += show(referee, after(then, "NMa6~a5 Gf2~f3 Gf3-f4"))
    assert "illegal_move" not in names(out)
    # half of silver's turn fits after copper's two actions only, but it is no whole
    # turn: copper's three actions stay (once the referee went back to the two
    # actions here, then forward again when the monk was down)
    assert "move_taken_back" not in names(out)
    assert referee.history[0][1] == copper
    then.apply(rules.parse_move("NMa6~a5 Gf2~f3 Gf3-f4"))
    assert len(referee.history) == 2 and referee.state == then


def test_a_swap_written_from_the_other_side_goes_on_with_the_other_monk() -> None:
    # The master hovers and swaps with the Grand Master: accepted as the Grand
    # Master's swap (Gg6=g5), after which neither monk may act again. Written as the
    # master's swap (Mg5=g6), the master acted twice and the Grand Master may still
    # walk, taking copper's master on f5: the referee keeps that turn as one the
    # accepted one may go on into, and takes it when the walk is seen (on a simulated
    # table the walk was flagged as another player's monk moved).
    state = position(
        TWO,
        blond="g1 g6 f5 a1 a7 b7",
        monks={"silver": ("g6", "g1"), "copper": ("a1", "f5"), "neutral": ("a7", "b7")},
    )
    rules = state.rules
    whole = "Mg1~g5 Mg5=g6 Gg5-f5"
    two = after(state, "Mg1~g5 Gg6=g5")
    made = [e for e in two if two.value(e) != expected(state).value(e)]
    found = [rules.format_move(m) for m in TABLE.candidates(state, two, made)]
    assert whole in found
    referee = Referee(rules, state)
    out = show(referee, two)
    out += show(referee, after(state, whole))
    assert "illegal_move" not in names(out)
    then = state.copy()
    then.apply(rules.parse_move(whole))
    assert len(referee.history) == 1 and referee.state == then


def side_by_side_position() -> ShenshiState:
    """Silver's Grand Master on c1 beside its master on c2, d2 free."""
    return position(
        TWO,
        blond="c1 c2 d2 a7 g6 e5",
        orange="g7",
        monks={"silver": ("c1", "c2"), "copper": ("a7", None), "neutral": ("g6", "g7")},
    )


def test_a_turn_misread_is_taken_back_for_the_one_the_table_then_shows() -> None:
    # The Grand Master read on d2 for a few frames (the Master is there): the swap and
    # the walk are accepted; read right, the Master walked and the Grand Master took
    # its square: that turn, not the next player moving silver's monks.
    state = side_by_side_position()
    referee = Referee(state.rules, state)
    misread = after(state, "Mc2=c1 Gc2-d2")
    assert only(show(referee, misread), "move_accepted").move == "Mc2=c1 Gc2-d2"
    out = show(referee, after(state, "Mc2-d2 Gc1-c2"))
    assert names(out) == ["move_taken_back", "move_accepted"]
    assert [text for _, text in referee.history] == ["Mc2-d2 Gc1-c2"]


def test_an_illegal_turn_put_back_takes_back_the_turn_accepted_on_its_way() -> None:
    # The next player's legal turn accepted, then more moved (a flag), then the whole
    # put back, the monk it moved read back where it was but not surely: the table
    # shows the position before that turn, which is taken back.
    state = side_by_side_position()
    referee = Referee(state.rules, state)
    assert only(show(referee, after(state, "Mc2-d2 Gc1-c2")), "move_accepted")
    flagged = after(state, "Mc2-d2 Gc1-c2").replace({"a7 monk": "none"})
    show(referee, flagged)
    assert "illegal_move" in names(referee.handle(TurnDone()))
    # the position before silver's turn, silver's master read back on c2 unsurely
    back = expected(state).replace({"c2 monk": Reading("silver-master", 0.8)})
    out = show(referee, back)
    assert names(out)[:1] == ["move_taken_back"] and "illegal_move" not in names(out)
    assert referee.history == []


def test_a_turn_put_back_for_another_is_taken_back_while_the_other_is_made() -> None:
    # Silver makes a turn (accepted), changes their mind: puts both monks back and
    # starts another turn with the neutral Grand Master. That is silver's turn on its
    # way, not copper moving silver's monks.
    state = side_by_side_position()
    referee = Referee(state.rules, state)
    assert only(show(referee, after(state, "Mc2-d2 Gc1-c2")), "move_accepted")
    out = show(referee, after(state, "NGg6~g5"))
    assert names(out)[:2] == ["move_taken_back", "move_in_progress"]
    assert "illegal_move" not in names(out) and referee.history == []
    out = show(referee, after(state, "NGg6~g5 Mc2~c3"))
    assert only(out, "move_accepted").move in ("NGg6~g5 Mc2~c3", "Mc2~c3 NGg6~g5")


def test_the_next_players_whole_turn_outweighs_the_last_turn_going_on() -> None:
    # Copper hovered its master on, walked it to f1 (the camera not sure of it there)
    # and hovered the neutral Grand Master to e7; silver then walked its master to d6
    # and the neutral Grand Master to d7, the camera not sure of either monk. Silver's
    # whole turn explains the table; copper going on (its master elsewhere, the Grand
    # Master on its way back to e7) explains it only half made, so copper's turn stays
    # and silver's is accepted (on a simulated table copper's turn was taken back, and
    # every frame after was flagged as silver moving out of turn).
    state = position(
        TWO,
        intact="b4 f4",
        faded="d6 f6",
        blond="d7 c5 c4 d4 e3 g2 e1 f1 g1",
        orange="a6 e4",
        monks={"silver": ("a6", "d7"), "copper": ("g1", "e3"), "neutral": ("e4", "d4")},
        reserves={"silver": (0, 0), "copper": (0, 0)},
        tokens={"silver": 0, "copper": 5},
        to_move=1,
        quiet=13,
        neutral_from={"G": "e1"},
    )
    rules = state.rules
    copper = "Me3~e2 Me2-e1-f1 NGe4~e7"
    referee = Referee(rules, state)
    made = after(state, copper).replace({"f1 monk": Reading("copper-master", 0.83)})
    assert only(show(referee, made), "move_accepted").move == copper
    then = state.copy()
    then.apply(rules.parse_move(copper))
    unsure_master = {"f1 monk": Reading("copper-master", 0.83)}
    lifted = expected(then).replace({"d7 monk": "none", **unsure_master})
    walked = after(then, "Md7-d6").replace(
        {"d6 monk": Reading("silver-master", 0.85), **unsure_master}
    )
    silver = after(then, "Md7-d6 NGe7-d7").replace(
        {
            "d7 monk": Reading("black-grand", 0.85),
            "d6 monk": Reading("silver-master", 0.88),
            **unsure_master,
        }
    )
    out = show(referee, lifted) + show(referee, walked) + show(referee, silver)
    assert "move_taken_back" not in names(out) and "illegal_move" not in names(out)
    assert [text for _, text in referee.history] == [copper, "Md7-d6 NGe7-d7"]


def test_half_a_turn_that_fits_after_the_shorter_turn_only_does_not_split_it() -> None:
    # Gold hovered its Grand Master, hovered the neutral master to e3 and walked it on
    # to e2 (three actions, accepted when the walk was seen). Silver lifts the neutral
    # Grand Master from d2 to swap it with that master: after gold's two actions that
    # looked like silver walking the master to e2 first, and the referee went back to
    # them; silver's turn was then taken as two neutral actions, and silver's own
    # master moved after it was flagged as out of turn. Half a turn is not enough to
    # take gold's third action back: silver's whole turn is accepted after it.
    rules = ShenshiRules(["silver", "copper", "gold"])
    state = position(
        rules,
        intact="b6 f6",
        faded="d6 b2 d2",
        blond="e7 g6 e5 g5 d4 b3 c3 f3 a2 e2 b1",
        orange="a7 a5 c4 e4",
        monks={
            "silver": ("b3", "g5"),
            "copper": ("a7", "d6"),
            "gold": ("e7", "d4"),
            "neutral": ("d2", "f3"),
        },
        reserves={"silver": (0, 0), "copper": (0, 0), "gold": (0, 0)},
        tokens={"silver": 2, "copper": 5, "gold": 2},
        to_move=2,
        quiet=2,
        neutral_from={"G": "e3", "M": "e4"},
    )
    gold = "Ge7~f7 NMf3~e3 NMe3-e2"
    referee = Referee(rules, state)
    show(referee, after(state, "Ge7~f7 NMf3~e3"))
    show(referee, after(state, gold))
    assert [text for _, text in referee.history] == [gold]
    then = state.copy()
    then.apply(rules.parse_move(gold))
    out = show(
        referee, expected(then).replace({"d2 monk": "none", "e2 cushion": Reading(None, 0.0)})
    )
    out += show(referee, after(then, "NGd2=e2"))
    out += show(referee, after(then, "NGd2=e2 Mg5-g6"))
    assert "illegal_move" not in names(out) and "move_taken_back" not in names(out)
    then.apply(rules.parse_move("NGd2=e2 Mg5-g6"))
    assert referee.history[0][1] == gold and len(referee.history) == 2
    assert referee.state == then


def test_a_turn_taken_from_unsure_readings_goes_when_they_are_read_surely() -> None:
    # Silver's master walks to c7 and hovers to c6; a hand hides the Grand Master on
    # b6 and the camera is not sure of the master on c6, so the referee takes the turn
    # as the master's moves and a swap (the Grand Master now on c6). Once the hand is
    # gone, b6 is surely empty and c6 surely the master: the swap never happened, and
    # the Grand Master walks to b7. That is silver's turn, not copper moving silver's
    # monks (on a simulated table, two flags of a player moving out of turn).
    state = position(
        FOUR,
        faded="b6 d6 f4 b2",
        intact="d2 f2",
        blond="b7 c7 d7 e6 c5 d5 a3 b3 c3 e3 b1",
        orange="f7 d4 a1 d1",
        monks={
            "silver": ("b6", "b7"),
            "copper": ("b2", "e6"),
            "gold": ("d4", "f7"),
            "black": ("d6", "b1"),
        },
        reserves={"silver": (0, 1), "copper": (0, 0), "gold": (1, 0), "black": (0, 0)},
        tokens={"silver": 1, "copper": 2, "gold": 3, "black": 0},
        quiet=9,
    )
    rules = state.rules
    walked = after(state, "Mb7-c7 Mc7~c6")
    hidden = walked.replace(
        {"b6 monk": Reading(None, 0.0), "c6 monk": Reading("silver-master", 0.74)}
    )
    out = show(referee := Referee(rules, state), expected(state).replace({"b7 monk": "none"}))
    out += show(referee, after(state, "Mb7-c7"))
    out += show(referee, hidden)
    assert only(out, "move_accepted").move == "Mb7-c7 Mc7~c6 Gb6=c6"
    out = show(referee, walked)
    out += show(referee, after(state, "Mb7-c7 Mc7~c6 Gb6-b7"))
    assert "illegal_move" not in names(out)
    assert [text for _, text in referee.history] == ["Mb7-c7 Mc7~c6 Gb6-b7"]


def test_a_done_on_monks_moved_unsurely_names_their_move_not_a_pass() -> None:
    # Silver swaps its Grand Master on e6 with its master on c2, not in line; the
    # camera is not sure of either monk where it now stands. At silver's done the
    # table is not still: the flag names the swap, not a pass.
    state = position(
        TWO,
        intact="d6 b2 d2",
        faded="f6 f2",
        blond="d7 b6 e6 d5 b4 e4 f4 g4 c2 d1",
        orange="f5 e3",
        monks={"silver": ("e6", "c2"), "copper": ("d5", "f2"), "neutral": ("f5", "e3")},
        reserves={"silver": (0, 0), "copper": (0, 0)},
        tokens={"silver": 4, "copper": 4},
        quiet=2,
        neutral_from={"G": "f4", "M": "c3"},
    )
    referee = Referee(state.rules, state)
    swapped = expected(state).replace(
        {"e6 monk": Reading("silver-master", 0.86), "c2 monk": Reading("silver-grand", 0.85)}
    )
    out = show(referee, swapped)
    assert "illegal_move" not in names(out)
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule == "swap.not-in-line"


def test_a_neutral_monk_moved_and_put_back_by_the_next_player_is_theirs() -> None:
    # Copper walks the neutral master to e5 and the Grand Master (accepted). Silver
    # hovers that master on to e1, changes their mind and hovers it back: the referee
    # took the hover for copper's third action and silver's hover back, with the
    # Grand Master's, for silver's turn. Silver's master then hovers: no move explains
    # that after silver's turn, but copper's two actions and silver's turn of the
    # Grand Master and the master do: both turns are taken back and those accepted
    # (on a simulated table every frame was flagged as copper's turn, silver moving).
    state = position(
        TWO,
        intact="b6 d6 b2",
        faded="f6 b4 f2",
        orange="c7 a1",
        blond="e7 b5 d5 e5 f4 d3 d2",
        monks={"silver": ("a1", "e7"), "copper": ("b5", "c7"), "neutral": ("d3", "d5")},
        reserves={"silver": (1, 0), "copper": (1, 0)},
        to_move=1,
        quiet=7,
        neutral_from={"G": "d2"},
    )
    rules = state.rules
    copper = "NMd5-e5 Gb5-b4"
    referee = Referee(rules, state)
    show(referee, after(state, copper))
    then = state.copy()
    then.apply(rules.parse_move(copper))
    show(referee, after(then, "NMe5~e1"))
    show(referee, after(then, "Ga1~a2"))
    assert [text for _, text in referee.history] == [
        "Gb5-b4 NMd5-e5 NMe5~e1",
        "Ga1~a2 NMe1~e5",
    ]
    out = show(referee, after(then, "Ga1~a2 Me7~e6"))
    assert "illegal_move" not in names(out)
    assert names(out) == ["move_taken_back", "move_taken_back", "move_accepted", "move_accepted"]
    assert [text for _, text in referee.history] == ["Gb5-b4 NMd5-e5", "Ga1~a2 Me7~e6"]


def done_after_a_neutral_hover() -> tuple[Referee, ShenshiState, str]:
    """Copper's turn (entering its Grand Master on a7, walking the neutral master),
    accepted; the neutral master then hovers on from f5 to c5, taken for copper's
    third action. The referee, the position before copper's turn, and the hover."""
    state = position(
        TWO,
        intact="b4 b2",
        faded="d6 f6 d2 f2",
        orange="f5 b1 c1",
        blond="d7 f7 g6 a5 d5 e4 a3 e2",
        monks={"silver": ("c1", "a5"), "copper": (None, "b1"), "neutral": ("d7", "f7")},
        reserves={"silver": (0, 0), "copper": (0, 0)},
        tokens={"silver": 2, "copper": 5},
        to_move=1,
        neutral_from={"M": "g6"},
    )
    referee = Referee(state.rules, state)
    copper = "G@a7:e2 NMf7-f5"
    show(referee, after(state, copper))
    then = state.copy()
    then.apply(state.rules.parse_move(copper))
    show(referee, after(then, "NMf5~c5(d5>g5)"))
    assert [text for _, text in referee.history] == [f"{copper} NMf5~c5(d5>g5)"]
    return referee, state, copper


def test_a_done_after_a_turn_went_on_gives_both_readings() -> None:
    # Silver says done: copper going on and silver passing, or silver's turn of the
    # hover alone; both are illegal and the table cannot tell them apart. The flag
    # stands on the first (the pass) and its sentence gives the other with its rule,
    # for the player who made the hover.
    referee = done_after_a_neutral_hover()[0]
    out = referee.handle(TurnDone())
    assert names(out) == ["illegal_move"]
    flag = only(out, "illegal_move")
    assert flag.rule == "pass.has-turn"
    assert "If Silver made it" in flag.message
    assert "[turn.needs-grand-master]" in flag.message


def test_a_done_after_a_turn_went_on_then_a_turn_after_the_third_action_keeps_it() -> None:
    # Copper did make the hover, and silver, flagged, plays a turn after it: copper's
    # three actions come back and silver's turn is accepted.
    referee, state, copper = done_after_a_neutral_hover()
    referee.handle(TurnDone())
    bigger = state.copy()
    bigger.apply(state.rules.parse_move(f"{copper} NMf5~c5(d5>g5)"))
    out = show(referee, after(bigger, "Gc1-b1 Gb1~b7 Ma5~a6"))
    assert "illegal_move" not in names(out)
    assert [text for _, text in referee.history] == [
        f"{copper} NMf5~c5(d5>g5)",
        "Gc1-b1 Gb1~b7 Ma5~a6",
    ]
    assert referee.status == referee.WATCHING


def test_a_neutral_monk_moved_back_by_the_player_to_move_is_their_turn() -> None:
    # Copper hovered the neutral Grand Master to d1 and walked it on to d2 (a third
    # action); gold then played. Silver walks that Grand Master back to d1 and says
    # done: the table then fits copper's two actions and gold's same turn, but gold's
    # turn read as it was tells nothing new about copper's; the change is silver's, a
    # turn lacking its master (on a simulated table it was read away, and missed).
    rules = ShenshiRules(["silver", "copper", "gold"])
    state = position(
        rules,
        intact="b4 f4 f2",
        faded="b6 b2",
        blond="b7 d7 e7 c6 a5 b5 d4 a3 c3 a2 b1",
        orange="d6 f3 d2 g1",
        monks={
            "silver": ("a3", "e7"),
            "copper": ("b5", "d4"),
            "gold": ("b1", "a2"),
            "neutral": ("g1", "b7"),
        },
        reserves={"silver": (0, 0), "copper": (0, 0), "gold": (0, 0)},
        tokens={"silver": 2, "copper": 2, "gold": 4},
        to_move=1,
        quiet=6,
        neutral_from={"G": "g5"},
    )
    copper, gold = "NMb7-b6 NGg1~d1 NGd1-d2", "Gb1-b2 NMb6-b5"
    referee = Referee(rules, state)
    show(referee, after(state, "NMb7-b6 NGg1~d1"))
    show(referee, after(state, copper))
    then = state.copy()
    then.apply(rules.parse_move(copper))
    show(referee, after(then, gold))
    assert [text for _, text in referee.history] == [copper, gold]
    then.apply(rules.parse_move(gold))
    show(referee, after(then, "NGd2-d1"))
    out = referee.handle(TurnDone())
    assert only(out, "illegal_move").rule == "turn.needs-master"
    assert [text for _, text in referee.history] == [copper, gold]


def test_a_turn_accepted_at_its_done_is_not_read_again_with_a_later_change() -> None:
    # Copper's hover taken for its third action, silver's Grand Master walked: at
    # silver's done both turns are read again, copper's of two actions and silver's of
    # the Grand Master and the hover. Copper then moves silver's master: copper's three
    # actions and silver's turn of the Grand Master and that master would fit, but
    # silver said done before the master moved, so the move is copper's, out of turn
    # (on a simulated table the turns were read again, and the done that followed was
    # flagged as a pass).
    referee, state, copper = done_after_a_neutral_hover()
    then = state.copy()
    then.apply(state.rules.parse_move(copper))
    silver = "NMf5~c5(d5>g5) Gc1-b1"
    show(referee, after(then, silver))
    out = referee.handle(TurnDone())
    assert "illegal_move" not in names(out)
    assert [text for _, text in referee.history] == [copper, "Gc1-b1 NMf5~c5(d5>g5)"]
    out = show(referee, after(then, f"{silver} Ma5~a6"))
    assert only(out, "illegal_move").rule == "turn.wrong-player"
    assert [text for _, text in referee.history] == [copper, "Gc1-b1 NMf5~c5(d5>g5)"]
