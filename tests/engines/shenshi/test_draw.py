"""The uniform draw that does not count every turn (``draw``).

Every legal turn must own exactly one of the numbers the draw picks from (the others
own none and are drawn again): checked over every number of positions met in random
games, which makes the draw exactly uniform. The bounds behind it are checked on the
way: a block that holds more turns than its bound stops the draw with an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from engines import Dice
from engines.shenshi import Pass, ShenshiRules, ShenshiState, movegen
from engines.shenshi.draw import Weighed, random_move
from tests.engines.shenshi.positions import position

CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (2, {"orange_lifts": 1}),
    (3, {"orange_lifts": 1, "seed": 2}),
    (4, {"orange_lifts": 1, "seed": 3}),
    (2, {"orange_lifts": 2, "seed": 4}),
    (
        3,
        {
            "orange_lifts": 2,
            "seed": 5,
            "walk": "straight",
            "lift_put_down": "also-orange-square",
            "neutral_return": "turn",
        },
    ),
]
"""Player counts and options (the expert variant's positions are seldom small: below)."""


def turn_positions(
    players: int, options: dict[str, Any], seed: int, every: int = 2
) -> Iterator[ShenshiState]:
    """Positions of random games (quick playout turns), one in ``every``, where a
    player is to play a turn."""
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), options)
    dice, ply = Dice(seed), 0
    for _ in range(20):
        state = rules.initial_state()
        while not state.is_over():
            if ply % every == 0 and state.phase == 0:
                yield state.copy()
            state.apply(state.playout_move(dice))
            ply += 1


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_every_turn_owns_exactly_one_number(players: int, options: dict[str, Any]) -> None:
    checked = blocked = 0
    for state in turn_positions(players, options, seed=players):
        if movegen.count_turns(state, limit=1000) > 1000:
            continue  # every number is tried: small positions only
        weighed = Weighed(state)
        owned = Counter(
            turn for place in range(weighed.total) if (turn := weighed.turn(place)) is not None
        )
        legal = movegen.legal_turns(state)
        assert owned == Counter(legal), state.to_json()
        checked += 1
        blocked += weighed.total > len(legal)
        if checked == 5:
            break
    assert checked >= 4
    assert blocked >= 1  # the numbers drawn again were met, not only exact counts


def test_the_draw_is_uniform_over_every_number() -> None:
    # The same check on a position with hovers of both colours in the middle of a turn:
    # some numbers own no turn, and the turns are all owned once.
    rules = ShenshiRules(["silver", "copper"], orange_lifts=1)
    state = position(
        rules,
        blond="d4 g7 a1 a7 d5 c2 b6",
        orange="e2 f5",
        monks={"silver": ("d4", "e2"), "copper": ("c2", "f5"), "neutral": ("a1", "a7")},
    )
    weighed = Weighed(state)
    legal = movegen.legal_turns(state)
    owned = [weighed.turn(place) for place in range(weighed.total)]
    assert Counter(t for t in owned if t is not None) == Counter(legal)
    assert len(legal) < weighed.total < 2 * len(legal)


@pytest.mark.parametrize(("lifts", "put_down"), [(1, "free"), (2, "also-orange-square")])
def test_every_expert_turn_owns_exactly_one_number(lifts: int, put_down: str) -> None:
    # One monk may hover, walk and hover; blond cushions may turn while hovering.
    rules = ShenshiRules(
        ["silver", "copper"], variant="expert", orange_lifts=lifts, lift_put_down=put_down
    )
    state = position(
        rules,
        blond="d4 a1 a7 c2 g7 c6",
        orange="e2",
        intact="b2 d2 f2 f4",
        faded="b6 d6 f6 b4",
        reserves={"silver": (0, 0), "copper": (0, 0)},
        monks={"silver": ("d4", "e2"), "copper": ("c2", "g7"), "neutral": ("a1", "a7")},
    )
    weighed = Weighed(state)
    owned = Counter(
        turn for place in range(weighed.total) if (turn := weighed.turn(place)) is not None
    )
    assert owned == Counter(movegen.legal_turns(state))
    assert weighed.total > sum(owned.values()) > 8000


def test_a_position_without_a_turn_passes() -> None:
    rules = ShenshiRules(["silver", "copper"])
    stuck = position(
        rules,
        faded="b6 d6 f6 b4",
        blond="a1 g1",
        monks={"silver": ("b6", "b4"), "copper": ("f6", "a1"), "neutral": ("d6", "g1")},
    )
    assert movegen.count_turns(stuck) == 0
    assert Weighed(stuck).total == 0
    assert random_move(stuck, Dice(0)) == Pass()


def test_the_draw_replays_and_spreads(monkeypatch: pytest.MonkeyPatch) -> None:
    state = next(
        s
        for s in turn_positions(2, {"orange_lifts": 1}, seed=9)
        if 200 < movegen.count_turns(s, limit=3000) <= 3000
    )
    legal = set(movegen.legal_turns(state))
    first = [random_move(state, Dice(seed)) for seed in range(30)]
    assert first == [random_move(state, Dice(seed)) for seed in range(30)]
    assert set(first) <= legal and len(set(first)) > 20
    # After as many numbers owning no turn as it tries, the draw counts the turns.
    monkeypatch.setattr("engines.shenshi.draw.ATTEMPTS", 0)
    assert random_move(state, Dice(3)) == movegen.counted_move(state, Dice(3))
