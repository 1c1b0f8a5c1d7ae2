"""The journey of the students, broken bridges, stones and the end (RULINGS 1.3)."""

from __future__ import annotations

import pytest

from engines.shangrila import ShangrilaRules
from tests.engines.shangrila.helpers import THREE, cell, illegal, position

# Village 4 is joined to 0, 3, 5 and 7; 7 to 4, 8, 10 and 11.


def strong_origin(**extra: str) -> dict[int, dict[str, str]]:
    """Village 4 with more tiles than village 7 (4 + extra vs whatever 7 holds)."""
    return {4: {"R": "red+", "P": "yellow", "Y": "blue", "A": "violet", **extra}}


def test_a_journey_needs_a_student_of_ones_own_in_the_origin() -> None:
    state = position({4: {"R": "blue+"}, 7: {}})
    error = illegal(state, "4>7")
    assert error.rule == "journey.no-student"
    assert "Red has no student in village 4" in error.message


def test_a_journey_goes_only_to_a_neighbour() -> None:
    state = position({4: {"R": "red+"}})
    assert illegal(state, "4>9").rule == "journey.no-path"
    assert illegal(state, "4>4").rule == "journey.no-path"


def test_a_broken_bridge_cannot_be_crossed_again() -> None:
    state = position({4: {"R": "red+", "H": "red+"}}, broken=((4, 7),))
    error = illegal(state, "4>7")
    assert error.rule == "journey.bridge-broken"
    assert "villages 4 and 7" in error.message


def test_students_of_every_colour_travel_and_masters_stay() -> None:
    state = position({4: {"R": "red+", "H": "blue+", "P": "yellow"}})
    state.play_text("4>7")
    assert cell(state, 4, "R") == "red" and cell(state, 4, "H") == "blue"
    assert cell(state, 4, "P") == "yellow"
    assert cell(state, 7, "R") == "red" and cell(state, 7, "H") == "blue"
    assert not state.bridge_standing(4, 7)


def test_the_bridge_breaks_and_the_next_player_moves() -> None:
    state = position({4: {"R": "red+"}})
    state.play_text("4>7")
    assert "4-7" not in state.to_json()["bridges"]
    assert state.to_move == 1


class TestStrongerOrigin:
    def test_empty_space_the_student_becomes_a_master(self) -> None:
        state = position({**strong_origin(), 7: {"H": "blue"}})
        state.play_text("4>7")
        assert cell(state, 7, "R") == "red"

    def test_own_master_alone_the_student_joins_it(self) -> None:
        state = position({**strong_origin(), 7: {"R": "red"}})
        state.play_text("4>7")
        assert cell(state, 7, "R") == "red+"
        assert state.supply_of(0, 0) == 3  # masters in 4 and 7, the student in 7

    def test_own_master_with_student_the_arriving_student_goes_home(self) -> None:
        state = position({**strong_origin(), 7: {"R": "red+"}})
        state.play_text("4>7")
        assert cell(state, 7, "R") == "red+"
        assert cell(state, 4, "R") == "red"
        assert state.supply_of(0, 0) == 3  # 6 - master in 4 - master and student in 7

    def test_opposing_master_and_student_go_home_and_the_student_is_master(self) -> None:
        state = position({**strong_origin(), 7: {"R": "yellow+"}})
        state.play_text("4>7")
        assert cell(state, 7, "R") == "red"
        assert state.supply_of(2, 0) == 6


class TestWeakerOrigin:
    def weak(self, there: str) -> dict[int, dict[str, str]]:
        return {4: {"R": "red+"}, 7: {"R": there, "P": "blue", "Y": "blue", "A": "yellow"}}

    def test_empty_space_the_student_becomes_a_master(self) -> None:
        state = position({4: {"H": "red+"}, 7: {"P": "blue", "Y": "blue", "A": "blue"}})
        state.play_text("4>7")
        assert cell(state, 7, "H") == "red"

    @pytest.mark.parametrize("there", ["yellow", "yellow+", "red", "red+"])
    def test_occupied_space_the_student_goes_home(self, there: str) -> None:
        state = position(self.weak(there))
        state.play_text("4>7")
        assert cell(state, 7, "R") == there
        assert cell(state, 4, "R") == "red"


