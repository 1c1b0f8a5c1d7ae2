"""What the command line prints is words: no raw ``None``, ``True``/``False`` or Python
list (``[8, 9, 6, 8]``) in ``companion rules demo`` or ``companion referee`` for any
game, and moves are counted from 1."""

from __future__ import annotations

import io
import re

import pytest

from companion.cli import main

RAW = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\[\d+(, \d+)+\]|\['")
"""Python's own words for values, and its lists."""


# A whole ShenShi game lists its legal turns at every move: it runs with -m slow.
@pytest.mark.parametrize(
    "game", ["shangrila", "shendao", pytest.param("shenshi", marks=pytest.mark.slow)]
)
def test_rules_demo_prints_words(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "demo", "--game", game, "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert not RAW.search(text), RAW.search(text)
    assert re.search(r"^\s*1\. ", text, re.MULTILINE)  # the first move is move 1
    assert not re.search(r"^\s*0\. ", text, re.MULTILINE)


def test_the_referee_prints_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        "move H@4",
        'seen {"4H": "empty", "7A": "violet"}',
        "done",
        "move Z@9",
        "takeback",
        "quit",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["referee", "--game", "shangrila"]) == 0
    text = capsys.readouterr().out
    assert "Move 1: Red plays H@4" in text and "Move 0" not in text
    # who did what, then the rule with its id
    assert "Illegal move: Blue passed.\n  Blue cannot pass" in text
    assert "[pass.has-action]" in text
    assert not RAW.search(text), RAW.search(text)
