"""Walk, hover, enter and swap, each clause of RULINGS 3.2 from explicit positions."""

from __future__ import annotations

from typing import Any

import pytest

from engines import IllegalMoveError
from engines.shenshi import RESERVE_BLOND, Enter, ShenshiRules, ShenshiState, Turn
from tests.engines.shenshi.positions import (
    hover_ends,
    is_legal,
    legal,
    position,
    rule_of,
    walk_ends,
)

TWO = ShenshiRules(["silver", "copper"])
STRAIGHT = ShenshiRules(["silver", "copper"], walk="straight")
EXPERT = ShenshiRules(["silver", "copper"], variant="expert")
# Silver's master parked on g7 hovers to g6 to complete turns about the Grand Master.
PARK = " Mg7~g6"


def walkers(rules: ShenshiRules = TWO, **parts: Any) -> ShenshiState:
    """Silver's Grand Master on d4 with cushions around it, its master on g7, the
    neutral monks on a1 and a3; more parts in ``parts``."""
    monks: dict[str, tuple[str | None, str | None]] = {
        "silver": ("d4", "g7"),
        "neutral": ("a1", "a3"),
    }
    monks.update(parts.pop("monks", {}))
    blond = "d4 g7 a1 a3 " + str(parts.pop("blond", ""))
    return position(rules, blond=blond, monks=monks, **parts)


# ---------------------------------------------------------------------- walk


def test_a_walk_goes_one_or_two_squares_over_cushions_and_faded_mandalas() -> None:
    state = walkers(blond="d5 d6 e4", faded="f4")
    assert walk_ends(state, "d4") == {"d5", "d6", "e4", "f4"}
    assert is_legal(state, "Gd4-f4" + PARK)  # onto a faded mandala
    assert rule_of(state, "Gd4-c4" + PARK) == "walk.not-walkable"
    assert rule_of(state, "Gd4-d5-d6-d7" + PARK) == "walk.length"


def test_the_second_step_may_turn_unless_the_walk_option_is_straight() -> None:
    turning = walkers(blond="d5 e5")
    assert "e5" in walk_ends(turning, "d4")
    assert is_legal(turning, "Gd4-d5-e5" + PARK)
    straight = walkers(STRAIGHT, blond="d5 e5 d6")
    assert walk_ends(straight, "d4") == {"d5", "d6"}
    assert rule_of(straight, "Gd4-d5-e5" + PARK) == "walk.straight"


def test_a_walk_cannot_end_where_it_began_unless_it_removed_a_monk() -> None:
    state = walkers(blond="d5")
    assert rule_of(state, "Gd4-d5-d4" + PARK) == "walk.no-move"
    removing = walkers(blond="d5", monks={"copper": (None, "d5")})
    assert is_legal(removing, "Gd4-d5-d4" + PARK)


def test_monks_block_walks_except_opposing_monks_of_the_other_size() -> None:
    state = walkers(
        blond="d5 d6 e4 f4 c4 b4 d3 d2",
        monks={
            "copper": ("e4", "d5"),  # copper's Grand Master blocks; its master is removed
        },
        reserves={"silver": (0, 0), "copper": (0, 0)},
    )
    ends = walk_ends(state, "d4")
    assert "e4" not in ends and "f4" not in ends  # a Grand Master never removes one
    assert {"d5", "d6"} <= ends  # over copper's master, removing it
    assert rule_of(state, "Gd4-e4" + PARK) == "walk.blocked"
    own = walkers(blond="d5", monks={"silver": ("d4", "d5")})
    assert rule_of(own, "Gd4-d5 Md5~d6") == "walk.blocked"
    neutral = walkers(blond="d5", monks={"neutral": ("a1", "d5")})
    assert rule_of(neutral, "Gd4-d5" + PARK) == "walk.blocked"


def test_a_master_removes_a_grand_master() -> None:
    state = position(
        TWO,
        blond="d4 d5 g1 a1 a3",
        monks={"silver": ("g1", "d4"), "copper": ("d5", None), "neutral": ("a1", "a3")},
    )
    state.play_text("Md4-d5 Gg1~g2")
    assert state.pos[2] == -1 and state.occ[state.pos[1]] == 1


