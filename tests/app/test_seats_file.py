"""The seats file beside a game's journal is read through the guarded JSON reader:
whatever it holds, reopening the game falls back to plain colours."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.controller import SEATS_SUFFIX, read_seats
from companion.app.gamesetup import Seat

COLOURS = ("red", "blue", "yellow", "violet")


@pytest.mark.parametrize("data", [
    b"[" * 100_000, b'[{"colour": "red", "level": ' + b"9" * 10_000 + b"}]",
    b"\xff\xfe", b"[NaN]", b'["red"]', b"{}",
])
def test_a_damaged_seats_file_gives_plain_colours(tmp_path: Path, data: bytes) -> None:
    journal = tmp_path / "game.journal"
    Path(str(journal) + SEATS_SUFFIX).write_bytes(data)
    assert read_seats(journal, COLOURS) == tuple(Seat(c) for c in COLOURS)
