"""From a stable observation to a verdict: which legal move explains the table?

``explain`` compares the observation with the table each legal move would leave
(``expected`` of the state after it). Readings below ``sure`` confidence are "unsure":
they never rule a move out (the engine's knowledge absorbs a single misread). The moves
that fit every sure reading are weighed by how likely the readings are if the table is
as each move leaves it (``Weigher``): a reading's chance of the value the move leaves
there, its confidence for a reading without chances (the rest shared by the other
values), nothing for an unknown one. The likeliest is accepted when it is at least
``DECISIVE`` times as likely as the next; the moves within that of it are asked about.

Verdicts:
  * ``unchanged`` — the table still shows the position before the move;
  * ``accepted`` — exactly one legal move explains it;
  * ``ambiguous`` — several do (a recruit seen from above); ask the players;
  * ``in_progress`` — the table is half-way to some legal move (pieces are moved one at
    a time); never an illegal verdict, until the player says the move is done;
  * ``illegal`` — nothing legal explains it: what the player seems to have tried, the
    rule it breaks, and what to put back where.

``explain_gap`` is asked before a table is called illegal: the table may have changed by
several moves while nobody could see it (a cable pulled, a paused camera, a hand or a
cloth over the board through two turns). It finds the shortest sequences of legal moves,
each leaving a trace the table surely shows, that explain the table (see ``Gap``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engines import GameState, IllegalMoveError
from engines.observation import Observation, Reading, TableSchema, Value, same_value
from engines.registry import table_model as _registered_table_model
from engines.table_model import TableModel

UNEXPLAINED = "table.unexplained"
GAP_MOVES = 3
"""The longest sequence of moves ``explain_gap`` looks for."""
GAP_BUDGET = 10_000
"""Positions ``explain_gap`` may compare with the table (each one a move applied and
the table it leaves built): at most about 0.2 s of one core for Shendao, whose early
positions have 400 moves with their cards. The gaps of simulated games needed far
fewer (``companion bench referee --gap``)."""
WRONG_PLAYER = "turn.wrong-player"
RULING = 4
"""How many elements read unchanged that ruled moves out just now ``Explainer.explain``
looks at first, before building a move's whole table."""
BEYOND_A_TURN = frozenset(
    {
        "turn.one-grand-master",
        "turn.one-master",
        "turn.three-actions",
        "monk.finished",
        "monk.walked-twice",
        "monk.hovered-twice",
    }
)
"""The rules (ShenShi's) saying the pieces moved are more than one turn holds: a monk
acting beyond what its turn allows (``Explainer.beyond_a_turn``)."""
DECISIVE = 4 / 3
"""How many times likelier than the next the likeliest explanation of a table must be to
be accepted without asking (57% against 43% between the two). Readings without chances
at the simulated camera's unsure confidence (0.6) make one overruled reading count at
least 1.5 times (a flag of two values), so the referee decides as it did when it counted
the readings each move overrules."""


def table_model(game: str) -> TableModel[Any, Any, Any]:
    """The game's table model (``engines.table_model.TableModel``). Raises
    ``engines.RecordError`` for an unknown game."""
    return _registered_table_model(game)


class VerdictKind(StrEnum):
    """What a table shows, judged from one position (see the module docstring)."""

    UNCHANGED = "unchanged"
    ACCEPTED = "accepted"
    AMBIGUOUS = "ambiguous"
    IN_PROGRESS = "in_progress"
    ILLEGAL = "illegal"


UNCHANGED, ACCEPTED, AMBIGUOUS, IN_PROGRESS, ILLEGAL = VerdictKind


@dataclass
class Verdict:
    kind: VerdictKind
    moves: list[Any] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    """Unsure readings the accepted move overrules."""
    attempt: str = ""
    rule: str = ""
    message: str = ""
    fix: list[str] = field(default_factory=list)
    fix_elements: dict[str, Value] = field(default_factory=dict)
    """For an illegal table: element -> the value to restore."""
    scores: list[float] = field(default_factory=list)
    """For an ambiguous table: each move's log-likelihood of the readings (``Weigher``),
    in the order of ``moves``."""
    unexplained: bool = False
    """In progress only because the game's turns are made in parts (``in_parts``): no
    legal move explains the table yet, and the player has not said they are done."""


