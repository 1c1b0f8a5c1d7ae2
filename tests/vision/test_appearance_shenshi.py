"""The appearance reader on ShenShi: made-up editions of the hall, the calibration
position, the stacked elements' geometry, and the shipped weights on held-out worlds.

Pictures are rendered small from setups of several worlds, none of them a training
setup of the shipped weights; no test is pinned to one picture of one seed.
"""

from __future__ import annotations

import argparse
import colorsys
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.cli import UsageError
from companion.cli.vision import fit_command
from engines.shenshi.board import load_board
from vision import appearance_stacks, fit_network
from vision.appearance import (
    ElementFeatures,
    FittedModel,
    SetAppearance,
    calibration_layout,
    load_appearance,
    load_fitted,
    save_appearance,
)
from vision.appearance_stacks import (
    ALTERNATIVES,
    LEAST_TEMPERATURE,
    MONK_BASES_MM,
    SURE_RIGHT,
    _temperature,
    _train,
    check_classifier,
    classify,
    monk_layers,
    monk_masks,
    possibly_hidden,
    prototypes,
    stack_points,
)
from vision.evaluate.appearance import (
    Score,
    Setup,
    calibrated_reader,
    load_setup,
    score_reading,
)
from vision.models import load_model, referee_schema
from vision.synth.table import CUSHION_BGR, METAL_BGR, _pieces, shenshi_colours
from vision.synth.world import HELD_OUT_KINDS, make_world

SMALL = (960, 540)
GAME = "shenshi"


def _hue(bgr: tuple[int, int, int]) -> float:
    b, g, r = (c / 255.0 for c in bgr)
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360.0


@pytest.mark.parametrize("kind", ["painted", "landscape"])
def test_shenshi_worlds_are_drawn_from_their_seed_alone(kind: str) -> None:
    first, again, other = (make_world(GAME, kind, s) for s in (5, 5, 6))
    assert np.array_equal(first.art(), again.art())
    assert not np.array_equal(first.art(), other.art())
    assert first.colours == again.colours and first.colours != other.colours
    assert first.art().shape[:2] == (1200, 1200)


@pytest.mark.parametrize("seed", [1, 7, 23])
def test_a_shenshi_world_keeps_the_sets_colours_near_their_own(seed: int) -> None:
    world = make_world(GAME, "painted", seed)
    nominal = shenshi_colours()
    assert set(world.colours) == set(nominal)
    for name in ("copper", "gold", "orange", "blond"):
        turn = abs((_hue(world.colours[name]) - _hue(nominal[name]) + 180) % 360 - 180)
        assert turn <= 10.5, name


@pytest.mark.parametrize("kind,seed", [("painted", 2), ("landscape", 9), ("painted", 40)])
def test_a_shenshi_world_moves_its_grid_as_one_within_the_set_limits(kind: str, seed: int) -> None:
    own, moved = load_model(GAME), make_world(GAME, kind, seed).model
    pairs = [
        (np.array(own.elements[n].centre_mm), np.array(moved.elements[n].centre_mm))
        for n in ("a1 tile", "g1 tile", "a7 tile", "g7 tile")
    ]
    span_own = np.linalg.norm(pairs[1][0] - pairs[0][0])
    span_moved = np.linalg.norm(pairs[1][1] - pairs[0][1])
    assert 0.97 - 1e-6 <= span_moved / span_own <= 1.03 + 1e-6
    turn = math.degrees(math.atan2(*(pairs[1][1] - pairs[0][1])[::-1]))
    assert abs(turn) <= 0.6 + 1e-6
    # the tile, cushion and monk of a square stay on one spot
    for square in ("c3", "f6"):
        spots = {moved.elements[f"{square} {k}"].centre_mm for k in ("tile", "cushion", "monk")}
        assert len(spots) == 1
    for key, size in own.pieces.items():
        assert 0.97 * size - 1e-9 <= moved.pieces[key] <= 1.03 * size + 1e-9


