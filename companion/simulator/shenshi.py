"""ShenShi pieces in the hands of players (elements as in ``engines.shenshi.observation``:
per square ``c3 tile``, ``c3 cushion``, ``c3 monk``; per player ``tokens silver``).

A turn is made action after action, in its order, each one piece at a time:

* a walk: the monk is lifted, each monk it removes is taken off the board, the monk is
  put down where the walk ends, then the player takes the path tokens won (a walk that
  removes nothing is as often slid in one go);
* a hover: the monk and its cushion are lifted together, each blond cushion an orange
  one lifts is taken up and put down where the player chose, then monk and cushion go
  down where the hover ends (a hover lifting nothing is as often slid in one go);
* an entry: a cushion taken from the board is picked up first; the cushion is put on
  the square, then the monk on it (or both at once, from the reserve);
* a swap: one monk is lifted, the other moved to its square, then the first put down
  (or both lifted, then both put down);
* a pass, or (expert variant) the choice of a cushion for another player's entry:
  nothing on the table (the player says done; the referee asks which cushion).

Illegal moves a table can show (``STAGEABLE``), each tried as a player would; the rule is
the one ``state.check`` gives for the turn tried (``engines.shenshi.validate``):

==========================  ===========================================================
rule                        the attempt
==========================  ===========================================================
``turn.wrong-player``       another player's monk slid one step onto a free cushion
``walk.length``             a monk slid three squares straight on
``walk.step``               a monk slid one square diagonally
``walk.not-walkable``       a monk slid onto a mandala it cannot stand on, or off the
                            cushions onto the bare floor
``walk.blocked``            a monk slid two squares over a monk it may not pass
``hover.not-straight``      a monk and its cushion moved off their row and column
``hover.blocked``           a monk and its cushion moved past an obstacle on the line
``swap.not-in-line``        the player's two monks exchanged off a line
``enter.square-taken``      a monk entered with a cushion on a mandala tile
``enter.no-reserve-cushion``  a monk entered on a cushion of a colour the reserve lacks
``turn.enter-first``        a monk on the board moved while one is waiting to enter
``neutral.no-return``       a neutral monk moved back where it came from last turn
``turn.needs-master``,      one monk's action, then done: the turn lacks a master, a
``turn.needs-grand-master``,  Grand Master, or the other own monk
``turn.needs-both-monks``
``turn.swap-alone``         a swap, then done
``pass.has-turn``           done without touching anything while a turn is possible
``table.unexplained``       a mandala tile turned over or taken off the board
==========================  ===========================================================

An attempt is staged only when no legal turn leaves the table it shows after any of its
touches (``candidates`` rebuilds the turns that could: a turn cannot be listed), nor
one made after the turn before read without its last action, when that reading is a
legal turn too (a neutral monk's last action may be the next player's first: the table
cannot tell), nor one the player before could have made in place of theirs (a walk one
step shorter, a neutral monk's action more: the referee rightly reads the table so, and
a done then reads as a pass), nor when its touches leave the table as it was (a monk
walked there and back: the table shows a pass). Slides are one touch: a monk lifted off
the board for a moment reads as a monk removed, which a referee may flag before it is
put down.

Not stageable: the rules of the order of actions (``monk.finished``,
``turn.one-grand-master``, ``turn.one-master``, ``monk.walked-twice``,
``monk.hovered-twice``, ``expert.*``, ``turn.three-actions``, ``turn.game-won``,
``enter.one-per-turn``: the table shows where pieces end, not in which order they went,
and the referee rebuilds a legal order when there is one); the rules of notation
(``walk.no-move``, ``hover.no-move``, ``monk.not-there``, ``monk.off-board``,
``enter.on-board``, ``enter.neutral``, ``monk.no-neutral``, ``turn.empty``,
``walk.illegal``, ``hover.unreachable``, ``swap.illegal``, ``enter.illegal``: they name
a move that cannot be shown on a table); the orange cushion's lifts (``hover.lift-*``,
``hover.put-down``) and the cushion sources (``enter.reserve-first``,
``enter.not-free-cushion``, ``enter.offered``: reserves are not watched, so a cushion
from the board reads as one from the reserve); ``swap.not-partner`` and
``swap.blocked`` (two monks exchanged read as other walks); ``give.*``
(typed, not seen); ``game.over`` (the simulated game ends at its last move).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from companion.referee.core import RefereeConfig
from companion.simulator.config import TableConfig
from companion.simulator.handling import (
    Attempt,
    Handling,
    SimulatorError,
    Table,
    Touch,
    position_of,
)
from engines import Dice, GameState, IllegalMoveError
from engines.observation import Observation, Reading, Value
from engines.shenshi import ShenshiRules, ShenshiState, options
from engines.shenshi.board import DIRECTIONS, INTACT, NEIGHBOURS, SIZE
from engines.shenshi.movegen import has_turn
from engines.shenshi.moves import (
    NEUTRAL_G,
    OWN_G,
    OWN_M,
    RESERVE_BLOND,
    RESERVE_ORANGE,
    Action,
    Enter,
    Give,
    Hover,
    Pass,
    Swap,
    Turn,
    Walk,
    format_move,
)
from engines.shenshi.observation import (
    CUSHION,
    MONK,
    NONE,
    SQUARES,
    TILE,
    candidates,
    expected,
    schema,
    with_swaps_undone,
)
from engines.shenshi.state import TURN

STAGEABLE = (
    "turn.wrong-player",
    "walk.length",
    "walk.step",
    "walk.not-walkable",
    "walk.blocked",
    "hover.not-straight",
    "hover.blocked",
    "swap.not-in-line",
    "enter.square-taken",
    "enter.no-reserve-cushion",
    "turn.enter-first",
    "neutral.no-return",
    "turn.needs-master",
    "turn.needs-grand-master",
    "turn.needs-both-monks",
    "turn.swap-alone",
    "pass.has-turn",
    "table.unexplained",
)
_COLOUR = {RESERVE_BLOND: "a blond", RESERVE_ORANGE: "an orange"}
SLIDE = 0.5
"""Per walk or hover that moves nothing else: the piece is slid in one go rather than
lifted and put down."""
TRIES = 48
"""Ways of an illegal move looked at, at most, for one that no legal turn's table shows
(each looks for legal turns): the first or second usually does; where every way is
shown by a legal turn (a master with ten thousand hovers, each read as some turn) the
move is not tried there."""


def _near(*squares: int) -> tuple[str, ...]:
    """What a hand over ``squares`` hides: their parts and those of their neighbours."""
    around = dict.fromkeys(s for q in squares for s in (q, *NEIGHBOURS[q]))
    return tuple(e for s in around for e in (TILE[s], CUSHION[s], MONK[s]))


def _diagonals(square: int) -> Iterator[int]:
    row, col = divmod(square, SIZE)
    for dr in (-1, 1):
        for dc in (-1, 1):
            if 0 <= row + dr < SIZE and 0 <= col + dc < SIZE:
                yield (row + dr) * SIZE + col + dc


def _ray(square: int, direction: int, length: int) -> tuple[int, ...] | None:
    """``square`` and the ``length`` squares after it in ``direction``; None off the
    board."""
    row, col = divmod(square, SIZE)
    dr, dc = DIRECTIONS[direction]
    if not (0 <= row + dr * length < SIZE and 0 <= col + dc * length < SIZE):
        return None
    return tuple((row + dr * k) * SIZE + col + dc * k for k in range(length + 1))


class _Hand:
    """Touches made on a running copy of the table: each names the new values only."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.touches: list[Touch] = []

    def __call__(self, changes: dict[str, Value], *squares: int) -> None:
        touch = Touch(
            {e: (self.table[e], v) for e, v in changes.items() if self.table[e] != v},
            _near(*squares),
        )
        if touch.changes:
            touch.apply(self.table)
            self.touches.append(touch)