@dataclass
class Gap:
    """The shortest sequences of legal moves that explain a table (``explain_gap``):
    each sequence is as long as the others, fits every sure reading, and no other
    sequence of that length is ``DECISIVE`` times likelier (``Weigher``). Empty when none does
    within the search's bounds."""

    sequences: list[list[Any]] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    """Unsure readings the sequences overrule (for a single sequence)."""
    complete: bool = True
    """False when the search ran out of its budget: a sequence found may not be the
    only one, and one not found may exist."""

    def common(self) -> list[Any]:
        """The moves every sequence begins with."""
        if not self.sequences:
            return []
        first, prefix = self.sequences[0], []
        for i, move in enumerate(first):
            if any(other[i] != move for other in self.sequences[1:]):
                break
            prefix.append(move)
        return prefix

    def next_moves(self, i: int) -> list[Any]:
        """The different moves at step ``i`` (from 0) of the sequences, in the order
        found."""
        out: list[Any] = []
        for sequence in self.sequences:
            if i < len(sequence) and sequence[i] not in out:
                out.append(sequence[i])
        return out


class Weigher:
    """How likely the readings of ``observation`` are if the table is as another
    ``Observation`` shows it, up to a constant (``log_likelihood``): for each element
    of ``weighed``, the log of its reading's chance of the value shown there
    (``Reading.chance``). The sure readings are left out: the tables weighed all agree
    with them, so they weigh the same in each."""

    def __init__(self, observation: Observation, weighed: Sequence[str]) -> None:
        schema = observation.schema
        self.elements = [(e, observation[e], len(schema.values[e])) for e in weighed]
        self._logs: dict[tuple[str, type, Value | None], float] = {}

    def log_likelihood(self, table: Observation) -> float:
        """The log-likelihood of the readings if the table is as ``table`` shows it."""
        total, logs = 0.0, self._logs
        for e, reading, count in self.elements:
            value = table.value(e)
            key = (e, type(value), value)
            log = logs.get(key)
            if log is None:
                log = logs[key] = _log_chance(reading, value, count)
            total += log
        return total


def _log_chance(reading: Reading, value: Value | None, count: int) -> float:
    return 0.0 if value is None else math.log(reading.chance(value, count))


def likeliest(scored: Sequence[tuple[float, Any]]) -> list[Any]:
    """Of ``scored`` (log-likelihood, item), the items the likeliest is not
    ``DECISIVE`` times likelier than (itself among them), in their order."""
    if not scored:
        return []
    floor = max(score for score, _ in scored) - math.log(DECISIVE)
    return [item for score, item in scored if score > floor]


