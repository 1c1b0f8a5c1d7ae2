"""A player's level over their recorded games, opened from the History screen: a small
chart (per game, a dot at the level played like and a bar over its range; the range of
all their games pooled as a band, its level as a line) and their results against the
players they sat with (``companion.app.levels``)."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import ListProperty, NumericProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.widget import Widget

from companion.app.levels import PlayerLevels
from companion.app.screens.common import running_app as _app
from engines.search.strength import StrengthEstimate

POINT = (0.45, 0.75, 1.0, 1.0)
BAND = (1.0, 0.8, 0.3, 0.22)
POOLED = (1.0, 0.8, 0.3, 1.0)
GRID = (1.0, 1.0, 1.0, 0.18)
TEXT = (0.85, 0.85, 0.88, 1.0)


class LevelChart(Widget):
    """Levels ``0..highest`` upwards, games left to right."""

    points = ListProperty([])
    """Per game, oldest first: (level or None, low, high)."""
    pooled = ListProperty([])
    """(level, low, high) of all games pooled, or empty."""
    dates = ListProperty([])
    """Per game, the label under it."""
    highest = NumericProperty(4)
    """The top level of the scale."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(
            pos=self.redraw,
            size=self.redraw,
            points=self.redraw,
            pooled=self.redraw,
            dates=self.redraw,
            highest=self.redraw,
        )

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        self.clear_widgets()
        left: float = self.x + dp(64)
        bottom: float = self.y + dp(40)
        width: float = max(1.0, self.width - dp(80))
        height: float = max(1.0, self.height - dp(64))
        top = max(1, int(self.highest))

        def y_of(level: float) -> float:
            return bottom + height * (level + 0.5) / (top + 1)

        count = len(self.points)

        def x_of(index: int) -> float:
            return left + width * (index + 0.5) / max(1, count)

        with self.canvas:
            Color(*GRID)
            for level in range(top + 1):
                Line(points=[left, y_of(level), left + width, y_of(level)], width=1)
            if self.pooled:
                level, low, high = self.pooled
                Color(*BAND)
                Rectangle(
                    pos=(left, y_of(low - 0.4)), size=(width, y_of(high + 0.4) - y_of(low - 0.4))
                )
                Color(*POOLED)
                Line(points=[left, y_of(level), left + width, y_of(level)], width=dp(1.5))
            for index, (level, low, high) in enumerate(self.points):
                x = x_of(index)
                Color(*POINT)
                Line(points=[x, y_of(low - 0.25), x, y_of(high + 0.25)], width=dp(2.5), cap="round")
                if level is not None:
                    r = dp(7)
                    Ellipse(pos=(x - r, y_of(level) - r), size=(2 * r, 2 * r))
        for level in range(top + 1):
            self._label(str(level), left - dp(30), y_of(level), dp(26))
        self._label(
            _app().t("levels.axis"), self.x + dp(2), bottom + height + dp(4), dp(60), align="left"
        )  # the axis' name above it
        step = max(1, count // 6)
        for index, text in enumerate(self.dates):
            if index % step == 0 or index == count - 1:
                self._label(text, x_of(index), self.y + dp(16), dp(90), dp(36))

    def _label(
        self,
        text: str,
        x: float,
        y: float,
        width: float,
        height: float = 0.0,
        align: str = "center",
    ) -> None:
        height = height or dp(20)
        label = Label(
            text=text,
            font_size="14sp",
            color=TEXT,
            size_hint=(None, None),
            size=(width, height),
            halign=align,
            valign="middle",
        )
        label.text_size = label.size
        label.pos = (x - width / 2 if align == "center" else x, y - height / 2)
        self.add_widget(label)


def level_words(found: StrengthEstimate | None) -> str:
    """ "level 2 (range 1-3)", or why there is none."""
    app = _app()
    if found is None or found.level is None:
        return app.t("levels.not_enough", moves=0 if found is None else found.moves)
    if found.whole_scale:
        return app.t("levels.untold", low=found.low, high=found.high)
    return app.t("levels.level", level=found.level, low=found.low, high=found.high)


def summary_text(player: PlayerLevels) -> str:
    """The pooled level per game and player count, then the head-to-head results."""
    app = _app()
    lines = []
    for key, found in player.pooled.items():
        game, count = key.rsplit("-", 1)
        games = sum(1 for g in player.games if g.key == key)
        lines.append(
            app.t(
                "levels.pooled" if games > 1 else "levels.pooled_one",
                games=games,
                game=app.t_name("game", game),
                players=count,
                level=level_words(found),
            )
        )
        if found.note:
            lines.append(f"   ({found.note})")
    if not player.games:
        lines.append(app.t("levels.none", name=player.name))
    for rival in player.rivals:
        lines.append(
            app.t(
                "levels.head_to_head" if rival.games > 1 else "levels.head_to_head_one",
                name=rival.opponent,
                games=rival.games,
                ahead=rival.ahead,
                behind=rival.behind,
                level=rival.level,
            )
        )
    return "\n".join(lines)


def chart_games(player: PlayerLevels) -> tuple[str, list[Any]]:
    """The game and player count the chart shows (the one with most games) and its
    games."""
    if not player.games:
        return "", []
    keys = [g.key for g in player.games]
    key = max(sorted(set(keys)), key=keys.count)
    return key, [g for g in player.games if g.key == key]


def open_levels(player: PlayerLevels) -> Popup:
    """The player's levels in a dialog (``popup.chart`` and ``popup.summary`` for
    tests)."""
    app = _app()
    key, games = chart_games(player)
    body = BoxLayout(orientation="vertical", spacing=dp(8), padding=dp(8))
    chart = LevelChart(size_hint_y=0.55)
    if games:
        chart.highest = max(max(g.estimate.posterior, default=g.estimate.high) for g in games)
        chart.dates = [g.when[5:].replace(" ", "\n") for g in games]
        chart.points = [(g.estimate.level, g.estimate.low, g.estimate.high) for g in games]
        found = player.pooled.get(key)
        if found is not None and found.level is not None:
            chart.pooled = [found.level, found.low, found.high]
    body.add_widget(chart)
    legend = Factory.WrapLabel(text=app.t("levels.legend"), font_size="14sp", color=TEXT)
    body.add_widget(legend)
    summary = Factory.WrapLabel(text=summary_text(player), font_size="16sp")
    body.add_widget(summary)
    close = Factory.TapButton(text=app.t("common.ok"), size_hint_y=None, height=dp(56))
    body.add_widget(close)
    title = app.t(
        "levels.title",
        name=player.name,
        game=app.t_name("game", key.rsplit("-", 1)[0]) if key else "",
    )
    popup = Popup(title=title, title_size="20sp", content=body, size_hint=(0.92, 0.92))
    close.bind(on_release=lambda *_: popup.dismiss(animation=False))
    popup.chart = chart
    popup.summary = summary
    popup.open(animation=False)
    return popup
