"""Referee fixes found by the table simulator, each on a scripted stream."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import Seen, TurnDone
from engines.observation import Observation
from engines.shangrila.observation import from_camera_above
from tests.companion.referee.streams import names, only, show
from tests.engines.shangrila.helpers import position


def referee_for(spaces: dict[int, dict[str, str]], **kwargs: object) -> Referee:
    state = position(spaces, **kwargs)  # type: ignore[arg-type]
    return Referee(state.rules, state)


def table(referee: Referee, **changes: object) -> Observation:
    """The expected table with ``changes`` (``_4H="red"``, ``_4H_h=2``,
    ``bridge_4_7=False``, as in the referee's own tests)."""
    readings = {}
    for key, value in changes.items():
        name = key.lstrip("_")
        if name.startswith("bridge_"):
            a, b = name[7:].split("_")
            name = f"bridge {a}-{b}"
        elif name.endswith("_h"):
            name = name[:-2] + "^"
        readings[name] = value
    return referee.expected_table().replace(readings)


def sensors(table: Observation) -> Observation:
    """What a sensor board reads: the stacks only."""
    return Observation(table.schema, {e: table[e] for e in table if e.endswith("^")})


def test_one_camera_frame_counts_once_beside_a_sensor_board() -> None:
    # Each input was merged and debounced as a whole, so one wrong camera frame followed
    # by a sensor frame counted twice and reached a verdict.
    referee = referee_for({4: {"A": "red"}})
    calm = referee.expected_table()
    show(referee, from_camera_above(calm))
    show(referee, sensors(calm), source="sensors")
    out = referee.handle(Seen(from_camera_above(table(referee, _7Y="blue")), "camera"))
    out += referee.handle(Seen(sensors(calm), "sensors"))
    out += show(referee, from_camera_above(calm))
    assert out == []


def test_a_two_student_recruit_made_one_student_at_a_time() -> None:
    # The first student alone is a legal recruit; the second then looked like the next
    # player's illegal recruit.
    referee = referee_for({4: {"A": "red", "H": "red"}, 7: {"F": "red"}})
    out = show(referee, sensors(table(referee, _4A_h=2)), source="sensors")
    assert only(out, "move_accepted").move == "+A4"
    out = show(referee, sensors(table(referee, _7F_h=2)), source="sensors")
    assert names(out) == ["move_taken_back", "move_accepted"]
    assert only(out, "move_accepted").move == "+A4+F7"
    assert [text for _, text in referee.history] == ["+A4+F7"]


def test_a_journey_whose_first_student_lands_like_a_placement() -> None:
    # The bridge goes last: red's Healer student lands where red could place a Healer.
    referee = referee_for({4: {"H": "red+", "R": "blue+"}, 7: {"A": "red"}})
    steps = [dict(_4H_h=1), dict(_7H="red", _7H_h=1)]
    changes: dict[str, object] = {}
    outputs = []
    for step in steps:
        changes.update(step)
        outputs += show(referee, from_camera_above(table(referee, **changes)))
    assert only(outputs, "move_accepted").move == "H@7"
    changes.update(_4R_h=1, _7R="blue", _7R_h=1)
    out = show(referee, from_camera_above(table(referee, **changes)))
    assert "illegal_move" not in names(out)
    changes["bridge_4_7"] = False
    out += show(referee, from_camera_above(table(referee, **changes)))
    assert names(out)[-1] == "move_accepted" and "move_taken_back" in names(out)
    assert [text for _, text in referee.history] == ["4>7"]


def test_the_next_players_move_does_not_revise_a_placement() -> None:
    referee = referee_for({4: {"H": "red+", "A": "blue"}, 7: {"A": "red"}})
    show(referee, from_camera_above(table(referee, _7H="red")))
    out = show(referee, from_camera_above(table(referee, _7H="red", _4P="blue")))
    assert names(out) == ["move_accepted"]
    assert [text for _, text in referee.history] == ["H@7", "P@4"]


def test_a_half_made_move_is_judged_once_the_player_is_done() -> None:
    # A red tile where red has no master, but where red's journey 4>7 would put one:
    # in progress while the player moves, illegal once they say they are done.
    referee = referee_for({4: {"Y": "red+"}, 0: {"A": "red"}})
    out = show(referee, from_camera_above(table(referee, _7Y="red")))
    assert names(out) == ["move_in_progress"]
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule == "place.no-master-in-village"


def test_done_with_nothing_moved_is_a_pass_that_is_not_allowed() -> None:
    referee = referee_for({4: {"A": "red"}})
    show(referee, referee.expected_table(), source="sensors")
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule == "pass.has-action"


def test_a_move_is_not_accepted_while_a_hand_hides_what_it_changes() -> None:
    # A hand over village 7 (the destination): the journey fits every reading left, but
    # accepting it then turned the students still to come into a false alarm.
    referee = referee_for({4: {"R": "red+", "H": "blue+"}, 7: {"A": "yellow"}})
    show(referee, from_camera_above(table(referee)))
    hand = {f"7{d}": None for d in "RPYADHF"}
    out = show(referee, from_camera_above(table(referee, bridge_4_7=False, **hand)))
    assert names(out) == ["move_in_progress"]
    out = show(referee, from_camera_above(table(referee, bridge_4_7=False, _7R="red")))
    assert "move_accepted" not in names(out) and "illegal_move" not in names(out)
    out = show(referee, from_camera_above(table(referee, bridge_4_7=False, _7R="red",
                                                _7H="blue")))
    assert only(out, "move_accepted").move == "4>7"
