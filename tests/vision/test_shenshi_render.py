"""ShenShi on the table: tiles, cushions and monks change the picture where the ground
truth says, stack on one another, and show their sizes and faces as a player sees them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engines.observation import Observation
from engines.shenshi import ShenshiRules
from engines.shenshi.observation import expected
from vision.models import load_model
from vision.synth.camera import Camera, Imaging, Pose, project_points
from vision.synth.table import TableOptions, TableRender, render_table

CAMERA = Camera.from_fov(320, 240, 60.0)
FAST = Imaging(supersample=1)
PLAIN = TableOptions(px_per_mm=2.0, shadows=False)
ABOVE = Pose(90.0, 0.0, 600.0)
OBLIQUE = Pose(40.0, 0.0, 600.0)


def _empty() -> Observation:
    """A table with nothing on the board (the tokens as the game starts)."""
    start = expected(ShenshiRules().initial_state())
    return start.replace({e: "none" for e in start.schema.elements if not e.startswith("tokens ")})


def _render(observation: Observation, pose: Pose = ABOVE, **options: object) -> TableRender:
    chosen = TableOptions(**{"px_per_mm": 2.0, "shadows": False, **options})
    return render_table(observation, CAMERA, pose, imaging=FAST, options=chosen)


def _inside(polygon: np.ndarray, shape: tuple[int, ...], grow: int = 0) -> np.ndarray:
    mask = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.rint(polygon).astype(np.int32).reshape(-1, 1, 2)], 1)
    if grow:
        mask = cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    return mask.astype(bool)


def test_same_seed_same_picture() -> None:
    observation = _empty().replace(
        {"c3 cushion": "orange", "c3 monk": "gold-grand", "e5 tile": "intact"}
    )
    options = TableOptions(px_per_mm=1.5, hands=1, glare=0.2)
    imaging = Imaging(supersample=1, noise_sigma=3.0)
    one, two, other = (
        render_table(observation, CAMERA, OBLIQUE, imaging=imaging, options=options, seed=seed)
        for seed in (4, 4, 5)
    )
    assert np.array_equal(one.image, two.image)
    assert not np.array_equal(one.image, other.image)


@pytest.mark.parametrize(
    ("element", "value"),
    [
        ("d4 tile", "intact"),
        ("d4 tile", "faded"),
        ("d4 cushion", "blond"),
        ("d4 cushion", "orange"),
        ("d4 monk", "silver-grand"),
        ("d4 monk", "black-master"),
    ],
)
def test_each_piece_changes_the_picture_where_the_truth_says(element: str, value: str) -> None:
    empty = _empty()
    before = _render(empty)
    after = _render(empty.replace({element: value}))
    truth = after.truth[element]
    changed = np.abs(after.image.astype(int) - before.image.astype(int)).max(axis=2) > 12
    assert changed.sum() > 20
    near = _inside(truth.top, changed.shape, grow=2) | _inside(truth.polygon, changed.shape, grow=2)
    assert changed[near].sum() / changed.sum() > 0.97
    assert truth.visible == 1.0


def test_stack_heights_add_up() -> None:
    model = load_model("shenshi")
    p = model.pieces
    observation = _empty().replace(
        {
            "b2 tile": "faded",
            "b2 cushion": "blond",
            "b2 monk": "copper-grand",
            "f6 monk": "copper-master",
        }
    )
    result = _render(observation, OBLIQUE)
    for square, height in (
        ("b2", p["tile_thickness_mm"] + p["cushion_height_mm"] + p["grand_height_mm"]),
        ("f6", p["master_height_mm"]),
    ):
        centre = np.array(model.region(f"{square} monk").centre_mm) - np.array(model.size_mm) / 2.0
        expected_top = project_points(CAMERA, OBLIQUE, np.array([[*centre, -height]]))[0]
        assert np.allclose(result.truth[f"{square} monk"].top.mean(axis=0), expected_top, atol=0.5)
    cushion_top = result.truth["b2 cushion"].top.mean(axis=0)
    centre = np.array(model.region("b2 cushion").centre_mm) - np.array(model.size_mm) / 2.0
    height = p["tile_thickness_mm"] + p["cushion_height_mm"]
    assert np.allclose(
        cushion_top, project_points(CAMERA, OBLIQUE, np.array([[*centre, -height]]))[0], atol=0.5
    )


def _monk_box(size: str, pose: Pose) -> tuple[int, int]:
    """Width and height, in pixels, of what a monk of ``size`` changes on an orange
    cushion on d4 (the board's centre, where the camera looks)."""
    base = _empty().replace({"d4 cushion": "orange"})
    without = _render(base, pose)
    with_monk = _render(base.replace({"d4 monk": f"silver-{size}"}), pose)
    diff = np.abs(with_monk.image.astype(int) - without.image.astype(int)).max(axis=2)
    _, _, w, h = cv2.boundingRect((diff > 12).astype(np.uint8))
    return w, h


def test_grand_master_shows_taller_than_master_in_oblique_views() -> None:
    near_oblique, near_above = Pose(40.0, 0.0, 400.0), Pose(90.0, 0.0, 400.0)
    grand_w, grand_h = _monk_box("grand", near_oblique)
    master_w, master_h = _monk_box("master", near_oblique)
    # seen from the side, a monk stands taller than it is wide, the Grand Master most
    assert grand_h > 1.3 * grand_w and master_h > master_w
    assert grand_h > 1.3 * master_h
    # from straight above the sides do not show: about as tall as wide
    above_w, above_h = _monk_box("grand", near_above)
    assert above_h < 1.2 * above_w


def test_faded_and_intact_tiles_look_different() -> None:
    empty = _empty()
    intact = _render(empty.replace({"c5 tile": "intact"}), OBLIQUE)
    faded = _render(empty.replace({"c5 tile": "faded"}), OBLIQUE)
    inside = _inside(intact.truth["c5 tile"].top, intact.image.shape)
    hsv_intact = cv2.cvtColor(intact.image, cv2.COLOR_BGR2HSV)[inside].astype(float)
    hsv_faded = cv2.cvtColor(faded.image, cv2.COLOR_BGR2HSV)[inside].astype(float)
    # the intact mandala is dark and vivid; the faded one pale and washed out
    assert hsv_intact[:, 1].mean() > hsv_faded[:, 1].mean() + 60
    grey_intact = cv2.cvtColor(intact.image, cv2.COLOR_BGR2GRAY)[inside].astype(float)
    grey_faded = cv2.cvtColor(faded.image, cv2.COLOR_BGR2GRAY)[inside].astype(float)
    assert grey_faded.mean() > grey_intact.mean() + 40


def test_path_tokens_are_not_in_the_picture() -> None:
    observation = _empty()
    result = _render(observation)
    tokens = [e for e in observation.schema.elements if e.startswith("tokens ")]
    assert tokens and set(result.unseen) == set(tokens)
    assert not set(tokens) & set(result.truth)
    seen = result.visible()
    assert all(not seen[e].known for e in tokens)
    assert seen["a1 tile"].value == "none"


def test_corner_markers_on_the_shenshi_board() -> None:
    from calibration.config import load_config
    from calibration.registration import detect_markers

    camera = Camera.from_fov(800, 600, 60.0)
    result = render_table(
        _empty(),
        camera,
        Pose(70.0, 0.0, 650.0),
        imaging=FAST,
        options=TableOptions(px_per_mm=2.0, markers=True),
    )
    found = detect_markers(load_config().registration, "DICT_4X4_50", result.image)
    assert sorted(found) == [8, 9, 10, 11]


_PIECES = (
    ("monk", "silver-grand"),
    ("monk", "copper-grand"),
    ("monk", "gold-master"),
    ("monk", "black-master"),
    ("cushion", "blond"),
    ("cushion", "orange"),
    ("tile", "intact"),
    ("tile", "faded"),
)


def _sample(result: TableRender, element: str) -> np.ndarray:
    """The colour of what stands on ``element``: a monk's robe, or the top of a
    cushion or tile (its whole face: the mandala and the tuft belong to it)."""
    image = result.image.astype(float)
    truth = result.truth[element]
    if element.endswith(" monk"):
        x, y = np.rint(truth.top.mean(axis=0) * 0.6 + truth.polygon.mean(axis=0) * 0.4).astype(int)
        return image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(axis=0)
    centre = truth.top.mean(axis=0)
    return image[_inside(centre + (truth.top - centre) * 0.8, image.shape)].mean(axis=0)


@pytest.mark.parametrize("rotation", [0.0, 90.0, 180.0, 270.0])
def test_hardest_light_keeps_the_pieces_apart(rotation: float) -> None:
    """Under the hardest light (warm lamp one side, cold window the other), seen low,
    blurred and noisy, each piece on the bright side looks most like the same piece on
    the dim side among the pieces of its kind (a bare light square counting as a tile),
    once both are compared with the bare squares beside them, as a person's eye does.
    (Each margin is at least twice over with the packaged colours.)"""
    from vision.synth.camera import LIGHTS

    observation = _empty()
    place: dict[tuple[str, str], str] = {}
    for side, files, bare in (("bright", "ab", "c6"), ("dim", "gf", "e6")):
        squares = [f + rank for f in files for rank in "7654"]
        for (kind, value), square in zip(_PIECES, squares, strict=True):
            observation = observation.replace({f"{square} {kind}": value})
            place[(side, value)] = f"{square} {kind}"
        place[(side, "none")] = f"{bare} tile"  # a light square
    result = render_table(
        observation,
        Camera.from_fov(640, 360, 60.0),
        Pose(35.0, rotation, 650.0),
        light=LIGHTS["hardest"],
        imaging=Imaging(supersample=1, blur_sigma=1.0, noise_sigma=4.0, shot_noise=0.3),
        options=TableOptions(px_per_mm=2.0),
        seed=2,
    )
    kinds = [*_PIECES, ("tile", "none")]
    looks: dict[tuple[str, str], np.ndarray] = {}
    for side, bare in (("bright", "c"), ("dim", "e")):
        white = np.mean([_sample(result, f"{bare}{rank} tile") for rank in "7654"], axis=0)
        for _, value in kinds:
            colour = _sample(result, place[(side, value)]) / white
            # hue and saturation, then lightness compressed (a log, damped): how much
            # light falls on a piece changes its lightness more than its colour
            looks[(side, value)] = np.append(colour / colour.mean(), 0.25 * np.log(colour.mean()))
    for kind, value in kinds:
        distances = {
            other: np.linalg.norm(looks[("bright", value)] - looks[("dim", other)])
            for same, other in kinds
            if same == kind
        }
        assert min(distances, key=distances.__getitem__) == value, distances
