"""Orange hovers counted without listing them (``hovers``) against their list."""

from __future__ import annotations

import random

import pytest

from engines.shenshi import ShenshiRules
from engines.shenshi.board import BLOND, FADED, INTACT, ORANGE
from engines.shenshi.hovers import orange_summary
from engines.shenshi.options import hover_ends


def _listed(ends: list[tuple[int, tuple[tuple[int, int], ...]]]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for end, lifts in ends:
        entry = out.setdefault(end, [0, 0])
        entry[0] += 1
        entry[1] = max(entry[1], len(lifts))
    return out


@pytest.mark.parametrize("put_down", ["free", "also-orange-square"])
def test_the_counts_by_end_are_those_of_the_list(put_down: str) -> None:
    # Made-up halls, dense to sparse, with monks on some cushions; every lift limit.
    rng = random.Random(put_down)
    for trial in range(300):
        lifts = trial % 4
        rules = ShenshiRules(["silver", "copper"], orange_lifts=lifts, lift_put_down=put_down)
        state = rules.initial_state()
        tile, cushion, occ = [0] * 49, [0] * 49, [-1] * 49
        density = rng.random()
        for s in range(49):
            r = rng.random()
            if r < 0.1:
                tile[s] = rng.choice([INTACT, FADED])
            elif r < 0.1 + 0.6 * density:
                cushion[s] = rng.choice([BLOND, BLOND, BLOND, ORANGE])
                if rng.random() < 0.3:
                    occ[s] = rng.randrange(1, 6)
        start = rng.randrange(49)
        tile[start], cushion[start], occ[start] = 0, ORANGE, 0
        state.tile, state.cushion, state.occ = tuple(tile), cushion, occ
        state.pos = [-1] * len(state.pos)
        state.pos[0] = start
        assert orange_summary(state, start) == _listed(hover_ends(state, 0)), trial
        assert state.cushion == cushion  # left as it was


def test_a_line_found_both_ways_counts_once() -> None:
    # The row holds one free blond cushion and nothing else: the orange cushion lifts it
    # going either way, and each hover is one hover.
    rules = ShenshiRules(["silver", "copper"], orange_lifts=2)
    state = rules.initial_state()
    state.tile = (0,) * 49
    state.cushion = [0] * 49
    state.occ = [-1] * 49
    state.pos = [-1] * len(state.pos)
    state.cushion[21], state.cushion[24] = ORANGE, BLOND  # a4 orange, d4 blond
    state.occ[21], state.pos[0] = 0, 21
    listed = _listed(hover_ends(state, 0))
    assert orange_summary(state, 21) == listed
    assert sum(n for n, _ in listed.values()) == len(set(hover_ends(state, 0)))


def test_only_an_orange_cushion_is_counted() -> None:
    rules = ShenshiRules(["silver", "copper"])
    state = rules.initial_state()
    with pytest.raises(ValueError, match="no orange cushion"):
        orange_summary(state, 0)
