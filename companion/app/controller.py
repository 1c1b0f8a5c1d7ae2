"""The presenter between the Play screen and the referee: it feeds the referee, keeps
what the screen shows (the move log, the banner, the question, the highlights) and
hands the screen an immutable ``PlayView`` to draw. No Kivy here, and no drawing.

Thread safety: the referee is fed from a worker thread (``session``); every public
method takes the controller's lock, and views are immutable snapshots, so the UI thread
can draw one while the next verdict is being worked out.

Texts are made when a view is made, from the outputs kept, so switching the language
redraws everything in the new one.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.app.gamesetup import GameSetup, Seat
from companion.app.i18n import Translator
from companion.app.wording import move_words, player_name, tiebreak_words, verdict_words
from companion.referee import messages
from companion.referee.core import Referee, RefereeConfig
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
    MoveCorrected,
    MoveTakenBack,
    Output,
    Question,
    Seen,
    TableRestored,
    Takeback,
    TurnDone,
    TypedMove,
)
from companion.referee.journal import Journal, JournaledReferee
from engines import GameRecord, GameState
from engines.jsontext import JSONTextError, read_json_file
from engines.observation import Observation

SEATS_SUFFIX = ".seats.json"
"""Beside each journal: the players' names and engine seats (the journal holds only
what the referee needs)."""


@dataclass(frozen=True)
class LogEntry:
    number: int
    player: int
    notation: str
    by: str


@dataclass(frozen=True)
class Banner:
    """A large message: ``kind`` is ``illegal`` (red), ``mismatch`` (amber) or ``over``
    (green)."""

    kind: str
    title: str
    body: str
    steps: tuple[str, ...] = ()
    rule: str = ""


@dataclass(frozen=True)
class Choice:
    move: str
    words: str
    elements: tuple[str, ...] = ()
    """The table elements the move changes, as the referee gives them (to tap)."""
    card: str = ""
    """The card the move plays, if any."""


@dataclass(frozen=True)
class QuestionView:
    player: int
    prompt: str
    choices: tuple[Choice, ...]
    about: int = 0
    """The move number asked about (0: the move being made)."""


@dataclass(frozen=True)
class PlayView:
    """Everything the Play screen shows, at one moment."""

    game: str
    players: tuple[str, ...]
    """The names shown, per seat."""
    colours: tuple[str, ...]
    to_move: int
    turn: str
    log: tuple[tuple[str, str], ...]
    """(notation line, words line) per move, oldest first."""
    banner: Banner | None
    question: QuestionView | None
    status: str
    table: Observation
    """What the digital board draws: the table the game expects, or, while pieces
    must be put back, the table as seen."""
    highlight: frozenset[str]
    """Elements to put back (illegal move, mismatch)."""
    suggest: frozenset[str]
    suggestion: str
    over: bool
    paused: bool
    engine_turn: bool
    verdict_time: float = 0.0
    """``time.perf_counter()`` when the banner's verdict was reached (0: no banner)."""
    expected: Observation | None = None
    """While pieces must be put back: the table the game expects (what goes back in
    the ``highlight`` places)."""


@dataclass
class _Shown:
    """What the screen shows, as kept outputs (texts are made per view)."""

    log: list[LogEntry] = field(default_factory=list)
    banner: Output | None = None
    question: Question | None = None
    status: Output | None = None
    over: GameOver | None = None
    lights: list[Light] = field(default_factory=list)
    suggestion: tuple[str, str, frozenset[str]] | None = None
    """(kind: hint | engine, move, elements it changes)."""
    verdict_time: float = 0.0


