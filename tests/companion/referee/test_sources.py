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
