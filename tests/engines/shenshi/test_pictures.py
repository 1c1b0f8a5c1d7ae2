"""The numbered pictures of the rule book (images 3 to 11) rebuilt as positions.

The pictures are lost; their captions survive. Each test sets out what a caption
describes on squares of our choosing and checks what the caption says.
"""

from __future__ import annotations

from engines.shenshi import ShenshiRules
from tests.engines.shenshi.positions import (
    hover_ends,
    is_legal,
    legal,
    position,
    rule_of,
    walk_ends,
)

TWO = ShenshiRules(["silver", "copper"])
THREE = ShenshiRules(["silver", "copper", "gold"])


def test_image_3_a_walk_is_at_most_two_squares_never_diagonal_never_over_a_monk() -> None:
    # The neutral (black) master on d4: a blond cushion three squares away on a4 (over
    # the cushions of c4 and b4), an orange cushion diagonally on e5; the square e4
    # between them holds the neutral Grand Master and d5 is empty.
    state = position(
        TWO,
        blond="d4 c4 b4 a4 e4 g1 g7",
        orange="e5",
        monks={"silver": ("g1", "g7"), "neutral": ("e4", "d4")},
    )
    assert walk_ends(state, "d4") == {"c4", "b4"}
    assert rule_of(state, "NMd4-e5 Gg1~g2") == "walk.step"  # diagonal
    assert rule_of(state, "NMd4-a4 Gg1~g2") == "walk.step"  # three squares
    assert rule_of(state, "NMd4-c4-b4-a4 Gg1~g2") == "walk.length"
    assert rule_of(state, "NMd4-e4-e5 Gg1~g2") == "walk.blocked"  # over a monk
    assert rule_of(state, "NMd4-d5-e5 Gg1~g2") == "walk.not-walkable"
    assert is_legal(state, "NMd4-b4 Gg1~g2")


def test_image_4_a_blond_cushion_hovers_straight_to_any_free_square_before_an_obstacle() -> None:
    # The neutral master on c3: a cushion on c6 above, the edge to the right and below,
    # a cushion right next to it on b3: three directions are open.
    state = position(
        TWO,
        blond="c3 c6 b3 g7 a7 e5",
        monks={"silver": ("g7", "a7"), "neutral": ("e5", "c3")},
        faded="b6",
        intact="f4",
    )
    assert hover_ends(state, "c3") == {"c4", "c5", "d3", "e3", "f3", "g3", "c2", "c1"}
    assert is_legal(state, "NMc3~f3 Gg7~g6")
    assert rule_of(state, "NMc3~c7 Gg7~g6") == "hover.blocked"  # beyond the cushion
    assert rule_of(state, "NMc3~a3 Gg7~g6") == "hover.blocked"  # b3 is in the way
    assert rule_of(state, "NMc3~d4 Gg7~g6") == "hover.not-straight"


def test_image_5_an_orange_cushion_crosses_the_edge_when_the_square_beyond_is_free() -> None:
    # Silver's master on an orange cushion on e7 hovers right, off the edge after g7,
    # and comes back in on a7 (the green square).
    state = position(
        TWO,
        orange="e7",
        blond="c1 a5 g5",
        monks={"silver": ("c1", "e7"), "neutral": ("a5", "g5")},
        reserves={"silver": (0, 0)},
    )
    row = {s for s in hover_ends(state, "e7") if s.endswith("7")}
    assert row == {"a7", "b7", "c7", "d7", "f7", "g7"}
    assert is_legal(state, "Me7~b7 Gc1~c2")
    # With a cushion on a7 the way round is closed: b7 is out of reach from the right,
    # and from the left the cushion stops the hover before a7.
    blocked = position(
        TWO,
        orange="e7 a7",
        blond="c1 a5 g5",
        monks={"silver": ("c1", "e7"), "neutral": ("a5", "g5")},
    )
    row = {s for s in hover_ends(blocked, "e7") if s.endswith("7")}
    assert row == {"b7", "c7", "d7", "f7", "g7"}
    assert rule_of(blocked, "Me7~a7 Gc1~c2") == "hover.blocked"


