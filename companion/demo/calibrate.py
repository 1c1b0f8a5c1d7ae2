"""Calibrating the demo's table before the film, as a player calibrates theirs.

The demo's camera photographs the empty board and the calibration position (what
``companion calibrate layout --print-position`` lists) with the film's camera, table
and light; the board is registered from its markers, the layout fitted and the set's
appearance learned by the functions ``companion calibrate board`` and ``companion
calibrate layout`` run, and everything is stored as a profile. The film is then read
through that profile (:func:`vision.table_profile.load_table_profile`), as a player's
camera reads their table.

The profile lives in the demo's own data folder, inside the report folder
(``DIR/calibration/profiles/demo``): the player's profiles are never read or written.
The lens is the renderer's own camera (the one part not measured from pictures here;
``companion bench calibration`` measures how close a lens calibration comes to it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.boards import board_geometry
from calibration.config import load_config
from calibration.intrinsics import save_camera_profile
from calibration.layout import draw_layout, fit_layout, registered_view, save_layout
from calibration.profiles import DATA_DIR_ENV, board_path, camera_path, layout_path, profile_dir
from calibration.registration import save_board_profile
from calibration.sources import write_image
from companion.cli.calibrate.layout import (
    APPEARANCE_GAMES,
    NEEDS_POSITION,
    SET_ONLY_POSITION,
)
from companion.demo.film import Shot, photograph
from companion.demo.recognise import lens_profile
from engines.observation import Observation, Reading, TableSchema, Value
from vision.appearance import calibrate, calibration_layout, save_appearance
from vision.locate import register_board
from vision.models import load_model, referee_schema
from vision.table_profile import load_table_profile

PROFILE = "demo"
"""The name of the demo's profile, in the demo's own data folder."""
DATA_FOLDER = "calibration"
"""The demo's data folder, inside the report folder."""
_PIECE_NAMES = {
    "bridge": "bridges",
    "stone": "stones",
    "gate": "sticks",
    "cushion": "cushions",
    "monk": "monks",
}


@dataclass(frozen=True)
class TableCalibration:
    """The calibrated table: the profile the camera reads through, where it is stored,
    what each step found (plain words, one line each) and how long it took."""

    profile: Any
    """A :class:`vision.table_profile.TableProfile`."""
    folder: Path
    steps: tuple[str, ...]
    seconds: float

    def describe(self) -> list[str]:
        """Which calibration the camera uses (``TableProfile.describe``)."""
        return list(self.profile.describe())

    def to_json(self, report_folder: Path, reader: str = "appearance") -> dict[str, Any]:
        """For the report: the steps, the profile's parts (and the reader, when not the
        profile's own), its folder and the layout picture, relative to
        ``report_folder``."""
        parts = self.describe() + (
            ["read with the colour reader instead of the profile's"] if reader == "colours" else []
        )
        picture = self.folder / f"layout-{self.profile.game}.png"

        def relative(path: Path) -> str:
            try:
                return path.relative_to(report_folder).as_posix()
            except ValueError:
                return str(path)

        return {
            "steps": list(self.steps),
            "profile": parts,
            "folder": relative(self.folder),
            "layout_picture": relative(picture) if picture.exists() else None,
            "seconds": round(self.seconds, 1),
        }


@contextmanager
def data_folder(folder: Path) -> Iterator[None]:
    """Profiles are read and written in ``folder`` (the companion's data folder
    setting) while inside; the setting is put back afterwards."""
    before = os.environ.get(DATA_DIR_ENV)
    os.environ[DATA_DIR_ENV] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DATA_DIR_ENV, None)
        else:
            os.environ[DATA_DIR_ENV] = before


def empty_table(schema: TableSchema) -> Observation:
    """The table with nothing on the board (every element shows its bare value)."""
    readings: dict[str, Reading | Value | None] = {}
    for element in schema.elements:
        values = schema.values[element]
        bare = next((v for v in ("empty", "none", "open") if v in values), None)
        if bare is None:
            bare = 0 if any(type(v) is int for v in values) else False
        readings[element] = bare
    return Observation(schema, readings)


def calibrate_table(
    game: str, shot: Shot, seed: int, out: Path, say: Callable[[str], None] | None = None
) -> TableCalibration:
    """Photograph ``game``'s empty board and calibration position with the demo's
    camera (``shot``, the table of ``seed``), calibrate from the pictures into the
    demo's profile under ``out``, and load it. ``say`` hears each step as it is done.
    Raises the calibration's own errors (``calibration.errors.CalibrationError``,
    ``calibration.layout.LayoutError``) when a picture does not show what it must."""

    def step(text: str) -> None:
        steps.append(text)
        if say is not None:
            say(text)

    start = time.perf_counter()
    steps: list[str] = []
    folder = out / DATA_FOLDER
    with data_folder(folder):
        lens = lens_profile(shot)
        save_camera_profile(lens, camera_path(PROFILE))
        step("the lens: the renderer's own camera")
        schema = referee_schema(game)
        model = load_model(game)
        geometry = board_geometry(game)
        empty = photograph(empty_table(schema), shot, seed)
        pictures = profile_dir(PROFILE)
        write_image(pictures / f"empty-{game}.png", empty)
        registration = register_board(load_config().registration, geometry, empty, lens)
        board = registration.profile
        save_board_profile(board, board_path(game, PROFILE))
        step(
            f"the board: registered from markers {', '.join(map(str, board.markers_seen))} "
            f"({board.fit_rms_mm:.2f} mm RMS)"
        )
        view = registered_view(board.matrix, board.image_size, lens)
        calibration = []
        if game in NEEDS_POSITION or game in SET_ONLY_POSITION:
            position = calibration_layout(schema, model, list(geometry.player_colours))
            picture = photograph(position, shot, seed)
            write_image(pictures / f"position-{game}.png", picture)
            calibration.append((picture, view, position))
        # as the command: a position that teaches only the set's look is no layout evidence
        fit = fit_layout(game, model, empty, view, [] if game in SET_ONLY_POSITION else calibration)
        save_layout(fit, layout_path(game, PROFILE))
        write_image(layout_path(game, PROFILE).with_suffix(".png"), draw_layout(fit, view, empty))
        furthest = max(fit.elements.values(), key=lambda f: f.moved_mm)
        doubtful = fit.doubtful()
        step(
            f"the layout: {len(fit.elements)} elements fitted, the furthest "
            f"{furthest.moved_mm:.1f} mm from the printed plan ({furthest.name})"
            + (f"; doubtful: {', '.join(doubtful)}" if doubtful else "")
        )
        if calibration and game in APPEARANCE_GAMES:
            appearance = calibrate(game, fit.model, empty, view, calibration)
            save_appearance(appearance, PROFILE)
            step(f"the set's appearance: the empty board and {_pieces_learned(appearance.colours)}")
        profile = load_table_profile(game, PROFILE)
    return TableCalibration(profile, pictures, tuple(steps), time.perf_counter() - start)


def _pieces_learned(colours: dict[str, Any]) -> str:
    """What the calibration position taught, in words: "red, blue tiles, bridges"."""
    parts = []
    for kind, values in sorted(colours.items()):
        parts.append(_PIECE_NAMES.get(kind) or ", ".join(map(str, values)) + " tiles")
    return ", ".join(parts)
