"""The referee's typed events: inputs (what happens at the table) and outputs (verdicts
and commands for indicator hardware). Each has a JSON form for the journal."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

from engines.observation import Observation, TableSchema, Value

# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Seen:
    """A reading of the table from one source (``camera``, ``sensors``, ``typed``)."""

    observation: Observation
    source: str = "camera"


@dataclass(frozen=True)
class TurnDone:
    """The player says their move is complete (needed for moves nobody can see, such as
    a recruit under a camera straight above)."""


@dataclass(frozen=True)
class Answer:
    """The answer to a question: the move, in notation."""

    move: str


@dataclass(frozen=True)
class TypedMove:
    """A person types the move that was played (manual correction or override)."""

    move: str


@dataclass(frozen=True)
class Takeback:
    """Take back the last move; the referee then expects the earlier table."""


Input = Seen | TurnDone | Answer | TypedMove | Takeback


def input_to_json(event: Input) -> dict[str, Any]:
    match event:
        case Seen(observation, source):
            return {"seen": observation.to_json()["readings"], "source": source}
        case TurnDone():
            return {"turn_done": True}
        case Answer(move):
            return {"answer": move}
        case TypedMove(move):
            return {"typed": move}
        case Takeback():
            return {"takeback": True}
    raise TypeError(f"not a referee input: {event!r}")


def input_from_json(schema: TableSchema, data: Any) -> Input:
    """Read ``input_to_json``'s form. Raises ``RecordError`` / ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError("a referee input must be a JSON object")
    if "seen" in data:
        observation = Observation.from_json(schema, {"game": schema.game, "readings": data["seen"]})
        return Seen(observation, str(data.get("source", "camera")))
    if data.get("turn_done") is True:
        return TurnDone()
    if isinstance(data.get("answer"), str):
        return Answer(data["answer"])
    if isinstance(data.get("typed"), str):
        return TypedMove(data["typed"])
    if data.get("takeback") is True:
        return Takeback()
    raise ValueError(f"unknown referee input {data!r}")


# ----------------------------------------------------------------------------- outputs


@dataclass(frozen=True)
class Output:
    name: ClassVar[str] = "output"

    def to_json(self) -> dict[str, Any]:
        return {"event": self.name, **asdict(self)}


@dataclass(frozen=True)
class MoveAccepted(Output):
    name: ClassVar[str] = "move_accepted"
    number: int
    player: int
    move: str
    by: str  # table | answer | typed
    corrected: list[str] = field(default_factory=list)
    """Unsure readings the move overruled."""


@dataclass(frozen=True)
class MoveInProgress(Output):
    name: ClassVar[str] = "move_in_progress"
    player: int
    candidates: list[str]


@dataclass(frozen=True)
class IllegalMove(Output):
    name: ClassVar[str] = "illegal_move"
    player: int
    attempt: str
    rule: str
    message: str
    fix: list[str]
    elements: dict[str, Value]


@dataclass(frozen=True)
class TableRestored(Output):
    name: ClassVar[str] = "table_restored"
    player: int


@dataclass(frozen=True)
class Choice:
    """One answer a question offers, for an app to show on the board and let the
    players tap: the move, in notation and in words, and the table elements it puts
    pieces on (a village's space, a stack; empty for a move that shows nothing, such
    as a Shendao card), with ``card`` the card it plays, if any."""

    move: str
    words: str
    elements: list[str] = field(default_factory=list)
    card: str = ""


@dataclass(frozen=True)
class Question(Output):
    """The referee asks which of ``candidates`` was played: by the player to move
    (``about`` 0), or as move number ``about`` of the game, which other moves made
    since left in doubt (the table could not tell, and now the game needs to know).
    ``choices`` are the candidates in words, with the elements to tap."""

    name: ClassVar[str] = "question"
    player: int
    candidates: list[str]
    reason: str
    about: int = 0
    choices: list[Choice] = field(default_factory=list)


@dataclass(frozen=True)
class BoardMismatch(Output):
    name: ClassVar[str] = "board_mismatch"
    message: str
    fix: list[str]
    elements: dict[str, Value]


@dataclass(frozen=True)
class MoveTakenBack(Output):
    name: ClassVar[str] = "move_taken_back"
    number: int
    move: str


@dataclass(frozen=True)
class MoveCorrected(Output):
    """Move ``number``, shown as accepted, was ``now``, not ``was``: a later table
    showed it (a journey's outcome, a card played again, a stack seen from the side)
    or a player said so. The record, the scores and the lights follow ``now``;
    ``words`` says it for players."""

    name: ClassVar[str] = "move_corrected"
    number: int
    player: int
    was: str
    now: str
    words: str


@dataclass(frozen=True)
class InputRejected(Output):
    name: ClassVar[str] = "input_rejected"
    input: str
    reason: str


@dataclass(frozen=True)
class GameOver(Output):
    name: ClassVar[str] = "game_over"
    scores: list[int]
    tiebreak: Any
    winners: list[int]
    summary: str


@dataclass(frozen=True)
class Light:
    """Light one table element: ``colour`` (green, red, amber, blue, off) and
    ``pattern`` (steady, blink, pulse)."""

    element: str
    colour: str
    pattern: str = "steady"


@dataclass(frozen=True)
class Indicators(Output):
    """The whole set of lights to show now (elements not listed are off)."""

    name: ClassVar[str] = "indicators"
    lights: list[Light]


OUTPUTS: dict[str, type[Output]] = {
    cls.name: cls
    for cls in (
        MoveAccepted,
        MoveInProgress,
        IllegalMove,
        TableRestored,
        Question,
        BoardMismatch,
        MoveTakenBack,
        MoveCorrected,
        InputRejected,
        GameOver,
        Indicators,
    )
}


def output_fields(cls: type[Output]) -> list[str]:
    return [f.name for f in fields(cls)]
