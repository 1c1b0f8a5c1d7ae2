"""A square read as bare is checked against the bare margin around it: glare added over
a bare square and its margin alike changes nothing, a tile that glare makes look like
the bare square is doubted, and so is one that stands from its margin toward a tile's
colour, or that has gone a good part of the way to a tile's colour near its own; one
both signs point to a tile is read as it, and a tile reading that looks like its bare
margin near a hand is left unsure."""

from __future__ import annotations

import numpy as np
import pytest

from vision.appearance import plan
from vision.appearance_core import LIGHT_PX_PER_MM, SHOWN_AT, LightField, SetAppearance
from vision.appearance_margin import (
    DOUBTFUL,
    MARGIN_FROM,
    MISMATCH,
    OWN_WITH_BRIGHTNESS,
    SQUARE_TOWARD_TILE,
    TILE_STEP,
    TOWARD_TILE,
    bare_colours,
    bare_doubted,
    doubt_bare,
    doubt_tile,
    left_over,
    margin_offsets,
    mismatch,
    plan_margins,
    read_as,
    tile_shown,
    torn,
    toward_tiles,
)
from vision.models import load_model
from vision.view import BoardView

PX_PER_MM = 1.0
"""The synthetic camera looks straight down at one pixel a millimetre."""
BARE = 0.3
"""The bare board's linear brightness (a mid grey)."""
DARK_TILE = 0.02
GLARE = 0.25
"""Linear light added everywhere: a dark tile under it looks like the bare square."""


def _srgb(linear: np.ndarray) -> np.ndarray:
    encoded = np.where(
        linear <= 0.0031308, linear * 12.92, 1.055 * np.power(linear, 1 / 2.4) - 0.055
    )
    return np.asarray(np.clip(np.rint(encoded * 255), 0, 255), dtype=np.uint8)


@pytest.fixture(scope="module")
def board():  # type: ignore[no-untyped-def]
    model = load_model("shendao")
    w, h = (round(s * PX_PER_MM) for s in model.size_mm)
    view = BoardView(np.diag([PX_PER_MM, PX_PER_MM, 1.0]), (w, h), method="truth")
    bare = np.full((round(model.size_mm[1] * 2), round(model.size_mm[0] * 2), 3), BARE)
    appearance = SetAppearance("shendao", bare.astype(np.float32), {})
    lw, lh = (round(s * LIGHT_PX_PER_MM) for s in model.size_mm)
    light = LightField(np.zeros((6, 3)), np.zeros((lh, lw, 3), np.float32), model.size_mm)
    squares = [n for n, e in model.elements.items() if e.kind == "square"]
    return model, view, appearance, light, squares


