"""The multiplayer search policies: max^n, paranoid and best reply, and their match command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from engines.dice import Dice
from engines.search import MCTS, SearchConfig
from engines.search.mcts import POLICIES
from engines.shangrila import ShangrilaRules
from tests.engines.search.test_mcts import winning_journey_position


def test_an_unknown_policy_is_refused() -> None:
    assert POLICIES == ("maxn", "paranoid", "brs")
    with pytest.raises(ValueError, match="unknown search policy"):
        SearchConfig(iterations=10, policy="best-reply")


def test_with_two_players_paranoid_is_max_n() -> None:
    state = winning_journey_position()
    found = [MCTS(SearchConfig(iterations=150, seed=4, policy=p)).search(state) for p in POLICIES]  # type: ignore[arg-type]
    assert [(s.move, s.visits) for s in found[0].stats] == [
        (s.move, s.visits) for s in found[1].stats
    ]


def test_paranoid_searches_another_tree_with_three_players() -> None:
    rules = ShangrilaRules.from_record(ShangrilaRules.default_players(3), {})
    state = rules.initial_state()
    dice = Dice(1)
    for _ in range(109):  # random moves to a late position of two legal moves
        state.play(state.random_move(dice))
    assert len(state.legal_moves()) == 2
    found = [
        MCTS(SearchConfig(iterations=300, rollout_moves=3, seed=2, policy=p)).search(state)
        for p in POLICIES
    ]
    assert all(r.best in state.legal_moves() for r in found)
    assert found[0].values != found[1].values


@pytest.mark.slow
def test_the_match_command_keeps_its_games_and_gives_an_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "games.jsonl"
    args = [
        "bench",
        "policies",
        "--game",
        "shangrila",
        "--players",
        "3",
        "--level",
        "1",
        "--games",
        "1",
        "--log",
        str(log),
        "--json",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["games"] == 1 and first["equal_share"] == pytest.approx(0.333)
    low, high = first["interval"]
    assert 0 <= low <= first["first_place_share"] <= high <= 1
    args[args.index("--games") + 1] = "2"
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert len(log.read_text().splitlines()) == 2
