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
    assert only(show(referee, _wrong(referee), times=1), "illegal_move").rule == "turn.wrong-player"


def test_done_is_answered_at_once_on_a_table_read_so_for_one_more_frame() -> None:
    referee = referee_for(light="e3")
    show(referee, _wrong(referee), times=referee.config.stable_frames + 1)
    assert only(referee.handle(TurnDone()), "illegal_move").rule == "turn.wrong-player"


def test_done_on_a_table_believed_just_now_waits_one_frame() -> None:
    # three frames read so may be a misreading three frames long: the flag comes once
    # the table has read so one frame more (a reading wrong three frames in a row,
    # then right again, is no illegal move, done or not)
    referee = referee_for(light="e3")
    show(referee, _wrong(referee), times=referee.config.stable_frames)
    assert names(referee.handle(TurnDone())) == []
    assert only(show(referee, _wrong(referee), times=1), "illegal_move").rule == "turn.wrong-player"


def test_a_source_believed_at_once_flags_at_once() -> None:
    state = referee_for(light="e3").state
    referee = Referee(state.rules, state, RefereeConfig(source_frames={"sensors": 1}))
    out = referee.handle(Seen(_wrong(referee), "sensors"))
    assert only(out, "illegal_move").rule == "turn.wrong-player"


def test_a_journal_written_before_the_setting_resumes_flagging_at_once(tmp_path: Path) -> None:
    referee = referee_for(light="e3")
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, referee)
    journal.close()
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])  # as version 1 wrote it: no checksum, no setting
    del header["config"]["confirm_frames"], header["crc"]
    header["journal"] = 1
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


def test_done_on_a_wrong_table_not_yet_believed_is_flagged_at_once() -> None:
    # the pieces as last read make no legal move either: nothing to wait for
    referee = referee_for(light="e3")
    show(referee, _wrong(referee), times=referee.config.stable_frames - 1)
    assert only(referee.handle(TurnDone()), "illegal_move").rule == "turn.wrong-player"


def test_done_does_not_wait_for_a_reading_going_back_to_the_position_before() -> None:
    # An illegal tile believed, then read once as the empty square it was (a flicker,
    # or the player taking it back): done flags what is believed once it reads so.
    from engines.observation import Reading

    referee = referee_for(light="e3")
    wrong = _wrong(referee)
    show(referee, wrong, times=referee.config.stable_frames)
    back = wrong.replace({"d3": Reading("empty", 0.97)})
    referee.handle(Seen(back, "camera"))
    # it waits for the tile to read as believed for a few frames (a whole window of
    # them), not for the empty square to be believed
    assert names(referee.handle(TurnDone())) == []
    frames = referee.config.stable_frames + 1
    out = show(referee, wrong, times=frames)
    assert only(out, "illegal_move").rule == "turn.wrong-player"


def test_a_done_waiting_is_forgotten_once_a_move_is_typed() -> None:
    referee = referee_for(light="e3")
    entered = table(referee, d3="light", gate_W3="closed")
    show(referee, entered, times=referee.config.stable_frames - 1)
    assert names(referee.handle(TurnDone())) == []  # waits for the entry to be believed
    referee.handle(TypedMove("W3"))
    assert "illegal_move" not in names(show(referee, referee.expected_table(), times=6))


def test_an_illegal_table_is_flagged_while_other_readings_change() -> None:
    # At 5% flicker some reading elsewhere changes what is believed on nearly every
    # frame; the frames that changed something else did not count, and the flag never
    # came.
    from engines.observation import Reading

    referee = referee_for(light="e3")
    wrong = _wrong(referee)
    squares = ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "b1", "b2", "b3", "b4"]
    out = []
    for frame in range(10):  # square j read unsure on frames j to j+3: from the fourth
        # frame on, a belief changes on every frame
        unsure = wrong.replace(
            {
                square: Reading(wrong.value(square), 0.6)
                for j, square in enumerate(squares)
                if j <= frame < j + 4
            }
        )
        out += referee.handle(Seen(unsure, "camera"))
    assert only(out, "illegal_move").rule == "turn.wrong-player"
