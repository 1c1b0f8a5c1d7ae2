"""``kill -9`` at random moments, while a game is refereed and while a journal is being
resumed: no move shown to the players is ever lost, and no damaged original either."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from companion.referee.core import Referee
from companion.referee.events import Seen
from companion.referee.journal import Journal, JournaledReferee, resume
from engines.shangrila import ShangrilaRules
from tests.companion.referee.test_journal import game_inputs

COMMAND = [sys.executable, "-m", "companion.cli", "referee"]
ENV = dict(os.environ, PYTHONUNBUFFERED="1")


def typed_lines(moves: int, seed: int) -> list[str]:
    """A game for ``companion referee``'s input: each table read four times (the
    referee believes it after three), ``done`` after a move the table cannot show."""
    lines = []
    for event in game_inputs(seed, moves):
        if isinstance(event, Seen):
            readings = json.dumps(event.observation.to_json()["readings"])
            lines += [f"seen {readings}"] * 2
        else:
            lines.append("done")
    return lines


def shown_moves(out: list[str]) -> dict[int, str]:
    """The moves the players were last shown, by number, from ``companion referee``'s
    output (a move taken back is no longer shown)."""
    moves: dict[int, str] = {}
    for line in out:
        if not line.startswith("Move "):
            continue
        number = int(line.split()[1].rstrip(":"))
        for later in [n for n in moves if n >= number]:
            del moves[later]
        if " plays " in line:
            moves[number] = line.split(" plays ")[1].split()[0].rstrip(".")
    return moves


def run_killed(args: list[str], stdin: str, after: float, lines: int = 0) -> tuple[list[str], bool]:
    """Run ``companion referee`` on ``stdin`` and ``kill -9`` it ``after`` seconds after
    it printed ``lines`` lines; the lines it printed, and whether it was killed before
    it ended."""
    process = subprocess.Popen(
        [*COMMAND, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    assert process.stdin is not None and process.stdout is not None
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(process.stdout or []))
    reader.start()

    def feed() -> None:
        try:
            assert process.stdin is not None
            process.stdin.write(stdin)
            process.stdin.close()
        except (BrokenPipeError, OSError):
            pass  # killed while being fed

    feeder = threading.Thread(target=feed)
    feeder.start()
    while len(out) < lines and process.poll() is None:
        time.sleep(0.001)
    try:
        process.wait(timeout=after)
        killed = False
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        killed = True
    feeder.join()
    reader.join()
    return out, killed


def kill_during_play(folder: Path, kills: int, seed: int, moves: int = 60) -> int:
    """Referee a game in a process killed at a random moment, resume it in another
    killed at a random moment, and so on; every move ever shown is kept. The kills that
    came before the process ended."""
    rng = np.random.default_rng(seed)
    lines = typed_lines(moves, seed)
    path = folder / "game.jsonl"
    done, killed_count = 0, 0
    shown: dict[int, str] = {}
    for _ in range(kills):
        args = ["--resume", str(path)] if path.exists() else ["--journal", str(path)]
        out, killed = run_killed(
            args,
            "".join(f"{line}\n" for line in lines[done:]),
            after=float(rng.uniform(0, 0.05)),
            lines=int(rng.integers(18, 40)),
        )
        killed_count += killed
        for number in [n for n in shown if n >= min(shown_moves(out), default=1 << 30)]:
            del shown[number]
        shown.update(shown_moves(out))
        kept = resume(path)
        kept.referee.journal.close()
        moves = kept.referee.referee.record().moves
        assert {n: moves[n - 1] if n <= len(moves) else None for n in shown} == shown, (
            f"a move shown is lost: shown {shown}, kept {moves}"
        )
        done = kept.inputs  # the inputs taken; the rest go to the next run
    return killed_count


def test_kill_9_during_play_loses_no_move_shown(tmp_path: Path) -> None:
    assert kill_during_play(tmp_path, kills=2, seed=1, moves=30) >= 1


@pytest.mark.slow
def test_kill_9_during_play_loses_no_move_shown_wider(tmp_path: Path) -> None:
    killed = 0
    for seed in range(2, 8):
        folder = tmp_path / str(seed)
        folder.mkdir()
        killed += kill_during_play(folder, kills=5, seed=seed)
    print(f"kill -9 during play: {killed} kills, no move shown lost")
    assert killed >= 20


def journal_to_repair(path: Path, seed: int, damaged: bool, moves: int) -> tuple[list[str], bytes]:
    """A journal needing repair: its last line cut short (or, ``damaged``, a line near
    the end damaged); the moves a resume must keep, and the bytes."""
    referee = Referee(ShangrilaRules())
    runner = JournaledReferee(referee, Journal.create(path, referee))
    before_last: list[str] = []  # the moves shown before the last input's outputs
    for event in game_inputs(seed, moves):
        for _ in range(2):
            before_last = referee.record().moves
            runner.handle(event)
    runner.journal.close()
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    if damaged:
        raw = b"\n".join([*lines[:-12], b'{"in": garbage}', *lines[-11:]])
        path.write_bytes(raw)
        check = path.with_name("check.jsonl")
        check.write_bytes(raw)
        kept = resume(check)
        kept.referee.journal.close()
        return kept.referee.referee.record().moves, raw
    raw = raw[:-25]  # the last input, cut short: its outputs were never shown
    path.write_bytes(raw)
    return before_last, raw


def kill_during_resume(folder: Path, kills: int, seed: int, damaged: bool, moves: int = 80) -> int:
    """Resume a journal needing repair in processes killed at random moments; after
    each kill a resume still gives every move, and the damaged original is kept whole.
    The kills that came before the process ended."""
    rng = np.random.default_rng(seed)
    path = folder / "game.jsonl"
    played, original = journal_to_repair(path, seed, damaged, moves)
    timing = folder / "timing.jsonl"
    timing.write_bytes(original)
    start = time.perf_counter()
    run_killed(["--resume", str(timing)], "", after=120)
    whole = time.perf_counter() - start  # a resume that is not killed
    killed = 0
    for trial in range(kills):
        if trial % 2 == 0:  # from the journal needing repair; otherwise from what is left
            path.write_bytes(original)
        killed += run_killed(
            ["--resume", str(path)], "", after=float(rng.uniform(0.3, 1.0)) * whole
        )[1]
        for copy in folder.glob("game.jsonl.damaged*"):
            assert copy.read_bytes() == original, "a damaged original was changed"
        probe = folder / "probe.jsonl"
        probe.write_bytes(path.read_bytes())
        kept = resume(probe)
        kept.referee.journal.close()
        assert kept.referee.referee.record().moves == played, "a journaled move is lost"
    return killed


def test_kill_9_during_resume_loses_nothing(tmp_path: Path) -> None:
    kill_during_resume(tmp_path, kills=2, seed=1, damaged=False, moves=30)


@pytest.mark.slow
@pytest.mark.parametrize("damaged", [False, True])
def test_kill_9_during_resume_loses_nothing_wider(tmp_path: Path, damaged: bool) -> None:
    killed = 0
    for seed in range(2, 6):
        folder = tmp_path / str(seed)
        folder.mkdir()
        killed += kill_during_resume(folder, kills=8, seed=seed, damaged=damaged)
    print(
        f"kill -9 during resume ({'damaged line' if damaged else 'last line cut'}): "
        f"{killed} of 32 runs killed before they ended, no move lost"
    )
    assert killed >= 8
