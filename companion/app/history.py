"""Past games, from their journals in the app's data folder: a list to choose from
(date, game, players with their scores, the winner), a game reopened to go on playing
(the journal resumed), and a game replayed move by move (read from a copy, so looking
never changes the journal), with the strength report made at its end when there is
one (kept in ``reports/<journal's name>/``)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import tempfile
import types
import typing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.app.controller import SeatsError, read_seats
from companion.app.gamesetup import Seat
from companion.referee.journal import (
    DamagedLine,
    JournalError,
    Resumed,
    decode_line,
    resume,
    summary,
)
from engines import EngineError, GameRecord, GameState
from engines.jsontext import JSONTextError, read_json_file
from engines.search.analysis import Analysis

ANALYSIS_FILE = "analysis.json"


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
    scores: tuple[int, ...] = ()
    """Each player's score where the game stands (empty when it cannot be replayed)."""
    winners: tuple[int, ...] = ()
    over: bool = False
    names: tuple[str, ...] = ()
    """The names typed at the start, per seat (empty: the colour)."""


_RESULTS: dict[tuple[str, int, int], tuple[tuple[int, ...], tuple[int, ...], bool]] = {}
"""Scores, winners and whether it is over, per journal as it was last read (its path,
size and time), so the list is replayed once per change, not at every showing."""


def list_games(folder: Path) -> list[PastGame]:
    """The journals in ``folder``, newest first, each with its scores; unreadable ones
    are listed with their problem."""
    if not folder.is_dir():
        return []
    return [_with_result(_summary(path)) for path in sorted(folder.glob("*.jsonl"), reverse=True)]


def _with_result(past: PastGame) -> PastGame:
    """``past`` with its players' names and where the game stands; a journal that does
    not replay, or a damaged seats file, as its problem."""
    if past.problem:
        return past
    try:
        names = tuple(seat.name for seat in read_seats(past.path, past.players))
        info = past.path.stat()
        key = (str(past.path), info.st_size, info.st_mtime_ns)
        if key not in _RESULTS:
            state = positions(_moves_played(past.path))[-1]
            _RESULTS[key] = (
                tuple(state.scores()),
                tuple(state.winners()) if state.is_over() else (),
                state.is_over(),
            )
        scores, winners, over = _RESULTS[key]
    except (OSError, JournalError, EngineError, SeatsError) as error:
        return replace(past, problem=str(error))
    return replace(past, scores=scores, winners=winners, over=over, names=names)


def _moves_played(path: Path) -> GameRecord:
    """The game record of the journal ``path`` read from its header and its verdicts
    (the moves accepted less those taken back), without replaying the referee: a
    History list of many games opens at once. A journal read otherwise (an older
    version) is replayed. Raises ``JournalError`` and ``OSError``."""
    lines = path.read_bytes().split(b"\n")
    try:
        header = decode_line(lines[0])
    except DamagedLine:
        return replay_record(path)
    moves: list[str] = []
    for line in lines[1:]:
        if b'"move_' not in line:
            continue
        try:
            data = decode_line(line)
        except DamagedLine:
            break  # the journal's end is damaged: the game as far as it is whole
        for output in data.get("out") or ():
            if not isinstance(output, dict):
                continue
            number = output.get("number")
            if not isinstance(number, int) or number < 1:
                continue
            if output.get("event") == "move_accepted":
                del moves[number - 1 :]
                moves.append(str(output.get("move")))
            elif output.get("event") == "move_taken_back":
                del moves[number - 1 :]
    try:
        return GameRecord(
            str(header["game"]),
            list(header["players"]),
            dict(header.get("options") or {}),
            moves,
            header.get("start"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise JournalError(f"{path}: line 1, the header: {error}") from None


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
    try:
        return resumed, read_seats(path, colours)
    except SeatsError as error:
        resumed.referee.journal.close()
        raise JournalError(str(error)) from None


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


def report_folder(data: Path, journal: Path) -> Path:
    """Where the strength report of the game journaled in ``journal`` is kept."""
    return data / "reports" / journal.stem


def save_analysis(folder: Path, analysis: Analysis) -> None:
    """Keep ``analysis`` in ``folder`` for the History screen. Raises ``OSError``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ANALYSIS_FILE).write_text(json.dumps(analysis.to_json()), encoding="utf-8")


class AnalysisError(ValueError):
    """A strength report kept with a game that cannot be read (the message names the
    file and what in it is wrong)."""


def load_analysis(folder: Path, record: GameRecord) -> Analysis | None:
    """The analysis kept in ``folder`` when it judged exactly ``record``'s moves; None
    when there is none, or for a game gone on with since. Raises ``AnalysisError`` for
    a file that cannot be read or is not a strength report."""
    path = folder / ANALYSIS_FILE
    if not path.is_file():
        return None
    try:
        analysis: Analysis = _from_json(read_json_file(path, "the analysis"), Analysis, "")
    except (JSONTextError, AnalysisError) as error:
        raise AnalysisError(f"{path}: {error}") from None
    if [m.played for m in analysis.moves] != list(record.moves) or analysis.game != record.game:
        return None
    return analysis


def _from_json(value: Any, hint: Any, where: str) -> Any:
    """``value`` as ``Analysis.to_json`` wrote a value of type ``hint`` (a dataclass, a
    list, a dict, a number...), rebuilt: a null figure back to NaN, a level's key back
    to a number. Raises ``AnalysisError`` saying where (``summary[1].moves``) a value
    is not what it should be."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _from_json(value, inner, where)
    if hint is Any:
        return value
    if (
        hint is float
        and (value is None or isinstance(value, int | float))
        and not isinstance(value, bool)
    ):
        return math.nan if value is None else float(value)
    if (
        hint in (int, str, bool)
        and isinstance(value, hint)
        and (hint is bool or not isinstance(value, bool))
    ):
        return value
    if origin is list and isinstance(value, list):
        return [_from_json(v, args[0], f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict and isinstance(value, dict):
        if args[0] is int and not all(k.lstrip("-").isdigit() for k in value):
            raise AnalysisError(f"{where or 'the report'}: keys are not whole numbers")
        return {
            (int(k) if args[0] is int else k): _from_json(v, args[1], f"{where}.{k}")
            for k, v in value.items()
        }
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        fields = {f.name: f for f in dataclasses.fields(hint)}
        hints = typing.get_type_hints(hint)
        unknown = sorted(set(value) - set(fields))
        missing = [
            n
            for n, f in fields.items()
            if n not in value
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        ]
        if unknown or missing:
            raise AnalysisError(
                f"{where or 'the report'}: "
                + "; ".join(
                    ([f"unknown {', '.join(unknown)}"] if unknown else [])
                    + ([f"no {', '.join(missing)}"] if missing else [])
                )
            )
        return hint(
            **{n: _from_json(v, hints[n], f"{where}.{n}".lstrip(".")) for n, v in value.items()}
        )
    what = getattr(hint, "__name__", str(hint))
    article = "an" if what[:1].lower() in "aeiou" else "a"
    raise AnalysisError(
        f"{where or 'the report'}: {json.dumps(value)[:40]} is not {article} {what}"
    )
