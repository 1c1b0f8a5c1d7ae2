"""The History screen: past games from their journals (date, game, players with their
scores, the winner), each gone over move by move in the review panel (with the
strength report's judgements when one was made at its end), exported as a report, or
reopened; and each named player's level over their games with their head-to-head
results (``companion.app.screens.levels``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kivy.factory import Factory
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.app.history import (
    AnalysisError,
    list_games,
    load_analysis,
    replay_record,
    report_folder,
)
from companion.app.levels import SkippedGame, collect
from companion.app.report import Result, export
from companion.app.screens.common import running_app as _app
from companion.app.screens.dialogs import tell
from companion.app.screens.levels import open_levels
from companion.referee.journal import JournalError
from companion.review import build_review
from engines import EngineError
from engines.search.strength import CalibrationError


class GameRow(BoxLayout):
    path = StringProperty("")
    label = StringProperty("")
    screen = ObjectProperty(None, allownone=True)


class HistoryScreen(Screen):
    """Past games: go over one move by move, export its report, or reopen it."""

    title = StringProperty("")
    empty_text = StringProperty("")
    selected = StringProperty("")
    message = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record: Any = None
        self.past: Any = None
        self.games: dict[str, Any] = {}
        self.players: dict[str, Any] = {}

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def on_enter(self, *args: Any) -> None:
        self.ids.review.keyboard(True)

    def on_leave(self, *args: Any) -> None:
        self.ids.review.keyboard(False)

    def refresh(self) -> None:
        app = _app()
        box = self.ids.games
        box.clear_widgets()
        games = list_games(app.data_path / "games")
        self.games = {str(past.path): past for past in games}
        self.empty_text = "" if games else app.t("history.none")
        for past in games:
            box.add_widget(GameRow(path=str(past.path), label=row_text(past), screen=self))
        self._players()

    def language_changed(self) -> None:
        """Everything written again in the app's new language: the games' rows, the
        players, the game being gone over (at the move shown) and its title."""
        selected, index = self.selected, self.ids.review.index
        self.message = ""
        self.refresh()  # says again, in the new language, the games the levels left out
        if selected:
            self.select(selected)
            if self.selected == selected:
                self.show(index)

    def _players(self) -> None:
        """A button for each named player with a level or a rival to show."""
        app = _app()
        box = self.ids.players
        box.clear_widgets()
        skipped: list[SkippedGame] = []
        try:
            self.players = collect(
                app.data_path, lambda level: app.t("levels.engine", level=level), skipped=skipped
            )
        except CalibrationError as error:
            self.players = {}
            self.message = app.t("levels.unreadable", detail=str(error))
        if skipped:
            key = "levels.skipped" if len(skipped) > 1 else "levels.skipped_one"
            self.message = app.t(
                key,
                count=len(skipped),
                detail="; ".join(f"{game.when}: {game.reason}" for game in skipped),
            )
        for key, player in sorted(self.players.items()):
            if player.games or player.rivals:
                button = Factory.TapButton(text=player.name, font_size="16sp")
                button.bind(on_release=lambda _b, k=key: self.show_player(k))
                box.add_widget(button)

    def show_player(self, key: str) -> Any:
        """The player's level over their games and their head-to-head results."""
        return open_levels(self.players[key])

    def select(self, path: str) -> None:
        app = _app()
        self.message = ""
        try:
            record = replay_record(Path(path))
            past = self.games.get(path)
            names = past.names if past is not None else ()
            try:
                analysis = load_analysis(report_folder(app.data_path, Path(path)), record)
            except AnalysisError as error:  # the moves are gone over without it
                analysis = None
                self.message = app.t("history.report_unreadable", detail=str(error))
            review = build_review(
                record, app.translator, names, analysis, result=self._outcome(past)
            )
        except (JournalError, EngineError) as error:
            self.title = app.t("history.unreadable", detail=str(error))
            self.selected = ""
            self.ids.review.load(None)
            return
        self.record, self.past = record, past
        self.selected = path
        self.title = app.t(
            "history.replaying", game=app.t_name("game", record.game), moves=len(record.moves)
        )
        self.ids.review.load(review)

    def _outcome(self, past: Any) -> str:
        if past is None or not past.scores:
            return ""
        return row_text(past).split(" · ", 2)[-1]

    def show(self, index: int) -> None:
        self.ids.review.show(index)

    def export(self) -> None:
        """Write the selected game's report and record to the exports folder, and say
        where."""
        app = _app()
        if self.record is None or self.past is None:
            return
        past, record = self.past, self.record
        names = tuple(
            n or app.t_name("colour", c).capitalize()
            for n, c in zip(past.names or ("",) * len(past.players), past.players, strict=True)
        )
        try:
            analysis = load_analysis(report_folder(app.data_path, past.path), record)
        except AnalysisError as error:
            self.message = app.t("end.export_failed", detail=str(error))
            return
        result = Result(
            record.game, names, past.scores, past.winners, self._outcome(past), past.over, record
        )
        folder = app.data_path / "exports" / time.strftime("%Y%m%d-%H%M%S")
        try:
            export(folder, result, analysis, app.translator)
        except OSError as error:
            self.message = app.t("end.export_failed", detail=str(error))
            return
        self.message = app.t("end.exported", folder=str(folder))
        tell(app.t("end.exported_title"), app.t("end.exported_files", folder=str(folder)))

    def reopen(self) -> None:
        if self.selected:
            _app().reopen(Path(self.selected))


def row_text(past: Any) -> str:
    """One past game, readable from its first character: the date, the game, each
    player with their score, the winner (or that it is not finished)."""
    app = _app()
    if past.problem:
        return f"{past.when} · {app.t('history.unreadable', detail=past.problem)}"
    names = [
        n or app.t_name("colour", c).capitalize()
        for n, c in zip(past.names or ("",) * len(past.players), past.players, strict=True)
    ]
    game = app.t_name("game", past.game)
    if not past.scores:
        return f"{past.when} · {game} · {', '.join(names)}"
    scores = ", ".join(f"{name} {score}" for name, score in zip(names, past.scores, strict=True))
    outcome = (
        app.t("history.won", names=" & ".join(names[w] for w in past.winners), moves=past.moves)
        if past.over and past.winners
        else app.t("history.unfinished", moves=past.moves)
    )
    return app.t("history.row", when=past.when, game=game, scores=scores, outcome=outcome)