class Explainer:
    """``explain`` for one game; holds the game's table model."""

    def __init__(self, game: str, sure: float = 0.9) -> None:
        self.model = table_model(game)
        self.sure = sure
        self.in_parts = self.model.TURN_IN_PARTS
        """A turn is made in parts, in any order (ShenShi: up to three actions, each
        touching several pieces): a table no legal turn explains may be any of a
        million half-made turns, so it is "in progress" until the player says the turn
        is done. Only another player's monk moved is flagged at once."""
        self._groups: tuple[TableSchema, dict[str, tuple[str, ...]]] | None = None
        self._leaves: (
            tuple[
                GameState[Any],
                Sequence[Any],
                list[dict[str, Any]],
                list[dict[str, Any] | None],
            ]
            | None
        ) = None
        """The values moves leave, and what each changes, kept by ``worth_judging``."""

    def schema(self, state: GameState[Any]) -> TableSchema:
        return self.model.schema(state.rules)

    def expected(self, state: GameState[Any]) -> Observation:
        return self.model.expected(state)

    def explain(
        self,
        state: GameState[Any],
        observation: Observation,
        *,
        turn_done: bool = False,
        moves: Sequence[Any] | None = None,
        hidden: Collection[str] = (),
        traceless: bool = True,
        diagnose: bool = True,
    ) -> Verdict:
        """The verdict on ``observation`` in ``state``. ``turn_done``: the player said
        their move is complete (so moves that leave no visible trace are considered;
        ``traceless``: also those the game finds only once done, ``TableModel.traceless``).
        ``moves``: only these legal moves are considered (default: every legal move).
        ``hidden``: elements that can be read but are unknown just now (under a hand):
        a move changing one of them is in progress until it is seen, or done.
        ``diagnose=False``: a table none of ``moves`` explains is a bare illegal
        verdict, without the rule the player seems to have broken (finding it is the
        slowest part of a verdict, and a caller asking only whether some of ``moves``
        explains the table does not need it)."""
        before = self.expected(state)
        sure = [
            e
            for e in observation
            if observation[e].known and observation[e].confidence >= self.sure
        ]
        unsure = [
            e for e in observation if observation[e].known and observation[e].confidence < self.sure
        ]
        changed = [e for e in sure if not _same(observation.value(e), before.value(e))]
        if not changed and not turn_done:
            return Verdict(UNCHANGED)
        if state.is_over():
            return self._illegal(
                state,
                observation,
                before,
                changed,
                IllegalMoveError("game.over", "The game is over."),
            )
        fits: list[tuple[float, Any, list[str], Observation]] = []
        results: list[tuple[Any, Observation]] = []
        weigher = self.weigher(observation)
        # The changed readings first: most moves fail on one of them at once.
        unchanged = set(sure).difference(changed)
        wanted = [(e, observation.value(e)) for e in changed + [e for e in sure if e in unchanged]]
        # Until the player says done, a move acting under a hand is in progress whatever
        # it is: the game need not look for such moves (ShenShi's costly search).
        looked = (
            self.candidate_moves(state, observation, changed, () if turn_done else hidden)
            if moves is None
            else moves
        )
        if turn_done and moves is None and traceless:
            # once the player is done, turns whose actions left no trace (a ShenShi
            # swap undone by the other monk) explain a table as well as any
            looked = [*looked, *self.model.traceless(state, observation, changed)]
        # A game that tells a few elements' values cheaply (``TableModel.values``) has
        # each move's whole table built only when it shows every changed element as
        # read (a fit), or as read or carried by hand (on the way, needed only when
        # nothing fits): a ShenShi turn of three actions has thousands of variants.
        seen = [observation.value(e) for e in changed]
        unlike: list[tuple[int, list[Any]]] = []  # moves showing a changed element otherwise
        built: list[int] = []  # where the moves of ``results`` are in ``looked``
        every_shown = self.model.values_after(state, looked, changed) if changed else None
        # Moves showing every changed element as read mostly differ on an element read
        # unchanged (a third action's cushion put down elsewhere), the same one for many
        # of them: the last few such elements are looked at first (``values``), and the
        # whole table is built only when they agree (else only if nothing fits).
        ruling: list[str] = []
        deferred: list[int] = []
        for i, move in enumerate(looked):
            shown = None if every_shown is None else every_shown[i]
            # (lists compared whole first: most moves differ, and a list differing is
            # told at once; equal ones may still differ in type, True against 1)
            if shown is not None and (
                shown != seen or any(not _same(v, w) for v, w in zip(seen, shown, strict=True))
            ):
                unlike.append((i, shown))
                continue
            token = state.apply(move)
            if ruling and shown is not None:
                probed = self.model.values(state, ruling)
                if probed is not None and any(
                    not _same(v, observation.value(e)) for e, v in zip(ruling, probed, strict=True)
                ):
                    state.undo(token)
                    deferred.append(i)
                    continue
            after = self.expected(state)
            state.undo(token)
            results.append((move, after))
            built.append(i)
            differing = next((e for e, v in wanted if not _same(v, after.value(e))), None)
            if differing is not None:
                if shown is not None and differing not in changed and differing not in ruling:
                    ruling = [differing, *ruling[: RULING - 1]]
                continue
            misses = [e for e in unsure if not _same(observation.value(e), after.value(e))]
            fits.append((weigher.log_likelihood(after), move, misses, after))
        if fits:
            top = likeliest([(f[0], f) for f in fits])
            preferred = self._prefer([f[1] for f in top])
            top = [f for f in top if f[1] in preferred]
            if not turn_done and any(
                self._unfinished(observation, before, f[3], f[2], hidden) for f in top
            ):
                return Verdict(IN_PROGRESS, [f[1] for f in top])
            if len(top) == 1:
                return Verdict(ACCEPTED, [top[0][1]], corrected=top[0][2])
            return Verdict(AMBIGUOUS, [f[1] for f in top], scores=[f[0] for f in top])
        # the moves that may be on the way (their tables were not built): each changed
        # element shows what the move leaves, or nothing yet (carried by hand)
        carried = [self.model.transient(e) for e in changed]
        maybe = [
            i
            for i, shown in unlike
            if all(_same(v, w) or v in c for v, w, c in zip(seen, shown, carried, strict=True))
        ] + deferred
        if maybe:  # their tables too, all in the order of ``looked``
            for i in maybe:
                token = state.apply(looked[i])
                results.append((looked[i], self.expected(state)))
                state.undo(token)
            order = built + maybe
            results = [results[j] for j in sorted(range(len(order)), key=order.__getitem__)]
        progressing = [
            move
            for move, after in results
            if self._on_the_way(observation, before, after, changed, self._touched(state, move))
        ]
        if progressing and not turn_done:  # once the player is done, half a move is wrong
            return Verdict(IN_PROGRESS, progressing)
        if not diagnose:
            return Verdict(ILLEGAL)
        verdict = self._diagnose(state, observation, before, changed, dict(results), looked)
        if not turn_done and self.in_parts and moves is None and verdict.rule != WRONG_PLAYER:
            return Verdict(IN_PROGRESS, unexplained=True)
        return verdict

    def worth_judging(
        self,
        state: GameState[Any],
        observation: Observation,
        moves: Sequence[Any],
        *,
        fitting: bool = False,
    ) -> list[Any]:
        """Of ``moves`` (legal in ``state``), those ``explain`` would not pass over at
        once on ``observation``: each element the table surely shows changed shows the
        value the move leaves, or one carried by hand on the way to it. ``explain`` on
        these alone gives the verdict it gives on all of ``moves``, and quicker when
        the same moves are judged on table after table (the next player's move made
        while the last one may still grow into a bigger one): the values each move
        leaves are kept, for the same ``state`` and ``moves`` objects (neither changed
        since), and a move one of them rules out is not played again. ``fitting``:
        only the moves that fit, leaving every element read surely as it is read (on
        these ``explain`` accepts what it accepts on all, but it may call illegal a
        table that a move on its way would make in progress: ``any_on_the_way``)."""
        before = self.expected(state)
        sure = self.sure
        changed = []
        shown: dict[str, Any] = {}  # the values read surely
        for e in observation:
            reading = observation[e]
            if reading.known and reading.confidence >= sure:
                shown[e] = reading.value
                if not _same(reading.value, before.value(e)):
                    changed.append(
                        (e, reading.value, frozenset() if fitting else self.model.transient(e))
                    )
        if not changed:
            return list(moves)
        known, differences = self._kept(state, moves)
        elements = [e for e, _, _ in changed]
        out = []
        was = {e: before.value(e) for e in elements}

        def unlike(differ: dict[str, Any]) -> bool:
            # a fit leaves every element read surely as it is read: what the move
            # changes is all the table may show changed
            return any(e in shown and not _same(shown[e], v) for e, v in differ.items())

        for i, move in enumerate(moves):
            differ = differences[i]
            if differ is not None:  # what it changes is known: nothing to play
                if all(
                    _same(v, differ.get(e, was[e])) or v in carried for e, v, carried in changed
                ) and not (fitting and unlike(differ)):
                    out.append(move)
                continue
            leaves = known[i]
            if any(
                e in leaves and not (_same(v, leaves[e]) or v in carried)
                for e, v, carried in changed
            ):
                continue
            missing = [e for e in elements if e not in leaves]
            if missing:
                token = state.apply(move)
                values = self.model.values(state, missing)
                if values is None:  # the whole table, once
                    after = self.expected(state)
                    leaves.update((e, after.value(e)) for e in after)
                else:
                    leaves.update(zip(missing, values, strict=True))
                state.undo(token)
                if any(not (_same(v, leaves[e]) or v in carried) for e, v, carried in changed):
                    continue
            if fitting:  # what it changes, worked out once
                token = state.apply(move)
                differ = differences[i] = self.expected(state).values_unlike(before)
                state.undo(token)
                if unlike(differ):
                    continue
            out.append(move)
        return out

    def _kept(
        self, state: GameState[Any], moves: Sequence[Any]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None]]:
        """What ``worth_judging`` and ``prepare`` keep of ``moves`` played in ``state``
        (the same objects, neither changed since): the values each leaves, as far as
        read, and what each changes, once worked out. Kept for one list at a time."""
        kept = self._leaves
        if kept is None or kept[0] is not state or kept[1] is not moves:
            kept = self._leaves = (state, moves, [{} for _ in moves], [None] * len(moves))
        return kept[2], kept[3]

    def prepare(self, state: GameState[Any], moves: Sequence[Any], most: int) -> int:
        """Work out what ``most`` more of ``moves`` (legal in ``state``) change, for
        ``worth_judging`` on them later; how many were worked out (0: all are)."""
        _, differences = self._kept(state, moves)
        before = self.expected(state)
        done = 0
        for i, move in enumerate(moves):
            if done >= most:
                break
            if differences[i] is None:
                token = state.apply(move)
                differences[i] = self.expected(state).values_unlike(before)
                state.undo(token)
                done += 1
        return done

    def _surely_changed(self, observation: Observation, before: Observation) -> list[str]:
        """The elements ``observation`` surely shows otherwise than ``before``."""
        return [
            e
            for e in observation
            if observation[e].known
            and observation[e].confidence >= self.sure
            and not _same(observation.value(e), before.value(e))
        ]

    def any_on_the_way(
        self, state: GameState[Any], observation: Observation, moves: Sequence[Any]
    ) -> bool:
        """Whether ``observation`` is on its way to the table one of ``moves`` (legal
        in ``state``) leaves, as ``explain`` finds a move in progress."""
        before = self.expected(state)
        changed = self._surely_changed(observation, before)
        for move in moves:
            token = state.apply(move)
            after = self.expected(state)
            state.undo(token)
            if self._on_the_way(observation, before, after, changed, self._touched(state, move)):
                return True
        return False

    def explain_gap(
        self,
        state: GameState[Any],
        observation: Observation,
        *,
        longest: int = GAP_MOVES,
        budget: int = GAP_BUDGET,
    ) -> Gap:
        """The shortest sequences of two to ``longest`` legal moves from ``state`` that
        leave the table as ``observation`` surely shows it (see ``Gap``), comparing at
        most ``budget`` positions with the table.

        Each move of a sequence must put at least one element the table surely shows
        into the state it shows, one still unlike it before that move: a move nobody
        could see (a recruit under a camera above) is never guessed, the players say
        it, and a move undone by a later one is none that can be told. This also keeps
        the search small: at each step only the moves bringing the table closer are
        followed. The game's candidate search (``candidates``) narrows each step when
        it has one, from the elements still unlike the table; moves a game prefers
        (``prefer``) are kept at each step among sequences alike before it."""
        sure = [
            e
            for e in observation
            if observation[e].known and observation[e].confidence >= self.sure
        ]
        unsure = [
            e for e in observation if observation[e].known and observation[e].confidence < self.sure
        ]
        search = _GapSearch(self, observation, sure, budget)
        weigher = self.weigher(observation)
        for length in range(2, longest + 1):
            fits: list[tuple[float, list[Any], list[str]]] = []
            work = state.copy()
            for path, after in search.paths(work, length):
                misses = [e for e in unsure if not _same(observation.value(e), after.value(e))]
                fits.append((weigher.log_likelihood(after), path, misses))
            if fits:
                top = self._prefer_sequences(state, likeliest([(f[0], f[1]) for f in fits]))
                corrected = next(f[2] for f in fits if f[1] == top[0])
                return Gap(top, corrected if len(top) == 1 else [], not search.spent)
            if search.spent:
                return Gap([], [], False)
        return Gap()

    def beyond_a_turn(self, state: GameState[Any], observation: Observation) -> bool:
        """Whether what the table surely shows changed since ``state`` is more than a
        turn of its player holds, however it was made: the turn the game's ``guess``
        rebuilds breaks a rule of ``BEYOND_A_TURN``, or another player's monk moved. A
        table the guess makes a legal turn of, or no turn, may be that player's turn
        still under way (path tokens not yet taken, a piece in the hand)."""
        before = self.expected(state)
        changed = self._surely_changed(observation, before)
        _, move, player = self.model.guess(state, observation, changed)
        if player is not None and player != state.to_move:
            return True
        if move is None:
            return False
        try:
            state.check(move)
        except IllegalMoveError as error:
            return error.rule in BEYOND_A_TURN
        return False

    def weigher(self, observation: Observation) -> Weigher:
        """The ``Weigher`` of ``observation``'s readings that are not sure: unsure
        values, and the chances of readings too unsure to show a value."""
        return Weigher(
            observation,
            [
                e
                for e in observation
                if observation[e].evidence and observation[e].confidence < self.sure
            ],
        )

    def _prefer_sequences(
        self, state: GameState[Any], sequences: list[list[Any]]
    ) -> list[list[Any]]:
        """``sequences`` (of one length, in their order) less those whose move at some
        step the game does not prefer among the moves of the sequences alike up to
        that step."""
        kept = sequences
        for i in range(len(sequences[0])):
            groups: dict[str, list[list[Any]]] = {}
            for sequence in kept:
                groups.setdefault(self._prefix(state, sequence, i), []).append(sequence)
            preferred = {
                key: self.model.prefer([s[i] for s in group]) for key, group in groups.items()
            }
            kept = [s for s in kept if s[i] in preferred[self._prefix(state, s, i)]]
        return kept

    @staticmethod
    def _prefix(state: GameState[Any], sequence: list[Any], i: int) -> str:
        return " ".join(state.rules.format_move(m) for m in sequence[:i])

    def candidate_moves(
        self,
        state: GameState[Any],
        observation: Observation,
        changed: list[str],
        hidden: Collection[str] = (),
    ) -> list[Any]:
        """The legal moves worth comparing with the table: all of them, unless the game
        narrows them from what changed (its ``candidates``; a ShenShi turn of three
        actions can have a million legal variants). ``hidden``: elements under a hand
        that the game may leave out of its search (moves acting there are in progress
        until they are seen)."""
        return list(self.model.candidates(state, observation, changed, frozenset(hidden)))

    def first_moves(
        self, state: GameState[Any], observation: Observation, changed: list[str]
    ) -> list[Any]:
        """The legal moves worth trying as a move of a gap that others follow: the
        game's ``first_candidates`` (ShenShi: turns that leave only the squares they
        touch as the table shows them; by default those of ``candidate_moves``)."""
        return list(self.model.first_candidates(state, observation, changed))

    def _prefer(self, moves: list[Any]) -> list[Any]:
        """The game's preference among moves that fit equally well (Shendao: no card
        spent when a plain entry leaves the same table); by default, all of them."""
        return list(self.model.prefer(moves))

    @staticmethod
    def _unfinished(
        observation: Observation,
        before: Observation,
        after: Observation,
        misses: list[str],
        hidden: Collection[str],
    ) -> bool:
        """Whether a move that fits may not be finished yet: a hand still hides part of
        what it changes, or an unsure reading it would overrule still shows the value
        from before the move (not yet moved, rather than misread)."""
        return any(not _same(before.value(e), after.value(e)) for e in hidden) or any(
            _same(observation.value(e), before.value(e)) for e in misses
        )

    def _touched(self, state: GameState[Any], move: Any) -> Collection[str]:
        """The element groups ``move`` handles on the way, beyond those it changes (the
        game's ``touched``; a ShenShi walk that removes a monk and comes back lifts its
        monk off a square it leaves as it was)."""
        return self.model.touched(state, move)

    def _on_the_way(
        self,
        observation: Observation,
        before: Observation,
        after: Observation,
        changed: list[str],
        touched: Collection[str] = (),
    ) -> bool:
        """Whether every sure reading shows its value before the move, after it, or a
        value it passes through while the move is made by hand (in an element group
        the move changes or ``touched``). ``changed``: the sure readings unlike the
        table before the move (the others show "before")."""
        group, members = self.model.group, self._members(observation.schema)
        for e in changed:
            seen = observation.value(e)
            if _same(seen, after.value(e)):
                continue
            if seen not in self.model.transient(e) or (
                group(e) not in touched
                and all(_same(before.value(x), after.value(x)) for x in members[group(e)])
            ):
                return False  # neither its value after the move, nor on the way there
        return bool(changed)

    def between(
        self, observation: Observation, earlier: GameState[Any], later: GameState[Any]
    ) -> bool:
        """Whether the table is on its way from ``earlier``'s to ``later``'s (every sure
        reading shows one of the two, or a value passed through on the way; or it still
        shows ``earlier``'s): a move typed in before it was made on the table."""
        before, after = self.expected(earlier), self.expected(later)
        changed = self._surely_changed(observation, before)
        return not changed or self._on_the_way(observation, before, after, changed)

    def _members(self, schema: TableSchema) -> dict[str, tuple[str, ...]]:
        """The elements of each element group of ``schema`` (computed once)."""
        if self._groups is None or self._groups[0] is not schema:
            groups: dict[str, list[str]] = {}
            for e in schema.elements:
                groups.setdefault(self.model.group(e), []).append(e)
            self._groups = (schema, {g: tuple(m) for g, m in groups.items()})
        return self._groups[1]

    def _diagnose(
        self,
        state: GameState[Any],
        observation: Observation,
        before: Observation,
        changed: list[str],
        results: dict[Any, Observation],
        looked: Sequence[Any] = (),
    ) -> Verdict:
        """The illegal verdict on a table no move of ``looked`` explains (``results``:
        the tables of those whose table was built)."""
        attempt, move, player = self.model.guess(state, observation, changed)
        rules = state.rules
        if player is not None and player != state.to_move:
            error = IllegalMoveError(
                WRONG_PLAYER,
                f"It is {rules.players[state.to_move].capitalize()}'s turn, not "
                f"{rules.players[player].capitalize()}'s.",
            )
            return self._illegal(state, observation, before, changed, error, attempt)
        if move is not None:
            try:
                state.check(move)
            except IllegalMoveError as error:
                return self._illegal(state, observation, before, changed, error, attempt)
            text = rules.format_move(move)
            after = results.get(move)
            if after is None and move in looked:  # ruled out on a few elements
                token = state.apply(move)
                after = self.expected(state)
                state.undo(token)
            misplaced = IllegalMoveError(
                "table.misplaced",
                f"{text} is a legal move, but the pieces are not where it puts them.",
            )
            verdict = self._illegal(state, observation, before, changed, misplaced, attempt)
            if after is not None:  # show how to finish the legal move instead
                verdict.fix, verdict.fix_elements = self.fix_to(observation, after)
            verdict.moves = [move]
            return verdict
        unexplained = IllegalMoveError(UNEXPLAINED, "No legal move leaves the table like this.")
        return self._illegal(state, observation, before, changed, unexplained, attempt)

    def _illegal(
        self,
        state: GameState[Any],
        observation: Observation,
        before: Observation,
        changed: list[str],
        error: IllegalMoveError,
        attempt: str = "",
    ) -> Verdict:
        fix, elements = self.fix_to(observation, before)
        return Verdict(
            ILLEGAL,
            attempt=attempt,
            rule=error.rule,
            message=error.message,
            fix=fix,
            fix_elements=elements,
        )

    def fix_to(
        self, observation: Observation, target: Observation
    ) -> tuple[list[str], dict[str, Value]]:
        """Sentences (and element -> value) that turn the sure readings of
        ``observation`` into ``target``."""
        changes, elements = [], {}
        for e in observation:
            reading = observation[e]
            wanted = target.value(e)
            if (
                reading.known
                and reading.confidence >= self.sure
                and wanted is not None
                and not _same(reading.value, wanted)
            ):
                changes.append((e, reading.value, wanted))
                elements[e] = wanted
        return self.model.fix_sentences(changes), elements


