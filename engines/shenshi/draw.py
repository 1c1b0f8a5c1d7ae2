"""A turn drawn uniformly from the legal turns, without counting them all.

A position can have tens of millions of turns, most of them a hover in the middle of
the turn (the second action) followed by a short last action: an orange cushion that
lifts blond cushions stops on the same square in hundreds of ways, one for each square
the lifted cushions are put down on. Counting those turns one by one is what makes an
exact count slow; this module draws without it, by rejection:

* The search of ``movegen`` walks the first two actions of every turn, except that a
  second action that is a hover is not played: its hovers are grouped by the square
  they end on, and each group is a *block* of ``n`` hovers followed by at most ``bound``
  turn endings (``_Bounds``: what the last action can do, reckoned on the position before
  the hover with the squares the hover may change taken at their most favourable).
* The turns found otherwise count one each; a block counts ``n * bound``. A number is
  drawn uniformly below the total. A turn found otherwise is that turn; in a block it
  names one hover and one of its ``bound`` places: the hover is played, its turns are
  counted, and the place is one of them, or nothing (drawn again).

Every legal turn owns exactly one number below the total, so each is drawn with the
same probability at every attempt: the draw is exactly uniform, and the bounds only
decide how often a number is drawn again. ``slot_turn`` gives the turn a number owns,
so tests can check the claim over every number of a small position.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from itertools import combinations
from typing import TYPE_CHECKING, cast

from engines.dice import Dice
from engines.shenshi.board import (
    BLOND,
    FADED,
    N_SQUARES,
    NEIGHBOURS,
    NO_CUSHION,
    ORANGE,
    RAYS,
    SIZE,
)
from engines.shenshi.hovers import orange_summary
from engines.shenshi.movegen import (
    _CROSS,
    _Count,
    _Found,
    _Search,
    _Select,
    _Sink,
    counted_move,
)
from engines.shenshi.moves import Action, Enter, Hover, Move, Pass, Swap, Turn, Walk
from engines.shenshi.options import hover_ends
from engines.shenshi.plan import Plan, incomplete, steps

if TYPE_CHECKING:
    from engines.shenshi.state import ShenshiState

ATTEMPTS = 200
"""Numbers drawn before the draw falls back on counting every turn (``counted_move``).
The fallback is uniform too, and whether it is needed does not depend on the turn it
gives, so the draw stays uniform; it only bounds the time of a position whose blocks are
mostly empty (or hold no turn at all)."""


def _within_two(square: int) -> tuple[int, ...]:
    """The squares a walk from ``square`` can reach or pass (one or two steps)."""
    near = {a for a in NEIGHBOURS[square]}
    near |= {b for a in NEIGHBOURS[square] for b in NEIGHBOURS[a]}
    near.discard(square)
    return tuple(sorted(near))


_NEAR: tuple[tuple[int, ...], ...] = tuple(_within_two(s) for s in range(N_SQUARES))
_NEAR_MASK: tuple[int, ...] = tuple(sum(1 << s for s in near) for near in _NEAR)
_CROSS_MASK: tuple[int, ...] = tuple(
    sum(1 << t for t in range(N_SQUARES) if t // SIZE == s // SIZE or t % SIZE == s % SIZE)
    for s in range(N_SQUARES)
)

_WALK_BOUNDS: dict[tuple[int, ...], int] = {}
"""``_walk_bound`` answers by their arguments: they depend on a few squares only, and
recur from position to position."""


def _walk_count(start: int, ok: int, victims: int, straight: bool) -> int:
    """How many walks start at ``start`` when the squares of ``ok`` may be walked over
    or onto (a cushion or a faded mandala, without a monk or with one the walk removes)
    and those of ``victims`` hold a monk it removes (``options.walk_paths``)."""
    n = 0
    for a in NEIGHBOURS[start]:
        if not ok >> a & 1:
            continue
        n += 1
        for b in NEIGHBOURS[a]:
            if straight and b - a != a - start:
                continue
            if b == start:
                n += victims >> a & 1
            elif ok >> b & 1:
                n += 1
    return n


def _walk_bound(start: int, ok: int, victims: int, maybe: int, puts: int, straight: bool) -> int:
    """The most walks from ``start`` once up to ``puts`` squares of ``maybe`` (empty
    squares a lifted cushion may be put down on) are free cushions too. More walkable
    squares never remove a walk, so the most is reached with ``puts`` of them (all when
    fewer), and trying each choice gives it exactly."""
    mask = _NEAR_MASK[start]
    key = (start, ok & mask, victims & mask, maybe & mask, puts, straight)
    found = _WALK_BOUNDS.get(key)
    if found is not None:
        return found
    near = [s for s in _NEAR[start] if maybe >> s & 1]
    if puts >= len(near):
        found = _walk_count(start, ok | maybe & mask, victims, straight)
    elif puts == 0:
        found = _walk_count(start, ok, victims, straight)
    else:
        found = max(
            _walk_count(start, ok | sum(1 << s for s in chosen), victims, straight)
            for chosen in combinations(near, puts)
        )
    if len(_WALK_BOUNDS) > 500_000:
        _WALK_BOUNDS.clear()
    _WALK_BOUNDS[key] = found
    return found


def _ray_bound(start: int, passable: int) -> int:
    """How many squares a blond hover from ``start`` (without a turn) can stop on when
    at most the squares of ``passable`` are free."""
    n = 0
    for ray in RAYS[start]:
        for s in ray:
            if not passable >> s & 1:
                break
            n += 1
    return n


class _Group:
    """The hovers of one monk as the second action after ``first`` (played by
    ``first_monk``); ``plan``: the plan once the hover is done. ``plain``: only the
    hovers that lift no cushion."""

    __slots__ = ("code", "first", "first_monk", "here", "monk", "plain", "plan")

    def __init__(
        self,
        first: Action,
        first_monk: int,
        plan: Plan,
        code: int,
        monk: int,
        here: int,
        plain: bool,
    ) -> None:
        self.first = first
        self.first_monk = first_monk
        self.plan = plan
        self.code = code
        self.monk = monk
        self.here = here
        self.plain = plain


_Ends = list[tuple[int, int, int]]
"""The blocks of a group: (end, n, bound) for the ``n`` hovers of the group that end on
``end`` (in the order of ``hover_ends``), each followed by at most ``bound`` turn
endings (the turn ending with the hover included)."""


class _Weigh(_Sink):
    """Counts the turns found one by one (``count``) and keeps the groups of blocks, each
    at its place in the order of the search: group ``i`` has its places from number
    ``starts[i]`` on, and ``through[i]`` is the number of places of the groups up to
    it."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0
        self.groups: list[tuple[_Group, _Ends, int]] = []
        self.starts: list[int] = []
        self.through: list[int] = []
        self.blocked = 0

    def one(self, prefix: tuple[Action, ...]) -> None:
        self.count += 1
        self.total += 1

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        self.count += n
        self.total += n

    def blocks(self, group: _Group, ends: _Ends) -> None:
        places = sum(n * bound for _, n, bound in ends)
        if not places:
            return
        self.groups.append((group, ends, places))
        self.starts.append(self.total)
        self.blocked += places
        self.through.append(self.blocked)
        self.total += places


