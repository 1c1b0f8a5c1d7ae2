"""A damaged journal: every cut and every flipped bit, the header's included, is either
a journal error naming the line or a resume of the same game up to the damage; a repair
never leaves the journal partial, and no damaged original is ever overwritten."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.app.history import list_games
from companion.referee import journal as journal_module
from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Seen, TurnDone
from companion.referee.journal import (
    Journal,
    JournaledReferee,
    JournalError,
    encode_line,
    resume,
    summary,
)
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected, from_camera_above
from tests.companion.referee.test_journal import game_inputs, run

CONFIG = RefereeConfig(stable_frames=3, confirm_frames=2)
EVERY = journal_module.CHECKPOINT_EVERY


@pytest.fixture(autouse=True)
def checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checkpoints every few inputs, so that damage reaches them too."""
    monkeypatch.setattr(journal_module, "CHECKPOINT_EVERY", 12)


def journal(path: Path, moves: int = 8, seed: int = 11) -> tuple[bytes, list[str]]:
    """A closed journal of a camera-refereed game; its bytes and its moves."""
    referee = Referee(ShangrilaRules(), config=CONFIG)
    runner = JournaledReferee(referee, Journal.create(path, referee))
    for event in game_inputs(seed, moves):
        for _ in range(2):  # four frames of each table: believed after three
            runner.handle(event)
    runner.journal.close()
    return path.read_bytes(), referee.record().moves


def check_outcome(path: Path, moves: list[str], damaged: bool) -> str:
    """Resume a damaged copy: a journal error naming the line, or the game with its
    settings, its moves a prefix of the original's (a warning naming the line when the
    damage cost anything). Returns which."""
    try:
        summary(path)
        resumed = resume(path)
    except JournalError as error:
        assert re.search(r"line \d+", str(error)), str(error)
        return "error"
    referee = resumed.referee.referee
    resumed.referee.journal.close()
    assert referee.config == CONFIG
    got = referee.record().moves
    assert got == moves[: len(got)]
    if damaged and got != moves:
        assert any(re.search(r"line \d+", w) for w in resumed.warnings), resumed.warnings
    return "resumed"


