"""``companion bench app``: the app's figures, measured headless (SDL's offscreen driver
renders real frames with no display).

- **start**: from launching a fresh process to the app's first frame on screen (and the
  part of it from creating the app object), median of ``starts`` runs;
- **live view**: frames per second of a 1280x720 video shown on screen (with what was
  recognised drawn on them), read, and recognised by the camera pipeline (on its own
  thread, always the newest frame), with the referee judging what is read (unpaced: as
  fast as the machine goes);
- **verdict to banner**: from the referee's illegal-move verdict to the first frame
  drawn with the banner, over ``banners`` illegal moves staged by the table simulator;
- **verdict to spoken call**: from the same verdicts to the moment the voice is asked
  to say them, with spoken announcements on and a silent voice that takes a real
  voice's time over each sentence (``PacedVoice``), so a call that comes while a move
  is being said is measured as it would be at the table;
- **demo mode**: the app's own demo (``companion app --demo``: the table simulator and
  its simulated people, nobody tapping) played to the end ``demo_games`` times, one
  game after another (Shangri-La, Shendao, ShenShi, ...), the table unpaced: the false
  alarms (an illegal-move banner for a legal move), the illegal moves tried and
  caught, and whether the referee's game ended as the table did.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2

from companion.app.feeds import NoRecognition
from companion.app.gamesetup import GameSetup
from companion.app.recognition import make_recogniser
from companion.simulator import TableConfig, TableSimulator
from engines import Dice
from engines.shangrila import ShangrilaRules
from engines.shangrila.observation import expected
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table

OFFSCREEN = {
    "SDL_VIDEODRIVER": "offscreen",
    "KIVY_WINDOW": "sdl2",
    "KIVY_NO_ARGS": "1",
    "KIVY_NO_CONSOLELOG": "1",
    "KIVY_LOG_MODE": "PYTHON",
}
VIDEO_SIZE = (1280, 720)
READY = "first-frame"


@dataclass
class AppFigures:
    start_process_s: list[float] = field(default_factory=list)
    start_app_s: list[float] = field(default_factory=list)
    fps_read: float = 0.0
    fps_recognised: float = 0.0
    fps_shown: float = 0.0
    frames: int = 0
    observations: int = 0
    recognition: str = ""
    banner_ms: list[float] = field(default_factory=list)
    spoken_ms: list[float] = field(default_factory=list)
    video: str = ""
    demo_games: list[dict[str, Any]] = field(default_factory=list)
    """Per demo game: its game, moves, false alarms, illegal moves tried and caught,
    whether it reached its end with the referee's table right, and its seconds."""

    def summary(self) -> dict[str, Any]:
        def median(values: list[float]) -> float:
            return round(statistics.median(values), 3) if values else float("nan")

        ordered = sorted(self.banner_ms)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0
        return {
            "start_process_s_median": median(self.start_process_s),
            "start_app_s_median": median(self.start_app_s),
            "live_view_fps_read": round(self.fps_read, 1),
            "live_view_fps_recognised": round(self.fps_recognised, 1),
            "live_view_fps_shown": round(self.fps_shown, 1),
            "frames": self.frames,
            "observations": self.observations,
            "recognition": self.recognition,
            "verdict_to_banner_ms_median": median(self.banner_ms),
            "verdict_to_banner_ms_p95": round(p95, 1),
            "verdict_to_banner_ms_max": round(max(self.banner_ms, default=0.0), 1),
            "banners": len(self.banner_ms),
            "video": self.video,
            "verdict_to_spoken_call_ms_median": median(self.spoken_ms),
            "verdict_to_spoken_call_ms_max": round(max(self.spoken_ms, default=0.0), 1),
            "spoken_calls": len(self.spoken_ms),
            "demo_games": self.demo_games,
            "demo_false_alarms": sum(g["false_alarms"] for g in self.demo_games),
        }