class _SelectFound(_Select):
    """``_Select`` over the turns found one by one; blocks are passed over."""

    def blocks(self, group: _Group, ends: _Ends) -> None:
        pass


class _Blocking(_Search):
    """The search whose second actions that are hovers become blocks (when ``_Bounds``
    can bound what follows them)."""

    def __init__(self, state: ShenshiState, sink: _Weigh | _SelectFound) -> None:
        super().__init__(state, sink)
        self.weigh = sink
        self.bounds = _Bounds(self)
        self.ends: dict[tuple[object, ...], list[tuple[int, int, int]]] = {}

    def _hovers(
        self, nxt: Plan, prefix: tuple[Action, ...], code: int, monk: int, here: int
    ) -> None:
        if len(prefix) != 1:
            super()._hovers(nxt, prefix, code, monk, here)
            return
        first = prefix[0]
        bound = self.bounds.after_hover(nxt, monk, here, first)
        if bound is None:
            super()._hovers(nxt, prefix, code, monk, here)
            return
        first_monk = self.state.rules.monk_id(self.p, first.monk)
        group = _Group(first, first_monk, nxt, code, monk, here, not bound.with_lifts)
        if bound.with_lifts:
            of = bound.of
            self.weigh.blocks(
                group, [(end, n, of(end, puts)) for end, n, puts in self._ends(monk, here)]
            )
            return
        # Hovers that lift cushions are searched, the others are blocks of one.
        state = self.state
        plain: _Ends = []
        for end, lifts in hover_ends(state, monk):
            if lifts:
                state._do_hover(monk, here, end, lifts)
                self._child(nxt, prefix, Hover(code, here, end, lifts))
                state._undo_hover(monk, here, end, lifts)
            else:
                plain.append((end, 1, bound.of(end, 0)))
        self.weigh.blocks(group, plain)

    def _ends(self, monk: int, here: int) -> list[tuple[int, int, int]]:
        """(end, how many hovers end there, the most cushions they lift) for each square
        the hovers of ``monk`` (on ``here``) end on, in the order of ``hover_ends``.
        Remembered by what they depend on (as ``_hover_count``)."""
        state = self.state
        key: tuple[object, ...] | None = None
        if not (self.turning and state.cushion[here] == BLOND):
            cushion, occ = state.cushion, state.occ
            key = (
                here,
                tuple([cushion[s] + 4 * (occ[s] >= 0) for s in _CROSS[here]]),
                cushion.count(NO_CUSHION) - self.tiles,
            )
            found = self.ends.get(key)
            if found is not None:
                return found
        if state.cushion[here] == ORANGE:
            counts = orange_summary(state, here)
        else:
            counts = {end: [1, 0] for end, _ in hover_ends(state, monk)}
        summary = [(end, n, puts) for end, (n, puts) in counts.items()]
        if key is not None:
            self.ends[key] = summary
        return summary


