"""The ShenShi turns that could leave a table as it is seen, found without listing the
legal turns (a position can have a million).

``candidates`` answers the referee: the legal turns that explain the squares that
changed, with a few turns the table is on the way to; ``first_candidates`` the turns
that may be the first of several made unseen; ``extends`` whether a turn goes on with a
third action. The search plays actions on a copy of the position, each one of its
monk's options (``engines.shenshi.options``) allowed by the turn so far
(``engines.shenshi.plan``), and spends a ``Budget``: a table changed beyond any turn
stops it early.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from itertools import combinations

from engines.errors import IllegalMoveError
from engines.observation import Observation, Reading, Value
from engines.shenshi import options
from engines.shenshi.board import BLOND, CUSHION_NAMES, NO_CUSHION, SIZE
from engines.shenshi.movegen import has_turn, usable_codes
from engines.shenshi.moves import (
    Action,
    Enter,
    Hover,
    Move,
    Pass,
    Swap,
    Turn,
    Walk,
    format_action,
    format_move,
)
from engines.shenshi.options import Lifts
from engines.shenshi.plan import ENTER, GIVE, HOVER, SWAP, WALK, Plan, TurnContext, after
from engines.shenshi.schema import (
    CUSHION,
    MAX_TOKENS,
    MONK,
    NONE,
    SQUARE_OF,
    SQUARES,
    SURE,
    changed_squares,
    monk_readings,
)
from engines.shenshi.schema import values as schema_values
from engines.shenshi.state import ShenshiState
from engines.shenshi.validate import KIND_OF

IN_PROGRESS_LIMIT = 6
"""Legal turns beginning with what is seen, kept so the referee can say "in progress"."""
NODE_LIMIT = 20_000
"""Actions tried by ``candidates`` at most (a table changed beyond any turn stops early)."""
COMPLETION_LIMIT = 400
"""Actions tried at most when completing a turn in progress."""

_Hovers = dict[tuple[object, ...], list[tuple[int, Lifts]]]
"""Where a monk may hover, by position, remembered within one search."""


class Budget:
    """The actions a search may still try. Each action tried spends one; the search
    stops going deeper once none is left."""

    __slots__ = ("left",)

    def __init__(self, actions: int) -> None:
        self.left = actions

    def spend(self) -> None:
        self.left -= 1

    def spent(self) -> bool:
        return self.left <= 0

    def __repr__(self) -> str:
        return f"Budget({self.left})"


ALL_KINDS = frozenset((WALK, HOVER, ENTER, SWAP))


def _allowed(ctx: TurnContext, plan: Plan, monk: int) -> dict[int, Plan]:
    """The kinds of action the turn so far (``plan``) allows ``monk``, each with the
    plan after it (which monk acts when, and how often: ``engines.shenshi.plan``)."""
    out = {}
    for kind in ALL_KINDS:
        nxt = after(ctx, plan, monk, kind)
        if type(nxt) is Plan:
            out[kind] = nxt
    return out


def _next_plan(state: ShenshiState, plan: Plan) -> Plan:
    """``plan`` after its last action is played in ``state``: won when the mover now
    holds the tokens that win."""
    return plan.winning() if state.tokens[state.turn] >= state.rules.board.goal else plan


def _squares(action: Action) -> frozenset[int]:
    """The squares an action leaves changed (for lifts later in the turn)."""
    if type(action) is Walk:
        return frozenset(action.path)
    if type(action) is Hover:
        return frozenset((action.start, action.end, *(s for pair in action.lifts for s in pair)))
    if type(action) is Enter:
        return frozenset(
            (action.square, action.cushion) if action.cushion >= 0 else (action.square,)
        )
    assert type(action) is Swap
    return frozenset((action.start, action.other))


def _touches(action: Action, squares: set[int]) -> bool:
    """Whether ``action`` changes one of ``squares`` (``_squares`` without the set)."""
    if not squares:
        return False
    if type(action) is Hover:
        if action.start in squares or action.end in squares:
            return True
        return any(a in squares or b in squares for a, b in action.lifts)
    return not squares.isdisjoint(_squares(action))


def _do(state: ShenshiState, monk: int, action: Action) -> object:
    if type(action) is Walk:
        return state._do_walk(monk, action.path)
    if type(action) is Hover:
        state._do_hover(monk, action.start, action.end, action.lifts)
        return None
    if type(action) is Enter:
        return state._do_enter(monk, action.square, action.cushion)
    swap = action
    assert type(swap) is Swap
    state._do_swap(swap.start, swap.other)
    return None


def _board(state: ShenshiState) -> tuple[object, ...]:
    """What a table shows of ``state`` that actions change: monks, cushions, tokens.
    A turn that comes back to a board it already showed (a swap and the same swap
    again, a walk there and back with nothing removed) is no turn a player makes: the
    candidates leave out the actions that do it, so a table half-way through a turn is
    never taken for such a whole one."""
    return (tuple(state.occ), tuple(state.cushion), tuple(state.tokens))


def _undo(state: ShenshiState, monk: int, action: Action, undo: object) -> None:
    if type(action) is Walk:
        state._undo_walk(monk, action.path, undo)  # type: ignore[arg-type]
    elif type(action) is Hover:
        state._undo_hover(monk, action.start, action.end, action.lifts)
    elif type(action) is Enter:
        state._undo_enter(monk, action.square, action.cushion, undo)  # type: ignore[arg-type]
    else:
        assert type(action) is Swap
        state._do_swap(action.start, action.other)


def _one_action_apart(a: int, b: int) -> bool:
    ra, ca = divmod(a, SIZE)
    rb, cb = divmod(b, SIZE)
    return ra == rb or ca == cb or abs(ra - rb) + abs(ca - cb) <= 2


def _liftable(
    lifts: tuple[tuple[int, int], ...], near: set[int], touched: frozenset[int], loose: bool
) -> bool:
    """Whether the lifts take a cushion off a changed square (or one an earlier action
    touched) and put it on a changed one. ``loose``: the cushion may also be lifted
    from a square that did not change, if it is put back later in the turn."""
    if loose:
        return all(b in near or b in touched for _, b in lifts)
    return all(b in near and (a in near or a in touched) for a, b in lifts)


def _hover_ends(
    state: ShenshiState,
    monk: int,
    memo: _Hovers | None,
    targets: frozenset[int] | None = None,
) -> list[tuple[int, Lifts]]:
    """``options.hover_ends``, remembered by position within one search (the orange
    cushion's lifts make it the costly option). ``targets``: only the hovers putting
    every lifted cushion down on one of these squares (None: all)."""
    ordered = None if targets is None else sorted(targets)
    if memo is None:
        return options.hover_ends(state, monk, targets=ordered)
    key = (state.pos[monk], tuple(state.cushion), tuple(state.occ), targets)
    found = memo.get(key)
    if found is None:
        found = memo[key] = options.hover_ends(state, monk, targets=ordered)
    return found


def _actions(
    state: ShenshiState,
    code: int,
    monk: int,
    near: set[int],
    pending: int | None,
    free: bool,
    touched: frozenset[int] = frozenset(),
    roams: dict[int, int] | None = None,
    hovers: _Hovers | None = None,
    kinds: frozenset[int] = ALL_KINDS,
) -> list[tuple[Action, int | None]]:
    """The actions of ``monk`` that touch only changed squares (``near``), as (action,
    the square it leaves unseen: a square that did not change, where a monk or cushion
    now stands, so a later action must take it away again). A monk on a square that did
    not change acts only by a walk there and back over a changed square (taking off
    the monk it stepped on).

    ``pending``: such a square left by the action before: this action must start there
    (or swap with the monk there). ``free``: any action (completions of a turn).
    ``touched``: squares earlier actions of the turn changed: an orange cushion may lift
    a blond cushion left there. ``roams``: monks seen on a changed square other than
    their own, and that square: only they may stop on a square that did not change,
    one action away from it (on its row or column, or two steps away). ``kinds``: the
    kinds of action wanted (``engines.shenshi.plan``: the turn so far may forbid some)."""
    start = state.pos[monk]
    out: list[tuple[Action, int | None]] = []
    loose = bool(roams)
    target = roams.get(monk, -1) if roams is not None and pending is None else -1

    def land(end: int) -> tuple[bool, int | None]:
        if free or end in near:
            return True, None
        return target >= 0 and _one_action_apart(end, target), end

    if start < 0:
        if code > 1 or pending is not None or ENTER not in kinds:
            return out
        for source in options.entry_sources(state):
            if not free and source >= 0 and source not in near:
                continue
            for square in options.entry_squares(state, source):
                ok, stop = land(square)
                if ok:
                    out.append((Enter(code, square, source), stop))
        return out
    if not free:
        if pending is not None:
            if start != pending:
                if state.pos[monk ^ 1] == pending and start in near and SWAP in kinds:
                    out.extend(
                        (Swap(code, start, other), pending)
                        for other in options.swap_targets(state, monk)
                    )
                return out
        elif start not in near:
            # a walk there and back, removing the monk it stepped on, leaves its own
            # square as it was: only the square it came back from changed
            out.extend(
                (Walk(code, path), None)
                for path in (options.walk_paths(state, monk) if WALK in kinds else ())
                if len(path) == 3 and path[0] == path[2] and path[1] in near
            )
            return out
    for path in options.walk_paths(state, monk) if WALK in kinds else ():
        ok, stop = land(path[-1])
        if ok:
            out.append((Walk(code, path), stop))
    # a lifted cushion lands on a changed square (or, ``loose``, one touched before):
    # the others are not listed (with two lifts an orange cushion has thousands)
    targets = None if free else frozenset(near) | touched if loose else frozenset(near)
    for end, lifts in _hover_ends(state, monk, hovers, targets) if HOVER in kinds else ():
        if lifts and not free:
            if len(lifts) == 1:  # the common case, inline: there are many of them
                a, b = lifts[0]
                if b not in near and (not loose or b not in touched):
                    continue
                if not loose and a not in near and a not in touched:
                    continue
            elif not _liftable(lifts, near, touched, loose):
                continue
        ok, stop = land(end)
        if ok:
            out.append((Hover(code, start, end, lifts), stop))
    for other in options.swap_targets(state, monk) if SWAP in kinds else ():
        ok, stop = land(other)
        if ok:
            out.append((Swap(code, start, other), stop))
    return out


_RECENT: OrderedDict[tuple[object, ...], tuple[Move, ...]] = OrderedDict()
_RECENT_SIZE = 256
"""The last searches of ``candidates`` by what they depend on (the position, rules
included, and what is seen), at most ``_RECENT_SIZE``, the least recently used dropped
first: a table flickering while a turn is made shows the same changed squares again and
again. The found turns are immutable, and each caller gets its own list."""


def candidates(
    state: ShenshiState,
    observation: Observation,
    changed: list[str],
    hidden: frozenset[str] = frozenset(),
) -> list[Move]:
    """The legal turns that could leave the table as seen (see ``turns_fitting``),
    remembered for the last few tables: the search depends only on the position, the
    squares that changed, the squares unread or read unsure unlike the position
    (``_doubted``), and what is surely seen on those (elsewhere a sure reading shows the
    position, and an unsure one is no evidence).

    ``hidden``: elements under a hand. Actions may start or end on a square the reader
    could not read (anything fits it), but not on one under a hand: a turn changing
    what a hand hides is in progress until it is seen, so the referee does not need
    it (and with a hand over the board such turns make most of a large search). The
    referee passes no ``hidden`` once the player says the turn is done."""
    near = changed_squares(changed)
    covered = frozenset(
        SQUARE_OF[e.split(" ", 1)[0]] for e in hidden if not e.startswith("tokens ")
    )
    names = monk_readings(state.rules)
    unknown = frozenset(
        s
        for s in range(SIZE * SIZE)
        if s not in covered
        and (
            not observation[MONK[s]].known
            or not observation[CUSHION[s]].known
            or _doubted(state, observation, s, names)
        )
    )
    looks = []
    for s in sorted(near | unknown):
        monk_seen, cushion_seen = observation[MONK[s]], observation[CUSHION[s]]
        looks.append(
            (
                s,
                monk_seen.value if monk_seen.confidence >= SURE else None,
                cushion_seen.value if cushion_seen.confidence >= SURE else None,
            )
        )
    key = (
        state.position_key(),
        tuple(looks),
        unknown,
        covered,
        tuple((e, observation.value(e)) for e in changed if e.startswith("tokens ")),
    )
    found = _RECENT.get(key)
    if found is None:
        found = _RECENT[key] = tuple(turns_fitting(state, observation, changed, unknown))
        if len(_RECENT) > _RECENT_SIZE:
            _RECENT.popitem(last=False)
    else:
        _RECENT.move_to_end(key)
    return list(found)


def _doubted(state: ShenshiState, observation: Observation, s: int, names: list[Reading]) -> bool:
    """Whether square ``s`` is read unsure (below ``SURE``) as unlike the position: the
    square may have changed or not (a monk just put down that the camera reads at
    0.8, a misreading), so a turn may act there, and anything fits it, as on a square
    unread. Left out, a turn ending there could not be found, and the table would be
    judged illegal once the player says done."""
    occupant = state.occ[s]
    for seen, now in (
        (observation[MONK[s]], NONE if occupant < 0 else names[occupant].value),
        (observation[CUSHION[s]], CUSHION_NAMES[state.cushion[s]] or NONE),
    ):
        if seen.confidence < SURE and seen.value != now:
            return True
    return False


def first_candidates(
    state: ShenshiState, observation: Observation, changed: list[str]
) -> list[Move]:
    """The legal turns that could be the first of several made while nobody saw the
    table (the referee's search for a gap): like ``candidates``, but a turn need only
    leave the squares it touches as the table shows them (or empty), not explain every
    changed square — a later turn explains the rest. A square a later turn changes
    again is no help here, so such a turn is not found."""
    return turns_fitting(state, observation, changed, frozenset(), partial=True)


def turns_fitting(
    state: ShenshiState,
    observation: Observation,
    changed: list[str],
    unknown: frozenset[int],
    partial: bool = False,
) -> list[Move]:
    """The legal turns that could leave the table as seen, without listing the legal
    turns (a position can have a million).

    Depth-first over up to three actions, on a copy of ``state``: each action is one of
    its monk's options (``engines.shenshi.options``) that starts on a square that
    changed or is in ``unknown`` (or a monk off the board entering) and ends on one
    (walk, hover, entry, swap; the squares of an orange cushion's lift are both among
    them, so where the lifted cushion went is read off the table), and that the turn's
    rules allow after the actions before it (``engines.shenshi.plan``). A monk may stop
    once on a square that did not change if it acts again from there (walk, then hover
    on; tried only when no turn without such a stop fits, as they multiply the search).
    Each sequence that leaves no such stop is a candidate, kept when
    ``state.check_from_options`` accepts it.
    Sequences reaching the same position are the same turn for the game: the first is
    kept (``G`` then ``M`` or ``M`` then ``G``).

    A sequence is kept only when every changed square, and every square it touched,
    shows what it leaves there (or nothing yet: a monk or cushion still in the hand);
    a branch stops when more of the player's monks are away from where the table shows
    them than the actions left can bring there.

    A whole turn of one or two actions comes with its legal third actions (``extends``):
    the referee accepts the short turn at once and keeps these, in case the player
    goes on.

    "In progress": a prefix of a turn is not a legal move in ShenShi (a turn uses both
    monks), so for the sequences that fit the table but stop short of a legal turn, a
    few legal turns beginning with them (``IN_PROGRESS_LIMIT``, completed by one or two
    further actions of any kind) are added: the table is on the way to those.
    """
    if state.over:
        return []
    if state.phase == GIVE:
        return state.legal_moves()
    near = changed_squares(changed)
    if not near:  # nothing moved: a pass, when the player can do nothing else
        return [Pass()] if has_turn(state) is None else []
    # Squares unread may have changed too (a monk lifted from a square the camera
    # cannot read yet): actions may start or end there, and anything fits them.
    near |= unknown
    return _TableSearch(state, observation, near, partial).run(observation, changed)


class _TableSearch:
    """One search of ``turns_fitting``: the position, what the table surely shows, and
    the sequences of actions found to fit it."""

    def __init__(
        self, state: ShenshiState, observation: Observation, near: set[int], partial: bool
    ) -> None:
        rules = state.rules
        p = state.turn
        self.state = state
        self.near = near
        self.partial = partial
        self.work = state.copy()
        self.monks = [(code, rules.monk_id(p, code)) for code in usable_codes(state)]
        self.found: list[tuple[tuple[Action, ...], int]] = []
        self.hovers: _Hovers = {}
        self.budget = Budget(NODE_LIMIT)
        self.names = monk_readings(rules)
        self.looks: dict[int, tuple[Value | None, Value | None]] = {}
        for s in range(SIZE * SIZE):
            monk_seen, cushion_seen = observation[MONK[s]], observation[CUSHION[s]]
            self.looks[s] = (
                monk_seen.value if monk_seen.confidence >= SURE else None,
                cushion_seen.value if cushion_seen.confidence >= SURE else None,
            )

        names = self.names
        seen_at = {self.looks[s][0]: s for s in near}
        # Where a monk may have gone, for a stop on the way there: surely seen, or read
        # unsure on a square unlike the position (``_doubted``: a monk entered and
        # hovered on, read at 0.8 where it stopped). Only a hint, tried when no turn
        # without such a stop fits.
        hinted = {
            **{observation[MONK[s]].value: s for s in near if observation[MONK[s]].known},
            **seen_at,
        }
        self.roams = {
            m: hinted[names[m].value]
            for m in range(rules.n_monks)
            if hinted.get(names[m].value, state.pos[m]) != state.pos[m]
        }
        self.roams[-1] = -1  # never empty: the second pass is told apart by it
        # Where each monk the player may move is seen at the end (None: in the hand, as
        # the player's own and the neutral monks are never removed in their turn).
        self.finals: list[tuple[int, int | None]] = []
        for _, m in self.monks:
            at = seen_at.get(names[m].value)
            if at is None:
                here = state.pos[m]
                at = here if here < 0 or here not in near else None
            self.finals.append((m, at))
        self.ctx = state.context()

    def square_fit(self, s: int) -> int:
        """2: square ``s`` shows the position reached; 1: it shows it or is empty for
        now (a monk or cushion in the hand); 0: neither."""
        monk_seen, cushion_seen = self.looks[s]
        occupant = self.work.occ[s]
        monk = NONE if occupant < 0 else self.names[occupant].value
        cushion = CUSHION_NAMES[self.work.cushion[s]] or NONE
        best = 2
        for seen, value in ((monk_seen, monk), (cushion_seen, cushion)):
            if seen is None or seen == value:
                continue
            if seen != NONE:
                return 0
            best = 1
        return best

    def fits(self, squares: frozenset[int]) -> int:
        """The least ``square_fit`` of the squares."""
        best = 2
        for s in squares:
            best = min(best, self.square_fit(s))
            if not best:
                return 0
        return best

    def dfs(
        self,
        prefix: tuple[Action, ...],
        pending: int | None,
        touched: frozenset[int],
        stops: dict[int, int],
        visited: frozenset[tuple[object, ...]],
        plan: Plan,
    ) -> None:
        work, near, partial = self.work, self.near, self.partial
        if prefix and pending is None:
            found_fit = self.fits(touched if partial else touched | near)
            if found_fit:
                self.found.append((prefix, found_fit))
        if (
            len(prefix) == 3
            or self.budget.spent()
            or (
                not partial
                and sum(1 for m, at in self.finals if at is not None and work.pos[m] != at)
                > 4 - len(prefix)
            )
        ):
            # more monks away from where they are seen than the actions left can bring
            # there (a swap moves two)
            return
        # The last action must change every square that does not fit yet (the others
        # it leaves as they are).
        wrong = (
            frozenset(s for s in touched | near if not self.square_fit(s))
            if len(prefix) == 2 and not partial
            else frozenset()
        )
        for code, monk in self.monks:
            # only the kinds of action the turn so far allows this monk (which monk acts
            # when, and how often: engines.shenshi.plan); ``check`` sees to the rest
            plans = _allowed(self.ctx, plan, monk)
            if not plans:
                continue
            for action, stop in _actions(
                work,
                code,
                monk,
                near,
                pending,
                False,
                touched,
                stops,
                self.hovers,
                frozenset(plans),
            ):
                if (stop is not None and len(prefix) == 2) or not wrong <= _squares(action):
                    continue
                self.budget.spend()
                undo = _do(work, monk, action)
                reached = _board(work)
                if reached not in visited:  # no action undoing earlier ones
                    self.dfs(
                        (*prefix, action),
                        stop,
                        touched | _squares(action),
                        stops,
                        visited | {reached},
                        _next_plan(work, plans[KIND_OF[type(action)]]),
                    )
                _undo(work, monk, action, undo)

    def run(self, observation: Observation, changed: list[str]) -> list[Move]:
        state, work = self.state, self.work
        turns: list[Move] = []
        twins: list[Move] = []  # turns reaching the position of one in ``turns``
        seen: set[tuple[object, ...]] = set()
        short: list[tuple[Action, ...]] = []
        whole = False
        # First without unseen stops (most turns); only if nothing fits, with them (and
        # with lifts from squares that look unchanged: a cushion lifted and put back).
        for stops in ({}, self.roams):
            if stops is self.roams and whole:
                break
            self.found.clear()
            self.dfs((), None, frozenset(), stops, frozenset({_board(work)}), Plan())
            for actions, fit in self.found:
                turn = Turn(actions)
                try:
                    state.check_from_options(turn)
                except IllegalMoveError as error:
                    if error.rule.startswith(("turn.needs", "turn.swap-alone")):
                        short.append(actions)
                    continue
                whole = whole or fit == 2
                token = state.apply(turn)
                key = state.position_key()
                state.undo(token)
                if key not in seen:
                    seen.add(key)
                    turns.append(turn)
                else:
                    twins.append(turn)
        if self.partial:
            return turns
        if whole:
            # the turns reaching a position already found go on in their own ways (a
            # monk that walked may still hover where one that hovered may not)
            turns.extend(_third_actions(state, work, turns + twins, seen, self.hovers))
        changed_looks = {s: self.looks[s] for s in self.near}
        if short and not whole:
            turns.extend(
                _Completions(state, work, self.monks, changed_looks, self.hovers).run(short)
            )
        elif not turns and all(
            observation.value(e) == NONE for e in changed if not e.startswith("tokens ")
        ):
            # only monks or cushions taken up: the turns starting from those squares
            turns.extend(
                _Completions(state, work, self.monks, changed_looks, self.hovers).run([()])
            )
        return turns


def touched(state: ShenshiState, move: Move) -> frozenset[str]:
    """The squares ``move`` handles (element groups, see ``group``): a monk walked over
    a square or lifted off and put back on it, a cushion lifted on the way. A table
    may show nothing on them for a moment, in the player's hand."""
    if type(move) is not Turn:
        return frozenset()
    return frozenset(SQUARES[s] for action in move.actions for s in _squares(action))


def values_after(
    state: ShenshiState, moves: Sequence[Move], elements: Sequence[str]
) -> list[list[Value]]:
    """``values`` on ``elements`` after each of ``moves`` (legal in ``state``), as
    ``state.apply`` leaves them: the actions a turn shares with the turn before it (a
    turn and its third actions, one after the other) are played once, on a copy. A
    turn whose player reaches the goal before its last action (``apply`` stops there),
    and a move that is no turn, are played on ``state`` and taken back."""
    work = state.copy()
    rules = state.rules
    p = state.turn
    goal = rules.board.goal
    # the actions on ``work``, in order, each with whether the player had reached the
    # goal after it
    played: list[tuple[Action, int, object, bool]] = []
    out: list[list[Value]] = []
    for move in moves:
        if type(move) is not Turn:
            token = state.apply(move)
            out.append(schema_values(state, elements))
            state.undo(token)
            continue
        actions = move.actions
        shared = 0
        while (
            shared < len(played) and shared < len(actions) and played[shared][0] == actions[shared]
        ):
            shared += 1
        while len(played) > shared:
            action, monk, undo, _ = played.pop()
            _undo(work, monk, action, undo)
        for action in actions[shared:]:
            monk = rules.monk_id(p, action.monk)
            undo = _do(work, monk, action)
            played.append((action, monk, undo, work.tokens[p] >= goal))
        if any(won for *_, won in played[: len(actions) - 1]):
            token = state.apply(move)  # the game ends before its last action
            out.append(schema_values(state, elements))
            state.undo(token)
        else:
            out.append(schema_values(work, elements))
    return out


def extends(state: ShenshiState, move: Move, bigger: Move) -> bool:
    """Whether ``bigger`` is ``move`` with more actions, both played from ``state``:
    the referee keeps such turns after accepting ``move`` from the table, in case the
    player goes on (a third action moves a monk that already acted, so the table no
    longer shows ``move``). Leaving out its extra actions leaves ``move``'s actions in
    either order (as a monk's actions come together, ``NGd1~c1 NMg1~e1`` goes on as
    ``NMg1~e1 NGd1~c1 NGc1-c2``), or actions that reach the same position (the same
    blond cushions lifted to the same squares, paired otherwise: the table cannot tell
    which went where). A turn whose first actions leave the table as ``move`` leaves
    it goes on from it too, though those actions alone are no legal turn (``Md2=d3
    Md3~f3 Gd2-e2`` from ``Gd3=d2 Md3~f3``: the master swapped and hovered, then the
    Grand Master walked) or are as many as ``move`` 's (``M@g1:f1 Mg1~g2`` from
    ``M@f1:f1 Mf1~g1``: the monk entered on g1, then hovered on)."""
    if not (type(move) is Turn and type(bigger) is Turn):
        return False
    longer = len(bigger.actions) > len(move.actions)
    kept = (
        [
            tuple(a for i, a in enumerate(bigger.actions) if i not in left_out)
            for left_out in combinations(
                range(len(bigger.actions)), len(bigger.actions) - len(move.actions)
            )
        ]
        if longer
        else []
    )
    # the cheap test first: the turns the search adds a third action to are most
    texts = sorted(map(format_action, move.actions))
    if any(sorted(map(format_action, actions)) == texts for actions in kept):
        return True
    if len(bigger.actions) > 1 and _begins_like(state, move, bigger):
        return True
    if not longer:
        return False
    reached = _reached(state, move.actions)
    return reached is not None and any(_reached(state, actions) == reached for actions in kept)


def _begins_like(state: ShenshiState, move: Turn, bigger: Turn) -> bool:
    """Whether some of ``bigger`` 's first actions, played in its order from ``state``
    (unchecked: a turn begun need not be a legal turn yet), leave the table as ``move``
    leaves it."""
    token = state.apply(move)
    table = _table(state)
    state.undo(token)
    for length in range(1, len(bigger.actions)):
        token = state.apply(Turn(bigger.actions[:length]))
        same = _table(state) == table
        state.undo(token)
        if same:
            return True
    return False


def _table(state: ShenshiState) -> tuple[object, ...]:
    """What the table shows of ``state`` (``expected``), as a key: tiles, cushions,
    monks and each player's path tokens as read."""
    return (
        tuple(state.tile),
        tuple(state.cushion),
        tuple(state.occ),
        tuple(min(t, MAX_TOKENS) for t in state.tokens),
    )


def _reached(state: ShenshiState, actions: tuple[Action, ...]) -> tuple[object, ...] | None:
    """The position ``actions`` reach from ``state`` as one turn (None when they are
    not a legal turn there)."""
    turn = Turn(actions)
    try:
        state.check(turn)
    except IllegalMoveError:
        return None
    token = state.apply(turn)
    key = state.position_key()
    state.undo(token)
    return key


def _third_actions(
    state: ShenshiState,
    work: ShenshiState,
    turns: list[Move],
    seen: set[tuple[object, ...]],
    hovers: _Hovers,
) -> list[Move]:
    """The legal turns adding one action to a turn of ``turns`` that has fewer than
    three (by a monk it used: a turn uses one Grand Master and one master), reaching
    a position none of ``turns`` reaches. A two-action turn is also tried in the
    other order (when legal): the third action must follow its monk's other one. A
    swap is also tried written from the other monk's side (when legal): the monk
    whose action it is decides which monk may act again (``Mg1~g5 Gg6=g5`` goes on
    only as ``Mg1~g5 Mg5=g6 Gg5-f5``)."""
    out: list[Move] = []
    rules = state.rules
    orders: dict[Turn, None] = {}  # a turn and its other order may both be found
    rewritten: set[Turn] = set()  # turns with a swap written from the other side
    for found in turns:
        if type(found) is not Turn or len(found.actions) == 3:
            continue
        orders[found] = None
        for turn in (found, *_swaps_rewritten(found)):
            if turn is not found:  # judged action by action (it may lack a monk yet)
                orders.setdefault(turn, None)
                rewritten.add(turn)
            if len(turn.actions) == 2:
                swapped = Turn(turn.actions[::-1])
                if swapped in orders:
                    continue
                try:
                    state.check(swapped)
                except IllegalMoveError:
                    continue
                orders[swapped] = None
    ctx = state.context()
    for turn in orders:
        done = []
        visited = {_board(work)}
        plan = Plan()
        begun = True  # the turn's actions are allowed, one after the other
        for action in turn.actions:
            monk = rules.monk_id(state.turn, action.monk)
            nxt = after(ctx, plan, monk, KIND_OF[type(action)])
            if type(nxt) is not Plan:  # a swap rewritten that the turn does not allow
                begun = False
                break
            done.append((monk, action, _do(work, monk, action)))
            plan = _next_plan(work, nxt)
            visited.add(_board(work))
        used = {(action.monk, monk) for monk, action, _ in done} if begun else set()
        if begun and turn in rewritten:  # the monk that swapped may act again too
            used |= {
                (action.monk ^ 1, rules.monk_id(state.turn, action.monk ^ 1))
                for action in turn.actions
                if type(action) is Swap
            }
        for code, monk in sorted(used):
            plans = _allowed(ctx, plan, monk)
            if work.pos[monk] < 0 or not plans:
                continue
            # Hovers to one square differ only in the blond cushions they lift: the
            # rules of the turn (all ``check_from_options`` looks at) judge them alike,
            # and the positions they reach differ only in the cushions (where the
            # opponent chooses a free cushion next, the expert variant, each is played).
            alike: dict[int, tuple[object, ...] | None] = {}
            start = work.pos[monk]
            colour = work.cushion[start]
            lifted = list(work.cushion)  # the cushions as the hover leaves, but its own
            lifted[start] = NO_CUSHION
            kinds = frozenset(plans)
            for action in _distinct_actions(work, code, monk, hovers, kinds, not rules.expert):
                if type(action) is Hover and not rules.expert:
                    template = alike.get(action.end, ())
                    if template is None:  # the rules of the turn forbid them
                        continue
                    if template:
                        cushions = lifted[:]
                        for a, b in action.lifts:
                            cushions[a] = NO_CUSHION
                            cushions[b] = BLOND
                        cushions[action.end] = colour
                        after_cushions = tuple(cushions)
                        if (template[-1], after_cushions, template[-2]) in visited:
                            continue  # the action undoes an earlier one
                        key: tuple[object, ...] = (
                            *template[:2],
                            after_cushions,
                            *template[3:-2],
                        )
                        if key not in seen:
                            seen.add(key)
                            out.append(Turn((*turn.actions, action)))
                        continue
                undo = _do(work, monk, action)
                board = _board(work)
                _undo(work, monk, action, undo)
                if board in visited:  # the action undoes an earlier one
                    continue
                if type(action) is Hover and not rules.expert:
                    alike[action.end] = None
                longer = Turn((*turn.actions, action))
                try:
                    state.check_from_options(longer)
                except IllegalMoveError:
                    continue
                token = state.apply(longer)
                key = state.position_key()
                state.undo(token)
                if type(action) is Hover and not rules.expert:
                    # the key, then what the table shows but the cushions
                    alike[action.end] = (*key, board[2], board[0])
                if key not in seen:
                    seen.add(key)
                    out.append(longer)
        for monk, action, undo in reversed(done):
            _undo(work, monk, action, undo)
    return out


def _distinct_actions(
    state: ShenshiState,
    code: int,
    monk: int,
    hovers: _Hovers,
    kinds: frozenset[int],
    paired_once: bool,
) -> Iterator[Action]:
    """The actions of ``monk`` on the board of ``kinds`` (``_actions`` with ``free``:
    walks, hovers, swaps). ``paired_once``: of the hovers to one square lifting the
    same cushions to the same squares, paired otherwise, only the first: they reach
    one position, and the rules judge them alike (an orange cushion's two lifts have
    thousands of pairings; not used in the expert variant, whose hovers are each
    judged and played in full)."""
    walks = kinds & {WALK}
    yield from (a for a, _ in _actions(state, code, monk, set(), None, True, kinds=walks))
    start = state.pos[monk]
    pairings: set[tuple[object, ...]] = set()
    for end, lifts in _hover_ends(state, monk, hovers) if HOVER in kinds else ():
        if paired_once and len(lifts) > 1:
            if len(lifts) == 2:  # the common case, inline: there are thousands
                (a, b), (c, d) = lifts
                pairing: tuple[object, ...] = (
                    end,
                    *((a, c) if a < c else (c, a)),
                    *((b, d) if b < d else (d, b)),
                )
            else:
                pairing = (end, frozenset(a for a, _ in lifts), frozenset(b for _, b in lifts))
            if pairing in pairings:
                continue
            pairings.add(pairing)
        yield Hover(code, start, end, lifts)
    swaps = kinds & {SWAP}
    yield from (a for a, _ in _actions(state, code, monk, set(), None, True, kinds=swaps))


def _swaps_rewritten(turn: Turn) -> list[Turn]:
    """``turn`` with its swap written from the other monk's side (the two monks of a
    swap are of one colour: a Grand Master and its master), if it has a swap."""
    return [
        Turn(
            (
                *turn.actions[:i],
                Swap(action.monk ^ 1, action.other, action.start),
                *turn.actions[i + 1 :],
            )
        )
        for i, action in enumerate(turn.actions)
        if type(action) is Swap
    ]


class _Completions:
    """A few legal turns beginning with actions that fit the table but are not a legal
    turn yet, that the table is on the way to (``run``).

    ``looks``: what is surely seen on each changed square (monk, cushion). A turn is
    kept when each changed square shows what the turn leaves there, or nothing where
    the turn touches it (a monk or cushion still in the hand: the walker of a walk
    that comes back after a removal, a cushion lifted by an orange one). Actions that
    touch the squares still unexplained are tried first, then those of monks that have
    not acted yet (moving on a monk that acted takes it from where it is seen); the
    search stops after ``COMPLETION_LIMIT`` actions."""

    def __init__(
        self,
        state: ShenshiState,
        work: ShenshiState,
        monks: list[tuple[int, int]],
        looks: dict[int, tuple[Value | None, Value | None]],
        hovers: _Hovers,
    ) -> None:
        self.state = state
        self.work = work
        self.monks = monks
        self.looks = looks
        self.hovers = hovers
        self.out: list[Move] = []
        self.texts: set[str] = set()
        self.names = monk_readings(state.rules)
        self.budget = Budget(COMPLETION_LIMIT)
        self.ctx = state.context()
        self.rules_broken: dict[tuple[object, ...], str | None] = {}

    def broken(self, turn: Turn, monk: int) -> str | None:
        """The rule ``turn`` (actions from the options) breaks, or None. Hovers to one
        square after the same actions differ only in the blond cushions they lift:
        the rules of the turn (all ``check_from_options`` looks at) judge them alike."""
        action = turn.actions[-1]
        alike = None
        if type(action) is Hover and not self.state.rules.expert:
            alike = (turn.actions[:-1], monk, action.end)
            if alike in self.rules_broken:
                return self.rules_broken[alike]
        try:
            self.state.check_from_options(turn)
            rule = None
        except IllegalMoveError as error:
            rule = error.rule
        if alike is not None:
            self.rules_broken[alike] = rule
        return rule

    def shows(self, s: int) -> tuple[Value | None, Value | None]:
        occupant = self.work.occ[s]
        return (
            NONE if occupant < 0 else self.names[occupant].value,
            CUSHION_NAMES[self.work.cushion[s]] or NONE,
        )

    def unexplained(self) -> set[int]:
        return {
            s
            for s, seen in self.looks.items()
            if any(x is not None and x != y for x, y in zip(seen, self.shows(s), strict=True))
        }

    def on_the_way(self, touched: frozenset[int]) -> bool:
        for s in self.unexplained():
            if s not in touched or any(
                x not in (None, NONE, y) for x, y in zip(self.looks[s], self.shows(s), strict=True)
            ):
                return False
        return True

    def options_of(
        self, prefix: tuple[Action, ...], touched: frozenset[int], plan: Plan
    ) -> Iterator[tuple[int, Action, Plan]]:
        """The actions the turn may go on with, those touching the squares still
        unexplained first, then those of monks that have not acted yet: found as they
        are asked for (the search stops after a few), each monk's only when reached.
        The position must be as it was when the first was asked for."""
        used = {action.monk for action in prefix}
        wanted = self.unexplained() - touched
        later: list[tuple[int, Action, Plan]] = []  # not touching them
        for again in (False, True):
            away: list[tuple[int, Action, Plan]] = []
            for code, monk in self.monks:
                if (code in used) is not again:
                    continue
                plans = _allowed(self.ctx, plan, monk)
                if not plans:
                    continue
                for action, _ in _actions(
                    self.work,
                    code,
                    monk,
                    set(),
                    None,
                    True,
                    hovers=self.hovers,
                    kinds=frozenset(plans),
                ):
                    if _touches(action, wanted):
                        yield monk, action, plans[KIND_OF[type(action)]]
                    else:
                        away.append((monk, action, plans[KIND_OF[type(action)]]))
            later.extend(away)
        yield from later

    def extend(
        self,
        prefix: tuple[Action, ...],
        touched: frozenset[int],
        visited: frozenset[tuple[object, ...]],
        plan: Plan,
    ) -> None:
        work, out = self.work, self.out
        if len(out) >= IN_PROGRESS_LIMIT or len(prefix) == 3:
            return
        for monk, action, nxt in self.options_of(prefix, touched, plan):
            if len(out) >= IN_PROGRESS_LIMIT or self.budget.spent():
                return
            self.budget.spend()
            undo = _do(work, monk, action)
            reached = _board(work)
            _undo(work, monk, action, undo)
            if reached in visited:  # the action undoes earlier ones
                continue
            turn = Turn((*prefix, action))
            rule = self.broken(turn, monk)
            if rule is not None:
                if len(prefix) <= 1 and rule.startswith(("turn.needs", "turn.swap-alone")):
                    undo = _do(work, monk, action)
                    self.extend(
                        (*prefix, action),
                        touched | _squares(action),
                        visited | {reached},
                        _next_plan(work, nxt),
                    )
                    _undo(work, monk, action, undo)
                continue
            undo = _do(work, monk, action)
            keep = self.on_the_way(touched | _squares(action))
            if not keep and len(prefix) < 2:  # a whole turn, but the table shows more
                self.extend(
                    (*prefix, action),
                    touched | _squares(action),
                    visited | {reached},
                    _next_plan(work, nxt),
                )
            _undo(work, monk, action, undo)
            text = format_move(turn)
            if keep and text not in self.texts:
                self.texts.add(text)
                out.append(turn)

    def run(self, short: list[tuple[Action, ...]]) -> list[Move]:
        """The turns beginning with each of ``short`` (``[()]``: monks or cushions only
        taken up so far)."""
        state, work = self.state, self.work
        for actions in short:
            undos = []
            boards = {_board(work)}
            plan = Plan()
            for action in actions:
                monk = state.rules.monk_id(state.turn, action.monk)
                nxt = after(self.ctx, plan, monk, KIND_OF[type(action)])
                assert type(nxt) is Plan  # the actions begin a legal turn
                undos.append((monk, action, _do(work, monk, action)))
                plan = _next_plan(work, nxt)
                boards.add(_board(work))
            self.extend(
                actions, frozenset(s for a in actions for s in _squares(a)), frozenset(boards), plan
            )
            for monk, action, undo in reversed(undos):
                _undo(work, monk, action, undo)
            if len(self.out) >= IN_PROGRESS_LIMIT or self.budget.spent():
                break
        return self.out
