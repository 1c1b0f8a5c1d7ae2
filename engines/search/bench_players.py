"""The strength of the engine players, measured by play (``companion bench players``,
``companion bench policies``).

For each game: each level against the level below, and the default level against
random and one-ply greedy players. One seat is the player measured, every other seat
the opponent kind; seats rotate game by game. A shared first place counts in part.

The Elo-like figure assumes Bradley-Terry strengths: with ``n`` players of which ``n-1``
are equal opponents, a first-place share ``s`` gives a strength difference of
``ln((n-1) s / (1 - s))``, shown on the Elo scale (x 400 / ln 10). Levels are chained
from level 1 = 0. The 95 % interval maps the Wilson score interval of the share (the
number of games behind it) through the same formula.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, replace
from typing import Any

from engines import rules_class
from engines.search.players import (
    LEVELS,
    GreedyPlayer,
    PlayoutRandomPlayer,
    RandomPlayer,
    SearchPlayer,
    play_match,
)

PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 2}


@dataclass
class Pairing:
    game: str
    players: int
    measured: str
    opponent: str
    games: int
    first_place_share: float
    elo_difference: float | None
    elo_low: float | None
    """Lower end of the 95 % interval (None: unbounded below)."""
    elo_high: float | None
    """Upper end of the 95 % interval (None: unbounded above)."""
    seconds: float


def elo(share: float, players: int) -> float | None:
    """Elo-like difference from a first-place share against equal opponents; None when
    the share is 0 or 1 (unbounded)."""
    if share <= 0.0 or share >= 1.0:
        return None
    return 400.0 / math.log(10) * math.log((players - 1) * share / (1.0 - share))


WILSON_Z = 1.96
"""Normal quantile of a two-sided 95 % interval."""


def share_interval(share: float, games: int) -> tuple[float, float]:
    """Wilson score 95 % interval of a first-place share measured over ``games``: unlike
    the normal approximation it stays inside [0, 1] and is honest at 0 % or 100 %."""
    z2 = WILSON_Z * WILSON_Z
    centre = (share + z2 / (2 * games)) / (1 + z2 / games)
    half = (
        WILSON_Z
        * math.sqrt(share * (1 - share) / games + z2 / (4 * games * games))
        / (1 + z2 / games)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value)


def _opponent(kind: str, seed: int, game: str) -> Any:
    if kind == "random":
        # ShenShi's uniform draw over a million turns takes seconds: its playout draw
        return PlayoutRandomPlayer(seed) if game == "shenshi" else RandomPlayer(seed)
    if kind == "greedy":
        return GreedyPlayer(seed)
    return SearchPlayer(int(kind.split()[1]), seed=seed)


def pairing(game: str, measured: int, opponent: str, games: int, seed: int) -> Pairing:
    cls = rules_class(game)
    n = PLAYERS[game]
    rules = cls.from_record(cls.default_players(n), {})
    share = 0.0
    start = time.perf_counter()
    for g in range(games):
        seat = g % n
        players = [_opponent(opponent, seed + 100 * g + i, game) for i in range(n)]
        players[seat] = SearchPlayer(measured, seed=seed + 100 * g + 50)
        result = play_match(rules, players)
        if seat in result.winners:
            share += 1.0 / len(result.winners)
        print(
            f"\r{game}: level {measured} vs {opponent}: {g + 1}/{games}",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    share /= games
    low, high = share_interval(share, games)
    return Pairing(
        game,
        n,
        f"level {measured}",
        opponent,
        games,
        round(share, 3),
        _rounded(elo(share, n)),
        _rounded(elo(low, n)),
        _rounded(elo(high, n)),
        round(time.perf_counter() - start, 1),
    )


SETTINGS = ("game", "players", "policy", "against", "level", "seed")
"""What a log line must agree on with the run that goes on from it."""


def policy_game(
    game: str, players: int, policy: str, against: str, level: int, seed: int, index: int
) -> dict[str, Any]:
    """Play game ``index`` of a policy match and say who took first place."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(players), {})
    seat = index % players
    base = seed * 1_000_000 + 100 * index
    seats = [
        SearchPlayer(
            seed=base + i, config=replace(LEVELS[level], policy=policy if i == seat else against)
        )
        for i in range(players)
    ]
    began = time.perf_counter()
    result = play_match(rules, seats)
    share = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return {
        "game": game,
        "players": players,
        "policy": policy,
        "against": against,
        "level": level,
        "seed": seed,
        "index": index,
        "seat": seat,
        "share": share,
        "moves": result.moves,
        "seconds": round(time.perf_counter() - began, 1),
    }
