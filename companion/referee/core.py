"""The referee: turns what the table shows into accepted moves, flagged illegal moves,
questions and the final score.

Pure and headless: ``Referee.handle(input) -> list[Output]``, dispatched through a table
of handlers. It holds the engine state, the moves so far, and the table as last seen
(each element of each source debounced: a reading counts once that source has read it
the same way ``stable_frames`` times in a row, so a one-frame flicker never reaches a
verdict; the sources' believed tables are then merged).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import product
from math import log
from typing import Any, ClassVar

from companion.referee.belief import MOST_HISTORIES, MOST_WAYS, Belief, History, contradicted
from companion.referee.events import (
    OUTPUTS,
    Answer,
    BoardMismatch,
    Choice,
    GameOver,
    IllegalMove,
    Indicators,
    Input,
    InputRejected,
    Light,
    MoveAccepted,
    MoveCorrected,
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
from companion.referee.inference import DECISIVE, UNEXPLAINED, WRONG_PLAYER, Explainer, Verdict
from companion.referee.inference import VerdictKind as Kind
from companion.referee.on_the_way import TurnsOnTheWay
from companion.referee.parts import MOST_TRIED, Entry, Factor, Parts, refused
from companion.referee.unseen import MOST_FITS, Unseen, unsure_words
from engines import EngineError, GameRecord, GameState, IllegalMoveError, Rules
from engines.observation import Observation, Reading, TableSchema, Value, same_value

DONE_WAIT = 3
"""A ``done`` the table read just now would answer waits at most this many times the
frames a reading takes to be believed (see ``Referee._done_waits``)."""
IN_PROGRESS_SHOWN = 6
"""Moves a "move in progress" names at most when the referee makes up the list."""
LIKELIER = 1e-9
"""A history whose weight (log) is below the record's by more than this is less likely
than the record, rather than as likely (a doubt the readings did not weigh)."""
ONCE = 0.5
"""The confidence a reading seen on one frame only is weighed with when a ``done``
would otherwise be flagged (``Referee._done_look``): the last piece put down a frame
ago, or a misreading of that frame, cannot be told apart yet."""


@dataclass(frozen=True)
class RefereeConfig:
    sure: float = 0.9
    """Readings at least this confident are trusted; below it they are "unsure"."""
    stable_frames: int = 3
    """Times in a row an element must read the same before the referee believes it.
    Three frames cut false illegal-move flags about 34-fold against two at 1% flicker
    (companion bench referee); a sensor board that debounces itself wants 1."""
    source_frames: dict[str, int] = field(default_factory=dict)
    """Per source, the frames in a row to use instead of ``stable_frames``: a real
    sensor board debounces itself and reports a change once (``{"sensors": 1}``), while
    the camera beside it keeps ``stable_frames``."""

    confirm_frames: int = 2
    """Frames in a row a table first judged illegal must stay as it is before the flag
    is shown (a source believed after one reading flags at once). A reading wrong
    three frames in a row, then right again, is no illegal move. A player's ``done``
    is answered at once."""

    parts: bool = False
    """Keep what the table hides part by part (Shangri-La: village by village,
    ``companion.referee.parts``) instead of as whole other histories, for a game whose
    table model offers it. Off: on simulated games seen from above it asked as often
    and corrected and flagged more (docs/referee.md)."""

    unseen: bool = False
    """A move the table cannot show and that fits many ways (a Shangri-La recruit seen
    from above) is written as the likeliest and kept open, never asked about at once:
    a later table settles it (``companion.referee.unseen``). Off: it is asked about
    when it fits more ways than the belief keeps (``parts`` on: the parts keep it).
    Off by default: on simulated games it asks far less but its record is less often
    right, it flags more and its slowest verdicts are slower (docs/referee.md)."""

    def frames_for(self, source: str) -> int:
        return self.source_frames.get(source, self.stable_frames)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "sure": self.sure,
            "stable_frames": self.stable_frames,
            "confirm_frames": self.confirm_frames,
        }
        if self.parts:
            data["parts"] = True
        if self.unseen:
            data["unseen"] = True
        if self.source_frames:
            data["source_frames"] = dict(self.source_frames)
        return data


def _reading_json(reading: Reading) -> list[Any]:
    """A reading in ``Debouncer.snapshot``'s long form: ``[value, confidence]``, and
    its chances as ``[[value, chance], ...]`` when it has them."""
    if reading.chances is None:
        return [reading.value, reading.confidence]
    return [reading.value, reading.confidence, [list(pair) for pair in reading.chances]]


def _reading_from_json(data: list[Any]) -> Reading:
    """``_reading_json``'s reading back."""
    if len(data) == 2:
        return Reading(data[0], float(data[1]))
    value, confidence, chances = data
    return Reading(value, float(confidence), tuple((v, float(p)) for v, p in chances))


