"""The Play screen with a question open: the question, the turn, the latest word and the
buttons each keep their own place (nothing drawn over another) at 1280x800, 800x1280
and 800x600, and the question's buttons scroll when there are many."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from companion.app.clock import ClockSettings
from companion.app.gamesetup import GameSetup
from companion.referee.events import Question, TurnDone, TypedMove
from tests.app.conftest import Driver
from tests.app.test_board_screen import _Asking, _position, _recruits, _start

SIZES = {"landscape": (1280, 800), "portrait": (800, 1280), "small": (800, 600)}


def _rect(widget: Any) -> tuple[float, float, float, float]:
    """``widget``'s box in window coordinates: left, bottom, right, top."""
    left, bottom = widget.to_window(widget.x, widget.y)
    return left, bottom, left + widget.width, bottom + widget.height


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The area two boxes share (0 when they only touch)."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _asked(ui: Driver, moves: list[str], candidates: list[str]) -> Any:
    """A Shangri-La game with its clocks running, ``moves`` typed in, then the referee
    asking which of ``candidates`` was played."""
    setup = replace(GameSetup.default("shangrila"), clocks=ClockSettings.same(4, 30 * 60.0, 60.0))
    play = _start(ui, setup)
    for move in moves:
        play.session.send(TypedMove(move))
    assert ui.wait(lambda: len(play.controller.referee.history) == len(moves), 30)
    controller = play.controller
    question = Question(controller.referee.state.to_move, candidates, "test", 0, [])
    controller.runner = _Asking(controller.runner, question)
    play.session.send(TurnDone())
    assert ui.wait(lambda: bool(play.question_prompt))
    ui.pump(2)
    return play


@pytest.mark.parametrize("size", list(SIZES))
def test_a_question_leaves_every_part_of_the_screen_its_place(ui: Driver, size: str) -> None:
    from kivy.core.window import Window
    from kivy.metrics import dp

    _, moves, candidates = _position("shangrila", _recruits)
    play = _asked(ui, moves, candidates)
    play.status = "The table fits several moves: Ann, which one was played?"
    play.last_move = "Violet places a Yeti-whisperer master in village 9."
    Window.size = SIZES[size]
    ui.pump(8)
    ui.app.root.export_to_png(str(ui.shots / f"play-question-layout-{size}.png"))
    ids = play.ids
    parts = {
        "question": ids.question,
        "turn": ids.turn,
        "clocks": ids.clocks,
        "log": ids.log_scroll,
        "typing": ids.typed.parent,
        "buttons": ids.done.parent,
        "board": ids.board,
    }
    boxes = {name: _rect(w) for name, w in parts.items()}
    screen = _rect(play)
    for name, box in boxes.items():
        assert box[0] >= screen[0] - 1 and box[2] <= screen[2] + 1, (size, name, box)
        assert box[1] >= screen[1] - 1 and box[3] <= screen[3] + 1, (size, name, box)
    names = list(boxes)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            assert _overlap(boxes[first], boxes[second]) < 1, (size, first, second)
    # the latest move and word (scrolling with the moves) have room for a line at least
    assert ids.log_scroll.height >= dp(40), (size, ids.log_scroll.height)
    # many choices: their panel is shorter than its buttons, and scrolls
    assert len(ids.choices.children) == len(candidates) >= 6
    scroller = ids.choices.parent
    assert scroller.height < ids.choices.height and scroller.do_scroll_y
    Window.size = (1280, 800)
    ui.pump(4)