def test_the_pieces_are_drawn_in_the_worlds_colours() -> None:
    from engines.observation import Observation

    model = load_model(GAME)
    schema = referee_schema(GAME)
    observation = Observation(
        schema, {"d4 tile": "intact", "d4 cushion": "orange", "d4 monk": "gold-grand"}
    )
    world = make_world(GAME, "painted", 3)
    own = {name: solid.bgr for name, solid in _pieces(model, observation)}
    theirs = {name: solid.bgr for name, solid in _pieces(model, observation, world.colours)}
    assert own["d4 cushion"] == CUSHION_BGR["orange"]
    assert own["d4 monk"] == METAL_BGR["gold"]
    assert theirs["d4 cushion"] == world.colours["orange"] != CUSHION_BGR["orange"]
    assert theirs["d4 monk"] == world.colours["gold"]


def test_the_calibration_position_shows_every_value_apart() -> None:
    schema = referee_schema(GAME)
    model = load_model(GAME)
    layout = calibration_layout(schema, model, ["silver", "copper", "gold", "black"])
    assert layout == calibration_layout(schema, model, ["silver"])
    shown: dict[str, set[object]] = {"tile": set(), "cushion": set(), "monk": set()}
    occupied = set()
    for name in schema.elements:
        if name.startswith("tokens"):
            assert not layout[name].known
            continue
        square, kind = name.split(" ")
        value = layout.value(name)
        assert value is not None
        if value != "none":
            shown[kind].add(value)
            occupied.add(square)
    for name in schema.elements:
        if not name.startswith("tokens"):
            assert shown[name.split(" ")[1]] | {"none"} == set(schema.values[name])
    for square in occupied:  # no two stacks side by side
        file, rank = ord(square[0]), int(square[1])
        for df, dr in ((0, 1), (1, 0)):
            assert f"{chr(file + df)}{rank + dr}" not in occupied
    monks = [layout.value(f"{s} monk") for s in occupied if layout.value(f"{s} monk") != "none"]
    assert len(monks) == len(set(monks)) == 8
    orange = sum(layout.value(f"{s} cushion") == "orange" for s in occupied)
    assert orange <= load_board().cushions[1]


def test_a_monk_of_each_size_fills_its_own_points() -> None:
    pieces = load_model(GAME).pieces
    _, heights, groups = stack_points("monk", pieces)
    layers = monk_layers(pieces)
    assert layers.max() > max(MONK_BASES_MM) + pieces["grand_height_mm"]
    for base in MONK_BASES_MM:
        grand_in, grand_out = monk_masks(pieces, groups, "grand", base)
        master_in, master_out = monk_masks(pieces, groups, "master", base)
        assert not (grand_in & grand_out).any() and not (master_in & master_out).any()
        # a Grand Master fills its leg ring and reaches higher; a master leaves them
        ring = groups == len(layers) + MONK_BASES_MM.index(base)
        assert (grand_in & ring).sum() == ring.sum() and (master_out & ring).sum() == ring.sum()
        assert heights[grand_in].max() > heights[master_in].max() + 8.0
        assert heights[master_out & ~ring].min() <= heights[grand_in].max()


def test_a_monks_outline_shows_how_high_it_reaches() -> None:
    """Metal up to a master's head on one square, up to a Grand Master's on the other:
    the outline's layers above the master's head tell them apart."""
    pieces = load_model(GAME).pieces
    _, heights, groups = stack_points("monk", pieces)
    layers = len(monk_layers(pieces))
    core = groups < layers
    tops = (
        MONK_BASES_MM[0] + pieces["master_height_mm"],
        MONK_BASES_MM[0] + pieces["grand_height_mm"],
    )
    metal = np.array([core & (heights <= top) for top in tops])
    closest_piece = np.where(metal, 0.1, 2.0)
    bare_d = np.where(metal, 1.5, 0.05)
    use = np.ones_like(metal)
    outline = appearance_stacks._silhouette(closest_piece, bare_d, use, use, groups, layers)
    rings = len(MONK_BASES_MM)
    assert outline.shape == (2, 2 * (appearance_stacks.SILHOUETTE_LAYERS + rings))
    shares = outline[:, : appearance_stacks.SILHOUETTE_LAYERS]
    between = [
        i for i, z in enumerate(monk_layers(pieces)[: len(shares[0])]) if tops[0] < z <= tops[1]
    ]
    assert between and (shares[0, between] == 0.0).all() and (shares[1, between] == 1.0).all()
    assert (shares[:, 0] == 1.0).all()  # both stand on the lowest layer