class PacedVoice:
    """Says nothing, but takes as long as a voice would (``CHARS_PER_SECOND``), and
    stops when told."""

    CHARS_PER_SECOND = 14.0
    """About 170 words a minute, a text-to-speech engine's usual pace."""

    def __init__(self) -> None:
        self._stopped = threading.Event()

    def say(self, text: str, language: str) -> None:
        self._stopped.clear()
        self._stopped.wait(len(text) / self.CHARS_PER_SECOND)

    def stop(self) -> None:
        self._stopped.set()


def offscreen() -> None:
    """Headless Kivy; must run before Kivy is first imported."""
    for key, value in OFFSCREEN.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="companion-kivy-"))


def start_probe() -> None:
    """Run in a fresh process: open the app and print when its first frame is drawn."""
    offscreen()
    from kivy.base import EventLoop  # deferred: kivy, in the benchmark's own process

    from companion.app.main import CompanionApp  # deferred: kivy, in the benchmark's own process

    with tempfile.TemporaryDirectory(prefix="companion-bench-") as data:
        app = CompanionApp(data_dir=data, muted=True)
        app._run_prepare()
        while not app.ready_after:
            EventLoop.idle()
        print(READY, app.ready_after, flush=True)
        app.root.ids.play.detach()


def measure_start(runs: int) -> tuple[list[float], list[float]]:
    process, app = [], []
    for _ in range(runs):
        began = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", "from companion.app.bench import start_probe; start_probe()"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, **OFFSCREEN},
        )
        assert child.stdout is not None
        for line in child.stdout:
            if line.startswith(READY):
                process.append(time.perf_counter() - began)
                app.append(float(line.split()[1]))
                break
        child.wait(30)
    return process, app


def render_video(path: Path, pictures: int = 3, frames_each: int = 40, seed: int = 1) -> Path:
    """A 1280x720 video of a Shangri-La table (with its corner markers) after a few
    random moves, ``pictures`` positions of ``frames_each`` frames."""
    state = ShangrilaRules().initial_state()
    camera = Camera.from_fov(*VIDEO_SIZE, 60.0, k1=-0.03)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, VIDEO_SIZE)
    dice = Dice(seed)
    for picture in range(pictures):
        for _ in range(6):
            state.play(state.random_move(dice))
        image = render_table(
            expected(state),
            camera,
            Pose(72.0, 0.0, 760.0),
            light=LIGHTS["daylight"],
            imaging=Imaging(),
            options=TableOptions(markers=True),
            seed=seed + picture,
        ).image
        for _ in range(frames_each):
            writer.write(image)
    writer.release()
    return path


def measure_app(figures: AppFigures, video: Path, seconds: float, banners: int, seed: int) -> None:
    """The live view's frame rate and the banner's delay, in one offscreen app."""
    offscreen()
    from kivy.base import EventLoop  # deferred: kivy, in the benchmark's own process
    from kivy.core.window import Window  # deferred: kivy, in the benchmark's own process

    from companion.app.main import CompanionApp  # deferred: kivy, in the benchmark's own process

    Window.size = (1280, 800)
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as data:
        app = CompanionApp(data_dir=data, muted=True, session_options={"paced": False})
        app._run_prepare()
        play = app.root.ids.play
        setup = replace(GameSetup.default("shangrila"), camera="video", video=str(video))
        recogniser = make_recogniser("shangrila")
        figures.recognition = (
            "vision.pipeline"
            if not isinstance(recogniser, NoRecognition)
            else f"none ({recogniser.message})"
        )
        app.session_options["recogniser"] = recogniser
        app.begin(setup)
        session = play.session
        began = time.perf_counter()
        while (
            session.feed is not None
            and session.feed._thread.is_alive()
            and time.perf_counter() - began < seconds
        ):  # until the last frame is read
            EventLoop.idle()
        elapsed = time.perf_counter() - began
        figures.frames = session.feed.frames if session.feed is not None else 0
        figures.fps_read = figures.frames / elapsed
        figures.fps_recognised = (
            session.feed.recognised if session.feed is not None else 0
        ) / elapsed
        figures.fps_shown = session.frames_shown / elapsed
        figures.observations = session.feed.observations if session.feed is not None else 0
        play.detach()

        app.session_options.pop("recogniser")
        app.begin(GameSetup.default("shangrila"))
        session = play.session
        steps = iter(
            TableSimulator.random(
                play.controller.referee.rules, TableConfig(illegal=0.2), seed=seed
            )
        )
        for step in steps:
            before = session.worker.handled
            session.send(step.event)
            while session.worker.handled == before:
                time.sleep(0.0005)
            EventLoop.idle()
            if len(play.banner_shown_at) >= banners:
                break
        for _ in range(3):
            EventLoop.idle()
        figures.banner_ms = [1000.0 * s for s in play.banner_shown_at]
        play.detach()
        figures.spoken_ms = measure_speech(app, banners, seed)


