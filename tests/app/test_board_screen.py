"""The digital board in the real (offscreen) app: each game's board drawn readable
(screenshots at 1280x800 and 800x1280, ``COMPANION_WRITE_DOCS_SCREENS=1`` writes them
to docs/screens/board-<game>-<orientation>.png), a question answered by tapping the
board, and an illegal move's pieces to put back shown big and blinking."""

from __future__ import annotations

from typing import Any

import cv2
import pytest

from companion.app.board.answer import CHIP_PREFIX, card_name, changed_elements
from companion.app.gamesetup import GameSetup
from companion.app.layout import HIGHLIGHT_RGBA
from companion.referee.events import Answer, Choice, Question, TurnDone, TypedMove
from companion.simulator import TableConfig, TableSimulator, random_game
from engines import rules_class
from engines.registry import table_model
from tests.app.conftest import Driver

PLAYED = {"shangrila": 40, "shendao": 24, "shenshi": 10}
"""Moves played before each game's screenshot: enough pieces to show them all."""


def _start(ui: Driver, setup: GameSetup) -> Any:
    ui.app.go("start")
    ui.app.root.ids.start.load(setup)
    ui.pump(2)
    ui.app.root.ids.start.begin()
    manager = ui.app.root.ids.manager
    assert ui.wait(lambda: manager.current == "play" and not manager.transition.is_active)
    ui.pump(2)
    return ui.app.root.ids.play


class _Touch:
    """A finger down at a window point (what the board's ``on_touch_down`` reads)."""

    def __init__(self, x: float, y: float) -> None:
        self.pos = (x, y)
        self.x, self.y = x, y
        self.grab_current = None


def _tap(board: Any, element: str) -> None:
    """Tap the middle of ``element`` (a target of the board's scene)."""
    scale, left, top = board.fit()
    x, y = board.scene.targets[element].centre
    assert board.on_touch_down(_Touch(left + x * scale, top - y * scale))


def _shot(ui: Driver, name: str, orientation: str) -> Any:
    """A screenshot once the board is drawn for the window's size."""
    board = ui.app.root.ids.play.ids.board
    ui.size(orientation)
    assert ui.wait(lambda: board.settled, 5)
    return ui.shot(name, orientation)


def _board_pixels(ui: Driver, game: str, orientation: str) -> Any:
    board = ui.app.root.ids.play.ids.board
    path = _shot(ui, f"board-{game}", orientation)
    image = cv2.imread(str(path))
    x, y = board.to_window(board.x, board.y)
    top = image.shape[0] - int(y + board.height)
    return path, image[max(0, top) : top + int(board.height), int(x) : int(x + board.width)]


@pytest.mark.parametrize("game", ["shangrila", "shendao", "shenshi"])
def test_each_board_is_drawn_with_its_marks(ui: Driver, game: str) -> None:
    play = _start(ui, GameSetup.default(game))
    rules = play.controller.referee.rules
    moves = random_game(rules, seed=5)[: PLAYED[game]]
    for move in moves:
        play.session.send(TypedMove(rules.format_move(move)))
    assert ui.wait(lambda: len(play.controller.referee.history) == len(moves), 30)
    ui.pump(3)
    scene = play.ids.board.scene
    texts = {t.text for layer in scene.layers for t in layer.texts}
    if game == "shangrila":
        assert {str(v) for v in range(13)} <= texts  # the villages' numbers
        assert set("RPYADHF") <= texts and {"R", "B"} <= texts
        assert sum(len(layer.strokes) for layer in scene.layers) > 13 * 7  # the symbols
    elif game == "shendao":
        assert {"W1", "E8", "Sa", "Nh", "SW", "NE", "a1", "h8", "L", "D"} <= texts
    else:
        assert set("abcdefg") <= texts and set("1234567") <= texts
        assert any(t.startswith(("S ", "s ")) for t in texts)  # the metals' letters
    for orientation in ("landscape", "portrait"):
        _, board = _board_pixels(ui, game, orientation)
        assert board.std() > 30
    ui.size("landscape")


def test_the_legend_follows_the_language(ui: Driver) -> None:
    app = ui.app
    play = _start(ui, GameSetup.default("shangrila"))

    def legend() -> set[str]:
        return {t.text for t in play.ids.board.scene.layers[1].texts}

    assert {"Rainmaker", "Red"} <= legend()
    app.root.ids.language.text = "Français"
    ui.pump(3)
    try:
        assert {"Faiseur de pluie", "Rouge"} <= legend()
    finally:
        app.root.ids.language.text = "English"
        ui.pump(3)
    assert "Rainmaker" in legend()


