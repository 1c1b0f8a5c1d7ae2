"""Stack heights by the appearance reader: rendered close-ups (640x480) of several
worlds with stacks of one and two tiles set apart (or each with a tile of another
colour right behind it), read by the height reader against the world's own bare
board; a steep view, an unannounced object over an edge and a hand the pipeline knows
of leave heights unknown."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from engines.observation import Observation, Reading
from vision import appearance_heights as ah
from vision.appearance import (
    AppearanceReader,
    bare_value,
    calibrate,
    fit_light,
)
from vision.models import HEIGHT_SUFFIX, referee_schema
from vision.pipeline import weighed_observation
from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
from vision.synth.table import TableOptions, render_table
from vision.synth.world import make_world
from vision.view import truth_view

GAME = "shangrila"
SIZE = (640, 480)
WORLDS = (("painted", 1003), ("painted", 1011), ("project", 1002))
EXPECTED_TINY = {
    "weights": [1.849864, 0.933434, 1.939462, 1.161546, 0.280557, 0.481847],
    "temperature": 1.2,
    "read_at": 0.6,
}
"""What the fit and its calibration give on :func:`_tiny_set` (stored when the fit
last changed: the same code must give the same file)."""


@dataclass
class Close:
    """A close-up of a world's table with a few stacks and its truth."""

    world: Any
    view: Any
    empty: np.ndarray
    table: np.ndarray
    stacks: dict[str, int]
    colour: dict[str, str]
    camera: Any
    pose: Any


def _stacks_apart(
    model: Any, look_mm: tuple[float, float], count: int, rng: np.random.Generator
) -> list[str]:
    """Spaces near the point looked at, no two closer than two spaces apart."""
    centre = np.array(model.size_mm) / 2 + np.array(look_mm)
    spaces = sorted(
        model.of_kind("space"), key=lambda e: float(np.linalg.norm(np.array(e.centre_mm) - centre))
    )
    chosen: list[Any] = []
    for space in spaces[:30]:
        if all(
            np.linalg.norm(np.array(space.centre_mm) - np.array(c.centre_mm)) > 40 for c in chosen
        ):
            chosen.append(space)
        if len(chosen) == count:
            break
    rng.shuffle(chosen)
    return [c.name for c in chosen]


def _behind(model: Any, name: str, camera_mm: np.ndarray) -> str | None:
    """The space next to ``name`` (in its village) furthest from the camera beyond it."""
    centre = np.array(model.elements[name].centre_mm)
    away = centre - camera_mm[:2]
    away /= np.linalg.norm(away)
    best, most = None, 0.8
    for space in model.of_kind("space"):
        step = np.array(space.centre_mm) - centre
        if (
            space.name != name
            and np.linalg.norm(step) < 30.0
            and float(step @ away) / np.linalg.norm(step) > most
        ):
            best, most = space.name, float(step @ away) / np.linalg.norm(step)
    return best


def close_up(
    kind: str,
    seed: int,
    elevation: float,
    hands: int = 0,
    distance: float = 170.0,
    behind: bool = False,
) -> Close:
    world = make_world(GAME, kind, seed)
    model = world.model
    schema = referee_schema(GAME)
    rng = np.random.default_rng(seed)
    look = (float(rng.uniform(-60, 60)), float(rng.uniform(-60, 60)))
    camera = Camera.from_fov(SIZE[0], SIZE[1], 60.0)
    pose = Pose(elevation, float(rng.uniform(0, 360)), distance, look)
    view = truth_view(camera, pose, model.size_mm)
    names = _stacks_apart(model, look, 4, rng)
    stacks = {name: 1 + i % 2 for i, name in enumerate(names)}
    colours = ("red", "yellow", "blue", "violet")
    colour = {name: colours[i % 4] for i, name in enumerate(names)}
    bare = {
        e: (0 if e.endswith(HEIGHT_SUFFIX) else bare_value(schema.values[e]))
        for e in schema.elements
        if model.on_board(e)
    }
    table = dict(bare)
    for name, height in stacks.items():
        table[name] = colour[name]
        table[name + HEIGHT_SUFFIX] = height
    if behind:  # a tile of another colour right behind each stack
        camera_mm = view.camera_mm()
        assert camera_mm is not None
        for i, name in enumerate(list(stacks)):
            other = _behind(model, name, camera_mm)
            if other is not None and other not in stacks:
                colour[other] = colours[(i + 1) % 4]
                table[other] = colour[other]
                table[other + HEIGHT_SUFFIX] = 1
    imaging = Imaging(
        blur_sigma=0.5, noise_sigma=2.0, shot_noise=0.3, vignetting=0.1, jpeg_quality=92
    )
    common = {
        "camera": camera,
        "pose": pose,
        "imaging": imaging,
        "model": model,
        "art": world.art(),
        "colours": world.colours,
    }
    empty = render_table(
        Observation(schema, bare),
        light=LIGHTS["daylight"],
        seed=seed,
        options=TableOptions(),
        **common,
    ).image
    picture = render_table(
        Observation(schema, table),
        light=LIGHTS["warm"],
        seed=seed + 1,
        options=TableOptions(hands=hands, placement_mm=0.5, placement_deg=1.5),
        **common,
    ).image
    return Close(world, view, empty, picture, stacks, colour, camera, pose)


