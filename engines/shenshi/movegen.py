"""Every legal turn of a position, depth-first over single actions.

A turn is a sequence of up to three actions; what may come next is decided by
``plan`` (the limits of a turn) and by ``options`` (where one monk can walk, hover, swap
or enter in the current position). The search plays each option with the state's
``_do_*`` methods, recurses, and undoes it, so the position is never copied. The order
is fixed: monks by notation code (G, M, NG, NM), then kind (entry, walk, hover, swap),
then the order of each option function; a turn comes before its longer continuations.

The turns found go to a sink: ``legal_turns`` builds them, ``count_turns`` only counts,
``nth_turn`` builds only one; ``counted_move`` counts the turns of each first action and
builds one turn, so it needs no list; ``random_move`` (``draw``) does not even count
them all. A search that only counts counts the hovers that end a turn without listing
them (``_Search._hover_count``; an orange cushion's in closed form, ``hovers``).
"""

from __future__ import annotations

import bisect
import gc
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar, cast

from engines.dice import Dice
from engines.shenshi.board import BLOND, N_SQUARES, NO_CUSHION, ORANGE, SIZE
from engines.shenshi.hovers import orange_summary
from engines.shenshi.moves import (
    Action,
    Enter,
    Hover,
    Move,
    Pass,
    Swap,
    Turn,
    Walk,
)
from engines.shenshi.options import (
    entry_sources,
    entry_squares,
    hover_ends,
    swap_targets,
    walk_paths,
)
from engines.shenshi.plan import ENTER, Plan, after, incomplete, steps

if TYPE_CHECKING:
    from engines.shenshi.plan import TurnContext
    from engines.shenshi.state import ShenshiState

T = TypeVar("T")

_CROSS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sorted(
            {sq // SIZE * SIZE + c for c in range(SIZE)}
            | {r * SIZE + sq % SIZE for r in range(SIZE)}
        )
    )
    for sq in range(N_SQUARES)
)
"""``_CROSS[square]``: the squares of its row and its column (13, itself included)."""


# ---------------------------------------------------------------------- whole turns


def usable_codes(state: ShenshiState) -> tuple[int, ...]:
    """Notation codes of the monks the player to move may use: own, then neutral."""
    return (0, 1, 2, 3) if state.rules.has_neutral else (0, 1)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while a search builds up to millions of small
    objects that never form cycles: each collection would walk them all again, and
    they are freed by reference counting anyway."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def legal_turns(state: ShenshiState) -> list[Turn]:
    """Every legal turn of the player whose turn it is, in the module's fixed order."""
    sink = _Collect()
    with _collector_paused():
        _Search(state, sink).run()
    return sink.turns


def count_turns(state: ShenshiState, limit: int | None = None) -> int:
    """How many legal turns there are (without building them); with ``limit``, stop
    counting past it and return ``limit + 1``."""
    if limit is None:
        sink = _Count()
        with _collector_paused():
            _Search(state, sink).run()
        return sink.count
    sink = _Select(limit + 1)
    try:
        with _collector_paused():
            _Search(state.copy(), sink).run()  # stopped in the middle: work on a copy
    except _Found:
        return limit + 1
    return sink.count


def first_turns(state: ShenshiState, limit: int) -> list[Turn]:
    """``legal_turns(state)[:limit]``, building only those turns."""
    sink = _CollectFirst(limit)
    try:
        with _collector_paused():
            # The search stops in the middle of its actions: let it work on a copy.
            _Search(state.copy(), sink).run()
    except _Enough:
        pass
    return sink.turns[:limit]


def nth_turn(state: ShenshiState, index: int) -> Turn:
    """``legal_turns(state)[index]``, building only that turn.
    Raises IndexError when there are not that many."""
    sink = _Select(index)
    try:
        with _collector_paused():
            # The search stops in the middle of its actions: let it work on a copy.
            _Search(state.copy(), sink).run()
    except _Found as found:
        return found.turn
    raise IndexError(f"turn {index} of {sink.count}")


def has_turn(state: ShenshiState) -> Turn | None:
    """The first legal turn, or None when there is none (the player must pass)."""
    try:
        return nth_turn(state, 0)
    except IndexError:
        return None