class _Asking:
    """The game's referee, except that the next Done asks ``candidates`` (as the
    referee asks when the table fits several moves), and an answer plays the move
    answered. The screen's part is what is tested: the taps, and the answer sent."""

    def __init__(self, runner: Any, question: Question) -> None:
        self.runner = runner
        self.question: Question | None = question
        self.answers: list[str] = []
        self.question_about = question.about

    def handle(self, event: Any) -> list[Any]:
        if isinstance(event, TurnDone) and self.question is not None:
            question, self.question = self.question, None
            return [question]
        if isinstance(event, Answer):
            self.answers.append(event.move)
            if self.question is None and not self.question_about:
                return list(self.runner.handle(TypedMove(event.move)))
            return []
        return list(self.runner.handle(event))


def _ask(
    ui: Driver,
    game: str,
    moves: list[str],
    candidates: list[str],
    about: int = 0,
    choices: list[Choice] | None = None,
) -> tuple[Any, Any]:
    """Play ``moves`` (typed), then have the referee ask which of ``candidates`` (about
    move number ``about``, with the referee's ``choices``)."""
    play = _start(ui, GameSetup.default(game))
    for move in moves:
        play.session.send(TypedMove(move))
    assert ui.wait(lambda: len(play.controller.referee.history) == len(moves), 30)
    controller = play.controller
    question = Question(controller.referee.state.to_move, candidates, "test", about, choices or [])
    asking = _Asking(controller.runner, question)
    controller.runner = asking
    play.session.send(TurnDone())
    assert ui.wait(lambda: bool(play.question_prompt) and play.tapper is not None)
    ui.pump(2)
    return play, asking


