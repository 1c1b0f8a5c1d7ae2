"""Every installed game passes the shared conformance check."""

from __future__ import annotations

import pytest

from engines import available_games, rules_class
from tests.conformance import play_random_game

PLAYER_COUNTS = {"shangrila": (3, 4), "shendao": (2,), "shenshi": (2, 3, 4)}
SLOW = pytest.mark.slow
CASES = [
    # ShenShi's random games are the longest to check: its first seed runs in the default
    # suite, the other two with -m slow.
    pytest.param(game, n, seed, marks=[SLOW] if game == "shenshi" and seed > 0 else [])
    for game in available_games()
    for n in PLAYER_COUNTS[game]
    for seed in range(3)
]
# Full checks on every ply, except ShenShi: its turns of up to three actions can number
# a million in one position, so the costly checks run on every 8th ply.
DEEP_EVERY = {"shenshi": 8}
# ShenShi with one lift a hover: with the default two, a position can have tens of
# millions of turns, too many to list for the deep checks (lifts: tests/engines/shenshi).
OPTIONS: dict[str, dict[str, int]] = {"shenshi": {"orange_lifts": 1}}


@pytest.mark.parametrize(("game", "players", "seed"), CASES)
def test_random_games_keep_the_interface_contracts(game: str, players: int, seed: int) -> None:
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(players), OPTIONS.get(game, {}))
    play_random_game(rules, seed, deep_every=DEEP_EVERY.get(game, 1))
