"""An illegal table is flagged once it has stayed so for ``confirm_frames`` frames: a
reading wrong a few frames in a row, then right again, is no illegal move."""

from __future__ import annotations

import json
from pathlib import Path

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Seen, TurnDone, TypedMove
from companion.referee.journal import Journal, resume
from engines.observation import Observation
from tests.companion.referee.streams import names, only, show
from tests.companion.referee.test_referee_shendao import referee_for, table


def _wrong(referee: Referee) -> Observation:
    """Dark's tile entered while it is Light's turn."""
    return table(referee, d3="dark", gate_W3="closed")


def test_a_wrong_reading_that_goes_away_is_never_flagged() -> None:
    referee = referee_for(light="e3")
    calm = referee.expected_table()
    # believed after 3 frames, then right again before it is confirmed
    out = show(referee, _wrong(referee), times=referee.config.stable_frames + 1)
    out += show(referee, calm, times=5)
    assert "illegal_move" not in names(out)


def test_an_illegal_table_is_flagged_after_its_confirming_frames() -> None:
    referee = referee_for(light="e3")
    frames = referee.config.stable_frames + referee.config.confirm_frames
    out = show(referee, _wrong(referee), times=frames - 1)
    assert "illegal_move" not in names(out)
    assert only(show(referee, _wrong(referee), times=1), "illegal_move").rule == \
        "turn.wrong-player"


def test_done_is_answered_at_once() -> None:
    referee = referee_for(light="e3")
    show(referee, _wrong(referee), times=referee.config.stable_frames)
    assert only(referee.handle(TurnDone()), "illegal_move").rule == "turn.wrong-player"


def test_a_source_believed_at_once_flags_at_once() -> None:
    state = referee_for(light="e3").state
    referee = Referee(state.rules, state, RefereeConfig(source_frames={"sensors": 1}))
    out = referee.handle(Seen(_wrong(referee), "sensors"))
    assert only(out, "illegal_move").rule == "turn.wrong-player"


def test_a_journal_written_before_the_setting_resumes_flagging_at_once(
        tmp_path: Path) -> None:
    referee = referee_for(light="e3")
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, referee)
    journal.close()
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    del header["config"]["confirm_frames"]
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    resumed = resume(path).referee
    resumed.journal.close()
    assert resumed.referee.config.confirm_frames == 0


def test_done_waits_for_a_table_read_but_not_yet_believed() -> None:
    # The last piece went down a frame before the player said done: the believed table
    # still showed the position before, and done on it was flagged.
    referee = referee_for(light="e3")
    entered = table(referee, d3="light", gate_W3="closed")
    show(referee, entered, times=referee.config.stable_frames - 1)
    assert names(referee.handle(TurnDone())) == []
    assert only(show(referee, entered, times=1), "move_accepted").move == "W3"


def test_done_on_a_wrong_table_not_yet_believed_is_flagged_once_believed() -> None:
    referee = referee_for(light="e3")
    show(referee, _wrong(referee), times=referee.config.stable_frames - 1)
    assert names(referee.handle(TurnDone())) == []  # d3 and W3 still changing
    flag = only(show(referee, _wrong(referee), times=1), "illegal_move")
    assert flag.rule == "turn.wrong-player"


def test_a_done_waiting_is_forgotten_once_a_move_is_typed() -> None:
    referee = referee_for(light="e3")
    show(referee, _wrong(referee), times=referee.config.stable_frames - 1)
    assert names(referee.handle(TurnDone())) == []
    referee.handle(TypedMove("W3"))
    after = referee.expected_table()
    assert "illegal_move" not in names(show(referee, after, times=6))
