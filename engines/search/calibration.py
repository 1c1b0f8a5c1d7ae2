"""Calibration games for the strength estimate (``engines.search.strength``).

Engine levels play each other; every game is analysed at one analysis level, and each
player's judged moves become a ``PlayerGame`` of that level. Level 0 is random play.
Seatings mix levels that are close (at most two apart), since a game between a beginner
and a master is decided early and then every move of both looks harmless to the
analysis; 4-player games seat two players of each of two adjacent levels.
Game ``index`` depends only on ``(seed, index)``, so a run stopped early holds the
same games as a shorter run, and a run can be extended.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from engines.base import Rules
from engines.record import GameRecord, new_record
from engines.registry import rules_class
from engines.search.analysis import Analysis, analyse
from engines.search.mcts import SearchConfig
from engines.search.players import LEVELS, Player, PlayoutRandomPlayer, SearchPlayer
from engines.search.strength import PlayerGame

RANDOM_LEVEL = 0
"""The level that stands for random play."""


def level_player(level: int, seed: int) -> Player:
    """The engine player of ``level`` (0: random play by the game's playout draw)."""
    if level == RANDOM_LEVEL:
        return PlayoutRandomPlayer(seed)
    return SearchPlayer(level, seed=seed)


@dataclass(frozen=True)
class Seating:
    levels: list[int]
    """The level at each seat."""
    seed_index: int
    """What the game's seeds derive from (with the run's seed)."""


def close_pairs(levels: Sequence[int]) -> list[tuple[int, int]]:
    """Every pair of levels at most two apart, a level against itself too."""
    ordered = sorted(levels)
    return [(a, b) for i, a in enumerate(ordered) for b in ordered[i:i + 3]]


def pair_order(pairs: Sequence[tuple[int, int]]) -> list[int]:
    """The order to play ``pairs`` in: each time the pair that brings most levels
    towards two player-games (first in the list on a tie), so that a short run already
    covers every level; then the rest in list order."""
    counts: dict[int, int] = {}
    left = list(range(len(pairs)))
    order = []
    while left:
        def gain(k: int) -> int:
            a, b = pairs[k]
            if a == b:
                return min(2, max(0, 2 - counts.get(a, 0)))
            return sum(1 for level in (a, b) if counts.get(level, 0) < 2)
        best = max(left, key=lambda k: (gain(k), -k))
        order.append(best)
        left.remove(best)
        for level in pairs[best]:
            counts[level] = counts.get(level, 0) + 1
    return order


def seating(levels: Sequence[int], n_players: int, index: int) -> Seating:
    """The seats of calibration game ``index``. Two players: each cycle plays every
    pair of ``close_pairs`` once, in ``pair_order``; a game's seeds and which seat the
    lower level takes follow the pair's place in ``close_pairs`` (not the order of
    play), so a full cycle holds the same games whatever the order. More players: two
    adjacent levels take two seats each, rotating."""
    ordered = sorted(levels)
    if n_players == 2:
        pairs = close_pairs(ordered)
        cycle, place = divmod(index, len(pairs))
        k = pair_order(pairs)[place]
        key = cycle * len(pairs) + k
        a, b = pairs[k]
        return Seating([a, b] if key % 2 == 0 else [b, a], key)
    steps = max(1, len(ordered) - 1)
    low = ordered[index % steps]
    high = ordered[min(index % steps + 1, len(ordered) - 1)]
    seats = ([low, high] * n_players)[:n_players]
    turn = (index // steps) % n_players
    return Seating(seats[turn:] + seats[:turn], index)


def play_recorded(rules: Rules[Any, Any], players: Sequence[Player],
                  max_moves: int = 10_000) -> GameRecord:
    """Play one game, seat ``i`` by ``players[i]``, and return its record. Raises
    RuntimeError when the game does not end within ``max_moves``."""
    state = rules.initial_state()
    record = new_record(rules)
    while not state.is_over():
        if len(record.moves) >= max_moves:
            raise RuntimeError(f"the game did not end within {max_moves} moves")
        move = players[state.to_move].choose(state)
        record.moves.append(rules.format_move(move))
        state.play(move)
    return record


def player_games(analysis: Analysis, levels: Sequence[int]) -> list[PlayerGame]:
    """Each seat's judged moves in an analysed game, labelled with the seat's level."""
    found = []
    for summary, level in zip(analysis.summary, levels, strict=True):
        losses = [m.loss for m in analysis.moves if m.player == summary.player and not m.forced]
        found.append(PlayerGame(level, tuple(losses)))
    return found


@dataclass
class CalibrationGame:
    index: int
    levels: list[int]
    """The level at each seat."""
    moves: int
    player_games: list[PlayerGame]
    seconds: float


def calibration_games(game: str, n: int, levels: Sequence[int], start: int, stop: int,
                      seed: int, analysis_level: int) -> Iterator[CalibrationGame]:
    """Play and analyse calibration games ``start`` to ``stop - 1`` of ``game`` for ``n``
    players (default options and names), on one process."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(n), {})
    base = LEVELS[analysis_level]
    for index in range(start, stop):
        began = time.perf_counter()
        seats = seating(levels, n, index)
        players = [level_player(level, seed + 1000 * seats.seed_index + seat)
                   for seat, level in enumerate(seats.levels)]
        record = play_recorded(rules, players)
        config = SearchConfig(base.iterations, base.seconds, base.exploration,
                              base.rollout_moves, seed + seats.seed_index)
        analysis = analyse(record, config, calibration=None)
        yield CalibrationGame(index, seats.levels, len(record.moves),
                              player_games(analysis, seats.levels),
                              round(time.perf_counter() - began, 1))
