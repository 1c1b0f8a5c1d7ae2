"""The review panel of the End and History screens, like an analysis board: the board
at the move shown, drawn as on the Play screen (blue frames on what the move changed,
green on the better move),
the move in words with its judgement and the better move, the move list to tap, and
Back and Next buttons (the arrow keys too, and Home and End, on a keyboard). It draws
a ``companion.review.Review``; its layout is in ``kv/history.kv``."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.core.window import Window
from kivy.factory import Factory
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.app.board.maps import fitted_model, map_of
from companion.app.board.widget import BoardMapWidget  # noqa: F401  (named in history.kv)
from companion.app.screens.common import running_app as _app
from companion.review import Review

KEYS = {275: 1, 276: -1}
"""Kivy key codes: right and left arrows step; Home (278) and End (279) jump."""
JUDGEMENT_RGBA = {
    "best": (0.45, 0.85, 0.45, 1),
    "good": (0.55, 0.85, 0.55, 1),
    "inaccuracy": (0.98, 0.75, 0.25, 1),
    "mistake": (1.0, 0.55, 0.25, 1),
    "blunder": (1.0, 0.35, 0.35, 1),
}
NOW_RGBA = (0.25, 0.45, 0.85, 1)
ROW_RGBA = (0.22, 0.22, 0.26, 1)


class ReviewPanel(BoxLayout):
    """See the module's docstring. ``load`` a review, then ``show`` or ``step``."""

    caption = StringProperty("")
    where = StringProperty("")
    index = NumericProperty(0)
    last = NumericProperty(0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.review: Review | None = None
        self._board: Any = None
        self._painter: Any = None
        """The board to draw, given to the board once it has a size."""
        self._rows: list[Any] = []
        self._keys = False
        self._shown_row = 0
        """The row of the move shown, which the list keeps in view."""
        self._follows = False

    def load(self, review: Review | None, index: int | None = None) -> None:
        """Show ``review`` at ``index`` (default: its end); None empties the panel."""
        self.review = review
        box = self.ids.moves
        box.clear_widgets()
        self._rows = []
        if review is None:
            self._painter = None
            self.ids.board.painter = None
            self.caption, self.where, self.last = "", "", 0
            return
        self._board = map_of(review.game, fitted_model(review.game))
        self.last = review.positions - 1
        app = _app()
        start = Factory.ReviewRow(text=app.t("review.start_row"))
        self._rows.append(start)
        for i, move in enumerate(review.moves, start=1):
            text = f"[b]{move.number}. {review.names[move.player]}: {move.notation}[/b]"
            notes = [app.t("judgement." + move.judgement)] if move.judgement else []
            if move.best:
                notes.append(app.t("review.better_short", move=move.best))
            if notes:
                text += "\n" + " · ".join(notes)
            row = Factory.ReviewRow(text=text)
            row.mark = JUDGEMENT_RGBA.get(move.judgement, (0, 0, 0, 0))
            self._rows.append(row)
            row.position = i
        start.position = 0
        for row in self._rows:
            row.bind(on_release=lambda r: self.show(r.position))
            box.add_widget(row)
        self.show(self.last if index is None else index)

    def show(self, index: int) -> None:
        review = self.review
        if review is None:
            return
        index = max(0, min(self.last, int(index)))
        self.index = index
        board = self._board
        self._painter = lambda beside: review.scene(index, board, beside)
        self._paint()
        self.caption = caption(review, index)
        move = review.move_at(index)
        app = _app()
        self.where = (
            app.t("review.start_row")
            if move is None
            else app.t("review.where", number=move.number, at=index, of=self.last)
        )
        for row in self._rows:
            row.background_color = NOW_RGBA if row.position == index else ROW_RGBA
        # The list follows the move shown, once laid out, and again whenever its layout
        # changes (a list just filled, the tablet turned).
        self._shown_row = index
        if not self._follows:
            self._follows = True
            self.ids.moves.bind(height=lambda *_: Clock.schedule_once(self._scroll_to, 0))
            self.ids.scroll.bind(size=lambda *_: Clock.schedule_once(self._scroll_to, 0))
        Clock.schedule_once(self._scroll_to, 0)

    def _scroll_to(self, *_: Any) -> None:
        scroll, index = self.ids.scroll, self._shown_row
        if index < len(self._rows) and self.ids.moves.height > scroll.height:
            scroll.scroll_to(self._rows[index], padding=40, animate=False)

    def _paint(self, *_: Any) -> None:
        widget = self.ids.board
        if widget.width < 2 or widget.height < 2:  # not laid out yet: when it is
            widget.unbind(size=self._paint)
            widget.bind(size=self._paint)
            return
        widget.unbind(size=self._paint)
        if widget.painter is not self._painter:
            widget.painter = self._painter

    def step(self, delta: int) -> None:
        self.show(self.index + delta)

    def keyboard(self, on: bool) -> None:
        """Take the arrow keys while the screen is shown."""
        if on and not self._keys:
            Window.bind(on_key_down=self._key)
        elif not on and self._keys:
            Window.unbind(on_key_down=self._key)
        self._keys = on

    def _key(self, _window: Any, key: int, *_: Any) -> bool:
        if self.review is None:
            return False
        if key in KEYS:
            self.step(KEYS[key])
        elif key == 278:
            self.show(0)
        elif key == 279:
            self.show(self.last)
        else:
            return False
        return True


def caption(review: Review, index: int) -> str:
    """The move shown in words, in the app's language: who played what, its judgement
    and the better move."""
    tr = _app().translator
    move = review.move_at(index)
    if move is None:
        return (
            tr.text("history.start")
            if review.first_number == 1
            else tr.text("review.start_late", number=review.first_number - 1)
        )
    lines = [
        tr.text(
            "review.move", number=move.number, player=review.names[move.player], move=move.notation
        ),
        move.words,
    ]
    if move.judgement:
        lines.append(tr.text("review.judged", judgement=tr.text("judgement." + move.judgement)))
    if move.best:
        lines.append(tr.text("review.better", move=move.best, words=move.best_words))
    if move.forced:
        lines.append(tr.text("review.forced"))
    if index == review.positions - 1 and review.result:
        lines.append(review.result)
    return "\n".join(lines)
