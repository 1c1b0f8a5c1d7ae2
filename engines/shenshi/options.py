"""What one monk can do in one action: its walks, hovers, swaps and entries.

Each function reads the position as it stands (in the middle of a turn too) and lists
the options of one action, in a fixed order. They are the single reference for both the
move generator (``movegen``), which plays them, and the validator (``validate``): an
action is legal exactly when it is among the options of its monk at that point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engines.shenshi.board import (
    BETWEEN,
    BLOND,
    CYCLES,
    FADED,
    NEIGHBOURS,
    NO_CUSHION,
    ORANGE,
    PERPENDICULAR,
    RAYS,
)
from engines.shenshi.moves import RESERVE_BLOND, RESERVE_ORANGE

if TYPE_CHECKING:
    from engines.shenshi.state import ShenshiState

Lifts = tuple[tuple[int, int], ...]
"""The (square, square) of each blond cushion an orange cushion lifts and puts down."""


def removable(state: ShenshiState, walker: int, victim: int) -> bool:
    """Whether ``walker``, moved by the player whose turn it is, removes ``victim`` by
    stopping on or passing its square: an opposing monk of the other size; never a
    neutral monk, never the player's own."""
    owner = victim >> 1
    return owner != state.turn and owner != state.rules.n_players and (victim & 1) != (walker & 1)


def walk_paths(state: ShenshiState, monk: int) -> list[tuple[int, ...]]:
    """The paths (start square first) of every walk of ``monk``: one or two orthogonal
    steps over cushions and faded mandalas, through or onto a monk only when it removes
    it; the second step may turn (option ``walk``) and may come back to the start after
    a removal."""
    cushion, tile, occ = state.cushion, state.tile, state.occ
    start = state.pos[monk]
    straight = state.rules.walk == "straight"
    p = state.turn
    neutral_owner = state.rules.n_players
    size = monk & 1
    out: list[tuple[int, ...]] = []
    for a in NEIGHBOURS[start]:
        if not cushion[a] and tile[a] != FADED:
            continue
        va = occ[a]
        if va >= 0 and ((va >> 1) in (p, neutral_owner) or (va & 1) == size):
            continue
        out.append((start, a))
        for b in NEIGHBOURS[a]:
            if straight and b - a != a - start:
                continue
            if b == start:
                if va >= 0:
                    out.append((start, a, start))
                continue
            if not cushion[b] and tile[b] != FADED:
                continue
            vb = occ[b]
            if vb >= 0 and ((vb >> 1) in (p, neutral_owner) or (vb & 1) == size):
                continue
            out.append((start, a, b))
    return out


def hover_ends(
    state: ShenshiState,
    monk: int,
    lift_put_down: str | None = None,
    targets: Sequence[int] | None = None,
) -> list[tuple[int, Lifts]]:
    """(end, lifts) of every hover of ``monk``, or [] when it is not on a cushion.

    A blond cushion goes straight over empty squares and stops on any of them before an
    obstacle (in the expert variant it may turn 90 degrees once). An orange cushion also
    crosses the edge to the opposite side, and may lift free blond cushions on its way
    (``orange_lifts`` at most per hover), each put down at once on an empty square (not
    the one the orange cushion stands on as it lifts it, unless ``lift_put_down``, by
    default the rules' option, says so); a cushion put down is an obstacle for the rest
    of the hover.

    ``targets``: only the hovers putting every lifted cushion down on one of these
    squares (ascending), in the same order as among all the hovers: with two lifts an
    orange cushion has thousands, and most callers want a few."""
    start = state.pos[monk]
    cushion = state.cushion
    colour = cushion[start]
    if colour == NO_CUSHION:
        return []
    cushion[start] = NO_CUSHION  # the cushion has left: its square is empty behind it
    try:
        if colour == BLOND:
            return _blond_ends(state, start)
        if lift_put_down is None:
            lift_put_down = state.rules.lift_put_down
        return _orange_ends(state, start, lift_put_down == "also-orange-square", targets)
    finally:
        cushion[start] = colour


def _blond_ends(state: ShenshiState, start: int) -> list[tuple[int, Lifts]]:
    cushion, tile = state.cushion, state.tile
    turns = state.rules.expert
    seen: dict[int, None] = {}
    for d in range(4):
        for s in RAYS[start][d]:
            if cushion[s] or tile[s]:
                break
            seen[s] = None
            if turns:
                for d2 in PERPENDICULAR[d]:
                    for t in RAYS[s][d2]:
                        if cushion[t] or tile[t]:
                            break
                        seen[t] = None
    return [(end, ()) for end in seen]