def height_reader(close: Close, colours: bool = False) -> ah.HeightReader:
    """The height reader of ``close``'s set, calibrated from its empty board (and,
    with ``colours``, a picture of its tiles where they stand in ``close``)."""
    pictures = []
    if colours:
        model, schema = close.world.model, referee_schema(GAME)
        layout = Observation(
            schema,
            {
                e: (0 if e.endswith(HEIGHT_SUFFIX) else bare_value(schema.values[e]))
                for e in schema.elements
                if model.on_board(e)
            },
        ).replace({**close.colour, **{n + HEIGHT_SUFFIX: 1 for n in close.colour}})
        picture = render_table(
            layout,
            close.camera,
            close.pose,
            light=LIGHTS["daylight"],
            seed=5,
            options=TableOptions(),
            model=model,
            art=close.world.art(),
            colours=close.world.colours,
        ).image
        pictures.append((picture, close.view, layout))
    appearance = calibrate(GAME, close.world.model, close.empty, close.view, pictures)
    return ah.HeightReader(close.world.model, appearance, referee_schema(GAME))


def _below(close: Close) -> dict[str, Reading]:
    """The tiles as the colours reader would give them: every other space empty."""
    out = {e.name: Reading("empty", 0.99) for e in close.world.model.of_kind("space")}
    out.update({name: Reading(value, 0.95) for name, value in close.colour.items()})
    for kind in ("bridge", "stone"):
        out.update({e.name: Reading(False, 0.99) for e in close.world.model.of_kind(kind)})
    return out


def _read(
    close: Close,
    reader: ah.HeightReader,
    image: np.ndarray | None = None,
    covered: frozenset[str] = frozenset(),
) -> ah.HeightReading:
    frame = close.table if image is None else image
    light = fit_light(frame, close.view, reader.appearance, close.world.model.size_mm)
    return reader.read(frame, close.view, light, _below(close), covered)


@pytest.fixture(scope="module")
def slanted() -> list[Close]:
    return [close_up(kind, seed, 55.0) for kind, seed in WORLDS]


def test_the_fitted_weights_load_and_say_where_they_came_from() -> None:
    model = ah.load_fitted(GAME)
    assert model.weights.shape == (len(ah.FEATURES),)
    assert "fit" in model.provenance["command"] and model.provenance["set"] == "train"
    again = ah.HeightModel.from_json(json.loads(json.dumps(model.to_json())), "copy")
    assert np.allclose(again.weights, model.weights)


def test_a_damaged_weights_file_is_refused(tmp_path: Any) -> None:
    data = ah.load_fitted(GAME).to_json()
    data["weights"] = data["weights"][:-1]
    path = tmp_path / "heights.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ah.AppearanceError, match="malformed"):
        ah.load_fitted(GAME, path)


def test_the_shipped_file_names_the_sets_the_fit_command_uses() -> None:
    from pathlib import Path

    from vision.evaluate import heights as bh

    provenance = ah.load_fitted(GAME).provenance
    count = len(provenance["setup_seeds"])
    assert provenance["command"] == f"companion bench heights-fit --setups {count}"
    chosen = bh.setups("train", count)
    assert provenance["setup_seeds"] == [s.seed for s in chosen]
    assert provenance["elevations"] == [round(s.elevation, 1) for s in chosen]
    calibrated = provenance["calibrated_on"]
    assert calibrated["set"] == "validation"
    assert calibrated["pictures"] == [name for name, _ in bh.validation_pictures(Path("-"))]
    # calibrated on validation worlds only: never a test world (2000 on)
    worlds = {int(name.split("world ")[1].split()[0]) for name in calibrated["pictures"]}
    assert worlds and all(1000 <= seed < 2000 for seed in worlds)


