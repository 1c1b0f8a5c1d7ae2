"""The demo from start to end, printing as it goes (see the package's docstring)."""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from companion.app import prepare_kivy
from companion.app.gamesetup import GameSetup, Seat
from companion.app.people import DemoFilm
from companion.app.recognition import VisionRecogniser
from companion.demo.base import NAMES, DemoError
from companion.demo.calibrate import TableCalibration, calibrate_table
from companion.demo.chain import ChainResult, referee_film
from companion.demo.film import QUIET_END, Moment, Shot, frames, moments, observation_of, shoot
from companion.demo.recognise import CameraReader, camera_pipeline
from companion.demo.report import Timings, renumbered, strength_table, write_report
from companion.demo.script import SPECS, Script, make_script
from companion.referee.events import Output
from companion.referee.words import say, tiebreak_words
from companion.simulator import TableSimulator
from engines.search.analysis import analyse
from engines.search.mcts import SearchConfig
from engines.search.players import LEVELS

STABLE_FRAMES = 2
"""Still frames the referee waits for: the camera pipeline already waits for the board
to be still before it reads it."""


@dataclass(frozen=True)
class DemoOptions:
    game: str = "shangrila"
    seed: int = 0
    out: Path = Path("companion-demo")
    sensor: bool = False
    moves: int | None = None
    level: int = 3
    reader: str = "appearance"
    """How the camera reads the table (``companion.demo.recognise.READERS``)."""
    language: str = "en"
    """The report's language, and the app's (en, fr or es)."""
    shot: Shot = field(default_factory=Shot)


@dataclass(frozen=True)
class Prepared:
    """What the demo makes before the referee watches: the game, the calibrated table,
    the film and its video file, and what it took."""

    script: Script
    table: TableCalibration
    film: list[Moment]
    video: Path
    timings: Timings


class Progress:
    """A progress line: rewritten in place on a terminal, every quarter otherwise."""

    def __init__(self, out: TextIO, what: str) -> None:
        self.out, self.what = out, what
        self.tty = out.isatty()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        share = done / max(1, total)
        if self.tty:
            bar = "#" * int(30 * share)
            self.out.write(f"\r  {self.what}: [{bar:<30}] {done}/{total}")
            if done >= total:
                self.out.write("\n")
            self.out.flush()
        elif int(4 * share) > self.shown:
            self.shown = int(4 * share)
            self.out.write(f"  {self.what}: {100 * share:.0f}% ({done}/{total})\n")
            self.out.flush()

    def clear(self) -> None:
        """Make room for a line of its own in the middle of the bar."""
        if self.tty:
            self.out.write("\r" + " " * 60 + "\r")


def prepare(options: DemoOptions, out: TextIO) -> Prepared:
    """The game, the calibrated table, the film and the video file; what it took."""
    spec = SPECS[options.game]
    if options.moves is not None:
        if options.moves <= QUIET_END:
            raise DemoError(f"the film shows at least {QUIET_END + 1} moves, not {options.moves}")
        # a shorter film cannot promise all the default one shows
        features = spec.features if options.moves >= spec.filmed else ()
        spec = dataclasses.replace(spec, filmed=options.moves, features=features)
    out.write(
        f"companion demo: {NAMES[options.game]}, {len(spec.players)} players "
        f"({', '.join(spec.players)}; engine levels "
        f"{', '.join(map(str, spec.levels))}).\n"
    )
    start = time.perf_counter()
    script = make_script(spec, options.seed, progress=lambda text: out.write(f"  {text}\n"))
    script_s = time.perf_counter() - start
    out.write(
        f"  the game has {len(script.moves)} moves; the film joins it after move "
        f"{script.joined_at} and shows the last {len(script.filmed_moves)}.\n"
    )
    options.out.mkdir(parents=True, exist_ok=True)
    table = _calibrate(options, out)
    out.write("\nFilming the game…\n")
    start = time.perf_counter()
    film = moments(script, options.shot, options.seed)
    video = options.out / "film.mp4"
    renders = shoot(
        script,
        film,
        options.shot,
        video,
        options.seed,
        Progress(out, f"filming {len(film)} frames"),
    )
    film_s = time.perf_counter() - start
    out.write(
        f"  film: {video} ({len(film)} frames, {renders} pictures rendered, {film_s:.0f} s)\n"
    )
    return Prepared(
        script,
        table,
        film,
        video,
        Timings(script_s, film_s, renders, 0.0, 0.0, calibration_s=table.seconds),
    )


