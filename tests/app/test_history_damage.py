"""The History screen's list and replay on damaged journals: a problem naming the line,
never a crash, and looking never changes the journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup
from companion.app.history import list_games, reopen, replay_record
from companion.app.i18n import Translator
from companion.referee.journal import JournalError


def played(folder: Path) -> Path:
    controller = PlayController.start(GameSetup.default("shangrila"), Translator(), folder)
    for move in ("H@4", "F@7", "R@1"):
        controller.typed(move)
    assert controller.journal is not None
    controller.journal.close()
    return controller.journal.path


@pytest.mark.parametrize(
    "header",
    [
        b'{"journal":1,"players":5}',
        b'{"journal":1,"game":"shangrila","players":["red","blue","yellow"],"options":[]}',
        b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]",
        b'{"journal":1,"game":"shangrila","players":["red","blue","yellow"],"options":{},'
        b'"config":{"stable_frames":1' + b"0" * 5000 + b"}}",
        b"\xff\xfe",
    ],
)
def test_a_damaged_header_is_listed_with_its_problem(tmp_path: Path, header: bytes) -> None:
    path = tmp_path / "shangrila-20260101-120000.jsonl"
    path.write_bytes(header + b"\n")
    [game] = list_games(tmp_path)
    assert game.problem.startswith(str(path)) and "line 1" in game.problem
    with pytest.raises(JournalError, match="line 1"):
        replay_record(path)
    with pytest.raises(JournalError, match="line 1"):
        reopen(path)
    assert path.read_bytes() == header + b"\n"


def test_every_bit_of_a_header_flipped_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = played(tmp_path)
    raw = path.read_bytes()
    header = raw.index(b"\n")
    for bit in range(0, header * 8, 3):
        data = bytearray(raw)
        data[bit // 8] ^= 1 << (bit % 8)
        path.write_bytes(bytes(data))
        [game] = [g for g in list_games(tmp_path) if g.path == path]
        assert "line 1" in game.problem
    path.write_bytes(raw)
    [game] = list_games(tmp_path)
    assert game.problem == "" and game.moves == 3
    assert replay_record(path).moves == ["H@4", "F@7", "R@1"]
    assert path.read_bytes() == raw


def test_a_journal_that_does_not_replay_or_damaged_seats_are_its_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.app.history as history
    from companion.app.controller import SEATS_SUFFIX
    from engines.errors import IllegalMoveError

    path = played(tmp_path)
    seats = Path(str(path) + SEATS_SUFFIX)
    kept = seats.read_bytes()
    seats.write_bytes(b'[{"colour": "red", "name": 7}]')
    [game] = list_games(tmp_path)
    assert game.problem.startswith(f"the seats file {seats} is not a list of seats")
    with pytest.raises(JournalError, match="seats file"):
        reopen(path)
    seats.write_bytes(kept)

    def fails(*_: object) -> None:
        raise IllegalMoveError("R@1", "no student on that space")

    monkeypatch.setattr(history, "positions", fails)
    [game] = list_games(tmp_path)
    assert "no student on that space" in game.problem and not game.scores


def test_a_damaged_strength_report_is_an_error_and_a_missing_one_none(tmp_path: Path) -> None:
    from companion.app.history import ANALYSIS_FILE, AnalysisError, load_analysis

    record = replay_record(played(tmp_path))
    assert load_analysis(tmp_path, record) is None
    for text, said in (
        ("{", "not valid JSON"),
        ('{"game": "shangrila"}', "no players"),
        (
            '{"game": "shangrila", "players": [], "level_config": {}, '
            '"moves": [{"index": "x"}], "summary": [], "chances": []}',
            r"moves\[0\]: no player",
        ),
    ):
        (tmp_path / ANALYSIS_FILE).write_text(text, encoding="utf-8")
        with pytest.raises(AnalysisError, match=said):
            load_analysis(tmp_path, record)
