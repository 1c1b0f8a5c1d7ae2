"""The Kivy application: loads the ``.kv`` files, switches screens, holds the language,
and hands each screen what it needs. No game or storage logic lives here: the screens
forward to the pure layer.

``run_app`` opens the app (on the Start screen, or straight into a game on a video for
``companion demo``)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.utils import platform

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup, Seat
from companion.app.history import reopen
from companion.app.i18n import LANGUAGES, Translator, system_language, table
from companion.app.report import ANALYSIS_LEVEL
from companion.app.screens import (  # noqa: F401  (the kv rules name these classes)
    CalibrateScreen,
    EndScreen,
    GameRow,
    HistoryScreen,
    OptionChoiceRow,
    OptionTextRow,
    PlayScreen,
    RootView,
    SeatRow,
    StartScreen,
)
from companion.app.sound import alarm_file
from companion.app.speech import Announcer
from companion.app.widgets import (  # noqa: F401  (the kv rules name these classes)
    Alarm,
    BoardWidget,
    CameraView,
    LayoutOverlay,
    Swatch,
)
from companion.referee.journal import JournalError
from engines import GameState

LARGE_TEXT = 1.5
"""How much larger the Play screen's texts are in the large-text mode (read at arm's
length, from the other side of the table)."""
SETTINGS = "table"
"""The section of the settings file holding the players' choices: ``speech`` (say the
moves aloud) and ``large_text``."""

KV_FILES = ("common.kv", "start.kv", "play.kv", "end.kv", "history.kv", "calibrate.kv")


def load_kv() -> None:
    """Load the layout files once per process."""
    if getattr(load_kv, "done", False):
        return
    folder = resources.files("companion.app.kv")
    for name in KV_FILES:
        Builder.load_string(folder.joinpath(name).read_text("utf-8"), filename=name)
    load_kv.done = True  # type: ignore[attr-defined]


class CompanionApp(App):
    """The tablet app. ``setup`` with ``autostart`` opens straight into that game."""

    title = "Companion"
    lang = StringProperty("en")
    portrait = BooleanProperty(False)
    language_names = ListProperty([table(code)["language.name"] for code in LANGUAGES])
    speaking = BooleanProperty(False)
    """Spoken announcements on (a setting, kept in the settings file)."""
    text_scale = NumericProperty(1.0)
    """The Play screen's text size: 1, or ``LARGE_TEXT`` in the large-text mode."""

    def __init__(
        self,
        setup: GameSetup | None = None,
        autostart: bool = False,
        data_dir: str | Path | None = None,
        language: str = "en",
        muted: bool = False,
        analysis_level: int = ANALYSIS_LEVEL,
        session_options: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.translator = Translator(language)
        super().__init__(**kwargs)
        self.lang = language
        self.setup = setup or GameSetup.default()
        self.autostart = autostart
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self.muted = muted
        self.analysis_level = analysis_level
        self.session_options = session_options or {}
        self.started = time.perf_counter()
        self.speech = Announcer(language=lambda: self.lang)
        self.ready_after = 0.0
        """Seconds from the app object's creation to its first frame on screen."""

    # ------------------------------------------------------------------ Kivy

    def get_application_config(self, defaultpath: str = "") -> str:
        """Kivy's settings file lives with the app's data, not beside the code."""
        return str(self.data_path / "companion.ini")

    def build_config(self, config: Any) -> None:
        config.setdefaults(SETTINGS, {"speech": "0", "large_text": "0"})

    def build(self) -> RootView:
        load_kv()
        root = RootView()
        root.ids.play.speech = self.speech
        self.set_speech(self.config.getboolean(SETTINGS, "speech"), keep=False)
        self.set_large_text(self.config.getboolean(SETTINGS, "large_text"), keep=False)
        Window.bind(size=self._resized)
        self._resized(Window, Window.size)
        Window.bind(on_flip=self._first_frame)
        return root

    def on_start(self) -> None:
        start: StartScreen = self.root.ids.start
        start.load(self.setup)
        if self.autostart:
            self.begin(self.setup)

    def on_stop(self) -> None:
        self.root.ids.play.detach()
        self.root.ids.calibrate.close()
        self.speech.close()

    def _first_frame(self, *_: Any) -> None:
        Window.unbind(on_flip=self._first_frame)
        self.ready_after = time.perf_counter() - self.started

    def _resized(self, _window: Any, size: Any) -> None:
        width, height = size
        self.portrait = height > width

    # ------------------------------------------------------------------ strings

    def t(self, key: str, *_language: Any, **fields: Any) -> str:
        """The text of ``key`` (kv passes ``app.lang`` so labels follow a switch)."""
        return self.translator.text(key, **fields)

    def t_name(self, kind: str, value: Any, *_language: Any) -> str:
        return self.translator.name(kind, value)

    def choose_language(self, shown: str) -> None:
        for code in LANGUAGES:
            if table(code)["language.name"] == shown:
                self.set_language(code)

    def set_language(self, code: str) -> None:
        if code == self.lang:
            return
        self.translator.set_language(code)
        self.lang = code
        ids = self.root.ids
        ids.play.refresh()
        ids.end.refresh()
        ids.history.language_changed()

    # ------------------------------------------------------------------ settings

    def set_speech(self, on: bool, keep: bool = True) -> None:
        """Spoken announcements on or off; ``keep`` writes it to the settings file."""
        self.speaking = on
        self.speech.set_enabled(on)
        if keep:
            self._keep("speech", on)

    def set_large_text(self, on: bool, keep: bool = True) -> None:
        self.text_scale = LARGE_TEXT if on else 1.0
        if keep:
            self._keep("large_text", on)

    def _keep(self, key: str, on: bool) -> None:
        self.config.set(SETTINGS, key, "1" if on else "0")
        self.config.write()

    # ------------------------------------------------------------------ places

    @property
    def user_data_dir(self) -> str:
        """Kivy's data folder for the app. Kivy makes only its last level; on Linux
        its parent (``$XDG_CONFIG_HOME``, or ``~/.config``) may not exist yet on a
        fresh account, so it is made here first."""
        if platform not in ("android", "ios", "win", "macosx"):
            parent = os.environ.get("XDG_CONFIG_HOME") or "~/.config"
            Path(parent).expanduser().mkdir(parents=True, exist_ok=True)
        return str(super().user_data_dir)

    @property
    def data_path(self) -> Path:
        """Where games, reports and the alarm sound are kept (``user_data_dir``)."""
        return self._data_dir if self._data_dir is not None else Path(self.user_data_dir)

    def go(self, screen: str) -> None:
        self.root.ids.manager.current = screen

    # ------------------------------------------------------------------ flow

    def begin(self, setup: GameSetup) -> None:
        """Start a new game (journaled) and show it."""
        self.setup = setup
        controller = PlayController.start(setup, self.translator, self.data_path / "games")
        self.play(controller, setup)

    def play(self, controller: PlayController, setup: GameSetup) -> None:
        alarm = Alarm(alarm_file(self.data_path))
        alarm.muted = self.muted
        self.root.ids.play.attach(controller, setup, alarm, **self.session_options)
        self.root.ids.end.follow(controller, self.analysis_level)
        self.go("play")

    def reopen(self, journal: Path) -> None:
        """Go on with a past game (its journal is appended to); readings come from the
        camera and sensor board chosen on the Start screen."""
        try:
            resumed, seats = reopen(journal)
        except JournalError as error:
            self.root.ids.history.title = self.t("history.unreadable", detail=str(error))
            return
        referee = resumed.referee.referee
        controller = PlayController(referee, seats, self.translator, resumed.referee.journal)
        setup = GameSetup(
            referee.rules.game,
            referee.rules.options_json(),
            seats,
            camera=self.setup.camera,
            camera_index=self.setup.camera_index,
            video=self.setup.video,
            sensors=self.setup.sensors,
            port=self.setup.port,
        )
        self.play(controller, setup)

    def finish(self, controller: PlayController) -> None:
        """The game ends (or is ended): show the result and the strength report."""
        self.root.ids.play.detach()
        folder = self.data_path / "reports" / time.strftime("%Y%m%d-%H%M%S")
        self.root.ids.end.show_result(controller, folder, self.analysis_level)
        self.go("end")


def run_app(
    game: str = "shangrila",
    video: str | Path | None = None,
    camera: int | None = None,
    sensor_sim: bool = False,
    demo: bool = False,
    language: str | None = None,
    data_dir: str | Path | None = None,
    autostart: bool | None = None,
    players: int | Sequence[str] | None = None,
    start: GameState[Any] | None = None,
) -> int:
    """Open the app. With ``video``, ``camera`` or ``demo`` it opens straight into a game
    of ``game`` read from there (``demo``: the table simulator, no camera); otherwise on
    the New game screen with ``game`` chosen. ``players``: how many, or their colours in
    turn order; ``start``: the position the game begins from (its rules give the game,
    the players and the options). Returns the exit status (0)."""
    setup = _setup(game, players, start)
    if video is not None:
        setup = replace(setup, camera="video", video=str(video))
    elif camera is not None:
        setup = replace(setup, camera="index", camera_index=camera)
    elif demo:
        setup = replace(setup, demo=True)
    if sensor_sim:
        setup = replace(setup, sensors="simulator")
    opens_game = video is not None or camera is not None or demo
    CompanionApp(
        setup,
        autostart=opens_game if autostart is None else autostart,
        data_dir=data_dir,
        language=language or system_language(),
    ).run()
    return 0


def _setup(
    game: str, players: int | Sequence[str] | None, start: GameState[Any] | None
) -> GameSetup:
    if start is not None:
        rules = start.rules
        return GameSetup(
            rules.game,
            rules.options_json(),
            tuple(Seat(colour) for colour in rules.players),
            start=start.to_json(),
        )
    setup = GameSetup.default(game)
    if isinstance(players, int):
        return setup.with_players(players)
    if players is not None:
        return replace(setup, seats=tuple(Seat(colour) for colour in players))
    return setup
