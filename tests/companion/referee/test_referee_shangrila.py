"""The referee on scripted Shangri-La streams: every kind of move, every rule."""

from __future__ import annotations

from typing import ClassVar

import pytest

from companion.referee.core import Referee
from companion.referee.events import Takeback, TurnDone, TypedMove
from engines.observation import Observation
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected, from_camera_above
from tests.companion.referee.streams import names, only, show, unsure
from tests.engines.shangrila.helpers import position


def referee_for(spaces: dict[int, dict[str, str]], **kwargs: object) -> Referee:
    state = position(spaces, **kwargs)  # type: ignore[arg-type]
    return Referee(state.rules, state)


def table(referee: Referee, **changes: object) -> Observation:
    """The table the referee expects now, with ``changes`` (element=value; use
    ``_4H`` style keys: ``_4H="red"``, ``_4H_h=2``, ``bridge_4_7=False``)."""
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


class TestPlacing:
    def test_a_legal_placement_is_accepted_from_above(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        out = show(referee, from_camera_above(table(referee, _4Y="red")))
        accepted = only(out, "move_accepted")
        assert (accepted.move, accepted.player, accepted.by) == ("Y@4", 0, "table")
        assert referee.state.to_move == 1

    def test_placing_where_one_has_no_master_is_flagged_with_the_fix(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        out = show(referee, table(referee, _7Y="red", _7Y_h=1))
        flag = only(out, "illegal_move")
        assert flag.rule == "place.no-master-in-village"
        assert flag.attempt.startswith("placing a red Yeti-whisperer")
        assert flag.fix == ["Take the red tile off the Yeti-whisperer space of village 7."]
        lights = only(out, "indicators").lights
        assert {(light.element, light.colour, light.pattern) for light in lights} == {
            ("7Y", "red", "blink"),
            ("7Y^", "red", "blink"),
        }

    def test_the_flag_holds_until_the_table_is_restored(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        show(referee, table(referee, _7Y="red"))
        assert show(referee, table(referee, _7Y="red")) == []  # no repeated alarm
        out = show(referee, table(referee))
        assert names(out) == ["table_restored"]
        out = show(referee, from_camera_above(table(referee, _4Y="red")))
        assert names(out) == ["move_accepted"]

    def test_a_tile_of_another_colour_is_the_wrong_player(self) -> None:
        referee = referee_for({4: {"A": "red", "H": "blue"}})
        flag = only(show(referee, table(referee, _4Y="blue")), "illegal_move")
        assert flag.rule == "turn.wrong-player"
        assert "Red's turn" in flag.message

    def test_a_tile_on_top_of_another_is_a_placement_on_a_taken_space(self) -> None:
        referee = referee_for({4: {"A": "red", "H": "blue"}})
        flag = only(show(referee, table(referee, _4H="red")), "illegal_move")
        assert flag.rule == "place.space-occupied"
        assert flag.fix == [
            "Replace the red tile(s) on the Healer space of village 4 by a blue master."
        ]

    def test_a_placement_in_a_village_with_a_stone(self) -> None:
        referee = referee_for({6: {"A": "red"}, 4: {"H": "red"}}, broken=((0, 6), (3, 6), (6, 10)))
        flag = only(show(referee, table(referee, _6Y="red")), "illegal_move")
        assert flag.rule == "village.has-stone"


class TestRecruiting:
    def test_a_recruit_seen_by_the_sensor_board_is_accepted(self) -> None:
        referee = referee_for({4: {"A": "red", "H": "red"}, 7: {"F": "red"}})
        out = show(referee, table(referee, _4A_h=2, _7F_h=2), source="sensors")
        assert only(out, "move_accepted").move == "+A4+F7"

    def test_an_invisible_recruit_is_accepted_and_the_others_kept_in_doubt(self) -> None:
        referee = referee_for({4: {"A": "red", "H": "red"}})
        assert show(referee, from_camera_above(table(referee))) == []
        accepted = only(referee.handle(TurnDone()), "move_accepted")
        assert (accepted.move, accepted.by) == ("+A4", "table")
        assert [h.moves for h in referee.belief.histories] == [["+H4"], ["+A4+H4"]]

    def test_sensor_heights_merge_with_the_camera(self) -> None:
        referee = referee_for({4: {"A": "red", "H": "red"}})
        camera = from_camera_above(table(referee))
        sensors = Observation(camera.schema, {"4A^": 2, "4H^": 1})
        show(referee, camera)
        out = show(referee, sensors, source="sensors")
        assert only(out, "move_accepted").move == "+A4"

    def test_a_student_on_an_opponents_master_is_flagged(self) -> None:
        referee = referee_for({4: {"A": "red", "H": "blue"}})
        flag = only(show(referee, table(referee, _4H_h=2), source="sensors"), "illegal_move")
        assert flag.rule == "recruit.no-own-master"
        assert flag.fix == ["Take the student off the master on the Healer space of village 4."]


class TestJourney:
    START: ClassVar[dict[int, dict[str, str]]] = {
        4: {"R": "red+", "H": "blue+", "P": "yellow", "A": "violet"},
        7: {"R": "yellow", "D": "blue"},
    }

    def test_a_journey_made_piece_by_piece_is_in_progress_then_accepted(self) -> None:
        referee = referee_for(self.START)
        out = show(referee, table(referee, bridge_4_7=False))
        assert names(out) == ["move_in_progress"]
        assert only(out, "move_in_progress").candidates == ["4>7"]
        steps = [
            dict(_4R_h=1),
            dict(_7R="empty", _7R_h=0),
            dict(_7R="red", _7R_h=1),
            dict(_4H_h=1),
            dict(_7H="blue", _7H_h=1),
        ]
        changes: dict[str, object] = {"bridge_4_7": False}
        outputs = []
        for step in steps:
            changes.update(step)
            outputs += show(referee, table(referee, **changes))
        assert "illegal_move" not in names(outputs)
        assert names(outputs)[-1] == "move_accepted"
        assert only(outputs, "move_accepted").move == "4>7"

    def test_a_student_put_on_the_wrong_space_gets_the_steps_to_finish(self) -> None:
        referee = referee_for(self.START)
        out = show(referee, table(referee, bridge_4_7=False, _4H_h=1, _7F="blue", _7F_h=1))
        flag = only(out, "illegal_move")
        assert flag.rule == "table.misplaced"
        assert "Take the blue tile off the Firekeeper space of village 7." in flag.fix
        assert "Put a blue master on the Healer space of village 7." in flag.fix

    def test_a_journey_without_a_student_of_ones_own(self) -> None:
        referee = referee_for(self.START, to_move=2)  # yellow has no student in 4
        flag = only(show(referee, table(referee, bridge_4_7=False, _4R_h=1)), "illegal_move")
        assert flag.rule == "journey.no-student"
        assert "Put the bridge between villages 4 and 7 back." in flag.fix


class TestReadings:
    def test_an_unsure_misread_is_overruled_and_reported(self) -> None:
        referee = referee_for({4: {"A": "red"}, 7: {"H": "blue"}})
        seen = from_camera_above(table(referee, _4Y="red", _7H=unsure("violet")))
        accepted = only(show(referee, seen), "move_accepted")
        assert accepted.move == "Y@4" and accepted.corrected == ["7H"]

    def test_a_sure_reading_is_never_overruled(self) -> None:
        referee = referee_for({4: {"A": "red"}, 7: {"H": "blue"}})
        out = show(referee, from_camera_above(table(referee, _4Y="red", _7H="violet")))
        assert "move_accepted" not in names(out)

    def test_a_one_frame_flicker_never_reaches_a_verdict(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        calm = from_camera_above(table(referee))
        show(referee, calm)
        out = show(referee, from_camera_above(table(referee, _7Y="blue")), times=1)
        out += show(referee, calm)
        assert out == []

    def test_a_hand_over_the_board_hides_readings_without_a_verdict(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        covered = table(referee).replace({f"{v}{d}": None for v in (3, 4, 5) for d in "RPYADHF"})
        assert show(referee, from_camera_above(covered)) == []


class TestCorrections:
    def test_a_typed_move_is_played_and_the_table_checked(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        show(referee, from_camera_above(table(referee)))
        out = referee.handle(TypedMove("Y@4"))
        assert only(out, "move_accepted").by == "typed"
        mismatch = only(out, "board_mismatch")
        assert mismatch.fix == ["Put a red master on the Yeti-whisperer space of village 4."]

    def test_an_illegal_typed_move_is_refused_with_the_rule(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        rejected = only(referee.handle(TypedMove("Y@7")), "input_rejected")
        assert "place.no-master-in-village" in rejected.reason
        assert "cannot read" in only(referee.handle(TypedMove("Y@@7")), "input_rejected").reason

    def test_takeback_expects_the_earlier_table(self) -> None:
        referee = referee_for({4: {"A": "red"}})
        show(referee, from_camera_above(table(referee, _4Y="red")))
        out = referee.handle(Takeback())
        assert only(out, "move_taken_back").move == "Y@4"
        assert only(out, "board_mismatch").fix == [
            "Take the red tile off the Yeti-whisperer space of village 4."
        ]
        assert referee.state.to_move == 0 and referee.record().moves == []
        assert names(referee.handle(Takeback())) == ["input_rejected"]


def test_the_game_over_verdict_explains_the_tie_break() -> None:
    rules = ShangrilaRules()
    broken = tuple(b for b in rules.bridges if b not in {(0, 1), (3, 4)})
    referee = referee_for({0: {"H": "red+"}, 3: {"A": "blue"}, 4: {"P": "yellow"}}, broken=broken)
    changes = {
        "bridge 0-1": False,
        "stone 0": True,
        "stone 1": True,
        "0H^": 1,
        "1H": "red",
        "1H^": 1,
    }
    out = show(referee, referee.expected_table().replace(changes))
    over = only(out, "game_over")
    assert over.scores == [2, 1, 1, 0]
    assert over.winners == [0]
    assert over.summary == "Red wins with 2."
    out = show(referee, referee.expected_table().replace({"1H": "empty", "1H^": 0}))
    assert names(out) == ["board_mismatch"]


@pytest.mark.parametrize("seed", range(3))
def test_a_random_game_shown_move_by_move_is_recognised(seed: int) -> None:
    from engines import Dice

    rules = ShangrilaRules()
    referee = Referee(rules)
    truth = rules.initial_state()
    dice = Dice(seed)
    while not truth.is_over():
        move = truth.random_move(dice)
        truth.apply(move)
        out = show(referee, expected(truth), source="sensors")
        accepted = only(out, "move_accepted")
        assert accepted.move == rules.format_move(move)
    assert referee.state.to_json() == truth.to_json()
