"""The appearance reader: calibrated on a world's own set, read on that world's tables.

Pictures are rendered small (640x360) from setups of several worlds, none of them a
training setup of the shipped weights; no test is pinned to one picture of one seed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from companion.cli.vision import fit_command
from vision.appearance import (
    FEATURES,
    OTHER,
    AppearanceError,
    Example,
    FittedModel,
    appearance_paths,
    fit_weights,
    load_appearance,
    load_fitted,
    probabilities,
    save_appearance,
)
from vision.evaluate.appearance import (
    SETS,
    Score,
    Setup,
    calibrated_reader,
    iter_examples,
    load_setup,
    score_reading,
    setups,
)
from vision.models import load_model
from vision.synth.table import board_art
from vision.synth.world import HELD_OUT_KINDS, make_world

SMALL = (640, 360)


def _digest(image: np.ndarray) -> str:
    return hashlib.sha256(image.tobytes()).hexdigest()


def test_worlds_are_drawn_from_their_seed_alone() -> None:
    first = make_world("shangrila", "painted", 3)
    again = make_world("shangrila", "painted", 3)
    other = make_world("shangrila", "painted", 4)
    assert _digest(first.art()) == _digest(again.art())
    assert _digest(first.art()) != _digest(other.art())
    assert first.colours == again.colours and first.colours != other.colours
    assert make_world("shangrila").art() is board_art("shangrila", 3.0)


def test_a_shendao_world_moves_its_grid_as_one() -> None:
    nominal = load_model("shendao")
    world = make_world("shendao", "painted", 5)
    a1, h8 = (
        np.subtract(world.model.elements[n].centre_mm, nominal.elements[n].centre_mm)
        for n in ("a1", "h8")
    )
    assert 0.1 < np.hypot(*a1) < 20.0 and 0.1 < np.hypot(*h8) < 20.0
    assert world.colours["light"] != make_world("shendao", "painted", 6).colours["light"]


def test_a_world_moves_its_layout_within_the_set_limits() -> None:
    nominal = load_model("shangrila")
    world = make_world("shangrila", "landscape", 7)
    shifts = {
        name: np.hypot(*np.subtract(e.centre_mm, nominal.elements[name].centre_mm))
        for name, e in world.model.elements.items()
    }
    bridges = [d for n, d in shifts.items() if n.startswith("bridge")]
    assert max(bridges) > 5.0, "bridge spots move along their paths"
    assert max(shifts.values()) < 40.0
    assert set(world.model.elements) == set(nominal.elements)


def test_the_held_out_kind_is_never_in_the_training_or_validation_sets() -> None:
    for name in ("train", "validation"):
        assert not set(SETS[name][0]) & HELD_OUT_KINDS
    assert set(SETS["test"][0]) & HELD_OUT_KINDS
    seeds = {name: {s.seed for s in setups(name, 50)} for name in SETS}
    assert not seeds["train"] & seeds["validation"] and not seeds["train"] & seeds["test"]


def test_an_unknown_kind_of_world_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        make_world("shangrila", "cubist", 1)


def test_fit_weights_learns_a_separable_rule() -> None:
    rng = np.random.default_rng(0)
    data = []
    for _ in range(300):
        truth = int(rng.integers(3))
        rows = np.zeros((3, len(FEATURES)))
        rows[0, 0:3] = (1.0, rng.normal(0.1 if truth == 0 else 0.8, 0.1), 0.0)
        rows[1, 3:8] = (1.0, rng.normal(0.1 if truth == 1 else 0.9, 0.1), 0.0, 0.0, 0.0)
        rows[2, 8:10] = (1.0, 0.0)
        data.append(Example("space", rows, truth))
    weights = fit_weights(data)
    right = sum(int(np.argmax(probabilities(weights, e.rows))) == e.truth for e in data)
    assert right >= 290


@pytest.fixture(scope="module")
def held_out_setup(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    cache = tmp_path_factory.mktemp("appearance")
    chosen = Setup("landscape", 2901, "medium", SMALL)
    return load_setup(chosen, cache, lambda _: None)


def test_shipped_weights_read_a_held_out_world(held_out_setup) -> None:  # type: ignore[no-untyped-def]
    fitted = load_fitted("shangrila")
    assert fitted.provenance["set"] == "train"
    assert not set(fitted.provenance["kinds"]) & HELD_OUT_KINDS
    reader, view = calibrated_reader(held_out_setup, fitted)
    score = Score()
    for image, truth in held_out_setup.plays:
        reading = reader.read(image, view)
        score_reading(score, reading, truth["visible"], reader.schema, reader.elements)
        for element, probs in reading.probabilities.items():
            assert abs(sum(probs.values()) - 1.0) < 1e-3, element
    shown = score.right + score.wrong
    assert shown >= 0.8 * score.elements
    assert score.right >= 0.98 * shown
    assert score.wrong_sure <= 0.005 * score.elements


def test_shipped_shendao_weights_read_a_held_out_world(tmp_path: Path) -> None:
    fitted = load_fitted("shendao")
    assert fitted.provenance["set"] == "train"
    assert not set(fitted.provenance["kinds"]) & HELD_OUT_KINDS
    pictures = load_setup(
        Setup("landscape", 2903, "medium", SMALL, "shendao"), tmp_path, lambda _: None
    )
    reader, view = calibrated_reader(pictures, fitted)
    score = Score()
    for image, truth in pictures.plays:
        score_reading(
            score, reader.read(image, view), truth["visible"], reader.schema, reader.elements
        )
    shown = score.right + score.wrong
    assert shown >= 0.9 * score.elements
    assert score.right >= 0.98 * shown
    assert score.wrong_sure <= 0.005 * score.elements


def test_a_hand_is_something_else_not_a_colour(held_out_setup) -> None:  # type: ignore[no-untyped-def]
    reader, view = calibrated_reader(held_out_setup, load_fitted("shangrila"))
    image, _ = held_out_setup.plays[0]
    covered = image.copy()
    # a skin-coloured patch laid over one village's spaces
    space = reader.model.elements["4H"]
    centre = view.to_image(np.array([space.centre_mm]))[0].astype(int)
    covered[max(0, centre[1] - 25) : centre[1] + 25, max(0, centre[0] - 25) : centre[0] + 25] = (
        120,
        160,
        220,
    )
    reading = reader.read(covered, view)
    assert not reading.observation["4H"].known
    assert (
        max(reading.probabilities["4H"], key=reading.probabilities["4H"].get)
        in (OTHER, "empty", "red", "yellow")
        and reading.abstained["4H"]
    )


def test_the_set_appearance_round_trips_through_a_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_out_setup
) -> None:  # type: ignore[no-untyped-def]
    from calibration.errors import ProfileError

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    assert load_appearance("shangrila", "table") is None
    reader, _ = calibrated_reader(held_out_setup, load_fitted("shangrila"))
    document = save_appearance(reader.appearance, "table")
    again = load_appearance("shangrila", "table")
    assert again is not None
    assert again.colours.keys() == reader.appearance.colours.keys()
    assert np.abs(again.bare - reader.appearance.bare).max() < 0.01
    _, picture = appearance_paths("shangrila", "table")
    picture.write_bytes(picture.read_bytes()[:-10])
    with pytest.raises(ProfileError, match="calibrate the set again"):
        load_appearance("shangrila", "table")
    document.write_text("{", encoding="utf-8")
    with pytest.raises(ProfileError, match="damaged"):
        load_appearance("shangrila", "table")


def test_a_damaged_weights_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(
        json.dumps({"version": 1, "game": "shangrila", "features": ["x"], "weights": {}}),
        encoding="utf-8",
    )
    with pytest.raises(AppearanceError, match="another reader version"):
        load_fitted("shangrila", path)
    path.write_text("[" * 1000, encoding="utf-8")
    with pytest.raises(AppearanceError, match="nested"):
        load_fitted("shangrila", path)


def test_the_fit_command_writes_the_same_file_from_the_same_setups(tmp_path: Path) -> None:
    import argparse

    outputs = []
    for name in ("a.json", "b.json"):
        args = argparse.Namespace(
            game="shangrila",
            setups=1,
            output=str(tmp_path / name),
            cache=str(tmp_path / "cache"),
            size="640x360",
            networks=1,
        )
        assert fit_command(args) == 0
        outputs.append((tmp_path / name).read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]
    model = FittedModel.from_json(json.loads(outputs[0]), "a.json")
    assert set(model.weights) == {"space", "bridge", "stone"}
    assert model.provenance["examples"] > 100


def test_examples_label_hidden_elements_as_something_else(held_out_setup) -> None:  # type: ignore[no-untyped-def]
    examples = list(iter_examples(held_out_setup))
    assert examples and all(0 <= e.truth < len(e.rows) for e in examples)


def test_a_board_found_again_in_place_keeps_its_sample_plan(held_out_setup) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    reader, view = calibrated_reader(held_out_setup, load_fitted("shangrila"))
    first = reader.sampling(view)
    nudge = np.eye(3)
    nudge[0, 2] = 0.05  # a twentieth of a pixel: the same place, found again
    again = replace(view, homography=nudge @ view.homography, _maps={})
    assert reader.sampling(again) is first
    moved = np.eye(3)
    moved[0, 2] = 3.0
    elsewhere = replace(
        view,
        homography=moved @ view.homography,
        projection=None if view.projection is None else moved @ view.projection,
        _maps={},
    )
    assert reader.sampling(elsewhere) is not first
