"""Shendao through records and the command line: replay, demo and bench."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from engines import GameRecord, RecordError, bench, replay
from engines.shendao import ShendaoRules

GAME = {
    "game": "shendao",
    "options": {"variant": "tigre-blanc"},
    "players": ["light", "dark"],
    "moves": ["W3", "E3 tigre", "Sd", "Nd nugua d7", "Sa loung a3", "SW yinyang"],
}


def _record(tmp_path: Path, data: dict[str, object]) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_record_replays_move_by_move() -> None:
    result = replay(GameRecord.from_json(GAME))
    assert result.error is None and result.played == 6
    # W3 leaves the board; E3 stops on a3 against closed W3 (Tigre Blanc finds nothing
    # beyond); Sd stops on d4 at the wall; Nugua stops dark on d7; Sa stops on a2 and
    # Loung removes a3; SW stops on c3 and Yin-Yang swaps it with d4.
    assert result.state.to_json() == {
        "to_move": 0,
        "tiles": {"light": ["a2", "c3"], "dark": ["d4", "d7"]},
        "closed_gates": ["W3", "E3", "Sa", "Sd", "Nd", "SW"],
        "supply": {"light": 28, "dark": 27},
        "cards": {
            "light": ["brigand", "nugua", "pretresse", "tigre", "yinyang"],
            "dark": ["brigand", "loung", "pretresse"],
        },
    }


def test_replay_json_reports_scores_and_tiebreak(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = {"tiles": {"light": ["a1", "a2"], "dark": ["h1", "h2"]}, "closed_gates": ["W3"]}
    path = _record(
        tmp_path,
        {
            "game": "shendao",
            "players": ["light", "dark"],
            "options": {"variant": "chaton"},
            "moves": [],
            "start": start,
        },
    )
    assert main(["rules", "replay", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == [2, 2]
    assert out["tiebreak"] == "starter-loses"
    assert out["winners"] == [1]
    assert out["over"] is False and out["to_move"] == 0
    assert "W3" not in out["legal_moves"] and "W4" in out["legal_moves"]


def test_replay_stops_at_an_illegal_move_with_its_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = dict(GAME, moves=["W3", "E3", "W3"])
    assert main(["rules", "replay", _record(tmp_path, data), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out == {
        "ok": False,
        "index": 2,
        "move": "W3",
        "rule": "gate.closed",
        "message": out["message"],
    }
    assert out["message"].startswith("Gate W3 is closed")


def test_replay_text_shows_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "replay", _record(tmp_path, GAME)]) == 0
    out = capsys.readouterr().out
    assert "a b c d e f g h" in out and "tie-break:" in out and "moves played: 6" in out


def test_bad_options_and_players_are_record_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for change, message in [
        ({"options": {"variant": "tiger"}}, "option 'variant' must be"),
        ({"options": {"walls": True}}, "unknown Shendao options"),
        ({"options": {"brigand_passes_walls": 1}}, "must be true or false"),
        ({"players": ["light", "red"]}, "unknown player 'red'"),
        ({"players": ["light"]}, "played by 2 to 2 players"),
    ]:
        with pytest.raises(RecordError, match=message):
            GameRecord.from_json(dict(GAME, **change)).rules()
        assert main(["rules", "replay", _record(tmp_path, dict(GAME, **change))]) == 2
        assert message.split("'")[0] in capsys.readouterr().err


def test_demo_plays_a_whole_game_and_writes_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "demo.json"
    assert main(["rules", "demo", "--game", "shendao", "--seed", "4", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "A random game of shendao for 2 players: light, dark (seed 4)" in out
    assert "final scores: light" in out
    again = replay(GameRecord.load(path))
    assert again.error is None and again.state.is_over()


def test_bench_measures_random_games() -> None:
    figure = bench.random_games(ShendaoRules(), 0.2, seed=1)
    assert figure.game == "shendao" and figure.players == 2
    assert figure.games > 0 and 10 < figure.moves_per_game < 80
