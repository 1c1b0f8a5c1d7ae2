"""Why a ShenShi move is illegal: a stable rule id and a sentence for players.

``check_move`` plays the turn's actions one by one on the state (and takes them back):
for each it checks the monk, then the limits of the turn (``plan.after``), then that the
action is among the monk's options at that point (``movegen``'s option functions, the
same as the move generator's); only when it is not does a diagnosis look for the exact
reason. The rule ids are listed with their meaning in docs/shenshi.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from engines.errors import IllegalMoveError
from engines.shenshi import movegen, options
from engines.shenshi.board import (
    BLOND,
    CUSHION_NAMES,
    CYCLES,
    DIRECTIONS,
    FADED,
    INTACT,
    NEIGHBOURS,
    NO_CUSHION,
    RAYS,
    SIZE,
    between,
    square_name,
)
from engines.shenshi.moves import (
    MONK_LETTERS,
    RESERVE_BLOND,
    RESERVE_ORANGE,
    Action,
    Enter,
    Give,
    Hover,
    Move,
    Pass,
    Swap,
    Turn,
    Walk,
    format_action,
    format_move,
)
from engines.shenshi.plan import (
    ENTER,
    GIVE,
    HOVER,
    SWAP,
    WALK,
    Plan,
    TurnContext,
    after,
    incomplete,
)

if TYPE_CHECKING:
    from engines.shenshi.state import ShenshiState

KIND_OF = {Walk: WALK, Hover: HOVER, Enter: ENTER, Swap: SWAP}
"""The kind of each action type (``engines.shenshi.plan``)."""


def _illegal(rule: str, message: str) -> NoReturn:
    raise IllegalMoveError(rule, message)


def check_move(state: ShenshiState, move: Move, *, from_options: bool = False) -> None:
    """Raise ``IllegalMoveError`` if ``move`` is illegal in ``state``; the state is left
    as it was.

    ``from_options``: each action of the turn was taken from its monk's options
    (``engines.shenshi.options``) in the position the actions before it reach, as a
    search over them does; where each action goes is then not checked again, only the
    rules of the turn (which monk acts when, how often, what a turn must hold)."""
    rules = state.rules
    who = rules.colour_name(state.to_move)
    if state.over:
        _illegal("game.over", f"The game is over ({_outcome(state)}): no move can be played.")
    if type(move) is Give:
        if state.phase != GIVE:
            _illegal(
                "give.not-now",
                f"{who} has no cushion to choose now: in the expert variant the opponent "
                "chooses a free cushion only when a player who must enter a monk has none "
                "left in reserve.",
            )
        if not state.cushion[move.square] or state.occ[move.square] >= 0:
            _illegal(
                "give.not-free-cushion",
                f"{square_name(move.square)} holds {_holds(state, move.square)}: choose a "
                f"cushion with no monk on it for {rules.players[state.turn]}'s entry.",
            )
        return
    if state.phase == GIVE:
        _illegal(
            "give.pending",
            f"{who} must first choose the free cushion that {rules.players[state.turn]} "
            f"enters on (expert variant), with a move like give "
            f"{square_name(state.free_cushions()[0])}.",
        )
    if type(move) is Pass:
        example = movegen.has_turn(state)
        if example is not None:
            _illegal(
                "pass.has-turn",
                f"{who} cannot pass: a turn is possible (for example "
                f"{format_move(example)}). A player passes only when no turn is possible.",
            )
        return
    if type(move) is not Turn:
        raise TypeError(f"not a ShenShi move: {move!r}")
    _check_turn(state, move, from_options)


def _outcome(state: ShenshiState) -> str:
    rules = state.rules
    if state.winner >= 0:
        return f"{rules.players[state.winner]} holds {rules.board.goal} path tokens"
    if state.passes >= rules.n_players:
        return "every player passed in turn"
    return f"{rules.quiet_rounds} rounds went by without a monk removed"


def _check_turn(state: ShenshiState, move: Turn, from_options: bool) -> None:
    ctx = state.context()
    plan = Plan()
    done: list[tuple[Action, int, object]] = []
    try:
        for index, action in enumerate(move.actions):
            plan = _check_action(state, ctx, plan, move.actions[:index], action, done, from_options)
        rule = incomplete(ctx, plan)
        if rule is not None:
            _incomplete_turn(state, ctx, plan, rule)
        if state.rules.neutral_return == "turn":
            _neutral_return(state, None)
    finally:
        for action, monk, undo in reversed(done):
            _undo(state, action, monk, undo)


def _undo(state: ShenshiState, action: Action, monk: int, undo: object) -> None:
    if type(action) is Walk:
        state._undo_walk(monk, action.path, undo)  # type: ignore[arg-type]
    elif type(action) is Hover:
        state._undo_hover(monk, action.start, action.end, action.lifts)
    elif type(action) is Enter:
        state._undo_enter(monk, action.square, action.cushion, undo)  # type: ignore[arg-type]
    elif type(action) is Swap:
        state._do_swap(action.start, action.other)


def _check_action(
    state: ShenshiState,
    ctx: TurnContext,
    plan: Plan,
    before: tuple[Action, ...],
    action: Action,
    done: list[tuple[Action, int, object]],
    from_options: bool,
) -> Plan:
    """Check one action after ``before``; play it (recorded in ``done``) and return the
    plan that follows. ``from_options``: the action is one of its monk's options here
    (see ``check_move``)."""
    rules = state.rules
    p = state.turn
    who = rules.colour_name(p)
    kind = KIND_OF.get(type(action))
    if kind is None:
        raise TypeError(f"not a ShenShi action: {action!r}")
    code = action.monk
    if code not in range(4):
        raise TypeError(f"monk code {code!r} is not one of 0-3 ({', '.join(MONK_LETTERS)})")
    text = format_action(action)
    if kind == ENTER and code >= 2:
        _illegal(
            "enter.neutral",
            f"{text}: the neutral monks never leave the board, so they "
            "never enter; only a player's own Grand Master (G) or master (M) enters.",
        )
    monk = rules.monk_id(p, code)
    if monk < 0:
        _illegal(
            "monk.no-neutral",
            f"{text}: there are no neutral monks in a 4-player game "
            "(black plays its own monks); use G or M.",
        )
    name = rules.monk_name(monk)
    here = state.pos[monk]
    if kind == ENTER:
        if here >= 0:
            _illegal(
                "enter.on-board",
                f"{_cap(name)} is already on the board, on "
                f"{square_name(here)}: only a monk off the board enters.",
            )
    elif here < 0:
        _illegal(
            "monk.off-board",
            f"{_cap(name)} is not on the board: it must enter first "
            f"(an action like {MONK_LETTERS[code]}@{_example_entry(state)}).",
        )
    else:
        start = action.path[0] if type(action) is Walk else action.start  # type: ignore[union-attr]
        if start != here:
            _illegal(
                "monk.not-there",
                f"{text}: {name} stands on {square_name(here)}, not on {square_name(start)}.",
            )
    nxt = after(ctx, plan, monk, kind)
    if isinstance(nxt, str):
        _plan_rule(state, ctx, plan, monk, kind, nxt, len(before))
    if nxt.third_hover and type(before[-1]) is Walk and before[-1].path[0] == before[-1].path[-1]:
        _illegal(
            "expert.same-cushion",
            f"{_cap(name)}'s last hover would leave from the cushion of its first hover: "
            "in hover, walk, hover the walk must end on another cushion.",
        )
    if type(action) is Walk:
        if not from_options and action.path not in options.walk_paths(state, monk):
            _diagnose_walk(state, monk, action)
        undo: object = state._do_walk(monk, action.path)
    elif type(action) is Hover:
        if not from_options and not options.is_hover(state, monk, action.end, action.lifts):
            _diagnose_hover(state, monk, action)
        state._do_hover(monk, action.start, action.end, action.lifts)
        undo = None
    elif type(action) is Swap:
        if not from_options and action.other not in options.swap_targets(state, monk):
            _diagnose_swap(state, monk, action)
        state._do_swap(action.start, action.other)
        undo = None
    else:
        assert type(action) is Enter
        if not from_options and (
            action.cushion not in options.entry_sources(state)
            or action.square not in options.entry_squares(state, action.cushion)
        ):
            _diagnose_enter(state, action, who)
        undo = state._do_enter(monk, action.square, action.cushion)
    done.append((action, monk, undo))
    if rules.neutral_return == "action":
        _neutral_return(state, monk)
    if state.tokens[p] >= rules.board.goal:
        nxt = nxt.winning()
    return nxt


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _example_entry(state: ShenshiState) -> str:
    sources = options.entry_sources(state)
    if not sources:
        return "d4:b"
    source = sources[0]
    square = options.entry_squares(state, source)[0]
    label = (
        "b" if source == RESERVE_BLOND else "o" if source == RESERVE_ORANGE else square_name(source)
    )
    return f"{square_name(square)}:{label}"


def _holds(state: ShenshiState, square: int, monk_named: bool = True) -> str:
    """What ``square`` holds, for sentences: "an intact mandala", "an orange cushion
    with copper's master on it", "no cushion or tile"; with ``monk_named`` false, only
    what is under its monk (for a sentence that names the monk already)."""
    tile = state.tile[square]
    if tile == INTACT:
        what = "an intact mandala"
    elif tile == FADED:
        what = "a faded mandala"
    elif state.cushion[square]:
        colour = CUSHION_NAMES[state.cushion[square]]
        what = f"{'an' if colour == 'orange' else 'a'} {colour} cushion"
    else:
        return "no cushion or tile"
    monk = state.occ[square]
    return (
        what if monk < 0 or not monk_named else f"{what} with {state.rules.monk_name(monk)} on it"
    )


# ---------------------------------------------------------------------- turn limits


def _plan_rule(
    state: ShenshiState, ctx: TurnContext, plan: Plan, monk: int, kind: int, rule: str, index: int
) -> NoReturn:
    rules = state.rules
    who = rules.colour_name(state.turn)
    name = rules.monk_name(monk)
    goal = rules.board.goal
    # The sentences are made only for the rule broken: searches check many turns.
    messages: dict[str, Callable[[], str]] = {
        "turn.game-won": lambda: (
            f"{who} reached {goal} path tokens with action {index} and won at once: the "
            "actions after it cannot be played. End the turn there."
        ),
        "turn.three-actions": lambda: (
            "A turn has at most three actions: leave out the fourth and those after it."
        ),
        "turn.enter-first": lambda: (
            f"{who} has a monk off the board: the turn must begin by entering it (an action "
            f"like {'G' if state.pos[ctx.own[0]] < 0 else 'M'}@{_example_entry(state)}) "
            "before any other action."
        ),
        "enter.one-per-turn": lambda: (
            f"{who} has already entered a monk this turn: one monk enters per turn; {name} "
            f"enters on {who}'s next turn."
        ),
        "monk.finished": lambda: (
            f"{_cap(name)} has finished acting this turn: all the actions of one monk come "
            "before those of the next. Play them together."
        ),
        "turn.one-grand-master": lambda: (
            f"{who} has already used a Grand Master this turn: a turn uses one Grand Master "
            f"and one master, so {name} cannot act too."
        ),
        "turn.one-master": lambda: (
            f"{who} has already used a master this turn: a turn uses one Grand Master and "
            f"one master, so {name} cannot act too."
        ),
        "monk.walked-twice": lambda: (
            f"{_cap(name)} has already walked this turn (entering and swapping count as its "
            "walk): a monk walks at most once a turn."
        ),
        "monk.hovered-twice": lambda: (
            f"{_cap(name)} has already hovered this turn: a monk hovers at most once a turn "
            "(in the expert variant, twice only as hover, walk, hover)."
        ),
        "expert.program": lambda: (
            f"{_cap(name)} cannot {'hover' if kind == HOVER else 'walk'} again here: one "
            "monk's three actions go hover, walk, hover, and a monk otherwise walks once and "
            "hovers once."
        ),
    }
    _illegal(rule, messages[rule]())


def _incomplete_turn(state: ShenshiState, ctx: TurnContext, plan: Plan, rule: str) -> NoReturn:
    rules = state.rules
    p = state.turn
    who = rules.colour_name(p)
    if rule == "turn.empty":
        _illegal(
            rule,
            f"{who}'s turn has no action: a turn has one to three actions (a "
            "player with no possible turn passes).",
        )
    if rule == "turn.swap-alone":
        _illegal(
            rule,
            "A swap never makes a turn alone: it must come with another action, "
            "before or after it.",
        )
    if rule in ("turn.needs-grand-master", "turn.needs-master"):
        size = "Grand Master" if rule == "turn.needs-grand-master" else "master"
        _illegal(
            rule,
            f"{who} has not used a {size}: every turn uses a Grand Master and a "
            f"master (own or neutral). Add an action of {who}'s or the neutral {size}.",
        )
    assert rule == "turn.needs-both-monks"
    idle = [m for m in ctx.own if ctx.own_on_board >> m & 1 and not plan.used >> m & 1]
    _illegal(
        rule,
        f"{_cap(rules.monk_name(idle[0]))} has not acted: once both of a "
        "player's monks are in play, each does at least one action every turn.",
    )


def _neutral_return(state: ShenshiState, moved: int | None) -> None:
    """Raise if a neutral monk (``moved``, or either when None) stands on the square it
    came from on the previous player's turn."""
    rules = state.rules
    if not rules.has_neutral:
        return
    g = 2 * rules.n_players
    for k in range(2):
        if moved is not None and moved not in (g + k, g + 1 - k):
            continue
        if state.pos[g + k] == state.neutral_from[k]:
            previous = rules.players[(state.turn - 1) % rules.n_players]
            _illegal(
                "neutral.no-return",
                f"{_cap(rules.monk_name(g + k))} came from "
                f"{square_name(state.neutral_from[k])} on {previous}'s turn: "
                f"{rules.colour_name(state.turn)} may not move it back there this turn.",
            )


