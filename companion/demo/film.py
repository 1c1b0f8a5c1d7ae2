"""Filming the demo's game: the table simulator moves the pieces by hand (an illegal
move tried and put back among them), and the renderer photographs every moment into a
video file, as a camera over a real table would.

A :class:`Moment` is one frame: the table as it physically is (not as a reader sees
it), the elements a hand covers, and the ground truth of what is happening. Moments
that look alike are rendered once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.demo.base import DemoError
from companion.demo.script import Script
from companion.referee.events import TurnDone
from companion.referee.inference import table_model
from companion.simulator import Step, TableConfig, TableSimulator, Truth
from companion.simulator.handling import Table
from engines.observation import Observation, Value
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table

FPS = 10
TRIED_SEEDS = 60
"""Simulator seeds tried until exactly one illegal move is tried during the film."""
QUIET_END = 3
"""The illegal move is tried before the last ``QUIET_END`` moves."""


@dataclass(frozen=True)
class Filmed:
    """A frame of the table as it is: every element's value (the schema's order) and
    the elements under a hand."""

    values: tuple[Value, ...]
    hidden: frozenset[str]


@dataclass(frozen=True)
class Moment:
    """One frame of the film, with its truth. ``done``: after this frame the player
    presses "done" (a move nobody can see, such as a pass), with that step's truth."""

    filmed: Filmed
    truth: Truth
    done: Truth | None = None


@dataclass(frozen=True)
class Shot:
    """How the film is shot: the picture size, the camera and the light."""

    size: tuple[int, int] = (1920, 1080)
    elevation_deg: float = 55.0
    rotation_deg: float = 8.0
    distance_mm: float = 820.0
    light: str = "warm"
    hand_share: float = 0.5
    """Per touch: a hand shows over the piece for a frame or two."""

    def camera(self) -> Camera:
        return Camera.from_fov(self.size[0], self.size[1], 60.0, k1=-0.04)

    def pose(self) -> Pose:
        return Pose(self.elevation_deg, self.rotation_deg, self.distance_mm)


def table_config(script: Script, illegal: float, shot: Shot) -> TableConfig:
    """How the people at the demo's table move: a frame or two per touch, a hand over
    the piece half of the time, and time to look up at the referee after each move
    (the camera waits for the board to be still, then the referee for three readings)."""
    return TableConfig(
        sources=("camera",),
        frames_per_step=2,
        settle_frames=12,
        hands=shot.hand_share,
        hand_frames=(1, 2),
        illegal=illegal,
        illegal_rules=script.spec.illegal_rules or None,
    )


class _Filming(TableSimulator):
    """The table simulator, each frame as the table physically is (the pieces under a
    hand included), rather than as one reader sees it."""

    def _frame(
        self, table: Table, hidden: Sequence[str], truth: Truth, rng: np.random.Generator
    ) -> list[Step]:
        values = tuple(table.get(e) for e in self.schema.elements)
        return [Step(Filmed(values, frozenset(hidden)), truth)]  # type: ignore[arg-type]


def moments(script: Script, shot: Shot, seed: int) -> list[Moment]:
    """The film's frames. With illegal moves to stage, the first simulator seed from
    ``seed`` under which exactly one is tried (before the last few moves) is used."""
    rules_to_stage = script.spec.illegal_rules
    rate = 1.5 / max(1, len(script.filmed_moves)) if rules_to_stage else 0.0
    fallback: list[Moment] | None = None
    for tried in range(seed, seed + TRIED_SEEDS):
        film = _film(script, table_config(script, rate, shot), tried)
        if not rules_to_stage:
            return film
        attempts = {m.truth.number for m in film if m.truth.phase == "attempt"}
        last = len(script.filmed_moves) - QUIET_END
        if len(attempts) == 1 and min(attempts) <= last:
            return film
        if fallback is None and attempts and min(attempts) <= last:
            fallback = film
    if fallback is None:
        raise DemoError(
            f"no table simulator seed from {seed} to {seed + TRIED_SEEDS - 1} "
            f"tries one illegal move in the film of "
            f"{len(script.filmed_moves)} moves: film more moves (--moves) or "
            "try another --seed"
        )
    return fallback


def _film(script: Script, config: TableConfig, seed: int) -> list[Moment]:
    simulator = _Filming(script.rules, script.filmed_moves, config, seed, script.start)
    film: list[Moment] = []
    for step in simulator:
        if isinstance(step.event, TurnDone):
            if film:
                film[-1] = replace(film[-1], done=step.truth)
            continue
        assert isinstance(step.event, Filmed)
        film.append(Moment(step.event, step.truth))
    return film


def observation_of(script: Script, filmed: Filmed) -> Observation:
    """The table of a frame as an observation (for the renderer: unknown elements are
    drawn empty)."""
    schema = table_model(script.spec.game).schema(script.rules)
    return Observation(schema, dict(zip(schema.elements, filmed.values, strict=True)))


def photograph(
    table: Observation, shot: Shot, seed: int, hidden: tuple[str, ...] = ()
) -> np.ndarray[Any, Any]:
    """The table showing ``table`` as the demo's camera sees it, a hand over the
    ``hidden`` elements. The film and the calibration pictures are all taken this way:
    one table, one camera, one light (the table's grain and the lamp follow ``seed``)."""
    options = TableOptions(px_per_mm=2.0, markers=True, hands=1 if hidden else 0, hands_over=hidden)
    imaging = Imaging(supersample=1, noise_sigma=1.5, jpeg_quality=None)
    return render_table(
        table,
        shot.camera(),
        shot.pose(),
        light=LIGHTS[shot.light],
        imaging=imaging,
        options=options,
        seed=seed,
    ).image


def shoot(
    script: Script,
    film: Sequence[Moment],
    shot: Shot,
    path: Path,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Render ``film`` into the video file ``path`` (MPEG-4); the number of pictures
    rendered (frames that look alike share one)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, shot.size)
    if not writer.isOpened():
        raise OSError(f"cannot write the video {path}")
    last: tuple[Filmed, np.ndarray[Any, Any]] | None = None
    renders = 0
    try:
        for index, moment in enumerate(film):
            if last is None or last[0] != moment.filmed:
                image = photograph(
                    observation_of(script, moment.filmed),
                    shot,
                    seed,
                    tuple(sorted(moment.filmed.hidden)),
                )
                last = (moment.filmed, image)
                renders += 1
            writer.write(last[1])
            if progress is not None:
                progress(index + 1, len(film))
    finally:
        writer.release()
    return renders


def frames(path: Path) -> Iterator[np.ndarray[Any, Any]]:
    """The frames of a video file, in order."""
    capture = cv2.VideoCapture(str(path))
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            yield frame
    finally:
        capture.release()
