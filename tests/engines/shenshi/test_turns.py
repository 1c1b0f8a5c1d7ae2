"""The limits of a turn (RULINGS 3.2), the neutral monks, 4 players, the expert variant,
passing and the end of the game."""

from __future__ import annotations

from typing import Any

from engines.shenshi import Give, Pass, ShenshiRules, ShenshiState, parse_square
from tests.engines.shenshi.positions import is_legal, legal, position, rule_of

TWO = ShenshiRules(["silver", "copper"])


def sq(name: str) -> int:
    square = parse_square(name)
    assert square is not None
    return square


ANY = ShenshiRules(["silver", "copper"], monks_per_turn="any")
TURN_RETURN = ShenshiRules(["silver", "copper"], neutral_return="turn")
FOUR = ShenshiRules(["silver", "copper", "gold", "black"])
EXPERT = ShenshiRules(["silver", "copper"], variant="expert")


def everyone(rules: ShenshiRules = TWO, **extra: Any) -> ShenshiState:
    """Silver's monks on d4 (Grand Master) and g7, the neutral ones on a1 and a7, all on
    blond cushions; free cushions on d5 and d6."""
    return position(
        rules,
        blond="d4 g7 a1 a7 d5 d6",
        monks={"silver": ("d4", "g7"), "neutral": ("a1", "a7")},
        **extra,
    )


def test_at_most_three_actions() -> None:
    state = everyone()
    assert is_legal(state, "Gd4-d6 Gd6~e6 Mg7~g6")
    assert rule_of(state, "Gd4-d6 Gd6~e6 Mg7~g6 Mg6-g7") == "turn.three-actions"


def test_a_monk_walks_once_and_hovers_once_in_either_order() -> None:
    state = everyone()
    assert is_legal(state, "Gd4~e4 Mg7~g6")
    assert is_legal(state, "Gd4-d5 Gd5~e5 Mg7~g6")
    assert rule_of(state, "Gd4~c4 Gc4~c5 Mg7~g6") == "monk.hovered-twice"
    assert rule_of(state, "Gd4-d5 Gd5-d6 Mg7~g6") == "monk.walked-twice"


def test_all_the_actions_of_one_monk_come_before_the_next() -> None:
    state = everyone()
    assert rule_of(state, "Gd4-d5 Mg7~g6 Gd5~e5") == "monk.finished"


def test_a_turn_uses_a_grand_master_and_a_master_own_or_neutral() -> None:
    state = everyone()
    assert rule_of(state, "Gd4-d5") == "turn.needs-master"
    assert rule_of(state, "Mg7~g6") == "turn.needs-grand-master"
    assert is_legal(state, "NGa1~b1 NMa7~b7")  # the neutral monks alone
    assert is_legal(state, "Gd4-d5 NMa7~b7")
    assert rule_of(state, "Gd4-d5 NGa1~b1 Mg7~g6") == "turn.one-grand-master"
    assert rule_of(state, "Mg7~g6 NMa7~b7 Gd4-d5") == "turn.one-master"


def test_with_monks_per_turn_any_a_third_monk_may_act() -> None:
    state = everyone(ANY)
    assert is_legal(state, "Gd4-d5 NGa1~b1 Mg7~g6")
    assert rule_of(state, "Gd4-d5 NGa1~b1") == "turn.needs-master"


def test_the_next_player_may_not_put_a_neutral_monk_back_on_its_square() -> None:
    state = position(
        TWO,
        blond="d4 g7 a1 a7 c1 c7",
        monks={"silver": ("d4", "g7"), "copper": ("c1", "c7"), "neutral": ("a1", "a7")},
    )
    state.play_text("NGa1~b1 Mg7~g6")
    assert state.neutral_from == [sq("a1"), -1]
    assert rule_of(state, "NGb1~a1 Mc7~d7") == "neutral.no-return"
    assert is_legal(state, "NGb1~b2 Mc7~d7")
    assert not any(t.startswith("NGb1~a1") for t in legal(state))
    state.play_text("NGb1~b2 Mc7~d7")  # copper moved it on: silver may go back to b1
    assert state.neutral_from == [sq("b1"), -1]
    state.play_text("Gd4~d5 Mg6~g7")  # silver leaves it: copper is free again
    assert state.neutral_from == [-1, -1]


def test_the_no_return_rule_can_look_only_at_the_end_of_the_turn() -> None:
    # The neutral Grand Master came from a1 to b1 on silver's turn; copper moves now.
    parts: dict[str, Any] = {
        "blond": "a1 a7 b1 c1 c7 d4 g7",
        "monks": {"silver": ("d4", "g7"), "copper": ("c1", "c7"), "neutral": ("b1", "a7")},
        "neutral_from": {"G": "a1"},
        "to_move": 1,
    }
    each_action = position(TWO, **parts)
    turn_end = position(TURN_RETURN, **parts)
    for state in (each_action, turn_end):
        assert rule_of(state, "NGb1-a1 Mc7~d7") == "neutral.no-return"
    # Stopping on a1 and going on: forbidden action by action, allowed at the turn's end.
    assert rule_of(each_action, "NGb1-a1 NGa1~a3 Mc7~d7") == "neutral.no-return"
    assert is_legal(turn_end, "NGb1-a1 NGa1~a3 Mc7~d7")