def test_image_6_an_orange_cushion_lifts_a_free_blond_cushion_and_loops() -> None:
    # Silver's master on an orange cushion on c7 hovers right; the free blond cushion
    # n°1 on d7 is in the way, n°2 on b7. It lifts n°1, puts it on d1, goes round the
    # edge and stops on a7 (the green square), before n°2.
    state = position(
        TWO,
        orange="c7",
        blond="d7 b7 g1 e3 a3",
        monks={"silver": ("g1", "c7"), "neutral": ("e3", "a3")},
    )
    assert is_legal(state, "Mc7~a7(d7>d1) Gg1~g2")
    assert not is_legal(state, "Mc7~a7 Gg1~g2")  # without the lift, d7 stops it
    assert rule_of(state, "Mc7~c7 Gg1~g2") == "hover.no-move"
    # "Il lui serait possible de retirer le coussin n°2 et de refaire une boucle": by
    # default it may lift n°2 as well and loop again.
    assert is_legal(state, "Mc7~a7(d7>d1,b7>e1) Gg1~g2")  # twice round the edge
    one_lift = ShenshiRules(["silver", "copper"], orange_lifts=1)
    state = position(
        one_lift,
        orange="c7",
        blond="d7 b7 g1 e3 a3",
        monks={"silver": ("g1", "c7"), "neutral": ("e3", "a3")},
    )
    assert rule_of(state, "Mc7~a7(d7>d1,b7>e1) Gg1~g2") == "hover.lift-limit"
    assert is_legal(state, "Mc7~a7(d7>d1) Gg1~g2")
    # A blond cushion lifts nothing.
    assert rule_of(state, "Gg1~g3(g2>a1) Mc7~a7(d7>d1)") == "hover.lift-blond"


def test_image_7a_a_player_without_cushions_enters_on_a_free_cushion_of_the_board() -> None:
    state = position(
        TWO,
        blond="e5 c5 g1",
        orange="a5",
        monks={"copper": (None, "g1"), "neutral": ("c5", "a5")},
        reserves={"copper": (0, 0)},
        to_move=1,
    )
    assert is_legal(state, "G@a1:e5 Mg1~g2")
    assert rule_of(state, "G@a1:b Mg1~g2") == "enter.no-reserve-cushion"
    assert rule_of(state, "G@a1:c5 Mg1~g2") == "enter.not-free-cushion"
    assert is_legal(state, "G@e5:e5 Mg1~g2")  # the cushion's own square is free once lifted
    # With cushions in reserve, the board's are not for taking.
    rich = position(
        TWO,
        blond="e5 c5 g1",
        orange="a5",
        monks={"copper": (None, "g1"), "neutral": ("c5", "a5")},
        to_move=1,
    )
    assert rule_of(rich, "G@a1:e5 Mg1~g2") == "enter.reserve-first"


def test_image_7b_an_entered_monk_has_walked_but_may_hover() -> None:
    # Copper's Grand Master enters on c7 between the cushions of b7 and d7.
    state = position(
        TWO,
        blond="b7 d7 g1 e3 a3",
        monks={"copper": (None, "g1"), "neutral": ("e3", "a3")},
        to_move=1,
        reserves={"copper": (1, 0)},
    )
    assert rule_of(state, "G@c7:b Gc7-b7 Mg1~g2") == "monk.walked-twice"
    entered = {t for t in legal(state) if t.startswith("G@c7:b Gc7~")}
    assert entered and all(t.split()[1][4] == "c" for t in entered)  # only down
    assert is_legal(state, "G@c7:b Gc7~c3 Mg1~g2")


def test_image_8_monks_of_one_colour_swap_along_a_line_of_walkable_squares() -> None:
    # Silver's monks on b7 and b5 with the intact mandala of b6 between; copper's on a3
    # and d3 with gold's monks between; the neutral monks on e1 and g1 with a free
    # cushion between.
    state = position(
        THREE,
        intact="b6",
        blond="b7 b5 a3 b3 c3 d3 e1 f1 g1",
        monks={
            "silver": ("b7", "b5"),
            "copper": ("a3", "d3"),
            "gold": ("b3", "c3"),
            "neutral": ("e1", "g1"),
        },
        reserves={p: (0, 0) for p in THREE.players},
    )
    assert rule_of(state, "Gb7=b5 Mb5~c5") == "swap.blocked"
    assert is_legal(state, "NGe1=g1 Mb5~c5")
    copper = position(
        THREE,
        intact="b6",
        blond="b7 b5 a3 b3 c3 d3 e1 f1 g1",
        monks={
            "silver": ("b7", "b5"),
            "copper": ("a3", "d3"),
            "gold": ("b3", "c3"),
            "neutral": ("e1", "g1"),
        },
        to_move=1,
        reserves={p: (0, 0) for p in THREE.players},
    )
    assert rule_of(copper, "Ga3=d3 Md3~d4") == "swap.blocked"
    assert is_legal(copper, "NMg1=e1 Ga3~a7")