class _Bounds:
    """Upper bounds on the turn endings after a hover that is the second action.

    After the hover the turn may end (one ending) and one action is left: walks, blond
    hovers and swaps of the monks that may still act. The position after the hover is
    the one before it except on the squares it changes: the square the monk left (now
    empty), the square it ends on, the blond cushions it lifted (now empty) and the
    empty squares it put them on (now free cushions). The bounds read the position
    before the hover, taking each of those squares at its best for the last action. An
    orange hover's last action that is a hover is not bounded (the hovers of an orange
    cushion change in number too much with the lifted cushions): such a second action is
    searched."""

    def __init__(self, search: _Blocking) -> None:
        self.search = search
        rules = search.state.rules
        self.straight = rules.walk == "straight"
        p, neutral = search.p, rules.n_players
        # removable[size]: the monks a walker of that size removes.
        self.removable = [
            {m for m in range(rules.n_monks) if m >> 1 not in (p, neutral) and m & 1 != size}
            for size in (0, 1)
        ]
        # The squares by what they hold in the position searched (``base``), then
        # after the first action of the turn being searched.
        self.base = self._masks_of(range(N_SQUARES), [0] * 5)
        self.masks_of = -1
        self.free = self.empty = self.free_blond = 0
        self.victims = [0, 0]

    def _masks_of(self, squares: Iterable[int], masks: list[int]) -> list[int]:
        """``masks`` (free, empty, free blond, removable by a Grand Master, by a
        master) with the bits of ``squares`` set from the position as it stands."""
        state = self.search.state
        cushion, occ, tile = state.cushion, state.occ, state.tile
        free, empty, free_blond, v0, v1 = masks
        r0, r1 = self.removable
        for s in squares:
            bit = 1 << s
            c = cushion[s]
            if c or tile[s] == FADED:
                m = occ[s]
                if m < 0:
                    free |= bit
                    if c == BLOND:
                        free_blond |= bit
                elif m in r0:
                    v0 |= bit
                elif m in r1:
                    v1 |= bit
            elif not tile[s]:
                empty |= bit
        return [free, empty, free_blond, v0, v1]

    def _masks(self, first: Action) -> None:
        """The masks once ``first`` is played: those of the position searched, again
        on the squares the action changed (once per first action)."""
        search = self.search
        if self.masks_of == search.roots:
            return
        self.masks_of = search.roots
        if type(first) is Walk:
            squares: tuple[int, ...] = first.path
        elif type(first) is Hover:
            squares = (first.start, first.end, *(s for lift in first.lifts for s in lift))
        elif type(first) is Enter:
            squares = (first.square, first.cushion)
        else:
            squares = (cast(Swap, first).start, cast(Swap, first).other)
        touched = {s for s in squares if s >= 0}  # a walk may come back to its start
        keep = ~sum(1 << s for s in touched)
        masks = self._masks_of(touched, [mask & keep for mask in self.base])
        self.free, self.empty, self.free_blond = masks[0], masks[1], masks[2]
        self.victims = [masks[3], masks[4]]

    def after_hover(self, plan: Plan, monk: int, here: int, first: Action) -> _HoverBound | None:
        """The bounds after the hovers of ``monk`` from ``here`` as the second action,
        after ``first`` (``plan``: the plan after the hover); None when a last action
        cannot be bounded."""
        search = self.search
        state, ctx = search.state, search.ctx
        pos, cushion = state.pos, state.cushion
        walks: list[int] = []  # the other monks that may walk last
        hovers: list[int] = []  # ... hover last
        own_walk = False
        swaps = 0
        for _, other, walk, hover, swap in steps(ctx, plan, search.monks):
            if pos[other] < 0:
                continue
            if walk is not None:
                if other == monk:
                    own_walk = True
                else:
                    walks.append(other)
            if hover is not None and incomplete(ctx, hover) is None:
                if other == monk:
                    return None
                hovers.append(other)
            if swap is not None and incomplete(ctx, swap) is None and pos[other ^ 1] >= 0:
                swaps += 1
        self._masks(first)
        lifting = cushion[here] == ORANGE and state.rules.orange_lifts > 0
        # An orange cushion's hovers are bounded after a hover that lifts nothing only.
        with_lifts = not (lifting and any(cushion[pos[o]] == ORANGE for o in hovers))
        base = (1 if incomplete(ctx, plan) is None else 0) + swaps
        return _HoverBound(self, monk, here, base, walks, hovers, own_walk, with_lifts)

    def hover_count(self, monk: int, here: int, lifted: int) -> int:
        """The most hovers ``monk`` can have after a hover from ``here`` that lifted
        blond cushions from the squares of ``lifted`` at most: its hovers in the
        position with ``here`` and those squares empty. (Emptying a square that holds
        a monk, a cushion under a monk, or a blond cushion that will not be lifted only
        adds hovers, a blond hover's too; a cushion put down may add hovers to an
        orange cushion, which is why those are not bounded after a lift.)"""
        search = self.search
        state = search.state
        cushion, occ = state.cushion, state.occ
        square = state.pos[monk]
        if cushion[square] == BLOND and not search.turning:
            return _ray_bound(square, self.empty | 1 << here | lifted)
        emptied = [here, *(s for s in range(N_SQUARES) if lifted >> s & 1)]
        saved = [(s, cushion[s], occ[s]) for s in emptied]
        for s in emptied:
            cushion[s] = NO_CUSHION
            occ[s] = -1
        try:
            return search._hover_count(monk, square, -1)
        finally:
            for s, c, m in saved:
                cushion[s] = c
                occ[s] = m


