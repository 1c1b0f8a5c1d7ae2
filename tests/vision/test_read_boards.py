"""The Shangri-La and Shendao readers' later looks, on rendered pictures with known
truth: a stack boxed in by its neighbours, the rim of a Shendao square along a printed
wall."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from engines.observation import Observation
from vision.models import load_model, referee_schema
from vision.read import NEIGHBOUR_IN_LINE, BoardReader
from vision.read_shendao import ShendaoReader
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, TableRender, render_table
from vision.view import BoardView, truth_view

HARD = Imaging(noise_sigma=4.0, blur_sigma=0.9, shot_noise=0.3, vignetting=0.15, jpeg_quality=85)


def shangrila(pieces: dict[str, object]) -> Observation:
    """An empty Shangri-La board (no bridges, no stones) but for ``pieces``."""
    readings: dict[str, object] = {}
    for element in referee_schema("shangrila").elements:
        if element.endswith("^"):
            readings[element] = 0
        elif element.startswith(("bridge", "stone")):
            readings[element] = False
        else:
            readings[element] = "empty"
    readings.update(pieces)
    return Observation(referee_schema("shangrila"), readings)  # type: ignore[arg-type]


@cache
def photo(
    game: str,
    pieces: tuple[tuple[str, object], ...],
    elevation: float,
    rotation: float,
    glare: float = 0.0,
    seed: int = 3,
) -> tuple[TableRender, BoardView]:
    camera = Camera.from_fov(1920, 1080, 60.0, k1=-0.04)
    pose = Pose(elevation, rotation, 800.0, (14.0, -15.0))
    if game == "shangrila":
        truth = shangrila(dict(pieces))
    else:
        readings: dict[str, object] = {
            e: ("empty" if not e.startswith("gate") else "open")
            for e in referee_schema(game).elements
        }
        readings.update(dict(pieces))
        truth = Observation(referee_schema(game), readings)  # type: ignore[arg-type]
    light = replace(LIGHTS["hardest"], direction_deg=rotation + 60.0, key_level=0.55)
    picture = render_table(
        truth,
        camera,
        pose,
        light=light,
        imaging=HARD,
        options=TableOptions(placement_mm=1.0, placement_deg=3.0, glare=glare),
        seed=seed,
    )
    return picture, truth_view(camera, pose, load_model(game).size_mm)


def wrong(reader: BoardReader, picture: TableRender, view: BoardView) -> list[str]:
    reading = reader.read(picture.image, view)
    truth = picture.visible()
    return [
        f"{e}: {truth[e].value!r} read {reading.observation[e].value!r}"
        for e in truth
        if truth[e].known
        and reading.observation[e].known
        and reading.observation[e].value != truth[e].value
    ]


# A blue stack of two with violet neighbours in front and behind it (seen from 37
# degrees, turned as below, the camera looks along the line through all three), and
# lone stacks in other villages.
BOXED = (
    ("0P", "blue"),
    ("0P^", 2),
    ("0Y", "violet"),
    ("0Y^", 1),
    ("0D", "violet"),
    ("0D^", 1),
    ("0R", "yellow"),
    ("0R^", 1),
    ("4F", "red"),
    ("4F^", 2),
    ("8H", "yellow"),
    ("8H^", 1),
)


def test_a_stack_boxed_in_by_its_neighbours_is_not_shown() -> None:
    picture, view = photo("shangrila", BOXED, 37.0, 264.0)
    reader = BoardReader("shangrila")
    reading = reader.read(picture.image, view)
    assert wrong(reader, picture, view) == []
    # its edges lie under its neighbours' stacks: the view cannot show them
    assert reading.abstained.get("0P^") == NEIGHBOUR_IN_LINE
    assert "0P^" in reading.unseen
    # a lone stack never gives that reason
    for lone in ("4F^", "8H^"):
        assert reading.abstained.get(lone) != NEIGHBOUR_IN_LINE


def test_the_rim_is_not_read_along_a_printed_wall() -> None:
    reader = ShendaoReader()
    names = [e.name for e in reader.elements]
    # d4 has the walls on two sides (east and north), a1 none
    walled = reader._rim_clear[names.index("d4")]
    assert 0 < walled.sum() < len(walled)
    assert reader._rim_clear[names.index("a1")].all()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_empty_squares_under_glare_beside_the_walls(seed: int) -> None:
    """Glare brightens an empty square towards a light tile's colour; beside the
    walls its rim would have caught their red and looked unlike its middle."""
    tiles = (("a1", "dark"), ("h8", "light"), ("b7", "light"))
    picture, view = photo("shendao", tiles, 80.0, 20.0 + 90.0 * seed, glare=0.6, seed=seed)
    reader = ShendaoReader()
    assert wrong(reader, picture, view) == []
    reading = reader.read(picture.image, view)
    squares = [e.name for e in reader.elements if e.kind == "square"]
    assert sum(reading.observation[s].known for s in squares) >= 0.8 * len(squares)


def test_the_rim_is_not_read_on_the_printed_walls() -> None:
    """A rim read on the walls shows their red, not the square (with the rim read on
    them, an empty square under glare beside the walls had passed for a light tile,
    before the paper beside the gates measured the glare): rim points near a wall are
    left out, the others kept."""
    reader = ShendaoReader()
    names = [e.name for e in reader.elements]
    beside = reader._rim_clear[names.index("e5")]
    assert 0 < beside.sum() < len(beside)  # two of its sides lie on walls
    assert reader._rim_clear[names.index("a1")].all()
    tiles = (("a1", "dark"), ("h8", "light"), ("b7", "light"))
    picture, view = photo("shendao", tiles, 80.0, 290.0, glare=0.6, seed=3)
    assert wrong(reader, picture, view) == []