def _position(game: str, want: Any) -> tuple[Any, list[str], Any]:
    """The moves of a seeded random game up to the first position where ``want(rules,
    state)`` gives candidates; (rules, moves, candidates)."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(2 if game == "shendao" else 4), {})
    state = rules.initial_state()
    played = []
    for move in random_game(rules, seed=3):
        found = want(rules, state)
        if found:
            return rules, played, found
        played.append(rules.format_move(move))
        state.apply(move)
    raise AssertionError("no such position")


def _recruits(rules: Any, state: Any) -> list[str]:
    moves = [rules.format_move(m) for m in state.legal_moves()]
    recruits = [m for m in moves if m.startswith("+")]
    return recruits[:10] if len(recruits) >= 6 else []


def _same_table_cards(rules: Any, state: Any) -> list[str]:
    """Two moves through one gate, with different cards, that leave the same table."""
    moves = [rules.format_move(m) for m in state.legal_moves()]
    for first in moves:
        for second in moves:
            if (
                first < second
                and first.split()[0] == second.split()[0]
                and " " in first
                and " " in second
                and changed_elements("shendao", rules, state, first)
                == changed_elements("shendao", rules, state, second)
            ):
                return [first, second]
    return []


def test_a_recruit_is_answered_by_tapping_the_masters(ui: Driver) -> None:
    _, moves, candidates = _position("shangrila", _recruits)
    play, asking = _ask(ui, "shangrila", moves, candidates)
    board, tapper = play.ids.board, play.tapper
    pair = next(m for m in candidates if m.count("+") == 2)
    spaces = sorted(next(c.targets for c in tapper.choices if c.move == pair))
    assert len(spaces) == 2 and set(spaces) <= set(board.scene.targets)  # framed
    assert all("+" not in b.text for b in play.ids.choices.children)  # words, not notation
    assert play.question_prompt.endswith("Tap it on the board, or a button.")
    for orientation in ("landscape", "portrait"):
        _shot(ui, "play-question-tap-shangrila", orientation)
    ui.size("landscape")
    before = len(play.ids.choices.children)
    _tap(board, spaces[0])
    ui.pump(2)
    assert spaces[0] in tapper.selected and play.question_prompt
    assert len(play.ids.choices.children) < before  # the buttons that still fit
    _tap(board, spaces[1])
    assert ui.wait(lambda: not play.question_prompt)
    assert asking.answers == [pair]
    assert play.controller.referee.history[-1][1] == pair


def test_a_question_about_an_earlier_move_taps_the_referees_elements(ui: Driver) -> None:
    rules, moves, candidates = _position("shangrila", _recruits)
    state = rules.initial_state()
    for move in moves:
        state.play_text(move)
    model = table_model("shangrila")
    choices = []
    for move in candidates:  # as the referee gives them: every element the move changes
        after = state.copy()
        after.play_text(move)
        before, now = model.expected(state), model.expected(after)
        choices.append(Choice(move, move, [e for e in before if before.value(e) != now.value(e)]))
    # The move is played, then a later table leaves it in doubt: asked about afterwards.
    play, asking = _ask(
        ui, "shangrila", [*moves, candidates[0]], candidates, about=len(moves) + 1, choices=choices
    )
    assert play.tapper is not None and play.view.question.about == len(moves) + 1
    pair = next(m for m in candidates if m.count("+") == 2)
    for space in sorted(next(c.targets for c in play.tapper.choices if c.move == pair)):
        _tap(play.ids.board, space)
        ui.pump(2)
    assert ui.wait(lambda: asking.answers == [pair], 5)


def test_a_single_recruit_is_answered_by_tapping_its_master_twice(ui: Driver) -> None:
    _, moves, candidates = _position("shangrila", _recruits)
    play, asking = _ask(ui, "shangrila", moves, candidates)
    single = next(m for m in candidates if m.count("+") == 1)
    space = next(iter(next(c.targets for c in play.tapper.choices if c.move == single)))
    _tap(play.ids.board, space)
    ui.pump(2)
    assert play.question_prompt  # it could still be two students
    _tap(play.ids.board, space)
    assert ui.wait(lambda: not play.question_prompt)
    assert asking.answers == [single]


def test_a_card_is_answered_by_tapping_its_chip(ui: Driver) -> None:
    rules, moves, candidates = _position("shendao", _same_table_cards)
    play, asking = _ask(ui, "shendao", moves, candidates)
    board = play.ids.board
    chips = [t for t in board.scene.targets if t.startswith(CHIP_PREFIX)]
    assert len(chips) == 2  # the cards leave the same table: one chip each
    labels = {t.text for layer in board.scene.layers for t in layer.texts}
    assert {card_name(rules, m) for m in candidates} <= labels
    for orientation in ("landscape", "portrait"):
        _shot(ui, "play-question-tap", orientation)
    ui.size("landscape")
    _tap(board, CHIP_PREFIX + candidates[1])
    assert ui.wait(lambda: not play.question_prompt)
    assert asking.answers == [candidates[1]]


def test_pieces_to_put_back_are_big_and_blink(ui: Driver) -> None:
    play = _start(ui, GameSetup.default("shangrila"))
    rules = play.controller.referee.rules
    steps = iter(TableSimulator.random(rules, TableConfig(illegal=0.15), seed=3))
    assert ui.feed(steps, lambda: play.banner_kind == "illegal")
    ui.pump(3)
    board = play.ids.board
    highlight = play.view.highlight
    assert highlight and board.blinking
    frames = [s for s in board.scene.blink.shapes if s.rgba == HIGHLIGHT_RGBA]
    layout = play._map.layout
    assert len(frames) == len({e for e in highlight if layout.spot(e) is not None})
    spot = layout.spot(next(iter(highlight)))
    assert any(f.size[0] > spot.size[0] + 10 for f in frames)  # big
    assert play.view.expected is not None  # what goes back is drawn
    for _ in range(5):  # a screenshot while what goes back flashes
        ui.size("landscape")
        assert ui.wait(lambda: board.settled and board.flash, 5)
        ui.shot("board-illegal", "landscape")
        if board.flash:
            break
    flash = board.flash
    assert ui.wait(lambda: board.flash != flash, 2)  # blinks by itself
    assert ui.wait(lambda: board.flash == flash, 2)
    assert ui.feed(steps, lambda: play.banner_kind == "")
    ui.pump(2)
    assert not board.blinking


def test_the_camera_picture_outlines_what_to_put_back() -> None:
    import numpy as np

    from companion.app.recognition import HIGHLIGHT_BGR, VisionRecogniser
    from vision.models import load_model

    class Pipeline:
        model = load_model("shangrila")

    class View:
        image_size = (640, 640)

        @staticmethod
        def to_image(points: Any) -> Any:
            return np.asarray(points) * 1.2 + 20  # 1.2 px a mm, 20 px margin

    recogniser = VisionRecogniser(Pipeline())
    recogniser.view = View()
    frame = np.zeros((640, 640, 3), np.uint8)
    shown = recogniser.overlay(frame, None, ["4H"], [])
    red = np.all(shown == HIGHLIGHT_BGR, axis=-1)
    ys, xs = np.nonzero(red)
    spot = Pipeline.model.region("4H")
    assert red.sum() > 50
    assert abs(xs.mean() - (spot.centre_mm[0] * 1.2 + 20)) < 3
    assert abs(ys.mean() - (spot.centre_mm[1] * 1.2 + 20)) < 3
