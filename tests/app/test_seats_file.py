"""The seats file beside a game's journal is read through the guarded JSON reader:
without one, the game has plain colours; a damaged one is an error that names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.controller import SEATS_SUFFIX, SeatsError, read_seats, write_seats
from companion.app.gamesetup import Seat

COLOURS = ("red", "blue", "yellow", "violet")


@pytest.mark.parametrize(
    "data",
    [
        b"[" * 100_000,
        b'[{"colour": "red", "level": ' + b"9" * 10_000 + b"}]",
        b"\xff\xfe",
        b"[NaN]",
        b'["red"]',
        b"{}",
        b'[{"colour": "red", "level": "3"}]',
        b'[{"colour": "red"}, {"colour": "blue"}]',
    ],
)
def test_a_damaged_seats_file_is_an_error_naming_it(tmp_path: Path, data: bytes) -> None:
    journal = tmp_path / "game.journal"
    Path(str(journal) + SEATS_SUFFIX).write_bytes(data)
    with pytest.raises(SeatsError, match="seats file"):
        read_seats(journal, COLOURS)


def test_without_a_seats_file_the_seats_are_plain_colours(tmp_path: Path) -> None:
    journal = tmp_path / "game.journal"
    assert read_seats(journal, COLOURS) == tuple(Seat(c) for c in COLOURS)
    seats = (
        Seat("red", "Ann"),
        Seat("blue", engine=True, level=3),
        Seat("yellow"),
        Seat("violet", "Bo"),
    )
    write_seats(journal, seats)
    assert read_seats(journal, COLOURS) == seats