def measure_speech(app: Any, calls: int, seed: int) -> list[float]:
    """Milliseconds from each illegal-move verdict to the voice being asked to say it,
    with every move said too: each step comes once the voice has been handed what
    there is to say, so an illegal move often comes while a move is being said (and
    cuts it short); an illegal move's own call is cut short once asked, as players
    putting the table back would."""
    from kivy.base import EventLoop  # deferred: kivy, in the benchmark's own process

    speech, play = app.speech, app.root.ids.play
    speech.voice_factory = PacedVoice
    app.set_speech(True, keep=False)
    app.begin(GameSetup.default("shangrila"))
    speech.muted = False
    session = play.session
    steps = TableSimulator.random(
        play.controller.referee.rules, TableConfig(illegal=0.2), seed=seed
    )
    for step in steps:
        before = session.worker.handled
        session.send(step.event)
        while session.worker.handled == before:
            time.sleep(0.0005)
        EventLoop.idle()
        speech.wait_asked(5.0)
        if speech.said and speech.said[-1][0].kind == "illegal":
            speech.muted = True  # cut short; the next move is said again
            speech.muted = False
        if sum(said.kind == "illegal" for said, _ in speech.said) >= calls:
            break
    delays = [1000.0 * (asked - said.at) for said, asked in speech.said if said.kind == "illegal"]
    play.detach()
    app.set_speech(False, keep=False)
    return delays


DEMO_GAMES = ("shangrila", "shendao", "shenshi")
DEMO_GAME_LIMIT_S = 1800.0
"""The longest a demo game may take before it is counted as not finished."""


def measure_demo(games: int, seed: int) -> list[dict[str, Any]]:
    """The app's demo mode played to the end ``games`` times in one offscreen app (the
    games in turn from ``DEMO_GAMES``, seeds from ``seed``), the table unpaced."""
    offscreen()
    from kivy.base import EventLoop  # deferred: kivy, in the benchmark's own process
    from kivy.core.window import Window  # deferred: kivy, in the benchmark's own process

    from companion.app.main import CompanionApp  # deferred: kivy, in the benchmark's own process

    Window.size = (1280, 800)
    found = []
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as data:
        app = CompanionApp(data_dir=data, muted=True, session_options={"simulator_interval": 0.0})
        app._run_prepare()
        play = app.root.ids.play
        for index in range(games):
            game = DEMO_GAMES[index % len(DEMO_GAMES)]
            app.begin(replace(GameSetup.default(game), demo=True, seed=seed + index))
            table = play.session.table
            began = time.perf_counter()
            while (
                table is not None
                and table.is_alive()
                and time.perf_counter() - began < DEMO_GAME_LIMIT_S
            ):
                EventLoop.idle()
                time.sleep(0.002)
            for _ in range(3):
                EventLoop.idle()
            score = table.game.score if table is not None else None
            tried = sum(r.tried for r in score.rules.values()) if score else 0
            found.append(
                {
                    "game": game,
                    "seed": seed + index,
                    "moves": score.moves if score else 0,
                    "false_alarms": score.false_flags if score else 0,
                    "illegal_tried": tried,
                    "illegal_caught": sum(r.caught for r in score.rules.values()) if score else 0,
                    "finished": bool(play.over and score is not None and score.final_state_right),
                    "seconds": round(time.perf_counter() - began, 1),
                }
            )
            play.detach()
        app.root.ids.calibrate.close()
    return found