def test_a_neutral_monk_removes_for_the_player_who_moves_it_but_never_their_own() -> None:
    state = position(
        TWO,
        blond="d4 d5 d6 g7 g1 a1",
        monks={"silver": ("g1", "g7"), "copper": ("d5", None), "neutral": ("a1", "d4")},
    )
    assert "d5" in walk_ends(state, "d4")  # copper's Grand Master, for silver
    copper_turn = position(
        TWO,
        blond="d4 d5 d6 g7 g1 a1",
        monks={"copper": ("d5", "g7"), "silver": ("g1", None), "neutral": ("a1", "d4")},
        to_move=1,
    )
    assert "d5" not in walk_ends(copper_turn, "d4")  # its own Grand Master
    assert rule_of(copper_turn, "NMd4-d5 Gd5~c5") == "walk.blocked"


# ---------------------------------------------------------------------- hover


def test_only_a_monk_on_a_cushion_hovers() -> None:
    state = position(
        TWO, blond="g7 a1 a3", faded="d6", monks={"silver": ("d6", "g7"), "neutral": ("a1", "a3")}
    )
    assert hover_ends(state, "d6") == set()
    assert rule_of(state, "Gd6~d7 Mg7~g6") == "hover.no-cushion"


def test_a_hover_is_one_action_however_far_it_goes() -> None:
    state = walkers()
    assert is_legal(state, "Gd4~d1" + PARK)
    assert rule_of(state, "Gd4~d1 Gd1~e1" + PARK) == "monk.hovered-twice"


def test_hovers_stop_before_tiles_cushions_and_the_edge() -> None:
    state = walkers(blond="d6", faded="b4", intact="f4")
    assert hover_ends(state, "d4") == {"d5", "e4", "c4", "d3", "d2", "d1"}
    assert rule_of(state, "Gd4~d7" + PARK) == "hover.blocked"
    assert rule_of(state, "Gd4~g4" + PARK) == "hover.blocked"


def test_an_orange_cushion_lifts_only_free_blond_cushions_and_puts_them_on_empty_squares() -> None:
    state = position(
        TWO,
        orange="d4 f4",
        blond="b4 g7 a1 a3 c1",
        monks={"silver": ("d4", "g7"), "neutral": ("a1", "a3"), "copper": ("c1", None)},
    )
    # Right: f4 is orange, no lift. Left: b4 is a free blond cushion.
    assert is_legal(state, "Gd4~a4(b4>b1)" + PARK)
    assert is_legal(state, "Gd4~b4(b4>e1)" + PARK)  # stops on the square it freed
    assert rule_of(state, "Gd4~g4(f4>b1)" + PARK) == "hover.lift-not-free"
    assert rule_of(state, "Gd4~a4(b4>a3)" + PARK) == "hover.put-down"
    assert rule_of(state, "Gd4~a4(c1>b1)" + PARK) == "hover.lift-not-free"
    # A blond cushion with a monk on it is no more liftable than an orange one.
    held = position(
        TWO,
        orange="d4",
        blond="b4 g7 a1 a3",
        monks={"silver": ("d4", "g7"), "neutral": ("a1", "b4")},
    )
    assert rule_of(held, "Gd4~a4(b4>b1)" + PARK) == "hover.lift-not-free"


def test_the_put_down_cushion_is_an_obstacle_for_the_rest_of_the_hover() -> None:
    # Silver's master on the orange cushion of d7; a free blond cushion on b7 and an
    # orange one on f7 in the same row: only the left way goes round the edge.
    state = position(
        TWO,
        orange="d7 f7",
        blond="b7 g1 a1 a3",
        monks={"silver": ("g1", "d7"), "neutral": ("a1", "a3")},
    )
    assert is_legal(state, "Md7~g7(b7>c1) Gg1~g2")
    assert rule_of(state, "Md7~g7(b7>a7) Gg1~g2") == "hover.lift-path"  # put in its way
    assert rule_of(state, "Md7~f7 Gg1~g2") == "hover.blocked"


def test_no_lifts_at_all_with_orange_lifts_zero() -> None:
    rules = ShenshiRules(["silver", "copper"], orange_lifts=0)
    state = position(
        rules,
        orange="d7",
        blond="b7 g1 a1 a3",
        monks={"silver": ("g1", "d7"), "neutral": ("a1", "a3")},
    )
    assert rule_of(state, "Md7~a7(b7>g7) Gg1~g2") == "hover.lift-limit"
    assert not any("(" in text for text in legal(state))
    assert is_legal(state, "Md7~a7 Gg1~g2")  # the long way round, to the right