# ---------------------------------------------------------------------- diagnoses


def _diagnose_walk(state: ShenshiState, monk: int, action: Walk) -> NoReturn:
    rules = state.rules
    name = rules.monk_name(monk)
    path = action.path
    text = format_action(action)
    if len(path) not in (2, 3):
        _illegal("walk.length", f"{text}: a walk is one or two squares, not {len(path) - 1}.")
    for a, b in itertools.pairwise(path):
        if b not in NEIGHBOURS[a]:
            _illegal(
                "walk.step",
                f"{text}: from {square_name(a)} to {square_name(b)} is not "
                "one orthogonal step. A monk walks square by square, up, down, left or "
                "right, never diagonally; name every square (like Gc3-c4-d4).",
            )
    if len(path) == 3 and rules.walk == "straight" and path[2] - path[1] != path[1] - path[0]:
        _illegal(
            "walk.straight",
            f"{text}: with the option walk = straight, a two-square walk "
            "goes straight on; it cannot turn or come back.",
        )
    removed = False
    occ, start = state.occ, path[0]
    for square in path[1:]:
        if square == start:
            if not removed:
                _illegal(
                    "walk.no-move",
                    f"{text}: {name} would end where it started without "
                    "removing a monk; a walk back to its own square is allowed only "
                    "after removing a monk on the way.",
                )
            continue
        if not state.walkable(square):
            _illegal(
                "walk.not-walkable",
                f"{text}: {square_name(square)} holds "
                f"{_holds(state, square)}; monks walk only on cushions and faded "
                "mandalas.",
            )
        victim = occ[square]
        if victim < 0:
            continue
        if not options.removable(state, monk, victim):
            owner = victim >> 1
            if owner == rules.n_players:
                why = "neutral monks can never be removed, passed or stood on"
            elif owner == state.turn:
                why = "a monk cannot pass or stop on its own player's monks"
            elif victim & 1 == 0:
                why = "only a master removes a Grand Master, so a Grand Master cannot pass it"
            else:
                why = "only a Grand Master removes a master, so a master cannot pass it"
            _illegal(
                "walk.blocked",
                f"{text}: {square_name(square)} holds {rules.monk_name(victim)}, and {why}.",
            )
        removed = True
    _illegal(
        "walk.illegal",
        f"{text}: {name} cannot walk along this path; a walk is one "
        "or two orthogonal steps over cushions and faded mandalas.",
    )


