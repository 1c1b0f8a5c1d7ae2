"""``companion referee``: a bad line gets a one-line message and the session goes on; a
journal that cannot be written ends it with a message, never a traceback."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from companion.cli import main
from companion.referee.journal import resume

BAD_LINES = [
    'seen {"4H": "purple"}',
    'seen {"XX": "red"}',
    "seen [1]",
    'seen {"4H": ["red"]}',
    "seen " + "[" * 5000 + "]" * 5000,
    'seen {"4H": 1' + "0" * 5000 + "}",
    'seen {"4H": NaN}',
    "seen {",
    "record {d}/nowhere/record.json",
    "record {d}",
    "record /dev/full",
    "record",
    "answer",
    "dance",
]


def session(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    status = main(["referee", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("bad", BAD_LINES)
def test_a_bad_line_is_named_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    bad = bad.replace("{d}", str(tmp_path))
    status, out, err = session(
        monkeypatch,
        capsys,
        ["move R@0", bad, "move P@0"],
        "--journal",
        str(tmp_path / "game.jsonl"),
    )
    assert status == 0
    assert "Move 1: Red plays R@0" in out and "Move 2: Blue plays P@0" in out
    assert len(err.strip().splitlines()) == 1 and err.startswith("companion: ")
    assert "Traceback" not in err
    assert resume(tmp_path / "game.jsonl").referee.referee.record().moves == ["R@0", "P@0"]


def test_a_journal_folder_that_does_not_exist_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = session(
        monkeypatch, capsys, [], "--journal", str(tmp_path / "nowhere" / "game.jsonl")
    )
    assert status == 2 and err.startswith("companion: cannot create the journal")


def test_a_journal_that_cannot_be_written_shows_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    real = os.fsync
    calls = []

    def full(fd: int) -> None:
        calls.append(fd)
        if len(calls) > 3:  # the header, its folder and the first move are on disk
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", full)
    status, out, err = session(
        monkeypatch, capsys, ["move R@0", "move P@0", "move Y@1"], "--journal", str(path)
    )
    monkeypatch.setattr(os, "fsync", real)
    assert status == 2
    assert "Move 1:" in out and "Move 2:" not in out
    assert err.startswith("companion: cannot write the journal") and "space" in err
    resumed = resume(path)
    assert resumed.referee.referee.record().moves[:1] == ["R@0"]