def test_in_the_expert_variant_a_blond_cushion_turns_once_an_orange_one_never() -> None:
    state = position(
        EXPERT,
        blond="d4 g7 a1 a3",
        orange="b2",
        monks={"silver": ("d4", "b2"), "neutral": ("a1", "a3")},
    )
    assert {"e5", "g5", "c6"} <= hover_ends(state, "d4")
    assert is_legal(state, "Gd4~g5")
    assert not is_legal(state, "Mb2~c3")
    basic = position(
        TWO, blond="d4 g7 a1 a3", monks={"silver": ("d4", "g7"), "neutral": ("a1", "a3")}
    )
    assert "e5" not in hover_ends(basic, "d4")


# ---------------------------------------------------------------------- enter


def test_a_monk_enters_on_a_reserve_cushion_on_an_empty_square() -> None:
    state = position(
        TWO, blond="c5 e3", monks={"neutral": ("c5", "e3")}, reserves={"silver": (0, 1)}
    )
    assert is_legal(state, "M@a1:o NGc5~c6")
    assert rule_of(state, "M@a1:b NGc5~c6") == "enter.no-reserve-cushion"
    assert rule_of(state, "M@e3:o NGc5~c6") == "enter.square-taken"
    assert rule_of(state, "M@a1:e3 NGc5~c6") == "enter.reserve-first"
    played = state.copy()
    played.play_text("M@a1:o NGc5~c6")
    assert played.reserve[:2] == [0, 0] and played.cushion[42] == 2


def test_entering_comes_first_once_a_turn_and_counts_as_the_walk() -> None:
    state = position(TWO, blond="c5 e3 g1", monks={"silver": (None, "g1"), "neutral": ("c5", "e3")})
    assert rule_of(state, "Mg1~g2 G@a1:b") == "turn.enter-first"
    assert rule_of(state, "G@a1:b Ga1-a2 Mg1~g2") == "monk.walked-twice"
    assert is_legal(state, "G@a1:b Ga1~a7 Mg1~g2")
    both_off = position(TWO, blond="c5 e3", monks={"neutral": ("c5", "e3")})
    assert rule_of(both_off, "G@a1:b M@a2:b") == "enter.one-per-turn"
    assert is_legal(both_off, "G@a1:b NMe3~e4")  # the neutral master stands in
    on_board = position(
        TWO, blond="c5 e3 g1 a1", monks={"silver": ("a1", "g1"), "neutral": ("c5", "e3")}
    )
    assert rule_of(on_board, "G@b1:b Mg1~g2") == "enter.on-board"


# ---------------------------------------------------------------------- swap


def test_a_swap_exchanges_the_two_monks_of_one_colour_and_leaves_the_cushions() -> None:
    # Silver's Grand Master on d1, its master on the orange cushion of d4; between them
    # the faded mandala of d2 and a free cushion on d3.
    state = position(
        TWO,
        blond="d1 d3 a7 a5",
        faded="d2",
        orange="d4",
        monks={"silver": ("d1", "d4"), "neutral": ("a7", "a5")},
    )
    assert is_legal(state, "Gd1=d4 Md1~a1")
    played = state.copy()
    played.play_text("Gd1=d4 Md1~a1")
    assert played.pos[0] == 24 and played.cushion[24] == 2  # G on the orange cushion
    assert rule_of(state, "Gd1=d4 Gd4-d3 Md1~a1") == "monk.walked-twice"
    assert rule_of(state, "Gd1=a7 Md4~f4") == "swap.not-partner"
    off_line = position(
        TWO, blond="b1 c2 a7 a5", monks={"silver": ("b1", "c2"), "neutral": ("a7", "a5")}
    )
    assert rule_of(off_line, "Gb1=c2 Mb1~b3") == "swap.not-in-line"


def test_a_swap_never_makes_a_turn_alone() -> None:
    state = position(
        EXPERT, blond="b1 c1 a7 a5", monks={"silver": ("b1", "c1"), "neutral": ("a7", "a5")}
    )
    assert rule_of(state, "Gb1=c1") == "turn.swap-alone"
    assert is_legal(state, "Gb1=c1 Gc1~c4")


