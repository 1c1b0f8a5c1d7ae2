"""What a ShenShi table shows, for the referee: its elements (``schema``), the
sentences that tell players what to put right, the guess of what a player tried, and
the table model (``TABLE``).

A turn can have a million legal variants, so the referee never lists them:
``candidates`` (``engines.shenshi.turn_search``) rebuilds the turns that could leave
the table as it is seen, action by action, from the squares that changed, and keeps
those the engine accepts.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines import IllegalMoveError
from engines.observation import Observation, TableSchema, Value
from engines.shenshi.board import BLOND, CUSHION_NAMES, NO_CUSHION, ORANGE, SIZE
from engines.shenshi.moves import (
    NEUTRAL_G,
    NEUTRAL_M,
    OWN_G,
    OWN_M,
    RESERVE_BLOND,
    RESERVE_ORANGE,
    Action,
    Enter,
    Hover,
    Move,
    Pass,
    Swap,
    Turn,
    Walk,
    format_move,
)
from engines.shenshi.options import hover_ends, walk_paths
from engines.shenshi.rules import ShenshiRules
from engines.shenshi.schema import (
    CUSHION,
    MAX_TOKENS,
    MONK,
    NONE,
    SIZES,
    SQUARES,
    SURE,
    TILE,
    changed_squares,
    expected,
    group,
    monk_readings,
    monk_value,
    schema,
    tokens,
    transient,
    values,
)
from engines.shenshi.state import ShenshiState
from engines.shenshi.turn_search import (
    ALL_KINDS,
    IN_PROGRESS_LIMIT,
    candidates,
    extends,
    first_candidates,
    touched,
    values_after,
)
from engines.table_model import Change, TableModel

__all__ = [
    "ALL_KINDS",
    "CUSHION",
    "IN_PROGRESS_LIMIT",
    "MAX_TOKENS",
    "MONK",
    "NONE",
    "SIZES",
    "SQUARES",
    "SURE",
    "TABLE",
    "TILE",
    "TURN_IN_PARTS",
    "ShenshiTable",
    "candidates",
    "describe_element",
    "expected",
    "extends",
    "first_candidates",
    "fix_sentences",
    "group",
    "guess",
    "monk_value",
    "schema",
    "tokens",
    "touched",
    "transient",
    "with_swaps_undone",
]

TURN_IN_PARTS = True
"""A turn is up to three actions in any order, each touching several pieces: the
referee waits for the player to say the turn is done before calling a table no legal
turn explains illegal (another player's monk moved is flagged at once)."""


def describe_element(element: str) -> str:
    if element.startswith("tokens "):
        return f"{element[7:]}'s path tokens"
    square, part = element.split(" ", 1)
    return f"the {part} on {square}"


def _monk_words(value: Value | None) -> str:
    colour, size = str(value).split("-")
    return f"the {colour} {'Grand Master' if size == 'grand' else 'master'}"


def _article(word: Value) -> str:
    return "an" if str(word)[:1] in "aeiou" else "a"


def fix_sentences(changes: list[tuple[str, Value | None, Value]]) -> list[str]:
    """One instruction per element, turning what is seen into what is wanted."""
    out = []
    for element, seen, wanted in changes:
        if element.startswith("tokens "):
            out.append(
                f"{element[7:].capitalize()} should hold {wanted} path tokens (seen {seen})."
            )
            continue
        square, part = element.split(" ", 1)
        if part == "monk":
            if wanted == NONE:
                out.append(f"Take {_monk_words(seen)} off {square}.")
            elif seen in (NONE, None):
                out.append(f"Put {_monk_words(wanted)} on {square}.")
            else:
                out.append(f"Put {_monk_words(wanted)} on {square} instead of {_monk_words(seen)}.")
        elif part == "cushion":
            if wanted == NONE:
                out.append(f"Take the {seen} cushion off {square}.")
            elif seen in (NONE, None):
                out.append(f"Put {_article(wanted)} {wanted} cushion on {square}.")
            else:
                out.append(
                    f"Put {_article(wanted)} {wanted} cushion on {square} instead "
                    f"of the {seen} one."
                )
        elif wanted == NONE:
            out.append(f"Take the mandala tile off {square}.")
        else:
            out.append(
                f"The mandala tile on {square} should show its {wanted} side (it shows {seen})."
            )
    return out


# ---------------------------------------------------------------------- guess


def _lifts_seen(
    state: ShenshiState, observation: Observation, start: int, end: int
) -> tuple[tuple[int, int], ...]:
    """For an orange cushion hovering from ``start`` to ``end``: the free blond cushions
    seen gone, paired in square order with the blond cushions seen new (the start
    square included)."""
    if state.cushion[start] != ORANGE:
        return ()
    gone = [
        s
        for s in range(SIZE * SIZE)
        if state.cushion[s] == BLOND and state.occ[s] < 0 and observation.value(CUSHION[s]) == NONE
    ]
    new = [
        s
        for s in range(SIZE * SIZE)
        if s != end
        and observation.value(CUSHION[s]) == "blond"
        and (state.cushion[s] == NO_CUSHION or s == start)
    ]
    return tuple(zip(gone, new, strict=False))


def _seen_action(
    state: ShenshiState, observation: Observation, monk: int, code: int, end: int
) -> Action | None:
    """The action of ``monk`` (``code`` for the player to move) ending on ``end`` that
    its options allow and whose every change the table shows where it is read (a walk
    removing the monks seen gone on its way, a hover with the cushions it lifts), the
    one changing most if several do; None when none does. A monk moved one square
    diagonally where a walk round the corner can take it made that walk: the table
    cannot show the way a monk went, and shows a legal walk (a player who said done
    then is told what the turn still lacks, not that the monk stepped diagonally)."""
    start = state.pos[monk]
    choices: list[Action] = [
        Walk(code, path) for path in walk_paths(state, monk) if path[-1] == end
    ]
    # Hovers lifting blond cushions from the same squares to the same squares, paired
    # otherwise, leave one table (an orange cushion's two lifts have thousands of
    # pairings): the first of them stands for all.
    pairings: set[tuple[frozenset[int], frozenset[int]]] = set()
    for e, lifts in hover_ends(state, monk):
        if e != end:
            continue
        pairing = (frozenset(a for a, _ in lifts), frozenset(b for _, b in lifts))
        if pairing not in pairings:
            pairings.add(pairing)
            choices.append(Hover(code, start, e, lifts))
    best: tuple[int, Action] | None = None
    for action in choices:
        changes = _changes(state, action)
        if all(
            not observation[e].known or observation.value(e) == v for e, v in changes.items()
        ) and (best is None or len(changes) > best[0]):
            best = (len(changes), action)
    return None if best is None else best[1]


ELEMENT_KINDS = ("tile", "cushion", "monk")
"""The elements of a square: ``"c3 tile"``, ``"c3 cushion"``, ``"c3 monk"``."""


def _changes(state: ShenshiState, action: Action) -> dict[str, Value]:
    """What ``action`` alone, played in ``state``, changes on the table: element ->
    value after it. Only the squares it handles and the token counts can change, so
    only those are compared (the whole table is not built)."""
    turn = Turn((action,))
    elements = [f"{name} {kind}" for name in touched(state, turn) for kind in ELEMENT_KINDS]
    elements += [f"tokens {player}" for player in state.rules.players]
    before = values(state, elements)
    token = state.apply(turn)
    after = values(state, elements)
    state.undo(token)
    return {e: a for e, b, a in zip(elements, before, after, strict=True) if a != b}


def _line(a: int, b: int) -> tuple[int, ...]:
    """The squares from ``a`` to ``b`` along a row or column, or just the two ends."""
    ra, ca = divmod(a, SIZE)
    rb, cb = divmod(b, SIZE)
    if ra == rb or ca == cb:
        n = max(abs(ra - rb), abs(ca - cb))
        dr, dc = (rb > ra) - (rb < ra), (cb > ca) - (cb < ca)
        return tuple((ra + k * dr) * SIZE + ca + k * dc for k in range(n + 1))
    return (a, b)


def _walked_back(state: ShenshiState, observation: Observation, gone: list[int]) -> Action | None:
    """A walk of a monk the player to move may walk that comes back to its square and
    removes the monks ``gone`` (the only monks the table shows moved), every change it
    makes shown where the table is read; None when there is none. The walker's square
    looks as before, so nothing else points to it."""
    if not gone:
        return None
    rules = state.rules
    p = state.turn
    for code in range(4):
        monk = rules.monk_id(p, code)
        if monk < 0 or monk in gone:
            continue
        start = state.pos[monk]
        if start < 0:
            continue
        action = _seen_action(state, observation, monk, code, start)
        if action is None:
            continue
        changes = _changes(state, action)
        if all(changes.get(MONK[state.pos[m]]) == NONE for m in gone):
            return action
    return None


def guess(
    state: ShenshiState, observation: Observation, changed: list[str]
) -> tuple[str, Move | None, int | None]:
    """What the player seems to have tried: (words, the turn meant, whose monk moved).

    Each monk is known by its metal and size, so where every monk went is read off the
    table; the turn is rebuilt from that (entries first, then walks, hovers and swaps
    in square order) and ``check`` names the rule it breaks."""
    rules = state.rules
    readings = monk_readings(rules)
    where: dict[str, int] = {}
    for s in range(SIZE * SIZE):
        value = observation.value(MONK[s])
        if value not in (None, NONE):
            where[str(value)] = s
    p = state.turn
    moved: list[tuple[int, int, int]] = []  # (monk, from, to: -1 when gone)
    for monk in range(rules.n_monks):
        name = str(readings[monk].value)
        start = state.pos[monk]
        if start >= 0 and not observation[MONK[start]].known:
            continue
        end = where.get(name, -1)
        if end != start:
            moved.append((monk, start, end))
    movers = [(m, a, b) for m, a, b in moved if b >= 0]
    if not changed_squares(changed):
        return ("passing", Pass(), p)
    others = [m for m, _, _ in movers if rules.monk_code(p, m) < 0]
    if others:
        owner = rules.owner(others[0])
        return (f"moving {rules.monk_name(others[0])}", None, owner)
    entries: list[Action] = []
    actions: list[Action] = []
    if not movers:
        back = _walked_back(state, observation, [m for m, _, _ in moved])
        if back is None:
            return (
                "taking monks off the board" if moved else "moving cushions or tiles",
                None,
                None,
            )
        actions.append(back)
    done: set[int] = set()
    cushion = state.cushion
    for monk, start, end in movers:
        if monk in done:
            continue
        code = rules.monk_code(p, monk)
        if start < 0:
            seen = observation.value(CUSHION[end])
            source = RESERVE_ORANGE if seen == "orange" else RESERVE_BLOND
            if not state.reserve[2 * p] + state.reserve[2 * p + 1]:
                gone = [
                    s
                    for s in range(SIZE * SIZE)
                    if cushion[s] != NO_CUSHION
                    and observation.value(CUSHION[s]) == NONE
                    and s != end
                ]
                source = gone[0] if gone else source
            entries.append(Enter(code, end, source))
            continue
        partner = [x for x in movers if x[0] == monk ^ 1 and x[1] == end and x[2] == start]
        if partner and monk >> 1 == (monk ^ 1) >> 1:
            done.add(monk ^ 1)
            actions.append(Swap(code, start, end))
            continue
        seen_action = _seen_action(state, observation, monk, code, end)
        if seen_action is not None:
            actions.append(seen_action)
            continue
        colour = cushion[start]
        if (
            colour != NO_CUSHION
            and observation.value(CUSHION[start]) != CUSHION_NAMES[colour]
            and observation.value(CUSHION[end]) == CUSHION_NAMES[colour]
            and cushion[end] == NO_CUSHION
        ):
            actions.append(Hover(code, start, end, _lifts_seen(state, observation, start, end)))
        else:
            actions.append(Walk(code, _line(start, end)))
    turn = Turn((*entries, *actions))
    first = turn.actions[0]
    kind = {Walk: "walking", Hover: "hovering", Enter: "entering", Swap: "swapping"}
    monk = rules.monk_id(p, first.monk)
    words = f"{kind[type(first)]} {rules.monk_name(monk)}"
    if len(turn.actions) > 1:
        words += f" ({format_move(turn)})"
    return (words, turn, p)


def with_swaps_undone(
    state: ShenshiState, observation: Observation, changed: list[str]
) -> list[Move]:
    """The legal turns that leave the table as it is seen with two of their actions
    leaving no trace: a monk swapped with its partner, which swaps back (``Gd6=d7
    Md6=d7``), before or after what the table shows (no action, or one). The candidate
    search rebuilds turns from the squares that changed, so it never finds these; the
    referee looks for them once the player says the turn is done, before calling a
    turn that lacks a monk, or a pass, illegal."""
    _, shown, player = guess(state, observation, changed)
    if player != state.turn:
        return []
    if isinstance(shown, Pass):
        actions: tuple[Action, ...] = ()
    elif isinstance(shown, Turn) and len(shown.actions) <= 1:
        actions = shown.actions
    else:
        return []
    rules = state.rules
    pairs = [(OWN_G, OWN_M)]
    if rules.has_neutral:
        pairs.append((NEUTRAL_G, NEUTRAL_M))
    found: dict[object, Move] = {}  # one turn per position reached
    for first, second in pairs:
        a = state.pos[rules.monk_id(state.turn, first)]
        b = state.pos[rules.monk_id(state.turn, second)]
        if a < 0 or b < 0:
            continue
        for undone in (
            (Swap(first, a, b), Swap(second, a, b)),
            (Swap(second, b, a), Swap(first, b, a)),
        ):
            for turn in (Turn((*undone, *actions)), Turn((*actions, *undone))):
                try:
                    state.check(turn)
                except IllegalMoveError:
                    continue
                token = state.apply(turn)
                key = state.position_key()
                state.undo(token)
                found.setdefault(key, turn)
    return list(found.values())


class ShenshiTable(TableModel[ShenshiRules, ShenshiState, Move]):
    """ShenShi's table for the referee: too many turns to list, so they are rebuilt
    from what changed (``candidates``); a turn is made in parts, and a turn accepted
    from the table may go on with a third action (``extends``)."""

    game = "shenshi"

    def schema(self, rules: ShenshiRules) -> TableSchema:
        return schema(rules)

    def expected(self, state: ShenshiState) -> Observation:
        return expected(state)

    def transient(self, element: str) -> frozenset[Value]:
        return transient(element)

    def values(self, state: ShenshiState, elements: Sequence[str]) -> list[Value]:
        return values(state, elements)

    def values_after(
        self, state: ShenshiState, moves: Sequence[Move], elements: Sequence[str]
    ) -> list[list[Value]]:
        return values_after(state, moves, elements)

    def group(self, element: str) -> str:
        return group(element)

    def guess(
        self, state: ShenshiState, observation: Observation, changed: list[str]
    ) -> tuple[str, Move | None, int | None]:
        return guess(state, observation, changed)

    def fix_sentences(self, changes: list[Change]) -> list[str]:
        return fix_sentences(changes)

    def describe_element(self, element: str) -> str:
        return describe_element(element)

    @property
    def TURN_IN_PARTS(self) -> bool:
        return TURN_IN_PARTS

    @property
    def MOVES_GO_ON(self) -> bool:
        return True

    def candidates(
        self,
        state: ShenshiState,
        observation: Observation,
        changed: list[str],
        hidden: frozenset[str] = frozenset(),
    ) -> list[Move]:
        return candidates(state, observation, changed, hidden)

    def first_candidates(
        self, state: ShenshiState, observation: Observation, changed: list[str]
    ) -> list[Move]:
        return first_candidates(state, observation, changed)

    def traceless(
        self, state: ShenshiState, observation: Observation, changed: list[str]
    ) -> list[Move]:
        return with_swaps_undone(state, observation, changed)

    def touched(self, state: ShenshiState, move: Move) -> frozenset[str]:
        return touched(state, move)

    def extends(self, state: ShenshiState, move: Move, bigger: Move) -> bool:
        return extends(state, move, bigger)


TABLE = ShenshiTable()
"""ShenShi's table model (``engines.registry.table_model("shenshi")``)."""