def _tiny_set(seed: int, count: int) -> list[ah.Example]:
    """Stacks of one and two tiles measured with noise, at steps of one to three
    pixels (no pictures: the rows as the reader makes them)."""
    from types import SimpleNamespace

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        lines = SimpleNamespace(step_mm=1.4, px_per_mm=float(rng.uniform(0.6, 2.2)))
        step = lines.step_mm * lines.px_per_mm
        height = int(rng.integers(1, 3))
        hidden = height * lines.step_mm + float(rng.normal(0.0, 0.3))
        measured = ah.Measure(hidden, abs(float(rng.normal(0.0, 0.3))), ah.LINES)
        out.append(ah.Example(ah.rows(measured, lines, (1, 2)), height - 1, step))
    return out


def test_the_fit_and_its_calibration_on_a_tiny_set_give_the_stored_result() -> None:
    model = ah.calibrate(ah.fit(GAME, _tiny_set(1, 120), {}), _tiny_set(2, 160), (1, 2))
    stored = json.loads(json.dumps(model.to_json()))
    assert stored["weights"] == EXPECTED_TINY["weights"]
    assert (stored["temperature"], stored["read_at"]) == (
        EXPECTED_TINY["temperature"],
        EXPECTED_TINY["read_at"],
    )
    # what the calibration promises on the boards it was made on
    read = []
    for example in _tiny_set(2, 160):
        if (
            ah.best_chances(model.weights, model.temperature, (1, 2), example.step_px) < ah.TELL_AT
        ).any():
            continue
        p = model.probabilities(example.rows)
        if p.max() >= model.read_at:
            read.append((float(p.max()), int(np.argmax(p)) == example.truth))
    assert read and all(right for chance, right in read if chance >= 0.9)
    assert sum(right for _, right in read) >= ah.READ_RIGHT * len(read)


def test_measures_between_one_tile_and_two_are_left_unsure() -> None:
    from types import SimpleNamespace

    model = ah.load_fitted(GAME)
    lines = SimpleNamespace(step_mm=1.4, px_per_mm=2.0)  # a step of 2.8 px
    assert (ah.best_chances(model.weights, model.temperature, (1, 2), 2.8) >= ah.TELL_AT).all()
    read = []
    for hidden in np.linspace(0.0, 3.0, 61) * lines.step_mm:
        p = model.probabilities(ah.rows(ah.Measure(float(hidden), 0.0, ah.LINES), lines, (1, 2)))
        read.append(int(np.argmax(p)) + 1 if p.max() >= model.read_at else None)
    # one tile, then a band the reader cannot tell, then two tiles
    first_unsure, last_unsure = read.index(None), len(read) - 1 - read[::-1].index(None)
    assert set(read[:first_unsure]) == {1} and set(read[last_unsure + 1 :]) == {2}
    assert set(read[first_unsure : last_unsure + 1]) == {None}
    assert last_unsure - first_unsure >= 2


def test_chords_of_a_square_along_lines() -> None:
    chords = ah._chords(
        np.array([0.0, 0.0]),
        5.0,
        0.0,
        np.array([0.0, 0.0]),
        np.array([1.0, 0.0]),
        np.array([-2.0, 0.0, 6.0]),
    )
    assert np.allclose(chords[:2], [[-5.0, 5.0], [-5.0, 5.0]])
    assert np.isnan(chords[2]).all()
    turned = ah._chords(
        np.array([0.0, 0.0]), 5.0, 45.0, np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([0.0])
    )
    assert np.allclose(turned, [[-5.0 * 2**0.5, 5.0 * 2**0.5]])


