"""The quick search for markers in a large frame (a copy half its size first, then
each marker detected again at full size round it) gives the corners the search of the
whole frame gives."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import vision.locate as locate
from calibration.registration import detect_markers
from engines.shenshi import ShenshiRules
from engines.shenshi.observation import expected
from vision.bench_locate import synthetic_profile
from vision.locate import LocateConfig, Locator
from vision.synth.camera import Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table

CAMERA = Camera.from_fov(800, 600, 60.0, k1=-0.05)
# every frame searched the quick way, and the whole frame only
QUICK = LocateConfig(quick_min_frame_px=0)
WHOLE = LocateConfig(quick_scale=1.0)


@cache
def _picture() -> np.ndarray:
    render = render_table(
        expected(ShenshiRules().initial_state()),
        CAMERA,
        Pose(80.0, 20.0, 650.0),
        imaging=Imaging(supersample=1, noise_sigma=2.0, blur_sigma=0.5),
        options=TableOptions(px_per_mm=1.0, markers=True),
        seed=3,
    )
    return np.asarray(render.image, np.uint8)


@pytest.mark.parametrize("lens", [False, True])
def test_the_quick_search_finds_the_corners_of_the_whole_frame(
    lens: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    image = _picture()
    profile = synthetic_profile(CAMERA) if lens else None
    whole = Locator("shenshi", camera=profile, config=WHOLE).find_markers(image)
    sizes: list[tuple[int, ...]] = []

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        sizes.append(args[2].shape[:2])
        return detect_markers(*args, **kwargs)

    monkeypatch.setattr(locate, "detect_markers", spy)
    quick = Locator("shenshi", camera=profile, config=QUICK).find_markers(image)
    # the whole frame was never searched at full size: the copy, then a window per marker
    assert image.shape[:2] not in sizes
    assert sizes[0] == (image.shape[0] // 2, image.shape[1] // 2)
    assert len(sizes) == 1 + len(quick)
    assert set(quick) == set(whole) >= {8, 9, 10, 11}
    for marker_id, corners in whole.items():
        assert np.abs(quick[marker_id] - corners).max() < 0.01


def test_a_board_found_the_quick_way_is_where_the_whole_search_puts_it() -> None:
    image = _picture()
    quick = Locator("shenshi", config=QUICK).locate(image)
    whole = Locator("shenshi", config=WHOLE).locate(image)
    assert quick.view is not None and whole.view is not None
    assert quick.markers == whole.markers
    outline = np.array([[0.0, 0.0], [300.0, 0.0], [300.0, 300.0], [0.0, 300.0]])
    assert np.abs(quick.view.to_image(outline) - whole.view.to_image(outline)).max() < 0.01


def test_a_window_round_a_marker_passes_over_squares_under_half_its_side() -> None:
    image = _picture()
    whole = Locator("shenshi", config=WHOLE).find_markers(image)
    registration = Locator("shenshi").registration
    for marker_id, corners in whole.items():
        side = float(np.sqrt(np.prod(np.ptp(corners, axis=0))))
        x0, y0 = np.floor(corners.min(axis=0) - side).astype(int)
        x1, y1 = np.ceil(corners.max(axis=0) + side).astype(int)
        window = np.ascontiguousarray(image[max(y0, 0) : y1, max(x0, 0) : x1])
        every = detect_markers(registration, "DICT_4X4_50", window)
        larger = detect_markers(registration, "DICT_4X4_50", window, min_side_px=side / 2.0)
        assert marker_id in larger
        assert set(larger) <= set(every)
        assert np.array_equal(larger[marker_id], every[marker_id])


def test_the_copy_is_only_a_first_look_and_windows_ask_for_the_markers_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = _picture()
    calls: list[dict[str, object]] = []

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs)
        return detect_markers(*args, **kwargs)

    monkeypatch.setattr(locate, "detect_markers", spy)
    found = Locator("shenshi", config=QUICK).find_markers(image)
    assert calls[0].get("refine") is False
    assert len(calls) == 1 + len(found)
    assert all(float(c["min_side_px"]) > 5.0 for c in calls[1:])  # type: ignore[arg-type]
