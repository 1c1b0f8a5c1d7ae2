"""The demo's outcome does not depend on the machine's speed: a referee slowed down,
on a machine whose clock shows a long time gone at every look (a starved process),
gives the same verdicts and the same game as the same seed played at full speed."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from companion.app.controller import PlayController
from companion.app.i18n import Translator
from companion.app.session import Session
from companion.referee.events import Input, Output
from tests.app.test_demo_people import _near_the_end
from tests.app.test_session import Recorder, _wait

SLOW_VERDICT_S = 0.002
"""The delay given to every verdict: enough for the people to look at the clock while
the referee is still judging."""


def _play(slow: bool) -> tuple[Any, list[Any], bool]:
    setup = _near_the_end("shangrila", 7, 14)
    controller = PlayController.start(setup, Translator(), None)
    if slow:
        handle = controller.handle

        def slowly(event: Input) -> list[Output]:
            time.sleep(SLOW_VERDICT_S)
            return handle(event)

        controller.handle = slowly  # type: ignore[method-assign]
    session = Session(
        controller, setup, Recorder(), lambda callback: callback(), simulator_interval=0.0
    )
    session.start()
    try:
        table = session.table
        assert table is not None
        assert _wait(lambda: not table.is_alive(), 60)
        return (
            table.game.score,
            list(controller.referee.history),
            controller.referee.state == table.game.truth_state,
        )
    finally:
        session.stop()


def test_a_starved_demo_gives_the_same_verdicts_as_a_quick_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quick_score, quick_history, quick_right = _play(slow=False)
    assert quick_score.false_flags == 0 and quick_right and quick_score.questions

    real = time.monotonic
    looks = itertools.count()
    # each look at the clock finds a minute more gone: any time limit on a verdict
    # runs out before the referee has judged
    monkeypatch.setattr(time, "monotonic", lambda: real() + 60.0 * next(looks))
    score, history, right = _play(slow=True)
    monkeypatch.undo()

    assert history == quick_history and right
    for name in (
        "moves",
        "false_flags",
        "questions",
        "done_presses",
        "corrected",
        "exact",
        "rules",
    ):
        assert getattr(score, name) == getattr(quick_score, name), name