class ShenshiHandling(Handling):
    game = "shenshi"
    stageable_rules: ClassVar[tuple[str, ...]] = STAGEABLE
    rules: ShenshiRules

    _shorter: ShenshiState | None = None
    """The position after the turn just played read without its last action, when
    that is a legal turn too (``played``)."""
    _before: ShenshiState | None = None
    """The position before the turn just played (``played``): another turn of that
    player may leave the table an attempt shows."""

    def table(self, state: GameState[Any]) -> Table:
        observation = expected(_shenshi(state))
        return {e: value for e in observation if (value := observation.value(e)) is not None}

    def readable(self, source: str, config: TableConfig) -> dict[str, float]:
        good = config.confidence
        if source == "camera":  # the hall and the players' boards with their tokens
            return dict.fromkeys(schema(self.rules).elements, good)
        if source == "sensors":
            # A sensor board feels cushions and monks, not printed tiles nor tokens on
            # the players' boards; a monk is told by its metal and size (colours).
            if not config.sensor_colours:
                raise SimulatorError(
                    "a ShenShi sensor board must read colours "
                    "(sensor_colours): a monk is known by its metal"
                )
            return dict.fromkeys(
                (e for s in range(SIZE * SIZE) for e in (CUSHION[s], MONK[s])),
                config.sensor_colour_confidence,
            )
        raise SimulatorError(f"no ShenShi table reader called {source!r}")

    # ------------------------------------------------------------------ legal moves

    def steps(
        self, state: GameState[Any], move: Any, rng: np.random.Generator, config: TableConfig
    ) -> list[Touch]:
        state = _shenshi(state)
        if isinstance(move, (Pass, Give)):
            return []
        if not isinstance(move, Turn):
            raise SimulatorError(f"not a ShenShi move: {move!r}")
        return self._made(state, move.actions, rng)

    def _made(
        self, state: ShenshiState, actions: tuple[Action, ...], rng: np.random.Generator
    ) -> list[Touch]:
        """``actions`` made by hand on a copy of ``state`` (unchecked: an illegal turn
        is made the same way)."""
        work = state.copy()
        hand = _Hand(self.table(work))
        for action in actions:
            monk = self.rules.monk_id(work.turn, action.monk)
            occupants = work.occ[:]
            _do(work, monk, action)
            after = self.table(work)
            self._action(hand, action, occupants, after, rng)
            if hand.table != after:
                raise SimulatorError(
                    f"the ShenShi handling of {format_move(Turn(actions))} "
                    "leaves the table unlike the engine's position"
                )
        return hand.touches

    def _action(
        self,
        hand: _Hand,
        action: Action,
        occupants: list[int],
        after: Table,
        rng: np.random.Generator,
    ) -> None:
        """One action's touches; ``occupants``: the monk on each square before it."""
        if type(action) is Walk:
            start, end = action.path[0], action.path[-1]
            victims = [s for s in action.path[1:] if occupants[s] >= 0 and s != start]
            if not victims and rng.random() < SLIDE:
                hand({MONK[start]: NONE, MONK[end]: after[MONK[end]]}, start, end)
                return
            hand({MONK[start]: NONE}, start)
            for s in victims:
                hand({MONK[s]: NONE}, s)  # the removed monk taken off the board
            hand({MONK[end]: after[MONK[end]]}, end)
            hand({e: v for e, v in after.items() if e.startswith("tokens ")})
        elif type(action) is Hover:
            start, end = action.start, action.end
            taken_up: dict[str, Value] = {MONK[start]: NONE, CUSHION[start]: NONE}
            landing: dict[str, Value] = {
                CUSHION[end]: after[CUSHION[end]],
                MONK[end]: after[MONK[end]],
            }
            if not action.lifts and rng.random() < SLIDE:
                hand(taken_up | landing, start, end)
                return
            hand(taken_up, start)
            for lifted, put in action.lifts:
                hand({CUSHION[lifted]: NONE}, lifted)
                hand({CUSHION[put]: "blond"}, put)
            hand(landing, end)
        elif type(action) is Enter:
            square = action.square
            if action.cushion >= 0 and action.cushion != square:
                hand({CUSHION[action.cushion]: NONE}, action.cushion)
            cushion = {CUSHION[square]: after[CUSHION[square]]}
            monk = {MONK[square]: after[MONK[square]]}
            if action.cushion < 0 and rng.random() < 0.5:
                hand(cushion | monk, square)
            else:
                hand(cushion, square)
                hand(monk, square)
        else:
            assert type(action) is Swap
            a, b = action.start, action.other
            if rng.random() < 0.5:
                hand({MONK[a]: NONE}, a)
                hand({MONK[b]: NONE, MONK[a]: after[MONK[a]]}, a, b)
            else:
                hand({MONK[a]: NONE}, a)
                hand({MONK[b]: NONE}, b)
                hand({MONK[a]: after[MONK[a]]}, a)
            hand({MONK[b]: after[MONK[b]]}, b)

    def random_move(self, state: GameState[Any], dice: Dice) -> Any:
        """A turn as search playouts draw it (``playout_move``): fast, and two actions
        as likely as three, where a uniform draw over the (up to a million) turns is
        slow and almost always takes three."""
        return _shenshi(state).playout_move(dice)

    def other_move(self, state: GameState[Any], move: Any, rng: np.random.Generator) -> Any | None:
        state = _shenshi(state)
        if state.phase != TURN or has_turn(state) is None:
            return None
        other = state.playout_move(Dice(int(rng.integers(2**31))))
        return None if other == move else other

    def shows_a_move(
        self, state: GameState[Any], view: Callable[[Table], Hashable]
    ) -> Callable[[Table], bool]:
        state = _shenshi(state)
        return lambda table: self._explained(state, table, view)

    def _explained(
        self, state: ShenshiState, table: Table, view: Callable[[Table], Hashable] | None = None
    ) -> bool:
        """Whether some legal turn leaves ``table`` (as ``view`` shows it; default:
        whole), found by the candidate search the referee uses: the turns cannot be
        listed."""
        seen = view or _whole
        observation = self._observation(table)
        changed = expected(state).differences(observation)
        for move in candidates(state, observation, changed):
            token = state.apply(move)
            same = seen(self.table(state)) == seen(table)
            state.undo(token)
            if same:
                return True
        return False

    def played(self, state: GameState[Any], move: Any) -> None:
        self._shorter = self._before = None
        if type(move) is not Turn:
            return
        self._before = _shenshi(state).copy()
        if len(move.actions) < 2:
            return
        shorter = Turn(move.actions[:-1])
        work = _shenshi(state).copy()
        try:
            work.check(shorter)
        except IllegalMoveError:
            return
        work.apply(shorter)
        self._shorter = work

    def _observation(self, table: Table) -> Observation:
        return Observation.trusted(
            schema(self.rules), {e: Reading(v, 1.0) for e, v in table.items()}
        )

    # ------------------------------------------------------------------ illegal moves

    def stageable(self, config: TableConfig) -> tuple[str, ...]:
        if "camera" in config.sources or config.sensor_colour_confidence >= RefereeConfig.sure:
            if "camera" in config.sources:
                return STAGEABLE
            return tuple(r for r in STAGEABLE if r != "table.unexplained")  # no tiles read
        return ("pass.has-turn",)  # unsure monks never rule a turn out

    def attempt(
        self, state: GameState[Any], rule: str, rng: np.random.Generator, config: TableConfig
    ) -> Attempt | None:
        state = _shenshi(state)
        if state.over or state.phase != TURN or rule not in self.stageable(config):
            return None
        stager = _STAGERS.get(rule)
        if stager is None:
            raise SimulatorError(f"cannot stage {rule!r}")
        tries = stager(self, state)
        # The first try, in random order, that breaks ``rule`` and shows no legal turn's
        # table at any touch (else the referee rightly accepts that turn), among the
        # first ``TRIES`` that break it.
        looked = 0
        for i in rng.permutation(len(tries)).tolist():
            attempt = tries[i]
            touches = list(attempt.touches)
            if attempt.actions:
                if _broken(state, attempt.actions) != rule:
                    continue
                touches = (
                    self._slid(state, attempt.actions[0])
                    if attempt.slid
                    else self._made(state, attempt.actions, rng)
                )
            if rule != "pass.has-turn" and not self._changes_the_table(state, touches):
                continue  # a walk there and back: the table shows a pass, not this rule
            if not self._explained_on_the_way(state, touches, attempt.says_done):
                return Attempt(rule, tuple(touches), attempt.says_done, attempt.words)
            looked += 1
            if looked == TRIES:
                break
        return None

    def _slid(self, state: ShenshiState, action: Action) -> list[Touch]:
        """One action in a single touch: a monk lifted off the board for a moment
        reads as a monk removed, which the referee may flag before it is put down."""
        work = state.copy()
        before = self.table(work)
        if type(action) is Walk:  # over whatever is on the way: nothing is removed
            return [self._slide(before, action.path[0], action.path[-1])]
        _do(work, self.rules.monk_id(work.turn, action.monk), action)
        after = self.table(work)
        changes = {e: (before[e], after[e]) for e in after if before[e] != after[e]}
        return [Touch(changes, _near(*{_square(e) for e in changes}))]

    @staticmethod
    def _slide(table: Table, start: int, end: int) -> Touch:
        """The monk on ``start`` slid to ``end``, nothing else touched."""
        return Touch(
            {
                MONK[start]: (table[MONK[start]], NONE),
                MONK[end]: (table[MONK[end]], table[MONK[start]]),
            },
            _near(start, end),
        )

    def _changes_the_table(self, state: ShenshiState, touches: list[Touch]) -> bool:
        """Whether ``touches`` leave the table otherwise than it was (a monk walked
        there and back leaves it as it was)."""
        before = self.table(state)
        trial = dict(before)
        for touch in touches:
            touch.apply(trial)
        return trial != before

    def _explained_on_the_way(
        self, state: ShenshiState, touches: list[Touch], says_done: bool = False
    ) -> bool:
        """Whether a legal turn leaves the table as some touch of ``touches`` does (in
        ``state``, or after the turn before read without its last action), or another
        turn of the player before does, in place of theirs (a walk read shorter, a
        neutral monk's action read as theirs: the referee rightly reads it so), or
        (``says_done``: the player then says done) the last one with actions leaving no
        trace (``with_swaps_undone``), as the referee reads a turn said done."""
        now = self.table(state)
        trial = dict(now)
        shorter, before = self._shorter, self._before
        for touch in touches:
            touch.apply(trial)
            if (
                self._explained(state, trial)
                or (shorter is not None and self._explained(shorter, trial))
                or (before is not None and trial != now and self._explained(before, trial))
            ):
                return True
        if says_done:
            observation = self._observation(trial)
            changed = expected(state).differences(observation)
            for move in with_swaps_undone(state, observation, changed):
                token = state.apply(move)
                same = self.table(state) == trial
                state.undo(token)
                if same:
                    return True
        return False

    # ------------------------------------------------------------------ the attempts

    def _own(self, state: ShenshiState) -> list[tuple[int, int]]:
        """(code, monk) of the player's own monks on the board."""
        p = state.turn
        return [(code, 2 * p + code) for code in (OWN_G, OWN_M) if state.pos[2 * p + code] >= 0]

    def _movable(self, state: ShenshiState) -> list[tuple[int, int]]:
        """(code, monk) of every monk on the board the player may move."""
        out = self._own(state)
        if self.rules.has_neutral:
            g = 2 * self.rules.n_players
            out += [(NEUTRAL_G + k, g + k) for k in (0, 1) if state.pos[g + k] >= 0]
        return out

    def _wrong_player(self, state: ShenshiState) -> list[_Try]:
        rules = self.rules
        table = self.table(state)
        return [
            _Try(
                f"{rules.monk_name(monk)} slid to {SQUARES[end]}",
                touches=(self._slide(table, start, end),),
            )
            for q in range(rules.n_players)
            if q != state.turn
            for monk in (2 * q, 2 * q + 1)
            if (start := state.pos[monk]) >= 0
            for end in NEIGHBOURS[start]
            if state.cushion[end] and state.occ[end] < 0
        ]

    def _walks(
        self, state: ShenshiState, paths: Callable[[int], list[tuple[int, ...]]], words: str
    ) -> list[_Try]:
        return [
            _Try(
                f"{self.rules.monk_name(monk)} {words} {SQUARES[path[0]]} to {SQUARES[path[-1]]}",
                (Walk(code, path),),
            )
            for code, monk in self._movable(state)
            for path in paths(state.pos[monk])
        ]

    def _long_walk(self, state: ShenshiState) -> list[_Try]:
        def paths(start: int) -> list[tuple[int, ...]]:
            return [
                ray
                for d in range(4)
                if (ray := _ray(start, d, 3)) is not None
                and all(state.walkable(s) and state.occ[s] < 0 for s in ray[1:])
            ]

        return self._walks(state, paths, "slid three squares from")

    def _diagonal(self, state: ShenshiState) -> list[_Try]:
        def paths(start: int) -> list[tuple[int, ...]]:
            # a square a walk round the corner reaches shows a legal walk, not a step
            corner = {
                path[-1]
                for path in options.walk_paths(state, state.occ[start])
                if len(path) == 3 and state.occ[path[1]] < 0
            }
            return [
                (start, s)
                for s in _diagonals(start)
                if state.walkable(s) and state.occ[s] < 0 and s not in corner
            ]

        return self._walks(state, paths, "slid diagonally from")

    def _not_walkable(self, state: ShenshiState) -> list[_Try]:
        def paths(start: int) -> list[tuple[int, ...]]:
            return [
                (start, s) for s in NEIGHBOURS[start] if not state.walkable(s) and state.occ[s] < 0
            ]

        return self._walks(state, paths, "slid off the cushions from")

    def _over_a_monk(self, state: ShenshiState) -> list[_Try]:
        def paths(start: int) -> list[tuple[int, ...]]:
            return [
                ray
                for d in range(4)
                if (ray := _ray(start, d, 2)) is not None
                and state.occ[ray[1]] >= 0
                and state.walkable(ray[2])
                and state.occ[ray[2]] < 0
            ]

        return self._walks(state, paths, "slid over a monk from")

    def _hovers(
        self, state: ShenshiState, ends: Callable[[int], list[int]], words: str
    ) -> list[_Try]:
        return [
            _Try(
                f"{self.rules.monk_name(monk)} and its cushion {words} {SQUARES[end]}",
                (Hover(code, state.pos[monk], end),),
            )
            for code, monk in self._movable(state)
            if state.cushion[state.pos[monk]]
            for end in ends(state.pos[monk])
        ]

    def _crooked_hover(self, state: ShenshiState) -> list[_Try]:
        def ends(start: int) -> list[int]:
            return [s for s in _diagonals(start) if state.empty(s)]

        return self._hovers(state, ends, "moved diagonally to")

    def _blocked_hover(self, state: ShenshiState) -> list[_Try]:
        def ends(start: int) -> list[int]:
            out = []
            for d in range(4):
                for length in range(2, SIZE):
                    ray = _ray(start, d, length)
                    if ray is None:
                        break
                    if state.empty(ray[-1]) and not all(state.empty(s) for s in ray[1:-1]):
                        out.append(ray[-1])
            return out

        return self._hovers(state, ends, "moved past an obstacle to")

    def _crooked_swap(self, state: ShenshiState) -> list[_Try]:
        own = self._own(state)
        if len(own) < 2:
            return []
        (code, monk), (_, other) = own
        a, b = state.pos[monk], state.pos[other]
        return [_Try(f"the monks on {SQUARES[a]} and {SQUARES[b]} exchanged", (Swap(code, a, b),))]

    def _entries(
        self, state: ShenshiState, squares: Callable[[int], list[int]], words: str
    ) -> list[_Try]:
        p = state.turn
        return [
            _Try(f"{words} {SQUARES[s]} on {_COLOUR[source]} cushion", (Enter(code, s, source),))
            for code in (OWN_G, OWN_M)
            if state.pos[2 * p + code] < 0
            for source in (RESERVE_BLOND, RESERVE_ORANGE)
            for s in squares(source)
        ]

    def _entry_on_a_tile(self, state: ShenshiState) -> list[_Try]:
        def squares(source: int) -> list[int]:
            return [
                s
                for s in range(SIZE * SIZE)
                if state.tile[s] and not state.cushion[s] and state.occ[s] < 0
            ]

        return self._entries(state, squares, "a monk entered on the mandala of")

    def _entry_without_cushion(self, state: ShenshiState) -> list[_Try]:
        reserve = state.reserve[2 * state.turn : 2 * state.turn + 2]

        def squares(source: int) -> list[int]:
            if not sum(reserve) or reserve[0 if source == RESERVE_BLOND else 1]:
                return []  # the colour is there (or cushions come from the board)
            return options.entry_squares(state, RESERVE_BLOND)

        return self._entries(state, squares, "a monk entered on")

    def _options(self, state: ShenshiState, monks: list[tuple[int, int]]) -> list[Action]:
        """Every walk, hover and swap of ``monks`` as a first action."""
        out: list[Action] = []
        for code, monk in monks:
            start = state.pos[monk]
            out.extend(Walk(code, path) for path in options.walk_paths(state, monk))
            out.extend(
                Hover(code, start, end, lifts) for end, lifts in options.hover_ends(state, monk)
            )
            out.extend(Swap(code, start, other) for other in options.swap_targets(state, monk))
        return out

    def _before_entry(self, state: ShenshiState) -> list[_Try]:
        if not state.own_off_board(state.turn):
            return []
        return [
            _Try(f"{format_move(Turn((action,)))} before the entry", (action,))
            for action in self._options(state, self._movable(state))
        ]

    def _back(self, state: ShenshiState) -> list[_Try]:
        if not self.rules.has_neutral:
            return []
        g = 2 * self.rules.n_players
        out: list[_Try] = []
        for k in (0, 1):
            back = state.neutral_from[k]
            for action in self._options(state, [(NEUTRAL_G + k, g + k)]) if back >= 0 else []:
                end = (
                    action.path[-1]
                    if type(action) is Walk
                    else (action.end if type(action) is Hover else -1)
                )
                if end == back:
                    out.append(
                        _Try(
                            f"{format_move(Turn((action,)))}: back where it came from",
                            (action,),
                            slid=False,
                        )
                    )
        return out

    def _half(self, state: ShenshiState) -> list[_Try]:
        return [
            _Try(
                f"{format_move(Turn((action,)))}, then done", (action,), slid=False, says_done=True
            )
            for action in self._options(state, self._movable(state))
        ]

    def _pass(self, state: ShenshiState) -> list[_Try]:
        if has_turn(state) is None:
            return []
        return [_Try("done without a move", says_done=True)]

    def _tile(self, state: ShenshiState) -> list[_Try]:
        out: list[_Try] = []
        for s in range(SIZE * SIZE):
            if not state.tile[s] or state.cushion[s] or state.occ[s] >= 0:
                continue
            was = "intact" if state.tile[s] == INTACT else "faded"
            out.append(
                _Try(
                    f"the mandala tile on {SQUARES[s]} taken off",
                    touches=(Touch({TILE[s]: (was, NONE)}, _near(s)),),
                )
            )
            if was == "intact":
                out.append(
                    _Try(
                        f"the mandala tile on {SQUARES[s]} turned over",
                        touches=(Touch({TILE[s]: (was, "faded")}, _near(s)),),
                    )
                )
        return out


