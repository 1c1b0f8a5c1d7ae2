"""The journal: a resumed game equals the uninterrupted one; damage loses nothing
journaled before it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.referee.core import Referee
from companion.referee.events import Input, Seen, TurnDone, TypedMove
from companion.referee.journal import Journal, JournaledReferee, JournalError, resume
from engines import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected, from_camera_above


def game_inputs(seed: int, moves: int) -> list[Input]:
    """Camera frames (twice each) of a random game, with 'done' for invisible moves."""
    rules = ShangrilaRules()
    truth = rules.initial_state()
    dice = Dice(seed)
    inputs: list[Input] = []
    for _ in range(moves):
        if truth.is_over():
            break
        before = expected(truth)
        truth.apply(truth.random_move(dice))
        seen = from_camera_above(expected(truth))
        inputs += [Seen(seen), Seen(seen)]
        if from_camera_above(before) == seen:
            inputs.append(TurnDone())
    return inputs


def run(path: Path, inputs: list[Input]) -> JournaledReferee:
    referee = Referee(ShangrilaRules())
    runner = JournaledReferee(referee, Journal.create(path, referee))
    for event in inputs:
        runner.handle(event)
    return runner


def test_a_resumed_journal_equals_the_uninterrupted_game(tmp_path: Path) -> None:
    inputs = game_inputs(seed=3, moves=60)
    whole = run(tmp_path / "whole.jsonl", inputs)
    half = run(tmp_path / "half.jsonl", inputs[: len(inputs) // 2])
    half.journal.close()
    resumed = resume(tmp_path / "half.jsonl")
    assert resumed.warnings == []
    for event in inputs[len(inputs) // 2 :]:
        resumed.referee.handle(event)
    assert resumed.referee.referee.state.to_json() == whole.referee.state.to_json()
    assert resumed.referee.referee.record().moves == whole.referee.record().moves
    whole.journal.close()
    resumed.referee.journal.close()
    assert (tmp_path / "half.jsonl").read_text() == (tmp_path / "whole.jsonl").read_text()


def test_a_line_cut_short_by_a_crash_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    runner = run(path, game_inputs(seed=4, moves=10))
    runner.journal.close()
    moves = runner.referee.record().moves
    with path.open("a") as out:
        out.write('{"in": {"seen": {"0R": "re')
    resumed = resume(path)
    assert resumed.referee.referee.record().moves == moves
    assert "cut short" in resumed.warnings[0]
    assert path.read_text().endswith("\n")


def test_a_damaged_line_keeps_everything_before_it(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    inputs = game_inputs(seed=5, moves=12)
    runner = run(path, inputs)
    runner.journal.close()
    lines = path.read_text().splitlines()
    damaged_at = 20  # line 1 is the header, then one line per input
    lines[damaged_at - 1] = '{"in": {"seen": {"0R": "green"}}}'
    path.write_text("\n".join(lines) + "\n")
    resumed = resume(path)
    assert "line 20 is damaged" in resumed.warnings[0]
    assert (tmp_path / "game.jsonl.damaged").exists()
    assert len(path.read_text().splitlines()) == damaged_at - 1
    # the inputs before the damage, given to a fresh referee, give the same game
    fresh = run(tmp_path / "fresh.jsonl", inputs[: damaged_at - 2])
    assert resumed.referee.referee.state.to_json() == fresh.referee.state.to_json()


def test_a_journal_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    run(path, []).journal.close()
    with pytest.raises(JournalError, match="already exists"):
        run(path, [])


@pytest.mark.parametrize(
    "content",
    ["", "not json\n", '{"journal": 7}\n', '{"journal": 1, "game": "chess", "players": []}\n'],
)
def test_an_unusable_journal_is_refused_clearly(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(Exception) as caught:
        resume(path)
    assert type(caught.value).__name__ in ("JournalError", "RecordError")


def test_kill_9_mid_game_then_resume_rebuilds_the_same_game(tmp_path: Path) -> None:
    """A real crash: the referee process is killed while it is being fed."""
    path = tmp_path / "game.jsonl"
    inputs = [TypedMove(m) for m in ("R@0", "P@0", "Y@1", "A@1", "D@2", "H@2")]
    script = "\n".join(f"move {e.move}" for e in inputs) + "\n"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "referee", "--journal", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(script)
    process.stdin.flush()
    seen = []
    while len(seen) < 6:
        line = process.stdout.readline()
        if line.startswith("Move "):
            seen.append(line)
    process.kill()  # SIGKILL: no clean-up runs
    process.wait()
    time.sleep(0.05)
    resumed = resume(path)
    assert resumed.referee.referee.record().moves == [e.move for e in inputs]
