"""A position of ShenShi.

The hall is held in small int lists indexed by square (``board`` module): ``tile``
(mandalas; fixed for the game), ``cushion`` (colour, 0: none) and ``occ`` (the monk on
the square, -1: none). Monks are numbered ``2 * player + size`` (size 0: Grand Master,
1: master); the neutral black monks, when there are any, come after the players'.
``pos`` gives each monk's square (-1: off the board).

Each kind of action has a ``_do_*`` method that changes the lists and returns what its
``_undo_*`` needs; the move generator (``movegen``) walks whole turns depth-first with
them, ``apply`` plays a turn through them. ``apply`` is unchecked (for search);
``check`` (``validate``) says why a move is illegal; ``play`` does both.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Self, cast

from engines.base import JSON, GameState
from engines.dice import Dice
from engines.shenshi import document, draw, movegen
from engines.shenshi.board import BLOND, FADED, INTACT, NO_CUSHION, ORANGE
from engines.shenshi.moves import (
    RESERVE_BLOND,
    Enter,
    Give,
    Hover,
    Move,
    Pass,
    Swap,
    Turn,
    Walk,
)
from engines.shenshi.plan import GIVE as GIVE
from engines.shenshi.plan import TURN as TURN
from engines.shenshi.plan import TurnContext
from engines.shenshi.validate import check_move

if TYPE_CHECKING:
    # The rules build states (``initial_state``); a state only reads its rules.
    from engines.shenshi.rules import ShenshiRules

_WalkUndo = tuple[list[tuple[int, int]] | None, list[int] | None, int]


class _MoveList(list[Move]):
    """A list of legal moves that ``_SHARED`` can refer to weakly."""

    __slots__ = ("__weakref__",)


_SHARED: weakref.WeakValueDictionary[tuple[object, ...], _MoveList] = weakref.WeakValueDictionary()
"""The legal moves of live positions, by position: equal positions share one list."""


class ShenshiState(GameState[Move]):
    """One position. Construct with ``rules.initial_state()`` or
    ``rules.state_from_json(...)``."""

    wide_branching = True
    """Search: too many turns to list at every node; draw them (``playout_move``)."""

    __slots__ = (
        "_legal",
        "_legal_ids",
        "_legal_set",
        "cushion",
        "neutral_from",
        "occ",
        "offered",
        "over",
        "passes",
        "phase",
        "pos",
        "quiet",
        "reserve",
        "rules",
        "supply",
        "tile",
        "tokens",
        "turn",
        "winner",
    )

    rules: ShenshiRules

    def __init__(self, rules: ShenshiRules) -> None:
        n = rules.n_players
        self.rules = rules
        self.tile: tuple[int, ...] = (0,) * 49
        self.cushion = [NO_CUSHION] * 49
        self.occ = [-1] * 49
        self.pos = [-1] * rules.n_monks
        self.reserve = [0] * (2 * n)  # [player * 2 + colour - 1]
        self.tokens = [0] * n
        self.supply = rules.board.tokens_total
        self.turn = 0  # the player whose turn it is
        self.phase = TURN
        self.offered = -1  # expert: the cushion the opponent chose for this turn's entry
        self.neutral_from = [-1, -1]  # squares the neutral G, M may not return to now
        self.quiet = 0  # turns in a row without a monk removed
        self.passes = 0  # passes in a row
        self.winner = -1  # the player who reached the goal
        self.over = False
        self._legal: list[Move] | None = None
        self._legal_ids: set[int] | None = None
        self._legal_set: set[Move] | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_json(cls, rules: ShenshiRules, data: JSON) -> ShenshiState:
        """The position a state document describes (docs/notation.md, "ShenShi
        positions"). Raises ``RecordError`` if it is malformed or inconsistent with the
        rules."""
        state = cls(rules)
        document.fill_from_json(state, data)
        return state

    @classmethod
    def initial(cls, rules: ShenshiRules) -> ShenshiState:
        """The start of a game: the tiles of ``rules.layout`` on the marked squares
        (cushion tiles replaced by cushions), the diagonal cushions, the neutral monks,
        every player's monks and cushions in reserve and one path token each."""
        board = rules.board
        state = cls(rules)
        tile = [0] * 49
        for square, letter in zip(board.marked, rules.layout, strict=True):
            if letter == "I":
                tile[square] = INTACT
            elif letter == "F":
                tile[square] = FADED
            else:
                state.cushion[square] = BLOND if letter == "B" else ORANGE
        state.tile = tuple(tile)
        for square, colour in board.start_cushions:
            state.cushion[square] = colour
        black = None
        if rules.has_neutral:
            black = 2 * rules.n_players
        elif rules.black_start == "board":
            black = 2 * rules.players.index("black")
        if black is not None:
            for size, square in enumerate(board.neutral_squares):
                state._place(black + size, square)
        for p in range(rules.n_players):
            state.reserve[2 * p] = board.reserve[0]
            state.reserve[2 * p + 1] = board.reserve[1]
            state.tokens[p] = board.tokens_start
        state.supply = board.tokens_total - board.tokens_start * rules.n_players
        return state

    def _place(self, monk: int, square: int) -> None:
        self.occ[square] = monk
        self.pos[monk] = square

    def copy(self) -> Self:
        other = object.__new__(type(self))
        other.rules = self.rules
        other.tile = self.tile
        other.cushion = self.cushion[:]
        other.occ = self.occ[:]
        other.pos = self.pos[:]
        other.reserve = self.reserve[:]
        other.tokens = self.tokens[:]
        other.supply = self.supply
        other.turn = self.turn
        other.phase = self.phase
        other.offered = self.offered
        other.neutral_from = self.neutral_from[:]
        other.quiet = self.quiet
        other.passes = self.passes
        other.winner = self.winner
        other.over = self.over
        other._legal = self._legal  # never mutated: shared until either side moves
        other._legal_ids = self._legal_ids
        other._legal_set = self._legal_set
        return other

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int:
        if self.phase == GIVE:
            return (self.turn + 1) % self.rules.n_players
        return self.turn

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        """Path tokens held per player."""
        return self.tokens[:]

    def tiebreak(self) -> JSON:
        """Nothing breaks a tie in ShenShi: equal path tokens share the win."""
        return None

    def winners(self) -> list[int]:
        """The player who reached the goal; otherwise the players holding the most path
        tokens (several when tied)."""
        if self.winner >= 0:
            return [self.winner]
        best = max(self.tokens)
        return [p for p, t in enumerate(self.tokens) if t == best]

    def walkable(self, square: int) -> bool:
        """Whether a monk may stand on ``square``: a cushion or a faded mandala."""
        return self.cushion[square] != NO_CUSHION or self.tile[square] == FADED

    def empty(self, square: int) -> bool:
        """No tile and no cushion: where a cushion may go."""
        return self.cushion[square] == NO_CUSHION and self.tile[square] == 0

    def free_cushions(self) -> list[int]:
        """Squares holding a cushion with no monk on it."""
        return [s for s in range(49) if self.cushion[s] and self.occ[s] < 0]

    def own_off_board(self, player: int) -> list[int]:
        return [m for m in (2 * player, 2 * player + 1) if self.pos[m] < 0]

    def context(self) -> TurnContext:
        """The obligations of the turn of the player whose turn it is."""
        p = self.turn
        rules = self.rules
        return TurnContext(
            p,
            n_players=rules.n_players,
            expert=rules.expert,
            one_of_each=rules.monks_per_turn == "one-of-each",
            own_on_board=(self.pos[2 * p] >= 0, self.pos[2 * p + 1] >= 0),
        )

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Every legal move. In a turn: every turn, depth-first over the actions in a
        fixed order (``movegen``), or ``pass`` when there is none. In the expert
        variant's cushion choice: ``give`` for each free cushion, by square.

        A position can have a million legal turns, so the list is kept until the state
        changes (``undo`` brings it back), and equal positions alive at the same time (a
        copy, the same position read back from JSON) share it."""
        return self._legal_list()[:]

    def _legal_list(self) -> list[Move]:
        if self._legal is None:
            key = self.position_key()
            found = _SHARED.get(key)
            if found is None:
                found = _MoveList(self._generate())
                _SHARED[key] = found
            self._legal = found
        return self._legal

    def position_key(self) -> tuple[object, ...]:
        """Everything the legal moves depend on: two states with equal keys are the
        same position for the game (they share their legal moves; a search tells apart
        the turns reaching different positions by it)."""
        return (
            self.rules,
            self.tile,
            tuple(self.cushion),
            tuple(self.occ),
            tuple(self.reserve),
            tuple(self.tokens),
            self.supply,
            self.turn,
            self.phase,
            self.offered,
            tuple(self.neutral_from),
            self.over,
        )

    def _generate(self) -> list[Move]:
        if self.over:
            return []
        if self.phase == GIVE:
            return [Give(s) for s in self.free_cushions()]
        turns: list[Move] = list(movegen.legal_turns(self))
        return turns if turns else [Pass()]

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is one of ``legal_moves()`` (quick once they are known)."""
        legal = self._legal_list()
        if self._legal_ids is None:
            self._legal_ids = {id(m) for m in legal}
        if id(move) in self._legal_ids:
            return True
        if self._legal_set is None:
            self._legal_set = set(legal)
        return move in self._legal_set

    def playout_move(self, dice: Dice) -> Move:
        """A quick random legal move for search playouts (``movegen.playout_move``: not
        uniform over the turns, which can number a million)."""
        if self._legal is not None or self.over or self.phase == GIVE:
            return dice.choice(self._legal_list())
        return movegen.playout_move(self, dice)

    def legal_preview(self, limit: int) -> tuple[list[str], int]:
        """The first ``limit`` legal moves in notation and how many there are, counted
        without building the turns (a position can have tens of millions)."""
        if self._legal is not None or self.over or self.phase == GIVE:
            return super().legal_preview(limit)
        count = movegen.count_turns(self)
        if count == 0:
            return super().legal_preview(limit)
        fmt = self.rules.format_move
        return [fmt(t) for t in movegen.first_turns(self, limit)], count

    def random_move(self, dice: Dice) -> Move:
        """A move drawn uniformly from ``legal_moves()``: ``dice.choice`` from the list
        when it is known, else ``draw.random_move``, which builds neither the list of
        turns nor counts them all (the same distribution, other numbers drawn)."""
        if self._legal is not None or self.over or self.phase == GIVE:
            return dice.choice(self._legal_list())
        return draw.random_move(self, dice)

    # ------------------------------------------------------------------ actions

    def _award(self, walker: int, victim: int) -> None:
        """Path tokens for removing ``victim`` (RULINGS 3.2): with one's own monk 2 (a
        master: both from the supply; a Grand Master: one from the supply, one from its
        owner if they have one); with a neutral monk 1 (a master: from the supply; a
        Grand Master: from its owner, else from the supply)."""
        p = self.turn
        tokens = self.tokens
        owner = victim >> 1
        neutral = walker >> 1 == self.rules.n_players
        if victim & 1:  # a master
            take = min(1 if neutral else 2, self.supply)
            self.supply -= take
            tokens[p] += take
        elif neutral:
            if tokens[owner]:
                tokens[owner] -= 1
                tokens[p] += 1
            elif self.supply:
                self.supply -= 1
                tokens[p] += 1
        else:
            if self.supply:
                self.supply -= 1
                tokens[p] += 1
            if tokens[owner]:
                tokens[owner] -= 1
                tokens[p] += 1

    def _do_walk(self, monk: int, path: tuple[int, ...]) -> _WalkUndo:
        occ, pos = self.occ, self.pos
        occ[path[0]] = -1
        victims: list[tuple[int, int]] | None = None
        saved_tokens: list[int] | None = None
        saved_supply = self.supply
        for square in path[1:]:
            victim = occ[square]
            if victim >= 0:
                if victims is None:
                    victims = []
                    saved_tokens = self.tokens[:]
                victims.append((victim, square))
                occ[square] = -1
                pos[victim] = -1
                self._award(monk, victim)
        end = path[-1]
        occ[end] = monk
        pos[monk] = end
        return victims, saved_tokens, saved_supply

    def _undo_walk(self, monk: int, path: tuple[int, ...], undo: _WalkUndo) -> None:
        victims, saved_tokens, saved_supply = undo
        occ, pos = self.occ, self.pos
        occ[path[-1]] = -1
        if victims is not None:
            for victim, square in victims:
                occ[square] = victim
                pos[victim] = square
            assert saved_tokens is not None
            self.tokens[:] = saved_tokens
            self.supply = saved_supply
        occ[path[0]] = monk
        pos[monk] = path[0]

    def _do_hover(
        self, monk: int, start: int, end: int, lifts: tuple[tuple[int, int], ...]
    ) -> None:
        cushion = self.cushion
        colour = cushion[start]
        cushion[start] = NO_CUSHION
        self.occ[start] = -1
        for lifted, put in lifts:
            cushion[lifted] = NO_CUSHION
            cushion[put] = BLOND
        cushion[end] = colour
        self.occ[end] = monk
        self.pos[monk] = end

    def _undo_hover(
        self, monk: int, start: int, end: int, lifts: tuple[tuple[int, int], ...]
    ) -> None:
        cushion = self.cushion
        colour = cushion[end]
        cushion[end] = NO_CUSHION
        self.occ[end] = -1
        for lifted, put in reversed(lifts):
            cushion[put] = NO_CUSHION
            cushion[lifted] = BLOND
        cushion[start] = colour
        self.occ[start] = monk
        self.pos[monk] = start

    def _do_enter(self, monk: int, square: int, source: int) -> int:
        """Returns the colour of the cushion used."""
        if source < 0:
            colour = BLOND if source == RESERVE_BLOND else ORANGE
            self.reserve[2 * self.turn + colour - 1] -= 1
        else:
            colour = self.cushion[source]
            self.cushion[source] = NO_CUSHION
        self.cushion[square] = colour
        self.occ[square] = monk
        self.pos[monk] = square
        return colour

    def _undo_enter(self, monk: int, square: int, source: int, colour: int) -> None:
        self.occ[square] = -1
        self.pos[monk] = -1
        self.cushion[square] = NO_CUSHION
        if source < 0:
            self.reserve[2 * self.turn + colour - 1] += 1
        else:
            self.cushion[source] = colour

    def _do_swap(self, start: int, other: int) -> None:
        occ, pos = self.occ, self.pos
        a, b = occ[start], occ[other]
        occ[start], occ[other] = b, a
        pos[a], pos[b] = other, start

    # ------------------------------------------------------------------ apply / undo

    def apply(self, move: Move) -> object:
        """Play a legal move without checking it. Returns the token for ``undo``."""
        saved = (
            self.turn,
            self.phase,
            self.offered,
            self.quiet,
            self.passes,
            self.winner,
            self.over,
            self.neutral_from[:],
            self._legal,
            self._legal_ids,
            self._legal_set,
        )
        self._legal = self._legal_ids = self._legal_set = None
        done: list[tuple[object, object]] = []
        if type(move) is Turn:
            self._apply_turn(move, done)
        elif type(move) is Give:
            self.offered = move.square
            self.phase = TURN
        else:
            self.passes += 1
            self.quiet += 1
            self.neutral_from[0] = self.neutral_from[1] = -1
            self._next_turn()
        return saved, done

    def _apply_turn(self, move: Turn, done: list[tuple[object, object]]) -> None:
        rules = self.rules
        p = self.turn
        goal = rules.board.goal
        neutral = 2 * rules.n_players if rules.has_neutral else -1
        before = (self.pos[neutral], self.pos[neutral + 1]) if neutral >= 0 else (-1, -1)
        removed = False
        for action in move.actions:
            monk = rules.monk_id(p, action.monk)
            if type(action) is Walk:
                undo = self._do_walk(monk, action.path)
                removed = removed or undo[0] is not None
                done.append((action, undo))
            elif type(action) is Hover:
                self._do_hover(monk, action.start, action.end, action.lifts)
                done.append((action, None))
            elif type(action) is Enter:
                done.append((action, self._do_enter(monk, action.square, action.cushion)))
            else:
                swap = cast(Swap, action)
                self._do_swap(swap.start, swap.other)
                done.append((action, None))
            if self.tokens[p] >= goal:
                self.winner = p
                self.over = True
                break
        if neutral >= 0:
            for k in range(2):
                moved = self.pos[neutral + k] != before[k]
                self.neutral_from[k] = before[k] if moved else -1
        self.offered = -1
        self.passes = 0
        self.quiet = 0 if removed else self.quiet + 1
        if not self.over:
            self._next_turn()

    def _next_turn(self) -> None:
        rules = self.rules
        n = rules.n_players
        if self.passes >= n or (rules.quiet_limit and self.quiet >= rules.quiet_limit):
            self.over = True
            return
        self.turn = (self.turn + 1) % n
        self.phase = GIVE if self._needs_give() else TURN

    def _needs_give(self) -> bool:
        """Expert variant: the player must enter a monk but has no cushion in reserve, so
        the opponent first chooses a free cushion of the board."""
        p = self.turn
        return (
            self.rules.expert
            and bool(self.own_off_board(p))
            and self.reserve[2 * p] + self.reserve[2 * p + 1] == 0
            and bool(self.free_cushions())
        )

    def undo(self, token: object) -> None:
        saved, done = cast(tuple[tuple[Any, ...], list[tuple[object, object]]], token)
        (
            self.turn,
            self.phase,
            self.offered,
            self.quiet,
            self.passes,
            self.winner,
            self.over,
            neutral_from,
            self._legal,
            self._legal_ids,
            self._legal_set,
        ) = saved
        self.neutral_from[:] = neutral_from
        rules = self.rules
        p = self.turn
        for action, undo in reversed(done):
            monk = rules.monk_id(p, cast(Walk, action).monk)
            if type(action) is Walk:
                self._undo_walk(monk, action.path, cast(_WalkUndo, undo))
            elif type(action) is Hover:
                self._undo_hover(monk, action.start, action.end, action.lifts)
            elif type(action) is Enter:
                self._undo_enter(monk, action.square, action.cushion, cast(int, undo))
            else:
                swap = cast(Swap, action)
                self._do_swap(swap.start, swap.other)

    # ------------------------------------------------------------------ check

    def check(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` (rule id and a sentence) if ``move`` is illegal.
        Quick for a move of the legal moves already listed; otherwise ``validate``."""
        if self._legal is not None and self.is_legal(move):
            return
        self.validate(move)

    def validate(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` if ``move`` is illegal, working through the rules
        action by action (``engines.shenshi.validate``) without listing the legal
        moves. The state is unchanged afterwards."""
        check_move(self, move)

    def check_from_options(self, turn: Turn) -> None:
        """``check`` for a turn whose every action was taken from its monk's options
        (``engines.shenshi.options``) in the position the actions before it reach, as a
        search over them does: only the rules of the turn are checked (which monk acts
        when and how often, what a turn must hold), not again where each action goes."""
        check_move(self, turn, from_options=True)

    # ------------------------------------------------------------------ JSON and text

    def to_json(self) -> dict[str, JSON]:
        """The state document (docs/notation.md, "ShenShi positions")."""
        return document.state_to_json(self)

    def describe(self) -> str:
        return document.describe(self)

    def __repr__(self) -> str:
        return f"<ShenshiState {self.to_json()!r}>"