class _HoverBound:
    """The bound of the turn endings after a hover that is the second action, by the
    square it ends on and the most cushions it lifts (``of``)."""

    def __init__(
        self,
        bounds: _Bounds,
        monk: int,
        here: int,
        base: int,
        walks: list[int],
        hovers: list[int],
        own_walk: bool,
        with_lifts: bool,
    ) -> None:
        self.bounds = bounds
        self.monk = monk
        self.here = here
        self.base = base
        self.walks = walks
        self.hovers = hovers
        self.own_walk = own_walk
        self.with_lifts = with_lifts
        """Whether hovers that lift cushions are bounded too (else they are searched)."""
        self.rest: dict[int, int] = {}

    def _rest(self, puts: int) -> int:
        """The bound of everything but the hovering monk's own walk."""
        found = self.rest.get(puts)
        if found is not None:
            return found
        bounds, here = self.bounds, self.here
        pos = bounds.search.state.pos
        total = self.base
        maybe = (bounds.empty | 1 << here) if puts else 0
        for other in self.walks:
            size = other & 1
            total += _walk_bound(
                pos[other],
                bounds.free | bounds.victims[size],
                bounds.victims[size],
                maybe,
                puts,
                bounds.straight,
            )
        lifted = bounds.free_blond & _CROSS_MASK[here] if puts else 0
        for other in self.hovers:
            total += bounds.hover_count(other, here, lifted)
        self.rest[puts] = total
        return total

    def of(self, end: int, puts: int) -> int:
        total = self._rest(puts)
        if self.own_walk:
            bounds = self.bounds
            size = self.monk & 1
            maybe = (bounds.empty | 1 << self.here) if puts else 0
            total += _walk_bound(
                end,
                bounds.free | bounds.victims[size],
                bounds.victims[size],
                maybe,
                puts,
                bounds.straight,
            )
        return total


