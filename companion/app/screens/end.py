"""The Game end screen: the result with the tie-break, the strength report (worked out
while the game is played when the screen follows it, else on a thread once it ends;
then kept with the game for the History screen), the game to go over move
by move (the review panel: judgements and better moves once the report is done) and the
export, which says what it wrote and where."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from kivy.properties import NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.app.controller import PlayController
from companion.app.history import report_folder, save_analysis
from companion.app.live_analysis import AnalysisFailed, LiveAnalyser, level_config
from companion.app.report import export, final_result, strength, strength_rows, write_charts
from companion.app.screens.common import post
from companion.app.screens.common import running_app as _app
from companion.app.screens.dialogs import tell
from companion.review import build_review


class EndScreen(Screen):
    """Final scores with the tie-break, the strength report, export."""

    result_text = StringProperty("")
    scores_text = StringProperty("")
    strength_text = StringProperty("")
    chart = StringProperty("")
    message = StringProperty("")
    progress = NumericProperty(0.0)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.result: Any = None
        self.analysis: Any = None
        self.folder: Path | None = None
        self._job = 0
        self._live: Any = None
        self._followed: PlayController | None = None

    def follow(self, controller: PlayController, level: int) -> None:
        """Analyse ``controller``'s game while it is played (the report is then ready
        when it ends); a game followed before is dropped."""
        if self._live is not None:
            self._live.stop()
        self._live = LiveAnalyser(level_config(level))
        self._followed = controller
        controller.moves_changed = self._live.feed
        self._live.feed(controller.referee.record())

    def show_result(self, controller: PlayController, folder: Path, level: int) -> None:
        """Show the result now; the strength report follows when the analysis is done."""
        self.result = final_result(controller)
        self.analysis = None
        journal = controller.journal
        self.folder = (
            report_folder(_app().data_path, journal.path) if journal is not None else folder
        )
        self.chart = ""
        self.message = ""
        self.strength_text = ""
        self._fill()
        self._review()
        self._job += 1
        job = self._job
        live = self._live if self._followed is controller else None
        if self.result.record.moves:
            self.progress = 0.001
            threading.Thread(
                target=self._analyse, args=(job, level, live), daemon=True, name="analysis"
            ).start()
        else:
            self.strength_text = _app().t("end.no_moves")

    def _fill(self) -> None:
        result = self.result
        if result is None:
            return
        self.result_text = result.sentence
        rows = sorted(zip(result.scores, result.players, strict=True), reverse=True)
        self.scores_text = "\n".join(
            (
                f"[b]{name}: {score}[/b]"
                if result.players.index(name) in result.winners
                else f"{name}: {score}"
            )
            for score, name in rows
        )
        if self.analysis is not None:
            self._strength()

    def _analyse(self, job: int, level: int, live: Any = None) -> None:
        def progress(done: int, total: int) -> None:
            post(lambda: setattr(self, "progress", done / total if job == self._job else 0))

        try:
            analysis = None
            if live is not None:  # analysed while the game was played
                live.feed(self.result.record)
                try:
                    analysis = live.wait(progress)
                except AnalysisFailed:
                    analysis = None  # worked out again below, from the record
            if analysis is None:
                analysis = strength(self.result.record, level, progress=progress)
            assert self.folder is not None
            chart = write_charts(analysis, self.folder, self.result.players)
            save_analysis(self.folder, analysis)
        except Exception as error:  # the report must never take the app down
            message = str(error)
            post(lambda: setattr(self, "message", _app().t("end.analysis_failed", detail=message)))
            return
        post(lambda: self._analysed(job, analysis, chart))

    def _analysed(self, job: int, analysis: Any, chart: Path) -> None:
        if job != self._job:
            return
        self.analysis = analysis
        self.progress = 1.0
        self.chart = ""
        self.chart = str(chart)
        self._strength()
        self._review(self.ids.review.index)

    def _review(self, index: int | None = None) -> None:
        """The game in the review panel (with the analysis once there is one)."""
        result = self.result
        if result is None:
            return
        review = build_review(result.record, _app().translator, result.players, self.analysis)
        self.ids.review.load(review, index)

    def on_enter(self, *args: Any) -> None:
        self.ids.review.keyboard(True)

    def on_leave(self, *args: Any) -> None:
        self.ids.review.keyboard(False)

    def _strength(self) -> None:
        app = _app()
        rows = strength_rows(self.analysis, self.result.players)
        head = (
            f"{app.t('end.player'):<11}{app.t('end.accuracy'):>10}"
            f"{app.t('end.good'):>8}{app.t('end.inaccuracies'):>8}"
            f"{app.t('end.mistakes'):>9}  {app.t('end.level')}"
        )
        lines = [head]
        for row in rows:
            good = row["best"] + row["good"]
            bad = row["mistake"] + row["blunder"]
            accuracy = "-" if not row["moves"] else f"{row['accuracy']:.1f}%"
            lines.append(
                f"{row['name'][:10]:<11}{accuracy:>10}{good:>8}"
                f"{row['inaccuracy']:>8}{bad:>9}  {row['level'] or '-'}"
            )
        self.strength_text = "\n".join(lines)

    def export(self) -> None:
        """Write the record and the report to the exports folder and say so, in a
        dialog and under the buttons."""
        app = _app()
        if self.result is None:
            return
        folder = app.data_path / "exports" / time.strftime("%Y%m%d-%H%M%S")
        try:
            export(folder, self.result, self.analysis, app.translator)
        except OSError as error:
            self.message = app.t("end.export_failed", detail=str(error))
            tell(app.t("end.export"), self.message)
            return
        self.message = app.t("end.exported", folder=str(folder))
        tell(app.t("end.exported_title"), app.t("end.exported_files", folder=str(folder)))

    def refresh(self) -> None:
        if self.result is not None and self.analysis is not None:
            self._strength()
        if self.result is not None:
            self._review(self.ids.review.index)
