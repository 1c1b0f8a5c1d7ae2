"""``companion bench shenshi-draw``: the time of ShenShi's uniform draw of a turn.

Plays random complete games, every turn drawn uniformly (``draw.random_move``), for
2, 3 and 4 players with orange cushions lifting one and two blond cushions, and times
each draw in processor time; on the same positions it also times the draw that counts
every turn (``movegen.counted_move``, with its own dice so that the games stay those of
the uniform draw). Then it times both on the widest position met in random games
(``WIDEST``, 73 million turns) against going through every one of its turns.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from engines.dice import Dice
from engines.shenshi import draw, movegen
from engines.shenshi.moves import Action
from engines.shenshi.rules import ShenshiRules
from engines.shenshi.state import ShenshiState

T = TypeVar("T")

WIDEST: dict[str, Any] = {
    "phase": "turn",
    "to_move": 1,
    "tiles": {
        "b6": "faded",
        "d6": "intact",
        "f6": "faded",
        "f4": "intact",
        "b2": "faded",
        "d2": "intact",
        "f2": "intact",
    },
    "cushions": {
        "a6": "orange",
        "e6": "blond",
        "f5": "orange",
        "b4": "blond",
        "c4": "blond",
        "d4": "blond",
        "g4": "blond",
        "d3": "blond",
        "f3": "blond",
        "g3": "blond",
        "a2": "blond",
        "c1": "orange",
        "f1": "blond",
    },
    "monks": {
        "silver": {"G": "d3", "M": "f6"},
        "copper": {"G": "c1", "M": None},
        "gold": {"G": "g4", "M": None},
        "neutral": {"G": "a6", "M": "b4"},
    },
    "reserves": {p: {"blond": 0, "orange": 0} for p in ("silver", "copper", "gold")},
    "tokens": {"silver": 5, "copper": 4, "gold": 5},
    "quiet": 0,
    "passes": 0,
}
"""Copper to move with 3 players, orange cushions lifting two blond cushions each:
73,322,267 legal turns, the most of the positions met in random games (an entry, then
two orange hovers that each lift two cushions)."""

WIDEST_TURNS = 73_322_267


@dataclass
class GamesFigure:
    players: int
    orange_lifts: int
    games: int
    moves: int
    draw_ms: float
    """Mean processor time of one uniform draw."""
    draw_median_ms: float
    draw_worst_ms: float
    counted_ms: float | None
    """The same for the draw that counts every turn (None: not measured)."""
    counted_worst_ms: float | None


@dataclass
class WidestFigure:
    turns: int
    draw_s: float
    """Mean processor time of one uniform draw (5 draws)."""
    counted_s: float
    count_s: float
    enumeration_s: float | None
    """Going through every turn, its last action built (None: not measured)."""


def _timed(call: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``call(*args)`` and the processor time it took."""
    start = time.process_time()
    out = call(*args)
    return out, time.process_time() - start


def random_games(
    players: int, lifts: int, games: int, seed: int, compare: bool = True
) -> GamesFigure:
    """Play ``games`` random games with the uniform draw; time every draw."""
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), {"orange_lifts": lifts})
    dice, other = Dice(seed), Dice(seed + 1)
    draws: list[float] = []
    counted: list[float] = []
    for _ in range(games):
        state = rules.initial_state()
        while not state.is_over():
            move, took = _timed(draw.random_move, state, dice)
            draws.append(took)
            if compare:
                counted.append(_timed(movegen.counted_move, state, other)[1])
            state.apply(move)
    return GamesFigure(
        players,
        lifts,
        games,
        len(draws),
        _ms(statistics.fmean(draws)),
        _ms(statistics.median(draws)),
        _ms(max(draws)),
        _ms(statistics.fmean(counted)) if counted else None,
        _ms(max(counted)) if counted else None,
    )


def _ms(seconds: float) -> float:
    return round(1000 * seconds, 2)


class _Walk(movegen._Sink):
    """Goes through every turn: builds the last actions of each batch and drops them."""

    def __init__(self) -> None:
        self.count = 0

    def one(self, prefix: tuple[Action, ...]) -> None:
        self.count += 1

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        self.count += len(build())


def enumerate_turns(state: ShenshiState) -> int:
    """How many turns a search that reaches every one of them finds."""
    sink = _Walk()
    with movegen._collector_paused():
        movegen._Search(state, sink).run()
    return sink.count


def widest(enumerate_all: bool = True) -> WidestFigure:
    state = ShenshiRules(["silver", "copper", "gold"]).state_from_json(WIDEST)
    draws = [_timed(draw.random_move, state, Dice(seed))[1] for seed in range(5)]
    counted = _timed(movegen.counted_move, state, Dice(0))[1]
    turns, count = _timed(movegen.count_turns, state)
    if turns != WIDEST_TURNS:
        raise AssertionError(f"the widest position has {turns} turns, not {WIDEST_TURNS}")
    enumeration = None
    if enumerate_all:
        walked, enumeration = _timed(enumerate_turns, state)
        if walked != WIDEST_TURNS:
            raise AssertionError(f"{walked} turns gone through, not {WIDEST_TURNS}")
    return WidestFigure(
        WIDEST_TURNS,
        round(statistics.fmean(draws), 3),
        round(counted, 3),
        round(count, 3),
        None if enumeration is None else round(enumeration, 1),
    )
