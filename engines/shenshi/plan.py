"""What a turn has done so far, and which action may come next (RULINGS 3.2).

The limits of a turn — three actions, a walk and a hover per monk, every action of one
monk before the next monk, one Grand Master and one master, the entry first, the expert
program hover-walk-hover — depend only on which monk did which kind of action, never on
where it went. They live here, in one place, for both the move generator and the
validator: ``after`` answers "may this monk do this kind of action now?" with the next
``Plan`` or a rule id; ``incomplete`` says whether the turn may end here.
"""

from __future__ import annotations

WALK, HOVER, ENTER, SWAP = 0, 1, 2, 3
"""Kinds of action. An entry and a swap count as the monk's walk."""

TURN, GIVE = 0, 1
"""Phases: a player's turn, or (expert variant) the opponent choosing the free cushion
that the player will enter on."""

KIND_LETTERS = "WHWW"  # how a kind is written in ``Plan.block``: entries and swaps are walks


class TurnContext:
    """What the rules ask of the turn of ``mover``, fixed when the turn begins."""

    __slots__ = (
        "expert",
        "four",
        "mover",
        "must_enter",
        "one_of_each",
        "own",
        "own_on_board",
        "pair",
    )

    def __init__(
        self,
        mover: int,
        *,
        n_players: int,
        expert: bool,
        one_of_each: bool,
        own_on_board: tuple[bool, bool],
    ) -> None:
        self.mover = mover
        self.own = (2 * mover, 2 * mover + 1)
        self.expert = expert
        self.four = n_players == 4
        self.one_of_each = one_of_each
        # The basic game with neutral monks: a Grand Master and a master every turn.
        self.pair = not expert and not self.four
        self.own_on_board = (
            int(own_on_board[0]) << self.own[0] | int(own_on_board[1]) << self.own[1]
        )
        self.must_enter = not all(own_on_board)


class Plan:
    """The actions of a turn so far, by monk and kind. Immutable once built; the move
    generator shares one plan between sibling positions, so each plan remembers the
    answers of ``after`` and ``incomplete`` it has given."""

    __slots__ = (
        "_ended",
        "_next",
        "_steps",
        "block",
        "current",
        "entered",
        "hovered",
        "n",
        "only_swap",
        "sizes",
        "used",
        "walked",
        "won",
    )

    def __init__(self) -> None:
        self.n = 0  # actions so far
        self.walked = 0  # bit per monk id: walked (an entry or a swap counts)
        self.hovered = 0  # bit per monk id
        self.used = 0  # bit per monk id: monks that have acted
        self.sizes = 0  # bit 0: a Grand Master has acted; bit 1: a master has
        self.current = -1  # the monk acting now
        self.block = ""  # the kinds of its actions, "W" and "H"
        self.entered = False
        self.only_swap = False  # the turn is one swap so far
        self.won = False  # the mover holds the tokens that win: the turn is over
        self._next: dict[tuple[int, int], Plan | str] = {}
        self._ended: str | None = None  # incomplete()'s answer, "" for None; None: not asked
        self._steps: list[tuple[int, int, Plan | None, Plan | None, Plan | None]] | None = None

    def _copy(self) -> Plan:
        other = Plan()
        other.n = self.n
        other.walked = self.walked
        other.hovered = self.hovered
        other.used = self.used
        other.sizes = self.sizes
        other.current = self.current
        other.block = self.block
        other.entered = self.entered
        other.only_swap = self.only_swap
        other.won = self.won
        return other

    def winning(self) -> Plan:
        """This plan, once the last action has won the game."""
        other = self._copy()
        other.won = True
        return other

    @property
    def third_hover(self) -> bool:
        """Whether the last action is the expert program's closing hover (one monk:
        hover, walk, hover), which must start from another cushion than the first."""
        return self.block == "HWH"


def after(ctx: TurnContext, plan: Plan, monk: int, kind: int) -> Plan | str:
    """The plan once ``monk`` does an action of ``kind``, or the id of the rule that
    forbids it. (That the expert program's last hover leaves from another cushion than
    the first depends on where the walk went: callers check ``Plan.third_hover``.)"""
    key = (monk, kind)
    found = plan._next.get(key)
    if found is None:
        found = plan._next[key] = _after(ctx, plan, monk, kind)
    return found


def _after(ctx: TurnContext, plan: Plan, monk: int, kind: int) -> Plan | str:
    if plan.won:
        return "turn.game-won"
    if plan.n >= 3:
        return "turn.three-actions"
    if ctx.must_enter and plan.n == 0 and kind != ENTER:
        return "turn.enter-first"
    if kind == ENTER and plan.entered:
        return "enter.one-per-turn"
    bit = 1 << monk
    new_monk = monk != plan.current
    if new_monk:
        if plan.used & bit:
            return "monk.finished"
        size_bit = 1 << (monk & 1)
        if ctx.one_of_each and plan.sizes & size_bit:
            return "turn.one-grand-master" if monk & 1 == 0 else "turn.one-master"
    block = plan.block if not new_monk else ""
    alone = plan.used == bit  # this monk is the only one to have acted
    if kind == HOVER:
        if plan.hovered & bit and not (ctx.expert and block == "HW" and alone):
            return "expert.program" if ctx.expert and alone else "monk.hovered-twice"
    elif plan.walked & bit:
        return "expert.program" if ctx.expert and alone and plan.n == 2 else "monk.walked-twice"
    nxt = plan._copy()
    nxt.n = plan.n + 1
    if kind == HOVER:
        nxt.hovered |= bit
    else:
        nxt.walked |= bit
    nxt.used |= bit
    nxt.sizes |= 1 << (monk & 1)
    nxt.current = monk
    nxt.block = block + KIND_LETTERS[kind]
    nxt.entered = plan.entered or kind == ENTER
    nxt.only_swap = plan.n == 0 and kind == SWAP
    return nxt


def steps(
    ctx: TurnContext,
    plan: Plan,
    monks: list[tuple[int, int]],
) -> list[tuple[int, int, Plan | None, Plan | None, Plan | None]]:
    """For each (code, monk) of ``monks`` that may still act: the plans after its walk,
    hover and swap (None where the limits forbid it). Remembered by the plan."""
    found = plan._steps
    if found is None:
        found = []
        for code, monk in monks:
            nexts = [after(ctx, plan, monk, kind) for kind in (WALK, HOVER, SWAP)]
            plans = [n if isinstance(n, Plan) else None for n in nexts]
            if plans != [None, None, None]:
                found.append((code, monk, plans[0], plans[1], plans[2]))
        plan._steps = found
    return found


def incomplete(ctx: TurnContext, plan: Plan) -> str | None:
    """The id of the rule that forbids ending the turn here, or None."""
    if plan._ended is None:
        plan._ended = _incomplete(ctx, plan) or ""
    return plan._ended or None


def _incomplete(ctx: TurnContext, plan: Plan) -> str | None:
    if plan.n == 0:
        return "turn.empty"
    if plan.won:
        return None
    if plan.only_swap:
        return "turn.swap-alone"
    if ctx.pair and plan.sizes != 3:
        return "turn.needs-master" if plan.sizes & 1 else "turn.needs-grand-master"
    if ctx.four and ctx.own_on_board & ~plan.used:
        return "turn.needs-both-monks"
    return None
