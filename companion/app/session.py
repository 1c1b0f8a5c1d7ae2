"""A game being played: the controller plus everything that feeds it, each on its own
thread, so the UI never waits for the camera, the serial link or the engine.

- the *referee worker* takes inputs from a queue (camera, table simulator, sensor board,
  the players' taps) and gives them to the controller one at a time, in order;
- the *live feed* reads and recognises frames (``feeds.LiveFeed``);
- the *demo table* plays a game with no hardware: the table simulator, or a film of
  it (``companion demo``), with simulated people who press done and answer questions
  (``people``);
- the *sensor link* keeps the sensor board connected (``firmware_bridge``) and shows
  the referee's lights on it;
- the *engine* searches for a hint or an engine seat's move.

Results reach the screen through ``post(callback)``: ``Clock.schedule_once`` in the app,
a plain call in tests. ``Listener`` is what the screen implements.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from companion.app.controller import PlayController, PlayView
from companion.app.feeds import LiveFeed, NoRecognition, Recogniser, open_frame_source
from companion.app.frames import FeedError, Image
from companion.app.gamesetup import GameSetup
from companion.app.people import DemoFilm, DemoTable, FilmFeed
from companion.referee.events import Input, Output, Seen
from companion.referee.journal import JournalError
from companion.simulator import SimulatorError, TableConfig, TableSimulator, random_game
from engines import GameRecord, RecordError
from engines.registry import table_model
from engines.search.players import SearchPlayer

Post = Callable[[Callable[[], None]], None]

DEMO_TABLE = dict(frames_per_step=3, settle_frames=4, hands=0.1, illegal=0.08, flicker=0.0)
"""The demo table: a few hands over the pieces and now and then an illegal attempt
(each repaired), so the banner is seen working."""


class Listener(Protocol):
    """What the Play screen does with what the session produces (on the UI thread)."""

    def show_view(self, view: PlayView, outputs: list[Output]) -> None: ...

    def show_frame(self, frame: Image, message: str) -> None: ...

    def show_notice(self, key: str, detail: str) -> None: ...


class RefereeWorker:
    """Feeds the controller from a queue on one thread; posts each view that changed."""

    def __init__(
        self,
        controller: PlayController,
        deliver: Callable[[PlayView, list[Output], Input], None],
        on_failure: Callable[[str], None] | None = None,
    ) -> None:
        """``on_failure``: told, in words, why the worker stopped judging (the journal
        could not be written: a full disk, a removed card); the game's inputs since are
        not judged, so nothing unsaved is ever shown."""
        self.controller = controller
        self.deliver = deliver
        self.on_failure = on_failure
        self.failed = ""
        self.inputs: queue.SimpleQueue[Input | None] = queue.SimpleQueue()
        self.handled = 0
        self._queued = 0
        self._finished = 0
        self._idle = threading.Condition()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="referee", daemon=True)

    def start(self) -> RefereeWorker:
        self._thread.start()
        return self

    def put(self, event: Input) -> None:
        with self._idle:
            self._queued += 1
        self.inputs.put(event)

    @property
    def queued(self) -> int:
        """Inputs put so far."""
        return self._queued

    def wait_idle(
        self, timeout: float | None = None, cancel: threading.Event | None = None
    ) -> bool:
        """Wait until every input put so far has been judged (False: not within
        ``timeout`` seconds, ``cancel`` set, or the worker has stopped). With no
        ``timeout``, as long as it takes: however slow the machine, nothing is left
        unjudged."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._idle:
            while self._finished < self._queued:
                if (
                    self.failed
                    or self._stopping.is_set()
                    or (cancel is not None and cancel.is_set())
                ):
                    return False
                if deadline is None:
                    self._idle.wait(0.2)
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(min(left, 0.2))
        return True

    def stop(self) -> None:
        """Stop after the input being judged; inputs still queued are dropped."""
        self._stopping.set()
        self.inputs.put(None)
        if self._thread.is_alive():
            self._thread.join(5.0)

    def _run(self) -> None:
        while True:
            event = self.inputs.get()
            if event is None or self._stopping.is_set():
                return
            try:
                if not self._judge(event):
                    return
            finally:
                with self._idle:
                    self._finished += 1
                    self._idle.notify_all()

    def _judge(self, event: Input) -> bool:
        """Judge one input and deliver the view; False when the worker must stop."""
        try:
            outputs = self.controller.handle(event)
        except (JournalError, OSError) as error:
            # a verdict that cannot be journaled is not shown; say why and stop
            self.failed = str(error)
            if self.on_failure is not None:
                self.on_failure(self.failed)
            return False
        if outputs or not isinstance(event, Seen):
            self.deliver(self.controller.view(), outputs, event)
        self.handled += 1  # after delivering: once counted, the view is on its way
        return True


