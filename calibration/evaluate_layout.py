"""How well the layout fit (:mod:`calibration.layout`) finds where each element lies on
boards whose layout is not the model's (``companion bench layout``).

A setup is one board, one camera and one difficulty level
(:data:`vision.evaluate.sets.LEVEL_SPECS`), photographed twice as a player calibrates:
the empty board, and the calibration position (for Shangri-La every bridge and stone
in place and three tiles of each colour, :func:`vision.appearance.calibration_layout`;
for Shendao every gate closed and three tiles of each colour; ShenShi needs only the
empty board).

- Shangri-La: boards of other editions (:mod:`vision.synth.world`): ``painted`` worlds
  (seeds from 1, the worlds the fit was developed on) and ``landscape`` worlds (seeds
  from 2000, or from ``--first-seed``; a kind never used to choose anything). Their
  villages are shifted and enlarged, their bridge spots moved along and across their
  paths; the fit starts from the packaged model and is scored against the edition's
  true layout.
- Shendao and ShenShi (only the project's own drawing so far): the board as drawn,
  and the fit started from a model shifted by up to 6 mm and scaled by up to 3%.

The camera's view is the renderer's own (as in ``bench vision --locate truth``), so the
figures are the layout fit's alone. Errors are the distance in mm on the board from each
element's fitted centre to its true one (its printed place). A hand leaves a piece up to
a millimetre off its place (the level's ``placement_mm``), so for bridges and gates the
distance to where the piece stood in the calibration picture is given too (``piece``).
``--pictures DIR`` writes, for each board with an element beyond 2 mm, the board seen
from above around each such element: its true place in green, where its piece stood in
blue and the fit in red, on the empty board, the calibration picture and their
difference.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.boards import board_geometry
from calibration.layout import LayoutError, _difference, fit_layout
from engines.observation import Observation
from vision.appearance import calibration_layout
from vision.evaluate import LEVELS
from vision.evaluate.sets import LEVEL_SPECS, Shot, _camera_and_pose
from vision.models import load_model, referee_schema
from vision.synth.camera import LIGHTS, Imaging
from vision.synth.table import TableOptions, render_table
from vision.synth.world import make_world
from vision.view import truth_view

KINDS = {"shangrila": ("painted", "landscape"), "shendao": ("project",), "shenshi": ("project",)}
FIRST_SEED = {"painted": 1, "landscape": 2000, "project": 1}
WITHIN_MM = 2.0


@dataclass(frozen=True)
class LayoutSetup:
    game: str
    kind: str
    seed: int
    level: str
    size: tuple[int, int]


@dataclass
class LayoutPictures:
    """A setup's calibration pictures, the view, the model the fit starts from and the
    board's true layout."""

    truth: Any
    nominal: Any
    empty: Any
    calibration: list[tuple[Any, Any, Any]]
    view: Any
    placed: dict[str, Any] = field(default_factory=dict)
    """Where each piece of the calibration position stood (board mm, its footprint's
    centre), as the renderer placed it."""


def _empty_observation(schema: Any) -> Any:

    readings: dict[str, Any] = {}
    for element in schema.elements:
        values = schema.values[element]
        readings[element] = next((v for v in ("empty", "none", "open") if v in values), None)
        if readings[element] is None:
            readings[element] = 0 if any(type(v) is int for v in values) else False
    return Observation(schema, readings)


def _moved_model(model: Any, rng: np.random.Generator) -> Any:
    """``model`` shifted by up to 6 mm and scaled by up to 3% about its middle."""
    centre = np.mean([e.centre_mm for e in model.elements.values()], axis=0)
    shift = rng.uniform(-6.0, 6.0, 2)
    scale = float(rng.uniform(0.97, 1.03))

    def moved(point: tuple[float, float]) -> tuple[float, float]:
        p = centre + (np.array(point) - centre) * scale + shift
        return float(p[0]), float(p[1])

    return replace(
        model,
        elements={
            name: replace(e, centre_mm=moved(e.centre_mm)) for name, e in model.elements.items()
        },
    )


