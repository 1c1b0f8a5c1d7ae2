"""Past games, from their journals in the app's data folder: a list to choose from, a
game reopened to go on playing (the journal resumed), and a game replayed move by move
(read from a copy, so looking never changes the journal)."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.app.controller import read_seats
from companion.app.gamesetup import Seat
from companion.referee.journal import JournalError, Resumed, resume, summary
from engines import GameRecord, GameState


@dataclass(frozen=True)
class PastGame:
    path: Path
    game: str
    players: tuple[str, ...]
    moves: int
    when: str
    """The journal's date and time, from its name (``game-YYYYmmdd-HHMMSS``)."""
    problem: str = ""
    """Why the journal cannot be read (shown instead of the game)."""


def list_games(folder: Path) -> list[PastGame]:
    """The journals in ``folder``, newest first; unreadable ones are listed with
    their problem."""
    if not folder.is_dir():
        return []
    return [_summary(path) for path in sorted(folder.glob("*.jsonl"), reverse=True)]


def _summary(path: Path) -> PastGame:
    when = _when(path)
    try:
        found = summary(path)
    except JournalError as error:
        return PastGame(path, "?", (), 0, when, str(error))
    return PastGame(path, found.game, found.players, found.moves, when)


def _when(path: Path) -> str:
    parts = path.stem.split("-")
    if len(parts) >= 3 and len(parts[1]) == 8 and len(parts[2]) == 6:
        d, t = parts[1], parts[2]
        return f"{d[:4]}-{d[4:6]}-{d[6:]} {t[:2]}:{t[2:4]}"
    return path.stem


def reopen(path: Path) -> tuple[Resumed, tuple[Seat, ...]]:
    """The game of ``path`` rebuilt to go on playing (the journal is appended to).
    Raises ``JournalError`` with what went wrong."""
    resumed = resume(path)
    colours = resumed.referee.referee.rules.players
    return resumed, read_seats(path, colours)


def replay_record(path: Path) -> GameRecord:
    """The game record of the journal ``path``, rebuilt from a copy (the journal is not
    touched). Raises ``JournalError``."""
    with tempfile.TemporaryDirectory(prefix="companion-replay-") as folder:
        copy = Path(folder) / path.name
        try:
            shutil.copyfile(path, copy)
        except OSError as error:
            raise JournalError(f"cannot read {path}: {error}") from None
        resumed = resume(copy)
        resumed.referee.journal.close()
        return resumed.referee.referee.record()


def positions(record: GameRecord) -> list[GameState[Any]]:
    """The position before the first move and after each move. Raises
    ``EngineError`` for a record that does not replay."""
    state = record.starting_state()
    out = [state.copy()]
    for text in record.moves:
        state.play_text(text)
        out.append(state.copy())
    return out
