"""The people at a demo table, in the app: the table simulator (or a film of it) plays
the game, and simulated players react to the referee as they do in the headless demo
(``companion.simulator.scoring.RefereedGame``): they press done after a move nobody can
see, answer the referee's questions with the move they made, and put right a move the
referee got wrong. So the app's demo plays through to the end with nobody tapping.

Every input goes through the session's queue, judged in turn with the players' own
taps and shown on the screen; the table waits for each verdict before it moves on (a
film waits for its people as they would at a real table).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.app.feeds import Recogniser, for_display
from companion.app.frames import FrameSource, Image
from companion.demo.chain import people_see
from companion.referee.events import Input, Output, Seen
from companion.simulator.scoring import GameScore, RefereedGame
from engines.observation import Observation

if TYPE_CHECKING:
    from companion.app.session import Session
    from companion.simulator import TableSimulator

STOP_WITHIN_S = 3.0
"""Longest wait for a demo thread to end once stopped."""


class ThroughSession:
    """The referee as the simulated people reach it: ``handle`` sends the input through
    the session (a sensor reading by the simulated board) and returns what it led to;
    everything else they read is the referee's own. Every output is kept
    with the frame it came at (``frame``, set by whoever shows the frames)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.frame = 0
        self.outputs: list[tuple[int, Output]] = []

    def __getattr__(self, name: str) -> Any:
        """What the people read of the referee (its history, state, status, belief):
        the referee's own, read while the input they wait for is judged no more."""
        return getattr(self.session.controller.referee, name)

    def handle(self, event: Input) -> list[Output]:
        outputs = self.session.judge(event)
        self.outputs += [(self.frame, o) for o in outputs]
        return outputs


class _Paced(threading.Thread):
    """A thread that can wait for the game's pause and be stopped."""

    def __init__(self, name: str, paused: Callable[[], bool]) -> None:
        super().__init__(name=name, daemon=True)
        self.paused = paused
        self.stopping = threading.Event()

    def hold(self) -> bool:
        """Wait while the game is paused; False once stopped."""
        while self.paused() and not self.stopping.is_set():
            self.stopping.wait(0.1)
        return not self.stopping.is_set()

    def stop(self) -> None:
        self.stopping.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join(STOP_WITHIN_S)


class DemoTable(_Paced):
    """The table simulator's steps, one at a time, each judged before the next, with
    the people reacting (see the module's docstring). ``on_end(score)`` once the
    simulator has played its game."""

    def __init__(
        self,
        session: Session,
        simulator: TableSimulator,
        interval: float,
        paused: Callable[[], bool],
        on_end: Callable[[GameScore], None] | None = None,
    ) -> None:
        super().__init__("demo-table", paused)
        self.simulator = simulator
        self.interval = interval
        self.on_end = on_end
        self.referee = ThroughSession(session)
        self.game = RefereedGame(simulator, self.referee, time.perf_counter)  # type: ignore[arg-type]
        self.sent = 0

    def run(self) -> None:
        for step in self.simulator:
            if not self.hold():
                return
            self.game.step(step.event, step.truth)
            self.sent += 1
            self.referee.frame = self.sent
            if self.interval:
                self.stopping.wait(self.interval)
        self.game.end_attempt()
        self.game.score.final_state_right = self.referee.state == self.game.truth_state
        if self.on_end is not None and not self.stopping.is_set():
            self.on_end(self.game.score)


@dataclass(frozen=True)
class DemoFilm:
    """A film whose every frame has its truth (``companion demo``'s): ``moments[i]``,
    with ``truth`` and ``done`` (``companion.demo.film.Moment``), is frame ``i``;
    ``simulator`` plays the filmed moves from the film's first table (the truth's
    game). ``sensor_table(moment)``: the table a sensor board under the film would
    read, when there is one."""

    moments: Sequence[Any]
    simulator: TableSimulator
    sensor_table: Callable[[Any], Observation] | None = None
    on_end: Callable[[FilmResult], str] | None = None
    """What to do once the film is over (write the report); returns what to tell
    the players (where the report is)."""
    on_start: Callable[[FilmResult], None] | None = None
    """Told the result the film fills as it goes (to report on it if the app closes
    before the end)."""


@dataclass
class FilmResult:
    """What refereeing a film gave: the score against the truth, every output with
    its frame, and the camera's figures."""

    referee: Any
    score: GameScore
    outputs: list[tuple[int, Output]] = field(default_factory=list)
    frames: int = 0
    seconds_vision: float = 0.0
    last_frame: Image | None = None
    last_seen: Observation | None = None
    finished: bool = False
    game: RefereedGame | None = None
    """The refereed game the score is kept on (for what needs the whole record, such
    as how many of its moves are the moves played)."""


class FilmFeed(_Paced):
    """Shows a ``DemoFilm``'s frames at the video's rate (slower when reading a frame
    and judging it take longer: the film waits), reads each through ``recogniser``,
    and gives the still tables to the referee with the people reacting, as the headless
    demo (``companion.demo.chain.referee_film``) does. ``result`` grows as it goes."""

    def __init__(
        self,
        session: Session,
        film: DemoFilm,
        source: FrameSource,
        recogniser: Recogniser,
        on_frame: Callable[[Image, str], None],
        paused: Callable[[], bool],
        paced: bool = True,
        on_end: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__("demo-film", paused)
        self.on_end = on_end
        self.film = film
        self.source = source
        self.recogniser = recogniser
        self.on_frame = on_frame
        self.paced = paced
        self.highlight: Sequence[str] = ()
        self.suggest: Sequence[str] = ()
        self.referee = ThroughSession(session)
        self.game = RefereedGame(film.simulator, self.referee, time.perf_counter)  # type: ignore[arg-type]
        self.result = FilmResult(
            session.controller.referee, self.game.score, self.referee.outputs, game=self.game
        )
        self.frames = 0

    def run(self) -> None:
        if self.film.on_start is not None:
            self.film.on_start(self.result)
        try:
            self._play()
        finally:
            self.source.close()

    def _play(self) -> None:
        film, result, game = self.film, self.result, self.game
        interval = 1.0 / self.source.fps if self.paced else 0.0
        shown: Observation | None = None
        for index, moment in enumerate(film.moments):
            began = time.perf_counter()
            if not self.hold():
                return
            frame = self.source.read()
            if frame is None:
                break
            self.referee.frame = index
            start = time.perf_counter()
            seen = self.recogniser.feed(frame)
            result.seconds_vision += time.perf_counter() - start
            self.on_frame(
                for_display(self.recogniser.overlay(frame, seen, self.highlight, self.suggest)),
                self.recogniser.message,
            )
            if seen is not None:
                result.last_seen = seen
            if film.sensor_table is not None:
                table = film.sensor_table(moment)
                if table != shown:
                    shown = table
                    game.step(Seen(table, "sensors"), moment.truth)
            people_see(game, moment, seen, result.last_seen)
            self.frames = result.frames = index + 1
            result.last_frame = frame
            wait = interval - (time.perf_counter() - began)
            if wait > 0:
                self.stopping.wait(wait)
        game.end_attempt()
        game.score.final_state_right = self.referee.state == game.truth_state
        result.finished = not self.stopping.is_set()
        if not result.finished:
            return
        said = film.on_end(result) if film.on_end is not None else ""
        if self.on_end is not None:
            self.on_end(said)