def render_setup(setup: LayoutSetup) -> LayoutPictures:
    """The setup's pictures (deterministic in the setup)."""

    spec = LEVEL_SPECS[setup.level]
    rng = np.random.default_rng([setup.seed, LEVELS.index(setup.level), 43])
    world = make_world(setup.game, setup.kind, setup.seed)
    truth = world.model
    nominal = load_model(setup.game) if setup.kind != "project" else _moved_model(truth, rng)
    camera, pose = _camera_and_pose(
        Shot(setup.game, setup.level, 0, setup.seed, setup.size), rng, truth.size_mm
    )
    imaging = Imaging(
        blur_sigma=spec.blur,
        noise_sigma=spec.noise,
        shot_noise=0.3,
        vignetting=0.15,
        jpeg_quality=spec.jpeg,
    )
    light = LIGHTS[spec.lights[int(rng.integers(len(spec.lights)))]]
    if setup.level == "hardest":
        light = replace(
            light, direction_deg=float(rng.uniform(0, 360)), key_level=float(rng.uniform(0.45, 0.7))
        )
    schema = referee_schema(setup.game)

    def photograph(observation: Any, seed: int, placement: float) -> Any:
        return render_table(
            observation,
            camera,
            pose,
            light=light,
            imaging=imaging,
            options=TableOptions(
                clutter=spec.clutter, placement_mm=placement, placement_deg=3.0 * placement
            ),
            seed=seed,
            model=truth,
            art=world.art(),
            colours=world.colours,
        )

    empty_observation = _empty_observation(schema)
    empty = photograph(empty_observation, setup.seed, 0.0)
    view = truth_view(camera, pose, truth.size_mm)
    calibration = []
    placed: dict[str, Any] = {}
    position = None
    if setup.game in ("shangrila", "shendao"):
        position = calibration_layout(
            schema, truth, list(board_geometry(setup.game).player_colours)
        )
    if position is not None:
        picture = photograph(position, setup.seed + 1, spec.placement_mm)
        calibration.append((picture.image, view, position))
        placed = _placed_pieces(picture, truth, view)
    return LayoutPictures(truth, nominal, empty.image, calibration, view, placed)


_HEIGHTS = {"bridge": "bridge_height_mm", "gate": "stick_height_mm"}


def _placed_pieces(picture: Any, truth: Any, view: Any) -> dict[str, Any]:
    """Where each bridge or gate stood in ``picture``: the renderer's outline of its top
    face, taken back from the picture to the board and down by the piece's height."""
    camera = view.camera_mm()
    out = {}
    for name, element in truth.elements.items():
        if (
            element.kind not in _HEIGHTS
            or name not in picture.truth
            or picture.observation.value(name) not in (True, "closed")
        ):
            continue
        top = view.to_board(picture.truth[name].top)
        height = truth.pieces[_HEIGHTS[element.kind]]
        ground = camera[:2] + (top - camera[:2]) * (camera[2] - height) / camera[2]
        out[name] = ground.mean(axis=0)
    return out


@dataclass
class Errors:
    """Distances (mm) of one group of elements, and the fits that failed."""

    distances: list[float] = field(default_factory=list)
    failed: int = 0
    seconds: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        d = np.array(self.distances) if self.distances else np.zeros(0)
        return {
            "elements": len(d),
            "median_mm": float(np.median(d)) if len(d) else None,
            "p95_mm": float(np.percentile(d, 95)) if len(d) else None,
            "max_mm": float(d.max()) if len(d) else None,
            "within_2mm": int((d <= WITHIN_MM).sum()),
            "failed_fits": self.failed,
        }

    def line(self) -> str:
        s = self.summary()
        if not s["elements"]:
            return f"no elements ({self.failed} fits failed)"
        return (
            f"{s['elements']:5d} elements: median {s['median_mm']:.2f} mm, 95% "
            f"{s['p95_mm']:.2f} mm, max {s['max_mm']:.2f} mm, within {WITHIN_MM:g} mm "
            f"{s['within_2mm']}/{s['elements']} ({100 * s['within_2mm'] / s['elements']:.1f}%)"
            + (f", {self.failed} fits failed" if self.failed else "")
        )


