"""``companion rules replay`` and ``companion rules demo`` with ShenShi."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from engines import GameRecord, replay
from engines.shenshi import ShenshiRules
from tests.engines.shenshi.positions import position

START = position(
    ShenshiRules(["silver", "copper"]),
    blond="d4 g7 a1 a7 c1 c7 d5",
    monks={"silver": ("d4", "g7"), "copper": ("c1", "c7"), "neutral": ("a1", "a7")},
    reserves={"silver": (0, 0), "copper": (0, 0)},
).to_json()
RECORD: dict[str, Any] = {
    "game": "shenshi",
    "players": ["silver", "copper"],
    "options": {"seed": 0},
    "start": START,
    "moves": ["Gd4-d5 NMa7~b7", "Gc1~c2 Mc7~c6"],
}


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_replay_json_reports_path_tokens_as_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "replay", write(tmp_path, RECORD), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {
        "ok",
        "over",
        "to_move",
        "scores",
        "tiebreak",
        "winners",
        "legal_moves",
        "legal_count",
    }
    assert out["ok"] and not out["over"] and out["to_move"] == 0
    assert out["scores"] == [1, 1] and out["tiebreak"] is None and out["winners"] == [0, 1]
    assert "Gd5~e5 Mg7~g6" in out["legal_moves"]


def test_replay_text_shows_the_hall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "replay", write(tmp_path, RECORD)]) == 0
    out = capsys.readouterr().out
    assert "to move: silver" in out and "scores: silver 1, copper 1" in out
    assert "b:sG" in out


def test_an_illegal_turn_exits_1_with_its_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = dict(RECORD, moves=["Gd4-d5 NMa7~b7", "Gc1~c2 NMb7~a7"])
    assert main(["rules", "replay", write(tmp_path, record), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["index"] == 1 and out["rule"] == "neutral.no-return"
    assert "a7" in out["message"]


def test_an_unreadable_turn_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = dict(RECORD, moves=["Gd4-d5 NMa7~"])
    assert main(["rules", "replay", write(tmp_path, record)]) == 2
    assert "move 0" in capsys.readouterr().err


@pytest.mark.slow  # a whole game of uniform draws over up to millions of turns a move
def test_demo_plays_a_whole_game_and_writes_a_record_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "demo.json"
    assert main(["rules", "demo", "--game", "shenshi", "--seed", "2", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "A random game of shenshi for 2 players: silver, copper" in out
    assert "final scores: silver" in out and "winner" in out
    record = GameRecord.load(path)
    result = replay(record)
    assert result.error is None and result.state.is_over()
    assert result.state.winners()