class PlayController:
    """One game being refereed (see the module's docstring)."""

    def __init__(
        self,
        referee: Referee,
        seats: Sequence[Seat],
        translator: Translator,
        journal: Journal | None = None,
    ) -> None:
        self.referee = referee
        self.runner: Referee | JournaledReferee = (
            JournaledReferee(referee, journal) if journal is not None else referee
        )
        self.journal = journal
        self.seats = tuple(seats)
        self.tr = translator
        self.paused = False
        self.moves_changed: Callable[[GameRecord], None] | None = None
        """Called with the game so far when a move is accepted, taken back or
        corrected (the live strength report follows the game through it)."""
        self._lock = threading.RLock()
        self._shown = _Shown()
        for number, (_, move) in enumerate(referee.history, start=1):
            player = _mover(referee, number - 1)
            self._shown.log.append(LogEntry(number, player, move, "journal"))
        if referee.state.is_over():
            state = referee.state
            self._shown.over = GameOver(state.scores(), state.tiebreak(), state.winners(), "")

    # ------------------------------------------------------------------ building

    @classmethod
    def start(
        cls,
        setup: GameSetup,
        translator: Translator,
        games_dir: Path | None,
        config: RefereeConfig | None = None,
    ) -> PlayController:
        """A new game for ``setup``, journaled in ``games_dir`` when given. Raises
        ``RecordError`` for a setup the engine refuses."""
        rules = setup.rules()
        referee = Referee(rules, setup.starting_state(), config or referee_config(setup))
        journal = None
        if games_dir is not None:
            games_dir.mkdir(parents=True, exist_ok=True)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = games_dir / f"{setup.game}-{stamp}.jsonl"
            n = 1
            while path.exists():
                n += 1
                path = games_dir / f"{setup.game}-{stamp}-{n}.jsonl"
            journal = Journal.create(path, referee)
            write_seats(path, setup.seats)
        return cls(referee, setup.seats, translator, journal)

    # ------------------------------------------------------------------ inputs

    def handle(self, event: Input) -> list[Output]:
        """Give the referee one input (dropped while paused, unless typed by a person);
        the outputs, which also update what the screen shows."""
        with self._lock:
            if self.paused and isinstance(event, Seen):
                return []
            outputs = self.runner.handle(event)
            self._take(outputs)
            if self.moves_changed is not None and any(
                isinstance(o, MoveAccepted | MoveTakenBack | MoveCorrected) for o in outputs
            ):
                self.moves_changed(self.referee.record())
            return outputs

    def answer(self, move: str) -> list[Output]:
        return self.handle(Answer(move))

    def typed(self, text: str) -> list[Output]:
        text = text.strip()
        if not text:
            with self._lock:
                self._shown.status = InputRejected("", self.tr.text("play.type_a_move"))
            return []
        return self.handle(TypedMove(text))

    def takeback(self) -> list[Output]:
        return self.handle(Takeback())

    def done(self) -> list[Output]:
        return self.handle(TurnDone())

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            self.paused = paused

    # ------------------------------------------------------------------ engine moves

    def position(self) -> tuple[GameState[Any], int] | None:
        """A copy of the position and the search level to use for a suggestion (the
        engine seat's, or the hint level), or None when the game is over."""
        with self._lock:
            state = self.referee.state
            if state.is_over():
                return None
            seat = self.seats[state.to_move] if state.to_move < len(self.seats) else None
            level = seat.level if seat is not None and seat.engine else HINT_LEVEL
            return state.copy(), level

    def suggest(self, state: GameState[Any], move: Any, kind: str) -> bool:
        """Show ``move`` (found for ``state``) as a hint or the engine's move, framing
        the elements it changes; False when the game has moved on meanwhile."""
        with self._lock:
            if self.referee.state != state:
                return False
            before = self.referee.explainer.expected(state)
            after_state = state.copy()
            after_state.apply(move)
            after = self.referee.explainer.expected(after_state)
            changed = frozenset(e for e in before if before[e] != after[e])
            text = self.referee.rules.format_move(move)
            self._shown.suggestion = (kind, text, changed)
            return True

    # ------------------------------------------------------------------ outputs

    def _take(self, outputs: list[Output]) -> None:
        shown = self._shown
        for output in outputs:
            if isinstance(output, Indicators):
                shown.lights = list(output.lights)
                continue
            if isinstance(output, MoveAccepted):
                del shown.log[output.number - 1 :]
                shown.log.append(LogEntry(output.number, output.player, output.move, output.by))
                shown.banner = None
                shown.question = None
                shown.suggestion = None
            elif isinstance(output, MoveTakenBack):
                del shown.log[output.number - 1 :]
                shown.banner = None
                shown.question = None
                shown.over = None
                shown.suggestion = None
            elif isinstance(output, IllegalMove | BoardMismatch):
                shown.banner = output
                shown.verdict_time = time.perf_counter()
            elif isinstance(output, TableRestored):
                shown.banner = None
            elif isinstance(output, Question):
                shown.question = output
            elif isinstance(output, GameOver):
                shown.over = output
                shown.banner = output
                shown.verdict_time = time.perf_counter()
            shown.status = output

    # ------------------------------------------------------------------ the view

    def who(self, index: int) -> str:
        return player_name(self.tr, self.referee.rules.players, [s.name for s in self.seats], index)

    def words(self, player: int, move: str) -> str:
        return move_words(self.tr, self.referee.rules, self.who(player), move)

    @property
    def lights(self) -> list[Light]:
        with self._lock:
            return list(self._shown.lights)

    @property
    def over(self) -> GameOver | None:
        with self._lock:
            return self._shown.over

    def view(self) -> PlayView:
        with self._lock:
            referee, shown, tr = self.referee, self._shown, self.tr
            state = referee.state
            players = tuple(self.who(i) for i in range(len(referee.rules.players)))
            seat = self.seats[state.to_move] if state.to_move < len(self.seats) else None
            engine_turn = bool(seat and seat.engine) and not state.is_over()
            if shown.over is not None:
                turn = tr.text("play.game_over")
            elif self.paused:
                turn = tr.text("play.paused")
            else:
                key = "play.turn_engine" if engine_turn else "play.turn"
                turn = tr.text(key, player=players[state.to_move])
            log = tuple(
                (f"{e.number}. {players[e.player]}: {e.notation}", self.words(e.player, e.notation))
                for e in shown.log
            )
            banner, highlight = self._banner()
            suggest: frozenset[str] = frozenset()
            suggestion = ""
            if shown.suggestion is not None:
                kind, move, suggest = shown.suggestion
                suggestion = tr.text(
                    f"suggest.{kind}", move=move, words=self.words(state.to_move, move)
                )
            return PlayView(
                game=referee.rules.game,
                players=players,
                colours=referee.rules.players,
                to_move=state.to_move,
                turn=turn,
                log=log,
                banner=banner,
                question=self._question(),
                status=self._status(),
                table=self._table(banner),
                highlight=highlight,
                suggest=suggest,
                suggestion=suggestion,
                over=shown.over is not None,
                paused=self.paused,
                engine_turn=engine_turn,
                verdict_time=shown.verdict_time if banner else 0.0,
                expected=referee.expected_table() if highlight else None,
            )

    def _banner(self) -> tuple[Banner | None, frozenset[str]]:
        output, tr = self._shown.banner, self.tr
        match output:
            case IllegalMove(player, attempt, rule, message, fix, elements):
                language, colours = tr.language, self.referee.rules.players
                title = messages.illegal_headline(
                    player, attempt, rule, message, self.who, colours, language
                )
                body = messages.reason(rule, message, language)
                steps = tuple(messages.steps(fix, language))
                return Banner("illegal", title, body, steps, rule), frozenset(elements)
            case BoardMismatch(message, fix, elements):
                return (
                    Banner(
                        "mismatch",
                        tr.text("banner.mismatch"),
                        message,
                        tuple(messages.steps(fix, tr.language)),
                    ),
                    frozenset(elements),
                )
            case GameOver() as over:
                body = tiebreak_words(tr, self.referee.rules.game, over, self.who)
                return Banner("over", tr.text("banner.over"), body), frozenset()
        return None, frozenset()

    def _table(self, banner: Banner | None) -> Observation:
        """What the digital board draws: the game's table; while a banner asks for
        pieces to be put back, the table as seen, so the misplaced pieces show inside
        their red frames."""
        expected = self.referee.expected_table()
        if banner is None or banner.kind == "over":
            return expected
        seen = self.referee.believed_table()
        return expected.replace({e: r for e, r in seen.items() if r.known})

    def _question(self) -> QuestionView | None:
        question = self._shown.question
        if question is None:
            return None
        given = {c.move: c for c in question.choices}
        choices = tuple(
            Choice(
                m,
                self.words(question.player, m),
                tuple(given[m].elements) if m in given else (),
                given[m].card if m in given else "",
            )
            for m in question.candidates
        )
        return QuestionView(
            question.player,
            self.tr.text("question.which", player=self.who(question.player)),
            choices,
            question.about,
        )

    def _status(self) -> str:
        output = self._shown.status
        if output is None:
            return ""
        return verdict_words(self.tr, output, self.who, self.referee.rules.players)


