"""The table simulator: a game record played out on a simulated table, as the stream of
inputs a referee receives from a real one.

``TableSimulator(rules, moves, config, seed)`` yields ``Step`` s: mostly
``Seen(observation, source)`` frames, one per reader per frame, and ``TurnDone`` after a
move the readers cannot see (a recruit under a camera) or an attempt that changes
nothing. Each step carries its ground truth (``Truth``): which move is being made, in
which phase (an illegal attempt, its repair, a change of mind, the move itself), and on
the last step of a phase the referee output it should lead to.

A gap (``config.gap``) makes a few moves in a row unseen: their touches give no frames
(or frames with the whole table hidden), and the table is seen again as the last of them
settles; the gap's steps carry that last move's truth, naming the moves before it.

Per move, in order: perhaps an illegal attempt (``config.illegal``) and its repair,
perhaps a change of mind (``config.change_of_mind``), then the move. Every touch is
followed by ``frames_per_step`` frames (more on a pause), after a few frames with a hand
over the piece when ``config.hands`` draws one; a move, an attempt and a repair end with
``settle_frames`` more, while the player waits for the referee. The game's
``Handling`` says what the touches are; this module only turns them into frames.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from companion.referee.events import Input, Seen, TurnDone, TypedMove
from companion.referee.inference import table_model
from companion.simulator.config import TableConfig
from companion.simulator.handling import Attempt, SimulatorError, Table, Touch, handling_for
from companion.simulator.readers import Reader
from engines import Dice, GameRecord, GameState, Rules
from engines.observation import TableSchema, Value

ATTEMPT, REPAIR, CHANGE_OF_MIND, MOVE = "attempt", "repair", "change_of_mind", "move"
PHASES = (ATTEMPT, REPAIR, CHANGE_OF_MIND, MOVE)


@dataclass(frozen=True)
class Truth:
    """What is really happening at the table when a step is read."""

    number: int
    """The move being made: 1 for the first move of the record."""
    move: str
    """That move, in notation."""
    player: int
    """The player whose turn it is."""
    phase: str
    """``attempt`` (an illegal move), ``repair`` (putting it back), ``change_of_mind``
    (a move started and undone) or ``move`` (the move itself)."""
    rule: str = ""
    """For an attempt and its repair: the rule id the attempt breaks."""
    last: bool = False
    """The last step of this phase."""
    expect: str = ""
    """On the last step of a phase: the referee output it should lead to
    (``move_accepted``, ``illegal_move``, ``table_restored``), or empty."""
    unseen: tuple[str, ...] = ()
    """The moves made before this one while no reader saw the table (a gap): the
    steps of the gap carry this move's truth, and the table is seen again once it is
    made (``TableConfig.gap``)."""


@dataclass(frozen=True)
class Step:
    event: Input
    truth: Truth


def random_game(
    rules: Rules[Any, Any], seed: int, start: GameState[Any] | None = None
) -> list[Any]:
    """The moves of a random complete game, seeded (uniform over the legal moves,
    unless the game's handling draws them its own way: ``Handling.random_move``)."""
    dice = Dice(seed)
    state = start.copy() if start is not None else rules.initial_state()
    handling = handling_for(rules)
    moves = []
    while not state.is_over():
        move = handling.random_move(state, dice)
        state.apply(move)
        moves.append(move)
    return moves


class TableSimulator:
    """A game played on a simulated table. Iterate for the steps; every iteration
    replays the same stream (the generator is seeded afresh from ``seed``).

    ``moves`` are move values or notation, legal in turn from ``start`` (default: the
    rules' initial state). Iterating raises ``IllegalMoveError`` at an illegal move of
    the record and ``SimulatorError`` if the game's handling disagrees with its engine.
    """

    def __init__(
        self,
        rules: Rules[Any, Any],
        moves: Sequence[Any],
        config: TableConfig | None = None,
        seed: int = 0,
        start: GameState[Any] | None = None,
    ) -> None:
        self.rules = rules
        self.moves = [rules.parse_move(m) if isinstance(m, str) else m for m in moves]
        self.config = config or TableConfig()
        self.seed = seed
        self.start = start.copy() if start is not None else rules.initial_state()
        self.handling = handling_for(rules)
        self.schema: TableSchema = table_model(rules.game).schema(rules)
        self.readers = [self._reader(source) for source in self.config.sources]
        self.visible = tuple(dict.fromkeys(e for r in self.readers for e in r.elements))
        if self.config.illegal_rules is not None:
            unknown = set(self.config.illegal_rules) - set(self.handling.stageable_rules)
            if unknown:
                raise SimulatorError(
                    f"cannot stage {sorted(unknown)} in {rules.game}; "
                    f"stageable: {', '.join(self.handling.stageable_rules)}"
                )

    @classmethod
    def from_record(
        cls, record: GameRecord, config: TableConfig | None = None, seed: int = 0
    ) -> TableSimulator:
        return cls(record.rules(), record.moves, config, seed, record.starting_state())

    @classmethod
    def random(
        cls, rules: Rules[Any, Any], config: TableConfig | None = None, seed: int = 0
    ) -> TableSimulator:
        """A random legal game (``random_game(rules, seed)``) on the table."""
        return cls(rules, random_game(rules, seed), config, seed)

    def _reader(self, source: str) -> Reader:
        config = self.config
        elements = self.handling.readable(source, config)
        side: tuple[str, ...] = ()
        if source == "camera" and config.view != "above":
            # the stacks whose side the slanted camera sees, drawn once a game
            rng = np.random.default_rng([self.seed, 55])
            side = tuple(
                e for e in self.handling.side_elements() if rng.random() < config.side_heights
            )
            elements = elements | dict.fromkeys(side, config.confidence)
        return Reader(
            source, self.schema, elements, config, self.handling.hidden_by_hands(source), side
        )

    def stageable(self) -> tuple[str, ...]:
        """The rule ids this table stages (``config.illegal_rules`` if set)."""
        rules = self.handling.stageable(self.config)
        wanted = self.config.illegal_rules
        return rules if wanted is None else tuple(r for r in rules if r in wanted)

    # ------------------------------------------------------------------ the stream

    def __iter__(self) -> Iterator[Step]:
        rng = np.random.default_rng(self.seed)
        config, handling, rules = self.config, self.handling, self.rules
        state = self.start.copy()
        table = handling.table(state)
        gap: list[str] = []  # the moves of the gap under way, made so far
        gap_end, gap_player = 0, 0  # the number of the gap's last move, and its player
        for number, move in enumerate(self.moves, start=1):
            state.check(move)
            if config.gap and number > gap_end and rng.random() < config.gap:
                low, high = config.gap_moves
                gap_end, gap_player = self._gap(state, number, int(rng.integers(low, high + 1)))
            if number <= gap_end:
                base = Truth(
                    gap_end,
                    rules.format_move(self.moves[gap_end - 1]),
                    gap_player,
                    MOVE,
                    unseen=tuple(gap),
                )
                touches = handling.steps(state, move, rng, config)
                gap.append(rules.format_move(move))
                handling.played(state, move)
                state.apply(move)
                steps = self._unseen(table, touches, base, rng)
                if number < gap_end:
                    yield from steps
                    continue
                if table != handling.table(state):
                    raise SimulatorError(
                        f"the {rules.game} handling of {base.move} leaves "
                        "the table unlike the engine's position"
                    )
                # seen again as the last piece goes down, then while the player waits
                steps += [
                    step
                    for _ in range(config.frames_per_step)
                    for step in self._frame(table, (), base, rng)
                ]
                yield from _mark_last(steps + self._settle(table, base, rng), "move_accepted")
                gap = []
                continue
            base = Truth(number, rules.format_move(move), state.to_move, MOVE)
            if rng.random() < config.illegal:
                attempt = self._pick_attempt(state, rng)
                if attempt is not None:
                    yield from self._attempt(table, attempt, base, rng)
            if rng.random() < config.change_of_mind:
                yield from self._change_of_mind(state, table, move, base, rng)
            # a card no reader sees: the player says it once the pieces are down
            said = [Step(TypedMove(base.move), base)] if handling.announced(state, move) else []
            touches = handling.steps(state, move, rng, config)
            before = self._view(table)
            handling.played(state, move)
            state.apply(move)
            steps = self._act(table, touches, base, rng) + said + self._settle(table, base, rng)
            if table != handling.table(state):
                raise SimulatorError(
                    f"the {rules.game} handling of {base.move} leaves "
                    "the table unlike the engine's position"
                )
            if self._view(table) == before:  # nothing to see: the player says done
                steps.append(Step(TurnDone(), base))
            yield from _mark_last(steps, "move_accepted")

    def _gap(self, state: GameState[Any], number: int, length: int) -> tuple[int, int]:
        """A gap of ``length`` moves from move ``number`` (made next from ``state``):
        (the number of its last move, that move's player), or (0, 0) when one of them
        would not be seen at all or is typed in, or the game ends first."""
        if length < 2 or number - 1 + length > len(self.moves):
            return 0, 0
        work = state.copy()
        player = work.to_move
        for move in self.moves[number - 1 : number - 1 + length]:
            if self.handling.announced(work, move):
                return 0, 0
            before = self._view(self.handling.table(work))
            player = work.to_move
            work.apply(move)
            if self._view(self.handling.table(work)) == before:
                return 0, 0
        return number - 1 + length, player

    def _unseen(
        self, table: Table, touches: list[Touch], truth: Truth, rng: np.random.Generator
    ) -> list[Step]:
        """Make ``touches`` on ``table`` during a gap: no frames, or frames with the
        whole table hidden (``config.gap_hidden``)."""
        steps: list[Step] = []
        for touch in touches:
            touch.apply(table)
            if self.config.gap_hidden:
                for _ in range(self.config.frames_per_step):
                    steps.extend(self._frame(table, self.visible, truth, rng))
        return steps

    def _attempt(
        self, table: Table, attempt: Attempt, base: Truth, rng: np.random.Generator
    ) -> Iterator[Step]:
        truth = replace(base, phase=ATTEMPT, rule=attempt.rule)
        steps = self._act(table, list(attempt.touches), truth, rng)
        steps += self._settle(table, truth, rng)
        if attempt.says_done:
            steps.append(Step(TurnDone(), truth))
        yield from _mark_last(steps, "illegal_move")
        if attempt.touches:  # else there is nothing to put back
            truth = replace(truth, phase=REPAIR)
            repair = [t.undone() for t in reversed(attempt.touches)]
            steps = self._act(table, repair, truth, rng) + self._settle(table, truth, rng)
            yield from _mark_last(steps, "table_restored")

    def _pick_attempt(self, state: GameState[Any], rng: np.random.Generator) -> Attempt | None:
        found = [
            a
            for rule in self.stageable()
            if (a := self.handling.attempt(state, rule, rng, self.config)) is not None
        ]
        return found[int(rng.integers(len(found)))] if found else None

    def _change_of_mind(
        self, state: GameState[Any], table: Table, move: Any, base: Truth, rng: np.random.Generator
    ) -> Iterator[Step]:
        """Start another legal move, stop before the table shows any complete legal move
        (else the player has made it), and put the pieces back; a move of one touch is
        only reached for (a hand over the place, nothing moved)."""
        other = self.handling.other_move(state, move, rng)
        if other is None:
            return
        touches = self.handling.steps(state, other, rng, self.config)
        if not touches:
            return
        truth = replace(base, phase=CHANGE_OF_MIND)
        shows_a_move = self.handling.shows_a_move(state, self._view)
        now = self._view(table)
        trial = dict(table)
        reach = 0
        for touch in touches[:-1]:
            touch.apply(trial)
            if self._view(trial) != now and shows_a_move(trial):
                break
            reach += 1
        if reach == 0:
            hover = Touch({}, touches[0].near)
            yield from _mark_last(self._act(table, [hover], truth, rng, hand=True), "")
            return
        made = touches[: int(rng.integers(1, reach + 1))]
        back = [t.undone() for t in reversed(made)]
        yield from _mark_last(self._act(table, made + back, truth, rng), "")

    # ------------------------------------------------------------------ frames

    def _act(
        self,
        table: Table,
        touches: list[Touch],
        truth: Truth,
        rng: np.random.Generator,
        hand: bool = False,
    ) -> list[Step]:
        """Make ``touches`` on ``table``, with the frames read meanwhile. No touches:
        the table read as it is for one step (a player thinking)."""
        config = self.config
        steps: list[Step] = []
        if touches:  # the player reaches for the first piece
            for _ in range(config.reach_frames):
                steps.extend(self._frame(table, (), truth, rng))
        for touch in touches or [Touch({})]:
            touch.apply(table)
            if hand or rng.random() < config.hands:
                low, high = config.hand_frames
                for _ in range(int(rng.integers(low, high + 1))):
                    steps.extend(self._frame(table, touch.near, truth, rng))
            frames = config.frames_per_step
            if rng.random() < config.pause:
                low, high = config.pause_frames
                frames += int(rng.integers(low, high + 1))
            for _ in range(frames):
                steps.extend(self._frame(table, (), truth, rng))
        return steps

    def _settle(self, table: Table, truth: Truth, rng: np.random.Generator) -> list[Step]:
        """The frames read while the player waits for the referee's verdict."""
        return [
            step
            for _ in range(self.config.settle_frames)
            for step in self._frame(table, (), truth, rng)
        ]

    def _frame(
        self, table: Table, hidden: Sequence[str], truth: Truth, rng: np.random.Generator
    ) -> list[Step]:
        hidden_set = set(hidden)
        return [
            Step(Seen(reader.read(table, hidden_set, rng), reader.source), truth)
            for reader in self.readers
        ]

    def _view(self, table: Table) -> tuple[Value, ...]:
        """What the readers can see of ``table``."""
        return tuple(table[e] for e in self.visible)


def _mark_last(steps: list[Step], expect: str) -> list[Step]:
    if steps:
        steps[-1] = Step(steps[-1].event, replace(steps[-1].truth, last=True, expect=expect))
    return steps
