"""``companion rules replay`` and ``companion rules demo`` from the outside."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

RECORD = {
    "game": "shangrila",
    "options": {"stones": 11},
    "players": ["red", "blue", "yellow"],
    "start": {
        "phase": "play",
        "to_move": 0,
        "spaces": {"4": {"H": "red+", "R": "blue"}, "7": {"A": "yellow"}},
        "bridges": [
            "0-1",
            "0-3",
            "0-4",
            "0-6",
            "1-5",
            "3-4",
            "3-6",
            "3-10",
            "4-5",
            "4-7",
            "5-8",
            "6-10",
            "7-8",
            "7-10",
            "7-11",
            "8-9",
            "8-12",
            "9-12",
            "10-11",
            "11-12",
        ],
        "stones": [2],
        "passes": 0,
    },
    "moves": ["4>7", "P@4", "+A7"],
}


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_replay_json_reports_the_final_position(
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
    assert out["legal_count"] == len(out["legal_moves"])
    assert out["ok"] is True and out["over"] is False
    assert out["to_move"] == 0
    assert out["scores"] == [2, 2, 1]  # red: H in 4 and 7; blue: R and P in 4
    assert out["tiebreak"] == [2, 1, 1]
    assert out["winners"] == [0]
    assert "+H4+H7" in out["legal_moves"]


def test_replay_text_shows_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "replay", write(tmp_path, RECORD)]) == 0
    out = capsys.readouterr().out
    assert "to move: red" in out and "legal moves" in out and "village" in out


def test_an_illegal_move_exits_1_with_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = dict(RECORD, moves=["4>7", "H@7"])
    assert main(["rules", "replay", write(tmp_path, record), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False
    assert (out["index"], out["move"]) == (1, "H@7")
    assert out["rule"] == "place.space-occupied"
    assert "Healer" in out["message"]


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({"game": "chess", "players": ["a", "b"], "moves": []}),
        json.dumps(dict(RECORD, moves=["4>>7"])),
        json.dumps(dict(RECORD, options={"stones": 10})),
        json.dumps(dict(RECORD, players=["red", "pink", "blue"])),
        json.dumps(dict(RECORD, moves="4>7")),
        json.dumps([1, 2]),
    ],
)
def test_malformed_input_exits_2_with_one_line(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "replay", write(tmp_path, content), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("companion: ") and captured.err.count("\n") == 1


def test_a_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "replay", "/nonexistent/game.json"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_demo_plays_a_whole_game_and_writes_a_replayable_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "demo.json"
    assert main(["rules", "demo", "--seed", "5", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    assert "final scores" in out and "winner" in out
    assert main(["rules", "replay", str(record), "--json"]) == 0
    final = json.loads(capsys.readouterr().out)
    assert final["over"] is True and final["legal_moves"] == []


def test_demo_is_the_same_for_the_same_seed(capsys: pytest.CaptureFixture[str]) -> None:
    main(["rules", "demo", "--players", "3", "--seed", "9"])
    first = capsys.readouterr().out
    main(["rules", "demo", "--players", "3", "--seed", "9"])
    assert capsys.readouterr().out == first


def test_the_console_command_is_installed() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "rules", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "replay" in done.stdout and "demo" in done.stdout


def test_moves_with_spaces_after_a_replay_are_listed_one_a_line() -> None:
    from companion.cli.rules import TURNS_SHOWN, legal_lines
    from engines import Dice, rules_class

    for game, players, plies in (
        ("shenshi", ["silver", "copper"], 4),
        ("shendao", ["light", "dark"], 0),
    ):
        rules = rules_class(game).from_record(players, {})
        state = rules.initial_state()
        dice = Dice(3)
        for _ in range(plies):
            state.play(state.random_move(dice))
        shown, count = state.legal_preview(TURNS_SHOWN)
        lines = legal_lines(state)
        assert lines[0] == f"legal moves: {count:,}, the first {TURNS_SHOWN}:"
        listed = [line.split(". ", 1)[1] for line in lines[1 : 1 + TURNS_SHOWN]]
        assert listed == shown[:TURNS_SHOWN] and any(" " in move for move in listed)
        legal = {rules.format_move(m) for m in state.legal_moves()}
        assert set(listed) <= legal
        assert lines[-1] == f"  ... and {count - TURNS_SHOWN:,} more"


def test_single_action_games_keep_one_line_of_moves() -> None:
    from companion.cli.rules import legal_lines
    from engines import rules_class

    rules = rules_class("shangrila").from_record(["red", "blue", "yellow"], {})
    (line,) = legal_lines(rules.initial_state())
    assert line.startswith("legal moves (84): R@0 P@0 ")
