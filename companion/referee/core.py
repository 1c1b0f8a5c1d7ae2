"""The referee: turns what the table shows into accepted moves, flagged illegal moves,
questions and the final score.

Pure and headless: ``Referee.handle(input) -> list[Output]``, dispatched through a table
of handlers. It holds the engine state, the moves so far, and the table as last seen
(each element debounced: a reading counts once it has been read the same way
``stable_frames`` times in a row, so flicker never reaches a verdict).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.referee.events import (
    Answer,
    BoardMismatch,
    GameOver,
    IllegalMove,
    Indicators,
    Input,
    InputRejected,
    Light,
    MoveAccepted,
    MoveInProgress,
    MoveTakenBack,
    Output,
    Question,
    Seen,
    TableRestored,
    Takeback,
    TurnDone,
    TypedMove,
)
from companion.referee.inference import Explainer, Verdict
from engines import EngineError, GameRecord, GameState, IllegalMoveError, Rules
from engines.observation import Observation, Reading, TableSchema


@dataclass(frozen=True)
class RefereeConfig:
    sure: float = 0.9
    """Readings at least this confident are trusted; below it they are "unsure"."""
    stable_frames: int = 2
    """Times in a row an element must read the same before the referee believes it."""

    def to_json(self) -> dict[str, Any]:
        return {"sure": self.sure, "stable_frames": self.stable_frames}


class Debouncer:
    """Element-wise stability: an element's value is believed once it was read the same
    way ``frames`` times in a row."""

    def __init__(self, schema: TableSchema, frames: int, start: Observation) -> None:
        self.frames = frames
        self.stable: dict[str, Reading] = {e: start[e] for e in schema.elements}
        self._candidate: dict[str, Reading] = dict(self.stable)
        self._count: dict[str, int] = dict.fromkeys(schema.elements, frames)
        self.schema = schema

    def push(self, observation: Observation) -> bool:
        """Take one reading of the whole table; True when the believed table changed."""
        changed = False
        for e in self.schema.elements:
            reading = observation[e]
            candidate = self._candidate[e]
            if reading.value == candidate.value and type(reading.value) is type(
                    candidate.value):
                self._count[e] += 1
                self._candidate[e] = reading
            else:
                self._candidate[e] = reading
                self._count[e] = 1
            if self._count[e] >= self.frames and self.stable[e] != self._candidate[e]:
                before = self.stable[e]
                self.stable[e] = self._candidate[e]
                changed = changed or before.value != reading.value or type(
                    before.value) is not type(reading.value) or (
                    before.confidence != reading.confidence)
        return changed

    def observation(self) -> Observation:
        return Observation.trusted(self.schema, dict(self.stable))


class Referee:
    """Referee one game. ``handle`` takes one input and returns the outputs, in order."""

    WATCHING, ILLEGAL, QUESTION, OVER = "watching", "illegal", "question", "over"

    def __init__(self, rules: Rules[Any, Any], start: GameState[Any] | None = None,
                 config: RefereeConfig | None = None) -> None:
        self.rules = rules
        self.config = config or RefereeConfig()
        self.start = start.copy() if start is not None else rules.initial_state()
        self.state = self.start.copy()
        self.history: list[tuple[GameState[Any], str]] = []
        self.explainer = Explainer(rules.game, self.config.sure)
        self.schema: TableSchema = self.explainer.schema(self.state)
        self.sources: dict[str, Observation] = {}
        self.table = Debouncer(self.schema, self.config.stable_frames,
                               self.explainer.expected(self.state))
        self.status = self.OVER if self.state.is_over() else self.WATCHING
        self.candidates: list[str] = []
        self._last: Output | None = None
        self._handlers: dict[type, Callable[[Any], list[Output]]] = {
            Seen: self._on_seen,
            TurnDone: self._on_turn_done,
            Answer: self._on_answer,
            TypedMove: self._on_typed,
            Takeback: self._on_takeback,
        }

    # ------------------------------------------------------------------ public

    def handle(self, event: Input) -> list[Output]:
        """Process one input; the outputs to show, in order."""
        handler = self._handlers.get(type(event))
        if handler is None:
            raise TypeError(f"the referee does not take {event!r}")
        return handler(event)

    def record(self) -> GameRecord:
        """The game so far, as a record (the rules issue's format)."""
        start = None if self.start.to_json() == self.rules.initial_state().to_json() \
            else self.start.to_json()
        return GameRecord(self.rules.game, list(self.rules.players),
                          self.rules.options_json(), [m for _, m in self.history], start)

    def expected_table(self) -> Observation:
        return self.explainer.expected(self.state)

    # ------------------------------------------------------------------ handlers

    def _on_seen(self, event: Seen) -> list[Output]:
        if event.observation.schema.game != self.schema.game:
            return [InputRejected("seen", f"an observation of {event.observation.schema.game}"
                                  f" while refereeing {self.schema.game}")]
        self.sources[event.source] = event.observation
        merged = None
        for observation in self.sources.values():
            merged = observation if merged is None else merged.merge(observation)
        assert merged is not None
        if not self.table.push(merged):
            return []
        return self._evaluate(turn_done=False)

    def _on_turn_done(self, event: TurnDone) -> list[Output]:
        if self.status == self.OVER:
            return [InputRejected("turn_done", "the game is over")]
        return self._evaluate(turn_done=True)

    def _on_answer(self, event: Answer) -> list[Output]:
        if self.status != self.QUESTION:
            return [InputRejected(event.move, "there is no open question")]
        try:
            move = self.rules.parse_move(event.move)
        except EngineError as error:
            return [InputRejected(event.move, str(error))]
        text = self.rules.format_move(move)
        if text not in self.candidates:
            return [InputRejected(event.move, "not one of the moves offered: "
                                  + ", ".join(self.candidates))]
        return self._accept(move, "answer", [])

    def _on_typed(self, event: TypedMove) -> list[Output]:
        try:
            move = self.rules.parse_move(event.move)
            self.state.check(move)
        except IllegalMoveError as error:
            return [InputRejected(event.move, f"{error.message} [{error.rule}]")]
        except EngineError as error:
            return [InputRejected(event.move, str(error))]
        out = self._accept(move, "typed", [])
        out.extend(self._table_check("After the typed move the table should change:"))
        return out

    def _on_takeback(self, event: Takeback) -> list[Output]:
        if not self.history:
            return [InputRejected("takeback", "no move to take back")]
        previous, text = self.history.pop()
        self.state = previous
        self.status = self.WATCHING
        out: list[Output] = [MoveTakenBack(len(self.history) + 1, text)]
        out.extend(self._table_check("To take the move back, change the table:"))
        out.append(self._lights_for(None))
        return out

    # ------------------------------------------------------------------ verdicts

    def _evaluate(self, *, turn_done: bool) -> list[Output]:
        if self.status == self.OVER:
            return self._table_check("The table no longer matches the final position:")
        observation = self.table.observation()
        verdict = self.explainer.explain(self.state, observation, turn_done=turn_done)
        return self._verdict_handlers[verdict.kind](self, verdict)

    def _verdict_unchanged(self, verdict: Verdict) -> list[Output]:
        if self.status == self.ILLEGAL:
            self.status = self.WATCHING
            return self._emit([TableRestored(self.state.to_move), self._lights_for(None)])
        return []

    def _verdict_accepted(self, verdict: Verdict) -> list[Output]:
        return self._accept(verdict.moves[0], "table", verdict.corrected)

    def _verdict_ambiguous(self, verdict: Verdict) -> list[Output]:
        self.status = self.QUESTION
        self.candidates = [self.rules.format_move(m) for m in verdict.moves]
        reason = ("The table fits several moves: which one was played?")
        return self._emit([Question(self.state.to_move, self.candidates, reason)])

    def _verdict_in_progress(self, verdict: Verdict) -> list[Output]:
        if self.status == self.ILLEGAL:
            return []  # still waiting for the table to be put right
        candidates = [self.rules.format_move(m) for m in verdict.moves]
        return self._emit([MoveInProgress(self.state.to_move, candidates)])

    def _verdict_illegal(self, verdict: Verdict) -> list[Output]:
        self.status = self.ILLEGAL
        flag = IllegalMove(self.state.to_move, verdict.attempt, verdict.rule,
                           verdict.message, verdict.fix, verdict.fix_elements)
        return self._emit([flag, self._lights_for(flag)])

    _verdict_handlers: ClassVar[dict[str, Callable[[Referee, Verdict], list[Output]]]] = {
        "unchanged": _verdict_unchanged,
        "accepted": _verdict_accepted,
        "ambiguous": _verdict_ambiguous,
        "in_progress": _verdict_in_progress,
        "illegal": _verdict_illegal,
    }

    # ------------------------------------------------------------------ helpers

    def _emit(self, outputs: list[Output]) -> list[Output]:
        """Drop a verdict identical to the last one shown (the same table seen again)."""
        if outputs and outputs[0] == self._last:
            return []
        self._last = outputs[0] if outputs else self._last
        return outputs

    def _accept(self, move: Any, by: str, corrected: list[str]) -> list[Output]:
        text = self.rules.format_move(move)
        player = self.state.to_move
        before = self.explainer.expected(self.state)
        self.history.append((self.state.copy(), text))
        self.state.play(move)
        self.status = self.WATCHING
        self.candidates = []
        self._last = None
        after = self.explainer.expected(self.state)
        changed = [e for e in self.schema.elements if before[e] != after[e]]
        out: list[Output] = [
            MoveAccepted(len(self.history), player, text, by, corrected),
            Indicators([Light(e, "green") for e in changed]),
        ]
        if self.state.is_over():
            self.status = self.OVER
            out.append(self._game_over())
        return out

    def _game_over(self) -> GameOver:
        state = self.state
        players = self.rules.players
        scores, winners, tiebreak = state.scores(), state.winners(), state.tiebreak()
        best = max(scores)
        leaders = [p for p, s in enumerate(scores) if s == best]
        names = " and ".join(players[p].capitalize() for p in winners)
        if len(leaders) == 1:
            summary = f"{names} wins with {best}."
        elif len(winners) == 1:
            summary = (f"{' and '.join(players[p].capitalize() for p in leaders)} tie on "
                       f"{best}; {names} wins on the tie-break ({tiebreak}).")
        else:
            summary = f"{names} share the win with {best} (tie-break {tiebreak})."
        return GameOver(scores, tiebreak, winners, summary)

    def _table_check(self, message: str) -> list[Output]:
        """Compare the believed table with the engine's; report any sure difference."""
        observation = self.table.observation()
        expected = self.expected_table()
        fix, elements = self.explainer.fix_to(observation, expected)
        if not elements:
            return []
        return [BoardMismatch(message, fix, elements)]

    def _lights_for(self, flag: IllegalMove | None) -> Indicators:
        if flag is None:
            return Indicators([])
        return Indicators([Light(e, "red", "blink") for e in flag.elements])
