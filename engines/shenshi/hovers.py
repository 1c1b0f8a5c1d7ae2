"""How many hovers an orange cushion has, by end square, without listing them.

``options.hover_ends`` lists every (end, lifts) of an orange hover: with two lifts, one
for each pair of squares the lifted cushions are put down on, hundreds to thousands.
Counting needs none of them. Along one direction the cushion goes over empty squares
(each an end) to its first obstacle; a free blond cushion there is lifted and put down
on one of the ``e`` empty squares, and the hover goes on. Where it is put down changes
what follows only when it lies on the line ahead (it stops the cushion there); so the
count after a lift is ``e`` times the count of the line without it, corrected for the
few squares of the line. The last lift allowed is counted in closed form.

A hover found along both directions of a line is one hover (``hover_ends`` keeps it
once). That happens only when the line's six other squares hold no obstacle, or one
free blond cushion and nothing else: such a line is listed (it has few hovers), every
other line is counted direction by direction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.shenshi.board import BLOND, CYCLES, N_SQUARES, NO_CUSHION, ORANGE
from engines.shenshi.options import _orange_run

if TYPE_CHECKING:
    from engines.shenshi.options import Lifts
    from engines.shenshi.state import ShenshiState

Summary = dict[int, list[int]]
"""end square: [how many hovers end there, the most cushions one of them lifts]."""


def orange_summary(state: ShenshiState, start: int, lift_put_down: str | None = None) -> Summary:
    """For the orange cushion on ``start``: how many hovers end on each square, and the
    most cushions one of them lifts (``hover_ends`` grouped by end, without the list).
    Raises ValueError when ``start`` holds no orange cushion."""
    cushion = state.cushion
    if cushion[start] != ORANGE:
        raise ValueError(f"square {start} holds no orange cushion")
    if lift_put_down is None:
        lift_put_down = state.rules.lift_put_down
    onto_orange = lift_put_down == "also-orange-square"
    limit = state.rules.orange_lifts
    out: Summary = {}
    cushion[start] = NO_CUSHION  # the cushion has left: its square is empty behind it
    try:
        empty = sum(1 for s in range(N_SQUARES) if not cushion[s] and not state.tile[s])
        for forward, backward in ((0, 2), (1, 3)):
            lines = (CYCLES[start][forward], CYCLES[start][backward])
            if _both_ways(state, lines[0], limit):
                found: dict[tuple[int, Lifts], None] = {}
                for line in lines:
                    _orange_run(state, start, line, 0, 6, (), limit, onto_orange, found)
                for end, lifts in found:
                    _add(out, end, 1, len(lifts))
            else:
                counter = _Counter(state, start, limit, onto_orange, empty, out)
                for line in lines:
                    counter.run(line, 0, 6, 0, 1)
    finally:
        cushion[start] = ORANGE
    return out


def _add(out: Summary, end: int, n: int, lifts: int) -> None:
    entry = out.get(end)
    if entry is None:
        out[end] = [n, lifts]
    else:
        entry[0] += n
        if lifts > entry[1]:
            entry[1] = lifts


def _both_ways(state: ShenshiState, line: tuple[int, ...], limit: int) -> bool:
    """Whether hovers along ``line`` (start last) may also be found the other way: its
    six other squares hold no obstacle, or only one free blond cushion to lift."""
    cushion, tile, occ = state.cushion, state.tile, state.occ
    obstacles = [s for s in line[:6] if cushion[s] or tile[s]]
    if not obstacles:
        return True
    if len(obstacles) > 1 or limit == 0:
        return False
    s = obstacles[0]
    return not tile[s] and cushion[s] == BLOND and occ[s] < 0


class _Counter:
    """``options._orange_run`` counting instead of listing, along one direction."""

    def __init__(
        self,
        state: ShenshiState,
        start: int,
        limit: int,
        onto_orange: bool,
        empty: int,
        out: Summary,
    ) -> None:
        self.cushion, self.tile, self.occ = state.cushion, state.tile, state.occ
        self.start = start
        self.limit = limit
        self.onto_orange = onto_orange
        # The empty squares a lifted cushion may be put down on: a lift empties one
        # square and fills another, so there are as many at every lift.
        self.choices = empty - (0 if onto_orange else 1)
        self.out = out
        self.put_down: list[int] = []

    def run(self, line: tuple[int, ...], k: int, steps: int, lifts: int, mult: int) -> None:
        """The hovers going on along ``line`` from index ``k`` for ``steps`` squares,
        ``lifts`` cushions lifted so far, each counted ``mult`` times."""
        cushion, tile, occ, start, out = self.cushion, self.tile, self.occ, self.start, self.out
        for i in range(k, k + steps):
            s = line[i % 7]
            if tile[s]:
                return
            c = cushion[s]
            if c == NO_CUSHION:
                if s != start:
                    _add(out, s, mult, lifts)
                continue
            if c != BLOND or occ[s] >= 0 or s in self.put_down or lifts >= self.limit:
                return
            self._lift(line, i, lifts, mult)
            return

    def _lift(self, line: tuple[int, ...], i: int, lifts: int, mult: int) -> None:
        """The hovers that lift the cushion on ``line[i]`` and go on."""
        cushion, tile = self.cushion, self.tile
        s = line[i % 7]
        under = -1 if self.onto_orange else line[(i - 1) % 7]
        choices = self.choices
        lifted = lifts + 1
        _add(self.out, s, mult * choices, lifted)  # it stops where it lifted
        cushion[s] = NO_CUSHION
        try:
            # The line ahead, and which of its squares a cushion may be put down on.
            ahead = [line[j % 7] for j in range(i + 1, i + 7)]
            on_line = [t for t in ahead if not cushion[t] and not tile[t] and t != under]
            if lifted < self.limit:
                # Put down off the line ahead: the hover goes on as if it were not there.
                self.run(line, i + 1, 6, lifted, mult * (choices - len(on_line)))
                for t in on_line:
                    cushion[t] = BLOND
                    self.put_down.append(t)
                    self.run(line, i + 1, 6, lifted, mult)
                    self.put_down.pop()
                    cushion[t] = NO_CUSHION
                return
            # The last lift: it goes on over the empty squares ahead, stopping before the
            # cushion put down if it lies there.
            before = 0  # choices on the way so far: put down there, it stops earlier
            for u in ahead:
                if cushion[u] or tile[u]:
                    break
                if u != under:
                    before += 1
                if u != self.start:
                    _add(self.out, u, mult * (choices - before), lifted)
        finally:
            cushion[s] = BLOND
