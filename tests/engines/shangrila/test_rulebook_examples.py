"""The worked examples of the three Shangri-La rule books (seeds 000-002), as scenarios.

The books lost their pictures; the villages are named A and B there. Here A is village
4 and B village 7 (a bridge joins them); the tiles are those the text describes.
"""

from __future__ import annotations

from tests.engines.shangrila.helpers import cell, illegal, position

ORDER = ["yellow", "red", "blue", "violet"]


def test_placement_example() -> None:
    # Yellow has a Rainmaker in the village, red an Astrologer (French text).
    state = position({4: {"R": "yellow", "A": "red"}, 7: {"H": "blue"}}, players=ORDER)
    state.play_text("D@4")  # yellow: onto the free Dragonbreeder space
    assert cell(state, 4, "D") == "yellow"
    error = illegal(state, "R@4")  # red: the Rainmaker space is filled by yellow
    assert error.rule == "place.space-occupied"
    state.play_text("Y@4")  # red places a Yeti-whisperer instead
    assert state.to_move == 2  # ... and only one tile: the Healer must wait
    state.play_text("+H7")  # blue chooses another action
    error = illegal(state, "H@4")  # violet has no master in the village yet
    assert error.rule == "place.no-master-in-village"
    assert "Violet" in error.message and "village 4" in error.message


def test_recruit_example() -> None:
    state = position(
        {4: {"R": "yellow", "Y": "yellow", "H": "blue"}, 7: {"F": "blue"}}, players=ORDER
    )
    state.play_text("+R4+Y4")  # yellow: two students in village A
    assert cell(state, 4, "R") == "yellow+" and cell(state, 4, "Y") == "yellow+"
    state.play_text("pass" if state.legal_texts() == ["pass"] else "+H4+F7")  # red: nothing
    state.play_text("+F7+H4")  # blue: a Healer in A and a Firekeeper in B
    assert cell(state, 4, "H") == "blue+" and cell(state, 7, "F") == "blue+"


def test_journey_situation_1_stronger_origin_8_against_5() -> None:
    spaces = {
        4: {"D": "red+", "R": "red+", "H": "violet+", "P": "yellow", "Y": "blue"},
        7: {"R": "yellow+", "H": "blue", "P": "violet", "A": "yellow"},
    }
    state = position(spaces)  # red to move
    assert (state.vt[4], state.vt[7]) == (8, 5)
    state.play_text("4>7")
    # Red's Dragonbreeder takes the free space; red's Rainmaker drives out yellow's
    # master and student; violet's Healer drives out blue's Healer.
    assert cell(state, 7, "D") == "red"
    assert cell(state, 7, "R") == "red"
    assert cell(state, 7, "H") == "violet"
    assert state.supply_of(2, 0) == 6  # yellow's Rainmaker master and student went home
    assert state.supply_of(1, 5) == 6  # blue's Healer went home
    # Masters never move; yellow and blue had no students in A.
    assert {d: cell(state, 4, d) for d in "DRHPY"} == {
        "D": "red",
        "R": "red",
        "H": "violet",
        "P": "yellow",
        "Y": "blue",
    }
    assert not state.bridge_standing(4, 7)


def test_journey_situation_2_weaker_origin_7_against_9() -> None:
    spaces = {
        4: {"H": "violet+", "P": "violet", "Y": "violet", "R": "red+", "A": "red"},
        7: {"R": "yellow+", "P": "blue+", "Y": "blue+", "A": "yellow", "D": "yellow", "F": "blue"},
    }
    state = position(spaces, to_move=3)  # violet to move
    assert (state.vt[4], state.vt[7]) == (7, 9)
    state.play_text("4>7")
    assert cell(state, 7, "H") == "violet"  # the free Healer space: a new master
    assert cell(state, 7, "R") == "yellow+"  # red's Rainmaker cannot drive yellow out
    assert state.supply_of(0, 0) == 5  # ... and goes back to red's supply
    assert not state.bridge_standing(4, 7)  # village A is safe from B now
    assert sum(cell(state, 4, d) == "violet" for d in "HPY") == 3


def test_game_end_example_tie_broken_by_villages() -> None:
    red = {v: dict.fromkeys("RPY", "red") for v in (0, 1, 2)}
    red.update({v: dict.fromkeys("AD", "red") for v in (3, 4, 5, 6)})
    blue = {v: dict.fromkeys("HFR", "blue") for v in (7, 8, 9, 10, 11)}
    blue[12] = dict.fromkeys("PY", "blue")
    state = position({**red, **blue})
    assert state.scores()[:2] == [17, 17]
    assert state.tiebreak()[:2] == [7, 6]
    assert state.winners() == [0]
