"""``companion bench policies`` goes on only from a log of games played like the run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from companion.cli import UsageError
from companion.cli.bench.players import policies_command
from engines.search.bench_players import policy_game


def arguments(log: Path, **changed: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "game": "shangrila",
        "players": 3,
        "policy": "brs",
        "against": "maxn",
        "level": 1,
        "games": 1,
        "seed": 9,
        "log": log,
        "json": True,
    }
    values.update(changed)
    return argparse.Namespace(**values)


def test_a_log_of_other_settings_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    line = {"game": "shangrila", "players": 3, "policy": "paranoid", "against": "maxn"}
    line |= {"level": 1, "seed": 9, "index": 0, "seat": 0, "share": 1.0}
    log.write_text(json.dumps(line) + "\n")
    with pytest.raises(UsageError, match="other settings"):
        policies_command(arguments(log))


def test_a_finished_log_is_read_back_without_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "games.jsonl"
    lines = [
        {"game": "shangrila", "players": 3, "policy": "brs", "against": "maxn", "level": 1}
        | {"seed": 9, "index": i, "seat": i % 3, "share": share, "moves": 90, "seconds": 1.0}
        for i, share in enumerate([1.0, 0.0, 0.5])
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert policies_command(arguments(log, games=3)) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games"] == 3 and figures["first_place_share"] == 0.5
    assert figures["policy"] == "brs" and figures["equal_share"] == pytest.approx(0.333)


@pytest.mark.slow
def test_a_game_says_its_settings() -> None:
    found = policy_game("shangrila", 3, "brs", "maxn", 1, 9, 0)
    assert found["policy"] == "brs" and found["seed"] == 9 and found["seat"] == 0
    assert 0.0 <= found["share"] <= 1.0