def _calibrate(options: DemoOptions, out: TextIO) -> TableCalibration:
    """Calibrate the demo's table, saying each step."""
    out.write(
        "\nCalibrating the table, as a player does once before playing (the "
        "camera photographs the empty board and the calibration position)…\n"
    )
    out.flush()
    table = calibrate_table(
        options.game,
        options.shot,
        options.seed,
        options.out,
        lambda text: (out.write(f"  {text}\n"), out.flush()),
    )
    out.write(f"  profile saved in {table.folder} ({table.seconds:.0f} s)\n")
    out.write(
        f"  the camera reads through "
        f"{'; '.join(table.to_json(options.out, options.reader)['profile'])}\n"
    )
    return table


def run_demo(options: DemoOptions, out: TextIO) -> Path:
    """The whole demo, headless; the report's HTML page."""
    begin = time.perf_counter()
    prepared = prepare(options, out)
    script, video = prepared.script, prepared.video
    players = list(script.spec.players)
    out.write("\nThe referee watches the film:\n")
    progress = Progress(out, "reading the film")

    def verdict(frame: int, output: Output) -> None:
        text = say(
            renumbered(output, script.joined_at),
            players,  # the game's numbers
            script.spec.game,
        )
        if text and output.name != "move_in_progress":
            progress.clear()
            out.write(f"  [{frame / 10:5.1f} s] {text}\n")
            out.flush()

    start = time.perf_counter()
    reader = CameraReader(camera_pipeline(prepared.table.profile, script.rules, options.reader))
    chain = referee_film(
        script,
        prepared.film,
        frames(video),
        reader,
        stable_frames=STABLE_FRAMES,
        sensor=options.sensor,
        on_output=verdict,
        progress=progress,
    )
    chain_s = time.perf_counter() - start
    return report_chain(
        options, prepared, chain, reader.picture(chain.last_frame), out, chain_s, begin
    )


def report_chain(
    options: DemoOptions,
    prepared: Prepared,
    chain: ChainResult,
    picture: Any,
    out: TextIO,
    chain_s: float = 0.0,
    begin: float | None = None,
) -> Path:
    """Analyse the game, print the summary and write the report; its HTML page.
    ``picture``: the last frame with what the camera read drawn on it (or None)."""
    script = prepared.script
    analysis = _analyse(script, options.level, out)
    timings = dataclasses.replace(
        prepared.timings,
        chain_s=chain_s,
        analysis_s=analysis.seconds,
        total_s=time.perf_counter() - begin if begin is not None else 0.0,
    )
    calibration = prepared.table.to_json(options.out, options.reader)
    _summary(out, script, chain, analysis)
    out.write(f"The camera read through {'; '.join(calibration['profile'])}.\n")
    page = write_report(
        options.out,
        script,
        chain,
        analysis,
        timings,
        picture,
        list(script.spec.levels),
        calibration,
        options.language,
    )
    out.write(
        f"\nReport: {page} (with report.json, record.json, film.mp4, the charts "
        f"win-chance.png, loss.png, scores.png, board.png, and the table's "
        f"calibration in {calibration['folder']})\n"
    )
    return page


def _analyse(script: Script, level: int, out: TextIO) -> Any:
    out.write(f"\nHow well did each player play? (search level {level})\n")
    base = LEVELS[level]
    config = SearchConfig(
        base.iterations, base.seconds, base.exploration, base.rollout_moves, script.seed
    )
    return analyse(script.record(), config, progress=Progress(out, "analysing the moves"))