def counted_move(state: ShenshiState, dice: Dice) -> Move:
    """``dice.choice(legal_moves)`` in a turn, without building the legal moves: count
    the turns that begin with each first action, draw an index as ``Dice.choice``
    does, and build that one turn, searching again only the turns of its first action
    (``pass``, the only move, when there is none). As uniform as ``random_move`` but
    it counts every turn: slower on wide positions."""
    sink = _Count()
    search = _Search(state, sink)
    search.root_ends = []
    with _collector_paused():
        search.run()
    if not sink.count:
        return Pass()
    index = int(dice.random() * sink.count)
    first = bisect.bisect_right(search.root_ends, index)
    before = search.root_ends[first - 1] if first else 0
    select = _Select(index - before)
    again = _Search(state.copy(), select)  # stopped in the middle: work on a copy
    again.only_root = first
    try:
        with _collector_paused():
            again.run()
    except _Found as found:
        return found.turn
    raise AssertionError("the turns of a first action changed between two searches")


def playout_move(state: ShenshiState, dice: Dice, stop: float = 0.5) -> Move:
    """A quick random turn for search playouts (not uniform over turns): a depth-first
    descent trying the options in random order, which ends each complete turn it meets
    with probability ``stop`` (a two-action turn as likely as a longer one), else goes
    on to longer ones; ``pass`` when there is no turn."""
    sink = _Random(dice, stop)
    try:
        with _collector_paused():
            _Shuffled(state.copy(), sink, dice).run()
    except _Found as found:
        return found.turn
    return sink.fallback if sink.fallback is not None else Pass()


class _Found(Exception):
    def __init__(self, turn: Turn) -> None:
        super().__init__()
        self.turn = turn


class _Sink(ABC):
    """Where the search puts the turns it finds: one turn, or a batch of turns that
    share all but their last action (``build`` makes those last actions)."""

    @abstractmethod
    def one(self, prefix: tuple[Action, ...]) -> None:
        """The turn made of ``prefix``."""

    @abstractmethod
    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        """``n`` turns: ``prefix`` followed by each action ``build()`` returns."""


class _Collect(_Sink):
    def __init__(self) -> None:
        self.turns: list[Turn] = []

    def one(self, prefix: tuple[Action, ...]) -> None:
        self.turns.append(Turn(prefix))

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        self.turns.extend([Turn((*prefix, action)) for action in build()])


class _Enough(Exception):
    """Raised by ``_CollectFirst`` once it holds what was asked for."""


class _CollectFirst(_Collect):
    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def one(self, prefix: tuple[Action, ...]) -> None:
        super().one(prefix)
        if len(self.turns) >= self.limit:
            raise _Enough

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        super().many(prefix, n, build)
        if len(self.turns) >= self.limit:
            raise _Enough


class _Count(_Sink):
    def __init__(self) -> None:
        self.count = 0

    def one(self, prefix: tuple[Action, ...]) -> None:
        self.count += 1

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        self.count += n


class _Select(_Count):
    def __init__(self, target: int) -> None:
        super().__init__()
        self.target = target

    def one(self, prefix: tuple[Action, ...]) -> None:
        if self.count == self.target:
            raise _Found(Turn(prefix))
        self.count += 1

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        if self.count + n > self.target:
            raise _Found(Turn((*prefix, build()[self.target - self.count])))
        self.count += n


class _Random(_Sink):
    """Stops the search at a random turn: each complete turn met ends it with
    probability ``stop``; a batch of last actions ends it on one of them."""

    def __init__(self, dice: Dice, stop: float) -> None:
        self.dice = dice
        self.stop = stop
        self.fallback: Turn | None = None

    def one(self, prefix: tuple[Action, ...]) -> None:
        if self.fallback is None:
            self.fallback = Turn(prefix)
        if self.dice.random() < self.stop:
            raise _Found(Turn(prefix))

    def many(self, prefix: tuple[Action, ...], n: int, build: Callable[[], list[Action]]) -> None:
        if n:
            raise _Found(Turn((*prefix, build()[self.dice.below(n)])))


