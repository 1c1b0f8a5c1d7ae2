"""Refereeing the demo's film: every frame of the video goes through the camera
pipeline; each still table it reads goes to the referee, as from a real camera.

The people at the demo's table act as the simulated people of the referee benchmark
(``companion.simulator.scoring``): they press "done" after a move the camera cannot
see, answer the referee's questions with the move they made, and, should the referee
get a move wrong, take it back and type the right one — so a reading error shows in
the report instead of derailing the game. With ``sensor`` the simulated sensor board
is read as well, over a pseudo-terminal, through the same bridge as a real board.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from companion.demo.film import Moment, observation_of
from companion.demo.script import Script
from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import Input, Output, Seen, TurnDone
from companion.simulator import GameScore, TableSimulator
from companion.simulator.scoring import RefereedGame
from engines.observation import Observation

SENSOR_SETTLE_S = 0.08
"""Time for the simulated board to scan and debounce a change (100 scans a second)."""


class Recogniser(Protocol):
    """The camera pipeline as the demo uses it: one frame in, the table out when the
    board is still (else None)."""

    def feed(self, frame: np.ndarray[Any, Any]) -> Observation | None: ...


@dataclass
class ChainResult:
    referee: Referee
    score: GameScore
    outputs: list[tuple[int, Output]] = field(default_factory=list)
    """Every referee output with the frame it came at."""
    frames: int = 0
    seconds_vision: float = 0.0
    last_frame: np.ndarray[Any, Any] | None = None
    last_seen: Observation | None = None


class _Listening(Referee):
    """A referee that tells ``listener`` about every output as it is made."""

    def __init__(self, *args: Any, listener: Callable[[Output], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listener = listener

    def handle(self, event: Input) -> list[Output]:
        outputs = super().handle(event)
        for output in outputs:
            self.listener(output)
        return outputs


def referee_film(
    script: Script,
    film: list[Moment],
    frames: Iterable[np.ndarray[Any, Any]],
    recogniser: Recogniser,
    *,
    stable_frames: int,
    sensor: bool = False,
    on_output: Callable[[int, Output], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ChainResult:
    """Run the film's ``frames`` (one per moment of ``film``) through ``recogniser``
    and a referee that believes a camera reading after ``stable_frames`` still frames."""
    index = 0

    def listen(output: Output) -> None:
        result.outputs.append((index, output))
        if on_output is not None:
            on_output(index, output)

    referee = _Listening(
        script.rules,
        script.start,
        RefereeConfig(stable_frames=stable_frames, source_frames={"sensors": 1}),
        listener=listen,
    )
    simulator = TableSimulator(script.rules, script.filmed_moves, seed=0, start=script.start)
    game = RefereedGame(simulator, referee, time.perf_counter)
    result = ChainResult(referee, game.score)
    with ExitStack() as stack:
        board = stack.enter_context(_sensor_board(script, referee)) if sensor else None
        shown: Observation | None = None
        for index, (moment, frame) in enumerate(zip(film, frames, strict=False)):
            start = time.perf_counter()
            seen = recogniser.feed(frame)
            result.seconds_vision += time.perf_counter() - start
            if seen is not None:
                result.last_seen = seen
            if board is not None:
                table = observation_of(script, moment.filmed)
                if table != shown:
                    shown = table
                    for event in board(table):
                        game.step(event, moment.truth)
            people_see(game, moment, seen, result.last_seen)
            result.frames = index + 1
            result.last_frame = frame
            if progress is not None:
                progress(index + 1, len(film))
    game.end_attempt()
    game.score.final_state_right = referee.state == game.truth_state
    game.score.record_right = game.record_right(script.start)
    return result


def people_see(
    game: RefereedGame, moment: Moment, seen: Observation | None, last_seen: Observation | None
) -> None:
    """The referee given what the camera read at ``moment`` of the film (``seen``, or
    at the end of a phase with nothing read, what it read last: the people look at
    that), then the done pressed at that moment, if any."""
    if seen is not None:
        game.step(Seen(seen, "camera"), moment.truth)
    elif moment.truth.last and last_seen is not None:
        game.step(Seen(last_seen, "camera"), moment.truth)
    if moment.done is not None:
        game.step(TurnDone(), moment.done)


@contextmanager
def _sensor_board(
    script: Script, referee: Referee
) -> Iterator[Callable[[Observation], list[Seen]]]:
    """The simulated sensor board on a pseudo-terminal and the bridge reading it: a
    function that shows a table on the board and returns what the bridge then read."""
    from companion.referee.sensors import to_referee  # deferred: sensor demo only
    from firmware_bridge.bridge import SensorBridge, TableChanged  # deferred: sensor demo only
    from firmware_bridge.layouts import layout_for  # deferred: sensor demo only
    from firmware_bridge.simulator import BoardSimulator  # deferred: sensor demo only

    layout = layout_for(script.spec.game)
    with BoardSimulator(layout) as board:
        board.show(referee.expected_table())
        with SensorBridge(
            board.path, layout, schema=referee.schema, first_retry=0.02, last_retry=0.1
        ) as bridge:
            deadline = time.monotonic() + 5
            while not isinstance(bridge.events.get(timeout=5), TableChanged):
                if time.monotonic() > deadline:
                    raise OSError("the simulated sensor board does not answer")

            def show(table: Observation) -> list[Seen]:
                board.show(table)
                time.sleep(SENSOR_SETTLE_S)
                read = []
                while True:
                    try:
                        event = bridge.events.get_nowait()
                    except queue.Empty:
                        return read
                    seen = to_referee(event)
                    if seen is not None:
                        read.append(seen)

            yield show
