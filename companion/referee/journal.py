"""The referee's journal: what decides the game, one checksummed JSON line each.

Line 1 is the header: ``{"journal": 2, "game": ..., "players": [...], "options": {...},
"start": {...} | null, "config": {...}}``. Every later line holds one input and the
verdicts it gave: ``{"in": {...}, "out": [...]}``. A table reading is written as what
changed since the last reading of the same source (``null``: no longer read), so a
camera watching a still table adds a few bytes a frame, not the whole table.

Every ``CHECKPOINT_EVERY`` inputs or so, a ``{"checkpoint": ...}`` line holds the
referee's whole state, so a resume starts from the last one instead of the first input.

Every line ends with ``"crc"``, the CRC-32 of the line without it, so a damaged line,
the header included, is found and named instead of being read as something else.

A line whose input gave verdicts is forced to disk (fsync) before its verdicts are
shown; a line without verdicts is only written, since nothing depended on it yet (the
next forced line takes it to disk too). ``resume`` feeds the inputs journaled after the
last checkpoint to a referee restored from it, and checks that it reaches the journaled
verdicts. It never cuts or rewrites the journal in place: a repaired journal is written
beside it, forced to disk, then put in its place, so a crash at any moment leaves either
the old file or the new one whole.

Journals of version 1 (an ``{"in"}`` line and an ``{"out"}`` line per input, no
checksums) are still resumed; resuming one rewrites it in version 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Input, Output, Seen, input_from_json, input_to_json
from engines import EngineError, GameRecord, RecordError
from engines.jsontext import parse_json
from engines.observation import Observation, TableSchema

VERSION = 2
OLD_VERSION = 1
_CRC_HEAD = b',"crc":"'
_CRC_TAIL = len(_CRC_HEAD) + 8 + len(b'"}')
"""The bytes the checksum adds at the end of a line: ``,"crc":"89abcdef"}``."""
CHECKPOINT_EVERY = 300
"""Inputs between checkpoints: a resume feeds the referee at most about this many
(a few tenths of a second), however long the game; a checkpoint of a camera-read
Shangri-La table is some 10 KB."""
HEADER_KEYS = frozenset({"journal", "game", "players", "options", "start", "config"})


class JournalError(RecordError):
    """A journal that cannot be resumed as it is (the message says which line, and what
    was kept)."""


class DamagedLine(ValueError):
    """One journal line that cannot be read (the message says why)."""


def encode_line(data: dict[str, Any]) -> bytes:
    """One journal line: ``data`` as compact JSON with its checksum, and a newline."""
    body = json.dumps(data, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return body[:-1] + _CRC_HEAD + b"%08x" % zlib.crc32(body) + b'"}\n'


def decode_line(line: bytes) -> dict[str, Any]:
    """The object of one journal line (without its newline). Raises ``DamagedLine``
    when the checksum is missing or wrong, or the text is no JSON object."""
    if len(line) <= _CRC_TAIL or not line.endswith(b'"}') or line[-_CRC_TAIL:-10] != _CRC_HEAD:
        raise DamagedLine("its checksum is missing")
    body = line[:-_CRC_TAIL] + b"}"
    if b"%08x" % zlib.crc32(body) != line[-10:-2]:
        raise DamagedLine("its checksum does not match")
    data = parse_json(body, "the line")
    if not isinstance(data, dict):
        raise DamagedLine("not a JSON object")
    return data


def _same(a: Any, b: Any) -> bool:
    """JSON values equal in type too (``true`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@dataclass
class _Frame:
    """One input in the journal's form, with the input the referee is given (a table
    reading exactly as a resume will read it back)."""

    line: dict[str, Any]
    event: Input
    source: str = ""
    readings: dict[str, Any] = field(default_factory=dict)


class Frames:
    """Writes and reads table readings as changes against the source's last reading."""

    def __init__(self, schema: TableSchema) -> None:
        self.schema = schema
        self._readings: dict[str, dict[str, Any]] = {}
        self._observations: dict[str, Observation] = {}

    def encode(self, event: Input) -> _Frame:
        """The journal form of ``event`` (not yet taken as written: see ``commit``)."""
        if not isinstance(event, Seen):
            return _Frame(input_to_json(event), event)
        readings = event.observation.to_json()["readings"]
        last = self._readings.get(event.source, {})
        changes = {e: v for e, v in readings.items() if not _same(last.get(e), v)}
        changes.update((e, None) for e in last if e not in readings)
        return self._frame({"seen": changes, "source": event.source}, event.source, last, changes)

    def decode(self, data: Any) -> _Frame:
        """Read ``encode``'s form back. Raises ``ValueError`` / ``RecordError``."""
        if not isinstance(data, dict) or "seen" not in data:
            return _Frame(data, input_from_json(self.schema, data))
        changes, source = data.get("seen"), data.get("source")
        if (
            not isinstance(changes, dict)
            or not isinstance(source, str)
            or set(data) != {"seen", "source"}
        ):
            raise ValueError('a table reading is {"seen": {...}, "source": ...}')
        return self._frame(data, source, self._readings.get(source, {}), changes)

    def _frame(
        self, line: dict[str, Any], source: str, last: dict[str, Any], changes: dict[str, Any]
    ) -> _Frame:
        observation = self._observations.get(source)
        if changes or observation is None:
            readings = {e: v for e, v in last.items() if changes.get(e, v) is not None}
            readings.update((e, v) for e, v in changes.items() if v is not None)
            observation = Observation.from_json(self.schema, {"readings": readings})
        else:
            readings = last
        return _Frame(line, Seen(observation, source), source, readings)

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The last reading of each source, as written (``restore`` takes it back)."""
        return {source: dict(readings) for source, readings in self._readings.items()}

    def restore(self, data: Any) -> None:
        """Take back ``snapshot``'s readings. Raises ``ValueError``."""
        if not isinstance(data, dict) or not all(isinstance(r, dict) for r in data.values()):
            raise ValueError("the readings of a checkpoint are not objects")
        self._readings = {str(source): dict(r) for source, r in data.items()}
        self._observations = {}

    def commit(self, frame: _Frame) -> None:
        """Take ``frame`` as written: the next reading of its source is against it."""
        if isinstance(frame.event, Seen):
            self._readings[frame.source] = frame.readings
            self._observations[frame.source] = frame.event.observation


class Journal:
    """An open journal file that a ``JournaledReferee`` appends to."""

    def __init__(self, path: str | Path, stream: IO[bytes], schema: TableSchema) -> None:
        self.path = Path(path)
        self._stream = stream
        self.frames = Frames(schema)
        self.since = 0
        """Inputs written since the last checkpoint."""
        self._failed = ""

    @classmethod
    def create(cls, path: str | Path, referee: Referee) -> Journal:
        """Start a new journal for ``referee``'s game. Raises ``JournalError`` for a file
        that exists (never overwritten) or cannot be created."""
        path = Path(path)
        try:
            stream = path.open("xb")
        except FileExistsError:
            raise JournalError(f"{path} already exists: resume it or choose another file") from None
        except OSError as error:
            raise JournalError(
                f"cannot create the journal {path}: {error.strerror or error}"
            ) from None
        journal = cls(path, stream, referee.schema)
        journal.write(_header(referee))
        try:
            _sync_folder(path)
        except OSError as error:
            raise JournalError(
                f"cannot create the journal {path}: {error.strerror or error}"
            ) from None
        return journal

    def write(self, line: dict[str, Any], durable: bool = True) -> None:
        """Append one line; with ``durable``, it is on disk before this returns. Raises
        ``JournalError`` when the file cannot be written (a full disk): the journal then
        takes nothing more, since its last line may be cut short."""
        if self._failed:
            raise JournalError(self._failed)
        try:
            self._stream.write(encode_line(line))
            self._stream.flush()
            if durable:
                os.fsync(self._stream.fileno())
        except OSError as error:
            self._failed = (
                f"cannot write the journal {self.path}: "
                f"{error.strerror or error}; the game is kept in it up to the "
                "last verdict shown: make room, then resume it"
            )
            raise JournalError(self._failed) from None

    def close(self) -> None:
        self._stream.close()


def _header(referee: Referee) -> dict[str, Any]:
    record = referee.record()
    return {
        "journal": VERSION,
        "game": record.game,
        "players": record.players,
        "options": record.options,
        "start": record.start,
        "config": referee.config.to_json(),
    }


class JournaledReferee:
    """A referee whose every input and verdict goes to a journal before it is shown.

    After every ``CHECKPOINT_EVERY`` inputs, at the first one after which the referee
    can say its whole state (``Referee.snapshot``), the journal takes a checkpoint
    line, ``{"checkpoint": {"referee": ..., "readings": ...}}``: a resume starts from
    the last one and feeds the referee only the inputs after it."""

    def __init__(self, referee: Referee, journal: Journal) -> None:
        self.referee = referee
        self.journal = journal

    def handle(self, event: Input) -> list[Output]:
        journal = self.journal
        frame = journal.frames.encode(event)
        outputs = self.referee.handle(frame.event)
        journal.write(
            {"in": frame.line, "out": [o.to_json() for o in outputs]}, durable=bool(outputs)
        )
        journal.frames.commit(frame)
        journal.since += 1
        if journal.since >= CHECKPOINT_EVERY:
            snapshot = self.referee.snapshot()
            if snapshot is not None:
                journal.write(
                    {"checkpoint": {"referee": snapshot, "readings": journal.frames.snapshot()}},
                    durable=False,
                )
                journal.since = 0
        return outputs


@dataclass
class Resumed:
    """A game rebuilt from a journal."""

    referee: JournaledReferee
    inputs: int
    warnings: list[str] = field(default_factory=list)


def _config(data: Any, version: int) -> RefereeConfig:
    """The referee settings of a header. Raises ``ValueError`` for anything else."""
    if not isinstance(data, dict):
        raise ValueError("the referee settings are not an object")
    data = dict(data)
    if version == OLD_VERSION:
        data.setdefault("confirm_frames", 0)  # written before it: flags at once
    unknown = set(data) - {
        "sure",
        "stable_frames",
        "confirm_frames",
        "source_frames",
        "parts",
        "unseen",
    }
    if unknown:
        raise ValueError(f"unknown referee settings {sorted(unknown)}")
    sure = data.get("sure", RefereeConfig.sure)
    if type(sure) not in (int, float) or not 0 < sure <= 1:
        raise ValueError(f"sure is {sure!r}, not a number in (0, 1]")
    counts = {
        k: data.get(k, getattr(RefereeConfig, k)) for k in ("stable_frames", "confirm_frames")
    }
    sources = data.get("source_frames", {})
    if not isinstance(sources, dict):
        raise ValueError("source_frames is not an object")
    for name, count in [*counts.items(), *sources.items()]:
        if (
            type(count) is not int
            or not 0 <= count <= 1000
            or (count == 0 and name != "confirm_frames")
        ):
            raise ValueError(f"{name} is {count!r}, not a count of frames")
    parts = data.get("parts", False)
    if type(parts) is not bool:
        raise ValueError(f"parts is {parts!r}, not true or false")
    unseen = data.get("unseen", False)
    if type(unseen) is not bool:
        raise ValueError(f"unseen is {unseen!r}, not true or false")
    return RefereeConfig(
        float(sure),
        counts["stable_frames"],
        dict(sources),
        counts["confirm_frames"],
        parts,
        unseen,
    )


def _referee_from_header(header: dict[str, Any]) -> tuple[Referee, int]:
    """A fresh referee for the header's game, and the journal's version. Raises
    ``ValueError`` / ``EngineError`` for a header that is not one."""
    version = header.get("journal")
    if type(version) is not int or version not in (VERSION, OLD_VERSION):
        raise ValueError("not a companion referee journal (version 1 or 2)")
    unknown = set(header) - HEADER_KEYS
    if unknown or (version == VERSION and set(header) != HEADER_KEYS):
        raise ValueError(f"unexpected header fields {sorted(set(header) ^ HEADER_KEYS)}")
    start = header.get("start")
    record = GameRecord.from_json(
        {k: header.get(k) for k in ("game", "players", "options")}
        | ({"start": start} if start is not None else {})
    )
    config = _config(header.get("config", {}), version)
    return Referee(record.rules(), record.starting_state(), config), version


def _normal(outputs: Any) -> Any:
    """JSON-normalised form, so tuples and lists compare equal."""
    return json.loads(json.dumps(outputs))


LINE_ERRORS = (
    ValueError,
    EngineError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    RecursionError,
)
"""What reading a damaged line can raise, down to the referee given a garbled input."""


def _load_header(path: Path, lines: list[bytes]) -> tuple[dict[str, Any], Referee, int]:
    """The header of a journal, a fresh referee for it, and the journal's version."""
    if not lines or not lines[0]:
        raise JournalError(f"{path}: line 1, the header, is missing; no game to resume")
    try:
        try:
            header = decode_line(lines[0])
        except DamagedLine:
            header = parse_json(lines[0], "the line")  # version 1 had no checksums
            if not isinstance(header, dict) or "journal" not in header:
                raise ValueError("not a companion referee journal") from None
            if header.get("journal") != OLD_VERSION:
                raise
        return (header, *_referee_from_header(header))
    except LINE_ERRORS as error:
        raise JournalError(
            f"{path}: line 1, the header, is damaged ({error}); no game "
            "to resume, and the file is left as it is"
        ) from None


def _checkpoint(lines: list[bytes], header: dict[str, Any]) -> tuple[int, Referee, Frames] | None:
    """The last checkpoint among ``lines`` that comes before any damaged line and
    restores: its index, and the referee and readings restored from it."""
    checkpoints = []
    for index, line in enumerate(lines[1:], start=1):
        if not _checksum_holds(line):
            break
        if line.startswith(b'{"checkpoint":'):
            checkpoints.append(index)
    for index in reversed(checkpoints):
        try:
            data = decode_line(lines[index])["checkpoint"]
            referee, _ = _referee_from_header(header)
            referee.restore(data["referee"])
            frames = Frames(referee.schema)
            frames.restore(data["readings"])
        except LINE_ERRORS:
            continue
        return index, referee, frames
    return None


def _checksum_holds(line: bytes) -> bool:
    return (
        len(line) > _CRC_TAIL
        and line[-_CRC_TAIL:-10] == _CRC_HEAD
        and b"%08x" % zlib.crc32(line[:-_CRC_TAIL] + b"}") == line[-10:-2]
    )


def resume(path: str | Path) -> Resumed:
    """Rebuild the game journaled in ``path`` and reopen the journal for appending.

    A last line cut short (a crash in the middle of writing it) was never shown to
    anyone: it is dropped, with a warning. A damaged line elsewhere stops the resume:
    everything before it is restored, and the whole original is kept beside the journal
    as ``<name>.damaged`` (``.damaged-2``, ... when that exists: none is overwritten).
    Raises ``JournalError``, naming the line, when the header is unusable; then the
    file is not touched.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise JournalError(f"cannot read {path}: {error.strerror or error}") from None
    lines = raw.split(b"\n")
    ends_clean = lines[-1] == b""
    if ends_clean:
        lines.pop()
    header, referee, version = _load_header(path, lines)
    frames = Frames(referee.schema)
    kept: list[bytes] = [lines[0] if version == VERSION else encode_line(_header(referee))[:-1]]
    start = 1
    found = _checkpoint(lines, header) if version == VERSION else None
    if found is not None:
        start, referee, frames = found
        kept += lines[1 : start + 1]
        start += 1
    warnings: list[str] = []
    damaged: tuple[int, str] | None = None
    replay = (
        _replay_old(lines, referee, frames, kept)
        if version == OLD_VERSION
        else _replay(lines, start, referee, frames, kept)
    )
    for number, problem in replay:
        if problem == "pending":
            warnings.append("the last input's verdict was not journaled; it is recomputed")
        elif number == len(lines) and not ends_clean:
            warnings.append(
                f"line {number} was cut short by a crash and was never shown; it is dropped"
            )
        else:
            damaged = (number, problem)
    is_input = [not line.startswith(b'{"checkpoint":') for line in kept[1:]]
    inputs = sum(is_input)
    since = is_input[::-1].index(False) if False in is_input else len(is_input)
    good = b"".join(line + b"\n" for line in kept)
    if damaged is not None:
        backup = _keep_aside(path, raw)
        number, problem = damaged
        warnings.append(
            f"line {number} is damaged ({problem}); the game is restored up to "
            f"line {len(kept)}, and the original file is kept as "
            f"{backup.name}"
        )
    if good != raw:
        _replace(path, good)
    else:
        with contextlib.suppress(OSError):  # a repair a crash interrupted: not needed
            path.with_name(path.name + ".repair").unlink(missing_ok=True)
    try:
        stream = path.open("ab")
    except OSError as error:
        raise JournalError(f"cannot append to {path}: {error.strerror or error}") from None
    journal = Journal(path, stream, referee.schema)
    journal.frames = frames
    journal.since = since
    return Resumed(JournaledReferee(referee, journal), inputs, warnings)


def _replay(
    lines: list[bytes], start: int, referee: Referee, frames: Frames, kept: list[bytes]
) -> Iterator[tuple[int, str]]:
    """Feed version 2 lines from ``lines[start]`` on to ``referee``, adding each to
    ``kept``; at the first line that does not replay, yield its number and why, and
    stop. Checkpoints on the way are only checked to be whole."""
    for number, line in enumerate(lines[start:], start=start + 1):
        try:
            data = decode_line(line)
            if set(data) == {"checkpoint"}:
                kept.append(line)
                continue
            if set(data) != {"in", "out"}:
                raise DamagedLine("not an input and its verdicts")
            frame = frames.decode(data["in"])
            outputs = [o.to_json() for o in referee.handle(frame.event)]
            if _normal(outputs) != _normal(data["out"]):
                raise DamagedLine("the verdicts differ from the ones journaled")
        except LINE_ERRORS as error:
            yield number, str(error) or type(error).__name__
            return
        frames.commit(frame)
        kept.append(line)


def _replay_old(
    lines: list[bytes], referee: Referee, frames: Frames, kept: list[bytes]
) -> Iterator[tuple[int, str]]:
    """``_replay`` for version 1 lines (an input line, then a verdict line), keeping
    each input with its verdicts as a version 2 line. An input whose verdict line is
    missing is kept with the verdicts it gives now (yielded as ``pending`` at the end)."""
    pending: tuple[_Frame, list[dict[str, Any]]] | None = None
    number = 1
    for number, line in enumerate(lines[1:], start=2):
        try:
            data = parse_json(line, "the line")
            if not isinstance(data, dict) or set(data) not in ({"in"}, {"out"}):
                raise DamagedLine("neither an input nor a verdict")
            if "in" in data:
                if pending is not None:
                    raise DamagedLine("an input without its verdict")
                event = input_from_json(referee.schema, data["in"])
                frame = frames.encode(event)
                pending = (frame, [o.to_json() for o in referee.handle(frame.event)])
                continue
            if pending is None:
                raise DamagedLine("a verdict without its input")
            if _normal(pending[1]) != _normal(data["out"]):
                raise DamagedLine("the verdict differs from the one journaled")
        except LINE_ERRORS as error:
            if pending is not None:  # the input before the damage stays, as it replays
                _keep_old(pending, frames, kept)
            yield number, str(error) or type(error).__name__
            return
        _keep_old(pending, frames, kept)
        pending = None
    if pending is not None:
        _keep_old(pending, frames, kept)
        yield number, "pending"


def _keep_old(
    pending: tuple[_Frame, list[dict[str, Any]]], frames: Frames, kept: list[bytes]
) -> None:
    frame, outputs = pending
    frames.commit(frame)
    kept.append(encode_line({"in": frame.line, "out": outputs})[:-1])


def _keep_aside(path: Path, raw: bytes) -> Path:
    """Write ``raw`` (the original journal) beside ``path`` under a new name."""
    n = 1
    while True:
        backup = path.with_name(path.name + (".damaged" if n == 1 else f".damaged-{n}"))
        try:
            with backup.open("xb") as out:
                out.write(raw)
                out.flush()
                os.fsync(out.fileno())
            return backup
        except FileExistsError:
            n += 1
        except OSError as error:
            raise JournalError(
                f"cannot keep the damaged journal beside {path}: "
                f"{error.strerror or error}; nothing was changed"
            ) from None


def _replace(path: Path, content: bytes) -> None:
    """Put ``content`` in place of ``path``: written beside it, forced to disk, then
    renamed over it, so the file is at every moment either the old one or the new."""
    aside = path.with_name(path.name + ".repair")
    try:
        with aside.open("wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.replace(aside, path)
        _sync_folder(path)
    except OSError as error:
        raise JournalError(
            f"cannot repair {path}: {error.strerror or error}; the journal is left as it was"
        ) from None


@dataclass(frozen=True)
class Summary:
    """What a journal's header and verdicts say, read without replaying the game."""

    game: str
    players: tuple[str, ...]
    moves: int
    """Moves accepted less moves taken back, up to the first damaged line."""


def summary(path: str | Path) -> Summary:
    """The game, players and moves of the journal ``path``. Raises ``JournalError``
    naming the line when the header is unusable."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise JournalError(f"cannot read {path}: {error.strerror or error}") from None
    lines = raw.split(b"\n")
    _, referee, version = _load_header(path, lines)
    moves = 0
    for line in lines[1:]:
        if b'"move_' not in line:  # no move accepted nor taken back: no need to read it
            continue
        try:
            data = decode_line(line) if version == VERSION else parse_json(line)
        except ValueError:
            break
        outputs = data.get("out") if isinstance(data, dict) else None
        for output in outputs if isinstance(outputs, list) else ():
            event = output.get("event") if isinstance(output, dict) else None
            moves += (event == "move_accepted") - (event == "move_taken_back")
    return Summary(referee.rules.game, tuple(referee.rules.players), moves)


def _sync_folder(path: Path) -> None:
    """Force the folder's list of names to disk, so ``path`` is found after a power
    failure under the name it has now."""
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
