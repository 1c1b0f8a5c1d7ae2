"""The Calibrate screen's layout step in Kivy (offscreen): the stored layout drawn over
the live picture with its legend, a touch drag moving a space, undo, and Save writing
the profile. The layout is made here, not fitted (the fit is tested in
``test_wizard_layout``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.layout import ElementFit, LayoutFit, load_layout, save_layout
from companion.app.gamesetup import GameSetup
from tests.app.conftest import Driver
from tests.app.test_screens import _check_targets
from tests.app.test_wizard_layout import register
from vision.models import load_model
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table
from vision.view import truth_view


@pytest.fixture(scope="module")
def empty_board_video(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    """A short video of the empty Shangri-La board (800x600) and the camera's view."""
    from calibration.evaluate_layout import _empty_observation
    from vision.models import referee_schema

    camera = Camera.from_fov(800, 600, 55.0, k1=0.0)
    pose = Pose(75.0, 0.0, 760.0)
    image = render_table(
        _empty_observation(referee_schema("shangrila")),
        camera,
        pose,
        light=LIGHTS["daylight"],
        imaging=Imaging(supersample=1),
        options=TableOptions(),
        seed=0,
    ).image
    path = tmp_path_factory.mktemp("layout-video") / "empty.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (800, 600))
    for _ in range(6):
        writer.write(image)
    writer.release()
    return path, truth_view(camera, pose, (500.0, 500.0))


def _stored_layout(path: Path) -> LayoutFit:
    """The board model's own places, found clearly but for one doubtful stone spot."""
    model = load_model("shangrila")
    fits = {
        name: ElementFit(
            name, e.centre_mm, e.angle_deg, 0.0, 0.2 if name == "stone 6" else 0.9, 0.0, "outline"
        )
        for name, e in model.elements.items()
    }
    fit = LayoutFit(model, fits)
    save_layout(fit, path)
    return fit


def test_a_drag_on_the_picture_moves_a_space_and_save_writes_it(
    ui: Driver,
    empty_board_video: tuple[Path, object],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kivy.tests.common import UnitTestTouch

    from calibration.profiles import layout_path

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    video, view = empty_board_video
    register(view)  # type: ignore[arg-type]
    stored = _stored_layout(layout_path("shangrila"))
    app = ui.app
    app.setup = replace(GameSetup.default("shangrila"), camera="video", video=str(video))
    app.go("calibrate")
    screen = app.root.ids.calibrate
    assert ui.wait(
        lambda: (
            screen.ids.camera.has_frame
            and screen.preview is not None
            and screen.preview.last is not None
        )
    )
    screen.go("layout")
    ui.pump(3)
    editor = screen.layout_editor
    assert editor is not None and screen.message.startswith("the layout stored")
    overlay = screen.ids.layout
    assert len(overlay.canvas.children) > 127  # a colour and a line per element
    assert screen.ids.legend.opacity == 1 and screen.ids.legend.height > 0
    assert screen.ids.save_layout.get_root_window() is not None
    assert screen.ids.capture.get_root_window() is None  # the other steps' buttons

    box = overlay.box()
    centre = np.array(editor.fit.model.elements["3R"].centre_mm)
    local = box.to_widget(view.to_image(centre))[0]  # type: ignore[attr-defined]
    x, y = overlay.to_window(*local)
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_move(x + 12, y - 6)
    ui.pump()
    assert editor.fit.model.elements["3R"].centre_mm == tuple(centre)  # not kept yet
    touch.touch_move(x + 24, y - 12)
    touch.touch_up()
    ui.pump(2)
    expected = editor.shift_mm(box.to_picture(*local), box.to_picture(local[0] + 24, local[1] - 12))
    moved = np.array(editor.fit.model.elements["3R"].centre_mm)
    assert moved - centre == pytest.approx(expected, abs=0.05)
    assert np.linalg.norm(moved - centre) > 5.0
    assert screen.message.startswith("Moved 3R by ")
    assert screen.can_undo and not screen.ids.undo.disabled

    screen.ids.undo.dispatch("on_release")
    ui.pump()
    assert editor.fit.model.elements["3R"].centre_mm == tuple(centre)
    assert not screen.can_undo

    # the whole village with the group switch on
    screen.ids.group_drag.state = "down"
    touch = UnitTestTouch(x, y)
    touch.touch_down()
    touch.touch_move(x - 10, y + 10)
    touch.touch_up()
    ui.pump()
    assert screen.message.startswith("Moved village 3 by ")
    shift = np.array(editor.fit.model.elements["3R"].centre_mm) - centre
    for shot in ("landscape", "portrait"):
        ui.shot("calibrate-layout", shot)
        _check_targets(ui)
    ui.size("landscape")
    screen.ids.save_layout.dispatch("on_release")
    assert ui.wait(lambda: not screen.busy and screen.message.startswith("board layout"), 20)
    saved = load_layout(layout_path("shangrila"), load_model("shangrila"))
    for name in ("3R", "3A", "stone 3"):
        assert np.array(saved.model.elements[name].centre_mm) == pytest.approx(
            np.array(stored.model.elements[name].centre_mm) + shift
        )
    assert saved.model.elements["4R"].centre_mm == stored.model.elements["4R"].centre_mm
    screen.ids.group_drag.state = "normal"
    screen.go("board")
    app.go("start")
    assert ui.wait(lambda: screen.feed is None, 5)