def damaged_copies(
    raw: bytes, folder: Path, cuts: list[int], flips: list[int]
) -> Iterator[tuple[Path, bool]]:
    for n, cut in enumerate(cuts):
        path = folder / f"cut-{n}.jsonl"
        path.write_bytes(raw[:cut])
        # a cut between lines, or only of the last newline, costs no line
        yield path, b"\n" not in (raw[cut - 1 : cut], raw[cut : cut + 1])
    for n, bit in enumerate(flips):
        data = bytearray(raw)
        data[bit // 8] ^= 1 << (bit % 8)
        path = folder / f"flip-{n}.jsonl"
        path.write_bytes(bytes(data))
        yield path, True


def sweep(tmp_path: Path, cuts: int, flips: int, seed: int, header_step: int) -> dict[str, int]:
    """Resume copies of a journal cut at every line end, at ``cuts`` random bytes and
    every ``header_step``-th byte of the header, and with ``flips`` random bits flipped
    and every ``header_step``-th bit of the header; the outcomes, counted."""
    raw, moves = journal(tmp_path / "game.jsonl")
    assert raw.count(b'{"checkpoint":') >= 2
    rng = np.random.default_rng(seed)
    header = raw.index(b"\n") + 1
    ends = [i + 1 for i, b in enumerate(raw) if b == ord("\n")]
    cut_at = sorted(
        set(ends)
        | {int(c) for c in rng.integers(0, len(raw), cuts)}
        | set(range(0, header + 1, header_step))
    )
    flip_at = sorted(
        {int(b) for b in rng.integers(header * 8, len(raw) * 8, flips)}
        | set(range(0, header * 8, header_step))
    )
    outcomes = {"cuts": len(cut_at), "flips": len(flip_at), "error": 0, "resumed": 0}
    for path, damaged in damaged_copies(raw, tmp_path, cut_at, flip_at):
        outcomes[check_outcome(path, moves, damaged)] += 1
    assert len(list_games(tmp_path)) == len(cut_at) + len(flip_at) + 1  # none raises
    return outcomes


def test_cuts_and_bit_flips_never_change_the_game(tmp_path: Path) -> None:
    outcomes = sweep(tmp_path, cuts=30, flips=30, seed=1, header_step=5)
    assert outcomes["error"] > 0 and outcomes["resumed"] > 0


@pytest.mark.slow
def test_cuts_and_bit_flips_never_change_the_game_wider(tmp_path: Path) -> None:
    totals: dict[str, int] = {}
    for seed in (2, 3):
        folder = tmp_path / str(seed)
        folder.mkdir()
        for key, count in sweep(folder, cuts=300, flips=300, seed=seed, header_step=1).items():
            totals[key] = totals.get(key, 0) + count
    print(f"journal damage: {totals}")


def test_a_changed_setting_in_the_header_is_named_not_played(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    raw, _ = journal(path)
    flipped = raw.replace(b'"stable_frames":3', b'"stable_frames":2', 1)
    assert flipped != raw
    path.write_bytes(flipped)
    with pytest.raises(JournalError, match="line 1, the header, is damaged"):
        resume(path)
    assert path.read_bytes() == flipped  # left as it is
    [game] = list_games(tmp_path)
    assert "line 1" in game.problem


@pytest.mark.parametrize(
    "header",
    [
        {"journal": 1, "game": "shangrila", "players": "red", "options": {}},
        {
            "journal": 1,
            "game": "shangrila",
            "players": ["red", "blue", "green"],
            "options": {},
            "config": {"stable_frames": "3"},
        },
        {
            "journal": 1,
            "game": "shangrila",
            "players": ["red", "blue", "green"],
            "options": [],
            "config": None,
        },
        {"journal": 1, "game": ["shangrila"], "players": [], "options": {}},
        {"journal": True, "game": "shangrila"},
    ],
)
def test_a_malformed_old_header_is_a_journal_error(tmp_path: Path, header: dict[str, Any]) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(header) + "\n")
    with pytest.raises(JournalError, match="line 1"):
        resume(path)
    [game] = list_games(tmp_path)
    assert "line 1" in game.problem


def test_a_deeply_nested_line_is_damage_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    raw, moves = journal(path)
    path.write_bytes(
        raw + encode_line({"in": {"seen": json.loads("[" * 60 + "]" * 60)}, "out": []})
    )
    resumed = resume(path)
    assert "damaged" in resumed.warnings[0]
    assert resumed.referee.referee.record().moves == moves


def test_every_damaged_original_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    raw, _ = journal(path)
    lines = raw.split(b"\n")
    first = b"\n".join([*lines[:10], b"garbage", *lines[11:]])
    path.write_bytes(first)
    resume(path).referee.journal.close()
    second = path.read_bytes() + b"more garbage\n" + lines[12] + b"\n"
    path.write_bytes(second)
    resumed = resume(path)
    resumed.referee.journal.close()
    assert (tmp_path / "game.jsonl.damaged").read_bytes() == first
    assert (tmp_path / "game.jsonl.damaged-2").read_bytes() == second
    assert "game.jsonl.damaged-2" in resumed.warnings[0]


class Crash(BaseException):
    """The process dies here (raised by the patched file-system calls)."""


def crash_at(monkeypatch: pytest.MonkeyPatch, step: int) -> list[str]:
    """Patch writes to files, fsync and rename so that the ``step``-th of them crashes
    the resume; the steps taken, by name."""
    steps: list[str] = []

    def tick(name: str) -> None:
        steps.append(name)
        if len(steps) == step:
            raise Crash(name)

    real_open, real_fsync, real_replace = Path.open, os.fsync, os.replace

    class Writer:
        def __init__(self, stream: Any) -> None:
            self._stream = stream

        def write(self, data: bytes) -> int:
            # half the data reaches the file, then the process dies
            if len(steps) + 1 == step:
                self._stream.write(data[: len(data) // 2])
                self._stream.flush()
            tick("write")
            return int(self._stream.write(data))

        def __enter__(self) -> Writer:
            return self

        def __exit__(self, *exc: object) -> None:
            self._stream.close()

        def __getattr__(self, name: str) -> Any:
            return getattr(self._stream, name)

    def open_(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        stream = real_open(self, mode, *args, **kwargs)
        return Writer(stream) if any(c in mode for c in "wxa") else stream

    def fsync(fd: int) -> None:
        tick("fsync")
        real_fsync(fd)

    def replace(a: Any, b: Any) -> None:
        tick("replace")
        real_replace(a, b)

    monkeypatch.setattr(Path, "open", open_)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return steps


@pytest.mark.parametrize("damage", ["cut", "damaged"])
def test_a_crash_at_any_step_of_a_repair_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    raw, moves = journal(tmp_path / "game.jsonl")
    lines = raw.split(b"\n")
    if damage == "cut":  # the last line cut short: nothing journaled before it is lost
        broken, lost = raw[:-30], 0
    else:  # the second last line damaged: every move before it is kept
        broken, lost = b"\n".join([*lines[:-3], b"xx", lines[-2], b""]), 1
    step = 1
    while True:
        path = tmp_path / f"{damage}-{step}.jsonl"
        path.write_bytes(broken)
        with monkeypatch.context() as patched:
            steps = crash_at(patched, step)
            try:
                resume(path).referee.journal.close()
                crashed = False
            except Crash:
                crashed = True
        (path.parent / (path.name + ".repair")).unlink(missing_ok=True)
        again = resume(path)
        again.referee.journal.close()
        got = again.referee.referee.record().moves
        whole = [m for m in moves]
        assert got == whole[: len(got)] and len(got) >= len(whole) - lost - 1, (step, steps)
        if not crashed:
            break
        step += 1
    assert step > 3  # the repair took several steps, each one crashed once


def test_a_still_table_adds_little_and_forces_nothing_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal_module, "CHECKPOINT_EVERY", EVERY)
    path = tmp_path / "game.jsonl"
    referee = Referee(ShangrilaRules(), config=CONFIG)
    runner = JournaledReferee(referee, Journal.create(path, referee))
    size = path.stat().st_size
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    still = Seen(from_camera_above(expected(referee.state)))
    for _ in range(200):
        assert runner.handle(still) == []
    assert (path.stat().st_size - size) / 200 < 80
    assert synced == []
    runner.handle(TurnDone())  # a verdict: on disk before it is shown
    assert len(synced) == 1
    runner.journal.close()
    assert resume(path).inputs == 201


def test_an_old_journal_is_resumed_and_rewritten_in_the_new_form(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    inputs = game_inputs(seed=4, moves=6)
    whole = run(tmp_path / "whole.jsonl", inputs)
    whole.journal.close()
    referee = Referee(ShangrilaRules(), config=RefereeConfig(confirm_frames=0))
    from companion.referee.events import input_to_json

    lines = [
        {
            "journal": 1,
            "game": "shangrila",
            "players": referee.rules.players,
            "options": referee.rules.options_json(),
            "start": None,
            "config": {"sure": 0.9, "stable_frames": 3},
        }
    ]
    for event in inputs:
        lines.append({"in": input_to_json(event)})
        lines.append({"out": [o.to_json() for o in referee.handle(event)]})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines[:-1]))
    resumed = resume(path)
    resumed.referee.journal.close()
    assert resumed.warnings == ["the last input's verdict was not journaled; it is recomputed"]
    assert resumed.referee.referee.record().moves == referee.record().moves
    assert resumed.inputs == len(inputs)
    again = resume(path)  # now in the new form, with checksums
    assert again.warnings == [] and again.referee.referee.config.confirm_frames == 0
    assert again.referee.referee.record().moves == referee.record().moves