class _GapSearch:
    """The depth-first walk of ``Explainer.explain_gap`` for one table."""

    def __init__(
        self, explainer: Explainer, observation: Observation, sure: list[str], budget: int
    ) -> None:
        self.explainer = explainer
        self.observation = observation
        self.sure = sure
        self.left = budget
        self.spent = False
        self.steady: list[str] = []
        """The sure readings that show the table as it was before the gap."""

    def unlike(self, table: Observation) -> list[str]:
        """The sure readings ``table`` does not show."""
        seen = self.observation
        return [e for e in self.sure if not _same(seen.value(e), table.value(e))]

    def paths(
        self,
        state: GameState[Any],
        length: int,
    ) -> Iterator[tuple[list[Any], Observation]]:
        """Sequences of exactly ``length`` moves from ``state`` (which is changed on
        the way and restored) that explain the table, with the table each leaves."""
        before = self.explainer.expected(state)
        todo = self.unlike(before)
        self.steady = [e for e in self.sure if e not in set(todo)]
        if todo:
            yield from self._walk(state, length, todo, [])

    def _walk(
        self, state: GameState[Any], length: int, todo: list[str], path: list[Any]
    ) -> Iterator[tuple[list[Any], Observation]]:
        last = len(path) + 1 == length
        for move, after in self._steps(state, todo, last):
            token = state.apply(move)
            try:
                path.append(move)
                still = self.unlike(after)
                if last:
                    if not still:
                        yield list(path), after
                elif still and not state.is_over():
                    yield from self._walk(state, length, still, path)
                path.pop()
            finally:
                state.undo(token)

    def _steps(
        self, state: GameState[Any], todo: list[str], last: bool
    ) -> list[tuple[Any, Observation]]:
        """The moves worth following from ``state``, with the table each leaves: those
        putting at least one element of ``todo`` into the state the table shows it in
        (else the move is not seen, or not made), and changing nothing the table shows
        as it was before the gap (a later move putting it back as it was is too rare to
        search for: a Shendao entry through a gate the table shows open, a tile put on a
        space it shows empty)."""
        seen, explainer = self.observation, self.explainer
        moves = (
            explainer.candidate_moves(state, seen, todo)
            if last
            else explainer.first_moves(state, seen, todo)
        )
        steps: list[tuple[Any, Observation]] = []
        for move in moves:
            if self.left <= 0:
                self.spent = True
                break
            self.left -= 1
            token = state.apply(move)
            after = explainer.expected(state)
            state.undo(token)
            if any(_same(seen.value(e), after.value(e)) for e in todo) and all(
                _same(seen.value(e), after.value(e)) for e in self.steady
            ):
                steps.append((move, after))
        return steps


_same = same_value
"""Whether two values read are the same, in type too."""
