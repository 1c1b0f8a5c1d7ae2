"""The app's demo tables play through with nobody tapping: the simulated people press
done, answer the referee's questions and put wrong moves right, whether the table is
the simulator (``companion app --demo``, with or without the sensor board) or a film
of it (``companion demo`` with a display), and the film's end is reported."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup
from companion.app.i18n import Translator
from companion.app.people import DemoFilm, FilmResult
from companion.app.session import Session
from companion.demo.film import Shot, moments
from companion.demo.script import SPECS, Script
from companion.referee.events import GameOver, IllegalMove
from companion.simulator import TableSimulator, random_game
from engines.observation import Observation
from engines.registry import rules_class, table_model
from tests.app.test_session import Recorder


def _wait(predicate: Any, timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            return False
        time.sleep(0.02)
    return True


def _near_the_end(game: str, seed: int, left: int) -> GameSetup:
    """The demo setup of ``game`` from a random game's position ``left`` moves before
    its end."""
    setup = GameSetup.default(game)
    rules = setup.rules()
    moves = random_game(rules, seed)
    state = rules.initial_state()
    for move in moves[: len(moves) - left]:
        state.apply(move)
    return replace(setup, demo=True, seed=seed, start=state.to_json())


@pytest.mark.parametrize(
    ("game", "sensors"), [("shangrila", "none"), ("shendao", "none"), ("shangrila", "simulator")]
)
def test_the_demo_table_plays_to_the_end_with_nobody_tapping(game: str, sensors: str) -> None:
    setup = replace(_near_the_end(game, 7, 14), sensors=sensors)
    listener = Recorder()
    controller = PlayController.start(setup, Translator(), None)
    session = Session(
        controller, setup, listener, lambda callback: callback(), simulator_interval=0.0
    )
    session.start()
    try:
        assert _wait(lambda: ("notice.demo_ended", "") in listener.notices, 120)
        score = session.table.game.score
        assert controller.referee.state.is_over()
        assert any(isinstance(o, GameOver) for o in listener.outputs)
        assert score.false_flags == 0
        assert score.final_state_right
        tried = sum(r.tried for r in score.rules.values())
        assert tried >= 1 and sum(r.caught for r in score.rules.values()) == tried
    finally:
        session.stop()


class _FilmCamera:
    """The film's frames (blank pictures) and a camera straight above reading them:
    nothing while a hand is over the table, no stack heights."""

    fps = 1000.0
    live = False
    message = ""

    def __init__(self, script: Script, film: list[Any]) -> None:
        self.film = film
        self.schema = table_model(script.spec.game).schema(script.rules)
        self.index = 0
        self.closed = False

    def read(self) -> Any:
        return np.zeros((8, 8, 3), np.uint8) if self.index < len(self.film) else None

    def close(self) -> None:
        self.closed = True

    def feed(self, frame: Any) -> Observation | None:
        filmed = self.film[self.index].filmed
        self.index += 1
        if filmed.hidden:
            return None
        values = dict(zip(self.schema.elements, filmed.values, strict=True))
        return Observation(
            self.schema, {e: None if e.endswith("^") else v for e, v in values.items()}
        )

    def overlay(self, frame: Any, *_: Any) -> Any:
        return frame


def test_a_film_waits_for_its_people_and_says_where_its_report_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from companion.app import feeds

    spec = SPECS["shangrila"]
    rules = rules_class("shangrila")(list(spec.players))
    moves = [rules.format_move(m) for m in random_game(rules, 2)]
    script = Script(spec, 2, rules, moves, len(moves) - 10)
    film = moments(script, Shot(), 0)
    camera = _FilmCamera(script, film)
    monkeypatch.setattr(feeds, "CaptureSource", lambda target: camera)
    ended: list[FilmResult] = []
    simulator = TableSimulator(rules, script.filmed_moves, seed=0, start=script.start)
    demo = DemoFilm(film, simulator, on_end=lambda result: ended.append(result) or "here")
    setup = replace(
        GameSetup.default("shangrila"),
        camera="video",
        video="film.mp4",
        start=script.start.to_json(),
    )
    listener = Recorder()
    controller = PlayController.start(setup, Translator(), None)
    session = Session(
        controller, setup, listener, lambda callback: callback(), recogniser=camera, film=demo
    )
    session.start()
    try:
        assert _wait(lambda: ("notice.demo_report", "here") in listener.notices, 120)
        (result,) = ended
        assert result.finished and result.frames == len(film) and camera.closed
        assert controller.referee.state.is_over()
        assert result.score.false_flags == 0 and result.score.final_state_right
        assert result.game is not None  # for the report's moves of the record as played
        assert result.game.record_right(script.start) == len(script.filmed_moves)
        flagged = [o for _, o in result.outputs if isinstance(o, IllegalMove)]
        assert flagged and result.score.rules  # the film's illegal move, caught
    finally:
        session.stop()