def _play(state: ShenshiState, monk: int, action: Action) -> None:
    """Play one action (for the search that replays a drawn turn's beginning)."""
    if type(action) is Walk:
        state._do_walk(monk, action.path)
    elif type(action) is Hover:
        state._do_hover(monk, action.start, action.end, action.lifts)
    elif type(action) is Enter:
        state._do_enter(monk, action.square, action.cushion)
    elif type(action) is Swap:
        state._do_swap(action.start, action.other)
    else:
        raise TypeError(f"not an action: {action!r}")


def _block_turn(state: ShenshiState, group: _Group, ends: _Ends, place: int) -> Turn | None:
    """The turn that place ``place`` of the blocks of ``group`` names, or None when it
    names none."""
    for end, n, bound in ends:
        if place < n * bound:
            return _hover_turn(state, group, end, bound, place)
        place -= n * bound
    raise IndexError(f"place {place} past the blocks of {group.first!r}")


def _hover_turn(
    state: ShenshiState, group: _Group, end: int, bound: int, place: int
) -> Turn | None:
    """The turn that place ``place`` of the block of the hovers of ``group`` that end
    on ``end`` names, or None."""
    which, ending = divmod(place, bound)
    search = _Search(state.copy(), _Count())
    played = search.state
    _play(played, group.first_monk, group.first)
    lifts = [
        lifts
        for e, lifts in hover_ends(played, group.monk)
        if e == end and not (group.plain and lifts)
    ]
    hover = Hover(group.code, group.here, end, lifts[which])
    played._do_hover(group.monk, group.here, end, hover.lifts)
    prefix = (group.first,)
    search._child(group.plan, prefix, hover)
    count = cast(_Count, search.sink).count
    if count > bound:
        raise AssertionError(f"{count} turns after {hover!r}, bound {bound}")
    if ending >= count:
        return None
    search.sink = _Select(ending)
    try:
        search._child(group.plan, prefix, hover)
    except _Found as found:
        return found.turn
    raise AssertionError("the turns after a hover changed between two searches")


class Weighed:
    """The numbers of a position's turns: ``total`` places, each naming one legal turn
    or none, every legal turn named by exactly one (``turn``)."""

    def __init__(self, state: ShenshiState) -> None:
        self.state = state
        self.sink = _Weigh()
        search = _Blocking(state, self.sink)
        search.root_ends = []
        search.run()
        self.root_ends = search.root_ends
        self.total = self.sink.total

    def turn(self, place: int) -> Turn | None:
        """The turn that ``place`` (below ``total``) names, or None."""
        sink = self.sink
        i = bisect.bisect_right(sink.starts, place) - 1
        if i >= 0 and place < sink.starts[i] + sink.groups[i][2]:
            group, ends, _ = sink.groups[i]
            return _block_turn(self.state, group, ends, place - sink.starts[i])
        index = place - (sink.through[i] if i >= 0 else 0)
        root_ends = self.root_ends
        assert root_ends is not None
        first = bisect.bisect_right(root_ends, index)
        before = root_ends[first - 1] if first else 0
        again = _Blocking(self.state.copy(), _SelectFound(index - before))
        again.only_root = first
        try:
            again.run()
        except _Found as found:
            return found.turn
        raise AssertionError("the turns of a first action changed between two searches")


def random_move(state: ShenshiState, dice: Dice) -> Move:
    """A legal turn drawn uniformly (``pass`` when there is none): a place drawn below
    ``Weighed.total``, again until it names a turn (``ATTEMPTS`` at most, then
    ``counted_move``)."""
    weighed = Weighed(state)
    if not weighed.total:
        return Pass()
    for _ in range(ATTEMPTS):
        turn = weighed.turn(dice.below(weighed.total))
        if turn is not None:
            return turn
    return counted_move(state, dice)