def test_a_point_behind_the_square_in_front_may_be_hidden_only_when_seen_low() -> None:
    model = load_model(GAME)
    schema = referee_schema(GAME)
    elements = [e for e in schema.elements if e in model.elements]
    kinds = [model.elements[e].kind for e in elements]
    index = elements.index("d4 monk")
    centre = np.array(model.elements["d4 monk"].centre_mm)
    points = np.array([[*centre, 4.0], [*centre, 60.0]])
    owners = np.array([index, index])
    # the camera far down the board, low: d3's monk could stand in front of d4's feet
    low = np.array([centre[0], centre[1] + 600.0, 420.0])
    hidden = possibly_hidden(points, owners, kinds, elements, model, low)
    assert hidden.tolist() == [True, False]
    above = np.array([centre[0], centre[1] + 10.0, 900.0])
    assert not possibly_hidden(points, owners, kinds, elements, model, above).any()


def test_prototypes_keep_each_colour_of_a_two_coloured_piece() -> None:
    rng = np.random.default_rng(3)
    ink = rng.normal([-3.0, 0.5, -1.0], 0.03, (40, 3))
    paper = rng.normal([-0.5, 0.0, 0.1], 0.03, (60, 3))
    found = prototypes(np.vstack([ink, paper]))
    assert len(found) >= 2
    for colour in ([-3.0, 0.5, -1.0], [-0.5, 0.0, 0.1]):
        assert np.min(np.linalg.norm(found - np.array(colour), axis=1)) < 0.1


@pytest.mark.parametrize("kind", ["tile", "cushion"])
def test_an_empty_square_printed_like_a_piece_above_is_still_seen(kind: str) -> None:
    """A grey square looks like a silver monk: its points, unchanged from the empty
    board, are not taken as covered by a monk."""
    schema = referee_schema(GAME)
    pieces = load_model(GAME).pieces
    grey = np.array([-1.0, 0.0, 0.05])
    colours = {
        "tile": {"intact": np.array([-2.0, 0.6, -0.4]), "faded": np.array([-1.5, 0.3, -0.2])},
        "cushion": {"blond": np.array([-0.8, 0.35, -0.5]), "orange": np.array([-1.2, 0.9, -0.9])},
        "monk": {
            f"{m}-{s}": (grey if m == "silver" else np.array([-2.5, 0.4, -0.6]))
            for m in ("silver", "copper", "gold", "black")
            for s in ("grand", "master")
        },
    }
    appearance = SetAppearance(GAME, np.zeros((2, 2, 3), np.float32), colours)
    offsets, _, groups = stack_points(kind, pieces)
    seen = np.tile(grey + np.array([0.0, 0.03, 0.0]), (2, len(offsets), 1))  # nearer the monk
    to_bare = np.full((2, len(offsets)), 0.1)  # than the board, which it still shows
    to_bare[1] = 1.0  # the second square has changed: something stands over its points
    inside = np.ones((2, len(offsets)), bool)
    items = appearance_stacks.features(
        kind,
        [f"d4 {kind}", f"e4 {kind}"],
        seen,
        to_bare,
        inside,
        groups,
        appearance,
        schema,
        pieces,
    )
    assert items[0].seen_share == 1.0
    assert items[1].seen_share == 0.0