HINT_LEVEL = 2
"""Search level of a hint: quick on a tablet (a few hundred playouts)."""


def referee_config(setup: GameSetup) -> RefereeConfig:
    """A sensor board debounces itself (one reading is enough); a camera needs the
    default three steady frames. With both, each source keeps its own."""
    if setup.sensors != "none" and setup.camera == "none" and not setup.demo:
        return RefereeConfig(stable_frames=1)
    if setup.sensors != "none":
        return RefereeConfig(source_frames={"sensors": 1})
    return RefereeConfig()


def _mover(referee: Referee, index: int) -> int:
    state, _ = referee.history[index]
    return state.to_move


def write_seats(journal: Path, seats: Sequence[Seat]) -> None:
    data = [
        {"colour": s.colour, "name": s.name, "engine": s.engine, "level": s.level} for s in seats
    ]
    Path(str(journal) + SEATS_SUFFIX).write_text(json.dumps(data), encoding="utf-8")


class SeatsError(ValueError):
    """A seats file beside a journal that cannot be used (the message names it)."""


def read_seats(journal: Path, colours: Sequence[str]) -> tuple[Seat, ...]:
    """The seats written beside ``journal``; plain colours when there is no seats file
    (the game itself is in the journal). Raises ``SeatsError`` for a file that cannot
    be read, is not a list of seats, or seats other colours than ``colours``."""
    path = Path(str(journal) + SEATS_SUFFIX)
    try:
        path.stat()
    except FileNotFoundError:
        return tuple(Seat(c) for c in colours)
    try:
        data = read_json_file(path, "the seats file")
    except JSONTextError as error:
        raise SeatsError(str(error)) from None
    if not isinstance(data, list) or not all(_is_seat(d) for d in data):
        raise SeatsError(
            f"the seats file {path} is not a list of seats "
            "(a colour, a name, engine or not, a level)"
        )
    seats = tuple(
        Seat(d["colour"], d.get("name", ""), d.get("engine", False), d.get("level", HINT_LEVEL))
        for d in data
    )
    if [s.colour for s in seats] != list(colours):
        raise SeatsError(
            f"the seats file {path} seats {', '.join(s.colour for s in seats)}"
            f" for a game of {', '.join(colours)}"
        )
    return seats


def _is_seat(data: Any) -> bool:
    """Whether ``data`` is one seat as ``write_seats`` writes it."""
    if not isinstance(data, dict):
        return False
    level = data.get("level", HINT_LEVEL)
    return (
        isinstance(data.get("colour"), str)
        and isinstance(data.get("name", ""), str)
        and isinstance(data.get("engine", False), bool)
        and isinstance(level, int)
        and not isinstance(level, bool)
    )
