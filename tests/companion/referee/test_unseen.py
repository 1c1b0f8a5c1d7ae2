"""A recruit seen from above written as the likeliest and kept open
(``RefereeConfig.unseen``): settled by a later journey or a slanted view, never asked
about when nothing needs it, asked about when a verdict depends on it and no way the
referee searched explains the table, and journaled so that a resume equals the game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.referee import core
from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Answer, Output, TurnDone
from companion.referee.journal import Journal, JournaledReferee, resume
from engines.observation import Observation
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected as shangrila_table
from engines.shangrila.observation import from_camera_above
from tests.companion.referee.streams import names, only
from tests.companion.referee.test_belief import OTHERS, Table
from tests.engines.shangrila.helpers import FOUR
from tests.engines.shangrila.helpers import position as shangrila_position

UNSEEN = RefereeConfig(unseen=True)
START = {4: {"A": "red", "H": "red"}, **OTHERS}


def above(state: Any) -> Observation:
    return from_camera_above(shangrila_table(state))


class UnseenTable(Table):
    """``Table`` before a referee that keeps unseen recruits open."""

    def __init__(self, truth: Any, view: Callable[[Any], Observation]) -> None:
        super().__init__(truth, view)
        self.referee = Referee(truth.rules, truth, UNSEEN)
        self.handle = self.referee.handle

    def play(self, text: str) -> list[Output]:
        out = super().play(text)
        if not {"move_accepted", "question"} & set(names(out)):
            out += self.handle(TurnDone())
        return out


def recruit_seen_from_above() -> UnseenTable:
    """Red recruits onto the Healer of village 4, seen from above: the referee writes
    the likeliest way without asking, and keeps the others open."""
    table = UnseenTable(shangrila_position(START), above)
    out = table.play("+H4")
    assert "question" not in names(out)
    assert only(out, "move_accepted").move == "+A4"
    unseen = table.referee.unseen
    assert unseen is not None
    assert {t for t, _ in unseen.candidates(0)} == {"+A4", "+H4", "+A4+H4"}
    return table


def test_a_recruit_kept_open_is_settled_by_a_later_journey() -> None:
    table = recruit_seen_from_above()
    for text in ("A@9", "D@9", "H@9"):  # the others place; nothing settles it
        assert only(table.play(text), "move_accepted").move == text
    out = table.play("4>7")  # the student arrives on the Healer space of village 7
    corrected = only(out, "move_corrected")
    assert (corrected.number, corrected.was, corrected.now) == (1, "+A4", "+H4")
    assert "illegal_move" not in names(out) and "question" not in names(out)
    assert table.record() == table.played
    assert table.referee.state == table.truth


def test_a_recruit_kept_open_is_settled_by_a_slanted_view() -> None:
    table = recruit_seen_from_above()
    assert only(table.play("A@9"), "move_accepted").move == "A@9"
    slanted = above(table.truth).replace({"4A^": 1, "4H^": 2})
    out = table.show(slanted)
    corrected = only(out, "move_corrected")
    assert (corrected.was, corrected.now) == ("+A4", "+H4")
    assert "illegal_move" not in names(out) and "question" not in names(out)
    assert table.record() == table.played


def test_a_recruit_never_settled_is_never_asked_and_shown_unsure() -> None:
    # the last stone is placed while red's student is open: students do not score
    standing = ((1, 5), (4, 7))
    start = shangrila_position(
        {4: {"A": "red", "H": "red"}, 5: {"R": "blue+"}, **OTHERS},
        broken=tuple(b for b in ShangrilaRules(FOUR).bridges if b not in standing),
    )
    table = UnseenTable(start, above)
    assert only(table.play("+H4"), "move_accepted").move == "+A4"
    out = table.play("5>1")
    assert table.truth.is_over() and table.referee.state.is_over()
    assert "question" not in names(out) and only(out, "game_over")
    assert table.referee.unsure() == {1: "a student onto a master in village 4; not seen"}


def test_a_recruit_is_asked_about_when_the_verdict_depends_on_it_and_no_way_found_fits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(core, "MOST_FITS", 0)  # the referee searches no village's contents
    table = recruit_seen_from_above()
    for text in ("A@9", "D@9", "H@9"):
        table.play(text)
    out = table.play("4>7")
    question = only(out, "question")
    assert question.about == 1 and "+H4" in question.candidates
    assert "illegal_move" not in names(out)
    out = table.handle(Answer("+H4"))
    assert only(out, "move_corrected").now == "+H4"
    assert only(out, "move_accepted").move == "4>7"
    assert table.record() == table.played


def test_a_resumed_journal_with_a_recruit_open_equals_the_uninterrupted_game(
    tmp_path: Path,
) -> None:
    def journaled(path: Path, moves: list[str]) -> tuple[JournaledReferee, UnseenTable]:
        table = UnseenTable(shangrila_position(START), above)
        runner = JournaledReferee(table.referee, Journal.create(path, table.referee))
        table.handle = runner.handle
        for text in moves:
            table.play(text)
        return runner, table

    moves = ["+H4", "A@9", "D@9", "H@9", "4>7"]
    whole, _ = journaled(tmp_path / "whole.jsonl", moves)
    half, _ = journaled(tmp_path / "half.jsonl", moves[:2])
    assert half.referee.unseen  # the recruit is open when the game stops
    half.journal.close()
    resumed = resume(tmp_path / "half.jsonl")
    assert resumed.warnings == []
    resumed_unseen, half_unseen = resumed.referee.referee.unseen, half.referee.unseen
    assert resumed_unseen is not None and half_unseen is not None
    assert resumed_unseen.to_json() == half_unseen.to_json()
    table = UnseenTable(shangrila_position(START), above)
    for text in moves[:2]:
        table.truth.play_text(text)
    table.referee, table.handle = resumed.referee.referee, resumed.referee.handle
    for text in moves[2:]:
        table.play(text)
    assert table.record() == whole.referee.record().moves == moves
    assert table.referee.snapshot() == whole.referee.snapshot()
    whole.journal.close()
    resumed.referee.journal.close()
    assert (tmp_path / "half.jsonl").read_text() == (tmp_path / "whole.jsonl").read_text()