def test_the_stack_classifier_learns_a_rule_of_its_inputs_the_same_each_time() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(0, 1, (600, 6))
    y = (x[:, 0] > 0).astype(np.intp) + 2 * (x[:, 1] * x[:, 2] > 0)  # not linear
    first = _train(x, y, 4, seed=3, steps=300)
    again = _train(x, y, 4, seed=3, steps=300)
    assert all(np.array_equal(first[k], again[k]) for k in ("w1", "b1", "w2", "b2"))
    test = rng.normal(0, 1, (400, 6))
    truth = (test[:, 0] > 0).astype(int) + 2 * (test[:, 1] * test[:, 2] > 0)
    params = check_classifier(
        {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in first.items()}, "test"
    )
    item = ElementFeatures(
        "d4 tile", "tile", ("a", "b", "c", "other"), np.zeros((4, 12)), 1.0, test[0]
    )
    p = classify(params, item)
    assert p is not None and abs(float(p.sum()) - 1.0) < 1e-9
    read = np.array(
        [
            np.argmax(
                classify(
                    params,
                    ElementFeatures(
                        "d4 tile", "tile", ("a", "b", "c", "other"), np.zeros((4, 12)), 1.0, row
                    ),
                )
            )
            for row in test
        ]
    )
    assert np.mean(read == truth) > 0.9
    # alternatives the classifier was not made for: it gives way (None)
    assert (
        classify(
            params,
            ElementFeatures("d4 tile", "tile", ("a", "other"), np.zeros((2, 12)), 1.0, test[0]),
        )
        is None
    )


def test_a_frame_s_elements_are_classified_together_as_each_alone() -> None:
    fitted = load_fitted(GAME)
    rng = np.random.default_rng(4)
    items = []
    for k, kind in enumerate(("tile", "cushion", "monk", "tile", "monk")):
        alternatives = ALTERNATIVES[kind]
        items.append(
            ElementFeatures(
                f"d{k + 1} {kind}",
                kind,
                (*range(alternatives - 1), "other"),
                np.zeros((alternatives, 12)),
                1.0,
                rng.normal(0, 1, len(fitted.stacks[kind]["mean"])),
            )
        )
    # one the classifier was not made for (too few alternatives): the weights read it
    items.append(ElementFeatures("e1 tile", "tile", ("none", "other"), np.zeros((2, 12)), 1.0))
    together = fitted.probabilities_of(items)
    for item, p in zip(items, together, strict=True):
        assert np.allclose(p, fitted.probabilities(item), atol=1e-12)
        assert abs(float(p.sum()) - 1.0) < 1e-9


