"""Gaps on a simulated table: moves made while a cable is out, the camera paused or a
hand held over the board, then the table seen again; and the benchmark's count."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from companion.cli import main
from companion.referee.events import Seen
from companion.simulator import TableConfig, TableSimulator, random_game, referee_game
from companion.simulator.evaluate import BENCH_TABLE
from engines.shangrila import ShangrilaRules
from engines.shendao import ShendaoRules
from engines.shenshi import ShenshiRules

OPENING = 24
"""Moves of a random Shangri-La game played here (placements, then a few recruits)."""


def simulator(config: TableConfig, seed: int = 3) -> TableSimulator:
    rules = ShangrilaRules(["red", "blue", "yellow"])
    return TableSimulator(rules, random_game(rules, seed)[:OPENING], config, seed)


def test_a_gap_gives_no_frames_and_names_its_moves_on_the_move_seen_next() -> None:
    config = TableConfig(gap=1.0, gap_moves=(2, 3))
    steps = list(simulator(config))
    gaps = [s.truth for s in steps if s.truth.unseen and s.truth.last]
    assert gaps and all(1 <= len(t.unseen) <= 2 for t in gaps)
    assert all(t.expect == "move_accepted" for t in gaps)
    moves = [t.move for t in gaps]
    numbers = {s.truth.number for s in steps}
    for truth in gaps:  # the gap's earlier moves have no steps of their own
        assert not any(truth.number - k in numbers for k in range(1, len(truth.unseen) + 1))
    rules = ShangrilaRules(["red", "blue", "yellow"])
    texts = [rules.format_move(m) for m in random_game(rules, 3)[:OPENING]]
    for truth, move in zip(gaps, moves, strict=True):
        made = [*truth.unseen, move]
        assert texts[truth.number - len(made) : truth.number] == made


def test_a_hand_over_the_table_hides_every_element_through_the_gap() -> None:
    config = TableConfig(gap=1.0, gap_hidden=True)
    steps = list(simulator(config))
    blind = [
        s
        for s in steps
        if s.truth.unseen
        and isinstance(s.event, Seen)
        and not any(s.event.observation[e].known for e in s.event.observation)
    ]
    assert blind


def test_the_referee_recognises_every_two_move_gap_of_an_opening() -> None:
    config = replace(BENCH_TABLE, gap=0.5, flicker=0.01, unsure=0.01, illegal=0.0)
    score = referee_game(simulator(config))
    assert score.gaps >= 3
    assert score.gaps_recognised == score.gaps
    assert (score.false_flags, score.corrected) == (0, 0)
    # a recruit seen from above may still be in doubt when the opening stops: the
    # referee shows the likeliest master, and keeps the one played among the others
    assert score.moves == OPENING and (score.final_state_right or score.in_doubt)


def test_shendao_gaps_are_recognised() -> None:
    rules = ShendaoRules(("light", "dark"))
    config = replace(BENCH_TABLE, gap=0.5, flicker=0.01, unsure=0.01, illegal=0.0)
    score = referee_game(TableSimulator(rules, random_game(rules, 2)[:16], config, 2))
    assert score.gaps >= 1 and score.gaps_recognised == score.gaps
    assert score.false_flags == 0


def test_shenshi_gaps_are_recognised_where_the_turns_touch_other_squares() -> None:
    # The first turn of a gap is looked for among the turns that leave the squares they
    # touch as the table shows them; on this opening no turn moves a monk the next
    # one moves again.
    rules = ShenshiRules(("silver", "copper"), seed=3)
    config = replace(BENCH_TABLE, gap=0.5, flicker=0.01, unsure=0.01, illegal=0.0)
    score = referee_game(TableSimulator(rules, random_game(rules, 3)[:14], config, 3))
    assert score.gaps == score.gaps_recognised == 5
    assert score.false_flags == 0


def test_gap_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="gap"):
        TableConfig(gap=1.5)
    with pytest.raises(ValueError, match="gap_moves"):
        TableConfig(gap_moves=(0, 2))


def test_bench_referee_counts_gaps(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "bench",
                "referee",
                "--game",
                "shendao",
                "--games",
                "1",
                "--flicker",
                "0.01",
                "--gap",
                "0.2",
                "--json",
            ]
        )
        == 0
    )
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["gaps"] > 0 and run["gaps_recognised_pct"] == 100.0
    assert (
        main(
            [
                "bench",
                "referee",
                "--game",
                "shendao",
                "--games",
                "1",
                "--flicker",
                "0.01",
                "--gap",
                "0.2",
            ]
        )
        == 0
    )
    assert "every move of the gap recognised" in capsys.readouterr().out
    assert (
        main(["bench", "referee", "--game", "shendao", "--games", "1", "--gap-moves", "1", "2"])
        == 2
    )