class _Search:
    """The depth-first walk over the actions of a turn.

    Positions one action before the end of a turn (two actions done) do not play their
    last actions: the turn is complete or not whatever the action's outcome, except when
    a walk wins the game, and the neutral-monk rule only needs the action's end squares.
    Those last actions reach the sink in batches, built only if the sink needs them.
    """

    def __init__(self, state: ShenshiState, sink: _Sink) -> None:
        self.state = state
        self.sink = sink
        self.ctx: TurnContext = state.context()
        rules = state.rules
        p = state.turn
        self.monks = [(code, rules.monk_id(p, code)) for code in usable_codes(state)]
        self.goal = rules.board.goal
        self.p = p
        neutral = 2 * rules.n_players if rules.has_neutral else -1
        self.neutral = neutral
        nf = state.neutral_from
        self.guard = neutral >= 0 and (nf[0] >= 0 or nf[1] >= 0)
        self.guard_each_action = rules.neutral_return == "action"
        # First actions: the count of turns after each one's (when a list), and the only
        # one to search (when >= 0), by their place in the search order.
        self.root_ends: list[int] | None = None
        self.only_root = -1
        self.roots = 0
        # How many hovers end a turn, by what they depend on (see _hover_count).
        self.hover_counts: dict[tuple[object, ...], int] = {}
        self.tiles = sum(1 for t in state.tile if t)
        self.turning = rules.expert  # blond hovers may turn: they depend on every square
        self.listing = isinstance(sink, _Collect)

    def run(self) -> None:
        self._extend(Plan(), ())

    def _order(self, options: Iterable[T]) -> list[T]:
        """The order to try ``options`` in: as given (the fixed order of the module);
        ``_Shuffled`` tries them at random."""
        return options if isinstance(options, list) else list(options)

    def _neutral_back(self) -> bool:
        """Whether a neutral monk stands on the square it may not return to."""
        state = self.state
        nf, pos, g = state.neutral_from, state.pos, self.neutral
        return pos[g] == nf[0] or pos[g + 1] == nf[1]

    def _extend(self, plan: Plan, prefix: tuple[Action, ...]) -> None:
        state = self.state
        ctx = self.ctx
        if incomplete(ctx, plan) is None and not (
            self.guard and not self.guard_each_action and self._neutral_back()
        ):
            self.sink.one(prefix)
        if plan.won or plan.n >= 3:
            return
        if ctx.must_enter and plan.n == 0:
            self._entries(plan)
            return
        last = plan.n == 2
        pos = state.pos
        for code, monk, walk, hover, swap in self._order(steps(ctx, plan, self.monks)):
            here = pos[monk]
            if here < 0:
                continue
            if walk is not None:
                paths = self._order(walk_paths(state, monk))
                if last:
                    self._last_walks(walk, prefix, code, monk, paths)
                else:
                    for path in paths:
                        undo = state._do_walk(monk, path)
                        self._child(walk, prefix, Walk(code, path))
                        state._undo_walk(monk, path, undo)
            if hover is not None:
                if hover.third_hover and _walked_back(prefix[-1]):
                    pass  # expert: the closing hover would leave from the first cushion
                elif last:
                    self._last_hovers(hover, prefix, code, monk, here)
                else:
                    self._hovers(hover, prefix, code, monk, here)
            if swap is not None:
                for other in self._order(swap_targets(state, monk)):
                    if last:
                        self._last_swap(swap, prefix, Swap(code, here, other), monk, other)
                    else:
                        state._do_swap(here, other)
                        self._child(swap, prefix, Swap(code, here, other))
                        state._do_swap(here, other)

    def _hovers(
        self, nxt: Plan, prefix: tuple[Action, ...], code: int, monk: int, here: int
    ) -> None:
        """Every hover of ``monk`` (on ``here``) that is not the last action of the turn,
        and the turns that go on from it."""
        state = self.state
        for end, lifts in self._order(hover_ends(state, monk)):
            state._do_hover(monk, here, end, lifts)
            self._child(nxt, prefix, Hover(code, here, end, lifts))
            state._undo_hover(monk, here, end, lifts)

    def _entries(self, plan: Plan) -> None:
        state = self.state
        for code, monk in self._order(self.monks[:2]):
            if state.pos[monk] >= 0:
                continue
            nxt = after(self.ctx, plan, monk, ENTER)
            if isinstance(nxt, str):
                continue
            for source in self._order(entry_sources(state)):
                for square in self._order(entry_squares(state, source)):
                    colour = state._do_enter(monk, square, source)
                    self._child(nxt, (), Enter(code, square, source))
                    state._undo_enter(monk, square, source, colour)

    def _child(self, nxt: Plan, prefix: tuple[Action, ...], action: Action) -> None:
        if not prefix:
            first = self.roots
            self.roots += 1
            if self.only_root >= 0 and first != self.only_root:
                return
        state = self.state
        if not (self.guard and self.guard_each_action and self._neutral_back()):
            if state.tokens[self.p] >= self.goal:
                nxt = nxt.winning()
            self._extend(nxt, (*prefix, action))
        if not prefix and self.root_ends is not None:
            self.root_ends.append(cast(_Count, self.sink).count)

    def _lands_back(self, moved: tuple[tuple[int, int], ...]) -> bool:
        """Whether, once the (monk, square) pairs of ``moved`` are played, a neutral
        monk stands on the square it may not go back to."""
        nf, pos, g = self.state.neutral_from, self.state.pos, self.neutral
        for k in range(2):
            square = pos[g + k]
            for monk, end in moved:
                if monk == g + k:
                    square = end
            if square == nf[k]:
                return True
        return False

    def _back_filter(self, monk: int) -> int | None:
        """For the last action of a turn, moving ``monk`` only: None when no end square
        breaks the neutral-monk rule, -2 when every one does, else the end square that
        does."""
        if not self.guard:
            return None
        nf, pos, g = self.state.neutral_from, self.state.pos, self.neutral
        if not self.guard_each_action:  # the other neutral monk must not be back either
            for k in range(2):
                if g + k != monk and pos[g + k] == nf[k]:
                    return -2
        if monk - g in (0, 1) and nf[monk - g] >= 0:
            return nf[monk - g]
        return None

    def _last_hovers(
        self, nxt: Plan, prefix: tuple[Action, ...], code: int, monk: int, here: int
    ) -> None:
        if incomplete(self.ctx, nxt) is not None:
            return
        banned = self._back_filter(monk)
        if banned == -2:
            return
        state = self.state

        def build() -> list[Action]:
            return [
                Hover(code, here, end, lifts)
                for end, lifts in hover_ends(state, monk)
                if end != banned
            ]

        if self.listing:  # every turn is built: no need to count them first
            hovers = build()
            self.sink.many(prefix, len(hovers), lambda: hovers)
            return
        n = self._hover_count(monk, here, -1 if banned is None else banned)
        if n:
            self.sink.many(prefix, n, build)

    def _hover_count(self, monk: int, here: int, banned: int) -> int:
        """How many hovers ``monk`` (on ``here``) has that do not end on ``banned``,
        remembered. A hover (without a 90-degree turn) looks only at the squares of its
        row and column; elsewhere it only counts the empty squares where a lifted cushion
        may go. So equal rows and columns and an equal number of empty squares give
        equal counts, and the last action of most turns of a search is counted once for
        many positions that differ elsewhere (orange lifts make the listing costly)."""
        state = self.state
        cushion = state.cushion
        colour = cushion[here]
        if colour == NO_CUSHION:
            return 0
        if colour == BLOND and self.turning:
            return self._count_hovers(monk, banned)
        occ = state.occ
        cross = _CROSS[here]
        key = (
            here,
            tuple([cushion[s] + 4 * (occ[s] >= 0) for s in cross]),
            cushion.count(NO_CUSHION) - self.tiles,
            banned if banned in cross else -1,
        )
        found = self.hover_counts.get(key)
        if found is None:
            found = self.hover_counts[key] = self._count_hovers(monk, banned)
        return found

    def _count_hovers(self, monk: int, banned: int) -> int:
        state = self.state
        here = state.pos[monk]
        if state.cushion[here] == ORANGE:  # counted without listing (``hovers``)
            summary = orange_summary(state, here)
            total = sum(n for n, _ in summary.values())
            return total - summary[banned][0] if banned in summary else total
        ends = hover_ends(state, monk)
        return len(ends) - sum(1 for end, _ in ends if end == banned) if banned >= 0 else len(ends)

    def _last_swap(
        self, nxt: Plan, prefix: tuple[Action, ...], swap: Swap, monk: int, other: int
    ) -> None:
        if incomplete(self.ctx, nxt) is not None:
            return
        if self.guard and self._lands_back(((monk, other), (monk ^ 1, swap.start))):
            return
        self.sink.one((*prefix, swap))

    def _last_walks(
        self,
        nxt: Plan,
        prefix: tuple[Action, ...],
        code: int,
        monk: int,
        paths: list[tuple[int, ...]],
    ) -> None:
        if not paths:
            return
        state = self.state
        banned = self._back_filter(monk)
        if banned == -2:
            return
        if banned is not None:
            paths = [path for path in paths if path[-1] != banned]
        if incomplete(self.ctx, nxt) is not None:
            # The turn is incomplete unless the walk wins the game: play it to know.
            winning = []
            for path in paths:
                undo = state._do_walk(monk, path)
                if state.tokens[self.p] >= self.goal:
                    winning.append(path)
                state._undo_walk(monk, path, undo)
            paths = winning
        self.sink.many(prefix, len(paths), lambda: [Walk(code, path) for path in paths])


def _walked_back(action: Action) -> bool:
    """Whether ``action`` is a walk that ended where it began."""
    return type(action) is Walk and action.path[0] == action.path[-1]


class _Shuffled(_Search):
    """The search with every list of options tried in a random order."""

    def __init__(self, state: ShenshiState, sink: _Sink, dice: Dice) -> None:
        super().__init__(state, sink)
        self.dice = dice

    def _order(self, options: Iterable[T]) -> list[T]:
        shuffled = list(options)
        below = self.dice.below
        for i in range(len(shuffled) - 1, 0, -1):  # Fisher-Yates
            j = below(i + 1)
            shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
        return shuffled