def _colour_differences(  # type: ignore[no-untyped-def]
    board, frame_linear: np.ndarray
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The squares, their log colour difference from their margins and their bare
    colours."""
    model, view, appearance, light, squares = board
    sampling = plan(model, view, squares)
    margins = plan_margins(model, view, squares)
    keep = sampling.inside
    found = mismatch(
        _srgb(frame_linear),
        margins,
        sampling.pixels[keep],
        sampling.ground_mm[keep],
        sampling.owner[keep],
        appearance,
        light,
    )
    bare = bare_colours(
        sampling.ground_mm[keep], sampling.owner[keep], len(margins.elements), appearance
    )
    return list(margins.elements), found, bare


def _differences(board, frame_linear: np.ndarray) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Each square's brightness difference from its margin."""
    names, found, _ = _colour_differences(board, frame_linear)
    return dict(zip(names, found[:, 0].tolist(), strict=True))


def _with_tile(board, name: str, albedo: float | np.ndarray, added: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    model, view, *_ = board
    w, h = view.image_size
    frame = np.full((h, w, 3), BARE)
    square = model.elements[name]
    half = model.pieces["tile_mm"] / 2.0
    x, y = square.centre_mm
    frame[round(y - half) : round(y + half), round(x - half) : round(x + half)] = albedo
    return frame + added


def test_the_margin_is_the_band_a_tile_leaves_bare() -> None:
    model = load_model("shendao")
    side = model.elements["d4"].size_mm[0]
    offsets = margin_offsets(side)
    reach = np.abs(offsets).max(axis=1)
    assert reach.min() >= MARGIN_FROM * side / 2.0
    assert reach.max() <= side / 2.0
    assert reach.min() > model.pieces["tile_mm"] / 2.0


def test_glare_over_a_bare_square_and_its_margin_is_no_mismatch(board) -> None:  # type: ignore[no-untyped-def]
    frame = _with_tile(board, "d4", BARE, GLARE)  # no tile: the board everywhere
    found = _differences(board, frame)
    assert max(abs(v) for v in found.values()) < MISMATCH / 3


def test_a_dark_tile_under_glare_differs_from_its_margin(board) -> None:  # type: ignore[no-untyped-def]
    frame = _with_tile(board, "d4", DARK_TILE, GLARE)
    # under the glare the tile is about as bright as the bare square was at calibration
    assert abs(np.log(DARK_TILE + GLARE) - np.log(BARE)) < 0.15
    found = _differences(board, frame)
    assert found["d4"] < -MISMATCH
    assert abs(found["e5"]) < MISMATCH / 3


def test_a_tile_as_bright_as_the_board_steps_toward_its_colour(board) -> None:  # type: ignore[no-untyped-def]
    # a reddish tile as bright as the board: no step of brightness, a step of colour
    tile = BARE * np.array([0.8, 0.8, 1 / 0.64])  # linear BGR, the same log brightness
    frame = _with_tile(board, "d4", tile, 0.0)
    names, found, bare = _colour_differences(board, frame)
    logs = np.log(tile + 1e-2)
    calibrated = np.array([logs.mean(), logs[2] - logs[1], logs[0] - logs[1]])
    shares = dict(zip(names, toward_tiles(found, bare, [calibrated])[:, 0].tolist(), strict=True))
    brightness = dict(zip(names, found[:, 0].tolist(), strict=True))
    assert abs(brightness["d4"]) < MISMATCH / 3
    assert shares["d4"] > 3 * TOWARD_TILE
    assert abs(shares["e5"]) < TOWARD_TILE / 3


def test_light_left_unexplained_is_weighed_against_each_tiles_way(board) -> None:  # type: ignore[no-untyped-def]
    # no tile anywhere, but the frame a little brighter than the light fitted says: the
    # square looks like its margin, and its own colour has moved toward a brighter tile
    model, view, appearance, light, squares = board
    brighter = 1.25
    frame = _srgb(np.full((view.image_size[1], view.image_size[0], 3), BARE * brighter))
    sampling = plan(model, view, squares)
    margins = plan_margins(model, view, squares)
    keep = sampling.inside
    on_square, on_margin = left_over(
        frame,
        margins,
        sampling.pixels[keep],
        sampling.ground_mm[keep],
        sampling.owner[keep],
        appearance,
        light,
    )
    bare = bare_colours(
        sampling.ground_mm[keep], sampling.owner[keep], len(margins.elements), appearance
    )
    difference = on_square - on_margin
    assert np.abs(difference).max() < 0.02  # against its margin: bare
    step = float(np.log(brighter))
    assert on_square[:, 0] == pytest.approx(step, abs=0.02)
    # a light tile close to the bare colour, and a dark one far from it
    near = bare[0] + np.array([2.5 * step, 0.0, 0.0])
    far = bare[0] - np.array([25 * step, 0.0, 0.0])
    own = toward_tiles(on_square, bare, [near, far])
    toward = toward_tiles(difference, bare, [near, far])
    row = margins.elements.index("d4")
    assert own[row, 0] > SQUARE_TOWARD_TILE  # 0.4 of the way to the light tile
    assert abs(own[row, 1]) < SQUARE_TOWARD_TILE / 5  # nowhere near the dark one
    p = np.array([0.97, 0.0, 0.02, 0.01])
    assert doubt_bare(p, 0, float(difference[row, 0]), toward[row].tolist()) is p
    doubted = doubt_bare(p, 0, float(difference[row, 0]), toward[row].tolist(), own[row].tolist())
    assert doubted[0] == pytest.approx(DOUBTFUL)
    # with the dark tile alone there is nothing to doubt
    alone = doubt_bare(p, 0, float(difference[row, 0]), [], [float(own[row, 1])])
    assert alone is p


def test_a_square_is_doubted_by_its_own_colour_only_past_the_line() -> None:
    assert not bare_doubted(0.0, [0.0], [SQUARE_TOWARD_TILE / 2])
    assert bare_doubted(0.0, [0.0], [0.0, 2 * SQUARE_TOWARD_TILE])
    assert not bare_doubted(0.0, [0.0], [-2 * SQUARE_TOWARD_TILE])  # away from the tile
    assert not bare_doubted(0.0, [0.0], [float("nan")])
    assert not bare_doubted(0.0, [0.0])  # as before when only the margin is known


def test_toward_a_tile_is_a_share_of_the_way_to_its_colour() -> None:
    bare = np.array([[-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    tiles = [np.array([-3.0, 0.0, 0.0]), np.array([-1.0, 0.4, 0.0])]
    difference = np.array([[-1.0, 0.0, 0.0], [0.0, 0.1, 0.0]])
    shares = toward_tiles(difference, bare, tiles)
    assert shares[:, 0].tolist() == pytest.approx([0.5, 0.0])
    assert shares[:, 1].tolist() == pytest.approx([0.0, 0.25])
    assert toward_tiles(difference, bare, []).shape == (2, 0)


def test_a_doubted_bare_reading_is_kept_but_not_sure() -> None:
    p = np.array([0.97, 0.01, 0.0, 0.02])
    doubted = doubt_bare(p, 0, -2 * MISMATCH, [0.0, 0.0])
    assert int(np.argmax(doubted)) == 0
    assert doubted[0] == pytest.approx(DOUBTFUL) and DOUBTFUL < 0.9
    assert doubted.sum() == pytest.approx(1.0)
    # the others share the rest as they shared theirs
    assert doubted[1] / doubted[3] == pytest.approx(p[1] / p[3])
    assert doubted[2] == 0.0


def test_only_a_sure_bare_reading_with_a_mismatch_is_doubted() -> None:
    p = np.array([0.97, 0.01, 0.0, 0.02])
    assert doubt_bare(p, 0, MISMATCH / 2, [TOWARD_TILE / 2, 0.0]) is p
    assert doubt_bare(p, 0, float("nan"), [float("nan")]) is p
    assert doubt_bare(p, 0, 0.0, [-2 * TOWARD_TILE]) is p  # away from every tile's colour
    assert doubt_bare(p, 0, 0.0, [0.0, 2 * TOWARD_TILE])[0] == pytest.approx(DOUBTFUL)
    tile = np.array([0.02, 0.97, 0.0, 0.01])
    assert doubt_bare(tile, 0, 2 * MISMATCH, [2 * TOWARD_TILE]) is tile
    alone = doubt_bare(np.array([1.0, 0.0, 0.0, 0.0]), 0, 2 * MISMATCH, [])
    assert alone[1:] == pytest.approx([(1 - DOUBTFUL) / 3] * 3)


def test_a_tile_reading_is_doubted_where_the_square_looks_like_its_margin() -> None:
    tile = np.array([0.02, 0.97, 0.0, 0.01])
    assert doubt_tile(tile, 1, 0.8) is tile  # its step of colour shows
    assert doubt_tile(tile, 1, float("nan")) is tile
    doubted = doubt_tile(tile, 1, TILE_STEP / 2)
    assert int(np.argmax(doubted)) == 1 and doubted[1] == pytest.approx(DOUBTFUL)
    assert doubted.sum() == pytest.approx(1.0)
    bare = np.array([0.97, 0.01, 0.0, 0.02])
    assert doubt_tile(bare, 1, 0.0) is bare  # read as bare: not a tile reading


def test_the_reader_changes_only_the_squares_it_doubts(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from vision import appearance_margin
    from vision.appearance import UNSURE, load_fitted
    from vision.evaluate.appearance import Setup, calibrated_reader, load_setup

    pictures = load_setup(
        Setup("painted", 1006, "hardest", (640, 360), "shendao"), tmp_path, lambda _: None
    )
    # the doubts alone: the flat square network, read after them, left out
    reader, view = calibrated_reader(pictures, replace(load_fitted("shendao"), flat=None))
    doubted = 0
    for image, _truth in pictures.plays:
        checked = reader.read(image, view)
        with monkeypatch.context() as patch:
            patch.setattr(appearance_margin, "CHECKED_KINDS", ())
            plain = reader.read(image, view)
        for name in plain.observation.schema.elements:
            before, after = plain.observation[name], checked.observation[name]
            if before == after and plain.abstained.get(name) == checked.abstained.get(name):
                continue
            assert reader.model.elements[name].kind in appearance_margin.CHECKED_KINDS
            doubted += 1
            if not after.known:
                # torn between the tile read and bare: unsure, never taken as covered
                assert before.known and before.value != "empty"
                assert checked.abstained[name] == UNSURE
                continue
            assert before.known and after.confidence == pytest.approx(DOUBTFUL)
            # kept at DOUBTFUL, or read as the tile a square read as bare shows after all
            assert after.value == before.value or before.value == "empty"
    assert doubted > 0, "a hardest table under glare has squares to doubt"


def test_a_bare_reading_both_signs_point_to_a_tile_is_read_as_it() -> None:
    p = np.array([0.97, 0.01, 0.0, 0.02])  # bare, dark, light, something else
    tiles = [2, 1]  # toward and own list the light tile, then the dark one
    # the margin and its own colour both go toward the dark tile
    read = doubt_bare(p, 0, 0.0, [0.0, 2 * TOWARD_TILE], [0.0, 2 * SQUARE_TOWARD_TILE], tiles)
    assert int(np.argmax(read)) == 1 and read[1] == pytest.approx(DOUBTFUL)
    assert read.sum() == pytest.approx(1.0)
    # without the tiles' places, doubted as before
    kept = doubt_bare(p, 0, 0.0, [0.0, 2 * TOWARD_TILE], [0.0, 2 * SQUARE_TOWARD_TILE])
    assert int(np.argmax(kept)) == 0 and kept[0] == pytest.approx(DOUBTFUL)
    # the two signs toward different tiles show neither
    apart = doubt_bare(p, 0, 0.0, [2 * TOWARD_TILE, 0.0], [0.0, 2 * SQUARE_TOWARD_TILE], tiles)
    assert int(np.argmax(apart)) == 0
    # its own colour a little toward the tile is enough where its brightness differs too
    small = [0.0, (OWN_WITH_BRIGHTNESS + SQUARE_TOWARD_TILE) / 2]
    assert tile_shown(0.0, [0.0, 2 * TOWARD_TILE], small) is None
    assert tile_shown(-2 * MISMATCH, [0.0, 2 * TOWARD_TILE], small) == 1
    assert tile_shown(0.0, [float("nan")] * 2, [float("nan")] * 2) is None


def test_a_tile_reading_that_looks_bare_is_torn_near_a_hand_or_when_doubtful() -> None:
    tile = np.array([0.02, 0.97, 0.0, 0.01])
    near_hand = doubt_tile(tile, 1, TILE_STEP / 2, 0, hand=True)
    assert near_hand[0] == near_hand[1] == pytest.approx(0.495)
    assert near_hand.max() < SHOWN_AT and near_hand.sum() == pytest.approx(1.0)
    assert doubt_tile(tile, 1, TILE_STEP / 2, 0)[1] == pytest.approx(DOUBTFUL)
    weak = np.array([0.25, 0.7, 0.0, 0.05])
    assert doubt_tile(weak, 1, TILE_STEP / 2) is weak  # as before without the bare value
    assert doubt_tile(weak, 1, TILE_STEP / 2, 0).max() < SHOWN_AT
    assert doubt_tile(weak, 1, 2 * TILE_STEP, 0, hand=True) is weak  # its step shows
    unsure = np.array([0.35, 0.55, 0.0, 0.1])
    assert doubt_tile(unsure, 1, 0.0, 0, hand=True) is unsure  # not read: left alone
    assert torn(tile, 0, 1).tolist() == pytest.approx([0.495, 0.495, 0.0, 0.01])
    assert read_as(tile, 1, 0)[0] == pytest.approx(DOUBTFUL)