def test_a_lift_must_be_in_the_way() -> None:
    state = position(
        TWO,
        orange="d7",
        blond="b7 f7 d5 g1 a1 a3",
        intact="d6",
        monks={"silver": ("g1", "d7"), "neutral": ("a1", "a3")},
    )
    assert is_legal(state, "Md7~a7(b7>c1) Gg1~g2")
    # e7 is reached going right, where there is nothing to lift; going left, f7 is a
    # second cushion that one lift cannot clear.
    assert rule_of(state, "Md7~e7(b7>c1) Gg1~g2") == "hover.lift-path"
    # d5 is below the intact mandala of d6.
    assert rule_of(state, "Md7~d4(d5>c1) Gg1~g2") == "hover.lift-path"


def test_an_expert_blond_hover_turns_once_over_empty_squares_only() -> None:
    # From d4 to f6: up then right is closed at e6, right then up at e4.
    state = position(
        EXPERT, blond="d4 e6 e4 g7 a1 a3", monks={"silver": ("d4", "g7"), "neutral": ("a1", "a3")}
    )
    assert rule_of(state, "Gd4~f6") == "hover.unreachable"
    opened = position(
        EXPERT, blond="d4 e6 g7 a1 a3", monks={"silver": ("d4", "g7"), "neutral": ("a1", "a3")}
    )
    assert is_legal(opened, "Gd4~f6")


def test_the_monk_must_stand_where_the_action_says() -> None:
    state = walkers(blond="d5")
    assert rule_of(state, "Gd3-d4" + PARK) == "monk.not-there"
    assert rule_of(state, "Gd4-d5 Mg6~g5") == "monk.not-there"


def test_a_monk_off_the_board_only_enters() -> None:
    state = position(TWO, blond="c5 e3", monks={"neutral": ("c5", "e3")})
    assert rule_of(state, "G@c1:b Mb1~b2") == "monk.off-board"
    assert rule_of(state, "G@c1:b NMe3~e4 Gc1~c2") == "monk.finished"
    neutral_entry = Turn((Enter(2, 42, RESERVE_BLOND),))
    with pytest.raises(IllegalMoveError) as error:
        state.validate(neutral_entry)
    assert error.value.rule == "enter.neutral"


def test_an_empty_turn_and_a_choice_out_of_time_are_refused() -> None:
    state = walkers()
    with pytest.raises(IllegalMoveError) as error:
        state.validate(Turn(()))
    assert error.value.rule == "turn.empty"
    assert rule_of(state, "give d5") == "give.not-now"


def test_a_lifted_cushion_is_not_put_down_where_the_orange_cushion_stands() -> None:
    # "aussitôt replacé sur une case libre": as the orange cushion leaving c4 lifts d4's
    # cushion, c4 is still under it.
    start = ShenshiRules(["silver", "copper"], seed=0).initial_state()
    assert rule_of(start, "G@c4:o Gc4~d4(d4>c4) NMe3~e2") == "hover.put-down"
    assert is_legal(start, "G@c4:o Gc4~d4(d4>c3) NMe3~e2")
    # Further along, the square just before the lifted cushion is the one under it;
    # squares the orange cushion has left behind are free.
    state = position(
        TWO,
        orange="a4",
        blond="d4 g7 a1 a3",
        monks={"silver": ("a4", "g7"), "neutral": ("a1", "a3")},
    )
    assert rule_of(state, "Ga4~e4(d4>c4)" + PARK) == "hover.put-down"
    assert is_legal(state, "Ga4~e4(d4>b4)" + PARK)
    assert is_legal(state, "Ga4~e4(d4>a4)" + PARK)


def test_with_lift_put_down_also_orange_square_it_may_go_there() -> None:
    rules = ShenshiRules(["silver", "copper"], seed=0, lift_put_down="also-orange-square")
    assert rules.options_json()["lift_put_down"] == "also-orange-square"
    assert is_legal(rules.initial_state(), "G@c4:o Gc4~d4(d4>c4) NMe3~e2")
    state = position(
        rules,
        orange="a4",
        blond="d4 g7 a1 a3",
        monks={"silver": ("a4", "g7"), "neutral": ("a1", "a3")},
    )
    assert is_legal(state, "Ga4~e4(d4>c4)" + PARK)
