"""The player's corrections of a fitted layout (``companion.app.layout_edit``): touches
picked, drags turned into board millimetres through a known registration, groups,
undo, and the corrected layout through the profile. No Kivy, no fitting."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.layout import ElementFit, LayoutFit, load_layout
from companion.app.layout_edit import (
    CLEAR,
    DOUBTFUL,
    FOLLOWS,
    MOVED,
    LayoutEditor,
    PictureBox,
)
from vision.models import BoardModel, load_model
from vision.view import BoardView

# 2 picture pixels a millimetre, the board's corner at (100, 50): a drag of (20, -10) px
# is (10, -5) mm anywhere on the board
FLAT = np.array([[2.0, 0.0, 100.0], [0.0, 2.0, 50.0], [0.0, 0.0, 1.0]])
# a camera looking at the board from the side: farther rows look smaller
SLANTED = np.array([[1.6, 0.25, 180.0], [0.02, 1.1, 120.0], [0.0, 0.0006, 1.0]])


def _fit(
    model: BoardModel, doubtful: tuple[str, ...] = (), following: tuple[str, ...] = ()
) -> LayoutFit:
    """The model's own places, every element found clearly except those named."""
    elements = {}
    for name, element in model.elements.items():
        confidence = 0.2 if name in doubtful else 0.0 if name in following else 0.9
        source = "group" if name in following or element.kind in ("cushion", "monk") else "outline"
        elements[name] = ElementFit(
            name, element.centre_mm, element.angle_deg, 0.0, confidence, 0.0, source
        )
    return LayoutFit(model, elements, "2026-01-01T00:00:00Z")


def _editor(game: str, homography: np.ndarray = FLAT, **kwargs: tuple[str, ...]) -> LayoutEditor:
    model = load_model(game)
    return LayoutEditor(_fit(model, **kwargs), BoardView(homography, (1400, 1200)), model)


def _picture(editor: LayoutEditor, name: str) -> tuple[float, float]:
    x, y = editor.view.to_image(np.array(editor.fit.model.elements[name].centre_mm))[0]
    return float(x), float(y)


def _centre(editor: LayoutEditor, name: str) -> np.ndarray:
    return np.array(editor.fit.model.elements[name].centre_mm)


def test_a_drag_moves_the_touched_space_by_the_distance_on_the_board() -> None:
    editor = _editor("shangrila")
    before = {name: _centre(editor, name) for name in editor.fit.model.elements}
    start = _picture(editor, "3R")
    target = editor.pick(start)
    assert target is not None and target.names == ("3R",)
    shift = editor.drag(target, start, (start[0] + 20.0, start[1] - 10.0))
    assert shift == pytest.approx((10.0, -5.0))
    assert _centre(editor, "3R") == pytest.approx(before["3R"] + np.array([10.0, -5.0]))
    assert [n for n in before if not np.allclose(_centre(editor, n), before[n])] == ["3R"]
    moved = editor.element("3R")
    assert moved.centre_mm == pytest.approx(tuple(before["3R"] + np.array([10.0, -5.0])))
    assert moved.moved_mm == pytest.approx(np.hypot(10.0, 5.0))
    assert moved.confidence == 1.0 and moved.residual_mm == 0.0
    assert editor.can_undo and not editor.saved


def test_a_slanted_view_moves_by_the_board_distance_under_the_finger() -> None:
    editor = _editor("shangrila", SLANTED)
    start = _picture(editor, "7D")
    end = (start[0] + 15.0, start[1] + 12.0)
    expected = editor.view.to_board(np.array([end]))[0] - editor.view.to_board(np.array([start]))[0]
    before = _centre(editor, "7D")
    target = editor.pick(start)
    assert target is not None and target.names == ("7D",)
    editor.drag(target, start, end)
    assert _centre(editor, "7D") == pytest.approx(before + expected, abs=1e-9)
    # the outline is drawn where the registration puts the moved space
    outline = next(o for o in editor.outlines() if o.name == "7D")
    assert outline.state == MOVED
    assert outline.points_px.mean(axis=0) == pytest.approx(end, abs=1.5)


def test_a_village_moves_as_a_group_with_its_stone_spot() -> None:
    editor = _editor("shangrila")
    model = editor.fit.model
    village = [
        n
        for n, e in model.elements.items()
        if e.kind == "space" and "".join(c for c in n if c.isdigit()) == "5"
    ]
    assert len(village) >= 5
    start = _picture(editor, village[0])
    target = editor.pick(start, group=True)
    assert target is not None and set(target.names) == {*village, "stone 5"}
    before = {n: _centre(editor, n) for n in model.elements}
    centre = np.array(model.villages[5].centre_mm)
    editor.drag(target, start, (start[0] - 8.0, start[1] + 6.0))
    for name in model.elements:
        expected = before[name] + np.array([-4.0, 3.0] if name in target.names else [0.0, 0.0])
        assert _centre(editor, name) == pytest.approx(expected), name
    moved_centre = np.array(editor.fit.model.villages[5].centre_mm)
    assert moved_centre == pytest.approx(centre + np.array([-4.0, 3.0]))
    assert editor.fit.model.villages[4].centre_mm == model.villages[4].centre_mm
    # a bridge belongs to no village: in group mode it still moves alone
    bridge = next(n for n, e in model.elements.items() if e.kind == "bridge")
    picked = editor.pick(_picture(editor, bridge), group=True)
    assert picked is not None and picked.names == (bridge,)