def _diagnose_hover(state: ShenshiState, monk: int, action: Hover) -> NoReturn:
    rules = state.rules
    name = rules.monk_name(monk)
    text = format_action(action)
    start, end, lifts = action.start, action.end, action.lifts
    colour = state.cushion[start]
    if colour == NO_CUSHION:
        _illegal(
            "hover.no-cushion",
            f"{text}: {name} stands on "
            f"{_holds(state, start, monk_named=False)} on "
            f"{square_name(start)}, not on a cushion: only a monk on a cushion hovers.",
        )
    if end == start:
        _illegal("hover.no-move", f"{text}: a hover must take {name} to another square.")
    if lifts and colour == BLOND:
        _illegal(
            "hover.lift-blond",
            f"{text}: {name} sits on a blond cushion; only an orange "
            "cushion lifts blond cushions on its way.",
        )
    if len(lifts) > rules.orange_lifts:
        _illegal(
            "hover.lift-limit",
            f"{text}: one hover lifts at most {rules.orange_lifts} "
            f"blond cushion{'s' * (rules.orange_lifts != 1)} (option orange_lifts).",
        )
    for lifted, put in lifts:
        if (
            state.cushion[lifted] != BLOND
            or state.occ[lifted] >= 0
            or lifted == start
            or between(start, lifted) is None
        ):
            _illegal(
                "hover.lift-not-free",
                f"{text}: {square_name(lifted)} holds "
                f"{_holds(state, lifted)} in line with {square_name(start)}; an orange "
                "cushion lifts only a free blond cushion on its row or column.",
            )
        if not state.empty(put) and put != start and put not in (q for q, _ in lifts):
            _illegal(
                "hover.put-down",
                f"{text}: the lifted cushion cannot go on "
                f"{square_name(put)}, which holds {_holds(state, put)}; put it on an "
                "empty square.",
            )
    if (
        lifts
        and rules.lift_put_down == "free"
        and options.is_hover(state, monk, end, lifts, "also-orange-square")
    ):
        lifted, put = next((q, t) for q, t in lifts if t in _line_neighbours(q, start))
        _illegal(
            "hover.put-down",
            f"{text}: as it lifts the cushion of "
            f"{square_name(lifted)}, the orange cushion still stands on "
            f"{square_name(put)}, so the lifted cushion cannot go there; put it down on "
            "another empty square (option lift_put_down).",
        )
    if between(start, end) is None and not (rules.expert and colour == BLOND):
        _illegal(
            "hover.not-straight",
            f"{text}: {square_name(end)} is not on the row or "
            f"column of {square_name(start)}; a hover goes up, down, left or right "
            "without turning.",
        )
    if not state.empty(end) and end not in (q for q, _ in lifts):
        _illegal(
            "hover.blocked",
            f"{text}: {square_name(end)} holds {_holds(state, end)}; "
            "a hover stops only on an empty square.",
        )
    if lifts:
        _illegal(
            "hover.lift-path",
            f"{text}: with those lifts the orange cushion cannot "
            f"reach {square_name(end)}. It lifts only the free blond cushions it meets, "
            "in the order it meets them, going one way along its row or column, and a "
            "cushion put down in its way stops it.",
        )
    if between(start, end) is not None:
        obstacle = _first_obstacle(state, start, end, colour)
        if obstacle is not None:
            _illegal(
                "hover.blocked",
                f"{text}: {square_name(obstacle)} "
                f"({_holds(state, obstacle)}) is in the way; a hover passes only empty "
                "squares and stops before the first obstacle"
                + (
                    " (an orange cushion may lift a free blond cushion)."
                    if colour != BLOND and rules.orange_lifts
                    else "."
                ),
            )
    _illegal(
        "hover.unreachable",
        f"{text}: {name} cannot get to {square_name(end)} over "
        "empty squares"
        + (
            " with at most one 90-degree turn."
            if rules.expert and colour == BLOND
            else " in a straight line."
        ),
    )


