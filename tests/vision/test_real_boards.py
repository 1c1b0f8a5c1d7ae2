"""The printed grid found with no corners given, and intersections read after calibration:
on drawn photographs with known truth, and on the real photographs of
``../shared/data/real-boards/imago-go`` when that folder is present."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import real_boards as rb
from vision.evaluate.real_boards import DEFAULT_DATA, games

IMAGO = DEFAULT_DATA / "imago-go"


def _drawn_board(
    homography: np.ndarray,
    stones: dict[tuple[int, int], str],
    light: float = 1.0,
    border: bool = True,
    seed: int = 0,
) -> np.ndarray:
    """A 640x480 photo of a 19x19 board under ``homography`` (board units to pixels):
    wood-coloured, thin dark lines, an outer border line a fifth of a cell outside the
    grid, black and white stones, on a dark cloth; noise and JPEG."""
    scale = 4.0  # drawing pixels per board unit
    size = round(rb.BOARD_UNITS[0] * scale)
    rng = np.random.default_rng(seed)
    board = np.zeros((size, size, 3), np.uint8)
    board[:] = (120, 180, 215)
    for i in range(rb.LINES):
        p = round((rb.MARGIN + rb.CELL * i) * scale)
        lo, hi = round(rb.MARGIN * scale), round((rb.MARGIN + rb.CELL * 18) * scale)
        cv2.line(board, (p, lo), (p, hi), (40, 40, 40), 3)
        cv2.line(board, (lo, p), (hi, p), (40, 40, 40), 3)
    if border:
        o = round((rb.MARGIN - 0.2 * rb.CELL) * scale)
        cv2.rectangle(board, (o, o), (size - o, size - o), (30, 30, 30), 5)
    for (row, column), colour in stones.items():
        centre = (
            round((rb.MARGIN + rb.CELL * column) * scale),
            round((rb.MARGIN + rb.CELL * row) * scale),
        )
        shade = (25, 25, 25) if colour == "black" else (235, 240, 240)
        cv2.circle(board, centre, round(0.46 * rb.CELL * scale), shade, -1)
    to_drawing = np.diag([scale, scale, 1.0])
    warp = homography @ np.linalg.inv(to_drawing)
    photo = np.full((480, 640, 3), (90, 40, 30), np.uint8)
    cv2.warpPerspective(board, warp, (640, 480), dst=photo, borderMode=cv2.BORDER_TRANSPARENT)
    noisy = photo.astype(np.float64) * light + rng.normal(0, 3, photo.shape)
    ok, jpeg = cv2.imencode(
        ".jpg", np.clip(noisy, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 75]
    )
    assert ok
    return np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR))


def _view(corners: list[tuple[float, float]]) -> np.ndarray:
    outer = rb.intersection_units()[[0, 0, -1, -1], [0, -1, -1, 0]]
    return cv2.getPerspectiveTransform(
        outer.astype(np.float32), np.array(corners, np.float32)
    ).astype(np.float64)


OBLIQUE = [(150.0, 60.0), (500.0, 50.0), (600.0, 440.0), (40.0, 450.0)]
TURNED = [(160.0, 40.0), (560.0, 90.0), (500.0, 460.0), (110.0, 420.0)]


@pytest.mark.parametrize("corners", [OBLIQUE, TURNED], ids=["oblique", "turned"])
def test_the_grid_is_found_with_no_corners_given(corners: list[tuple[float, float]]) -> None:
    stones = {(3, 3): "black", (15, 15): "white", (0, 0): "black", (9, 9): "white"}
    photo = _drawn_board(_view(corners), stones)
    fit = rb.find_grid(photo)
    # the outer border line beside the grid is not taken for one of its lines
    assert np.abs(fit.corners - np.array(corners)).max() < 1.5
    assert fit.line_support > 0.8


def test_a_photo_without_a_grid_is_refused() -> None:
    rng = np.random.default_rng(3)
    blank = rng.integers(100, 110, (480, 640, 3)).astype(np.uint8)
    with pytest.raises(rb.GridNotFound):
        rb.find_grid(blank)


def test_drawn_stones_are_read_after_calibration_under_other_light() -> None:
    homography = _view(OBLIQUE)
    empty = _drawn_board(homography, {}, seed=1)
    both = {(2, 2): "black", (2, 16): "white", (16, 2): "white", (16, 16): "black"}
    calibration = _drawn_board(homography, both, seed=2)
    rng = np.random.default_rng(4)
    positions = []
    for _ in range(3):
        cells = rng.choice(rb.LINES * rb.LINES, size=30, replace=False)
        positions.append(
            {
                (int(c) // rb.LINES, int(c) % rb.LINES): ("black" if k % 2 else "white")
                for k, c in enumerate(cells)
            }
        )
    photos = [
        _drawn_board(homography, stones, light=light, seed=10 + i)
        for i, (stones, light) in enumerate(zip(positions, (1.0, 0.8, 0.65), strict=True))
    ]
    fits = [rb.find_grid(p) for p in (empty, calibration, *photos)]

    def labels(stones: dict[tuple[int, int], str]) -> tuple[tuple[str, ...], ...]:
        return tuple(
            tuple(stones.get((r, c), "empty") for c in range(rb.LINES)) for r in range(rb.LINES)
        )

    appearance = rb.calibrate(empty, fits[0], [(calibration, fits[1], labels(both))])
    assert set(appearance.colours[rb.KIND]) == {"black", "white"}
    examples = rb.board_examples(
        rb.board_features(photos[0], fits[2], appearance), labels(positions[0])
    )
    weights = rb.fit_board_weights(examples)
    for photo, fit, stones in zip(photos[1:], fits[3:], positions[1:], strict=True):
        reading = rb.read_board(photo, fit, appearance, weights)
        assert reading.values == labels(stones)


def test_labels_parse_and_refuse() -> None:
    text = (
        "\n".join(" ".join("B" if (r, c) == (3, 16) else "." for c in range(19)) for r in range(19))
        + "\n\n"
    )
    labels = rb.parse_labels(text, "t.txt")
    assert labels[3][16] == "black" and labels[16][3] == "empty"
    with pytest.raises(rb.LabelError, match=r"t\.txt"):
        rb.parse_labels(text.replace("B", "X"), "t.txt")
    with pytest.raises(rb.LabelError, match="19 lines"):
        rb.parse_labels(". .\n", "t.txt")


def test_a_photo_is_read_as_stored_whatever_its_exif_orientation(tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image")
    stored = np.zeros((40, 60, 3), np.uint8)
    stored[:10, :] = 255  # a white band along the top of the stored pixels
    picture = image.fromarray(stored)
    exif = picture.getexif()
    exif[0x0112] = 6  # "turn 90 degrees to show"
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", exif=exif.tobytes(), quality=95)
    path = tmp_path / "turned.jpg"
    path.write_bytes(buffer.getvalue())
    read = rb.read_photo(path)
    assert read.shape[:2] == (40, 60)
    assert read[:10].mean() > 200 and read[20:].mean() < 50
    with pytest.raises(FileNotFoundError):
        rb.read_photo(tmp_path / "missing.jpg")


# --- the real photographs --------------------------------------------------------------------

needs_photos = pytest.mark.skipif(
    not IMAGO.is_dir(), reason=f"the real photographs are not here ({IMAGO} is absent)"
)

# The outer crossings of two photos, read by eye from crops enlarged ten times (to a pixel or
# two): top-left, top-right, bottom-right, bottom-left of the stored pixels.
HAND_CHECKED = {
    "t2/t2_101": [(118.5, 55.0), (520.3, 41.8), (618.0, 449.0), (17.0, 451.0)],
    "t3/t3_051": [(141.4, 28.3), (550.4, 22.4), (626.5, 444.0), (28.0, 411.7)],
}


@needs_photos
@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_real_grids_are_found_where_checked_by_hand(name: str) -> None:
    photo = rb.read_photo(IMAGO / f"{name}.jpg")
    fit = rb.find_grid(photo)
    error = np.linalg.norm(fit.corners - np.array(HAND_CHECKED[name]), axis=1)
    assert error.max() < 4.0, error
    offsets = rb.crossing_offsets(photo, fit, rb.read_labels(IMAGO / f"{name}.txt"))
    assert len(offsets) > 100
    assert np.median(offsets[:, 2]) < 1.0


@needs_photos
def test_real_stones_are_read_on_a_game_the_weights_never_saw() -> None:
    found = games(DEFAULT_DATA)
    t2 = {p.name: p for p in found["imago-go/t2"]}
    t3 = {p.name: p for p in found["imago-go/t3"]}

    def load(photo: object) -> tuple[np.ndarray, rb.GridFit, tuple[tuple[str, ...], ...]]:
        image = rb.read_photo(photo.image_path)  # type: ignore[attr-defined]
        return image, rb.find_grid(image), rb.read_labels(photo.label_path)  # type: ignore[attr-defined]

    # weights from a few photos of game t2, calibrated on its own first photos
    first = [load(t2[n]) for n in ("t2_000", "t2_001", "t2_002")]
    t2_set = rb.calibrate(first[0][0], first[0][1], first, empty_labels=first[0][2])
    examples = []
    for name in ("t2_004", "t2_007", "t2_011"):
        image, fit, labels = load(t2[name])
        examples += rb.board_examples(rb.board_features(image, fit, t2_set), labels)
    weights = rb.fit_board_weights(examples)
    # game t3: calibrated on its first photos (five black stones already down), read late
    first = [load(t3[n]) for n in ("t3_000", "t3_001", "t3_002")]
    t3_set = rb.calibrate(first[0][0], first[0][1], first, empty_labels=first[0][2])
    for name in ("t3_050", "t3_051"):
        image, fit, labels = load(t3[name])
        reading = rb.read_board(image, fit, t3_set, weights)
        truth = np.array(labels)
        read = np.array(reading.values, dtype=object)
        right = int(np.sum(read == truth))
        wrong = int(np.sum((read != truth) & (read != None)))  # noqa: E711
        assert np.sum(truth != "empty") >= 54
        assert right >= 0.99 * truth.size, (name, right, wrong)
        assert wrong <= 2, (name, wrong)
