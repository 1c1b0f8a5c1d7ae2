"""The referee's belief: a move the table shows several ways is kept in doubt, settled by
later tables (a journey, a slanted view, a card that can no longer be played), asked
about only when the game needs it, and journaled so that a resume equals the game."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.referee.core import Referee
from companion.referee.events import Answer, Output, Seen, TurnDone
from companion.referee.journal import Journal, JournaledReferee, resume
from companion.referee.words import say
from companion.simulator import TableSimulator, referee_game
from companion.simulator.evaluate import BENCH_TABLE
from engines.observation import Observation
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected as shangrila_table
from engines.shangrila.observation import from_camera_above
from engines.shendao.observation import expected as shendao_table
from tests.companion.referee.streams import names, only
from tests.engines.shangrila.helpers import FOUR
from tests.engines.shangrila.helpers import position as shangrila_position
from tests.engines.shendao.helpers import position as shendao_position

OTHERS = {9: {"R": "blue", "P": "yellow", "Y": "violet"}}
"""Masters that let the other players place in village 9 while red's students wait."""


class Table:
    """A game played for real (``truth``) before a referee, shown as ``view`` shows it;
    done is said after a move that leaves the view as it was."""

    def __init__(self, truth: Any, view: Callable[[Any], Observation]) -> None:
        self.truth = truth
        self.view = view
        self.referee = Referee(truth.rules, truth)
        self.handle: Callable[[Any], list[Output]] = self.referee.handle
        """What takes the inputs: the referee, or a journal in front of it."""
        self.played: list[str] = []

    def show(self, observation: Observation) -> list[Output]:
        config = self.referee.config
        out: list[Output] = []
        for _ in range(config.stable_frames + config.confirm_frames):
            out += self.handle(Seen(observation, "camera"))
        return out

    def play(self, text: str) -> list[Output]:
        before = self.view(self.truth)
        self.truth.play_text(text)
        self.played.append(self.truth.rules.format_move(self.truth.rules.parse_move(text)))
        now = self.view(self.truth)
        out = self.show(now)
        if now == before:
            out += self.handle(TurnDone())
        return out

    def record(self) -> list[str]:
        return [text for _, text in self.referee.history]


def above(state: Any) -> Observation:
    return from_camera_above(shangrila_table(state))


def recruit_seen_from_above() -> Table:
    """Red recruits onto the Healer of village 4, seen from above: the referee shows
    the Astrologer, and keeps the Healer and both in doubt."""
    table = Table(shangrila_position({4: {"A": "red", "H": "red"}, **OTHERS}), above)
    assert only(table.play("+H4"), "move_accepted").move == "+A4"
    assert [h.moves for h in table.referee.belief.histories] == [["+H4"], ["+A4+H4"]]
    return table


def test_a_hidden_recruit_is_settled_by_a_later_journey() -> None:
    table = recruit_seen_from_above()
    for text in ("A@9", "D@9", "H@9"):  # the others place; nothing settles the doubt
        assert only(table.play(text), "move_accepted").move == text
    assert len(table.referee.belief.histories) == 2
    out = table.play("4>7")  # the student arrives on the Healer space of village 7
    corrected = only(out, "move_corrected")
    assert (corrected.number, corrected.was, corrected.now) == (1, "+A4", "+H4")
    assert "Healer space of village 4" in corrected.words
    assert say(corrected, table.truth.rules.players) == corrected.words
    assert only(out, "move_accepted").move == "4>7"
    assert "illegal_move" not in names(out) and "question" not in names(out)
    assert table.record() == table.played
    assert table.referee.state == table.truth
    assert not table.referee.belief  # the journey told every history apart


def test_a_hidden_recruit_is_settled_by_a_slanted_view() -> None:
    table = recruit_seen_from_above()
    assert only(table.play("A@9"), "move_accepted").move == "A@9"
    # the camera moves to 55 degrees: it sees both stacks of village 4 from the side
    slanted = above(table.truth).replace({"4A^": 1, "4H^": 2})
    out = table.show(slanted)
    corrected = only(out, "move_corrected")
    assert (corrected.was, corrected.now) == ("+A4", "+H4")
    assert "illegal_move" not in names(out)
    assert table.record() == table.played and not table.referee.belief