@dataclass(frozen=True)
class _Try:
    """One way to try an illegal move: the words; the turn tried (checked by the
    engine for the rule), or the touches themselves when it is no turn (another
    player's monk moved, a tile turned over, nothing done)."""

    words: str
    actions: tuple[Action, ...] = ()
    touches: tuple[Touch, ...] = ()
    slid: bool = True
    """A one-action turn slid in a single touch (else made as a legal action is)."""
    says_done: bool = False


def _broken(state: ShenshiState, actions: tuple[Action, ...]) -> str | None:
    """The rule the turn ``actions`` breaks, or None when it is legal."""
    try:
        state.check(Turn(actions))
    except IllegalMoveError as error:
        return error.rule
    return None


def _do(state: ShenshiState, monk: int, action: Action) -> None:
    """Play one action, unchecked."""
    if type(action) is Walk:
        state._do_walk(monk, action.path)
    elif type(action) is Hover:
        state._do_hover(monk, action.start, action.end, action.lifts)
    elif type(action) is Enter:
        state._do_enter(monk, action.square, action.cushion)
    else:
        assert type(action) is Swap
        state._do_swap(action.start, action.other)


def _whole(table: Table) -> Hashable:
    return tuple(table.values())


def _square(element: str) -> int:
    return SQUARES.index(element.split(" ", 1)[0])