def _summary(out: TextIO, script: Script, chain: ChainResult, analysis: Any) -> None:
    players = list(script.spec.players)
    state = chain.referee.state
    if state.is_over():
        out.write("\nFinal scores:\n")
        winners = set(state.winners())
        for p, score in enumerate(state.scores()):
            out.write(f"  {players[p]:<8} {score:>3}{'  winner' if p in winners else ''}\n")
        out.write(f"  tie-break: {tiebreak_words(script.spec.game, state.tiebreak(), players)}\n")
    else:
        out.write("\nThe referee's game did not reach the end (see the report).\n")
    out.write("\n  player    moves  accuracy  mean loss  good/mistakes  strength\n")
    for row, s in zip(strength_table(analysis), analysis.summary, strict=True):
        bad = sum(v for k, v in s.counts.items() if k in ("mistake", "blunder"))
        good = sum(v for k, v in s.counts.items() if k in ("best", "good"))
        accuracy = "no moves" if row["accuracy"] is None else f"{row['accuracy']:.1f}%"
        loss = "-" if row["mean_loss"] is None else f"{row['mean_loss']:.1f}"
        out.write(
            f"  {row['player']:<8} {row['moves']:>6}  {accuracy:>8}  {loss:>9}  "
            f"{f'{good}/{bad}':>13}  {row['strength']}\n"
        )
    levels = ", ".join(
        f"{name} {level}"
        for name, level in zip(script.spec.players, script.spec.levels, strict=True)
    )
    out.write(
        f"  (the engine levels that really played: {levels}; {len(script.filmed_moves)} "
        "moves say little, hence the wide ranges)\n"
    )
    score = chain.score
    tried = sum(r.tried for r in score.rules.values())
    caught = sum(r.caught for r in score.rules.values())
    out.write(
        f"\nThe referee's record holds {score.record_right} of {score.moves} moves as "
        f"played ({score.exact} recognised at once, the others kept in doubt until a "
        f"later table or an answer settled them; {score.corrected} put right by the "
        f"players), caught {caught} of {tried} illegal moves, and raised "
        f"{score.false_flags} false alarms. "
        f"Camera pipeline: {1000 * chain.seconds_vision / max(1, chain.frames):.0f} ms "
        "a frame.\n"
    )


def open_app(options: DemoOptions) -> int:
    """With a display: calibrate the table, film the game, then open the app on the
    film, its camera reading through the demo's calibrated profile."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")  # the demo's arguments are not Kivy's

    prepare_kivy()
    from companion.app.main import CompanionApp  # deferred: kivy, after prepare_kivy

    prepared = prepare(options, sys.stdout)
    start = prepared.script.start
    rules = start.rules
    setup = GameSetup(
        rules.game,
        rules.options_json(),
        tuple(Seat(colour) for colour in rules.players),
        start=start.to_json(),
        camera="video",
        video=str(prepared.video),
        sensors="simulator" if options.sensor else "none",
    )
    recogniser = VisionRecogniser(camera_pipeline(prepared.table.profile, rules, options.reader))
    report = AppReport(options, prepared, recogniser, sys.stdout)
    CompanionApp(
        setup,
        autostart=True,
        language=options.language,
        session_options={"recogniser": recogniser, "film": report.film()},
    ).run()
    report.after_app()
    return 0


class AppReport:
    """The demo's report when the app shows the film: written as soon as the film is
    over (on the film's thread, while the app stays open), or, when the app is closed
    before, on what the referee had seen by then."""

    def __init__(
        self, options: DemoOptions, prepared: Prepared, recogniser: Any, out: TextIO
    ) -> None:
        self.options, self.prepared, self.recogniser, self.out = (
            options,
            prepared,
            recogniser,
            out,
        )
        self.result: Any = None
        self.page: Path | None = None
        self._writing = threading.Lock()

    def film(self) -> Any:
        """The film with its truth, for the app's session (``companion.app.people``)."""
        script = self.prepared.script
        simulator = TableSimulator(script.rules, script.filmed_moves, seed=0, start=script.start)
        sensor_table = (
            (lambda moment: observation_of(script, moment.filmed)) if self.options.sensor else None
        )
        return DemoFilm(self.prepared.film, simulator, sensor_table, self.write, self.started)

    def write(self, result: Any) -> str:
        """Write the report from ``result`` (a ``companion.app.people.FilmResult``);
        where it is."""
        with self._writing:
            if self.page is not None:
                return str(self.page)
            if result.game is not None:  # the moves of the record that are those played
                result.score.record_right = result.game.record_right(self.prepared.script.start)
            chain = ChainResult(
                result.referee,
                result.score,
                list(result.outputs),
                result.frames,
                result.seconds_vision,
                result.last_frame,
                result.last_seen,
            )
            self.page = report_chain(
                self.options, self.prepared, chain, self._picture(result.last_frame), self.out
            )
            return str(self.page)

    def started(self, result: Any) -> None:
        self.result = result

    def after_app(self) -> None:
        """The app is closed: the report, if the film did not get to write it."""
        if self.page is not None:
            return
        if self.result is None:
            self.out.write("\nThe film could not be shown: no report was written.\n")
            return
        if self.result.finished:  # the film's end is writing it: wait for it
            self.write(self.result)
            return
        self.out.write(
            "\nThe app was closed before the end of the film: the report "
            "covers what the referee saw until then.\n"
        )
        self.write(self.result)

    def _picture(self, frame: Any) -> Any:
        if frame is None:
            return None
        return self.recogniser.overlay(frame, None, (), ())