def write_picture(path: Path, pictures: LayoutPictures, fit: Any, names: list[str]) -> None:
    """The board from above around each of ``names``: the empty board, the calibration
    picture and their difference, with the element's true place (green), where its
    piece stood (blue) and the fit (red)."""

    s = 6.0
    size_mm = pictures.truth.size_mm
    empty = pictures.view.rectify(pictures.empty, size_mm, s)
    frame, view, _ = (
        pictures.calibration[0] if pictures.calibration else (pictures.empty, pictures.view, None)
    )
    seen = view.rectify(frame, size_mm, s)
    difference = _difference(empty, seen)
    difference = np.clip(
        difference / max(float(np.percentile(difference, 99.5)), 1e-6) * 255, 0, 255
    ).astype(np.uint8)
    panels = (empty, seen, cv2.cvtColor(difference, cv2.COLOR_GRAY2BGR))
    rows = []
    for name in names[:6]:
        element = pictures.truth.elements[name]
        fitted = fit.model.elements[name]
        outlines = [(element, (0, 200, 0)), (fitted, (0, 0, 255))]
        if name in pictures.placed:
            outlines.insert(
                1, (replace(element, centre_mm=tuple(pictures.placed[name])), (255, 80, 0))
            )
        centre = np.array(element.centre_mm)
        x0, y0 = np.maximum(np.rint((centre - 30.0) * s).astype(int), 0)
        tiles = []
        for panel in panels:
            drawn = panel.copy()
            for outline, colour in outlines:
                cv2.polylines(
                    drawn,
                    [np.rint(outline.corners_mm() * s * 16).astype(np.int32).reshape(-1, 1, 2)],
                    True,
                    colour,
                    1,
                    cv2.LINE_AA,
                    4,
                )
            crop = drawn[y0 : y0 + round(60 * s), x0 : x0 + round(60 * s)]
            tiles.append(cv2.resize(crop, (360, 360), interpolation=cv2.INTER_AREA))
        row = np.hstack(tiles)
        cv2.putText(
            row, name, (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA
        )
        rows.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), np.vstack(rows))


@dataclass
class SetupFit:
    """The layout fitted on one setup's pictures, and how far each element landed from
    its true place."""

    setup: LayoutSetup
    pictures: LayoutPictures
    fit: Any
    """The fitted layout; ``None`` when the fit failed (``error`` says why)."""
    error: str = ""
    seconds: float = 0.0
    distances: dict[str, float] = field(default_factory=dict)
    """Element name -> mm from its fitted centre to its true one."""
    piece_distances: dict[str, float] = field(default_factory=dict)
    """The same to where its piece stood in the calibration picture (bridges, gates)."""


def fit_setup(setup: LayoutSetup) -> SetupFit:
    """Render ``setup``'s calibration pictures, fit the layout from the model the fit
    starts from, and measure each element's distance to its true place."""
    pictures = render_setup(setup)
    started = time.perf_counter()
    try:
        fit = fit_layout(
            setup.game,
            pictures.nominal,
            pictures.empty,
            pictures.view,
            pictures.calibration,
        )
    except LayoutError as error:
        return SetupFit(setup, pictures, None, str(error))
    result = SetupFit(setup, pictures, fit, seconds=time.perf_counter() - started)
    for name, element in pictures.truth.elements.items():
        got = np.array(fit.elements[name].centre_mm)
        result.distances[name] = float(np.linalg.norm(got - np.array(element.centre_mm)))
        if name in pictures.placed:
            result.piece_distances[name] = float(np.linalg.norm(got - pictures.placed[name]))
    return result