class TestEqualStrength:
    def test_more_masters_is_stronger(self) -> None:
        # 4: R red+ and P yellow = 3 tiles, 2 masters; 7: three masters = 3 tiles.
        state = position(
            {4: {"R": "red+", "P": "yellow"}, 7: {"R": "blue", "P": "blue", "Y": "violet"}}
        )
        assert not state.stronger_origin(4, 7)
        state.play_text("4>7")
        assert cell(state, 7, "R") == "blue"

    @pytest.mark.parametrize(("tie_break", "winner"), [("destination", "blue"), ("origin", "red")])
    def test_a_full_tie_goes_to_the_option(self, tie_break: str, winner: str) -> None:
        state = position(
            {4: {"R": "red+", "P": "yellow+"}, 7: {"R": "blue+", "P": "blue+"}}, tie_break=tie_break
        )
        state.play_text("4>7")
        assert cell(state, 7, "R").rstrip("+") == winner


def test_stones_go_on_villages_left_with_no_bridge() -> None:
    # Village 6 keeps only its bridge to 10; a journey 6>10 isolates it.
    state = position({6: {"H": "red+"}}, broken=((0, 6), (3, 6)))
    state.play_text("6>10")
    assert state.to_json()["stones"] == [6]
    assert not state.is_over()


def test_one_journey_can_isolate_two_villages() -> None:
    # 6 and 10 joined only to each other: both get a stone.
    state = position({6: {"H": "red+"}}, broken=((0, 6), (3, 6), (3, 10), (7, 10), (10, 11)))
    state.play_text("6>10")
    assert state.to_json()["stones"] == [6, 10]


@pytest.mark.parametrize(("stones", "ends"), [(11, True), (12, False)])
def test_the_game_ends_when_the_stone_count_is_reached(stones: int, ends: bool) -> None:
    # Only 0-1 and 3-4 stand: 9 stones. The journey 0>1 isolates 0 and 1: 11 stones.
    rules = ShangrilaRules()
    broken = tuple(b for b in rules.bridges if b not in {(0, 1), (3, 4)})
    state = position({0: {"H": "red+"}}, broken=broken, stones=stones)
    assert state.nstones == 9
    state.play_text("0>1")
    assert state.nstones == 11
    assert state.is_over() is ends


def test_a_journey_that_does_not_isolate_a_village_places_no_stone() -> None:
    rules = ShangrilaRules()
    broken = tuple(b for b in rules.bridges if b not in {(0, 1), (0, 3), (3, 4)})
    state = position({0: {"H": "red+"}}, broken=broken)
    state.play_text("0>1")
    assert state.to_json()["stones"] == [1, 2, 5, 6, 7, 8, 9, 10, 11, 12]
    assert state.nstones == 10 and not state.is_over()


def test_the_last_stone_is_capped_at_the_count() -> None:
    # Twelve-stone game, 11 placed, 0-1 the last bridge: the journey isolates both
    # villages but only one stone is left; the game ends with one village bare.
    rules = ShangrilaRules()
    broken = tuple(b for b in rules.bridges if b != (0, 1))
    state = position({0: {"H": "red+"}}, broken=broken, stones=12)
    assert state.nstones == 11
    state.play_text("0>1")
    assert state.nstones == 12 and state.is_over()
    assert len(state.to_json()["stones"]) == 12
    assert state.stones[0] and not state.stones[1]  # on the village the journey left


def test_three_players_the_red_village_stone_counts() -> None:
    rules = ShangrilaRules(THREE)
    broken = tuple(b for b in rules.bridges if b not in {(0, 1), (3, 4)})
    state = position({0: {"H": "red+"}}, players=THREE, broken=broken)
    assert state.nstones == 9  # the red village's stone and eight more
    state.play_text("0>1")
    assert state.is_over()