def test_stacks_of_one_and_two_are_told_apart_at_a_slant(slanted: list[Close]) -> None:
    read = right = wrong_sure = 0
    for close in slanted:
        reader = height_reader(close)
        result = _read(close, reader)
        for name, height in close.stacks.items():
            got = result.readings.get(name + HEIGHT_SUFFIX)
            assert (
                name + HEIGHT_SUFFIX in result.readings or name + HEIGHT_SUFFIX in result.abstained
            )
            if got is not None:
                read += 1
                right += got.value == height
                wrong_sure += got.value != height and got.confidence >= 0.9
                assert set(result.probabilities[name + HEIGHT_SUFFIX]) == {"1", "2"}
        for space in close.world.model.of_kind("space"):
            if space.name not in close.stacks:
                assert result.readings[space.name + HEIGHT_SUFFIX].value == 0
    stacks = sum(len(c.stacks) for c in slanted)
    assert read >= stacks // 2
    assert right >= 0.75 * read
    assert wrong_sure == 0


def test_a_stack_with_a_tile_of_another_colour_behind_it_is_read() -> None:
    read = wrong_sure = 0
    stacks = 0
    for kind, seed in WORLDS[:2]:
        close = close_up(kind, seed, 55.0, behind=True)
        result = _read(close, height_reader(close, colours=True))
        for name, height in close.stacks.items():
            stacks += 1
            got = result.readings.get(name + HEIGHT_SUFFIX)
            if got is not None:
                read += 1
                wrong_sure += got.value != height and got.confidence >= 0.9
    # without the neighbours' colours, one of the eight is read
    assert read >= stacks // 2
    assert wrong_sure == 0


def test_straight_above_heights_are_not_shown() -> None:
    # from far above the stacks' sides do not show (from close above, those off the
    # middle of the picture do, and are read)
    close = close_up(*WORLDS[0], elevation=90.0, distance=900.0)
    result = _read(close, height_reader(close))
    for name in close.stacks:
        assert result.abstained[name + HEIGHT_SUFFIX] == ah.TOO_STEEP
        assert name + HEIGHT_SUFFIX in result.unseen
        assert name + HEIGHT_SUFFIX not in result.probabilities


def test_every_space_s_lines_made_at_once_are_those_made_one_by_one(slanted: list[Close]) -> None:
    # a crowded table: every space's lines and bare board at once (more samples than a
    # picture lookup takes at a time), as each alone (some of them)
    close = slanted[0]
    together, alone = height_reader(close), height_reader(close)
    plan = together.plan(close.view)
    assert plan is not None and alone.plan(close.view) is not None
    views = together._views_of(plan, together.spaces)
    for space, view in list(zip(together.spaces, views, strict=True))[::6]:
        (one,) = alone._views_of(plan, [space])
        assert np.array_equal(view.pixels, one.pixels) and np.array_equal(view.bare, one.bare)
        assert np.array_equal(view.shown, one.shown) and view.neighbours == one.neighbours
        assert np.array_equal(view.spoils, one.spoils)


def test_something_over_an_edge_leaves_the_height_unknown(slanted: list[Close]) -> None:
    import cv2

    for close in slanted[:2]:
        reader = height_reader(close)
        plan = reader.plan(close.view)
        assert plan is not None
        index = {s: i for i, s in enumerate(reader.spaces)}
        image = close.table.copy()
        for name in close.stacks:
            lines = plan.lines[index[name]]
            # a hand's fingers over the board beyond the stack's far edge
            beyond = lines.centre + lines.along * 2.2 * lines.half_mm
            x, y = close.view.to_image(beyond[None, :])[0]
            radius = 1.1 * lines.half_mm * lines.px_per_mm
            cv2.circle(image, (int(x), int(y)), int(radius), (60, 90, 160), -1)
        result = _read(close, reader, image)
        for name in close.stacks:
            assert name + HEIGHT_SUFFIX not in result.readings
            if reader.can_tell(plan.lines[index[name]]):  # else the view shows none anyway
                assert result.abstained[name + HEIGHT_SUFFIX] == ah.EDGE_HIDDEN


def test_a_hand_the_pipeline_knows_of_leaves_the_height_unknown(slanted: list[Close]) -> None:
    close = slanted[0]
    covered = frozenset(close.stacks)
    result = _read(close, height_reader(close), covered=covered)
    for name in close.stacks:
        assert result.abstained[name + HEIGHT_SUFFIX] == ah.COVERED_BY_HAND


