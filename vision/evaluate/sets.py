"""The held-out sets of ``companion bench vision``: the difficulty levels, the tables
dealt for each picture, the pictures rendered and kept in a cache. The renderer and
OpenCV load when a picture is first made or read, so that the command line and the
other benchmarks can name the levels and sets without them."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from engines import Dice, rules_class
from vision.evaluate import LEVELS
from vision.models import load_model

# Render set version: bump when the renderer or the sets change, so caches refresh.
SET_VERSION = 1
# A game's own set version where its sets changed alone (its pictures refresh, the other
# games' stay): ShenShi 2, the tiles drawn anew for every table.
GAME_SET_VERSIONS = {"shenshi": 2}
FRAME_SIZE = (1920, 1080)
# Random moves played before a picture: several depths of the game.
DEPTHS = (4, 12, 25, 45, 80)
PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 2}
SHENSHI_SET_OPTIONS = {"orange_lifts": 1, "lift_put_down": "also-orange-square"}
"""The ShenShi rule options the bench's tables are played by."""


@dataclass(frozen=True)
class LevelSpec:
    """How one difficulty level photographs the table."""

    elevation: tuple[float, float]
    lights: tuple[str, ...]
    noise: float
    blur: float
    jpeg: int | None
    placement_mm: float
    hand_share: float
    glare: float
    clutter: int


LEVEL_SPECS = {
    "easy": LevelSpec((70.0, 90.0), ("daylight",), 1.0, 0.3, None, 0.5, 0.0, 0.0, 0),
    "medium": LevelSpec((50.0, 90.0), ("daylight", "warm", "dim"), 3.0, 0.6, 92, 1.0, 0.0, 0.1, 1),
    "hardest": LevelSpec((35.0, 90.0), ("hardest",), 4.0, 0.9, 85, 1.0, 0.5, 0.3, 3),
}


# --- the held-out sets -------------------------------------------------------------------


def cache_dir(path: Path | None) -> Path:
    if path is not None:
        return path
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "companion" / "bench-vision"


@dataclass(frozen=True)
class Shot:
    """One picture of the held-out set: what it shows and how it was taken."""

    game: str
    level: str
    index: int
    seed: int
    size: tuple[int, int]
    markers: bool = False
    """With the printed corner markers on the board (the run through localisation)."""

    @property
    def key(self) -> str:
        return (
            f"v{set_version(self.game)}-{self.game}-{self.level}-s{self.seed}-{self.index}-"
            f"{self.size[0]}x{self.size[1]}" + ("-markers" if self.markers else "")
        )


def set_version(game: str) -> int:
    """The version of ``game``'s sets (part of its pictures' cache keys)."""
    return GAME_SET_VERSIONS.get(game, SET_VERSION)


def _set_rules(game: str) -> Any:
    """The rules every table of ``game``'s set is played by (what is in play)."""

    cls = rules_class(game)
    return cls(cls.default_players(PLAYERS[game]))


def table_rules(game: str, seed: int) -> Any:
    """The rules of the table dealt with ``seed``: the set's, and for ShenShi the
    setup's random draw made with ``seed`` (which tiles lie on the marked squares,
    as the rules option ``seed`` draws them), so that the set shows many layouts
    rather than the one of seed 0."""
    if game != "shenshi":
        return _set_rules(game)
    cls: Any = rules_class(game)  # the game's own options, by name
    # The sets are fixed data: dealt by the rules they were made with, whatever the
    # game's defaults become (one lift per orange hover, put down anywhere free).
    return cls(cls.default_players(PLAYERS[game]), seed=seed, **SHENSHI_SET_OPTIONS)


def _state_observation(game: str, seed: int, depth: int) -> Any:
    """The observation of a table of ``game`` after ``depth`` random moves (fewer if
    the game ends first) from the setup of :func:`table_rules`, all drawn with
    ``seed``."""

    rules = table_rules(game, seed)
    state = rules.initial_state()
    dice = Dice(seed)
    for _ in range(depth):
        if state.is_over():
            break
        draw = getattr(state, "playout_move", state.random_move)
        state.play(draw(dice))
    return importlib.import_module(f"engines.{game}.observation").expected(state)