def test_the_temperature_makes_the_sure_readings_right_often_enough() -> None:
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 4000)
    logits = rng.normal(0, 1, (4000, 4))
    logits[np.arange(4000), y] += 6.0
    liars = rng.choice(4000, 80, replace=False)  # confidently wrong
    logits[liars, (y[liars] + 1) % 3] += 8.0

    def sure_and_wrong(t: float) -> tuple[int, int]:
        p = np.exp(logits / t - (logits / t).max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        sure = p.max(axis=1) >= 0.9
        return int(sure.sum()), int(np.sum(sure & (p.argmax(axis=1) != y)))

    sure, wrong = sure_and_wrong(1.0)
    assert wrong > (1 - SURE_RIGHT) * sure  # as they come, too sure
    sure, wrong = sure_and_wrong(_temperature(logits, y))
    assert sure >= 50 and wrong <= (1 - SURE_RIGHT) * sure


def test_the_shipped_shenshi_classifiers_are_whole() -> None:
    fitted = load_fitted(GAME)
    assert set(fitted.stacks) == {"tile", "cushion", "monk"}
    for kind, params in fitted.stacks.items():
        assert params["alternatives"] == ALTERNATIVES[kind]
        assert LEAST_TEMPERATURE[kind] <= params["temperature"] <= 8.0
    again = FittedModel.from_json(json.loads(json.dumps(fitted.to_json())), "again")
    for kind, params in fitted.stacks.items():
        assert np.allclose(again.stacks[kind]["w1"], params["w1"])


@pytest.fixture(scope="module")
def held_out(tmp_path_factory: pytest.TempPathFactory) -> list:  # type: ignore[type-arg]
    cache = tmp_path_factory.mktemp("appearance-shenshi")
    return [
        load_setup(Setup(kind, seed, "medium", SMALL, GAME), cache, lambda _: None)
        for kind, seed in (("landscape", 2911), ("painted", 1907))
    ]


def test_the_shipped_shenshi_weights_read_held_out_worlds(held_out: list) -> None:  # type: ignore[type-arg]
    fitted = load_fitted(GAME)
    assert fitted.provenance["set"] == "train"
    assert not set(fitted.provenance["kinds"]) & HELD_OUT_KINDS
    assert set(fitted.weights) == {"tile", "cushion", "monk"}
    score = Score()
    for pictures in held_out:
        reader, view = calibrated_reader(pictures, fitted)
        for image, truth in pictures.plays:
            reading = reader.read(image, view)
            score_reading(score, reading, truth["visible"], reader.schema, reader.elements)
            for element, probs in reading.probabilities.items():
                assert abs(sum(probs.values()) - 1.0) < 1e-3, element
    shown = score.right + score.wrong
    assert shown >= 0.85 * score.elements
    assert score.right >= 0.98 * shown
    assert score.wrong_sure <= 0.005 * score.elements


def test_the_shenshi_set_appearance_round_trips_through_a_profile(
    held_out: list, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[type-arg]
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    reader, _ = calibrated_reader(held_out[0], load_fitted(GAME))
    appearance = reader.appearance
    assert {v for v in appearance.colours["monk"]} == {
        f"{m}-{s}" for m in ("silver", "copper", "gold", "black") for s in ("grand", "master")
    }
    assert set(appearance.colours["tile"]) == {"intact", "faded"}
    assert set(appearance.colours["cushion"]) == {"blond", "orange"}
    save_appearance(appearance, "shenshi-test")
    loaded = load_appearance(GAME, "shenshi-test")
    assert loaded is not None
    for kind, values in appearance.colours.items():
        for value, colour in values.items():
            assert np.allclose(loaded.colours[kind][value], colour, atol=1e-4)


def _fit_twice(tmp_path: Path, networks: int) -> list[str]:
    outputs = []
    for name in ("a.json", "b.json"):
        args = argparse.Namespace(
            game=GAME,
            setups=1,
            output=str(tmp_path / name),
            cache=str(tmp_path / "cache"),
            size="640x360",
            networks=networks,
        )
        assert fit_command(args) == 0
        outputs.append((tmp_path / name).read_text(encoding="utf-8"))
    return outputs


def test_the_fit_command_fits_shenshi_the_same_from_the_same_setups(tmp_path: Path) -> None:
    outputs = _fit_twice(tmp_path, networks=0)
    assert outputs[0] == outputs[1]
    model = FittedModel.from_json(json.loads(outputs[0]), "a.json")
    assert set(model.weights) == {"tile", "cushion", "monk"}
    assert model.provenance["examples"] > 100
    assert all(np.isfinite(w).all() and np.abs(w).max() < 100 for w in model.weights.values())
    assert model.network is None


def test_the_fit_command_fits_the_square_network_the_same_from_the_same_setups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setattr(fit_network, "EPOCHS", 1)
    outputs = _fit_twice(tmp_path, networks=1)
    assert outputs[0] == outputs[1]
    model = FittedModel.from_json(json.loads(outputs[0]), "a.json")
    assert model.network is not None and len(model.network.members) == 1
    assert model.network.provenance["squares"] > 100


def test_the_fit_command_without_pytorch_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    args = argparse.Namespace(
        game=GAME,
        setups=1,
        output=str(tmp_path / "a.json"),
        cache=str(tmp_path / "cache"),
        size="640x360",
        networks=1,
    )
    with pytest.raises(UsageError, match=r"companion\[fit\]"):
        fit_command(args)
    assert not (tmp_path / "a.json").exists()


def test_calibrate_layout_prints_the_shenshi_position(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main

    assert main(["calibrate", "layout", "--game", "shenshi", "--print-position"]) == 0
    out = capsys.readouterr().out
    assert "optional" in out and out.count(" monk") == 8
    assert "intact tile, blond cushion" in out and "faded tile" in out
