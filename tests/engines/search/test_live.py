"""The analysis kept up to date while a game is played gives what the analysis of the
whole record from scratch gives, also after a move taken back or corrected."""

from __future__ import annotations

from typing import Any

from engines import GameRecord
from engines.dice import Dice
from engines.record import new_record
from engines.registry import rules_class
from engines.search import SearchConfig
from engines.search.analysis import analyse
from engines.search.live import LiveAnalysis

CONFIG = SearchConfig(iterations=30, rollout_moves=10, seed=3)


def random_record(
    seed: int,
    moves: int,
    game: str = "shangrila",
    players: int = 4,
    prefix: list[str] | None = None,
) -> GameRecord:
    """``moves`` moves of random play (after ``prefix`` when given)."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(players), {})
    state = rules.initial_state()
    record = new_record(rules)
    for text in prefix or []:
        state.play(rules.parse_move(text))
        record.moves.append(text)
    dice = Dice(seed)
    while len(record.moves) < moves and not state.is_over():
        move = state.random_move(dice)
        record.moves.append(rules.format_move(move))
        state.play(move)
    return record


def upto(record: GameRecord, n: int) -> GameRecord:
    return GameRecord(
        record.game, list(record.players), dict(record.options), record.moves[:n], record.start
    )


def scratch(record: GameRecord) -> dict[str, Any]:
    data = analyse(record, CONFIG).to_json()
    data.pop("seconds")
    return data


def finished(live: LiveAnalysis) -> dict[str, Any]:
    while live.step():
        pass
    found = live.analysis()
    assert found is not None
    data = found.to_json()
    data.pop("seconds")
    return data


def test_move_by_move_gives_the_analysis_from_scratch() -> None:
    record = random_record(1, 14)
    live = LiveAnalysis(CONFIG)
    for n in range(len(record.moves) + 1):
        live.update(upto(record, n))
        assert live.analysis() is None or n == 0
        live.step()
    assert live.done == live.total == 14
    assert finished(live) == scratch(record)


def test_a_corrected_move_is_analysed_again_with_every_later_one() -> None:
    played = random_record(1, 12)
    corrected = random_record(7, 12, prefix=played.moves[:5])
    assert corrected.moves[5] != played.moves[5]
    live = LiveAnalysis(CONFIG)
    live.update(played)
    finished(live)
    assert live.update(corrected) == 5
    assert (live.done, live.total, live.redone) == (5, 12, 7)
    assert finished(live) == scratch(corrected)


def test_a_move_taken_back_needs_no_new_search() -> None:
    record = random_record(2, 10)
    live = LiveAnalysis(CONFIG)
    live.update(record)
    finished(live)
    assert live.update(upto(record, 8)) == 8
    assert live.complete and live.next_job() is None
    assert finished(live) == scratch(upto(record, 8))


def test_a_result_found_for_a_move_since_replaced_is_not_kept() -> None:
    played = random_record(1, 8)
    live = LiveAnalysis(CONFIG)
    live.update(played)
    job = live.next_job()
    assert job is not None and job.index == 0
    result = job.run()
    live.update(random_record(9, 8))  # the first move was another
    assert not live.store(job, result)
    assert live.done == 0


def test_another_game_starts_over() -> None:
    live = LiveAnalysis(CONFIG)
    live.update(random_record(1, 6))
    finished(live)
    shendao = random_record(1, 6, game="shendao", players=2)
    assert live.update(shendao) == 0
    assert finished(live) == scratch(shendao)
