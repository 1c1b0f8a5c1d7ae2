"""The placement phase (RULINGS 1.3): seven different masters each, limits per village."""

from __future__ import annotations

from engines.shangrila import ShangrilaRules
from tests.engines.shangrila.helpers import FOUR, THREE, cell, illegal, position


def test_a_game_starts_in_the_placement_phase_with_the_first_player() -> None:
    state = ShangrilaRules(FOUR).initial_state()
    assert state.to_json()["phase"] == "setup"
    assert state.to_move == 0
    assert len(state.legal_moves()) == 13 * 7  # any discipline anywhere


def test_only_placements_in_the_placement_phase() -> None:
    state = ShangrilaRules(FOUR).initial_state()
    state.play_text("H@4")
    state.play_text("R@4")
    assert illegal(state, "+H4").rule == "setup.only-placements"
    assert illegal(state, "4>7").rule == "setup.only-placements"
    assert illegal(state, "pass").rule == "pass.has-action"


def test_in_the_placement_phase_a_master_needs_no_master_already_there() -> None:
    state = ShangrilaRules(FOUR).initial_state()
    state.play_text("H@4")  # red's first master: village 4 holds none of red's yet
    assert cell(state, 4, "H") == "red"


def test_each_starting_master_is_a_different_discipline() -> None:
    state = position({4: {"H": "red"}}, phase="setup", to_move=0)
    error = illegal(state, "H@7")
    assert error.rule == "setup.discipline-placed"
    assert "Healer" in error.message


def test_four_players_at_most_two_of_a_colour_per_village() -> None:
    state = position({4: {"H": "red", "R": "red"}}, phase="setup")
    error = illegal(state, "F@4")
    assert error.rule == "setup.colour-limit"
    assert "village 4" in error.message
    state.play_text("F@5")


def test_four_players_at_most_three_tiles_per_village() -> None:
    state = position({4: {"H": "blue", "R": "yellow", "F": "violet"}}, phase="setup")
    assert illegal(state, "P@4").rule == "setup.village-limit"


def test_three_players_one_of_a_colour_and_two_tiles_per_village() -> None:
    state = position({4: {"H": "red"}}, players=THREE, phase="setup")
    assert illegal(state, "R@4").rule == "setup.colour-limit"
    state = position({4: {"H": "blue", "R": "yellow"}}, players=THREE, phase="setup")
    assert illegal(state, "P@4").rule == "setup.village-limit"


def test_the_red_village_is_not_used_by_three_players() -> None:
    rules = ShangrilaRules(THREE)
    state = rules.initial_state()
    assert state.to_json()["stones"] == [2]
    assert len(rules.bridges) == 20
    error = illegal(state, "H@2")
    assert error.rule == "village.has-stone"
    assert "3-player" in error.message


def test_space_already_taken_in_the_placement_phase() -> None:
    state = position({4: {"H": "blue"}}, phase="setup")
    assert illegal(state, "H@4").rule == "place.space-occupied"


def test_the_phase_ends_after_seven_masters_each_and_the_first_player_begins() -> None:
    rules = ShangrilaRules(THREE)
    state = rules.initial_state()
    for turn in range(21):
        assert state.to_json()["phase"] == "setup"
        discipline = turn // 3  # everyone places a Rainmaker, then a Priest, ...
        move = next(m for m in state.legal_moves() if m.discipline == discipline)
        state.play(move)
    assert state.to_json()["phase"] == "play"
    assert state.to_move == 0
    assert state.scores() == [7, 7, 7]
    assert [state.supply_of(p, d) for p in range(3) for d in range(7)] == [5] * 21


def test_a_player_who_cannot_place_in_the_placement_phase_passes() -> None:
    # Blue still has to place a Healer, but every Healer space it may use is gone:
    # the villages with a free Healer space are full (3 tiles) or hold 2 blues.
    spaces: dict[int, dict[str, str]] = {}
    for v in range(13):
        spaces[v] = {"H": "red"} if v % 2 else {"H": "yellow"}
    spaces[0] = {"R": "blue", "P": "blue"}
    state = position(spaces, phase="setup", to_move=1)
    document = state.to_json()
    document["placed"] = ["H", "RPYADF", "H", "H"]
    state = state.rules.state_from_json(document)
    assert state.legal_texts() == ["pass"]
    state.play_text("pass")
    assert state.to_move == 2
    assert state.to_json()["phase"] == "setup"


# Three players; blue places the last master anyone can place, with yellow still to come
# in that round and unable to place: its Firekeeper is left, and every village with a
# free Firekeeper space holds two tiles already or a yellow master.
LAST_ROUND = [
    "P@0",
    "R@8",
    "D@11",
    "H@9",
    "H@10",
    "A@3",
    "F@5",
    "P@5",
    "R@4",
    "Y@10",
    "F@7",
    "Y@8",
    "R@1",
    "A@1",
    "H@6",
    "A@7",
    "D@9",
    "P@12",
    "D@6",
    "Y@0",
]


def test_the_round_of_placements_ends_with_the_passes_of_those_who_cannot_place() -> None:
    rules = ShangrilaRules(THREE)
    state = rules.initial_state()
    for text in LAST_ROUND:
        state.play_text(text)
    assert state.to_json()["phase"] == "setup"
    assert state.to_move == 2
    assert state.legal_texts() == ["pass"]
    token = state.apply(rules.parse_move("pass"))
    assert state.to_json()["phase"] == "play"
    assert state.to_move == 0
    state.undo(token)
    assert state.to_json()["phase"] == "setup" and state.to_move == 2
    # A record with that pass replays, as one from any tool that writes it.
    state.play_text("pass")
    replayed = rules.initial_state()
    for text in [*LAST_ROUND, "pass"]:
        replayed.play_text(text)
    assert replayed.to_json() == state.to_json()
    assert replayed.to_json()["phase"] == "play" and replayed.to_move == 0