def demo_probe(games: int, seed: int) -> None:
    """Run in a fresh process (one Kivy window a process): ``measure_demo``'s games as
    one JSON line."""
    print(READY, json.dumps(measure_demo(games, seed)), flush=True)


def demo_in_own_process(games: int, seed: int) -> list[dict[str, Any]]:
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from companion.app.bench import demo_probe; demo_probe({games}, {seed})",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **OFFSCREEN},
        check=False,
    )
    for line in child.stdout.splitlines():
        if line.startswith(READY):
            found: list[dict[str, Any]] = json.loads(line.split(" ", 1)[1])
            return found
    raise RuntimeError(
        f"the demo mode's run ended without its figures (exit status {child.returncode})"
    )


def bench_command(args: Any) -> int:
    figures = AppFigures()
    with tempfile.TemporaryDirectory(prefix="companion-bench-video-") as folder:
        video = Path(args.video) if args.video else None
        if video is None:
            print("rendering a 1280x720 test video...", file=sys.stderr, flush=True)
            video = render_video(Path(folder) / "table.avi")
        elif not video.exists():
            raise FileNotFoundError(f"--video {video}: no such file")
        figures.video = str(video) if args.video else "rendered 1280x720, 120 frames"
        print("measuring the start time...", file=sys.stderr, flush=True)
        figures.start_process_s, figures.start_app_s = measure_start(args.starts)
        print("measuring the live view and the banner...", file=sys.stderr, flush=True)
        measure_app(figures, video, args.seconds, args.banners, args.seed)
    if args.demo_games:
        print("playing the app's demo mode to the end...", file=sys.stderr, flush=True)
        figures.demo_games = demo_in_own_process(args.demo_games, args.seed)
    summary = figures.summary()
    if args.json:
        print(json.dumps(summary))
        return 0
    print(
        f"app start: {summary['start_process_s_median']:.2f} s from launching the process "
        f"to the first frame (median of {len(figures.start_process_s)}); "
        f"{summary['start_app_s_median']:.2f} s of it from creating the app"
    )
    print(
        f"live view at 1280x720 with recognition ({summary['recognition']}): "
        f"{summary['live_view_fps_shown']} frames/s shown, "
        f"{summary['live_view_fps_read']} read, {summary['live_view_fps_recognised']} "
        f"recognised ({summary['frames']} frames, {summary['observations']} readings "
        "for the referee)"
    )
    print(
        f"verdict to banner: median {summary['verdict_to_banner_ms_median']:.1f} ms, "
        f"95th percentile {summary['verdict_to_banner_ms_p95']} ms, max "
        f"{summary['verdict_to_banner_ms_max']} ms over {summary['banners']} illegal moves"
    )
    print(
        f"verdict to spoken call: median {summary['verdict_to_spoken_call_ms_median']:.1f} "
        f"ms, max {summary['verdict_to_spoken_call_ms_max']} ms over "
        f"{summary['spoken_calls']} illegal moves (moves spoken too)"
    )
    for game in figures.demo_games:
        print(
            f"demo mode, {game['game']} (seed {game['seed']}): "
            f"{'played to the end' if game['finished'] else 'NOT played to the end'}, "
            f"{game['moves']} moves, {game['false_alarms']} false alarms, "
            f"{game['illegal_caught']} of {game['illegal_tried']} illegal moves caught "
            f"({game['seconds']:.0f} s)"
        )
    return 0
