"""The referee's journal: every input and every verdict, one JSON line each.

Each line is written, flushed and fsync'd before its verdict is shown, so after a crash
(even ``kill -9``) ``resume`` rebuilds exactly the same game by feeding the journaled
inputs to a fresh referee and checking that it reaches the journaled verdicts.

Line 1 is the header: ``{"journal": 1, "game": ..., "players": [...], "options": {...},
"start": {...} | null, "config": {...}}``; then ``{"in": {...}}`` and ``{"out": [...]}``
lines in order.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Input, Output, input_from_json, input_to_json
from engines import GameRecord, RecordError

VERSION = 1


class JournalError(RecordError):
    """A journal that cannot be resumed as it is (the message says what was kept)."""


class Journal:
    """An open journal file that a ``JournaledReferee`` appends to."""

    def __init__(self, path: str | Path, stream: IO[str]) -> None:
        self.path = Path(path)
        self._stream = stream

    @classmethod
    def create(cls, path: str | Path, referee: Referee) -> Journal:
        """Start a new journal for ``referee``'s game. Refuses to overwrite a file."""
        path = Path(path)
        try:
            stream = path.open("x", encoding="utf-8")
        except FileExistsError:
            raise JournalError(f"{path} already exists: resume it or choose another "
                               "file") from None
        journal = cls(path, stream)
        record = referee.record()
        journal.write({"journal": VERSION, "game": record.game, "players": record.players,
                       "options": record.options, "start": record.start,
                       "config": referee.config.to_json()})
        return journal

    def write(self, line: dict[str, Any]) -> None:
        """Append one line and make it durable before returning."""
        self._stream.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._stream.flush()
        os.fsync(self._stream.fileno())

    def close(self) -> None:
        self._stream.close()


class JournaledReferee:
    """A referee whose every input and verdict goes to a journal first."""

    def __init__(self, referee: Referee, journal: Journal) -> None:
        self.referee = referee
        self.journal = journal

    def handle(self, event: Input) -> list[Output]:
        self.journal.write({"in": input_to_json(event)})
        outputs = self.referee.handle(event)
        self.journal.write({"out": [o.to_json() for o in outputs]})
        return outputs


@dataclass
class Resumed:
    """A game rebuilt from a journal."""

    referee: JournaledReferee
    inputs: int
    warnings: list[str] = field(default_factory=list)


def _referee_from_header(header: Any) -> Referee:
    if not isinstance(header, dict) or header.get("journal") != VERSION:
        raise JournalError("not a companion referee journal (version 1): bad first line")
    record = GameRecord.from_json({k: header.get(k) for k in ("game", "players", "options")}
                                  | ({"start": header["start"]} if header.get("start")
                                     else {}))
    config = dict(header.get("config") or {})
    config.setdefault("confirm_frames", 0)  # journals written before it: flags at once
    try:
        referee_config = RefereeConfig(**config)
    except TypeError:
        raise JournalError(f"unknown referee settings in the journal: {config}") from None
    return Referee(record.rules(), record.starting_state(), referee_config)


def resume(path: str | Path) -> Resumed:
    """Rebuild the game journaled in ``path`` and reopen the journal for appending.

    A truncated last line (a crash in the middle of writing it) was never shown to
    anyone: it is dropped, with a warning. A damaged line elsewhere stops the resume:
    everything before it is restored, the file is cut there, and the whole original is
    kept beside it as ``<name>.damaged``. Raises ``JournalError`` when the header itself
    is unusable.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise JournalError(f"cannot read {path}: {error}") from None
    lines = raw.split(b"\n")
    ends_clean = raw.endswith(b"\n")
    if ends_clean:
        lines.pop()
    if not lines:
        raise JournalError(f"{path} is empty: no game to resume")
    try:
        header = json.loads(lines[0])
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise JournalError(f"{path}: the first line is damaged; no game to resume") from None
    referee = _referee_from_header(header)
    warnings: list[str] = []
    kept = 1
    inputs = 0
    pending: list[dict[str, Any]] | None = None
    for number, line in enumerate(lines[1:], start=2):
        last = number == len(lines)
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or not ({"in"} == set(data) or {"out"} == set(data)):
                raise ValueError("neither an input nor a verdict")
            if "in" in data:
                event = input_from_json(referee.schema, data["in"])
                pending = [o.to_json() for o in referee.handle(event)]
                inputs += 1
            else:
                if pending is None:
                    raise ValueError("a verdict without its input")
                if _normal(pending) != _normal(data["out"]):
                    raise ValueError("the verdict differs from the one journaled")
                pending = None
        except (ValueError, RecordError, UnicodeDecodeError, TypeError) as error:
            if last and not ends_clean:
                warnings.append(f"line {number} was cut short by a crash and was never "
                                "shown; it is dropped")
            else:
                backup = path.with_name(path.name + ".damaged")
                shutil.copyfile(path, backup)
                warnings.append(f"line {number} is damaged ({error}); the game is restored "
                                f"up to line {kept}, and the original file is kept as "
                                f"{backup.name}")
            break
        kept = number
    if pending is not None:
        # The input was journaled but its verdict was not: show it again now.
        warnings.append("the last input's verdict was not journaled; it is recomputed")
    good = b"".join(line + b"\n" for line in lines[:kept])
    if good != raw:
        with path.open("wb") as out:
            out.write(good)
            out.flush()
            os.fsync(out.fileno())
    if pending is not None:
        stream = path.open("a", encoding="utf-8")
        journal = Journal(path, stream)
        journal.write({"out": pending})
    else:
        journal = Journal(path, path.open("a", encoding="utf-8"))
    return Resumed(JournaledReferee(referee, journal), inputs, warnings)


def _normal(outputs: Any) -> Any:
    """JSON-normalised form, so tuples and lists compare equal."""
    return json.loads(json.dumps(outputs))
