"""The Calibrate wizard's layout step (``companion.app.wizard``) on rendered pictures of
a Shangri-La edition whose layout is not the board model's: what it says when a step
is missing, the fit stored in the profile as ``companion calibrate layout`` stores it,
and a correction dragged on the picture saved there."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.evaluate_layout import _empty_observation
from calibration.layout import LayoutSettings, load_layout
from companion.app.wizard import CalibrationWizard
from vision.appearance import calibration_layout
from vision.models import BoardModel, load_model, referee_schema
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table
from vision.synth.world import make_world
from vision.view import BoardView, truth_view

QUICK = LayoutSettings(px_per_mm=2.0)
"""Coarser than the wizard's own fit, so the tests stay quick (the accuracy of the
fit itself is measured by ``companion bench layout``)."""


@dataclass
class Pictures:
    truth: BoardModel
    empty: Any
    position: Any
    view: BoardView


@pytest.fixture(scope="module")
def pictures() -> Pictures:
    world = make_world("shangrila", "painted", 41)
    schema = referee_schema("shangrila")
    camera = Camera.from_fov(800, 800, 50.0)
    pose = Pose(72.0, 30.0, 720.0, (0.0, 0.0))
    imaging = Imaging(blur_sigma=0.4, noise_sigma=1.5, supersample=1)
    shots = []
    for seed, (observation, placement) in enumerate(
        (
            (_empty_observation(schema), 0.0),
            (calibration_layout(schema, world.model, ["red", "blue", "yellow", "violet"]), 0.5),
        )
    ):
        shots.append(
            render_table(
                observation,
                camera,
                pose,
                light=LIGHTS["daylight"],
                imaging=imaging,
                options=TableOptions(placement_mm=placement),
                seed=seed + 1,
                model=world.model,
                art=world.art(),
                colours=world.colours,
            ).image
        )
    return Pictures(world.model, shots[0], shots[1], truth_view(camera, pose, world.model.size_mm))


@pytest.fixture
def profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    return tmp_path / "profiles" / "default"


def register(view: BoardView) -> None:
    """The board registered where the pictures' camera sees it."""
    from calibration.boards import board_geometry
    from calibration.profiles import board_path, now_iso
    from calibration.registration import BoardProfile, save_board_profile

    save_board_profile(
        BoardProfile(
            "shangrila",
            "markers",
            view.image_size,
            tuple(tuple(float(v) for v in row) for row in view.homography),
            None,
            0.1,
            (0, 1, 2, 3),
            board_geometry("shangrila"),
            None,
            now_iso(),
        ),
        board_path("shangrila"),
    )


def _wizard() -> CalibrationWizard:
    wizard = CalibrationWizard("shangrila")
    wizard.layout_settings = QUICK
    wizard.go("layout")
    return wizard


def test_what_is_missing_is_said_never_raised(pictures: Pictures, profiles: Path) -> None:
    wizard = _wizard()
    for message in (wizard.open_layout(), wizard.capture_layout_empty(pictures.empty)):
        assert message.startswith("register the board first")
    assert wizard.save_layout().startswith("there is no layout to save yet")
    assert wizard.undo_layout() == "nothing to undo"

    register(pictures.view)
    wizard = _wizard()
    assert wizard.open_layout() == ""  # nothing stored yet, nothing to show
    assert wizard.capture_layout_position(pictures.position).startswith(
        "take the picture of the empty board first"
    )
    small = pictures.empty[::2, ::2]
    assert "but the board was registered on 800x800 pictures" in wizard.capture_layout_empty(small)
    said = wizard.capture_layout_empty(pictures.empty)
    assert said.startswith("empty board captured; now set up the calibration position")
    assert "red on 0R, 1R, 2R" in said
    # a grey picture where the empty board should be: the fit fails, and says why
    blank = np.full_like(pictures.empty, 128)
    assert wizard.capture_layout_empty(blank).startswith("empty board captured")
    said = wizard.capture_layout_position(pictures.position)
    assert said.endswith("take the picture again"), said
    assert wizard.layout_editor is None
    assert not (profiles / "layout-shangrila.json").exists()

    assert "needs only the empty board" in CalibrationWizard("shenshi").capture_layout_position(
        pictures.position
    )


