"""The players' clocks: time charged to the player to move, stopped while paused or
over, a new move's time at each move, kept beside the journal so a reopened game keeps
its times."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.clock import (
    ClockError,
    ClockSettings,
    GameClock,
    Limit,
    clock_path,
    clock_text,
    load_clock,
    open_clock,
    save_clock,
)


def timed(players: int = 2, total: float = 600.0, per_move: float = 30.0) -> GameClock:
    return GameClock(ClockSettings.same(players, total, per_move))


def test_time_goes_to_the_player_to_move_and_each_move_starts_afresh() -> None:
    clock = timed()
    clock.follow(0, 0, True, now=100.0)
    clock.follow(0, 0, True, now=110.0)
    first = clock.readings(112.0)
    assert first[0].used == pytest.approx(12.0) and first[0].left == pytest.approx(588.0)
    assert first[0].move_left == pytest.approx(18.0) and first[0].running
    assert first[1].used == 0.0 and first[1].move_left is None and not first[1].running
    clock.follow(1, 1, True, now=115.0)  # red moved after 15 s: blue's clock runs
    after = clock.readings(120.0)
    assert after[0].used == pytest.approx(15.0) and not after[0].running
    assert after[1].used == pytest.approx(5.0) and after[1].move_left == pytest.approx(25.0)


def test_a_paused_game_stops_the_clocks_and_resuming_goes_on() -> None:
    clock = timed()
    clock.follow(0, 0, True, now=0.0)
    clock.follow(0, 0, False, now=10.0)  # paused after 10 s
    assert clock.readings(500.0)[0].used == pytest.approx(10.0)
    clock.follow(0, 0, True, now=500.0)  # resumed: the same move goes on
    reading = clock.readings(505.0)[0]
    assert reading.used == pytest.approx(15.0)
    assert reading.move_left == pytest.approx(15.0)


def test_past_the_time_is_shown_as_over_never_stopped() -> None:
    clock = timed(total=20.0, per_move=10.0)
    clock.follow(0, 0, True, now=0.0)
    reading = clock.readings(12.0)[0]
    assert reading.over and reading.move_left == pytest.approx(-2.0)
    assert reading.left == pytest.approx(8.0)
    clock.follow(1, 1, True, now=12.0)
    clock.follow(0, 2, True, now=13.0)
    late = clock.readings(22.0)[0]  # 12 s, then 9 s more, of 20
    assert late.left == pytest.approx(-1.0) and late.over
    assert clock_text(late.left) == "-0:01"


def test_a_move_taken_back_gives_the_player_a_fresh_move_time() -> None:
    clock = timed()
    clock.follow(0, 4, True, now=0.0)
    clock.follow(1, 5, True, now=20.0)
    clock.follow(0, 4, True, now=25.0)  # taken back: red to move again
    reading = clock.readings(25.0)
    assert reading[0].move_left == pytest.approx(30.0)
    assert reading[0].used == pytest.approx(20.0) and reading[1].used == pytest.approx(5.0)


def test_the_same_player_moving_twice_gets_a_new_move_time() -> None:
    clock = timed()
    clock.follow(0, 0, True, now=0.0)
    clock.follow(0, 1, True, now=20.0)
    assert clock.readings(21.0)[0].move_left == pytest.approx(29.0)


def test_clocks_kept_beside_the_journal_are_found_on_reopening(tmp_path: Path) -> None:
    journal = tmp_path / "shangrila-20261126-101500.jsonl"
    clock, problem = open_clock(journal, ClockSettings.same(3, 900.0, 0.0), 3, now=0.0)
    assert clock is not None and clock_path(journal).is_file() and problem == ""
    clock.follow(0, 0, True, now=0.0)
    clock.follow(1, 1, True, now=40.0)
    save_clock(journal, clock, now=55.0)  # the app closes 15 s into blue's move
    reopened, problem = open_clock(journal, ClockSettings(), 3, now=9000.0)
    assert reopened is not None and problem == ""
    assert reopened.used == pytest.approx([40.0, 15.0, 0.0])
    assert reopened.settings.limits[0] == Limit(900.0, 0.0)
    assert not reopened.running  # starts again when the game is on the screen
    reopened.follow(1, 1, True, now=9000.0)
    reading = reopened.readings(9010.0)[1]
    assert reading.used == pytest.approx(25.0) and reading.left == pytest.approx(875.0)


def test_untimed_games_have_no_clock_and_damaged_files_are_named(tmp_path: Path) -> None:
    journal = tmp_path / "g.jsonl"
    assert open_clock(journal, ClockSettings(), 2, now=0.0) == (None, "")
    assert not clock_path(journal).exists()
    clock_path(journal).write_text('{"clock": 1, "used": ["x"]}', encoding="utf-8")
    with pytest.raises(ClockError, match="used times"):
        load_clock(journal)
    fresh, problem = open_clock(journal, ClockSettings.same(2, 60.0), 2, now=0.0)
    assert fresh is not None and fresh.used == [0.0, 0.0]
    assert problem.startswith(str(clock_path(journal))) and "used times" in problem
    # the new clocks replaced the damaged file: reopened, they are found and said nothing
    assert open_clock(journal, ClockSettings(), 2, now=5.0)[1] == ""
    # clocks kept for another number of players are not used, and that is said
    assert (
        "2 players' clocks kept for a game of 3"
        in open_clock(journal, ClockSettings(), 3, now=5.0)[1]
    )


def test_limits_are_checked_and_round_trip() -> None:
    with pytest.raises(ClockError, match="total"):
        Limit(-1.0)
    with pytest.raises(ClockError):
        Limit(float("nan"))
    settings = ClockSettings((Limit(600.0, 30.0), Limit(300.0, 0.0)))
    assert ClockSettings.from_json(settings.to_json()) == settings
    assert settings.for_players(3).limits[2] == Limit(600.0, 30.0)
    clock = GameClock(settings)
    clock.follow(1, 3, True, now=1.0)
    again = GameClock.from_json(clock.to_json(now=4.0))
    assert again.used == [0.0, 3.0] and again.to_move == 1 and again.moves == 3


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "0:00"),
        (0.4, "0:01"),
        (59.0, "0:59"),
        (600.0, "10:00"),
        (3725.0, "1:02:05"),
        (-7.0, "-0:07"),
    ],
)
def test_clock_text(seconds: float, text: str) -> None:
    assert clock_text(seconds) == text
