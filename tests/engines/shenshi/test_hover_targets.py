"""Orange hovers listed only where their lifted cushions land (``hover_ends`` with
``targets``, ``is_hover``) against the full list."""

from __future__ import annotations

import random

import pytest

from engines.shenshi import ShenshiRules
from engines.shenshi.board import BLOND, FADED, INTACT, ORANGE
from engines.shenshi.options import hover_ends, is_hover
from engines.shenshi.state import ShenshiState


def _hall(rng: random.Random, lifts: int, put_down: str) -> ShenshiState:
    """A made-up hall, dense to sparse, with monks on some cushions and an orange
    cushion carrying monk 0."""
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
    return state


@pytest.mark.parametrize("put_down", ["free", "also-orange-square"])
def test_the_hovers_landing_on_some_squares_are_those_of_the_list(put_down: str) -> None:
    rng = random.Random(put_down)
    for trial in range(40):
        state = _hall(rng, trial % 4, put_down)
        before = list(state.cushion)
        every = hover_ends(state, 0)
        targets = sorted(rng.sample(range(49), rng.randrange(0, 12)))
        kept = [(end, lifts) for end, lifts in every if all(t in targets for _, t in lifts)]
        assert hover_ends(state, 0, targets=targets) == kept, trial
        assert state.cushion == before  # left as it was


@pytest.mark.parametrize("put_down", ["free", "also-orange-square"])
def test_a_hover_is_one_exactly_when_listed(put_down: str) -> None:
    rng = random.Random(f"is {put_down}")
    other = "free" if put_down != "free" else "also-orange-square"
    for trial in range(30):
        state = _hall(rng, 1 + trial % 3, put_down)
        before = list(state.cushion)
        every = hover_ends(state, 0)
        listed = set(every)
        for end, lifts in rng.sample(every, min(len(every), 8)):
            assert is_hover(state, 0, end, lifts)
            # moved elsewhere, put down elsewhere, or read with the other option
            moved = (rng.randrange(49), lifts)
            assert is_hover(state, 0, *moved) == (moved in listed)
            if lifts:
                q, _ = lifts[-1]
                changed = (end, (*lifts[:-1], (q, rng.randrange(49))))
                assert is_hover(state, 0, *changed) == (changed in listed)
            assert is_hover(state, 0, end, lifts, other) == (
                (end, lifts) in set(hover_ends(state, 0, other))
            )
        assert state.cushion == before
