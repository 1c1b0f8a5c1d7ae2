"""The Play screen: the live picture, the digital board, whose turn, the move log, the
banner, the questions and the players' buttons. It shows what the session hands it
and forwards taps to the session."""

from __future__ import annotations

import time
from typing import Any

from kivy.core.window import Window
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.board.answer import TapAnswer
from companion.app.board.maps import board_model, legend, map_of
from companion.app.board.scene import compose
from companion.app.board.widget import BoardMapWidget  # noqa: F401  (named in play.kv)
from companion.app.controller import PlayController, PlayView
from companion.app.gamesetup import GameSetup
from companion.app.layout import PLAYER_RGBA
from companion.app.screens.common import post
from companion.app.screens.common import running_app as _app
from companion.app.screens.dialogs import confirm
from companion.referee.events import Answer, Output, Takeback, TurnDone, TypedMove
from engines.errors import EngineError

LOG_SHOWN = 15
"""Moves listed in the Play screen's log (the History screen replays all of them)."""
BANNER_RGBA = {
    "illegal": (0.78, 0.05, 0.05, 1),
    "mismatch": (0.85, 0.50, 0.05, 1),
    "over": (0.10, 0.55, 0.25, 1),
}


class PlayScreen(Screen):
    """The game: live picture, digital board, whose turn, log, banner, questions."""

    banner_kind = StringProperty("")
    banner_rgba = ListProperty([0, 0, 0, 0])
    banner_title = StringProperty("")
    banner_body = StringProperty("")
    banner_steps = StringProperty("")
    question_prompt = StringProperty("")
    turn = StringProperty("")
    turn_rgba = ListProperty([1, 1, 1, 1])
    status = StringProperty("")
    suggestion = StringProperty("")
    log_text = StringProperty("")
    paused = BooleanProperty(False)
    muted = BooleanProperty(False)
    last_move = StringProperty("")
    """The last move in words, shown large."""
    over = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session: Any = None
        self.controller: PlayController | None = None
        self.view: PlayView | None = None
        self.alarm: Any = None
        self.speech: Any = None
        """The spoken announcements (``speech.Announcer``), set by the app."""
        self._asked: Any = None
        self._map: Any = None
        self._drawn: tuple[Any, ...] = ()
        self.confirmation: Any = None
        """The last "end the game?" dialog."""
        self.tapper: TapAnswer | None = None
        """The open question, answered by taps on the board."""
        self._frame_message = ""
        self._message_at = 0.0
        self.banner_shown_at: list[float] = []
        """Seconds from each banner's verdict to the frame that first shows it."""
        self.sounds = 0
        self._held: tuple[str, int] | None = None
        """A notice kept in the message line until the next move, and the log's
        length when it was given."""

    def attach(
        self, controller: PlayController, setup: GameSetup, alarm: Any, **session_options: Any
    ) -> None:
        """Play ``controller``'s game with ``setup``'s camera and sensor board."""
        from companion.app.session import Session  # deferred: when a game starts

        self.detach()
        self._held = None
        self.controller = controller
        self.alarm = alarm
        self.muted = alarm.muted if alarm is not None else True
        if self.speech is not None:
            self.speech.muted = self.muted
        game = controller.referee.rules.game
        model, layout_problem = board_model(game)
        self._map = map_of(game, model)
        self.ids.camera.texture = None
        self.ids.camera.has_frame = False
        self.ids.camera.message = (
            _app().t("play.no_camera")
            if setup.camera == "none"
            else _app().t("play.camera_starting")
        )
        self.session = Session(controller, setup, self, post, **session_options)
        self.ids.clocks.start(controller, setup)
        self.show_view(controller.view(), [])
        # said once, as the game starts: the usual board is drawn, new clocks started
        problems = [
            _app().t(key, detail=detail)
            for key, detail in (
                ("notice.layout_damaged", layout_problem),
                ("notice.clock_damaged", self.ids.clocks.problem),
            )
            if detail
        ]
        if problems:
            self._held = (" ".join(problems), len(controller.view().log))
            self.status = self._held[0]
        self.session.start()

    def detach(self) -> None:
        self.ids.clocks.stop()
        if self.session is not None:
            self.session.stop()
            self.session = None

    # ------------------------------------------------------------------ from the session

    def show_view(self, view: PlayView, outputs: list[Output]) -> None:
        self.view = view
        self.turn = view.turn
        colour = view.colours[view.to_move] if view.colours else ""
        # Dark pieces' colours are unreadable on the dark background: light grey.
        self.turn_rgba = (
            [0.85, 0.85, 0.85, 1]
            if colour in ("dark", "black")
            else list(PLAYER_RGBA.get(colour, (1, 1, 1, 1)))
        )
        if self._held is not None and len(view.log) != self._held[1]:
            self._held = None  # a move was played: the notice has been seen
        self.status = view.status or (self._held[0] if self._held is not None else "")
        self.last_move = view.log[-1][1] if view.log else ""
        self.suggestion = view.suggestion
        self.paused = view.paused
        self.over = view.over
        # The newest moves only: the whole log is one text drawn again at every move.
        self.log_text = "\n".join(
            f"[b]{notation}[/b]\n   {words}" for notation, words in reversed(view.log[-LOG_SHOWN:])
        )
        self._banner(view)
        self._question(view)
        self.ids.clocks.follow(view)
        self.draw_board()
        flagged = any(o.name == "illegal_move" for o in outputs)
        if flagged and self.alarm is not None and self.alarm.play():
            self.sounds += 1
        if self.speech is not None:
            self.speech.tell(view, outputs)

    def _banner(self, view: PlayView) -> None:
        banner = view.banner
        if banner is None:
            self.banner_kind = ""
            return
        self.banner_kind = banner.kind
        self.banner_rgba = list(BANNER_RGBA[banner.kind])
        self.banner_title = banner.title
        self.banner_body = banner.body
        self.banner_steps = "\n".join(f"• {s}" for s in banner.steps)
        if view.verdict_time and view.verdict_time != self._measured:
            self._pending_stamp = view.verdict_time
            Window.bind(on_flip=self._on_flip)

    _pending_stamp = 0.0
    _measured = 0.0

    def _on_flip(self, *_: Any) -> None:
        """The first frame drawn with the banner: how long since the verdict."""
        Window.unbind(on_flip=self._on_flip)
        if self._pending_stamp:
            self.banner_shown_at.append(time.perf_counter() - self._pending_stamp)
            self._measured, self._pending_stamp = self._pending_stamp, 0.0

    def _question(self, view: PlayView) -> None:
        question = view.question
        if question == self._asked:  # the buttons are there already
            return
        self._asked = question
        self.tapper = self._tapper(view)
        self.question_prompt = (
            ""
            if question is None
            else question.prompt
            if self.tapper is None
            else f"{question.prompt} {_app().t('question.tap')}"
        )
        self._choice_buttons()

    def _tapper(self, view: PlayView) -> TapAnswer | None:
        """What tapping the board answers for ``view``'s question (None: no question,
        or one the board cannot show; the buttons still answer it)."""
        question, controller = view.question, self.controller
        if question is None:
            return None
        words = {c.move: c.words for c in question.choices}
        if any(c.elements for c in question.choices):  # the referee's own elements
            return TapAnswer.from_elements(
                [(c.move, c.elements, c.card) for c in question.choices], words.__getitem__
            )
        position = controller.position() if controller is not None else None
        if controller is None or position is None or question.about:
            return None
        # Every move asked about is a key of ``words``, and the table before and after
        # a move share the game's elements: only a move this position does not allow
        # (a question about an earlier move) leaves the board untappable.
        try:
            return TapAnswer.for_question(
                view.game, controller.referee.rules, position[0], list(words), words.__getitem__
            )
        except (EngineError, ValueError):  # the buttons answer it
            return None

    def _choice_buttons(self) -> None:
        """One button a candidate, in words; only those that fit the taps so far."""
        box = self.ids.choices
        box.clear_widgets()
        question = self.view.question if self.view is not None else None
        if question is None:
            return
        fits = {c.move for c in self.tapper.open()} if self.tapper is not None else None
        for choice in question.choices:
            if fits is not None and choice.move not in fits:
                continue
            button = Factory.ChoiceButton(text=choice.words)
            button.move = choice.move
            button.bind(on_release=lambda b: self.answer(b.move))
            box.add_widget(button)

    def draw_board(self) -> None:
        """The digital board for the view shown, with the question's taps."""
        view = self.view
        if view is None or self._map is None:
            return
        tapper = self.tapper
        targets = tapper.tappable() if tapper is not None else frozenset()
        chips = {k: w for k, w in tapper.chips.items() if k in targets} if tapper else {}
        names = legend(view.game, view.colours, view.players, _app().translator.name)
        board, chosen = self._map, tapper.selected if tapper is not None else frozenset()
        # Views come at every reading of the table: draw again only what changed.
        drawn = (
            id(board),
            view.table,
            view.highlight,
            view.suggest,
            targets,
            chosen,
            names,
            view.expected,
        )
        if drawn == self._drawn:
            return
        self._drawn = drawn
        self.ids.board.painter = lambda beside: compose(
            board,
            view.table,
            view.highlight,
            view.suggest,
            targets - set(chips),
            chosen,
            chips,
            names,
            beside,
            view.expected,
        )

    def tap_board(self, element: str) -> None:
        """A tap on the board while a question is open: answer it when the taps tell
        one move, else show what still fits."""
        if self.tapper is None:
            return
        move = self.tapper.tap(element)
        if move is not None:
            self.answer(move)
            return
        self._choice_buttons()
        self.draw_board()

    def show_frame(self, frame: Any, message: str) -> None:
        """A new picture; the reader's message (why the board is not read) at most
        twice a second, since each new text is drawn again."""
        self.ids.camera.show_frame(frame)
        now = time.perf_counter()
        if message and message != self._frame_message and now - self._message_at > 0.5:
            self._frame_message, self._message_at = message, now
            self.status = _app().t("notice.blank_frame") if message == "blank" else message

    def show_notice(self, key: str, detail: str) -> None:
        self.status = _app().t(key, detail=detail)
        if key == "notice.camera_failed" and not self.ids.camera.has_frame:
            # The picture's place says it too: it would say "starting" for ever.
            self.ids.camera.message = self.status

    def refresh(self) -> None:
        """Draw again (the language changed)."""
        if self.controller is not None:
            self.show_view(self.controller.view(), [])

    # ------------------------------------------------------------------ taps

    def _send(self, event: Any) -> None:
        if self.session is not None:
            self.session.send(event)

    def answer(self, move: str) -> None:
        self._send(Answer(move))

    def done(self) -> None:
        self._send(TurnDone())

    def undo(self) -> None:
        self._send(Takeback())

    def type_move(self, text: str) -> None:
        if not text.strip():
            self.status = _app().t("play.type_a_move")
            return
        self._send(TypedMove(text.strip()))
        self.ids.typed.text = ""

    def hint(self) -> None:
        if self.session is not None:
            self.session.hint()

    def set_paused(self, paused: bool) -> None:
        if self.session is not None:
            self.session.set_paused(paused)

    def set_muted(self, muted: bool) -> None:
        self.muted = muted
        if self.alarm is not None:
            self.alarm.muted = muted
        if self.speech is not None:
            self.speech.muted = muted

    def end_game(self) -> None:
        """The result; a game not over is ended only once the players confirm."""
        if self.controller is None:
            return
        if self.over:
            _app().finish(self.controller)
            return
        app = _app()
        self.confirmation = confirm(
            app.t("play.end_confirm_title"),
            app.t("play.end_confirm"),
            app.t("play.end_yes"),
            app.t("play.end_no"),
            self.confirmed_end,
        )

    def confirmed_end(self) -> None:
        if self.controller is not None:
            _app().finish(self.controller)