class Session:
    """One game with its feeds (see the module's docstring). ``start`` starts the
    threads; ``stop`` ends them all (each within a couple of seconds)."""

    def __init__(
        self,
        controller: PlayController,
        setup: GameSetup,
        listener: Listener,
        post: Post,
        recogniser: Recogniser | None = None,
        simulator_interval: float = 0.05,
        paced: bool = True,
        film: DemoFilm | None = None,
    ) -> None:
        """``film``: a film of a demo table (``companion demo``), shown and judged with
        its people reacting, in place of the setup's video."""
        self.controller = controller
        self.setup = setup
        self.listener = listener
        self.post = post
        self.recogniser = recogniser
        self.simulator_interval = simulator_interval
        self.paced = paced
        self.worker = RefereeWorker(
            controller, self._deliver, lambda why: self._notice("notice.journal_failed", why)
        )
        self.feed: LiveFeed | None = None
        self.film = film
        self.table: DemoTable | FilmFeed | None = None
        self.sensors: Any = None
        self._searching = False
        self._search_lock = threading.Lock()
        self._pending_frame: tuple[Image, str] | None = None
        self._frame_lock = threading.Lock()
        self.frames_shown = 0
        self._heard: list[Output] | None = None
        self._heard_lock = threading.Lock()
        self._placed: Any = None
        self.closing = threading.Event()
        """Set once the session is being stopped: whoever waits for a verdict stops
        waiting."""

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Session:
        # The first view goes out before the feeds start: a feed's failure notice,
        # posted as it starts, must come after it and stay on the screen.
        self.post(lambda: self.listener.show_view(self.controller.view(), []))
        self.worker.start()
        self._start_camera()
        self._start_sensors()
        self._start_demo()
        if isinstance(self.table, FilmFeed):
            self.table.start()
        self.maybe_engine()
        return self

    def stop(self) -> None:
        self.closing.set()
        for part in (self.feed, self.table):
            if part is not None:
                part.stop()
        if self.sensors is not None:
            self.sensors.close()
        self.worker.stop()
        if self.controller.journal is not None:
            self.controller.journal.close()

    def _notice(self, key: str, detail: str = "") -> None:
        self.post(lambda: self.listener.show_notice(key, detail))

    def _start_camera(self) -> None:
        setup = self.setup
        if setup.camera == "none":
            return

        target: int | str = setup.camera_index if setup.camera == "index" else setup.video
        try:
            source = open_frame_source(target)
        except FeedError as error:
            self._notice("notice.camera_failed", str(error))
            return
        recogniser = self.recogniser
        if recogniser is None:
            from companion.app.recognition import make_recogniser  # deferred: camera games

            recogniser = make_recogniser(setup.game, self.controller.referee.rules)
        if isinstance(recogniser, NoRecognition):
            self._notice("notice.no_recognition", recogniser.message)
        if self.film is not None:
            self.table = FilmFeed(
                self,
                self.film,
                source,
                recogniser,
                self._frame,
                paused=lambda: self.controller.paused,
                paced=self.paced,
                on_end=lambda said: self._notice(
                    "notice.demo_report" if said else "notice.video_ended", said
                ),
            )
            return  # started once the sensor board is there (it may read the film too)
        self.feed = LiveFeed(
            source,
            recogniser,
            self.worker.put,
            self._frame,
            on_end=self._video_ended,
            paced=self.paced,
            on_error=lambda why: self._notice("notice.camera_failed", why),
        )
        self.feed.start()  # after self.feed is set: a short video may end at once

    def _video_ended(self) -> None:
        """The end of a video; one that gave no picture at all could not be read."""
        if self.feed is not None and self.feed.frames == 0:
            self._notice(
                "notice.camera_failed", f"no picture can be read from the video {self.setup.video}"
            )
        else:
            self._notice("notice.video_ended")

    def _start_sensors(self) -> None:
        if self.setup.sensors == "none":
            return
        from companion.app.sensors import SensorLink  # deferred: sensor board only

        initial = None
        if self.setup.sensors == "simulator":
            # the simulated board reads the game's table as it is set up, from the
            # first reading on (a game may start mid-way, with pieces on the board)

            initial = table_model(self.setup.game).expected(self.controller.referee.state)
            self._placed = initial
        try:
            self.sensors = SensorLink(
                self.setup, self.controller.referee.schema, self.worker.put, self._notice, initial
            )
        except FeedError as error:
            self._notice("notice.sensors_failed", str(error))

    def _start_demo(self) -> None:
        setup = self.setup
        if not setup.demo:
            return

        board = self.sensors is not None
        sources = ("camera", "sensors") if board else ("camera",)
        # the sensor board reads each piece's colour too (its layout's codes)
        config = TableConfig(sources=sources, sensor_colours=board, **DEMO_TABLE)  # type: ignore[arg-type]
        referee = self.controller.referee
        try:
            if setup.demo_record:
                record = GameRecord.load(setup.demo_record)
                simulator = TableSimulator(
                    referee.rules, record.moves, config, setup.seed, referee.state
                )
            else:
                simulator = TableSimulator(
                    referee.rules,
                    _random_moves(referee, setup.seed),
                    config,
                    setup.seed,
                    referee.state,
                )
        except (SimulatorError, RecordError) as error:
            self._notice("notice.demo_failed", str(error))
            return
        self.table = DemoTable(
            self,
            simulator,
            self.simulator_interval,
            paused=lambda: self.controller.paused,
            on_end=lambda _: self._notice("notice.demo_ended"),
        )
        self.table.start()

    def judge(self, event: Input) -> list[Output]:
        """Give ``event`` to the referee and wait until it, and whatever it led to, is
        judged; the outputs meanwhile. A sensor reading goes through the simulated
        board when there is one (the whole chain: board, serial link, bridge). For the
        simulated people of a demo table, one thread.

        There is no time limit: on a slow or busy machine the people wait as long as
        it takes, so a verdict is never left behind to be taken for the next input's,
        and the same game always gets the same verdicts. The wait ends early only when
        the session stops, the worker stops judging, or the board cannot read the
        table."""
        with self._heard_lock:
            self._heard = []
        if isinstance(event, Seen) and event.source == "sensors" and self.sensors is not None:
            if event.observation != self._placed:  # the board tells changes only
                self._placed = event.observation
                self.sensors.place(event.observation)
            # until the board has told this very table (any reading before it, such
            # as its first on connecting, is queued ahead of it)
            self.sensors.wait_for(event.observation, None, self.closing)
        else:
            self.worker.put(event)
        self.worker.wait_idle(None, self.closing)
        with self._heard_lock:
            heard, self._heard = self._heard or [], None
        return heard

    # ------------------------------------------------------------------ from threads

    def _deliver(self, view: PlayView, outputs: list[Output], event: Input) -> None:
        with self._heard_lock:
            if self._heard is not None:
                self._heard.extend(outputs)
        if self.sensors is not None and any(o.name == "indicators" for o in outputs):
            self.sensors.show(self.controller.lights)
        for feed in (self.feed, self.table):
            if isinstance(feed, LiveFeed | FilmFeed):
                feed.highlight, feed.suggest = view.highlight, view.suggest
        self.post(lambda: self.listener.show_view(view, outputs))
        if any(o.name in ("move_accepted", "move_taken_back") for o in outputs):
            self.maybe_engine()

    def _frame(self, frame: Image, message: str) -> None:
        """Keep only the newest frame: if the UI has not drawn the last one yet, this
        one replaces it instead of queueing behind it."""
        with self._frame_lock:
            waiting = self._pending_frame is not None
            self._pending_frame = (frame, message)
        if not waiting:
            self.post(self._show_frame)

    def _show_frame(self) -> None:
        with self._frame_lock:
            pending, self._pending_frame = self._pending_frame, None
        if pending is not None:
            self.frames_shown += 1
            self.listener.show_frame(*pending)

    # ------------------------------------------------------------------ players' actions

    def send(self, event: Input) -> None:
        """A tap (answer, typed move, take back, done): through the same queue as the
        readings, so it is judged in order."""
        self.worker.put(event)

    def set_paused(self, paused: bool) -> None:
        self.controller.set_paused(paused)
        self.post(lambda: self.listener.show_view(self.controller.view(), []))

    def hint(self) -> None:
        self._search("hint")

    def maybe_engine(self) -> None:
        """Start the engine's search when an engine seat is to move."""
        if self.controller.view().engine_turn:
            self._search("engine")

    def _search(self, kind: str) -> None:
        with self._search_lock:
            if self._searching:
                return
            found = self.controller.position()
            if found is None:
                return
            self._searching = True
        state, level = found
        self._notice("notice.thinking")
        threading.Thread(
            target=self._run_search, args=(state, level, kind), name="engine", daemon=True
        ).start()

    def _run_search(self, state: Any, level: int, kind: str) -> None:
        try:
            move = SearchPlayer(level, seed=len(self.controller.referee.history)).choose(state)
            if self.controller.suggest(state, move, kind):
                view = self.controller.view()
                for feed in (self.feed, self.table):
                    if isinstance(feed, LiveFeed | FilmFeed):
                        feed.suggest = view.suggest
                self.post(lambda: self.listener.show_view(view, []))
        finally:
            with self._search_lock:
                self._searching = False


def _random_moves(referee: Any, seed: int) -> list[Any]:
    return random_game(referee.rules, seed, referee.state)


__all__ = ["DEMO_TABLE", "Listener", "RefereeWorker", "Session"]
