"""The History screen: past games from their journals, replayed move by move or
reopened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.app.layout import board_layout, paint
from companion.app.screens.common import running_app as _app


class GameRow(BoxLayout):
    path = StringProperty("")
    label = StringProperty("")
    screen = ObjectProperty(None, allownone=True)


class HistoryScreen(Screen):
    """Past games: replay move by move, or reopen to go on playing."""

    title = StringProperty("")
    empty_text = StringProperty("")
    move_text = StringProperty("")
    board_shapes = ListProperty([])
    board_size = ListProperty([500.0, 500.0])
    moves = NumericProperty(0)
    index = NumericProperty(0)
    selected = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record: Any = None
        self.states: list[Any] = []

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        from companion.app.history import list_games

        app = _app()
        box = self.ids.games
        box.clear_widgets()
        games = list_games(app.data_path / "games")
        self.empty_text = "" if games else app.t("history.none")
        for past in games:
            if past.problem:
                label = f"{past.when}: {app.t('history.unreadable', detail=past.problem)}"
            else:
                label = app.t("history.row", when=past.when, game=app.t_name("game", past.game),
                              players=", ".join(app.t_name("colour", p) for p in past.players),
                              moves=past.moves)
            row = GameRow(path=str(past.path), label=label, screen=self)
            box.add_widget(row)

    def select(self, path: str) -> None:
        from companion.app.history import positions, replay_record
        from companion.referee.journal import JournalError
        from engines import EngineError

        app = _app()
        try:
            self.record = replay_record(Path(path))
            self.states = positions(self.record)
        except (JournalError, EngineError) as error:
            self.title = app.t("history.unreadable", detail=str(error))
            self.selected = ""
            return
        self.selected = path
        self.title = app.t("history.replaying", game=app.t_name("game", self.record.game),
                           moves=len(self.record.moves))
        self.board_size = list(board_layout(self.record.game).size)
        self.moves = len(self.record.moves)
        self.show(self.moves)

    def show(self, index: int) -> None:
        import importlib

        if not self.states:
            return
        index = max(0, min(len(self.states) - 1, index))
        self.index = index
        state = self.states[index]
        game = self.record.game
        table = importlib.import_module(f"engines.{game}.observation").expected(state)
        self.board_shapes = paint(board_layout(game), table)
        app = _app()
        if index == 0:
            self.move_text = app.t("history.start")
        else:
            mover = self.states[index - 1].to_move
            from companion.app.wording import move_words

            who = app.t_name("colour", self.record.players[mover]).capitalize()
            text = self.record.moves[index - 1]
            self.move_text = (f"{index}. {who}: {text}\n"
                              f"{move_words(app.translator, state.rules, who, text)}")

    def reopen(self) -> None:
        if self.selected:
            _app().reopen(Path(self.selected))