class Debouncer:
    """Element-wise stability: an element's value is believed once it was read the same
    way ``frames`` times in a row."""

    def __init__(
        self, schema: TableSchema, frames: int, start: Observation, sure: float = 0.9
    ) -> None:
        self.frames = frames
        self.stable: dict[str, Reading] = {e: start[e] for e in schema.elements}
        self._candidate: dict[str, Reading] = dict(self.stable)
        self._count: dict[str, int] = dict.fromkeys(schema.elements, frames)
        self._confidences: dict[str, list[float]] = {
            e: [self.stable[e].confidence] for e in schema.elements
        }
        """The confidences of the last readings of each element's candidate value."""
        self.sure = sure
        self.window = frames + 1 if frames > 1 else 1
        """Readings a value may be believed from: ``frames`` of the last ``window``
        (one more than ``frames``), the other one unsure (below ``sure``), so that an
        unsure reading of the old value while a piece is put down (or taken off) delays
        the new value by one frame at most, instead of starting its count again: a value
        believed too late leaves the table half-old, half-new, which a legal move of its
        own may explain. A sure reading in between still starts the count again (a
        value read wrong three frames of four would otherwise be believed four times as
        often)."""
        self._recent: dict[str, list[Reading]] = {e: [] for e in schema.elements}
        """The last readings of each element (``window`` at most), oldest first."""
        self.fresh: set[str] = set()
        """The elements whose believed value changed with the last reading."""
        self.schema = schema
        self.read: set[str] = set()
        """Elements this source has read at least once (a camera above never reads a
        stack's height; a hand only hides an element for a while)."""

    def push(self, observation: Observation) -> bool:
        """Take one reading of the whole table; True when the believed table changed."""
        changed = False
        read, frames = self.read, self.frames
        fresh = self.fresh
        fresh.clear()
        for e in self.schema.elements:
            reading = observation[e]
            if reading.value is not None:
                read.add(e)
            candidate = self._candidate[e]
            if reading.value == candidate.value and type(reading.value) is type(candidate.value):
                self._count[e] += 1
                # The value's confidence: the median of its last ``frames`` readings, so
                # one unsure frame among sure ones does not make it unsure, nor one sure
                # frame among unsure ones sure.
                confidences = self._confidences[e]
                confidences.append(reading.confidence)
                if len(confidences) > frames:
                    del confidences[0]
                middle = sorted(confidences)[len(confidences) // 2]
                self._candidate[e] = (
                    reading
                    if middle == reading.confidence
                    else (
                        candidate
                        if middle == candidate.confidence
                        else Reading(reading.value, middle, reading.chances)
                    )
                )
            else:
                self._candidate[e] = reading
                self._count[e] = 1
                self._confidences[e] = [reading.confidence]
            recent = self._recent[e]
            recent.append(reading)
            if len(recent) > self.window:
                del recent[0]
            now = self._candidate[e] if self._count[e] >= frames else self._interrupted(e)
            if now is not None and self.stable[e] != now:
                before = self.stable[e]
                self.stable[e] = now
                if before.value != now.value or type(before.value) is not type(now.value):
                    fresh.add(e)
                changed = (
                    changed
                    or before.value != now.value
                    or type(before.value) is not type(now.value)
                    or (before.confidence != now.confidence)
                )
        return changed

    def _interrupted(self, e: str) -> Reading | None:
        """The value of ``e`` last read, when it was read ``frames`` times among the last
        ``window`` readings, once interrupted by an unsure reading of another value
        (a one-frame misreading while the piece goes down): as read, its confidence the
        median of those readings. None otherwise."""
        recent, frames = self._recent[e], self.frames
        if len(recent) < self.window or self.window == frames:
            return None
        last = recent[-1]
        same = [r for r in recent if r.value == last.value and type(r.value) is type(last.value)]
        stable = self.stable[e]
        if (
            len(same) < frames
            or last.value is None
            or (last.value == stable.value and type(last.value) is type(stable.value))
            or any(r.confidence >= self.sure for r in recent if r not in same)
        ):
            return None
        middle = sorted(r.confidence for r in same[-frames:])[frames // 2]
        return last if middle == last.confidence else Reading(last.value, middle, last.chances)

    def settled(self, e: str) -> bool:
        """Whether ``e``'s believed value was believed before the last reading and that
        reading agrees (a value believed just now, or read otherwise just now, is not
        settled yet)."""
        recent, stable = self._recent[e], self.stable[e]
        return e not in self.fresh and (
            not recent
            or (recent[-1].value == stable.value and type(recent[-1].value) is type(stable.value))
        )

    def observation(self) -> Observation:
        return Observation.trusted(self.schema, dict(self.stable))

    def snapshot(self) -> dict[str, Any]:
        """This source's state as JSON (``restore`` takes it back). An element read
        steadily, as believed, is ``[value, confidence, count, readings]``; any other
        ``[[believed value, confidence], [candidate value, confidence], count,
        [confidences], [last readings]]``, a reading with chances having them third
        (``[value, confidence, [[value, chance], ...]]``)."""
        elements: dict[str, list[Any]] = {}
        for e in self.schema.elements:
            stable, candidate = self.stable[e], self._candidate[e]
            confidences, recent = self._confidences[e], self._recent[e]
            if (
                stable == candidate
                and stable.chances is None
                and type(stable.value) is type(candidate.value)
                and all(c == stable.confidence for c in confidences)
                and len(recent) == self.window
                and all(r == stable and type(r.value) is type(stable.value) for r in recent)
            ):
                elements[e] = [stable.value, stable.confidence, self._count[e], len(confidences)]
            else:
                elements[e] = [
                    _reading_json(stable),
                    _reading_json(candidate),
                    self._count[e],
                    confidences,
                    [_reading_json(r) for r in recent],
                ]
        data: dict[str, Any] = {
            "frames": self.frames,
            "read": sorted(self.read),
            "elements": elements,
        }
        if self.fresh:
            data["fresh"] = sorted(self.fresh)
        return data

    def restore(self, data: dict[str, Any]) -> None:
        """Take back ``snapshot``'s state. Raises ``ValueError`` / ``KeyError`` /
        ``TypeError`` for one that is not."""
        if data["frames"] != self.frames or set(data["elements"]) != set(self.stable):
            raise ValueError("a source snapshot of other settings or elements")
        for e, (first, second, count, confidences, *recent) in data["elements"].items():
            if isinstance(first, list):
                self.stable[e] = _reading_from_json(first)
                self._candidate[e] = _reading_from_json(second)
                self._confidences[e] = [float(c) for c in confidences]
                self._recent[e] = [_reading_from_json(r) for r in recent[0]] if recent else []
            else:
                self.stable[e] = self._candidate[e] = Reading(first, float(second))
                self._confidences[e] = [float(second)] * int(confidences)
                self._recent[e] = [self.stable[e]] * self.window
            self._count[e] = int(count)
        self.read = set(data["read"]) & set(self.stable)
        self.fresh = set(data.get("fresh", ())) & set(self.stable)

    def settling(self) -> dict[str, Reading]:
        """The elements whose last readings (``window`` of them) with a value all read
        one value, unlike the believed one, at least twice, with that value's last
        reading: a piece put down, read now and then without a value, not believed yet
        for want of readings in a row. One frame's misreading is not among them."""
        out: dict[str, Reading] = {}
        for e, recent in self._recent.items():
            known = [r for r in recent if r.value is not None]
            if (
                len(known) >= 2
                and all(same_value(r.value, known[-1].value) for r in known)
                and not same_value(known[-1].value, self.stable[e].value)
            ):
                out[e] = known[-1]
        return out

    def latest_changes(self, frames: int = 1) -> dict[str, Reading]:
        """The elements last read otherwise than believed (a change not believed yet,
        or a reading disturbed once), with that reading; only those read so at least
        ``frames`` times in a row. With ``frames`` 1, an element last read without a
        value (unsure, or not shown) counts with the last value it was read with among
        its recent readings, when that is not the believed one: no value is no
        evidence against it (a monk put down, read now and then without a value, is
        not believed for want of three readings in a row)."""
        stable, count = self.stable, self._count
        out: dict[str, Reading] = {}
        for e, r in self._candidate.items():
            if count[e] < frames:
                continue
            if r.value is None and frames == 1:
                r = next((x for x in reversed(self._recent[e]) if x.value is not None), r)
            if r.value != stable[e].value or type(r.value) is not type(stable[e].value):
                out[e] = r
        return out


@dataclass
class Pending:
    """A verdict the referee waits for before giving it."""

    done_frames: int = -1
    """Frames since a ``done`` that waits for the table to be believed (-1: none)."""
    held: tuple[Verdict, int] | None = None
    """An illegal verdict not shown yet, and the frames the table has kept it."""
    confirm_frames: int = 0
    """Frames to hold an illegal verdict for: the last changed source's need."""
    held_again: bool = False
    """Whether the last evaluation held the same flag as before (not a new one)."""
    judging_done: bool = False
    """While a table is judged: whether the player said done (the verdict handlers'
    to know; nothing waits on it between inputs)."""


PREPARED_PER_FRAME = 400
"""Bigger moves whose changes ``Referee._prepare`` works out on one frame that changes
nothing (for ShenShi turns, 20 to 40 ms of one core on a shared two-core machine)."""


@dataclass
class LastMove:
    """What the move just accepted may still turn out to be."""

    found: list[Any] = field(default_factory=list)
    """``bigger``, once worked out."""
    later: Callable[[], list[Any]] | None = None
    """Works out ``bigger`` when it is first needed (``Referee._bigger_moves``)."""
    made_seen: list[str] = field(default_factory=list)
    """Its changes that the table surely showed when it was accepted."""
    typed_from: GameState[Any] | None = None
    """The position before it, while it was typed in and the table has not yet been
    seen to match it."""
    shorter: tuple[int, str] | None = None
    """After ``_revise`` took a move back for a bigger one: the index in the history
    where the bigger move goes, and the shorter move (``_split_again``)."""
    longer: tuple[int, str] | None = None
    """After ``_split_again`` went back to the shorter move: its index in the history,
    and the bigger move it had been taken for (``_split_again`` with ``back``: the next
    player's table may yet fit only after the bigger one)."""
    seen_move: tuple[int, str] | None = None
    """The index in the history and the text of the move ``made_seen`` belongs to."""
    typed: bool = False
    """It was typed in (a card said once the pieces were down, a correction)."""
    before: tuple[int, str, list[str]] | None = None
    """The move before it, when it was accepted from the table: its index in the
    history, its text and its ``made_seen`` (``_misread_before``)."""
    on_done: int | None = None
    """The index in the history of the move last accepted from the table when its
    player said done: that player said the move was complete as the table then
    stood (``_split_before_last``)."""

    @property
    def bigger(self) -> list[Any]:
        """The bigger moves of the same player it may grow into (``_bigger_moves``):
        worked out when first asked for, which is when the table next changes."""
        if self.later is not None:
            later, self.later = self.later, None
            self.found = later()
        return self.found

    @bigger.setter
    def bigger(self, moves: list[Any]) -> None:
        self.found, self.later = moves, None


class Status(StrEnum):
    """Where the referee stands, as the players see it."""

    WATCHING = "watching"
    """Judging the table as it changes: the normal state."""
    ILLEGAL = "illegal"
    """An illegal move is shown; waiting for the table to be put right (or a move
    typed, or taken back)."""
    QUESTION = "question"
    """A question is open: only its answer, a typed move or a takeback goes on."""
    OVER = "over"
    """The game is over: the table is only compared with the final position."""


def _legal(state: GameState[Any], move: Any) -> bool:
    """Whether ``move`` is legal in ``state``."""
    try:
        state.check(move)
    except EngineError:
        return False
    return True


class Referee:
    """Referee one game. ``handle`` takes one input and returns the outputs, in order."""

    WATCHING, ILLEGAL, QUESTION, OVER = Status

    def __init__(
        self,
        rules: Rules[Any, Any],
        start: GameState[Any] | None = None,
        config: RefereeConfig | None = None,
    ) -> None:
        self.rules = rules
        self.config = config or RefereeConfig()
        self.start = start.copy() if start is not None else rules.initial_state()
        self.state = self.start.copy()
        self.history: list[tuple[GameState[Any], str]] = []
        self.explainer = Explainer(rules.game, self.config.sure)
        self.schema: TableSchema = self.explainer.schema(self.state)
        # Each source is debounced on its own, so that one frame of one source counts
        # once however many sources there are; the referee believes their merge.
        self.sources: dict[str, Debouncer] = {}
        self.status = self.OVER if self.state.is_over() else self.WATCHING
        self.candidates: list[str] = []
        self._last: Output | None = None
        self.pending = Pending()
        """A verdict being waited for (a done, an illegal table being confirmed)."""
        self.last_move = LastMove()
        """What the move just accepted may still turn out to be."""
        self.belief = Belief()
        """Moves accepted while others fitted the table as well, and those others."""
        self.on_the_way = TurnsOnTheWay()
        """For a game whose turns are made in parts: the turns the table was seen on
        the way to since the last move (``_found_on_the_way``)."""
        hidden = self.explainer.model.hidden_parts() if self.config.parts else None
        parts = self.parts = Parts(hidden) if hidden is not None else None
        """For a game whose table hides things in parts (Shangri-La's students, village
        by village): the unseen moves in doubt, kept part by part (``parts``)."""
        if parts is not None:
            for e in self.schema.elements:
                for part in parts.model.parts_of(e):
                    parts.elements.setdefault(part, []).append(e)
            parts.save(0)
        self.unseen = (
            Unseen()
            if self.config.unseen
            and parts is None
            and self.explainer.model.hidden_parts() is not None
            else None
        )
        """For a game whose table hides things (Shangri-La's students): the moves the
        table could not show, written as the likeliest, and the others that fitted."""
        self._gap_question = False
        """The open question asks which of several moves made unseen came next: once
        it is answered, the rest of the table is explained again."""
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
        """The game so far, as a record (docs/notation.md, "Game records")."""
        start = (
            None
            if self.start.to_json() == self.rules.initial_state().to_json()
            else self.start.to_json()
        )
        return GameRecord(
            self.rules.game,
            list(self.rules.players),
            self.rules.options_json(),
            [m for _, m in self.history],
            start,
        )

    SNAPSHOT_FIELDS = frozenset(
        {
            "history",
            "state",
            "sources",
            "status",
            "candidates",
            "_last",
            "pending",
            "last_move",
            "belief",
            "on_the_way",
            "_gap_question",
            "parts",
            "unseen",
        }
    )
    """The fields ``snapshot`` covers; the others are fixed by the game, its start and
    the settings. A new field that changes as the game goes is added here and there."""

    def snapshot(self) -> dict[str, Any] | None:
        """The referee's state as JSON, for a journal to resume from without feeding it
        every input again (``restore``); None while a verdict is held or waited for,
        or a question about a gap is open (the journal takes a later one)."""
        last, pending = self.last_move, self.pending
        typed = [i for i, (state, _) in enumerate(self.history) if state is last.typed_from]
        if (
            pending.held is not None
            or pending.done_frames != -1
            or self._gap_question
            or (last.typed_from is not None and not typed)
        ):
            return None
        return {
            "moves": [text for _, text in self.history],
            "status": self.status,
            "candidates": list(self.candidates),
            "last": self._last.to_json() if self._last is not None else None,
            "bigger": [self.rules.format_move(m) for m in last.bigger],
            "made_seen": list(last.made_seen),
            "seen_move": list(last.seen_move) if last.seen_move is not None else None,
            "before": list(last.before) if last.before is not None else None,
            "typed": last.typed,
            "confirming": pending.confirm_frames,
            "held_again": pending.held_again,
            "typed_from": typed[0] if typed else None,
            "shorter": list(last.shorter) if last.shorter is not None else None,
            "longer": list(last.longer) if last.longer is not None else None,
            "on_done": last.on_done,
            "on_the_way": [self.rules.format_move(m) for m in self.on_the_way.at(self._position())],
            "sources": {name: d.snapshot() for name, d in self.sources.items()},
            "belief": self.belief.to_json(),
            **({"parts": self.parts.to_json()} if self.parts else {}),
            **({"unseen": self.unseen.to_json()} if self.unseen else {}),
        }

    def restore(self, data: dict[str, Any]) -> None:
        """Put this referee, fresh from its game, start and settings, in the state of
        ``snapshot``. Raises ``EngineError``, ``ValueError``, ``KeyError`` or
        ``TypeError`` for a snapshot that does not fit."""
        if self.history or self.sources:
            raise ValueError("only a fresh referee takes a snapshot")
        for text in data["moves"]:
            self.history.append((self.state.copy(), text))
            self.state.play(self.rules.parse_move(text))
        self.status = Status(data["status"])  # ValueError for an unknown one
        self.candidates = [str(c) for c in data["candidates"]]
        last = data["last"]
        self._last = None if last is None else _output_from_json(last)
        self.last_move.bigger = [self.rules.parse_move(text) for text in data["bigger"]]
        self.last_move.made_seen = [str(e) for e in data["made_seen"]]
        self.last_move.typed = bool(data.get("typed", False))
        seen, before = data.get("seen_move"), data.get("before")
        self.last_move.seen_move = None if seen is None else (int(seen[0]), str(seen[1]))
        self.last_move.before = (
            None if before is None else (int(before[0]), str(before[1]), list(before[2]))
        )
        self.pending.confirm_frames = int(data["confirming"])
        self.pending.held_again = bool(data["held_again"])
        typed = data["typed_from"]
        self.last_move.typed_from = None if typed is None else self.history[int(typed)][0]
        shorter = data["shorter"]
        self.last_move.shorter = None if shorter is None else (int(shorter[0]), str(shorter[1]))
        longer = data.get("longer")
        self.last_move.longer = None if longer is None else (int(longer[0]), str(longer[1]))
        on_done = data.get("on_done")
        self.last_move.on_done = None if on_done is None else int(on_done)
        self.on_the_way.add(
            self._position(), [self.rules.parse_move(text) for text in data.get("on_the_way", [])]
        )
        if "belief" in data:
            self.belief.restore(data["belief"], self.start, self.rules)
        if "parts" in data and self.parts is not None:
            self.parts.restore(data["parts"])
            self.parts.save(len(self.history))
        if "unseen" in data and self.unseen is not None:
            self.unseen.restore(data["unseen"])
        for name, source in data["sources"].items():
            debouncer = self.sources[name] = Debouncer(
                self.schema,
                self.config.frames_for(name),
                self.explainer.expected(self.state),
                self.config.sure,
            )
            debouncer.restore(source)

    def expected_table(self) -> Observation:
        return self.explainer.expected(self.state)

    def _hidden(self) -> frozenset[str]:
        """Elements under a hand: those a source has read before, in an element group
        (a space and its stack) of which that source now sees nothing."""
        group = self.explainer.model.group
        hidden: set[str] = set()
        for debouncer in self.sources.values():
            seen = {group(e) for e, r in debouncer.stable.items() if r.value is not None}
            hidden.update(e for e in debouncer.read if group(e) not in seen)
        return frozenset(hidden)

    def believed_table(self) -> Observation:
        """The table as the referee believes it: every source's debounced readings,
        merged (the expected table before anything was seen)."""
        merged = None
        for debouncer in self.sources.values():
            observation = debouncer.observation()
            merged = observation if merged is None else merged.merge(observation)
        return merged if merged is not None else self.expected_table()

    # ------------------------------------------------------------------ handlers

    def _on_seen(self, event: Seen) -> list[Output]:
        if event.observation.schema.game != self.schema.game:
            return [
                InputRejected(
                    "seen",
                    f"an observation of {event.observation.schema.game}"
                    f" while refereeing {self.schema.game}",
                )
            ]
        debouncer = self.sources.get(event.source)
        if debouncer is None:
            debouncer = self.sources[event.source] = Debouncer(
                self.schema,
                self.config.frames_for(event.source),
                self.explainer.expected(self.state),
                self.config.sure,
            )
        changed = debouncer.push(event.observation)
        if self.unseen is not None:
            self._hands(event.observation)
        if self.pending.done_frames >= 0:  # a done waiting for the table to be believed
            self.pending.done_frames += 1
            if (
                changed
                or self.pending.done_frames > DONE_WAIT * self.config.stable_frames
                or not self._unsettled()
            ):
                return self._evaluate(turn_done=True)
            return []
        if not changed:
            if self.pending.held is None:
                self._prepare()
            return self._confirm(event.observation, debouncer)
        self.pending.confirm_frames = self.config.confirm_frames if debouncer.frames > 1 else 0
        out = self._evaluate(turn_done=False)
        if self.pending.held is not None and self.pending.held_again:
            # the same flag held again (something else changed): this frame counts
            return out + self._confirm(event.observation, debouncer)
        return out

    def _prepare(self) -> None:
        """On a frame that changes nothing, work out ahead what the next tables will
        be judged against, a bounded share per frame: the bigger moves the last move
        may grow into (``LastMove.bigger``), then what each of them changes
        (``Explainer.prepare``). Verdicts are the same without it, only slower."""
        if self.status != self.WATCHING or not self.history:
            return
        last = self.last_move
        if last.later is not None:
            _ = last.bigger  # one search, this frame
            return
        if last.found:
            self.explainer.prepare(self.history[-1][0], last.found, PREPARED_PER_FRAME)

    def _unsettled(self) -> bool:
        """Whether some element surely believed otherwise than the position shows it was
        believed just now (``Debouncer.settled``) by a source that needs several frames."""
        expected, sure = self.expected_table(), self.config.sure
        return any(
            d.frames > 1
            and reading.value is not None
            and reading.confidence >= sure
            and (
                reading.value != expected.value(e)
                or type(reading.value) is not type(expected.value(e))
            )
            and not d.settled(e)
            for d in self.sources.values()
            for e, reading in d.stable.items()
        )

    def _confirm(self, observation: Observation, debouncer: Debouncer) -> list[Output]:
        """One more frame of the table held illegal (``_held``): the flag once the
        readings of what it would have put back, and of every other element believed
        changed, have stayed as believed for ``confirm_frames`` frames in a row."""
        if self.pending.held is None:
            return []
        verdict, frames = self.pending.held
        stable, expected = debouncer.stable, self.expected_table()
        # what it would put back, and every other change believed: a misplaced move's
        # steps may leave out the reading that made it look misplaced
        if any(observation[e].value != stable[e].value for e in verdict.fix_elements) or any(
            observation[e].value != reading.value
            for e, reading in stable.items()
            if reading.value is not None and reading.value != expected.value(e)
        ):
            self.pending.held = (verdict, 0)  # changing again: wait
            return []
        if frames + 1 < self.pending.confirm_frames:
            self.pending.held = (verdict, frames + 1)
            return []
        self.pending.held = None
        return self._verdict_illegal(verdict)

    def _on_turn_done(self, event: TurnDone) -> list[Output]:
        if self.status == self.OVER:
            return [InputRejected("turn_done", "the game is over")]
        self.pending.done_frames = 0
        return self._evaluate(turn_done=True)

    def _done_look(self, frames: int, read: int = 1) -> Verdict | None:
        """For a ``done`` the believed table says is illegal, when some elements were
        last read with a new value, unlike both the believed table and the position
        before the move (the last piece put down a frame ago): the verdict on the table
        with those readings. If a legal move fits it, the done waits (``DONE_WAIT``
        times the frames a reading takes, at most) and is judged again as the table is
        believed; if not, and nothing believed has changed yet, the same verdict on the
        readings seen ``read`` (2) times running is the flag, on the pieces as last read
        (otherwise the believed table is: one frame's misreading must not change the
        rule named), those read unsure both times left out (two frames' unsure
        misreadings must not name the rule either). None: no such reading (a reading
        going back to the position before may be a flicker hiding the illegal move: no
        reason to wait). ``in_progress``: no move fits those readings, but a sequence
        of moves made unseen does (``Explainer.explain_gap``): the done waits as well."""
        if frames > DONE_WAIT * self.config.stable_frames or not self.sources:
            return None
        before = self.expected_table()
        fresh = self._read_anew(before, read)
        if read > 1:
            fresh = {e: r for e, r in fresh.items() if r.confidence >= self.config.sure}
        if not fresh:  # only readings going back to the position before: no new piece
            return None
        believed = self.believed_table()
        settled = Observation.trusted(
            self.schema, {e: fresh.get(e, believed[e]) for e in self.schema.elements}
        )
        verdict = self.explainer.explain(self.state, settled, turn_done=True, hidden=self._hidden())
        if verdict.kind == Kind.ILLEGAL and read == 1:
            # a reading seen once may be the last piece put down or a misreading of
            # that one frame: weighed as unsure, a legal move may fit the pieces put down
            twice = {e for d in self.sources.values() for e in d.latest_changes(2)}
            once = {
                e: Reading(r.value, ONCE)
                for e, r in fresh.items()
                if e not in twice and r.confidence > ONCE
            }
            if once:
                weighed = settled.replace(once)
                look = self.explainer.explain(
                    self.state, weighed, turn_done=True, hidden=self._hidden()
                )
                if look.kind in (Kind.ACCEPTED, Kind.AMBIGUOUS):
                    return look
        if verdict.kind == Kind.ILLEGAL and read == 1:
            # several moves made unseen, the last piece read a frame ago: wait as well
            gap = self.explainer.explain_gap(self.state, settled)
            if gap.sequences:
                return Verdict(Kind.IN_PROGRESS, gap.next_moves(0))
        return verdict

    def _done_found(self, believed: Observation) -> Verdict | None:
        """The verdict on a ``done`` with the believed table completed by the pieces it
        lost: the elements whose recent readings agree on a value (``Debouncer.settling``)
        that the believed table shows fewer times than the position before the move does
        (a piece no longer seen where it stood, not yet believed where it was put down),
        each taken as read. Other new readings are left out: a misreading must not name
        the rule. None: no such reading."""
        before = self.expected_table()

        def piece(element: str, value: Value | None) -> tuple[Any, ...]:
            # elements of the same kind have the same values (a True is not a 1)
            return (self.schema.values[element], type(value).__name__, value)

        lost = Counter(piece(e, before.value(e)) for e in self.schema.elements)
        lost.subtract(piece(e, believed.value(e)) for e in self.schema.elements)
        found = {
            e: Reading(r.value, 1.0)
            for debouncer in self.sources.values()
            for e, r in debouncer.settling().items()
            if lost[piece(e, r.value)] > 0
            and not same_value(r.value, believed.value(e))
            and not same_value(r.value, before.value(e))
        }
        if not found:
            return None
        table = Observation.trusted(
            self.schema, {e: found.get(e, believed[e]) for e in self.schema.elements}
        )
        return self.explainer.explain(self.state, table, turn_done=True, hidden=self._hidden())

    def _read_anew(self, before: Observation, read: int = 1) -> dict[str, Reading]:
        """The elements last read (``read`` times running) with a value unlike both
        the believed table and ``before`` (``Debouncer.latest_changes``), by any source."""
        return {
            e: reading
            for debouncer in self.sources.values()
            for e, reading in debouncer.latest_changes(read).items()
            if reading.value is not None and reading.value != before.value(e)
        }

    def _done_as_read(self, believed: Observation) -> Verdict:
        """The verdict on a ``done`` judged on the pieces as last read, each element
        read otherwise than the position taken as sure however unsurely it was read
        (its last reading, or the believed one): for naming the rule an illegal move
        breaks when the camera was not sure of any piece it moved."""
        before = self.expected_table()
        readings = {e: believed[e] for e in self.schema.elements} | self._read_anew(before)
        for e, r in readings.items():
            if r.value is not None and not same_value(r.value, before.value(e)):
                readings[e] = Reading(r.value, 1.0)
        table = Observation.trusted(self.schema, readings)
        return self.explainer.explain(self.state, table, turn_done=True, hidden=self._hidden())

    def _on_answer(self, event: Answer) -> list[Output]:
        if self.status != self.QUESTION:
            return [InputRejected(event.move, "there is no open question")]
        try:
            move = self.rules.parse_move(event.move)
        except EngineError as error:
            return [InputRejected(event.move, str(error))]
        text = self.rules.format_move(move)
        if text not in self.candidates:
            return [
                InputRejected(
                    event.move, "not one of the moves offered: " + ", ".join(self.candidates)
                )
            ]
        if self.belief.asked is not None:
            return self._answer_doubt(text)
        if self.parts is not None and self.parts.asked is not None:
            return self._answer_part(text)
        out = self._accept(move, "answer", [])
        if self._gap_question and self.status == self.WATCHING:
            self._gap_question = False
            self.pending.confirm_frames = 0  # the table has been still since the question
            out += self._evaluate(turn_done=False)
        return out

    def _on_typed(self, event: TypedMove) -> list[Output]:
        try:
            move = self.rules.parse_move(event.move)
            restated = self._restates(move)
            if restated is not None:
                return restated
            self.state.check(move)
        except IllegalMoveError as error:
            return [InputRejected(event.move, f"{error.message} [{error.rule}]")]
        except EngineError as error:
            return [InputRejected(event.move, str(error))]
        self.last_move.shorter = self.last_move.longer = None
        self._gap_question = False
        out = self._accept(move, "typed", [])
        out.extend(self._table_check("After the typed move the table should change:"))
        return out

    def _restates(self, move: Any) -> list[Output] | None:
        """A typed move that says what the last move really was: legal before the last
        move and leaving the same table (a Shendao card that changed nothing on the
        board is spent all the same, and no reader sees cards). It replaces the last
        move; None when the typed move is no such thing. Moves of different players
        mostly leave different tables (their colours), but not always (a Shendao tile
        entering through a gate closed by the move before may change nothing): a move
        typed after a typed one is the next player's, the last move having been said
        already."""
        if not self.history or self.status == self.ILLEGAL or self.last_move.typed:
            return None
        earlier, text = self.history[-1]
        if self.rules.format_move(move) == text:
            return None
        try:
            earlier.check(move)
        except IllegalMoveError:
            return None
        after = earlier.copy()
        after.play(move)
        if self.explainer.expected(after) != self.explainer.expected(self.state):
            return None
        self.history.pop()
        self.state = earlier
        self._truncate_beliefs()
        out: list[Output] = [MoveTakenBack(len(self.history) + 1, text)]
        return out + self._accept(move, "typed", [])

    def _on_takeback(self, event: Takeback) -> list[Output]:
        if not self.history:
            return [InputRejected("takeback", "no move to take back")]
        previous, text = self.history.pop()
        self.state = previous
        self._truncate_beliefs()
        self.status = self.WATCHING
        self.last_move = LastMove()
        self._gap_question = False
        self.pending.done_frames = -1
        self.pending.held = None
        out: list[Output] = [MoveTakenBack(len(self.history) + 1, text)]
        out.extend(self._table_check("To take the move back, change the table:"))
        out.append(self._lights_for(None))
        return out

    # ------------------------------------------------------------------ verdicts

    def _evaluate(self, *, turn_done: bool) -> list[Output]:
        waited, self.pending.done_frames = self.pending.done_frames, -1
        if self.status == self.OVER:
            return self._table_check("The table no longer matches the final position:")
        if self.state.is_over():
            return []  # a question on the last moves is open: its answer ends the game
        observation = self.believed_table()
        hidden = self._hidden()
        self.pending.judging_done = turn_done
        # a done just after the last turn was taken for a bigger one may be the next
        # player's, the last action theirs (``_split_again``): no turn of theirs leaving
        # no trace is looked for then
        shorter = self.last_move.shorter
        verdict = self.explainer.explain(
            self.state,
            observation,
            turn_done=turn_done,
            hidden=hidden,
            traceless=shorter is None or shorter[0] != len(self.history) - 1,
        )
        if verdict.kind == Kind.IN_PROGRESS and self.explainer.in_parts:
            self.on_the_way.add(self._position(), verdict.moves)
        if verdict.kind != Kind.UNCHANGED and (
            self.last_move.bigger
            or (
                self.explainer.model.MOVES_GO_ON
                and self.last_move.made_seen
                and (verdict.kind == Kind.ILLEGAL or verdict.unexplained)
            )
        ):
            # (a turn going on into one no bigger move kept foresaw: its first actions
            # left the table as the accepted turn does, ``TableModel.extends``)
            revised = self._revise(observation, turn_done, verdict)
            if revised is not None:
                return revised
        if verdict.kind == Kind.ILLEGAL and self.last_move.made_seen:
            undone = self._undone(observation, turn_done, hidden)
            if undone is not None:
                return undone
        if verdict.kind == Kind.ILLEGAL and self.last_move.before and not self.explainer.in_parts:
            undone = self._misread_before(observation, turn_done, hidden)
            if undone is not None:
                return undone
        if (verdict.kind == Kind.ILLEGAL or verdict.unexplained) and self.last_move.shorter:
            split = self._split_again(
                observation, turn_done, hidden, whole=verdict.kind != Kind.ILLEGAL
            )
            if split is not None:
                return split
        if (verdict.kind == Kind.ILLEGAL or verdict.unexplained) and self.last_move.longer:
            split = self._split_again(observation, turn_done, hidden, back=True)
            if split is not None:
                return split
        if verdict.kind == Kind.ILLEGAL and (self.last_move.shorter or self.last_move.longer):
            split = self._split_before_last(observation, turn_done, hidden)
            if split is not None:
                return split
        if verdict.kind == Kind.ILLEGAL and self.belief:
            settled = self._by_belief(observation, turn_done, hidden)
            if settled is not None:
                return settled
        if verdict.kind == Kind.ILLEGAL and self.unseen:
            settled = self._by_unseen(observation, turn_done, hidden)
            if settled is not None:
                return settled
        if verdict.kind == Kind.ILLEGAL and self.parts:
            settled = self._by_parts(observation, turn_done, hidden)
            if settled is not None:
                return settled
        if verdict.kind == Kind.IN_PROGRESS and self.parts and self._joins_parts(observation):
            settled = self._by_parts_before_last(observation, turn_done, hidden)
            if settled is not None:
                return settled
        if turn_done and verdict.kind == Kind.ILLEGAL and self.explainer.in_parts:
            verdict = self._found_on_the_way(observation, hidden) or verdict
        typed_from = self.last_move.typed_from
        if (
            verdict.kind == Kind.ILLEGAL
            and not turn_done
            and typed_from is not None
            and self.explainer.between(observation, typed_from, self.state)
        ):
            # a move typed in before it was made: the table is being made to match
            text = self.history[-1][1]
            return self._emit([MoveInProgress(typed_from.to_move, [text])])
        if (
            turn_done
            and verdict.kind == Kind.ILLEGAL
            and self._unsettled()
            and max(waited, 0) <= DONE_WAIT * self.config.stable_frames
            and not self.explainer.explain_gap(self.state, observation).sequences
        ):
            # a change believed just now (three frames read so, after one that was not)
            # may be a misreading three frames long: a done on it waits until it has
            # read so for one more frame, as an illegal table is confirmed (moves made
            # unseen that explain it are accepted at once, as before)
            self.pending.done_frames = max(waited, 0)
            return []
        if turn_done and verdict.kind == Kind.ILLEGAL:
            named_by_reads = False
            look = self._done_look(max(waited, 0))
            if look is not None and look.kind in (Kind.ACCEPTED, Kind.AMBIGUOUS, Kind.IN_PROGRESS):
                self.pending.done_frames = max(waited, 0)
                return []
            if (
                look is not None
                and look.kind == Kind.ILLEGAL
                and not observation.differences(
                    self.expected_table(), min_confidence=self.config.sure
                )
            ):
                # nothing believed changed yet: name what was read twice running (a
                # single frame's misreading is no move: done on a still table is a pass)
                # (a table no rule names is kept only when the believed one names no
                # rule either: two frames' misreadings are no move)
                named = self._done_look(max(waited, 0), read=2)
                if (
                    named is not None
                    and named.kind == Kind.ILLEGAL
                    and (named.rule != UNEXPLAINED or verdict.rule == UNEXPLAINED)
                ):
                    verdict, named_by_reads = named, True
            elif verdict.rule == UNEXPLAINED:
                # the believed table leaves a change no rule names (a monk gone from
                # the board), while the last frame shows the piece it lost: put down
                # a frame ago, read but not yet believed
                found = self._done_found(observation)
                if found is not None and found.kind == Kind.ILLEGAL and found.rule != UNEXPLAINED:
                    verdict, named_by_reads = found, True
            if (
                not named_by_reads
                and observation.differences(self.expected_table())
                and not observation.differences(
                    self.expected_table(), min_confidence=self.config.sure
                )
            ):
                # nothing surely changed, but a table believed changed unsurely is not
                # still: the player did something, and the pieces as read name it
                # better than a pass
                named = self._done_as_read(observation)
                if named.kind == Kind.ILLEGAL and named.rule != verdict.rule:
                    verdict = named
        if turn_done and verdict.kind == Kind.ILLEGAL:
            whole = self._shown_whole(observation, verdict)
            if whole is not None:
                return whole
            self._other_reading(observation, hidden, verdict)
            self._done_after_a_move(observation, verdict)
        held, self.pending.held = self.pending.held, None
        if (
            verdict.kind == Kind.ILLEGAL
            and not turn_done
            and self.status == self.WATCHING
            and self.pending.confirm_frames > 0
        ):
            # held until the table has stayed so (the same flag: the count goes on)
            same = held is not None and (held[0].rule, held[0].fix_elements) == (
                verdict.rule,
                verdict.fix_elements,
            )
            self.pending.held = (verdict, held[1] if same and held is not None else 0)
            self.pending.held_again = same
            return []
        return self._verdict_handlers[verdict.kind](self, verdict)

    # Pieces go down one at a time, so the first part of a move can itself be a legal
    # move: one student of a two-student recruit seen by a sensor board, the first
    # student of a journey landing where its player could place a master. So when a
    # move is accepted from the table, the referee keeps the bigger moves of the same
    # player that include everything visible it changed (``_bigger``); if the table
    # then goes on changing into one of them (or on the way to one), the accepted move
    # is taken back and the table judged from before it. One player going on with their
    # move is preferred to the next player making one that leaves the same table; only
    # while both would be just under way does the referee wait (the next player lifting
    # a bridge by the village where a master was just placed).

    def _position(self) -> tuple[int, str]:
        """The record's position as ``TurnsOnTheWay`` tells positions apart."""
        return len(self.history), self.history[-1][1] if self.history else ""

    def _found_on_the_way(self, observation: Observation, hidden: frozenset[str]) -> Verdict | None:
        """For a ``done`` on a table no turn found from it explains: the verdict of the
        turns the table was seen on the way to (``TurnsOnTheWay``) that explain it, if
        any does. A turn that lifted a cushion from a square and put another down there
        leaves that square as it was: the search, which acts on squares that changed,
        misses it on the finished table, but found it while the square was empty."""
        moves = [m for m in self.on_the_way.at(self._position()) if _legal(self.state, m)]
        if not moves:
            return None
        verdict = self.explainer.explain(
            self.state, observation, turn_done=True, moves=moves, hidden=hidden, diagnose=False
        )
        return verdict if verdict.kind in (Kind.ACCEPTED, Kind.AMBIGUOUS) else None

    def _bigger_moves(self, earlier: GameState[Any], observation: Observation) -> None:
        """The legal moves in ``earlier`` (before the move just accepted) whose result
        includes every change of the accepted move that ``observation`` can see, as
        ``last_move.bigger``: worked out only once the table changes again (a ShenShi
        search takes a while, and the verdict accepting the move has just made one)."""
        last = self.last_move
        made = last.made_seen = self._made(earlier, observation)
        last.seen_move = (len(self.history) - 1, self.history[-1][1])
        last.bigger = []
        if not made:  # accepted on the player's word (done), not on what was seen
            return
        accepted, text = self.explainer.expected(self.state), self.history[-1][1]

        def later() -> list[Any]:
            moves = self.explainer.candidate_moves(earlier, observation, made)
            return self._agreeing(earlier, made, moves, accepted, text)

        last.later = later

    def _made(self, earlier: GameState[Any], observation: Observation) -> list[str]:
        """The changes of the move just accepted that ``observation`` surely shows."""
        before = self.explainer.expected(earlier)
        accepted = self.explainer.expected(self.state)
        sure = self.config.sure
        return [
            e
            for e in self.schema.elements
            if before[e] != accepted[e]
            and observation[e].confidence >= sure
            and observation.value(e) == accepted.value(e)
            and type(observation.value(e)) is type(accepted.value(e))
        ]

    def _agreeing(
        self,
        earlier: GameState[Any],
        made: list[str],
        moves: list[Any],
        accepted: Observation | None = None,
        text: str | None = None,
    ) -> list[Any]:
        """Of ``moves`` (legal in ``earlier``), those that go on from the move just
        accepted (``text``, leaving the table ``accepted``), or leave every element of
        ``made`` as it does."""
        if accepted is None or text is None:
            accepted, text = self.explainer.expected(self.state), self.history[-1][1]
        # A game may say which moves extend another (ShenShi: a turn and its third
        # action, which moves a monk off a square the first two changed).
        model = self.explainer.model
        extends = model.extends if model.MOVES_GO_ON else None
        accepted_move = self.rules.parse_move(text) if extends is not None else None
        bigger = []
        for move in moves:
            if extends is not None and extends(earlier, accepted_move, move):
                bigger.append(move)
                continue
            token = earlier.apply(move)
            after = self.explainer.expected(earlier)
            earlier.undo(token)
            if all(after[e] == accepted[e] for e in made) and self.rules.format_move(move) != text:
                bigger.append(move)
        return bigger

    def _revise(
        self, observation: Observation, turn_done: bool, after: Verdict
    ) -> list[Output] | None:
        """Take the last move back if the table now shows a bigger move of the same
        player, or part of one unless the next player's move is also only in progress
        (``after``: the verdict after the last move); None when it does not, or while an
        illegal move is being put right.

        A table no move explains yet in a game whose turns come in parts (``after`` is
        ``unexplained``) counts as illegal for the next player, but then only a whole
        bigger move takes the last one back: the next player's turn half made may look
        like anything half made."""
        if self.status != self.WATCHING:
            return None
        if turn_done and not observation.differences(
            self.expected_table(), min_confidence=self.config.sure
        ):
            # a done on a table that shows nothing beyond the move accepted is the next
            # player's: their move left no trace (a Shendao card that changed nothing),
            # it does not make the last move a bigger one that looks the same
            return None
        now = Kind.ILLEGAL if after.unexplained else after.kind
        earlier, text = self.history[-1]
        hidden = self._hidden()
        explainer, bigger = self.explainer, self.last_move.bigger
        # Only a bigger move that fits counts when a bigger move on its way would not
        # take the last one back (below: the player is done, or the next player's move
        # is on its way or unexplained): the others are not judged. ``worth_judging``
        # keeps what each bigger move leaves, for the tables that follow.
        fitting = turn_done or now == Kind.IN_PROGRESS or after.unexplained
        verdict = explainer.explain(
            earlier,
            observation,
            turn_done=turn_done,
            moves=explainer.worth_judging(earlier, observation, bigger, fitting=fitting),
            hidden=hidden,
            diagnose=False,  # only whether a bigger move explains the table counts here
        )
        if (
            fitting
            and not turn_done
            and after.unexplained
            and verdict.kind == Kind.ILLEGAL
            and explainer.any_on_the_way(
                earlier, observation, explainer.worth_judging(earlier, observation, bigger)
            )
        ):
            return None  # one is on its way: as a verdict in progress, below
        if (
            now == Kind.ILLEGAL
            and verdict.kind in (Kind.UNCHANGED, Kind.ILLEGAL)
            and self.explainer.model.MOVES_GO_ON
        ):
            verdict = self._goes_on(earlier, observation, turn_done, hidden)
        if (
            verdict.kind not in (Kind.ACCEPTED, Kind.AMBIGUOUS, Kind.IN_PROGRESS)
            or (verdict.kind == now == Kind.IN_PROGRESS)
            or (after.unexplained and verdict.kind == Kind.IN_PROGRESS)
            or (
                now == Kind.ACCEPTED
                and verdict.kind == Kind.IN_PROGRESS
                and self.explainer.model.MOVES_GO_ON
            )
            or (verdict.unexplained and self.explainer.beyond_a_turn(earlier, observation))
        ):
            # a table no move explains from before the last move either, whose pieces
            # moved are more than one turn of that player holds, is no reason to take it
            # back: another player's monk moved after it is that player's illegal move;
            # nor, in a game whose turns go on (ShenShi), is a bigger move only on its
            # way when the next player's whole turn explains the table (a Shangri-La
            # journey's first students look like the next player's whole placement)
            return None
        self.history.pop()
        self.state = earlier
        self._truncate_beliefs()
        self.last_move.bigger = []
        self.last_move.made_seen = []
        self._last = None
        out: list[Output] = [MoveTakenBack(len(self.history) + 1, text)]
        out += self._verdict_handlers[verdict.kind](self, verdict)
        accepted = any(isinstance(o, MoveAccepted) for o in out)
        self.last_move.shorter = (len(self.history) - accepted, text)
        return out

    def _undone(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """Take the last move back when the table no longer shows it, and judge the
        table from before it. Either every change of it that the table surely showed
        when it was accepted is surely read as before it again, and the table shows the
        position before it (it was misread: a reading wrong for a few frames in a row),
        another whole move of that player, or one on its way (the player changed their
        mind); or each of those changes is surely read otherwise than the move left it,
        and another whole move of that player fits (a monk read as its partner for a
        few frames). None when the table still shows some of the move, or fits no move
        from before it (the next player's illegal move). While a flag stands, only a
        table showing the position before it takes it back (a move the table showed on
        the way as an illegal move was put right); then the pieces it moved may be read
        back where they were less surely: the rest of the table shows that position
        surely (a camera unsure of a monk it sees). With no flag yet, a change the
        move made that the table never surely showed, now surely read otherwise, takes
        it back too, when a move of the same player from before it fits or is on its
        way: the move was taken from unsure readings (a hand over the Grand Master, the
        camera unsure of the monk beside it, taken for a swap that never was)."""
        if self.status not in (self.WATCHING, self.ILLEGAL) or not self.history:
            return None
        earlier, text = self.history[-1]
        before, sure = self.explainer.expected(earlier), self.config.sure
        floor = 0.0 if self.status == self.ILLEGAL else sure
        made = self.last_move.made_seen
        back = all(
            observation[e].confidence >= floor and same_value(observation.value(e), before.value(e))
            for e in made
        )
        unsure = False
        if not back:
            # or, no flag shown, what it changed is surely read otherwise than it left
            # it: another whole move of its player, misread at first
            accepted = self.explainer.expected(self.state)
            if self.status != self.WATCHING:
                return None
            if not all(
                observation[e].confidence >= sure
                and not same_value(observation.value(e), accepted.value(e))
                for e in made
            ):
                # or a change it made that the table never surely showed is now surely
                # read otherwise: it was taken from unsure readings
                unsure = any(
                    e not in made
                    and observation[e].confidence >= sure
                    and not same_value(accepted.value(e), before.value(e))
                    and not same_value(observation.value(e), accepted.value(e))
                    for e in observation
                )
                if not unsure:
                    return None
        verdict = self.explainer.explain(earlier, observation, turn_done=turn_done, hidden=hidden)
        judged: tuple[Kind, ...] = (Kind.UNCHANGED, Kind.ACCEPTED, Kind.AMBIGUOUS)
        if (back or unsure) and self.status == self.WATCHING and not verdict.unexplained:
            # none of it left on the table, or taken from unsure readings: its player
            # may be making another move (a change of mind), half made
            judged += (Kind.IN_PROGRESS,)
        if verdict.kind not in judged or (not back and verdict.kind == Kind.UNCHANGED):
            return None  # half a move from there is not enough to undo one made
        if self.status == self.ILLEGAL and verdict.kind != Kind.UNCHANGED:
            return None
        self.history.pop()
        self.state = earlier
        self._truncate_beliefs()
        self.last_move = LastMove()
        self._last = None
        out: list[Output] = [MoveTakenBack(len(self.history) + 1, text), self._lights_for(None)]
        return out + self._verdict_handlers[verdict.kind](self, verdict)

    def _misread_before(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """Take back the last two moves when the move before the last one was misread:
        every change of it that the table surely showed when it was accepted is surely
        read as before it again, and one whole move of its player from before it, the
        last move replayed first, explains the table (a gate read closed for a few
        frames, taken for an entry; the player then made their move, taken for the next
        player's). None otherwise."""
        before = self.last_move.before
        if self.status != self.WATCHING or before is None or len(self.history) < 2:
            return None
        index, text, seen = before
        if index != len(self.history) - 2 or self.history[index][1] != text:
            return None
        earlier = self.history[index][0]
        shown, sure = self.explainer.expected(earlier), self.config.sure
        if not all(
            observation[e].confidence >= sure
            and observation.value(e) == shown.value(e)
            and type(observation.value(e)) is type(shown.value(e))
            for e in seen
        ):
            return None
        last = self.rules.parse_move(self.history[-1][1])
        verdict = Verdict(Kind.ILLEGAL)
        if not self._forbids_in(earlier, last):
            verdict = self.explainer.explain(
                earlier, observation, turn_done=turn_done, moves=[last], hidden=hidden
            )
        if verdict.kind != Kind.ACCEPTED:
            verdict = self.explainer.explain(
                earlier, observation, turn_done=turn_done, hidden=hidden
            )
        if verdict.kind != Kind.ACCEPTED or self.rules.format_move(verdict.moves[0]) == text:
            return None
        out = self._take_back_to(index)
        out.append(self._lights_for(None))
        return out + self._verdict_accepted(verdict)

    def _take_back_to(self, index: int) -> list[Output]:
        """Take back the moves of the history from ``index`` on, the last first; the
        position is the one before the move at ``index``."""
        out: list[Output] = []
        earlier = self.history[index][0]
        while len(self.history) > index:
            _, taken = self.history.pop()
            out.append(MoveTakenBack(len(self.history) + 1, taken))
        self.state = earlier
        self._truncate_beliefs()
        self.last_move = LastMove()
        self._last = None
        return out

    def _played(self, state: GameState[Any], text: str) -> GameState[Any] | None:
        """A copy of ``state`` with the move ``text`` played; None when it cannot be."""
        after = state.copy()
        try:
            after.play(self.rules.parse_move(text))
        except EngineError:
            return None
        return after

    @staticmethod
    def _forbids_in(state: GameState[Any], move: Any) -> bool:
        """Whether ``move`` cannot be played in ``state``."""
        try:
            state.check(move)
        except EngineError:
            return True
        return False

    def _split_again(
        self,
        observation: Observation,
        turn_done: bool,
        hidden: frozenset[str],
        *,
        back: bool = False,
        whole: bool = False,
    ) -> list[Output] | None:
        """Undo a revision (``_revise``) the table now contradicts: the last move was
        taken for a bigger one, but the next player's move no longer fits after it,
        while it does after the shorter move first accepted (in ShenShi the next player
        may move a neutral monk first, as a third action of the player before would).
        None when it does not fit after the shorter move either (a turn leaving no
        trace is not looked for there: the table shows a visible action).

        ``back``: undo such an undoing the same way, when the next player's move, which
        fitted after the shorter move while it was under way, no longer does, and fits
        after the bigger one (the neutral monk the player before moved twice, moved
        again by the next player: lifted, it looked like the player before going on
        from the shorter move).

        ``whole``: only the next player's whole move counts after the shorter move, not
        one on its way (the table after the bigger move is not illegal, only not yet
        explained: a monk lifted there may be the start of the next player's turn)."""
        index, text = (self.last_move.longer if back else self.last_move.shorter) or (-1, "")
        if index != len(self.history) - 1:
            return None
        earlier, bigger = self.history[-1]
        shorter = self._played(earlier, text)
        if shorter is None:
            return None
        verdict = self.explainer.explain(
            shorter, observation, turn_done=turn_done, hidden=hidden, traceless=False
        )
        if verdict.kind not in (Kind.ACCEPTED, Kind.AMBIGUOUS) and (
            whole or verdict.kind != Kind.IN_PROGRESS or verdict.unexplained
        ):
            return None
        self.history.pop()
        self.state = earlier
        self._truncate_beliefs()
        self._last = None
        out: list[Output] = [MoveTakenBack(len(self.history) + 1, bigger)]
        out += self._accept(self.rules.parse_move(text), "table", [])
        if back:
            self.last_move.shorter, self.last_move.longer = (len(self.history) - 1, bigger), None
        else:
            self.last_move.longer = (len(self.history) - 1, bigger)
        return out + self._verdict_handlers[verdict.kind](self, verdict)

    def _split_before_last(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """In a game whose turns go on (ShenShi), ``_split_again`` one move further
        back: the move before the last one was taken for a bigger one (``_revise``) or
        split back to the shorter one (``_split_again``), the last move was accepted
        after it, and the table now fits no move from there, while it fits the other
        reading of the move before followed by a move of the next player, whole or on
        its way. The neutral monk's last action was the next player's after all (they
        moved it, changed their mind and put it back, then went on with their turn), or
        was the player's before them after all (the next player's turn was taken from
        readings under a hand). Both moves are taken back and the table is judged after
        the other reading. None otherwise."""
        if (
            turn_done
            or not self.explainer.model.MOVES_GO_ON
            or self.status != self.WATCHING
            or self.last_move.on_done == len(self.history) - 1
        ):
            # (a done is the player's to move: their turn is judged as the table stands,
            # not hidden by reading the turns before it again; and the last move, accepted
            # when its player said done, was complete then: what changed since is not
            # theirs, whatever the move before it was)
            return None
        split = self._split_two_back(
            self.last_move.shorter, observation, turn_done, hidden, shorter=True
        )
        if split is None:
            split = self._split_two_back(self.last_move.longer, observation, turn_done, hidden)
        return split

    def _split_two_back(
        self,
        other: tuple[int, str] | None,
        observation: Observation,
        turn_done: bool,
        hidden: frozenset[str],
        *,
        shorter: bool = False,
    ) -> list[Output] | None:
        """``_split_before_last`` for ``other``: the index in the history of the move
        before the last one and its other reading, ``shorter`` (the move was taken
        for a bigger one): then only when what the bigger move adds could have been
        the next player's, on the way to a turn of theirs (a neutral monk's action, not
        the player's own monk's)."""
        index, text = other or (-1, "")
        if index < 0 or index != len(self.history) - 2 or self.history[index][1] == text:
            return None
        earlier = self.history[index][0]
        reading = self._played(earlier, text)
        if reading is None:
            return None
        if shorter:
            added = self.explainer.explain(
                reading, self.explainer.expected(self.history[-1][0]), diagnose=False
            )
            if added.kind not in (Kind.ACCEPTED, Kind.AMBIGUOUS, Kind.IN_PROGRESS) or (
                added.unexplained
            ):
                return None
        verdict = self.explainer.explain(
            reading, observation, turn_done=turn_done, hidden=hidden, traceless=False
        )
        if verdict.kind not in (Kind.ACCEPTED, Kind.AMBIGUOUS, Kind.IN_PROGRESS) or (
            verdict.unexplained
        ):
            return None
        last = self.history[-1][1]
        if any(self.rules.format_move(move) == last for move in verdict.moves):
            # the next player's turn read as it was: what changed since is the player's
            # to move now (a neutral monk moved back where the other reading has it),
            # judged as theirs, not hidden by reading the turn before again
            return None
        out = self._take_back_to(index)
        out += self._accept(self.rules.parse_move(text), "table", [])
        return out + self._verdict_handlers[verdict.kind](self, verdict)

    def _other_reading(
        self, observation: Observation, hidden: frozenset[str], verdict: Verdict
    ) -> None:
        """A done on the table of a move ``_revise`` made bigger, nothing changed
        since, in a game whose turns go on (ShenShi), when no turn of the next player
        explains the table from the shorter move either (``_split_again`` found none):
        two readings are illegal, ``verdict`` (the player before went on; the next
        player did nothing) and the next player's turn made of the last action. The
        table cannot tell them apart, so ``verdict`` stands and its sentence gives the
        other reading and its rule: the player who made the last action knows which
        applies."""
        index, text = self.last_move.shorter or (-1, "")
        if (
            not self.explainer.model.MOVES_GO_ON
            or index < 0
            or index != len(self.history) - 1
            or self.history[-1][1] == text
            or observation.differences(self.expected_table(), min_confidence=self.config.sure)
        ):
            return
        earlier, bigger = self.history[-1]
        shorter = self._played(earlier, text)
        if shorter is None:
            return
        other = self.explainer.explain(
            shorter, observation, turn_done=True, hidden=hidden, traceless=False
        )
        if other.kind != Kind.ILLEGAL or other.rule in (UNEXPLAINED, verdict.rule):
            return
        before, after = self.rules.players[earlier.to_move], self.rules.players[shorter.to_move]
        verdict.message = (
            f"{verdict.message} (This reads the last change as {before.capitalize()}'s, "
            f"going on with {bigger}. If {after.capitalize()} made it: {other.message} "
            f"[{other.rule}])"
        )

    def _done_after_a_move(self, observation: Observation, verdict: Verdict) -> None:
        """A done flagged as a pass on a table surely unchanged since the last move was
        accepted from it: the player who made that move may have said it (a ShenShi
        player pressing done after a turn the referee announced). The flag stands, as
        the table shows the next player passing; its sentence says the move was
        accepted already."""
        last = self.last_move
        if (
            not verdict.rule.startswith("pass.")
            or not self.history
            or not last.made_seen
            or last.seen_move != (len(self.history) - 1, self.history[-1][1])
            or observation.differences(self.expected_table(), min_confidence=self.config.sure)
        ):
            return
        earlier, text = self.history[-1]
        who = self.rules.players[earlier.to_move].capitalize()
        verdict.message = (
            f"{verdict.message} (If {who} said done after their move: move "
            f"{len(self.history)}, {text}, was accepted already; done is needed only for a "
            "move the referee has not announced.)"
        )

    def _shown_whole(self, observation: Observation, verdict: Verdict) -> list[Output] | None:
        """A done on a table no legal move explains, after the last move accepted was
        taken back because the table seemed to go on from it into a bigger move of its
        player (``_revise``) that never showed whole. A player whose whole move was
        shown accepted has finished it, so the done is the next player's: the move is
        accepted again and the table judged after it. In a game whose turns go on
        (ShenShi), only another player's monk moved counts so: a table half a turn
        could leave is the player's still moving. In a game whose moves are made whole
        (Shendao, Shangri-La), only a table on which something the move put down is
        gone again (``_lifted_again``): its player going on would not say done with it
        in hand (the next player took the tile just entered off the board, which looks
        like the tile lifted to slide on after a card); a move or an illegal move of
        the next player found after it stands. A flag's sentence says the other reading,
        which the table cannot rule out (the player going on, breaking ``verdict``'s
        rule). None otherwise."""
        index, text = self.last_move.shorter or (-1, "")
        if index != len(self.history):
            return None
        move = self.rules.parse_move(text)
        accepted = self.state.copy()
        try:
            accepted.play(move)
        except EngineError:
            return None
        goes_on = self.explainer.model.MOVES_GO_ON
        if not goes_on and not self._lifted_again(observation, accepted):
            return None
        after = self.explainer.explain(accepted, observation, turn_done=True, hidden=self._hidden())
        if goes_on and (after.kind != Kind.ILLEGAL or after.rule != WRONG_PLAYER):
            return None
        if after.kind not in (Kind.ACCEPTED, Kind.AMBIGUOUS, Kind.ILLEGAL):
            return None
        if after.kind == Kind.ILLEGAL:
            name = self.rules.players[self.state.to_move].capitalize()
            shown = f"turn {text} was shown complete before the monk moved"
            if not goes_on:
                shown = f"move {text} was shown complete before the table changed"
            after.message = (
                f"{after.message} {name}'s {shown}. If {name} was still moving: {verdict.message}"
            )
        accepted_again = self._accept(move, "table", [], shown=False)
        return accepted_again + self._verdict_handlers[after.kind](self, after)

    def _lifted_again(self, observation: Observation, accepted: GameState[Any]) -> bool:
        """Whether ``observation`` surely shows an element the move from the record's
        position to ``accepted`` changed otherwise than that move left it."""
        before, after = self.expected_table(), self.explainer.expected(accepted)
        return any(
            observation[e].confidence >= self.config.sure
            and not same_value(observation.value(e), after.value(e))
            for e in self.schema.elements
            if not same_value(before.value(e), after.value(e))
        )

    def _goes_on(
        self,
        earlier: GameState[Any],
        observation: Observation,
        turn_done: bool,
        hidden: frozenset[str],
    ) -> Verdict:
        """In a game whose accepted moves may go on (ShenShi: a turn of two actions is
        accepted at once, a third may follow), a table that no move of the next player
        explains is judged from before the move just accepted, by every move the game
        finds for it: the player may still be making theirs, a piece in the hand (a
        monk entered, then lifted with its cushion to hover on, leaves the table as it
        was; a swap shows one monk lifted and the other not yet moved). Only moves
        going on from the accepted one, or leaving what the table surely showed of it
        as it was, count: another turn of that player would never have shown it."""
        if (
            observation.differences(
                self.explainer.expected(earlier), min_confidence=self.config.sure
            )
            == []
        ):
            return Verdict(Kind.IN_PROGRESS, self.last_move.bigger[:IN_PROGRESS_SHOWN])
        verdict = self.explainer.explain(earlier, observation, turn_done=turn_done, hidden=hidden)
        if verdict.kind == Kind.ACCEPTED:
            token = earlier.apply(verdict.moves[0])
            again = earlier == self.state  # the accepted move itself: nothing goes on
            earlier.undo(token)
            if again:
                return Verdict(Kind.ILLEGAL)
        if verdict.moves and self.last_move.made_seen:
            # a neutral monk seen where the accepted turn put it, then moved on by the
            # next player, is the next player's turn, not another turn of the player
            # before that would have put it elsewhere
            moves = self._agreeing(earlier, self.last_move.made_seen, verdict.moves)
            if not moves:
                return Verdict(Kind.ILLEGAL)
            if len(moves) < len(verdict.moves):
                kind = (
                    Kind.ACCEPTED
                    if verdict.kind == Kind.AMBIGUOUS and len(moves) == 1
                    else verdict.kind
                )
                return Verdict(kind, moves)
        return verdict

    def _verdict_unchanged(self, verdict: Verdict) -> list[Output]:
        self.last_move.typed_from = None  # the table matches the moves so far
        if self.belief:  # a table showing the record's position: what else does it show?
            observation, sure = self.believed_table(), self.config.sure
            self.belief.keep(
                lambda h: not contradicted(self.explainer.expected(h.state), observation, sure)
            )
        if self.parts:
            out = self._part_check(self.believed_table(), add=False)
            if out:
                return out
        if self.status == self.ILLEGAL:
            self.status = self.WATCHING
            return self._emit([TableRestored(self.state.to_move), self._lights_for(None)])
        return []

    def _verdict_accepted(self, verdict: Verdict) -> list[Output]:
        if (
            self.parts
            and not self.pending.judging_done
            and self._parts_on_the_way(verdict.moves[0])
        ):
            text = self.rules.format_move(verdict.moves[0])
            return self._emit([MoveInProgress(self.state.to_move, [text])])
        if (
            self.parts
            and not self._gap_question
            and self.parts.model.spread(verdict.moves[0])
            and self.parts.model.unseen_choice(self.state, verdict.moves * 2)
        ):
            # the only such move in the record's way, not in every way the parts keep
            kept = self._keep_unseen(Verdict(Kind.AMBIGUOUS, verdict.moves, scores=[0.0]))
            if kept is not None:
                return kept
        out = self._accept(verdict.moves[0], "table", verdict.corrected)
        if self.status == self.WATCHING:
            self._bigger_moves(self.history[-1][0], self.believed_table())
        return out

    def _verdict_ambiguous(self, verdict: Verdict) -> list[Output]:
        if not self._gap_question and verdict.scores:
            verdict = self._by_position(self.state, verdict)
            if len(verdict.moves) == 1:
                return self._verdict_accepted(Verdict(Kind.ACCEPTED, verdict.moves))
        if (
            not self._gap_question
            and verdict.scores
            and self.unseen is not None
            and self._unseen_choice(verdict.moves)
        ):
            return self._keep_open(verdict)
        if (
            not self._gap_question
            and verdict.scores
            and self.parts is not None
            and not self.belief
            and self.parts.model.unseen_choice(self.state, verdict.moves)
        ):
            kept = self._keep_unseen(verdict)
            if kept is not None:
                return kept
        if not self._gap_question and verdict.scores and not self.parts:
            kept = self._branch(verdict)
            if kept is not None:
                return kept
        self.status = self.QUESTION
        self.candidates = [self.rules.format_move(m) for m in verdict.moves]
        reason = "The table fits several moves: which one was played?"
        choices = [self._choice(self.state, text) for text in self.candidates]
        return self._emit([Question(self.state.to_move, self.candidates, reason, 0, choices)])

    @staticmethod
    def _by_position(state: GameState[Any], verdict: Verdict) -> Verdict:
        """``verdict``, an ambiguous table in ``state``, with one move per position the
        moves lead to: the likeliest (then the first in order). Moves that differ only
        in how the record writes them (a Shendao Brigand whose tile leaves the board
        through one closed gate or another) leave every later table and the scores
        alike, so no later verdict or result can depend on which it was: the referee
        never asks about them (a question would only write the record right)."""
        ranked = sorted(range(len(verdict.moves)), key=lambda i: (-verdict.scores[i], i))
        kept: list[int] = []
        positions: set[str] = set()
        for i in ranked:
            token = state.apply(verdict.moves[i])
            position = json.dumps(state.to_json(), sort_keys=True)  # as ``GameState ==``
            state.undo(token)
            if position not in positions:
                positions.add(position)
                kept.append(i)
        kept.sort()
        return Verdict(
            verdict.kind,
            [verdict.moves[i] for i in kept],
            scores=[verdict.scores[i] for i in kept],
        )

    def _verdict_in_progress(self, verdict: Verdict) -> list[Output]:
        if self.status == self.ILLEGAL:
            return []  # still waiting for the table to be put right
        candidates = [self.rules.format_move(m) for m in verdict.moves]
        return self._emit([MoveInProgress(self.state.to_move, candidates)])

    def _verdict_illegal(self, verdict: Verdict) -> list[Output]:
        if self.status == self.WATCHING:
            explained = self._explain_gap()
            if explained is not None:
                return explained
        if self.status == self.WATCHING and self.unseen:
            asked = self._ask_unseen()
            if asked is not None:
                return asked
        self.status = self.ILLEGAL
        flag = IllegalMove(
            self.state.to_move,
            verdict.attempt,
            verdict.rule,
            verdict.message,
            verdict.fix,
            verdict.fix_elements,
        )
        return self._emit([flag, self._lights_for(flag)])

    _verdict_handlers: ClassVar[dict[Kind, Callable[[Referee, Verdict], list[Output]]]] = {
        Kind.UNCHANGED: _verdict_unchanged,
        Kind.ACCEPTED: _verdict_accepted,
        Kind.AMBIGUOUS: _verdict_ambiguous,
        Kind.IN_PROGRESS: _verdict_in_progress,
        Kind.ILLEGAL: _verdict_illegal,
    }

    # ------------------------------------------------------------------ the belief

    def _branch(self, verdict: Verdict) -> list[Output] | None:
        """A table several moves fit (``verdict``): the likeliest is accepted, and the
        belief keeps the others, and every move that fits in each of its histories, as
        histories (``Belief``). When that would be more than ``MOST_HISTORIES``, the
        oldest doubt is asked about first (the table is judged again once answered),
        and so it is before a move that fits more than ``MOST_WAYS`` ways; with no
        doubt before, None: the move itself is asked about."""
        moves = [self.rules.format_move(m) for m in verdict.moves]
        record = [text for _, text in self.history]
        wide = len(moves) > MOST_WAYS
        if wide or (1 + len(self.belief.histories)) * len(moves) - 1 > MOST_HISTORIES:
            oldest = self.belief.oldest(record)
            if oldest is None:
                return None
            self.belief.again_done = self.pending.judging_done
            return self._ask(oldest, "Too many moves fit the tables seen so far.")
        ranked = sorted(
            zip(verdict.scores, range(len(moves)), verdict.moves, moves, strict=True),
            key=lambda t: (-t[0], t[1]),
        )
        best = ranked[0][0]
        branches = []
        for score, _, move, text in ranked[1:]:
            state = self.state.copy()
            state.play(move)
            branches.append(History([*record, text], state, score - best))
        observation, hidden = self.believed_table(), self._hidden()
        for history in self.belief.histories:
            found = self.explainer.explain(
                history.state, observation, hidden=hidden, turn_done=self.pending.judging_done
            )
            if found.kind not in (Kind.ACCEPTED, Kind.AMBIGUOUS):
                continue
            for move, score in zip(found.moves, found.scores or [best], strict=True):
                state = history.state.copy()
                state.play(move)
                branches.append(
                    History(
                        [*history.moves, self.rules.format_move(move)],
                        state,
                        history.weight + score - best,
                    )
                )
        branches.sort(key=lambda h: -h.weight)
        out = self._accept(ranked[0][2], "table", [], branches[:MOST_HISTORIES])
        if self.status == self.WATCHING:
            self._bigger_moves(self.history[-1][0], self.believed_table())
        return out

    def _by_belief(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """For a table the record cannot explain: the histories of the belief that can.
        One, or one likelier than the others by ``DECISIVE``, becomes the record (a
        correction, then the verdict on the table); several: the oldest move in which
        they differ is asked about. Only some history having the table on the way to a
        move: wait. None when no history explains it."""
        found: list[tuple[History, Verdict]] = []
        waiting = False
        for history in self.belief.histories:
            verdict = self.explainer.explain(
                history.state, observation, turn_done=turn_done, hidden=hidden
            )
            if verdict.kind in (Kind.UNCHANGED, Kind.ACCEPTED, Kind.AMBIGUOUS):
                found.append((history, verdict))
            waiting = waiting or (verdict.kind == Kind.IN_PROGRESS and not verdict.unexplained)
        if not found:
            return [] if waiting else None
        found.sort(key=lambda pair: -pair[0].weight)
        history, verdict = found[0]
        if len(found) > 1 and history.weight - found[1][0].weight < log(DECISIVE):
            moves = {tuple(h.moves) for h, _ in found}
            first = min(
                i for i in range(len(history.moves)) if len({m[i] for m in moves if i < len(m)}) > 1
            )
            self.belief.keep(lambda h: tuple(h.moves) in moves)
            self.belief.histories.sort(key=lambda h: -h.weight)
            record = self._switch(self.belief.histories[0])
            return record + self._ask(
                first,
                "The table now shows that an earlier move was "
                "not the one shown, and it fits more than one:",
            )
        if (
            verdict.kind == Kind.ACCEPTED
            and history.weight < -LIKELIER
            and self._forbids(verdict.moves[0])
        ):
            # the move seen is legal only in a history the readings made less likely
            # than the record: the move is illegal unless the readings were wrong, so
            # the players say which (a history as likely as the record, such as the
            # other of two cards leaving the same table, is settled by the move: the
            # card played again was not the one spent)
            played = [text for _, text in self.history]
            first = min(
                i for i, (a, b) in enumerate(zip(history.moves, played, strict=True)) if a != b
            )
            self.belief.again_done = turn_done
            return self._ask(
                first,
                "The move on the table is legal only if an earlier move was not the one shown:",
            )
        out = self._switch(history)
        return out + self._verdict_handlers[verdict.kind](self, verdict)

    def _forbids(self, move: Any) -> bool:
        """Whether the rules forbid ``move`` in the record's position (rather than the
        record's position leaving another table than the one seen)."""
        try:
            self.state.check(move)
        except IllegalMoveError:
            return True
        except EngineError:
            return False
        return False

    def _switch(self, history: History) -> list[Output]:
        """Make ``history`` the record: its moves replace the record's from the first
        that differs; the record becomes one of the belief's histories. A correction
        is announced for each move that changes."""
        old_history, old = self.history, [text for _, text in self.history]
        old_state, weight = self.state, history.weight
        first = next(i for i, (a, b) in enumerate(zip(history.moves, old, strict=True)) if a != b)
        state = self.history[first][0].copy()
        rebuilt = self.history[:first]
        for text in history.moves[first:]:
            rebuilt.append((state.copy(), text))
            state.play(self.rules.parse_move(text))
        self.history, self.state = rebuilt, state
        self.belief.histories = [
            History(h.moves, h.state, h.weight - weight)
            for h in self.belief.histories
            if h is not history
        ]
        self.belief.histories.append(History(old, old_state, -weight))
        self.last_move = LastMove()
        self.pending = Pending(
            confirm_frames=self.pending.confirm_frames, judging_done=self.pending.judging_done
        )
        self._last = None
        out: list[Output] = []
        for i, (was, now) in enumerate(zip(old, history.moves, strict=True)):
            if was != now:
                player = self.history[i][0].to_move
                words = self._correction_words(
                    i, (self.history[i][0], now), (old_history[i][0], was)
                )
                out.append(MoveCorrected(i + 1, player, was, now, words))
        before, after = self.explainer.expected(old_state), self.explainer.expected(state)
        out.append(
            Indicators(
                [Light(e, "amber", "pulse") for e in self.schema.elements if before[e] != after[e]]
            )
        )
        if self.status in (self.OVER, self.QUESTION):
            self.status = self.WATCHING
            if self.state.is_over():
                out += self._end()
        return out

    def _correction_words(
        self, index: int, now: tuple[GameState[Any], str], was: tuple[GameState[Any], str]
    ) -> str:
        """ "Move 12 was +H4, not +H7: it changed ... (+H7 would have changed ...)",
        with what each changed in words (each move with the position before it in its
        own history)."""
        describe = self.explainer.model.describe_element
        places = []
        for before, text in (now, was):
            start = self.explainer.expected(before)
            state = before.copy()
            state.play(self.rules.parse_move(text))
            table = self.explainer.expected(state)
            places.append(
                ", ".join(describe(e) for e in self.schema.elements if table[e] != start[e])
                or "nothing on the table"
            )
        return (
            f"Move {index + 1} was {now[1]}, not {was[1]}: it changed {places[0]}"
            f" ({was[1]} would have changed {places[1]})."
        )

    def _ask(self, index: int, reason: str) -> list[Output]:
        """Ask which move was move ``index`` (from 0) of the record: the record's or one
        of the belief's histories'."""
        record = [text for _, text in self.history]
        self.status = self.QUESTION
        self.belief.asked = index
        self.candidates = self.belief.choices(record, index)
        before = self.history[index][0]
        choices = [self._choice(before, text) for text in self.candidates]
        return self._emit(
            [
                Question(
                    before.to_move,
                    self.candidates,
                    f"{reason} Which was move {index + 1}?",
                    index + 1,
                    choices,
                )
            ]
        )

    def _choice(self, before: GameState[Any], text: str) -> Choice:
        """``text`` played from ``before`` as an answer to tap: its elements and words."""
        state = before.copy()
        move = self.rules.parse_move(text)
        state.play(move)
        start, table = self.explainer.expected(before), self.explainer.expected(state)
        elements = [e for e in self.schema.elements if table[e] != start[e]]
        describe = self.explainer.model.describe_element
        words = f"{text}: " + (", ".join(describe(e) for e in elements) or "no piece moved")
        card = str(getattr(move, "card", None) or "")
        return Choice(text, words, elements, card)

    def _answer_doubt(self, text: str) -> list[Output]:
        """The answer to a question on move ``belief.asked``: the histories with another
        move there go; the record becomes the likeliest history left, if it is not one."""
        index = self.belief.asked
        assert index is not None
        self.belief.asked = None
        if self.unseen is not None:
            self.unseen.open.pop(index, None)  # the players said
            if self.history[index][1] != text:
                self.unseen.asked_at = None  # the table may show another one now
        self.candidates = []
        self.status = self.WATCHING
        out: list[Output] = []
        if self.history[index][1] != text:
            chosen = max(
                (h for h in self.belief.histories if h.moves[index] == text), key=lambda h: h.weight
            )
            out += self._switch(chosen)
        self.belief.keep(lambda h: h.moves[index] == text)
        if self.state.is_over():
            return out + self._end()
        again, self.belief.again_done = self.belief.again_done, False
        self.pending.confirm_frames = 0  # the table has been still since the question
        return out + self._evaluate(turn_done=again)

    def _end(self) -> list[Output]:
        """The game is over in the record: the result, unless a history of the belief
        ends otherwise (not yet, or with other scores): then the oldest move in which
        those differ from the record is asked about first."""
        scores, winners = self.state.scores(), self.state.winners()
        record = [text for _, text in self.history]
        if self.parts and not self.parts.model.scores_seen:
            return self._ask_part(
                min(self.parts.open), "The result depends on a move the table could not show."
            )
        deciding = [
            h
            for h in self.belief.histories
            if not h.state.is_over() or h.state.scores() != scores or h.state.winners() != winners
        ]
        if deciding:
            first = min(
                i
                for h in deciding
                for i, (a, b) in enumerate(zip(h.moves, record, strict=False))
                if a != b
            )
            return self._ask(first, "The result depends on a move the table could not show.")
        self.status = self.OVER
        return [self._game_over()]

    def _weigh(self, after: Observation) -> Callable[[GameState[Any]], float | None]:
        """For ``Belief.follow`` after a move accepted from the table: None for a
        position whose table a sure reading contradicts, else how much likelier (log)
        the readings are in it than in the record (``after`` its table)."""
        observation, sure = self.believed_table(), self.config.sure
        weigher = self.explainer.weigher(observation)
        record = weigher.log_likelihood(after)

        def weigh(state: GameState[Any]) -> float | None:
            table = self.explainer.expected(state)
            if contradicted(table, observation, sure):
                return None
            return weigher.log_likelihood(table) - record

        return weigh

    def _explain_gap(self) -> list[Output] | None:
        """Before a table is called illegal: the moves made while nobody saw the table
        (a cable pulled, a paused camera, a hand over the board), when a sequence of
        legal moves explains it (``Explainer.explain_gap``). One sequence: each of its
        moves is accepted in turn. Several: the moves they all begin with are, and the
        players are asked which came next (the rest of the table is then explained
        again). None when no sequence explains the table."""
        gap = self.explainer.explain_gap(self.state, self.believed_table())
        if not gap.sequences:
            return None
        sure = len(gap.sequences) == 1 and gap.complete
        # unsure of the whole: the last move is asked about, at least
        made = gap.sequences[0] if sure else gap.common()[: len(gap.sequences[0]) - 1]
        out: list[Output] = []
        lights: list[Light] = []
        for i, move in enumerate(made):
            accepted = self._accept(
                move, "table", gap.corrected if i == len(made) - 1 and sure else []
            )
            lights += [light for o in accepted if isinstance(o, Indicators) for light in o.lights]
            out += [o for o in accepted if not isinstance(o, Indicators)]
        if made:
            out.append(Indicators(lights))
        if sure or self.status == self.OVER:
            return out
        self.status = self.QUESTION
        self._gap_question = True
        self.candidates = [self.rules.format_move(m) for m in gap.next_moves(len(made))]
        reason = (
            "Several moves were made while the table was not seen, and it fits "
            "more than one way of playing them: which move came next?"
        )
        return out + self._emit([Question(self.state.to_move, self.candidates, reason)])

    # ------------------------------------------------------------------ helpers

    def _emit(self, outputs: list[Output]) -> list[Output]:
        """Drop a verdict identical to the last one shown (the same table seen again)."""
        if outputs and outputs[0] == self._last:
            return []
        self._last = outputs[0] if outputs else self._last
        return outputs

    def _accept(
        self,
        move: Any,
        by: str,
        corrected: list[str],
        branches: list[History] | None = None,
        unseen: bool = False,
        shown: bool = True,
    ) -> list[Output]:
        """Play ``move`` in the record; ``branches``: the belief's histories after it,
        when the table fitted it several ways (``_branch``); ``unseen``: it is one of an
        unseen choice the parts keep (``_keep_unseen``); ``shown``: a move accepted from
        the table is shown by it now (one accepted again under the next player's move,
        ``_shown_whole``, is not: the table then weighs none of the belief's
        histories)."""
        text = self.rules.format_move(move)
        player = self.state.to_move
        before = self.explainer.expected(self.state)
        last = self.last_move
        if (
            self.history
            and last.made_seen
            and last.seen_move == (len(self.history) - 1, self.history[-1][1])
        ):
            last.before = (len(self.history) - 1, self.history[-1][1], list(last.made_seen))
        elif last.before is not None and last.before[0] != len(self.history) - 1:
            last.before = None  # (a move restated keeps the one before it)
        last.seen_move = None
        last.typed = by == "typed"
        last.on_done = len(self.history) if by == "table" and self.pending.judging_done else None
        self.history.append((self.state.copy(), text))
        self.last_move.typed_from = self.history[-1][0] if by == "typed" else None
        self.pending.done_frames = -1  # a done waiting is answered
        self.pending.held = None  # a flag held for the table before this move is moot
        self.state.play(move)
        self.status = self.WATCHING
        self.candidates = []
        self._last = None
        self.last_move.bigger = []
        self.last_move.made_seen = []
        after = self.explainer.expected(self.state)
        self.belief.asked = None
        if self.unseen is not None:
            self.unseen.hands = set()
        if branches is not None:
            self.belief.histories = branches
        elif self.belief:
            weigh = by == "table" and shown
            self.belief.follow(self.rules, move, self._weigh(after) if weigh else None)
        changed = [e for e in self.schema.elements if before[e] != after[e]]
        out: list[Output] = [
            MoveAccepted(len(self.history), player, text, by, corrected),
            Indicators([Light(e, "green") for e in changed]),
        ]
        if self.parts is not None:
            out += self._follow_parts(move, by, unseen)
        if self.state.is_over():
            out += self._end()
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
            summary = (
                f"{' and '.join(players[p].capitalize() for p in leaders)} tie on "
                f"{best}; {names} wins on the tie-break ({tiebreak})."
            )
        else:
            summary = f"{names} share the win with {best} (tie-break {tiebreak})."
        return GameOver(scores, tiebreak, winners, summary)

    def _table_check(self, message: str) -> list[Output]:
        """Compare the believed table with the engine's; report any sure difference."""
        observation = self.believed_table()
        expected = self.expected_table()
        fix, elements = self.explainer.fix_to(observation, expected)
        if not elements:
            return []
        return [BoardMismatch(message, fix, elements)]

    def _lights_for(self, flag: IllegalMove | None) -> Indicators:
        if flag is None:
            return Indicators([])
        return Indicators([Light(e, "red", "blink") for e in flag.elements])

    # ------------------------------------------------------------------ unseen moves

    def _hands(self, observation: Observation) -> None:
        """Note the parts a hand hides in this frame (every element of the part that
        can be read unknown): soft evidence of where an unseen move acted."""
        unseen = self.unseen
        model = self.explainer.model.hidden_parts()
        assert unseen is not None and model is not None
        if unseen.elements is None:  # a hand over a part hides what is read from above
            unseen.elements = {}
            for e in self.schema.elements:
                parts = model.parts_of(e)
                if len(parts) == 1 and not e.endswith("^"):
                    unseen.elements.setdefault(next(iter(parts)), []).append(e)
        for part, elements in unseen.elements.items():
            if all(not observation[e].known for e in elements):
                unseen.hands.add(part)

    def _changed_parts(self, observation: Observation) -> set[int]:
        """The parts where ``observation`` surely shows another table than the record's,
        and those joined to them by an element (a bridge): a journey's students
        arrive in one village from a neighbour before its bridge is lifted."""
        model = self.explainer.model.hidden_parts()
        assert model is not None
        expected = self.explainer.expected(self.state)
        changed = observation.differences(expected, min_confidence=self.config.sure)
        parts = {p for e in changed for p in model.parts_of(e)}
        joined = set(parts)
        for e in self.schema.elements:
            shared = model.parts_of(e)
            if len(shared) > 1 and shared & parts:
                joined |= shared
        return joined

    def _unseen_choice(self, moves: list[Any]) -> bool:
        """Whether ``moves`` fit the table alike only because it cannot show what they
        hide (each adds hidden items only)."""
        model = self.explainer.model.hidden_parts()
        return (
            model is not None
            and len(moves) > 1
            and all(model.spread(m) for m in moves)
            and model.unseen_choice(self.state, moves)
        )

    def _keep_open(self, verdict: Verdict) -> list[Output]:
        """A move the table cannot show, fitting ``verdict.moves``: the likeliest (the
        readings and the hands seen) is accepted and the others kept (``Unseen``)."""
        unseen, model = self.unseen, self.explainer.model.hidden_parts()
        assert unseen is not None and model is not None
        scores = list(verdict.scores or [0.0] * len(verdict.moves))
        fitting = [self.rules.format_move(m) for m in verdict.moves]
        # the moves legal in some way of the game: with the items the open moves put
        # taken away, any of them may be free
        put: dict[int, set[int]] = {}
        for k in unseen.open:
            for part, items in model.spread(self.rules.parse_move(self.history[k][1])).items():
                put.setdefault(part, set()).update(items)
        world = model.with_content(
            self.state, {p: model.content(self.state, p) - items for p, items in put.items()}
        )
        more = [
            m
            for m in world.legal_moves()
            if model.spread(m) and self.rules.format_move(m) not in fitting
        ]
        ranked = unseen.rank(model, [*verdict.moves, *more], scores + [min(scores)] * len(more))
        chosen = next(m for _, m in ranked if self.rules.format_move(m) in fitting)
        index = len(self.history)
        out = self._accept(chosen, "table", verdict.corrected)
        unseen.keep(index, [self.rules.format_move(m) for _, m in ranked], [w for w, _ in ranked])
        if self.status == self.WATCHING:
            self._bigger_moves(self.history[-1][0], self.believed_table())
        return out

    def _by_unseen(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """For a table the record cannot explain: the records with open moves replaced
        that can (``_by_unseen_here``), from the record's position or, when the last
        move was seen on the table, from before it: a journey's first student may
        arrive as a placement would, while the record saw no student to send."""
        here = self._by_unseen_here(observation, turn_done, hidden)
        last = self.last_move
        unseen = self.unseen
        assert unseen is not None
        if (
            here
            or not self.history
            or not last.made_seen
            or last.typed
            or len(self.history) - 1 in unseen.open
        ):
            return here
        saved = (self.history, self.state, self.last_move, self._last)
        earlier, text = self.history[-1]
        self.history, self.state = self.history[:-1], earlier.copy()
        self.last_move, self._last = LastMove(), None
        out = self._by_unseen_here(observation, turn_done, hidden)
        if not out:
            self.history, self.state, self.last_move, self._last = saved
            return here if out is None else out
        return [MoveTakenBack(len(saved[0]), text), *out]

    def _by_unseen_here(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """For a table the record cannot explain: the records with open moves replaced
        so that a village holds what the table needs (``_by_contents``). The
        likeliest becomes the record (a correction); several as likely that the table
        would judge differently: the players say which. None when none explains the
        table; nothing while one shows it on the way."""
        unseen, model = self.unseen, self.explainer.model.hidden_parts()
        assert unseen is not None and model is not None
        parts = self._changed_parts(observation)
        if not parts:
            return None
        found: list[tuple[float, History, Verdict]] = []
        waiting = False
        for moves, state, weight in self._by_contents(observation, turn_done, hidden):
            verdict = self.explainer.explain(state, observation, turn_done=turn_done, hidden=hidden)
            if verdict.kind in (Kind.UNCHANGED, Kind.ACCEPTED, Kind.AMBIGUOUS):
                found.append((weight, History(moves, state.copy(), weight), verdict))
            waiting = waiting or (
                verdict.kind == Kind.IN_PROGRESS and not verdict.unexplained and not turn_done
            )
        if not found:
            return [] if waiting else None
        found.sort(key=lambda t: -t[0])
        best = found[0][0]
        tied = [
            (History(h.moves, h.state, w - best), v)
            for w, h, v in found
            if best - w < log(DECISIVE)
        ]
        verdicts = {(v.kind, tuple(self.rules.format_move(m) for m in v.moves)) for _, v in tied}
        chosen = [h for h, _ in tied] if len(verdicts) > 1 else [tied[0][0]]
        record = [text for _, text in self.history]
        saved = self.belief.histories
        self.belief.histories = chosen
        out = self._by_belief(observation, turn_done, hidden)
        if out is None:
            self.belief.histories = saved
            return None
        for h in chosen:
            for i, (was, now) in enumerate(zip(record, h.moves, strict=True)):
                if was != now:
                    unseen.replace(i, was)
        if self.status != self.QUESTION:
            self.belief.histories = []
        return out

    def _by_contents(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[tuple[list[str], Any, float]]:
        """For a table the record cannot explain: records with open moves replaced so
        that a village where the table changed, or one joined to it by a bridge, holds
        what the table needs: a journey's outcome, made or on its way, a stack's height
        (``Unseen.contents``). Worked out once per table."""
        unseen, model = self.unseen, self.explainer.model.hidden_parts()
        assert unseen is not None and model is not None
        expected = self.explainer.expected(self.state)
        sure = self.config.sure
        changed = observation.differences(expected, min_confidence=sure)
        key = (len(self.history), turn_done, tuple((e, observation.value(e)) for e in changed))
        if unseen.searched is not None and unseen.searched[0] == key:
            return unseen.searched[1]
        bridges = self._changed_parts(observation)
        found: list[tuple[list[str], Any, float]] = []
        tried = [0]

        direct = {p for e in changed for p in model.parts_of(e)}
        transient = self.explainer.model.transient

        def agrees(table: Observation, before: Observation | None, elements: list[str]) -> bool:
            # every sure reading as ``table`` shows it, or (on the way) as ``before``
            for e in elements:
                reading = observation[e]
                value = reading.value
                if value is None or reading.confidence < sure:
                    continue
                for other in (table, before):
                    if other is not None:
                        want = other.value(e)
                        if value == want and type(value) is type(want):
                            break
                else:
                    if before is None or value not in transient(e):
                        return False
            return True

        def fits(world: Any) -> bool:
            # the table as the world shows it (a stack's height), or a journey's
            # outcome, made or on its way, with the part holding its content: first
            # what the table changed, then the explainer on the moves left
            tried[0] += 1
            if tried[0] > MOST_FITS:
                return False
            table = self.explainer.expected(world)
            moves = [None] if agrees(table, None, changed) else []
            for move in model.leaving(world, part):
                read = model.read_by(world, move) or frozenset()
                if not read & direct or not _legal(world, move):
                    continue
                after = world.copy()
                after.play(move)
                if agrees(self.explainer.expected(after), None if turn_done else table, changed):
                    moves.append(move)
            if not moves:
                return False
            verdict = self.explainer.explain(
                world,
                observation,
                turn_done=turn_done,
                moves=[m for m in moves if m is not None],
                hidden=hidden,
            )
            return verdict.kind in (Kind.UNCHANGED, Kind.ACCEPTED, Kind.AMBIGUOUS) or (
                verdict.kind == Kind.IN_PROGRESS and not verdict.unexplained and not turn_done
            )

        lifted = {p for e in changed if len(model.parts_of(e)) > 1 for p in model.parts_of(e)}
        # the villages of a bridge lifted first, then the smaller
        for part in sorted(
            bridges, key=lambda p: (p not in lifted, len(model.items(self.state, p)))
        ):
            found += unseen.contents(self.rules, model, self.history, self.state, part, fits)
        unseen.searched = (key, found)
        return found

    def _ask_unseen(self) -> list[Output] | None:
        """Before flagging a table the record cannot explain, nor the record with any
        one open move replaced: when open moves could have put something else where
        the table changed, more than one of them was not the one written, and the
        players say which the newest of those was; the table is judged again once
        answered, and asked about again while answers change the record. None: flag."""
        unseen, model = self.unseen, self.explainer.model.hidden_parts()
        assert unseen is not None and model is not None
        if unseen.asked_at == len(self.history):
            return None
        parts = self._changed_parts(self.believed_table())
        each = unseen.alternatives(self.rules, model, self.history, self.state, parts)
        if not each:
            return None
        index = max(each)
        unseen.asked_at = len(self.history)
        self.belief.histories = [History(m, s.copy(), w) for m, s, w in each[index]]
        self.belief.again_done = self.pending.judging_done
        return self._ask(index, "The table shows that an earlier move was not the one shown:")

    def unsure(self) -> dict[int, str]:
        """The record's moves the table could not show and no later table settled, by
        move number, in words ("a student onto a master in village 4 or village 7; not
        seen")."""
        model = self.explainer.model.hidden_parts()
        if self.unseen is None or model is None:
            return {}
        return {
            k + 1: unsure_words(model, [t for t, _ in v], self.rules.parse_move)
            for k, v in sorted(self.unseen.open.items())
        }

    # ------------------------------------------------------------------ the parts

    def _truncate_beliefs(self) -> None:
        """The record was cut (a move taken back or replaced): both beliefs follow."""
        self.belief.truncate(self.history, self.rules)
        if self.unseen is not None:
            self.unseen.truncate(len(self.history))
        if self.parts is not None:
            self.parts.truncate(len(self.history))

    def _keep_unseen(self, verdict: Verdict) -> list[Output] | None:
        """A table an unseen choice fits (a recruit seen from above): the likeliest
        move is accepted and the parts keep the others (``Parts.branch``). When they
        would overflow, the oldest unseen move in doubt is asked about first (the
        table is judged again once answered); with none, None: the move is asked."""
        parts = self.parts
        assert parts is not None
        if parts.wide(self.state, self.state.to_move):
            if not parts.open:
                return None
            self.belief.again_done = self.pending.judging_done
            return self._ask_part(min(parts.open), "Too many moves fit the tables seen so far.")
        ranked = sorted(
            zip(verdict.scores, range(len(verdict.moves)), verdict.moves, strict=True),
            key=lambda t: (-t[0], t[1]),
        )
        out = self._accept(ranked[0][2], "table", [], unseen=True)
        if self.status == self.WATCHING:
            self._bigger_moves(self.history[-1][0], self.believed_table())
        return out

    def _follow_parts(self, move: Any, by: str, unseen: bool) -> list[Output]:
        """After ``move`` entered the record: the parts branch on it (``unseen``) or
        play it in every entry; the ways the table no longer allows go; unseen moves
        settled are corrected in the record where it said otherwise."""
        parts = self.parts
        assert parts is not None
        index = len(self.history) - 1
        before = self.history[-1][0]
        observation = self.believed_table() if by == "table" else None
        changed = unseen
        if unseen:
            parts.branch(
                index,
                before,
                self.state,
                self._part_weigh(observation, True) if observation is not None else None,
            )
        elif parts:
            changed = parts.follow(before, move, self._world_check(observation), self.state)
        out: list[Output] = []
        if parts:
            if observation is not None and not unseen:
                changed = parts.weigh_all(self._part_weigh(observation, True)) or changed
            if changed or parts.model.limits(
                self.state, {p for f in parts.factors for p in f.parts}
            ):
                out = self._settle_parts()
        parts.save(len(self.history))
        return out

    def _record_put(self) -> list[Entry | None]:
        parts = self.parts
        assert parts is not None
        put = parts.record_put([t for _, t in self.history], self.rules.parse_move)
        return parts.record_entries(self.state, put)

    def _settle_parts(self) -> list[Output]:
        """Keep the ways of the whole game; settle what every way agrees on; if the
        record is no longer a way, the likeliest way becomes the record."""
        parts = self.parts
        assert parts is not None
        parts.at(self.state)
        parts.prune(self._record_put())
        out: list[Output] = []
        if any(e is None for e in self._record_put()):
            ways = parts.best()
            if ways is not None:
                out += self._switch_parts(parts.moves_of(ways)) or []
        for index, items in parts.settled().items():
            text = self.rules.format_move(parts.model.unseen_move(items))
            if self.history[index][1] != text:
                out += self._switch_parts({index: items}) or []
        return out

    def _part_weigh(
        self, observation: Observation | None, add: bool
    ) -> Callable[[Factor, Entry], float | None]:
        """For an entry: None if a sure reading of ``observation`` shows its parts
        otherwise; else (``add``) how much likelier (log) the unsure readings are with
        it than with the record's content."""
        parts = self.parts
        assert parts is not None
        model, state, sure = parts.model, self.state, self.config.sure
        schema = self.schema
        read = (
            set()
            if observation is None
            else {
                e
                for e in observation
                if observation[e].value is not None or observation[e].evidence
            }
        )
        parts_read = {p for e in read for p in model.parts_of(e)}

        def weigh(factor: Factor, entry: Entry) -> float | None:
            if observation is None:
                return 0.0
            total = 0.0
            for part, content in zip(factor.parts, entry.content, strict=True):
                if part not in parts_read:
                    continue
                shown = model.shows(state, part, content)
                if read.isdisjoint(shown):
                    continue
                if refused(shown, observation, sure):
                    return None
                if not add:
                    continue
                record = model.shows(state, part, model.content(state, part))
                for e, value in shown.items():
                    reading = observation[e]
                    if reading.evidence and reading.confidence < sure and value != record.get(e):
                        count = len(schema.values[e])
                        total += log(reading.chance(value, count)) - log(
                            reading.chance(record[e], count)
                        )
            return total

        return weigh

    def _world_check(
        self, observation: Observation | None
    ) -> Callable[[Factor, GameState[Any]], float | None] | None:
        """For ``Parts.follow``: None for a world whose parts a sure reading
        contradicts, else how much likelier (log) its unsure readings are than the
        record's."""
        if observation is None:
            return None
        sure, record = self.config.sure, self.explainer.expected(self.state)
        elements = self.parts.elements if self.parts is not None else {}

        def check(factor: Factor, world: GameState[Any]) -> float | None:
            table = self.explainer.expected(world)
            total = 0.0
            for part in factor.parts:
                for e in elements.get(part, ()):
                    reading, value = observation[e], table.value(e)
                    if reading.value is None and not reading.evidence:
                        continue
                    if reading.confidence >= sure:
                        if reading.value != value or type(reading.value) is not type(value):
                            return None
                    elif value is not None and value != record.value(e):
                        was = record.value(e)
                        count = len(self.schema.values[e])
                        total += log(reading.chance(value, count)) - (
                            0.0 if was is None else log(reading.chance(was, count))
                        )
            return total

        return check

    def _part_check(self, observation: Observation, add: bool) -> list[Output]:
        """A table seen: the entries its sure readings contradict go."""
        parts = self.parts
        assert parts is not None
        if not parts.weigh_all(self._part_weigh(observation, add)):
            return []
        out = self._settle_parts()
        parts.save(len(self.history))
        return out

    def _by_parts(
        self,
        observation: Observation,
        turn_done: bool,
        hidden: frozenset[str],
        again: bool = True,
    ) -> list[Output] | None:
        """For a table the record cannot explain: the ways of the parts it concerns
        (its sure changes) that explain it. The likeliest becomes the record (each
        unseen move that changes is corrected), then the table is judged on it. Only a
        way with the table on the way to a move: wait. None when no way explains it."""
        parts = self.parts
        assert parts is not None
        model = parts.model
        expected, sure = self.expected_table(), self.config.sure
        touched = {
            p
            for e in observation.differences(expected, min_confidence=sure)
            for p in model.parts_of(e)
        }
        indexes = [i for i, f in enumerate(parts.factors) if touched & set(f.parts)]
        if not indexes:
            return self._by_parts_before_last(observation, turn_done, hidden) if again else None
        parts.at(self.state)
        record = self._record_put()
        found: list[tuple[float, list[Entry]]] = []
        waiting = False
        # the world depends on the contents only: each is judged once, and the
        # likeliest way through any of its entries is taken
        by_content: list[dict[tuple[frozenset[int], ...], list[Entry]]] = []
        for i in indexes:
            grouped: dict[tuple[frozenset[int], ...], list[Entry]] = {}
            for e in parts.factors[i].entries:
                grouped.setdefault(e.content, []).append(e)
            by_content.append(grouped)
        mine = [self._record_contents(i) for i in indexes]
        for tried, combo in enumerate(product(*by_content)):
            if tried >= MOST_TRIED:
                break
            if list(combo) == mine:
                continue  # the record's own world
            among = {
                i: by_content[j][c] for j, (i, c) in enumerate(zip(indexes, combo, strict=True))
            }
            contents = {
                p: c
                for i, content in zip(indexes, combo, strict=True)
                for p, c in zip(parts.factors[i].parts, content, strict=True)
            }
            world = model.with_content(self.state, contents)
            verdict = self.explainer.explain(world, observation, turn_done=turn_done, hidden=hidden)
            if verdict.kind == Kind.IN_PROGRESS and not verdict.unexplained and not waiting:
                waiting = parts.best(prefer=record, among=among) is not None
            if verdict.kind not in (Kind.UNCHANGED, Kind.ACCEPTED, Kind.AMBIGUOUS):
                continue
            ways = parts.best(prefer=record, among=among)
            if ways is not None:
                found.append((sum(e.weight for e in ways), ways))
        if waiting and not turn_done and (again or not found):
            return []  # on the way to a move in another way: wait (or for done)
        if not found:
            return self._by_parts_before_last(observation, turn_done, hidden) if again else None
        found.sort(key=lambda pair: -pair[0])
        for _, ways in found:
            switched = self._switch_parts(parts.moves_of(ways))
            if switched is not None:
                break
        else:
            return None
        out = switched
        verdict = self.explainer.explain(
            self.state, observation, turn_done=turn_done, hidden=hidden
        )
        return out + self._verdict_handlers[verdict.kind](self, verdict)

    def _record_contents(self, index: int) -> tuple[frozenset[int], ...]:
        """What the parts of factor ``index`` hide in the record."""
        parts = self.parts
        assert parts is not None
        return tuple(parts.model.content(self.state, p) for p in parts.factors[index].parts)

    def _joins_parts(self, observation: Observation) -> bool:
        """Whether the table surely shows a change of an element of two parts (a
        Shangri-La bridge taken away: a journey begun or ended), one of them a part the
        last move changed (the placement a journey's first student was taken for)."""
        parts = self.parts
        assert parts is not None
        if not self.history:
            return False
        model = parts.model
        joined = {
            p
            for e in observation.differences(self.expected_table(), min_confidence=self.config.sure)
            if len(model.parts_of(e)) > 1
            for p in model.parts_of(e)
        }
        if not joined:
            return False
        before = self.explainer.expected(self.history[-1][0])
        after = self.expected_table()
        return any(
            not joined.isdisjoint(model.parts_of(e))
            for e in self.schema.elements
            if before[e] != after[e]
        )

    def _by_parts_before_last(
        self, observation: Observation, turn_done: bool, hidden: frozenset[str]
    ) -> list[Output] | None:
        """For a table no way explains after the last move: the last move taken back,
        a way of the parts before it that explains the table by another move (a
        journey whose first student, arriving on an empty space, was taken for a
        placement in the record's way, where the origin had no student). None when
        there is none (all as it was)."""
        parts = self.parts
        assert parts is not None
        if self.status != self.WATCHING or not self.history or not parts.open:
            return None
        length = len(self.history)
        if length - 1 not in parts.saved or self.last_move.typed:
            return None
        kept = (
            list(self.history),
            self.state,
            [Factor(f.parts, list(f.entries)) for f in parts.factors],
            dict(parts.open),
            dict(parts.saved),
            self.last_move,
            self._last,
        )
        earlier, text = self.history.pop()
        self.state = earlier
        self._truncate_beliefs()
        self.last_move = LastMove()
        # a student first and the bridge after: the journey is whole, no more to come
        judging_done, self.pending.judging_done = self.pending.judging_done, True
        out = self._by_parts(observation, turn_done, hidden, again=False) if parts else None
        self.pending.judging_done = judging_done
        if out is not None and any(isinstance(o, (MoveAccepted, MoveInProgress)) for o in out):
            return [MoveTakenBack(length, text), *out]
        (
            self.history,
            self.state,
            parts.factors,
            parts.open,
            parts.saved,
            self.last_move,
            self._last,
        ) = kept
        return None

    def _parts_on_the_way(self, move: Any) -> bool:
        """Whether in another way of the parts the table is still on its way to ``move``
        (a journey seen from above: a student lifted off its master shows nothing, so
        a way with more students to come fits the table half-way as well as one that
        has them all). Then the move waits for the rest, or for done."""
        parts = self.parts
        assert parts is not None
        model = parts.model
        read = model.read_by(self.state, move)
        if not read:
            return False
        factors = [f for f in parts.factors if read & set(f.parts)]
        if not factors:
            return False
        observation, sure = self.believed_table(), self.config.sure
        elements = [e for p in read for e in parts.elements.get(p, ())]
        for tried, combo in enumerate(product(*({e.content for e in f.entries} for f in factors))):
            if tried >= MOST_TRIED:
                break
            contents = {
                p: c
                for f, content in zip(factors, combo, strict=True)
                for p, c in zip(f.parts, content, strict=True)
            }
            world = model.with_content(self.state, contents)
            if world == self.state:
                continue
            after = world.copy()
            try:
                after.play(move)
            except EngineError:
                continue
            table = self.explainer.expected(after)
            if any(
                observation[e].value is not None
                and observation[e].confidence >= sure
                and observation[e].value != table.value(e)
                for e in elements
            ) and self.explainer.between(observation, world, after):
                return True
        return False

    def _switch_parts(self, items: dict[int, frozenset[int]]) -> list[Output] | None:
        """The unseen moves of the record at these indexes put these items instead: the
        record is played again from the first that changes, each change announced.
        None when a move of the record is illegal that way (the record stays)."""
        parts = self.parts
        assert parts is not None
        texts = {k: self.rules.format_move(parts.model.unseen_move(v)) for k, v in items.items()}
        texts = {k: t for k, t in texts.items() if self.history[k][1] != t}
        if not texts:
            return []
        old_history, old_state = self.history, self.state
        first = min(texts)
        state = self.history[first][0].copy()
        rebuilt = self.history[:first]
        try:
            for i in range(first, len(old_history)):
                text = texts.get(i, old_history[i][1])
                rebuilt.append((state.copy(), text))
                state.play(self.rules.parse_move(text))
        except EngineError:
            return None  # a way the parts could not tell was none: the record stays
        self.history, self.state = rebuilt, state
        self.last_move = LastMove()
        self._last = None
        out: list[Output] = []
        for i in sorted(texts):
            player = self.history[i][0].to_move
            words = self._correction_words(
                i, (self.history[i][0], texts[i]), (old_history[i][0], old_history[i][1])
            )
            out.append(MoveCorrected(i + 1, player, old_history[i][1], texts[i], words))
        before, after = self.explainer.expected(old_state), self.explainer.expected(state)
        out.append(
            Indicators(
                [Light(e, "amber", "pulse") for e in self.schema.elements if before[e] != after[e]]
            )
        )
        if self.status in (self.OVER, self.QUESTION) and parts.asked is None:
            self.status = self.WATCHING
            if self.state.is_over():
                out += self._end()
        return out

    def _ask_part(self, index: int, reason: str) -> list[Output]:
        """Ask which move was the unseen move ``index`` (from 0) of the record."""
        parts = self.parts
        assert parts is not None
        self.status = self.QUESTION
        parts.asked = index
        record = self.history[index][1]
        parts.at(self.state)
        texts = [
            self.rules.format_move(parts.model.unseen_move(items)) for items in parts.choices(index)
        ]
        self.candidates = [record] + [t for t in texts if t != record]
        before = self.history[index][0]
        choices = [self._part_choice(before, text) for text in self.candidates]
        return self._emit(
            [
                Question(
                    before.to_move,
                    self.candidates,
                    f"{reason} Which was move {index + 1}?",
                    index + 1,
                    choices,
                )
            ]
        )

    def _part_choice(self, before: GameState[Any], text: str) -> Choice:
        """An unseen move as an answer to tap: the elements that would show its items,
        and their words (it may be legal only in another way of the game than the
        record's, so it is not played)."""
        parts = self.parts
        assert parts is not None
        model = parts.model
        elements: list[str] = []
        for part, items in sorted(model.spread(self.rules.parse_move(text)).items()):
            empty = model.shows(before, part, frozenset())
            full = model.shows(before, part, items)
            elements += [e for e in self.schema.elements if e in full and full[e] != empty.get(e)]
        describe = self.explainer.model.describe_element
        words = f"{text}: " + (", ".join(describe(e) for e in elements) or "no piece moved")
        return Choice(text, words, elements, "")

    def _answer_part(self, text: str) -> list[Output]:
        """The answer to a question on the unseen move ``parts.asked``: the ways with
        other items there go; the record follows the likeliest way left."""
        parts = self.parts
        assert parts is not None
        index = parts.asked
        assert index is not None
        parts.asked = None
        self.candidates = []
        self.status = self.WATCHING
        items = frozenset(
            i for v in parts.model.spread(self.rules.parse_move(text)).values() for i in v
        )
        parts.answer(index, items)
        parts.at(self.state)
        record = self._record_put()
        parts.prune(record)
        ways = parts.best(prefer=record)
        out = (self._switch_parts(parts.moves_of(ways)) or []) if ways is not None else []
        out += self._settle_parts()
        parts.save(len(self.history))
        if self.state.is_over():
            return out + self._end()
        again, self.belief.again_done = self.belief.again_done, False
        self.pending.confirm_frames = 0  # the table has been still since the question
        return out + self._evaluate(turn_done=again)


def _output_from_json(data: dict[str, Any]) -> Output:
    """An output from its ``to_json`` form. Raises ``KeyError`` / ``TypeError``."""
    fields = {k: v for k, v in data.items() if k != "event"}
    cls = OUTPUTS[data["event"]]
    if cls is Indicators:
        return Indicators([Light(**light) for light in fields["lights"]])
    if cls is Question:
        fields["choices"] = [Choice(**choice) for choice in fields.get("choices", [])]
    return cls(**fields)
