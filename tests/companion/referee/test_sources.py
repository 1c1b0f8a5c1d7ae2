"""Each source keeps its own debouncing: a sensor board that debounces itself is
believed at once, the camera beside it after its steady frames."""

from __future__ import annotations

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Seen
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected


def _placed() -> tuple[Referee, Seen, Seen]:
    rules = ShangrilaRules(["red", "blue", "yellow"])
    referee = Referee(rules, config=RefereeConfig(source_frames={"sensors": 1}))
    after = rules.initial_state()
    after.play_text("H@4")
    table = expected(after)
    return referee, Seen(table, "sensors"), Seen(table, "camera")


def test_one_sensor_reading_is_enough_when_the_board_debounces_itself() -> None:
    referee, sensors, _ = _placed()
    assert [o.name for o in referee.handle(sensors)][:1] == ["move_accepted"]


def test_the_camera_still_needs_its_steady_frames() -> None:
    referee, _, camera = _placed()
    assert referee.handle(camera) == [] and referee.handle(camera) == []
    assert [o.name for o in referee.handle(camera)][:1] == ["move_accepted"]


def test_the_setting_goes_into_the_journal_form() -> None:
    config = RefereeConfig(source_frames={"sensors": 1})
    assert RefereeConfig(**config.to_json()) == config
    assert "source_frames" not in RefereeConfig().to_json()


def test_one_unsure_frame_among_sure_ones_keeps_the_value_sure() -> None:
    # A placement read surely for three frames, then once unsure just before the
    # player said done: the space read unsure, the table looked unchanged, and the
    # referee asked about invisible recruits instead of seeing the placement.
    from companion.referee.core import Debouncer
    from engines.observation import Reading

    rules = ShangrilaRules(["red", "blue", "yellow"])
    start = rules.initial_state()
    after = start.copy()
    after.play_text("H@4")
    table = expected(after)
    element = next(e for e in table if table[e] != expected(start)[e])
    debouncer = Debouncer(table.schema, 3, expected(start))
    for _ in range(3):
        debouncer.push(table)
    assert debouncer.observation()[element].confidence >= 0.9
    unsure = table.replace({element: Reading(table.value(element), 0.6)})
    debouncer.push(unsure)
    assert debouncer.observation()[element].confidence >= 0.9
    for _ in range(3):  # unsure for as long as it takes to believe a reading: unsure
        debouncer.push(unsure)
    assert debouncer.observation()[element].confidence == 0.6


def test_one_sure_frame_among_unsure_ones_does_not_make_the_value_sure() -> None:
    # A bridge misread as gone, surely once and unsure twice: believed unsure, so it
    # rules nothing out (it was believed sure and flagged as a journey).
    from companion.referee.core import Debouncer
    from engines.observation import Reading

    rules = ShangrilaRules(["red", "blue", "yellow"])
    table = expected(rules.initial_state())
    bridge = next(e for e in table if e.startswith("bridge "))
    debouncer = Debouncer(table.schema, 3, table)
    for confidence in (0.97, 0.6, 0.6):
        debouncer.push(table.replace({bridge: Reading(not table.value(bridge), confidence)}))
    believed = debouncer.observation()[bridge]
    assert believed.value is not table.value(bridge) and believed.confidence == 0.6
