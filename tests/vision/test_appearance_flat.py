"""The flat square network of Shendao's reader: its fit, its file, its maps, and the
shipped network in the reader on worlds it was not fitted on."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.cli.vision import fit_command
from vision import appearance_flat as af
from vision import fit_network
from vision.appearance import FLAT_SURE, FittedModel, fit_light, load_fitted, together
from vision.appearance_core import AppearanceError
from vision.evaluate.appearance import Score, Setup, calibrated_reader, load_setup, score_reading

GAME = "shendao"
VALUES = ["empty", "light", "dark", "other"]
CHANNELS = af.channels_of(2)


def _toy(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """Squares told by a shape, not a colour: every map has the same noise, and a square
    outline (a tile's edges) in channel 0 says *light*, a filled patch says *dark*, a
    line across says *other*, nothing says *empty*."""
    points = af.GRID * af.GRID
    maps = rng.normal(0, 0.3, (count, points, CHANNELS)).astype(np.float32)
    labels = rng.integers(0, 4, count).astype(np.intp)
    for i, label in enumerate(labels):
        grid = maps[i, :, 0].reshape(af.GRID, af.GRID)
        a, b = 2, af.GRID - 3
        if label == 1:
            grid[a, a : b + 1] += 1.5
            grid[b, a : b + 1] += 1.5
            grid[a : b + 1, a] += 1.5
            grid[a : b + 1, b] += 1.5
        elif label == 2:
            grid[a + 2 : b - 1, a + 2 : b - 1] += 0.8
        elif label == 3:
            grid[af.GRID // 2, :] += 1.5
    return maps, labels


def test_fitting_without_pytorch_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    maps, labels = _toy(np.random.default_rng(1), 4)
    with pytest.raises(fit_network.FitError, match=r"companion\[fit\]"):
        fit_network.fit_flat_network(maps, labels, VALUES, members=1, epochs=1)


def test_the_fitted_weights_give_numpy_the_network_s_own_logits() -> None:
    torch = pytest.importorskip("torch")
    maps, labels = _toy(np.random.default_rng(2), 40)
    first = fit_network.fit_flat_network(maps, labels, VALUES, members=1, epochs=1)
    again = fit_network.fit_flat_network(maps, labels, VALUES, members=1, epochs=1)
    assert all(np.array_equal(first.members[0][k], again.members[0][k]) for k in first.members[0])
    torch.manual_seed(1)
    module = fit_network._flat_module(torch, CHANNELS, len(VALUES))
    weights = fit_network._flat_weights(module)
    with torch.no_grad():
        (expected,) = module(torch.from_numpy(maps))
    assert np.allclose(af.forward(weights, maps), expected.numpy(), atol=1e-4)


@pytest.mark.slow
def test_a_network_learns_a_tile_by_its_edges() -> None:
    pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    maps, labels = _toy(rng, 1024)
    network = fit_network.fit_flat_network(maps, labels, VALUES, members=1, epochs=15)
    test_maps, test_labels = _toy(rng, 200)
    assert np.mean(network.probabilities(test_maps).argmax(axis=1) == test_labels) >= 0.9


def test_a_network_round_trips_through_its_file_and_refuses_a_damaged_one() -> None:
    rng = np.random.default_rng(0)
    network = af.FlatNetwork([af.initial(CHANNELS, len(VALUES), rng)], 1.3, VALUES)
    raw = json.loads(json.dumps(network.to_json()))
    again = af.FlatNetwork.from_json(raw, "net.json")
    assert again.reads(VALUES) and again.temperature == 1.3 and again.tiles == ["light", "dark"]
    maps = rng.normal(size=(3, af.GRID * af.GRID, CHANNELS)).astype(np.float32)
    assert np.allclose(network.probabilities(maps), again.probabilities(maps), atol=1e-5)
    assert np.allclose(again.probabilities(maps).sum(axis=1), 1.0)
    raw["members"][0]["hidden.w"]["shape"] = [3, 2]
    with pytest.raises(AppearanceError, match="cannot be used"):
        af.FlatNetwork.from_json(raw, "net.json")
    with pytest.raises(AppearanceError, match="cannot be used"):
        af.FlatNetwork.from_json({"values": VALUES}, "net.json")
    with pytest.raises(AppearanceError, match="reads no tile"):
        af.FlatNetwork.from_json({"values": ["empty", "other"]}, "net.json")


def test_the_maps_of_some_squares_are_those_squares_maps_of_the_whole_board(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cache = tmp_path_factory.mktemp("appearance-flat-rows")
    pictures = load_setup(Setup("painted", 1913, "easy", (960, 540), GAME), cache, lambda _: None)
    reader, view = calibrated_reader(pictures, load_fitted(GAME))
    image, _ = pictures.plays[0]
    light = fit_light(image, view, reader.appearance, reader.model.size_mm)
    every = reader.flat_maps(image, view, light, range(len(reader.flat_squares)))
    assert every.shape == (64, af.GRID * af.GRID, CHANNELS)
    rows = [5, 0, len(reader.flat_squares) - 1]
    np.testing.assert_array_equal(reader.flat_maps(image, view, light, rows), every[rows])


def test_the_shipped_network_reads_squares_of_held_out_worlds_with_the_weights(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fitted = load_fitted(GAME)
    assert fitted.flat is not None and fitted.flat.reads(["empty", "dark", "light", "other"])
    again = FittedModel.from_json(json.loads(json.dumps(fitted.to_json())), "again")
    assert again.flat is not None and again.flat.temperature == fitted.flat.temperature
    cache = tmp_path_factory.mktemp("appearance-flat")
    score, read_by_network = Score(), 0
    for setup in (
        Setup("landscape", 2941, "hardest", (1280, 720), GAME),
        Setup("project", 2942, "hardest", (1280, 720), GAME),
    ):
        pictures = load_setup(setup, cache, lambda _: None)
        reader, view = calibrated_reader(pictures, fitted)
        assert reader.flat is fitted.flat and len(reader.flat_squares) == 64
        for image, truth in pictures.plays:
            reading = reader.read(image, view)
            score_reading(score, reading, truth["visible"], reader.schema, reader.elements)
            light = fit_light(image, view, reader.appearance, reader.model.size_mm)
            items = [i for i in reader.element_features(image, view, light) if i.seen_share >= 0.5]
            chances = dict(
                zip((i.element for i in items), fitted.probabilities_of(items), strict=True)
            )
            chances.update(reader._doubted(image, view, light, items, chances))
            network = reader._flat_chances(image, view, light, items, chances)
            read_by_network += len(network)
            for item in items:
                if item.kind != "square":
                    continue
                if item.element not in network:
                    # left to the weights only when they are sure
                    assert max(chances[item.element]) >= FLAT_SURE
                    continue
                both = together(chances[item.element], network[item.element])
                assert reading.probabilities[item.element] == pytest.approx(
                    {str(v): x for v, x in zip(item.values, both, strict=True)}, abs=1e-4
                )
    assert read_by_network > 0
    shown = score.right + score.wrong
    assert shown >= 0.9 * score.elements
    assert score.right >= 0.99 * shown
    assert score.wrong_sure <= 0.002 * score.elements


def test_without_a_fitted_network_the_weights_read_alone(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fitted = replace(load_fitted(GAME), flat=None)
    cache = tmp_path_factory.mktemp("appearance-flat-none")
    pictures = load_setup(Setup("painted", 1913, "easy", (960, 540), GAME), cache, lambda _: None)
    reader, view = calibrated_reader(pictures, fitted)
    image, _ = pictures.plays[0]
    light = fit_light(image, view, reader.appearance, reader.model.size_mm)
    items = [i for i in reader.element_features(image, view, light) if i.seen_share >= 0.5]
    chances = dict(zip((i.element for i in items), fitted.probabilities_of(items), strict=True))
    assert reader._flat_chances(image, view, light, items, chances) == {}


def test_the_fit_command_fits_the_flat_network_the_same_and_can_keep_the_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setattr(fit_network, "EPOCHS", 1)

    def fit(name: str, **options: object) -> str:
        args = argparse.Namespace(
            game=GAME,
            setups=1,
            output=str(tmp_path / name),
            cache=str(tmp_path / "cache"),
            size="640x360",
            networks=1,
            network_setups=None,
            networks_only=False,
        )
        for key, value in options.items():
            setattr(args, key, value)
        assert fit_command(args) == 0
        return (tmp_path / name).read_text(encoding="utf-8")

    first, again = fit("a.json"), fit("b.json")
    assert first == again
    model = FittedModel.from_json(json.loads(first), "a.json")
    assert model.flat is not None and model.flat.provenance["squares"] > 100
    # the weights kept, the network fitted again on two setups
    (tmp_path / "c.json").write_text(first, encoding="utf-8")
    kept = FittedModel.from_json(
        json.loads(fit("c.json", network_setups=2, networks_only=True)), "c.json"
    )
    assert all(np.array_equal(kept.weights[k], model.weights[k]) for k in model.weights)
    assert kept.flat is not None and kept.flat.provenance["setup_seeds"] == [1, 2]
    assert "--networks-only" in kept.flat.provenance["command"]