def test_a_doubt_the_result_does_not_depend_on_is_not_asked_at_the_end() -> None:
    # Red's student is in doubt when the last stone is placed: students do not score.
    # (two bridges left, 1-5 and 4-7: the journey over 1-5 places the last two stones)
    standing = ((1, 5), (4, 7))
    start = shangrila_position(
        {4: {"A": "red", "H": "red"}, 5: {"R": "blue+"}, **OTHERS},
        broken=tuple(b for b in ShangrilaRules(FOUR).bridges if b not in standing),
    )
    table = Table(start, above)
    assert only(table.play("+H4"), "move_accepted").move == "+A4"
    out = table.play("5>1")
    assert table.truth.is_over() and table.referee.state.is_over()
    assert "question" not in names(out) and only(out, "game_over")
    assert table.referee.belief  # still in doubt: the record keeps the likelier


def test_a_doubt_is_asked_before_a_move_too_wide_to_follow() -> None:
    # Red's doubt is still open when blue recruits onto one of six masters seen from
    # above: the oldest doubt is asked first, then the new recruit.
    spaces = {
        4: {"A": "red", "H": "red"},
        9: {"R": "blue", "P": "blue", "Y": "blue", "A": "yellow", "D": "violet"},
        10: {"R": "blue", "P": "blue", "Y": "blue"},
    }
    table = Table(shangrila_position(spaces), above)
    assert only(table.play("+H4"), "move_accepted").move == "+A4"
    out = table.play("+R9")
    question = only(out, "question")
    assert (question.about, question.candidates) == (1, ["+A4", "+H4", "+A4+H4"])
    assert [c.elements for c in question.choices] == [["4A^"], ["4H^"], ["4A^", "4H^"]]
    out = table.referee.handle(Answer("+H4"))
    assert only(out, "move_corrected").now == "+H4"
    asked = only(out, "question")  # blue's recruit fits too many ways: asked at once
    assert asked.about == 0 and "+R9" in asked.candidates
    accepted = only(table.referee.handle(Answer("+R9")), "move_accepted")
    assert accepted.move == "+R9"
    assert table.record() == table.played and not table.referee.belief


def shendao_view(state: Any) -> Observation:
    return shendao_table(state)


def test_a_shendao_card_is_inferred_when_it_can_no_longer_be_played() -> None:
    # Tigre Blanc destroys the stopping tile, Loung may remove that same tile: the
    # referee shows the Loung. When light plays the Loung later, on a tile no Tigre
    # could destroy, it was the Tigre.
    table = Table(shendao_position(dark="e3 c6"), shendao_view)
    assert only(table.play("W3 tigre"), "move_accepted").move == "W3 loung e3"
    assert [h.moves for h in table.referee.belief.histories] == [["W3 tigre"]]
    assert only(table.play("W5"), "move_accepted").move == "W5"
    out = table.play("Sd loung d5")
    corrected = only(out, "move_corrected")
    assert (corrected.number, corrected.was, corrected.now) == (1, "W3 loung e3", "W3 tigre")
    assert only(out, "move_accepted").move == "Sd loung d5"
    assert "illegal_move" not in names(out)
    assert table.record() == table.played


def test_a_resumed_journal_with_an_open_belief_equals_the_uninterrupted_game(
    tmp_path: Path,
) -> None:
    def journaled(path: Path, moves: list[str]) -> tuple[JournaledReferee, Table]:
        table = Table(shangrila_position({4: {"A": "red", "H": "red"}, **OTHERS}), above)
        runner = JournaledReferee(table.referee, Journal.create(path, table.referee))
        table.handle = runner.handle
        for text in moves:
            table.play(text)
        return runner, table

    moves = ["+H4", "A@9", "D@9", "H@9", "4>7"]
    whole, _ = journaled(tmp_path / "whole.jsonl", moves)
    half, _ = journaled(tmp_path / "half.jsonl", moves[:2])
    assert half.referee.belief  # the doubt is open when the game stops
    half.journal.close()
    resumed = resume(tmp_path / "half.jsonl")
    assert resumed.warnings == []
    assert resumed.referee.referee.belief.to_json() == half.referee.belief.to_json()
    table = Table(shangrila_position({4: {"A": "red", "H": "red"}, **OTHERS}), above)
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


@pytest.mark.slow
def test_a_whole_game_seen_from_above_corrects_several_moves_at_once() -> None:
    # This game ends up with a history that differs from the record in two recruits:
    # each correction is said from the position before it in its own history.
    rules = ShangrilaRules(FOUR)
    config = replace(BENCH_TABLE, flicker=0.01, unsure=0.01)
    score = referee_game(TableSimulator.random(rules, config, 5), Referee(rules))
    assert score.corrections >= 1
    assert score.record_right >= 0.99 * score.moves
