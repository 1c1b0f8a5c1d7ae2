"""The New game screen: the game, its rule options, the players, the camera and the
sensor board, edited as a ``GameSetup``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.app.clock import MOVE_CHOICES, TOTAL_CHOICES, ClockSettings, Limit, limit_words
from companion.app.gamesetup import CAMERA_KINDS, SENSOR_KINDS, GameSetup, OptionSpec, option_specs
from companion.app.layout import PLAYER_RGBA
from companion.app.screens.common import running_app as _app
from engines import available_games
from engines.search.players import LEVELS


class OptionChoiceRow(BoxLayout):
    option = StringProperty("")
    value = ObjectProperty(None, allownone=True)
    values = ListProperty([])
    screen = ObjectProperty(None, allownone=True)

    def chosen(self, shown: str) -> None:
        app = _app()
        for value in self.values:
            if app.t_name("value", value) == shown:
                self.screen.set_option(self.option, value)
                return


class OptionTextRow(BoxLayout):
    option = StringProperty("")
    value = StringProperty("")
    screen = ObjectProperty(None, allownone=True)

    def typed(self, text: str) -> None:
        self.screen.type_option(self.option, text)


class SeatRow(BoxLayout):
    index = NumericProperty(0)
    colour = StringProperty("")
    rgba = ListProperty([1, 1, 1, 1])
    seat_name = StringProperty("")
    engine = BooleanProperty(False)
    level = NumericProperty(0)
    levels = ListProperty(sorted(LEVELS))
    screen = ObjectProperty(None, allownone=True)

    def renamed(self, text: str) -> None:
        self.screen.set_seat(self.index, name=text)

    def engine_set(self, engine: bool) -> None:
        self.screen.set_seat(self.index, engine=engine)

    def level_set(self, shown: str) -> None:
        digits = "".join(c for c in shown if c.isdigit())
        if digits:
            self.screen.set_seat(self.index, level=int(digits))


class StartScreen(Screen):
    """Choose the game, its options, the players, the camera and the sensor board."""

    games = ListProperty(available_games())
    game = StringProperty("shangrila")
    counts = ListProperty([])
    count = NumericProperty(0)
    camera_kinds = ListProperty(["none", "demo", "index", "video"])
    camera = StringProperty("none")
    camera_value = StringProperty("")
    sensor_kinds = ListProperty(list(SENSOR_KINDS))
    sensors = StringProperty("none")
    port = StringProperty("")
    problems = StringProperty("")
    clock_minutes = ListProperty(list(TOTAL_CHOICES))
    clock_seconds = ListProperty(list(MOVE_CHOICES))
    clock_total = NumericProperty(0)
    """Minutes of game time per player (0: none)."""
    clock_move = NumericProperty(0)
    """Seconds per move (0: none)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.setup = GameSetup.default()
        self._option_errors: dict[str, str] = {}

    def on_kv_post(self, base_widget: Any) -> None:
        self.load(self.setup)

    def load(self, setup: GameSetup) -> None:
        """Show ``setup`` (a new game, or the last one played)."""
        self.setup = setup
        self.game = setup.game
        self.counts = setup.player_counts()
        self.count = len(setup.seats)
        self.camera = "demo" if setup.demo else setup.camera
        self.camera_value = (
            setup.video
            if setup.camera == "video"
            else str(setup.camera_index)
            if setup.camera == "index"
            else ""
        )
        self.sensors, self.port = setup.sensors, setup.port
        first = setup.clocks.limits[0] if setup.clocks.limits else Limit()
        self.clock_total, self.clock_move = round(first.total / 60), round(first.per_move)
        self._option_errors = {}
        self._rows()

    def _rows(self) -> None:
        seats, options = self.ids.seats, self.ids.options
        seats.clear_widgets()
        for i, seat in enumerate(self.setup.seats):
            seats.add_widget(
                SeatRow(
                    index=i,
                    colour=seat.colour,
                    seat_name=seat.name,
                    rgba=list(PLAYER_RGBA.get(seat.colour, (1, 1, 1, 1))),
                    engine=seat.engine,
                    level=seat.level,
                    screen=self,
                )
            )
        options.clear_widgets()
        for spec in option_specs(self.setup.game):
            options.add_widget(self._option_row(spec))
        self.check()

    def _option_row(self, spec: OptionSpec) -> BoxLayout:
        value = self.setup.options.get(spec.name, spec.default)
        if spec.kind == "choice":
            return OptionChoiceRow(
                option=spec.name, value=value, values=list(spec.choices), screen=self
            )
        return OptionTextRow(
            option=spec.name, value="" if value is None else str(value), screen=self
        )

    # ------------------------------------------------------------------ edits

    def choose_game(self, shown: str) -> None:
        app = _app()
        for game in self.games:
            if app.t_name("game", game) == shown and game != self.setup.game:
                self.load(replace(GameSetup.default(game), clocks=self.setup.clocks))
                return

    def choose_count(self, shown: str) -> None:
        for n in self.counts:
            if _app().t("start.count", count=n) == shown and n != len(self.setup.seats):
                self.setup = self.setup.with_players(n)
                self.count = n
                self._rows()
                return

    def set_option(self, name: str, value: Any) -> None:
        self.setup = replace(self.setup, options={**self.setup.options, name: value})
        self.check()

    def type_option(self, name: str, text: str) -> None:
        spec = next(s for s in option_specs(self.setup.game) if s.name == name)
        try:
            value = spec.parse(text) if text.strip() else spec.default
        except ValueError as error:
            self._option_errors[name] = str(error)
        else:
            self._option_errors.pop(name, None)
            self.set_option(name, value)
        self.check()

    def set_seat(self, index: int, **changes: Any) -> None:
        seats = list(self.setup.seats)
        if 0 <= index < len(seats):
            seats[index] = replace(seats[index], **changes)
            self.setup = replace(self.setup, seats=tuple(seats))
            for row in self.ids.seats.children:
                if row.index == index:
                    for key, value in changes.items():
                        setattr(row, {"name": "seat_name"}.get(key, key), value)
        self.check()

    def choose_camera(self, shown: str) -> None:
        for kind in self.camera_kinds:
            if _app().t_name("camera", kind) == shown:
                self.camera = kind
        self._camera_setup()

    def set_camera_value(self, text: str) -> None:
        self.camera_value = text
        self._camera_setup()

    def _camera_setup(self) -> None:
        kind = self.camera
        setup = replace(
            self.setup, demo=kind == "demo", camera=kind if kind in CAMERA_KINDS else "none"
        )
        if kind == "video":
            setup = replace(setup, video=self.camera_value.strip())
        elif kind == "index":
            digits = self.camera_value.strip()
            setup = replace(setup, camera_index=int(digits) if digits.isdigit() else 0)
        self.setup = setup
        self.check()

    def choose_sensors(self, shown: str) -> None:
        for kind in self.sensor_kinds:
            if _app().t_name("sensors", kind) == shown:
                self.sensors = kind
                self.setup = replace(self.setup, sensors=kind)
        self.check()

    def set_port(self, text: str) -> None:
        self.port = text
        self.setup = replace(self.setup, port=text.strip())

    def choose_clock(self, total_shown: str, move_shown: str) -> None:
        """The clocks from the two choices' words (the same for every player)."""
        tr = _app().translator
        for minutes in self.clock_minutes:
            if limit_words(tr, minutes, 0)[0] == total_shown:
                self.clock_total = minutes
        for seconds in self.clock_seconds:
            if limit_words(tr, 0, seconds)[1] == move_shown:
                self.clock_move = seconds
        clocks = ClockSettings.same(
            len(self.setup.seats), 60.0 * self.clock_total, float(self.clock_move)
        )
        self.setup = replace(self.setup, clocks=clocks)

    def check(self) -> list[str]:
        problems = [*self._option_errors.values(), *self.setup.check()]
        self.problems = "\n".join(problems)
        return problems

    def begin(self) -> None:
        if not self.check():
            _app().begin(self.setup)