def test_the_grid_moves_whole_and_a_shenshi_tile_takes_its_cushion_and_monk() -> None:
    shendao = _editor("shendao")
    start = _picture(shendao, "d4")
    target = shendao.pick(start, group=True)
    assert target is not None and set(target.names) == set(shendao.fit.model.elements)
    gate = next(n for n, e in shendao.fit.model.elements.items() if e.kind == "gate")
    before = _centre(shendao, gate)
    shendao.drag(target, start, (start[0] + 6.0, start[1]))
    assert _centre(shendao, gate) == pytest.approx(before + np.array([3.0, 0.0]))

    shenshi = _editor("shenshi")
    start = _picture(shenshi, "c3 tile")
    target = shenshi.pick(start)
    assert target is not None and set(target.names) == {"c3 tile", "c3 cushion", "c3 monk"}
    assert target.names[0] == "c3 tile"
    shenshi.drag(target, start, (start[0], start[1] + 4.0))
    assert _centre(shenshi, "c3 monk") == pytest.approx(
        np.array(load_model("shenshi").elements["c3 monk"].centre_mm) + np.array([0.0, 2.0])
    )
    assert "c3 cushion" not in {o.name for o in shenshi.outlines()}  # drawn with its tile


def test_a_touch_off_every_outline_picks_nothing_unless_near_one() -> None:
    editor = _editor("shendao")
    corner = editor.view.to_image(np.array([[1.0, 1.0]]))[0]
    assert editor.pick((float(corner[0]), float(corner[1]))) is None
    a1 = next(o for o in editor.outlines() if o.name == "a1").points_px
    outside = (float(a1[:, 0].min() - 3.0), float(a1[:, 1].mean()))
    assert editor.pick(outside) is None
    near = editor.pick(outside, reach_px=5.0)
    assert near is not None and near.names == ("a1",)


def test_undo_takes_back_the_last_drag_only() -> None:
    editor = _editor("shangrila")
    first, second = _picture(editor, "0R"), _picture(editor, "1R")
    home = {n: _centre(editor, n) for n in ("0R", "1R")}
    a, b = editor.pick(first), editor.pick(second)
    assert a is not None and b is not None
    editor.drag(a, first, (first[0] + 4.0, first[1]))
    editor.drag(b, second, (second[0], second[1] + 4.0))
    assert editor.undo()
    assert _centre(editor, "1R") == pytest.approx(home["1R"])
    assert _centre(editor, "0R") == pytest.approx(home["0R"] + np.array([2.0, 0.0]))
    assert editor.moved == {"0R"}
    assert editor.undo() and not editor.undo()
    assert _centre(editor, "0R") == pytest.approx(home["0R"]) and not editor.moved
    # a tap that does not move keeps no undo step
    editor.drag(a, first, first)
    assert not editor.can_undo


def test_a_drag_off_the_board_stops_at_its_edge() -> None:
    editor = _editor("shangrila")
    start = _picture(editor, "0R")
    target = editor.pick(start, group=True)
    assert target is not None
    shift = editor.drag(target, start, (start[0] - 5000.0, start[1]))
    xs = [editor.fit.model.elements[n].centre_mm[0] for n in target.names]
    assert min(xs) == pytest.approx(0.0) and shift[0] > -500.0


def test_outlines_say_which_are_doubtful_and_which_follow() -> None:
    editor = _editor("shangrila", doubtful=("stone 6",), following=("bridge 0-1",))
    states = {o.name: o.state for o in editor.outlines()}
    assert states["stone 6"] == DOUBTFUL and states["bridge 0-1"] == FOLLOWS
    assert states["3R"] == CLEAR and len(states) == len(editor.fit.model.elements)
    start = _picture(editor, "stone 6")
    target = editor.pick(start)
    assert target is not None and target.names == ("stone 6",)
    editor.drag(target, start, (start[0] + 2.0, start[1]))
    assert "stone 6" not in editor.fit.doubtful()  # the player placed it


def test_the_corrected_layout_goes_through_the_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibration.profiles import layout_path
    from vision.table_profile import load_table_profile

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    editor = _editor("shangrila")
    start = _picture(editor, "9Y")
    target = editor.pick(start, group=True)
    assert target is not None
    editor.drag(target, start, (start[0] + 10.0, start[1] + 10.0))
    editor.save(layout_path("shangrila"))
    assert editor.saved
    stored = load_layout(layout_path("shangrila"), load_model("shangrila"))
    for name in editor.fit.model.elements:
        assert stored.elements[name] == editor.element(name)
    assert stored.model.villages == editor.fit.model.villages
    camera_model = load_table_profile("shangrila").model
    expected = np.array(load_model("shangrila").elements["9Y"].centre_mm) + np.array([5.0, 5.0])
    assert np.array(camera_model.elements["9Y"].centre_mm) == pytest.approx(expected)


def test_the_picture_box_maps_touches_both_ways() -> None:
    box = PictureBox.contain((1280, 720), (10.0, 20.0), (640.0, 640.0))
    assert (box.width, box.height) == pytest.approx((640.0, 360.0))
    assert box.bottom == pytest.approx(20.0 + 140.0)
    assert box.to_picture(10.0, 20.0 + 140.0 + 360.0) == pytest.approx((0.0, 0.0))
    points = np.array([[0.0, 0.0], [1280.0, 720.0], [333.0, 111.0]])
    back = [box.to_picture(x, y) for x, y in box.to_widget(points)]
    assert np.array(back) == pytest.approx(points)
    assert box.picture_px(10.0) == pytest.approx(20.0)


def test_elements_out_of_the_picture_are_not_drawn() -> None:
    model = load_model("shendao")
    editor = LayoutEditor(_fit(model), BoardView(FLAT, (600, 1200)), model)
    shown = {o.name for o in editor.outlines()}
    for name, element in model.elements.items():
        corners = editor.view.to_image(element.corners_mm())
        inside = bool(np.all(corners[:, 0] <= 600.0))
        assert (name in shown) == inside, name
    assert 0 < len(shown) < len(model.elements)