def _line_neighbours(square: int, start: int) -> tuple[int, ...]:
    """The squares beside ``square`` on its row or column through ``start``, across the
    edge too (where an orange cushion stands as it reaches ``square``)."""
    return tuple(
        line[(line.index(square) + step) % 7]
        for line in CYCLES[start]
        if square in line
        for step in (-1, 1)
    )


def _first_obstacle(state: ShenshiState, start: int, end: int, colour: int) -> int | None:
    """The first obstacle on the straight way from ``start`` to ``end`` on one row or
    column (for an orange cushion: the shorter way round), or None."""
    ra, ca = divmod(start, SIZE)
    rb, cb = divmod(end, SIZE)
    d = DIRECTIONS.index(((rb > ra) - (rb < ra), (cb > ca) - (cb < ca)))
    squares: tuple[int, ...] = RAYS[start][d]
    if colour != BLOND:
        other = CYCLES[start][(d + 2) % 4]
        if other.index(end) < squares.index(end):
            squares = other
    for square in squares:
        if not state.empty(square):
            return square
        if square == end:
            break
    return None


def _diagnose_swap(state: ShenshiState, monk: int, action: Swap) -> NoReturn:
    rules = state.rules
    text = format_action(action)
    partner = monk ^ 1
    if state.occ[action.other] != partner:
        _illegal(
            "swap.not-partner",
            f"{text}: {square_name(action.other)} holds "
            f"{_holds(state, action.other)}, not {rules.monk_name(partner)}; a swap "
            "exchanges the two monks of one colour.",
        )
    squares = between(action.start, action.other)
    if squares is None:
        _illegal(
            "swap.not-in-line",
            f"{text}: {square_name(action.start)} and "
            f"{square_name(action.other)} are not on one row or column; two monks swap "
            "only along a line.",
        )
    for square in squares:
        if state.occ[square] >= 0:
            _illegal(
                "swap.blocked",
                f"{text}: {square_name(square)} between them holds "
                f"{rules.monk_name(state.occ[square])}; no monk may stand between two "
                "monks that swap.",
            )
        if not state.walkable(square):
            _illegal(
                "swap.blocked",
                f"{text}: {square_name(square)} between them holds "
                f"{_holds(state, square)}; every square between two monks that swap "
                "must be a cushion or a faded mandala.",
            )
    _illegal(
        "swap.illegal",
        f"{text}: these monks cannot swap; two monks of one colour "
        "swap along a row or column of walkable squares with no monk between.",
    )


