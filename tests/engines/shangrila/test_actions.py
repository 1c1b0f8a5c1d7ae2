"""Play-phase actions other than journeys: place a master, recruit, pass; scoring."""

from __future__ import annotations

import pytest

from engines.shangrila import ShangrilaRules
from tests.engines.shangrila.helpers import FOUR, cell, illegal, position

# ---------------------------------------------------------------- place a master


def test_place_a_master_where_the_player_already_has_one() -> None:
    state = position({4: {"A": "red"}})
    state.play_text("Y@4")
    assert cell(state, 4, "Y") == "red"
    assert state.supply_of(0, 2) == 5
    assert state.to_move == 1


def test_place_needs_a_master_of_ones_own_in_the_village() -> None:
    state = position({4: {"A": "blue"}})
    error = illegal(state, "Y@4")
    assert error.rule == "place.no-master-in-village"
    assert error.message.startswith("Red cannot place a Yeti-whisperer in village 4")


def test_place_only_on_an_empty_space_of_its_symbol() -> None:
    state = position({4: {"A": "red", "R": "yellow"}})
    error = illegal(state, "R@4")
    assert error.rule == "place.space-occupied"
    assert "Yellow" in error.message


def test_place_needs_a_tile_in_supply() -> None:
    spaces = {v: {"Y": "red"} for v in (0, 1, 3, 5, 6, 7)}
    spaces[4] = {"A": "red"}
    state = position(spaces)
    assert state.supply_of(0, 2) == 0
    assert illegal(state, "Y@4").rule == "place.no-supply"


def test_no_action_in_a_village_with_a_stone() -> None:
    broken = ((0, 6), (3, 6), (6, 10))  # village 6 isolated: it gets a stone
    state = position({6: {"A": "red+"}, 4: {"H": "red"}}, broken=broken)
    assert state.to_json()["stones"] == [6]
    assert illegal(state, "Y@6").rule == "village.has-stone"
    assert illegal(state, "+A6").rule == "village.has-stone"
    assert not any("6" in t for t in state.legal_texts() if not t.startswith("+"))


# ---------------------------------------------------------------- recruit


def test_recruit_two_students_in_one_or_two_villages() -> None:
    state = position({4: {"H": "red", "R": "red"}, 7: {"F": "red"}})
    state.play_text("+R4+H4")
    assert cell(state, 4, "R") == "red+" and cell(state, 4, "H") == "red+"
    state = position({4: {"H": "red"}, 7: {"F": "red"}})
    state.play_text("+F7+H4")
    assert cell(state, 4, "H") == "red+" and cell(state, 7, "F") == "red+"
    assert state.supply_of(0, 5) == 4  # the master and its student came from 6 Healers


def test_recruit_one_student_is_allowed_by_default_even_when_two_are_possible() -> None:
    state = position({4: {"H": "red", "R": "red"}})
    assert "+H4" in state.legal_texts()
    state.play_text("+H4")


def test_option_one_when_forced_requires_two_when_two_are_possible() -> None:
    state = position({4: {"H": "red", "R": "red"}}, recruit="one-when-forced")
    assert illegal(state, "+H4").rule == "recruit.two-when-possible"
    assert state.legal_texts().count("+R4+H4") == 1
    lonely = position({4: {"H": "red", "R": "red+"}}, recruit="one-when-forced")
    lonely.play_text("+H4")  # only one master can take a student: one is enough


def test_a_master_has_at_most_one_student() -> None:
    state = position({4: {"H": "red+"}, 7: {"F": "red"}})
    assert illegal(state, "+H4").rule == "recruit.master-has-student"
    state = position({4: {"H": "red"}})
    error = illegal(state, "+H4+H4")
    assert error.rule == "recruit.same-master-twice"


def test_students_go_only_onto_own_masters() -> None:
    state = position({4: {"H": "blue", "R": "red"}})
    error = illegal(state, "+H4")
    assert error.rule == "recruit.no-own-master"
    assert "held by Blue" in error.message
    assert illegal(state, "+A4").rule == "recruit.no-own-master"


