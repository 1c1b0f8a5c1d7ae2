"""Property tests over random legal Shendao games (hypothesis picks seeds and options)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines import GameState
from engines.shendao import TILES, ShendaoRules, ShendaoState
from tests.conformance import play_random_game

options = st.fixed_dictionaries(
    {
        "variant": st.sampled_from(["tigre-blanc", "tigre", "chaton"]),
        "walls_cut_connections": st.booleans(),
        "brigand_passes_walls": st.booleans(),
    }
)


def recount(state: ShendaoState) -> None:
    """Recompute the bookkeeping from the board and compare."""
    rules = state.rules
    free = [state.cell[e] < 0 for e in rules.entry]
    assert state.usable == sum(1 for g, f in enumerate(free) if f and state.gate_open[g])
    assert state.enterable == sum(free)
    for p in (0, 1):
        assert 0 <= state.supply[p] <= TILES - state.tiles_on_board(p)
        assert state.cards[p] & ~rules.card_mask == 0
    nobody = not any(state._can_play(p) for p in (0, 1))
    assert state.is_over() is nobody


class Watch:
    """Invariants across moves: closed gates never reopen, used cards never come back,
    and each move closes at most one gate."""

    def __init__(self) -> None:
        self.closed: set[int] = set()
        self.cards = [0b111111, 0b111111]

    def __call__(self, state: GameState[Any]) -> None:
        assert isinstance(state, ShendaoState)
        recount(state)
        closed = {g for g, up in enumerate(state.gate_open) if not up}
        assert self.closed <= closed and len(closed - self.closed) <= 1
        self.closed = closed
        for p in (0, 1):
            assert state.cards[p] & ~self.cards[p] == 0
        self.cards = state.cards[:]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), opts=options)
def test_random_games_keep_every_invariant(seed: int, opts: dict[str, Any]) -> None:
    rules = ShendaoRules.from_record(ShendaoRules.default_players(2), opts)
    state, record = play_random_game(rules, seed, invariant=Watch(), deep_every=2)
    assert state.is_over()
    entries = [m for m in record.moves if m != "pass"]
    # every entry closes its gate, except the Brigand through a closed gate (twice at most)
    assert len(entries) <= 36 + 2


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_games_with_dark_beginning_end_too(seed: int) -> None:
    play_random_game(ShendaoRules(["dark", "light"]), seed, invariant=Watch(), deep_every=3)