def test_a_space_the_reader_could_not_see_leaves_its_height_not_shown(
    slanted: list[Close],
) -> None:
    close = slanted[0]
    reader = height_reader(close)
    light = fit_light(close.table, close.view, reader.appearance, close.world.model.size_mm)
    below = {**_below(close), **{name: None for name in close.stacks}}
    hidden = frozenset(close.stacks)
    result = reader.read(close.table, close.view, light, below, hidden=hidden)
    unread = reader.read(close.table, close.view, light, below)
    for name in close.stacks:
        assert result.abstained[name + HEIGHT_SUFFIX] == ah.SPACE_HIDDEN
        assert name + HEIGHT_SUFFIX in result.unseen
        # a space merely unsure leaves its height unsure, not hidden
        assert unread.abstained[name + HEIGHT_SUFFIX] == ah.COLOUR_UNKNOWN
        assert name + HEIGHT_SUFFIX not in unread.unseen


def test_the_appearance_reader_gives_heights_and_their_probabilities(slanted: list[Close]) -> None:
    # the project's own set: its tiles are the size the reader knows (another set's,
    # a few tenths of a millimetre off, leave more heights unsure)
    close = slanted[2]
    model = close.world.model
    schema = referee_schema(GAME)
    # the calibration position as far as this close view shows it: a tile of each
    # colour where the stacks stand
    layout = Observation(
        schema,
        {
            e: (0 if e.endswith(HEIGHT_SUFFIX) else bare_value(schema.values[e]))
            for e in schema.elements
            if model.on_board(e)
        },
    ).replace({**close.colour, **{n + HEIGHT_SUFFIX: 1 for n in close.colour}})
    common = {
        "camera": close.camera,
        "pose": close.pose,
        "model": model,
        "art": close.world.art(),
        "colours": close.world.colours,
    }
    calibration = render_table(
        layout, light=LIGHTS["daylight"], seed=5, options=TableOptions(), **common
    ).image
    appearance = calibrate(
        GAME, model, close.empty, close.view, [(calibration, close.view, layout)]
    )
    reader = AppearanceReader(GAME, model, appearance, schema=schema)
    reading = reader.read(close.table, close.view)
    heights = [n + HEIGHT_SUFFIX for n in close.stacks]
    right = 0
    for name in heights:
        got = reading.observation[name]
        if got.known:
            right += got.value == close.stacks[name.removesuffix(HEIGHT_SUFFIX)]
            chances = reading.probabilities[name]
            assert set(chances) == {"1", "2"}
            assert chances[str(got.value)] == pytest.approx(got.confidence, abs=1e-3)
        else:
            assert name in reading.abstained
    assert right >= len(heights) // 2
    # the pipeline attaches the heights' probabilities as their readings' chances
    weighed = weighed_observation(reading.observation, reading.probabilities)
    for name in heights:
        if name in reading.probabilities:
            chances = dict(weighed[name].chances or ())
            assert set(chances) <= {1, 2} and chances
            assert max(chances.values()) == pytest.approx(
                max(reading.probabilities[name].values()), abs=1e-3
            )
    covered = reader.read(close.table, close.view, covered=set(close.stacks))
    for name in heights:
        assert covered.abstained[name] == ah.COVERED_BY_HAND


@pytest.mark.slow
def test_the_fit_command_writes_the_shipped_file_again(tmp_path: Any) -> None:
    # minutes: renders (or reads from the cache) the training and validation boards
    from companion.cli import main

    count = len(ah.load_fitted(GAME).provenance["setup_seeds"])
    out = tmp_path / "heights.json"
    assert main(["bench", "heights-fit", "--setups", str(count), "--output", str(out)]) == 0
    assert out.read_bytes() == ah.fitted_path(GAME).read_bytes()


def test_heights_are_read_with_the_pieces_the_player_knows() -> None:
    # a set's tiles are made to a tolerance: a world's own (here 1 mm larger) is not
    # known at the table, so heights are read with the game's nominal sizes, as the
    # weights were fitted
    from dataclasses import replace

    from vision.models import load_model

    close = close_up("painted", 1003, 55.0)
    model = close.world.model
    larger = replace(model, pieces={**model.pieces, "tile_mm": model.pieces["tile_mm"] + 1.0})
    appearance = calibrate(GAME, larger, close.empty, close.view, [])
    stacks = ah.reader_for(AppearanceReader(GAME, larger, appearance))
    assert stacks is not None
    assert stacks.model.pieces == load_model(GAME).pieces
    assert stacks.model.elements == larger.elements  # where things are: the reader's own