def _shenshi(state: GameState[Any]) -> ShenshiState:
    return position_of(state, ShenshiState, "ShenShi")


_STAGERS: dict[str, Callable[[ShenshiHandling, ShenshiState], list[_Try]]] = {
    "turn.wrong-player": ShenshiHandling._wrong_player,
    "walk.length": ShenshiHandling._long_walk,
    "walk.step": ShenshiHandling._diagonal,
    "walk.not-walkable": ShenshiHandling._not_walkable,
    "walk.blocked": ShenshiHandling._over_a_monk,
    "hover.not-straight": ShenshiHandling._crooked_hover,
    "hover.blocked": ShenshiHandling._blocked_hover,
    "swap.not-in-line": ShenshiHandling._crooked_swap,
    "enter.square-taken": ShenshiHandling._entry_on_a_tile,
    "enter.no-reserve-cushion": ShenshiHandling._entry_without_cushion,
    "turn.enter-first": ShenshiHandling._before_entry,
    "neutral.no-return": ShenshiHandling._back,
    "turn.needs-master": ShenshiHandling._half,
    "turn.needs-grand-master": ShenshiHandling._half,
    "turn.needs-both-monks": ShenshiHandling._half,
    "turn.swap-alone": ShenshiHandling._half,
    "pass.has-turn": ShenshiHandling._pass,
    "table.unexplained": ShenshiHandling._tile,
}

HANDLING = ShenshiHandling
