"""The height reader's measuring on made-up lines (no pictures): edges found where a
blurred step crosses half way, a far edge told against a neighbouring tile of another
colour, the placement fit recovering the hidden board of stacks lying off their spots,
and no measure from lines that cannot tell a tile off its spot from a taller one; then,
on rendered close-ups, stacks with a tile of another colour right behind them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from vision import appearance_heights as ah

SAMPLES = 160
STEP = ah.STEP_MM


def _line_windows(a: float, b: float, reach: float, start: float) -> tuple[Any, Any]:
    """One line from ``start`` with the footprint [a, b], its windows and positions."""
    positions = start + STEP * np.arange(SAMPLES, dtype=np.float64)
    lines = ah.StackLines(
        "x",
        1.0,
        2.0,
        np.zeros((1, SAMPLES, 2)),
        positions,
        np.array([[a, b]]),
        np.zeros(2),
        np.array([1.0, 0.0]),
        np.zeros(1),
        0.0,
        (b - a) / 2,
    )
    return ah.windows(lines, reach, ah.OUTSIDE_MM, 3.5), positions[None, :]


def _step(
    positions: np.ndarray, lo: float, hi: float, inside: float, outside: float, blur: float = 0.4
) -> np.ndarray:
    """``inside`` between ``lo`` and ``hi``, ``outside`` elsewhere, blurred."""
    from math import erf

    up = np.array([0.5 * (1 + erf((p - lo) / (blur * math.sqrt(2)))) for p in positions])
    down = np.array([0.5 * (1 + erf((hi - p) / (blur * math.sqrt(2)))) for p in positions])
    return np.asarray(outside + (inside - outside) * up * down)


def test_edges_lie_where_a_blurred_step_crosses_half_way() -> None:
    a, b, hidden = -9.5, 9.5, 2.0
    where, positions = _line_windows(a, b, 3.0, -15.0)
    d = _step(positions[0], a, b + hidden, 1.5, 0.05)[None, :]
    found = ah.edges(d, positions, where)
    assert found[0] == pytest.approx([a, b + hidden], abs=0.05)
    # something not bare where the bare board should be beyond the far edge
    d[0, positions[0] > b + hidden + 2.0] = 1.2
    assert np.isnan(ah.edges(d, positions, where)[0, 1])


def test_a_far_edge_is_told_against_a_neighbouring_tile_of_another_colour() -> None:
    a, b, hidden = -9.5, 9.5, 1.6
    where, positions = _line_windows(a, b, 3.0, -15.0)
    p = positions[0]
    own = np.array([-1.7, 0.6, -2.7])
    other = np.array([-1.9, -1.2, 0.6])
    # the stack, then from its far edge on the neighbour (its front face darker)
    share = _step(p, -100.0, b + hidden, 1.0, 0.0, blur=0.5)
    face = other + np.array([-0.4, 0.0, 0.0])
    lit = share[:, None] * own[None, :] + (1 - share[:, None]) * face
    lit[p < a] = [-2.5, 0.1, 0.1]  # the bare board in front
    d = np.where(p < a, 0.05, 1.5)[None, :]
    found = ah.edges(
        d, positions, where, lit[None], np.array([[other, [np.nan] * 3, [np.nan] * 3]]), own[None]
    )
    assert found[0, 1] == pytest.approx(b + hidden, abs=0.1)
    # no neighbour of another colour known: no far edge
    none = np.full((1, ah.CANDIDATES, 3), np.nan)
    assert np.isnan(ah.edges(d, positions, where, lit[None], none, own[None])[0, 1])


def _stacks(angle_deg: float, shift: tuple[float, float], hidden: float, mask: np.ndarray) -> Any:
    offsets = np.linspace(-1.0, 1.0, ah.LINES) * ah.LINE_SPREAD * 19.0 / 2
    centre, along = np.zeros((1, 2)), np.array([[0.0, 1.0]])
    args = (np.array([9.5]), np.array([angle_deg]), centre, along, offsets[None])
    nominal = ah._chords_many(centre, *args)
    placed = ah._chords_many(centre + np.array([shift]), *args)
    near = np.where(mask, placed[..., 0], np.nan)
    far = np.where(mask, placed[..., 1] + hidden, np.nan)
    return ah._Stacks(
        centre,
        np.array([9.5]),
        np.array([angle_deg]),
        along,
        offsets[None],
        nominal,
        near,
        far,
        mask,
    )


@pytest.mark.parametrize("angle", [0.0, 20.0, 45.0])
def test_the_placement_fit_finds_the_hidden_board_of_a_stack_off_its_spot(angle: float) -> None:
    every = np.ones((1, ah.LINES), dtype=bool)
    measured = ah.fit_measures(_stacks(angle, (0.3, -0.4), 2.4, every))[0]
    assert measured is not None
    assert measured.excess_mm == pytest.approx(2.4, abs=0.1)  # the ridge keeps shifts small
    assert measured.spread_mm < 0.05 and measured.lines == ah.LINES


def test_one_side_of_a_tile_seen_corner_first_gives_no_measure() -> None:
    one_side = np.zeros((1, ah.LINES), dtype=bool)
    one_side[0, :3] = True
    assert ah.fit_measures(_stacks(45.0, (0.3, -0.4), 2.4, one_side))[0] is None
    # seen face on, the same lines tell the hidden board
    measured = ah.fit_measures(_stacks(0.0, (0.3, -0.4), 2.4, one_side))[0]
    assert measured is not None and measured.excess_mm == pytest.approx(2.4, abs=0.1)


def test_the_placements_of_many_stacks_are_fitted_as_each_alone() -> None:
    rng = np.random.default_rng(3)
    parts = []
    for _ in range(6):
        mask = rng.random((1, ah.LINES)) < 0.8
        parts.append(
            _stacks(
                float(rng.uniform(0, 90)),
                tuple(rng.uniform(-1, 1, 2)),
                float(rng.uniform(0.5, 3.5)),
                mask,
            )
        )
    together = ah._Stacks(
        *(
            np.concatenate([getattr(p, f) for p in parts])
            for f in (
                "centre",
                "half",
                "angle",
                "along",
                "offsets",
                "chords",
                "near",
                "far",
                "mask",
            )
        )
    )
    alone = [ah.fit_measures(p)[0] for p in parts]
    assert ah.fit_measures(together) == alone