def _camera_and_pose(shot: Shot, rng: Any, board_mm: tuple[float, float]) -> tuple[Any, Any]:
    """A camera framing the whole board: the distance grows until every corner of the
    board lies inside the picture, 4% from its edges."""
    from vision.synth.camera import Camera, Pose  # deferred: loads OpenCV
    from vision.view import truth_view  # deferred: loads OpenCV

    spec = LEVEL_SPECS[shot.level]
    camera = Camera.from_fov(shot.size[0], shot.size[1], 60.0, k1=float(rng.uniform(-0.08, 0.0)))
    elevation = float(rng.uniform(*spec.elevation))
    rotation = float(rng.uniform(0.0, 360.0))
    look = (float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20)))
    w, h = board_mm
    corners = [(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)]

    distance = 600.0
    while True:
        pose = Pose(elevation, rotation, distance, look)
        view = truth_view(camera, pose, board_mm)
        if bool(view.visible(np.array(corners), 0.04 * shot.size[1]).all()) or distance > 3000:
            return camera, pose
        distance *= 1.05


def render_shot(shot: Shot) -> tuple[Any, dict[str, Any]]:
    """Render one picture of the set: (image, truth) with the truth as JSON-ready data
    (observation, visible elements, camera and pose)."""
    from vision.synth.camera import LIGHTS, Imaging  # deferred: loads OpenCV
    from vision.synth.table import TableOptions, render_table  # deferred: loads OpenCV

    spec = LEVEL_SPECS[shot.level]
    rng = np.random.default_rng([shot.seed, LEVELS.index(shot.level), shot.index])
    depth = DEPTHS[shot.index % len(DEPTHS)] + int(rng.integers(0, 4))
    observation = _state_observation(shot.game, int(rng.integers(2**31)), depth)
    model = load_model(shot.game)
    camera, pose = _camera_and_pose(shot, rng, model.size_mm)
    light = LIGHTS[spec.lights[int(rng.integers(len(spec.lights)))]]
    if shot.level == "hardest":
        light = replace(
            light, direction_deg=float(rng.uniform(0, 360)), key_level=float(rng.uniform(0.45, 0.7))
        )
    imaging = Imaging(
        blur_sigma=spec.blur,
        noise_sigma=spec.noise,
        shot_noise=0.3,
        vignetting=0.15,
        jpeg_quality=spec.jpeg,
    )
    hands = 1 if rng.random() < spec.hand_share else 0
    options = TableOptions(
        hands=hands,
        clutter=spec.clutter,
        glare=spec.glare,
        markers=shot.markers,
        placement_mm=spec.placement_mm,
        placement_deg=3.0 * spec.placement_mm,
    )
    picture = render_table(
        observation,
        camera,
        pose,
        light=light,
        imaging=imaging,
        options=options,
        seed=int(rng.integers(2**31)),
        model=model,
    )
    truth = {
        "game": shot.game,
        "level": shot.level,
        "index": shot.index,
        "depth": depth,
        "observation": observation.to_json()["readings"],
        "visible": picture.visible().to_json()["readings"],
        "hands": hands,
        "camera": asdict(camera),
        "pose": asdict(pose),
    }
    return picture.image, truth


def load_shot(
    shot: Shot, cache: Path | None, progress: Callable[[str], None]
) -> tuple[Any, dict[str, Any]]:
    """The picture and truth of ``shot``: from the cache, or rendered (and cached)."""
    import cv2  # deferred: loads OpenCV

    if cache is not None:
        image_path = cache / f"{shot.key}.png"
        truth_path = cache / f"{shot.key}.json"
        if image_path.exists() and truth_path.exists():
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            if image is not None:
                return image, json.loads(truth_path.read_text(encoding="utf-8"))
    progress(f"rendering {shot.game} {shot.level} #{shot.index}")
    image, truth = render_shot(shot)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(cache / f"{shot.key}.png"), image)
        (cache / f"{shot.key}.json").write_text(json.dumps(truth), encoding="utf-8")
    return image, truth


def shot_view(truth: dict[str, Any], board_mm: tuple[float, float]) -> Any:
    """The exact view of a picture from its recorded camera and pose."""
    from vision.synth.camera import Camera, Pose  # deferred: loads OpenCV
    from vision.view import truth_view  # deferred: loads OpenCV

    pose = truth["pose"]
    return truth_view(
        Camera(**truth["camera"]),
        Pose(
            pose["elevation_deg"],
            pose["rotation_deg"],
            pose["distance_mm"],
            tuple(pose["look_at_mm"]),
            pose["roll_deg"],
        ),
        board_mm,
    )