def test_four_players_black_plays_its_own_monks_and_must_use_both_once_in_play() -> None:
    state = FOUR.initial_state()
    assert FOUR.has_neutral is False and state.pos[6:8] == [-1, -1]
    assert all(len(t.split()) <= 2 for t in list(legal(state))[:2000])
    assert is_legal(state, "G@a1:b")  # one monk enters; the other cannot this turn
    assert rule_of(state, "G@a1:b NMe3~e4") == "monk.no-neutral"
    both = position(
        FOUR, blond="d4 g7 a1 a7", monks={"silver": ("d4", "g7"), "black": ("a1", "a7")}
    )
    assert rule_of(both, "Gd4~d5") == "turn.needs-both-monks"
    assert is_legal(both, "Gd4~d5 Mg7~g6")
    one = position(FOUR, blond="d4 g7 a1 a7", monks={"silver": (None, "g7"), "black": ("a1", "a7")})
    assert rule_of(one, "G@e5:b Ge5~e6") == "turn.needs-both-monks"
    assert is_legal(one, "G@e5:b Mg7~g6")


def test_black_may_start_on_the_board_with_four_players() -> None:
    rules = ShenshiRules(["silver", "copper", "gold", "black"], black_start="board")
    state = rules.initial_state()
    assert [state.pos[6], state.pos[7]] == list(rules.board.neutral_squares)


def test_expert_one_monk_may_act_alone_or_go_hover_walk_hover() -> None:
    state = position(
        EXPERT, blond="d4 d5 d6 g7 a1 a7", monks={"silver": ("d4", "g7"), "neutral": ("a1", "a7")}
    )
    assert is_legal(state, "Gd4-d5")
    assert is_legal(state, "Gd4~e4")
    assert is_legal(state, "Gd4~e4 Mg7~g6")
    assert is_legal(state, "Gd4-d5 Gd5~e5")
    assert rule_of(state, "Gd4-d5 Gd5~e5 Ge5~e6") == "expert.program"
    hwh = position(
        EXPERT, blond="c4 d5 d6 g7 a1 a7", monks={"silver": ("c4", "g7"), "neutral": ("a1", "a7")}
    )
    assert is_legal(hwh, "Gc4~c6 Gc6-d6 Gd6~e6")
    assert rule_of(hwh, "Gc4~c6 Gc6-d6 Gd6~e6 Mg7~g6") == "turn.three-actions"


def test_expert_a_swap_is_the_walk_of_hover_walk_hover() -> None:
    # "Permuter les moines compte comme l'action « déplacer »": hover, swap, hover.
    state = EXPERT.initial_state()
    for text in (
        "M@a7:b Ma7~g4 NGc5~b3",
        "G@c7:o NMe3~d3 NMd3-d4",
        "G@c4:o",
        "M@d1:b Gc7~c6 Gc6-b6",
    ):
        state.play(EXPERT.parse_move(text))
    assert is_legal(state, "Mg4~c5 Mc5=c4 Mc4~c2")
    assert rule_of(state, "Mg4~c5 Mc5=c4 Mc4-c3") == "expert.program"


def test_expert_the_last_hover_leaves_from_another_cushion() -> None:
    state = position(
        EXPERT,
        blond="c4 d6 g7 a1 a7",
        monks={"silver": ("c4", "g7"), "copper": (None, "d6"), "neutral": ("a1", "a7")},
    )
    # Hover to c6, walk over copper's master on d6 and back: the same cushion.
    assert rule_of(state, "Gc4~c6 Gc6-d6-c6 Gc6~b6") == "expert.same-cushion"
    assert is_legal(state, "Gc4~c6 Gc6-d6-c6")


def test_expert_the_opponent_chooses_the_cushion_of_a_player_without_any() -> None:
    state = position(
        EXPERT,
        blond="d4 g7 a1 a7 c3",
        monks={"silver": ("d4", "g7"), "copper": (None, None), "neutral": ("a1", "a7")},
        reserves={"copper": (0, 0)},
    )
    state.play_text("Gd4~e4 Mg7~g6")
    assert state.phase == 1 and state.to_move == 0  # silver chooses for copper
    assert legal(state) == {"give c3"}
    assert rule_of(state, "give a1") == "give.not-free-cushion"
    assert rule_of(state, "G@b1:c3 NGa1~a2") == "give.pending"
    state.play(Give(sq("c3")))
    assert state.to_move == 1 and state.offered == sq("c3")
    assert is_legal(state, "G@b1:c3")
    assert rule_of(state, "G@b1:b") == "enter.offered"


def test_a_player_without_a_possible_turn_passes_and_a_round_of_passes_ends_the_game() -> None:
    # Every Grand Master stands on a faded mandala with nothing to walk to, and no
    # master can come to swap with it.
    state = position(
        TWO,
        faded="b6 d6 f6 b4",
        blond="a1 g1",
        monks={"silver": ("b6", "b4"), "copper": ("f6", "a1"), "neutral": ("d6", "g1")},
    )
    assert state.legal_moves() == [Pass()]
    assert rule_of(state, "NMg1~g2") == "turn.needs-grand-master"
    assert rule_of(state, "Gb6=b4 NMg1~g2") == "swap.blocked"
    state.play(Pass())
    assert state.legal_moves() == [Pass()] and state.to_move == 1
    state.play(Pass())
    assert state.is_over() and state.winners() == [0, 1]
    assert rule_of(state, "pass") == "game.over"


def test_the_game_ends_after_quiet_rounds_without_a_removal() -> None:
    rules = ShenshiRules(["silver", "copper"], quiet_rounds=1)
    state = position(
        rules,
        blond="d4 g7 a1 a7 c1 c7",
        monks={"silver": ("d4", "g7"), "copper": ("c1", "c7"), "neutral": ("a1", "a7")},
        tokens={"silver": 3, "copper": 2},
    )
    state.play_text("Gd4~d5 Mg7~g6")
    assert not state.is_over()
    state.play_text("Gc1~d1 Mc7~d7")
    assert state.is_over() and state.winners() == [0] and state.legal_moves() == []


def test_a_pass_is_refused_while_a_turn_is_possible() -> None:
    assert rule_of(everyone(), "pass") == "pass.has-turn"