def _diagnose_enter(state: ShenshiState, action: Enter, who: str) -> NoReturn:
    text = format_action(action)
    p = state.turn
    source, square = action.cushion, action.square
    in_reserve = state.reserve[2 * p] + state.reserve[2 * p + 1]
    if state.offered >= 0 and source != state.offered:
        opponent = state.rules.players[(p + 1) % state.rules.n_players]
        _illegal(
            "enter.offered",
            f"{text}: {opponent} chose the cushion on "
            f"{square_name(state.offered)} for this entry; {who} enters on that one.",
        )
    if source in (RESERVE_BLOND, RESERVE_ORANGE):
        colour = BLOND if source == RESERVE_BLOND else 2
        if not state.reserve[2 * p + colour - 1]:
            rest = (
                ""
                if in_reserve
                else "; with none left in reserve, take a free cushion of the board (like G@d4:e5)"
            )
            _illegal(
                "enter.no-reserve-cushion",
                f"{text}: {who} has no {CUSHION_NAMES[colour]} cushion left in reserve{rest}.",
            )
    else:
        if in_reserve and state.offered < 0:
            _illegal(
                "enter.reserve-first",
                f"{text}: {who} still has cushions in reserve "
                f"({state.reserve[2 * p]} blond, {state.reserve[2 * p + 1]} orange); a "
                "cushion is taken from the board only when the reserve is empty.",
            )
        if not state.cushion[source] or state.occ[source] >= 0:
            _illegal(
                "enter.not-free-cushion",
                f"{text}: {square_name(source)} holds "
                f"{_holds(state, source)}; take a cushion with no monk on it.",
            )
    if not state.empty(square) and square != source:
        _illegal(
            "enter.square-taken",
            f"{text}: {square_name(square)} holds "
            f"{_holds(state, square)}; a monk enters with its cushion on an empty square.",
        )
    _illegal(
        "enter.illegal",
        f"{text}: {who} cannot enter this way; a monk enters on an "
        "empty square with a cushion from the reserve, or from the board when the "
        "reserve is empty.",
    )
