"""What a calibration profile tells the camera pipeline about one table.

A profile (``companion calibrate ...``, :mod:`calibration.profiles`) may hold, for a
game: the camera's lens, where the board lies (a reference picture for a board without
markers), the piece colours, the board's own layout and the set's appearance (its
empty board and piece colours). :func:`load_table_profile` gathers what there is;
:meth:`TableProfile.pipeline` builds the pipeline from it: the layout the player's
board was fitted to, the locator with the lens and reference, and the appearance
reader when the set was calibrated (otherwise the colour reader, with the colour model
when there is one).

A profile named by the player must be readable: a damaged file in it is an error. The
default profile is used when it can be; a damaged file in it is skipped and said so in
``notes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from calibration.colours import ColourModel, load_colour_model
from calibration.errors import ProfileError
from calibration.intrinsics import CameraProfile, load_camera_profile
from calibration.layout import load_layout
from calibration.profiles import (
    DEFAULT_PROFILE,
    board_path,
    camera_path,
    colours_path,
    layout_path,
    profile_dir,
    reference_image_path,
)
from calibration.registration import load_board_profile, load_reference_image
from vision.appearance import AppearanceReader, load_appearance
from vision.appearance_core import SetAppearance
from vision.locate import BoardReference, Locator
from vision.models import BoardModel, load_model
from vision.pipeline import Pipeline, reader_for
from vision.view import BoardView


@dataclass
class TableProfile:
    """The parts of one profile the camera uses for ``game`` (``None``: not there)."""

    game: str
    name: str | None
    camera: CameraProfile | None = None
    reference: BoardReference | None = None
    colours: ColourModel | None = None
    layout: BoardModel | None = None
    appearance: SetAppearance | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def model(self) -> BoardModel:
        """The board's layout: the player's, when fitted; the board model's otherwise."""
        return self.layout if self.layout is not None else load_model(self.game)

    def reader(self, rules: Any = None) -> Any:
        """The appearance reader when the set was calibrated, else the colour reader."""
        if self.appearance is not None:
            return AppearanceReader(self.game, self.model, self.appearance)
        return reader_for(self.game, self.model, self.colours, rules)

    def locator(self) -> Locator:
        return Locator(self.game, camera=self.camera, reference=self.reference)

    def pipeline(
        self, *, rules: Any = None, view: BoardView | None = None, require_still: bool = True
    ) -> Pipeline:
        """The camera pipeline of this table (see the module docstring)."""
        return Pipeline(
            self.game,
            view=view,
            locator=None if view is not None else self.locator(),
            reader=self.reader(rules),
            model=self.model,
            rules=rules,
            require_still=require_still,
        )

    def describe(self) -> list[str]:
        """What the pipeline takes from the profile, in plain words."""
        label = f"profile {self.name or 'default'}"
        parts = [
            what
            for what, there in (
                ("the camera's lens", self.camera is not None),
                ("the board's reference picture", self.reference is not None),
                ("the board's own layout", self.layout is not None),
                (
                    "the set's appearance (empty board and piece colours)",
                    self.appearance is not None,
                ),
                ("the colour model", self.colours is not None and self.appearance is None),
            )
            if there
        ]
        lines = [
            f"{label}: "
            + (
                ", ".join(parts)
                if parts
                else "nothing for this game (the camera reads with its default colours)"
            )
        ]
        return lines + self.notes


def load_table_profile(game: str, name: str | None = None) -> TableProfile:
    """Everything ``name`` (the default profile for ``None``) holds for ``game``.
    Raises ``calibration.errors.ProfileError`` for a damaged file of a named profile,
    or a name the data folder does not allow."""
    profile = TableProfile(game, name)
    strict = name is not None
    folder = profile_dir(name or DEFAULT_PROFILE)
    if not folder.is_dir():
        if strict:
            raise ProfileError(
                f"there is no profile {name!r} (looked in {folder}); "
                f"make one with 'companion calibrate'"
            )
        return profile
    for part, load in (
        ("camera", _camera),
        ("reference", _reference),
        ("colours", _colours),
        ("layout", _layout),
        ("appearance", _appearance),
    ):
        try:
            setattr(profile, part, load(game, name or DEFAULT_PROFILE, profile))
        except ProfileError as error:
            if strict:
                raise
            profile.notes.append(f"not used: {error}")
    return profile


def _camera(game: str, name: str, profile: TableProfile) -> Any:
    path = camera_path(name)
    return load_camera_profile(path) if path.exists() else None


def _reference(game: str, name: str, profile: TableProfile) -> Any:
    path = board_path(game, name)
    if not path.exists() or not reference_image_path(game, name).exists():
        return None
    board = load_board_profile(path, game)
    image = load_reference_image(reference_image_path(game, name), board)
    return BoardReference.from_profile(board, image, profile.camera)


def _colours(game: str, name: str, profile: TableProfile) -> Any:
    path = colours_path(game, name)
    return load_colour_model(path, game) if path.exists() else None


def _layout(game: str, name: str, profile: TableProfile) -> BoardModel | None:
    path = layout_path(game, name)
    return load_layout(path, load_model(game)).model if path.exists() else None


def _appearance(game: str, name: str, profile: TableProfile) -> Any:
    return load_appearance(game, name)