def test_image_9_a_swap_counts_as_the_walk_of_the_monk_the_player_names() -> None:
    # Copper's Grand Master walks onto the faded mandala of f4: its first and last
    # action. Then copper may hover its master or the neutral master, or swap the
    # neutral monks; a swap named for the neutral master leaves it only a hover.
    state = position(
        TWO,
        faded="f4",
        blond="e4 a1 c1 c2",
        monks={"copper": ("e4", "a1"), "neutral": ("c2", "c1")},
        to_move=1,
    )
    assert is_legal(state, "Ge4-f4 Ma1~a2")
    assert is_legal(state, "Ge4-f4 NMc1~d1")
    assert is_legal(state, "Ge4-f4 NMc1=c2 NMc2~d2")
    assert rule_of(state, "Ge4-f4 NMc1=c2 Ma1~a2") == "turn.one-master"
    assert rule_of(state, "Ge4-f4 NMc1=c2 NMc2-c1") == "monk.walked-twice"
    assert rule_of(state, "Ge4-f4 NGc2=c1") == "turn.one-grand-master"
    assert rule_of(state, "Ge4-f4 Gf4~f5 Ma1~a2") == "hover.no-cushion"


def test_image_10_one_walk_removes_several_monks_never_a_neutral_one() -> None:
    # Silver's Grand Master on c4; gold's master on d4 and copper's master on e4, the
    # neutral master on c5.
    state = position(
        THREE,
        blond="c4 d4 e4 c5 a1 g7",
        monks={
            "silver": ("c4", "a1"),
            "gold": (None, "d4"),
            "copper": (None, "e4"),
            "neutral": ("g7", "c5"),
        },
    )
    assert {"d4", "e4"} <= walk_ends(state, "c4")
    assert rule_of(state, "Gc4-c5 Ma1~a2") == "walk.blocked"
    after = state.copy()
    after.play_text("Gc4-e4 Ma1~a2")  # removes gold's master, then copper's
    assert after.tokens == [5, 1, 1]
    assert after.pos[5] == after.pos[3] == -1  # back to their owners
    assert after.to_move == 1
    stop = state.copy()
    stop.play_text("Gc4-d4 Ma1~a2")  # only gold's master, and stay there
    assert stop.tokens == [3, 1, 1]
    back = state.copy()
    back.play_text("Gc4-d4-c4 Ma1~a2")  # or come back to its own square
    assert back.tokens == [3, 1, 1] and back.occ[back.pos[0]] == 0


def test_image_11_expert_one_monk_hovers_with_a_turn_walks_and_hovers_again() -> None:
    expert = ShenshiRules(["silver", "gold"], variant="expert")
    state = position(
        expert,
        blond="g1 e5 e6 a1 a3 a5",
        monks={"silver": ("g1", "a1"), "gold": (None, "e5"), "neutral": ("a3", "a5")},
    )
    turn = "Gg1~e4 Ge4-e6 Ge6~d7"  # up three and left to e4; over gold's master; up and left
    assert is_legal(state, turn)
    assert rule_of(state, turn + " Ma1~a2") == "turn.three-actions"
    done = state.copy()
    done.play_text(turn)
    assert done.tokens == [3, 1]
    basic = position(
        TWO,
        blond="g1 e5 e6 a1 a3 a5",
        monks={"silver": ("g1", "a1"), "copper": (None, "e5"), "neutral": ("a3", "a5")},
    )
    assert rule_of(basic, "Gg1~e4 Ma1~a2") == "hover.not-straight"