def test_recruit_needs_tiles_in_supply() -> None:
    # five red Healers on the board, one in supply: one student, not two.
    spaces = {v: {"H": "red"} for v in (0, 1, 3, 4, 5)}
    state = position(spaces)
    assert state.supply_of(0, 5) == 1
    assert illegal(state, "+H4+H5").rule == "recruit.no-supply"
    state.play_text("+H4")
    assert state.supply_of(0, 5) == 0


# ---------------------------------------------------------------- pass and game end


def test_pass_only_when_no_action_is_possible() -> None:
    state = position({4: {"H": "red"}, 7: {"A": "blue"}})
    error = illegal(state, "pass")
    assert error.rule == "pass.has-action"
    assert "for example" in error.message


def test_a_player_with_no_tiles_on_the_board_must_pass() -> None:
    state = position({4: {"H": "red"}}, to_move=1)
    assert state.legal_texts() == ["pass"]
    state.play_text("pass")
    assert state.to_move == 2


def test_a_full_round_of_passes_ends_the_game() -> None:
    # Nobody can act: every master has a student, supplies are empty of their kinds,
    # and no village holds a student with a standing bridge... simplest: no tiles at all.
    state = position({}, to_move=0)
    for _ in range(3):
        state.play_text("pass")
        assert not state.is_over()
    state.play_text("pass")
    assert state.is_over()
    assert state.legal_moves() == []
    assert illegal(state, "pass").rule == "game.over"


def test_scores_count_masters_not_students_and_ties_go_to_more_villages() -> None:
    state = position(
        {
            0: {"R": "red+", "P": "red"},
            4: {"H": "blue", "F": "blue+"},
            7: {"A": "yellow"},
            8: {"A": "yellow"},
        }
    )
    assert state.scores() == [2, 2, 2, 0]
    assert state.tiebreak() == [1, 1, 2, 0]
    assert state.winners() == [2]


def test_a_tie_on_masters_and_villages_is_shared() -> None:
    state = position({0: {"R": "red"}, 4: {"H": "blue"}})
    assert state.winners() == [0, 1]


@pytest.mark.parametrize(
    "players", [["red", "red", "blue"], ["red", "blue"], ["red", "blue", "green"]]
)
def test_players_must_be_three_or_four_distinct_colours(players: list[str]) -> None:
    from engines import RecordError

    with pytest.raises(RecordError):
        ShangrilaRules(players)


def test_suggested_setup_for_three_players_starts_in_play() -> None:
    state = ShangrilaRules(["blue", "red", "yellow"], setup="suggested").initial_state()
    assert state.to_json()["phase"] == "play"
    assert state.scores() == [7, 7, 7]
    assert cell(state, 0, "R") == "blue" and cell(state, 0, "Y") == "red"
    assert cell(state, 12, "A") == "yellow"


def test_suggested_setup_maps_card_colours_onto_other_players() -> None:
    state = ShangrilaRules(["violet", "red", "yellow"], setup="suggested").initial_state()
    assert cell(state, 0, "R") == "violet"  # the card's blue goes to violet


def test_no_suggested_setup_for_four_players() -> None:
    from engines import RecordError

    with pytest.raises(RecordError, match="4 players"):
        ShangrilaRules(FOUR, setup="suggested")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("stones", 13),
        ("stones", True),
        ("tie_break", "coin"),
        ("recruit", "three"),
        ("setup", "random"),
    ],
)
def test_bad_option_values_are_refused(name: str, value: object) -> None:
    from engines import RecordError

    with pytest.raises(RecordError, match=name):
        ShangrilaRules.from_record(FOUR, {name: value})


def test_unknown_options_are_refused() -> None:
    from engines import RecordError

    with pytest.raises(RecordError, match="unknown"):
        ShangrilaRules.from_record(FOUR, {"stone": 11})
