"""A game being played: the controller plus everything that feeds it, each on its own
thread, so the UI never waits for the camera, the serial link or the engine.

- the *referee worker* takes inputs from a queue (camera, table simulator, sensor board,
  the players' taps) and gives them to the controller one at a time, in order;
- the *live feed* reads and recognises frames (``feeds.LiveFeed``);
- the *table simulator* plays a game on the table with no hardware (the demo);
- the *sensor link* keeps the sensor board connected (``firmware_bridge``) and shows
  the referee's lights on it;
- the *engine* searches for a hint or an engine seat's move.

Results reach the screen through ``post(callback)``: ``Clock.schedule_once`` in the app,
a plain call in tests. ``Listener`` is what the screen implements.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

from companion.app.controller import PlayController, PlayView
from companion.app.feeds import (
    FeedError,
    Image,
    LiveFeed,
    NoRecognition,
    Recogniser,
    SimulatedTable,
)
from companion.app.gamesetup import GameSetup
from companion.referee.events import Input, Output, Seen
from companion.referee.journal import JournalError

Post = Callable[[Callable[[], None]], None]

DEMO_TABLE = dict(frames_per_step=3, settle_frames=4, hands=0.1, illegal=0.08,
                  flicker=0.0)
"""The demo table: a few hands over the pieces and now and then an illegal attempt
(each repaired), so the banner is seen working."""


class Listener(Protocol):
    """What the Play screen does with what the session produces (on the UI thread)."""

    def show_view(self, view: PlayView, outputs: list[Output]) -> None: ...

    def show_frame(self, frame: Image, message: str) -> None: ...

    def show_notice(self, key: str, detail: str) -> None: ...


class RefereeWorker:
    """Feeds the controller from a queue on one thread; posts each view that changed."""

    def __init__(self, controller: PlayController, deliver: Callable[[PlayView, list[Output],
                                                                      Input], None],
                 on_failure: Callable[[str], None] | None = None) -> None:
        """``on_failure``: told, in words, why the worker stopped judging (the journal
        could not be written: a full disk, a removed card); the game's inputs since are
        not judged, so nothing unsaved is ever shown."""
        self.controller = controller
        self.deliver = deliver
        self.on_failure = on_failure
        self.failed = ""
        self.inputs: queue.SimpleQueue[Input | None] = queue.SimpleQueue()
        self.handled = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="referee", daemon=True)

    def start(self) -> RefereeWorker:
        self._thread.start()
        return self

    def put(self, event: Input) -> None:
        self.inputs.put(event)

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
                outputs = self.controller.handle(event)
            except (JournalError, OSError) as error:
                # a verdict that cannot be journaled is not shown; say why and stop
                self.failed = str(error)
                if self.on_failure is not None:
                    self.on_failure(self.failed)
                return
            if outputs or not isinstance(event, Seen):
                self.deliver(self.controller.view(), outputs, event)
            self.handled += 1  # after delivering: once counted, the view is on its way


class Session:
    """One game with its feeds (see the module's docstring). ``start`` starts the
    threads; ``stop`` ends them all (each within a couple of seconds)."""

    def __init__(self, controller: PlayController, setup: GameSetup, listener: Listener,
                 post: Post, recogniser: Recogniser | None = None,
                 simulator_interval: float = 0.05, paced: bool = True) -> None:
        self.controller = controller
        self.setup = setup
        self.listener = listener
        self.post = post
        self.recogniser = recogniser
        self.simulator_interval = simulator_interval
        self.paced = paced
        self.worker = RefereeWorker(controller, self._deliver,
                                    lambda why: self._notice("notice.journal_failed", why))
        self.feed: LiveFeed | None = None
        self.table: SimulatedTable | None = None
        self.sensors: Any = None
        self._searching = False
        self._search_lock = threading.Lock()
        self._pending_frame: tuple[Image, str] | None = None
        self._frame_lock = threading.Lock()
        self.frames_shown = 0

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Session:
        # The first view goes out before the feeds start: a feed's failure notice,
        # posted as it starts, must come after it and stay on the screen.
        self.post(lambda: self.listener.show_view(self.controller.view(), []))
        self.worker.start()
        self._start_camera()
        self._start_sensors()
        self._start_demo()
        self.maybe_engine()
        return self

    def stop(self) -> None:
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
        from companion.app.feeds import open_frame_source

        target: int | str = setup.camera_index if setup.camera == "index" else setup.video
        try:
            source = open_frame_source(target)
        except FeedError as error:
            self._notice("notice.camera_failed", str(error))
            return
        recogniser = self.recogniser
        if recogniser is None:
            from companion.app.recognition import make_recogniser

            recogniser = make_recogniser(setup.game, self.controller.referee.rules)
        if isinstance(recogniser, NoRecognition):
            self._notice("notice.no_recognition", recogniser.message)
        self.feed = LiveFeed(source, recogniser, self.worker.put, self._frame,
                             on_end=self._video_ended, paced=self.paced,
                             on_error=lambda why: self._notice("notice.camera_failed", why))
        self.feed.start()  # after self.feed is set: a short video may end at once

    def _video_ended(self) -> None:
        """The end of a video; one that gave no picture at all could not be read."""
        if self.feed is not None and self.feed.frames == 0:
            self._notice("notice.camera_failed",
                         f"no picture can be read from the video {self.setup.video}")
        else:
            self._notice("notice.video_ended")

    def _start_sensors(self) -> None:
        if self.setup.sensors == "none":
            return
        from companion.app.sensors import SensorLink

        try:
            self.sensors = SensorLink(self.setup, self.controller.referee.schema,
                                      self.worker.put, self._notice)
        except FeedError as error:
            self._notice("notice.sensors_failed", str(error))

    def _start_demo(self) -> None:
        setup = self.setup
        if not setup.demo:
            return
        from companion.simulator import SimulatorError, TableConfig, TableSimulator
        from engines import GameRecord, RecordError

        sources = ("camera", "sensors") if self.sensors is not None else ("camera",)
        config = TableConfig(sources=sources, **DEMO_TABLE)  # type: ignore[arg-type]
        referee = self.controller.referee
        try:
            if setup.demo_record:
                record = GameRecord.load(setup.demo_record)
                simulator = TableSimulator(referee.rules, record.moves, config, setup.seed,
                                           referee.state)
            else:
                simulator = TableSimulator(referee.rules, _random_moves(referee, setup.seed),
                                           config, setup.seed, referee.state)
        except (SimulatorError, RecordError) as error:
            self._notice("notice.demo_failed", str(error))
            return
        self.table = SimulatedTable(simulator, self._demo_input, self.simulator_interval,
                                    paused=lambda: self.controller.paused,
                                    on_end=lambda: self._notice("notice.demo_ended"))
        self.table.start()

    def _demo_input(self, event: Input) -> None:
        """The simulator's sensor readings go through the simulated board when there is
        one (the whole chain: board, serial link, bridge); the rest straight in."""
        if isinstance(event, Seen) and event.source == "sensors" and self.sensors is not None:
            self.sensors.place(event.observation)
            return
        self.worker.put(event)

    # ------------------------------------------------------------------ from threads

    def _deliver(self, view: PlayView, outputs: list[Output], event: Input) -> None:
        if self.sensors is not None and any(o.name == "indicators" for o in outputs):
            self.sensors.show(self.controller.lights)
        if self.feed is not None:
            self.feed.highlight, self.feed.suggest = view.highlight, view.suggest
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
        threading.Thread(target=self._run_search, args=(state, level, kind),
                         name="engine", daemon=True).start()

    def _run_search(self, state: Any, level: int, kind: str) -> None:
        from engines.search.players import SearchPlayer

        try:
            move = SearchPlayer(level, seed=len(self.controller.referee.history)).choose(state)
            if self.controller.suggest(state, move, kind):
                view = self.controller.view()
                if self.feed is not None:
                    self.feed.suggest = view.suggest
                self.post(lambda: self.listener.show_view(view, []))
        finally:
            with self._search_lock:
                self._searching = False


def _random_moves(referee: Any, seed: int) -> list[Any]:
    from companion.simulator import random_game

    return random_game(referee.rules, seed, referee.state)


__all__ = ["DEMO_TABLE", "Listener", "RefereeWorker", "Session"]
