"""The players' clocks on the Play screen: one line, each player's time left (or used,
without a game time), the player to move in bold, named in their colour, with this
move's time, and a time past its end in red with a minus. It follows the game's views
(``companion.app.clock`` does the counting) and keeps the clocks beside the journal at
each move, pause and end."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.uix.label import Label
from kivy.utils import escape_markup

from companion.app.clock import GameClock, open_clock, reading_text, save_clock
from companion.app.layout import PLAYER_RGBA
from companion.app.screens.common import running_app as _app

TICK_S = 0.25
"""How often the shown times are drawn again."""


class ClockBar(Label):
    """See the module's docstring: ``start`` with the game, ``follow`` each view,
    ``stop`` when the game leaves the screen. Shows nothing for a game without clocks."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", True)
        kwargs.setdefault("font_size", "20sp")
        kwargs.setdefault("size_hint_y", None)
        kwargs.setdefault("halign", "left")
        kwargs.setdefault("valign", "middle")
        super().__init__(**kwargs)
        self.bind(
            width=lambda *_: setattr(self, "text_size", (self.width, None)), texture_size=self._fit
        )
        self.clock: GameClock | None = None
        self.problem = ""
        """Why the clocks kept with the game were not used ("" when they were)."""
        self.journal: Any = None
        self.names: tuple[str, ...] = ()
        self.colours: tuple[str, ...] = ()
        self._event: Any = None
        self.height = 0

    def _fit(self, *_: Any) -> None:
        self.height = self.texture_size[1] + dp(6) if self.clock is not None else 0

    def start(self, controller: Any, setup: Any) -> None:
        self.stop()
        journal = controller.journal
        self.journal = journal.path if journal is not None else None
        players = len(controller.referee.rules.players)
        self.clock, self.problem = open_clock(self.journal, setup.clocks, players, time.monotonic())
        self.text = ""
        self._fit()
        if self.clock is not None:
            self._event = Clock.schedule_interval(self._draw, TICK_S)

    def follow(self, view: Any) -> None:
        """The game as ``view`` shows it: whose turn, how many moves, paused or over."""
        clock = self.clock
        if clock is None:
            return
        now = time.monotonic()
        self.names, self.colours = tuple(view.players), tuple(view.colours)
        if clock.follow(view.to_move, len(view.log), not (view.paused or view.over), now):
            self._save(now)
        self._draw()

    def stop(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None
        if self.clock is not None:
            now = time.monotonic()
            self.clock.follow(self.clock.to_move, self.clock.moves, False, now)
            self._save(now)
        self.clock = None
        self.text = ""
        self._fit()

    def _save(self, now: float) -> None:
        if self.journal is not None and self.clock is not None:
            with contextlib.suppress(OSError):  # the times shown go on; the copy lags
                save_clock(self.journal, self.clock, now)

    def _draw(self, *_: Any) -> None:
        clock = self.clock
        if clock is None or not self.names:
            return
        tr = _app().translator
        parts = []
        for reading in clock.readings(time.monotonic()):
            name = self.names[reading.player] if reading.player < len(self.names) else "?"
            text = escape_markup(reading_text(reading, name, tr))
            times = text[len(escape_markup(name)) :]
            if reading.over:  # past the time: the times in red (with a minus)
                times = f"[color=ff5a4a]{times}[/color]"
            if reading.running:  # the player to move: the name in their colour, bold
                colour = self.colours[reading.player] if reading.player < len(self.colours) else ""
                rgba = PLAYER_RGBA.get(colour, (1, 1, 1, 1))
                if colour in ("dark", "black"):
                    rgba = (0.85, 0.85, 0.85, 1)
                shown = "[b][color={:02x}{:02x}{:02x}]{}[/color]{}[/b]".format(
                    *(round(255 * c) for c in rgba[:3]), escape_markup(name), times
                )
            else:
                shown = escape_markup(name) + times
            parts.append(shown)
        self.text = "   ".join(parts)