def _error(model: BoardModel, truth: BoardModel, name: str) -> float:
    return float(
        np.linalg.norm(
            np.array(model.elements[name].centre_mm) - np.array(truth.elements[name].centre_mm)
        )
    )


def test_the_layout_is_fitted_stored_corrected_and_saved(
    pictures: Pictures, profiles: Path
) -> None:
    register(pictures.view)
    wizard = _wizard()
    assert wizard.capture_layout_empty(pictures.empty).startswith("empty board captured")
    said = wizard.capture_layout_position(pictures.position)
    assert said.startswith("board layout saved: 127 elements"), said
    assert "set appearance saved" in said
    assert (profiles / "appearance-shangrila.json").exists()
    nominal = load_model("shangrila")
    stored = load_layout(profiles / "layout-shangrila.json", nominal)
    spaces = [e.name for e in nominal.of_kind("space")]
    assert max(_error(stored.model, pictures.truth, n) for n in spaces) <= 2.0
    editor = wizard.layout_editor
    assert editor is not None and editor.fit.elements == stored.elements
    # the live view no longer draws the registration's model: the screen draws the layout
    assert wizard.overlay(pictures.empty) is pictures.empty

    # the player drags a village where it is printed on the picture
    village = [n for n in spaces if "".join(c for c in n if c.isdigit()) == "4"]
    start = tuple(pictures.view.to_image(np.array(stored.model.elements[village[0]].centre_mm))[0])
    shifted = np.array(stored.model.elements[village[0]].centre_mm) + np.array([6.0, -4.0])
    end = tuple(pictures.view.to_image(shifted)[0])
    target = editor.pick(start, group=True)
    assert target is not None and set(target.names) == {*village, "stone 4"}
    shift = editor.drag(target, start, end)
    assert shift == pytest.approx((6.0, -4.0), abs=1e-6)
    assert wizard.save_layout().startswith("board layout saved to ")
    saved = load_layout(profiles / "layout-shangrila.json", nominal)
    for name in village:
        expected = np.array(stored.model.elements[name].centre_mm) + np.array([6.0, -4.0])
        assert np.array(saved.model.elements[name].centre_mm) == pytest.approx(expected)
    assert saved.model.elements["0R"].centre_mm == stored.model.elements["0R"].centre_mm
    assert saved.model.villages[4].centre_mm != stored.model.villages[4].centre_mm

    # the next time the step opens, the corrected layout is shown again
    again = _wizard()
    assert again.open_layout().startswith("the layout stored in the profile is drawn")
    assert again.layout_editor is not None
    assert again.layout_editor.fit.elements == saved.elements
    assert again.undo_layout() == "nothing to undo"


def test_a_board_model_that_cannot_be_drawn_is_said(
    profiles: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.app.wizard
    from calibration.errors import CalibrationError
    from companion.app.wizard import WizardPreview

    def fails(*_: Any) -> Any:
        raise CalibrationError("the registration's corners are not a quadrilateral")

    wizard = CalibrationWizard("shangrila")
    wizard._loaded, wizard._board = True, object()
    preview = WizardPreview(wizard)
    frame = np.zeros((8, 8, 3), np.uint8)
    monkeypatch.setattr(companion.app.wizard, "draw_overlay", fails)
    assert wizard.overlay(frame) is frame
    assert wizard.message == (
        "the board model cannot be drawn: the registration's corners are not a quadrilateral"
    )
    assert preview.message == wizard.message
    monkeypatch.setattr(companion.app.wizard, "draw_overlay", lambda *a: a[-1].copy())
    wizard.overlay(frame)
    assert wizard.message == ""