def is_hover(
    state: ShenshiState, monk: int, end: int, lifts: Lifts, lift_put_down: str | None = None
) -> bool:
    """Whether (``end``, ``lifts``) is among ``hover_ends(state, monk, lift_put_down)``,
    found among the few hovers putting cushions down where ``lifts`` does."""
    targets = sorted({put for _, put in lifts})
    return (end, lifts) in hover_ends(state, monk, lift_put_down, targets)


def _orange_ends(
    state: ShenshiState, start: int, onto_orange: bool, targets: Sequence[int] | None = None
) -> list[tuple[int, Lifts]]:
    found: dict[tuple[int, Lifts], None] = {}
    limit = state.rules.orange_lifts
    for d in range(4):
        _orange_run(state, start, CYCLES[start][d], 0, 6, (), limit, onto_orange, found, targets)
    return list(found)


def _orange_run(
    state: ShenshiState,
    start: int,
    line: tuple[int, ...],
    k: int,
    steps: int,
    lifts: Lifts,
    limit: int,
    onto_orange: bool,
    found: dict[tuple[int, Lifts], None],
    targets: Sequence[int] | None = None,
) -> None:
    """Go on along ``line`` (7 squares, cyclic, ``start`` last) from index ``k`` for
    ``steps`` squares: after that many the cushion would only come back over squares
    already reached. ``onto_orange``: a lifted cushion may be put down on the square
    the orange cushion stands on as it lifts it (the one before it on the line).
    ``targets``: the squares a lifted cushion may be put down on (None: any)."""
    cushion, tile, occ = state.cushion, state.tile, state.occ
    put_down = {put for _, put in lifts}
    for i in range(k, k + steps):
        s = line[i % 7]
        if tile[s]:
            return
        c = cushion[s]
        if c == NO_CUSHION:
            if s != start:
                found[(s, lifts)] = None
            continue
        if c != BLOND or occ[s] >= 0 or s in put_down or len(lifts) >= limit:
            return
        # Lift the free blond cushion on s; the orange cushion is now over s.
        cushion[s] = NO_CUSHION
        under = -1 if onto_orange else line[(i - 1) % 7]
        empties = [
            t
            for t in (range(49) if targets is None else targets)
            if not cushion[t] and not tile[t] and t != s and t != under
        ]
        if len(lifts) + 1 < limit:
            for t in empties:
                cushion[t] = BLOND
                more = (*lifts, (s, t))
                found[(s, more)] = None
                _orange_run(state, start, line, i + 1, 6, more, limit, onto_orange, found, targets)
                cushion[t] = NO_CUSHION
        else:
            # The last lift allowed: the way on is the same wherever the cushion is put
            # down, except that it stops before that square if it lies on the way.
            way = []
            for j in range(i + 1, i + 7):
                u = line[j % 7]
                if cushion[u] or tile[u]:
                    break
                way.append(u)
            for t in empties:
                more = (*lifts, (s, t))
                found[(s, more)] = None
                for u in way:
                    if u == t:
                        break
                    if u != start:
                        found[(u, more)] = None
        cushion[s] = BLOND
        return


def swap_targets(state: ShenshiState, monk: int) -> list[int]:
    """The square of the other monk of ``monk``'s colour when the two may swap: on one
    row or column, every square between them walkable and without a monk."""
    other = state.pos[monk ^ 1]
    here = state.pos[monk]
    if other < 0 or here < 0:
        return []
    squares = BETWEEN[here][other]
    if squares is None:
        return []
    occ, cushion, tile = state.occ, state.cushion, state.tile
    for s in squares:
        if occ[s] >= 0 or (not cushion[s] and tile[s] != FADED):
            return []
    return [other]


def entry_sources(state: ShenshiState) -> list[int]:
    """Where the cushion of an entry may come from: the offered cushion (expert), else
    the reserve's colours, else any free cushion of the board."""
    if state.offered >= 0:
        return [state.offered]
    p = state.turn
    sources = [
        src
        for src, colour in ((RESERVE_BLOND, BLOND), (RESERVE_ORANGE, ORANGE))
        if state.reserve[2 * p + colour - 1]
    ]
    return sources if sources else state.free_cushions()


def entry_squares(state: ShenshiState, source: int) -> list[int]:
    """Empty squares a monk may enter on with the cushion from ``source`` (a cushion
    taken from the board leaves its own square empty)."""
    cushion, tile = state.cushion, state.tile
    return [s for s in range(49) if (not cushion[s] or s == source) and not tile[s]]
