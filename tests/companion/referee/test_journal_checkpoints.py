"""Checkpoints: a resume that starts from the last one reaches exactly the game a resume
feeding every input does, and goes on writing the same journal as a game never
interrupted."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from companion.referee import journal as journal_module
from companion.referee.core import Referee
from companion.referee.events import Input, Output
from companion.referee.journal import Journal, JournaledReferee, resume
from companion.simulator import TableSimulator
from companion.simulator.evaluate import BENCH_TABLE
from companion.simulator.scoring import RefereedGame
from engines.shangrila import ShangrilaRules


class Recording:
    """The benchmark's referee, recording every input it is given (the people at the
    simulated table answer questions and type corrections as in the benchmark)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.inputs: list[Input] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.referee, name)

    def handle(self, event: Input) -> list[Output]:
        self.inputs.append(event)
        return self.referee.handle(event)


def camera_game(seed: int, moves: int | None = None) -> list[Input]:
    """Every input of a game refereed from the benchmark's simulated camera (flicker 1%,
    hands, pauses, changes of mind, illegal attempts and their repair)."""
    rules = ShangrilaRules()
    table = replace(BENCH_TABLE, flicker=0.01, unsure=0.01)
    simulator = TableSimulator.random(rules, table, seed)
    recording = Recording(Referee(rules))
    game = RefereedGame(simulator, recording, time.perf_counter)  # type: ignore[arg-type]
    for step in simulator:
        game.step(step.event, step.truth)
        if moves is not None and step.truth.number > moves:
            break
    return recording.inputs


def journal_of(path: Path, inputs: list[Input]) -> JournaledReferee:
    referee = Referee(ShangrilaRules())
    runner = JournaledReferee(referee, Journal.create(path, referee))
    for event in inputs:
        runner.handle(event)
    return runner


@pytest.fixture
def often(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal_module, "CHECKPOINT_EVERY", 25)


def test_a_resume_from_a_checkpoint_goes_on_as_the_game_never_stopped(
    tmp_path: Path, often: None
) -> None:
    inputs = camera_game(seed=4, moves=12)
    whole = journal_of(tmp_path / "whole.jsonl", inputs)
    whole.journal.close()
    text = (tmp_path / "whole.jsonl").read_bytes()
    assert text.count(b'{"checkpoint":') >= 3
    for cut in (len(inputs) // 2, len(inputs) - 7):
        path = tmp_path / f"cut-{cut}.jsonl"
        journal_of(path, inputs[:cut]).journal.close()
        resumed = resume(path)
        assert resumed.warnings == [] and resumed.inputs == cut
        # as the app does: a referee of its own around the resumed journal
        runner = JournaledReferee(resumed.referee.referee, resumed.referee.journal)
        for event in inputs[cut:]:
            runner.handle(event)
        runner.journal.close()
        assert path.read_bytes() == text
        assert runner.referee.snapshot() == whole.referee.snapshot()


def test_a_checkpoint_restores_what_feeding_every_input_does(
    tmp_path: Path, often: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = camera_game(seed=6, moves=12)
    path = tmp_path / "game.jsonl"
    for cut in range(60, len(inputs), 70):
        path.unlink(missing_ok=True)
        journal_of(path, inputs[:cut]).journal.close()
        fast = resume(path)
        fast.referee.journal.close()
        with monkeypatch.context() as patched:
            patched.setattr(journal_module, "_checkpoint", lambda lines, header: None)
            slow = resume(path)
            slow.referee.journal.close()
        assert fast.referee.referee.snapshot() == slow.referee.referee.snapshot()
        assert fast.referee.referee.state == slow.referee.referee.state


def test_the_snapshot_covers_every_changing_field_of_the_referee() -> None:
    referee = Referee(ShangrilaRules())
    fixed = {"rules", "config", "start", "explainer", "schema", "_handlers"}
    assert set(vars(referee)) - fixed == Referee.SNAPSHOT_FIELDS, (
        "a new field of the referee must be in Referee.snapshot and restore, or fixed"
    )


@pytest.mark.slow
def test_a_whole_camera_game_journal_is_small_and_resumes_fast(tmp_path: Path) -> None:
    """Figures: one whole game from the benchmark's simulated camera."""
    inputs = camera_game(seed=1)
    runner = journal_of(tmp_path / "game.jsonl", inputs)
    runner.journal.close()
    assert runner.referee.state.is_over()
    size = (tmp_path / "game.jsonl").stat().st_size
    start = time.process_time()
    resumed = resume(tmp_path / "game.jsonl")
    seconds = time.process_time() - start
    assert resumed.referee.referee.record().moves == runner.referee.record().moves
    print(f"{len(inputs)} inputs, journal {size / 1e6:.2f} MB, resume {seconds:.2f} s cpu")
    assert size < 1_000_000 and seconds < 5
