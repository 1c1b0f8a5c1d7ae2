"""The square network of ShenShi's reader: its gradient, its fit, its file, and the
shipped network reading squares of worlds it was not fitted on.

The shipped network's own held-out check is in ``test_appearance_shenshi.py`` (the
whole reader on held-out worlds)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import numpy as np
import pytest

from vision import appearance_net as an
from vision import fit_network
from vision.appearance import (
    BARE_SURE,
    AppearanceReader,
    FittedModel,
    fit_light,
    load_fitted,
    together,
)
from vision.appearance_core import AppearanceError
from vision.appearance_stacks import square_of
from vision.evaluate.appearance import Score, Setup, calibrated_reader, load_setup, score_reading
from vision.models import referee_schema

GAME = "shenshi"
CHANNELS = an.channels_of(an.network_values(referee_schema(GAME), "a1"))


def _toy(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """Squares whose tile is told by which channel a bright patch somewhere in the top
    grid lies in, whose cushion by whether the front grid is bright, and whose monk is
    not labelled."""
    points = an.TOP * an.TOP + an.FRONT_W * an.FRONT_H
    maps = rng.normal(0, 0.3, (count, points, CHANNELS)).astype(np.float32)
    labels = np.full((count, 3), -1, dtype=np.intp)
    for i in range(count):
        tile = int(rng.integers(3))
        top = maps[i, : an.TOP * an.TOP, tile].reshape(an.TOP, an.TOP)
        row, column = rng.integers(0, an.TOP - 3, 2)
        top[row : row + 3, column : column + 3] += 2.0
        cushion = int(rng.integers(2))
        maps[i, an.TOP * an.TOP :, 3] += 1.5 * cushion
        labels[i, :2] = (tile, cushion)
    return maps, labels


def test_fitting_without_pytorch_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    maps, labels = _toy(np.random.default_rng(1), 4)
    with pytest.raises(fit_network.FitError, match=r"companion\[fit\]"):
        fit_network.fit_network(maps, labels, seed=0, epochs=1)


def test_the_fitted_weights_give_numpy_the_network_s_own_logits() -> None:
    torch = pytest.importorskip("torch")
    maps, labels = _toy(np.random.default_rng(2), 40)
    first = fit_network.fit_network(maps, labels, seed=1, epochs=1)
    again = fit_network.fit_network(maps, labels, seed=1, epochs=1)
    assert all(np.array_equal(first[k], again[k]) for k in first)
    torch.manual_seed(1)
    module = fit_network._module(torch, CHANNELS)
    weights = fit_network._weights(module)
    with torch.no_grad():
        expected = module(torch.from_numpy(maps))
    for mine, theirs in zip(an.forward(weights, maps), expected, strict=True):
        assert np.allclose(mine, theirs.numpy(), atol=1e-4)


@pytest.mark.slow
def test_a_network_learns_which_channel_and_how_bright() -> None:
    pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    maps, labels = _toy(rng, 768)
    params = fit_network.fit_network(maps, labels, seed=1, epochs=20)
    test_maps, test_labels = _toy(rng, 200)
    logits = an.forward(params, test_maps)
    for k in (0, 1):
        assert np.mean(logits[k].argmax(axis=1) == test_labels[:, k]) >= 0.9


def test_a_network_round_trips_through_its_file_and_refuses_a_damaged_one() -> None:
    values = an.network_values(referee_schema(GAME), "a1")
    rng = np.random.default_rng(0)
    network = an.SquareNetwork([an.initial(CHANNELS, rng)], (1.2, 1.5, 1.1), values)
    raw = json.loads(json.dumps(network.to_json()))
    again = an.SquareNetwork.from_json(raw, "net.json")
    assert again.reads(values) and again.temperatures == (1.2, 1.5, 1.1)
    maps = rng.normal(size=(3, an.TOP * an.TOP + an.FRONT_W * an.FRONT_H, CHANNELS))
    for a, b in zip(network.probabilities(maps), again.probabilities(maps), strict=True):
        assert np.allclose(a, b, atol=1e-4)
        assert np.allclose(a.sum(axis=1), 1.0)
    raw["members"][0]["hidden.w"]["shape"] = [3, 2]
    with pytest.raises(AppearanceError, match="cannot be used"):
        an.SquareNetwork.from_json(raw, "net.json")
    with pytest.raises(AppearanceError, match="cannot be used"):
        an.SquareNetwork.from_json({"values": values}, "net.json")


def test_the_shipped_network_reads_the_squares_of_a_held_out_world(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fitted = load_fitted(GAME)
    assert fitted.network is not None
    assert fitted.network.reads(an.network_values(referee_schema(GAME), "a1"))
    cache = tmp_path_factory.mktemp("appearance-net")
    pictures = load_setup(Setup("landscape", 2917, "easy", (960, 540), GAME), cache, lambda _: None)
    reader, view = calibrated_reader(pictures, fitted)
    assert reader.network is fitted.network
    again = FittedModel.from_json(json.loads(json.dumps(fitted.to_json())), "again")
    assert again.network is not None and len(again.network.members) == len(fitted.network.members)
    score = Score()
    for image, truth in pictures.plays:
        reading = reader.read(image, view)
        score_reading(score, reading, truth["visible"], reader.schema, reader.elements)
        light = fit_light(image, view, reader.appearance, reader.model.size_mm)
        items = [i for i in reader.element_features(image, view, light) if i.seen_share >= 0.5]
        by_name = {i.element: i for i in items}
        alone = dict(zip(by_name, fitted.probabilities_of(items), strict=True))
        chances = reader._network_chances(image, view, light, items, alone)
        stacked = [i for i in items if i.kind in ("tile", "cushion", "monk")]
        # a square is left to its classifiers only when each is sure it holds nothing
        for item in stacked:
            if item.element not in chances:
                square = square_of(item.element)
                assert all(
                    alone[i.element][0] >= BARE_SURE
                    for i in stacked
                    if square_of(i.element) == square
                )
            elif alone[item.element][0] < BARE_SURE:
                assert item.element in chances
        assert any(alone[i.element][0] < BARE_SURE for i in stacked)
        for element, p in chances.items():
            both = together(alone[element], p)
            values = by_name[element].values
            assert reading.probabilities[element] == pytest.approx(
                {str(v): x for v, x in zip(values, both, strict=True)}, abs=1e-4
            )
    shown = score.right + score.wrong
    assert shown >= 0.85 * score.elements
    assert score.right >= 0.99 * shown
    assert score.wrong_sure <= 0.002 * score.elements


def test_without_every_piece_value_calibrated_the_classifiers_read_alone(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fitted = load_fitted(GAME)
    cache = tmp_path_factory.mktemp("appearance-net-partial")
    pictures = load_setup(Setup("painted", 1911, "easy", (960, 540), GAME), cache, lambda _: None)
    reader, view = calibrated_reader(pictures, fitted)
    colours = {k: dict(v) for k, v in reader.appearance.colours.items()}
    del colours["monk"]["black-grand"]
    partial = AppearanceReader(
        GAME, reader.model, replace(reader.appearance, colours=colours), fitted, reader.schema
    )
    image, truth = pictures.plays[0]
    light = fit_light(image, view, partial.appearance, partial.model.size_mm)
    items = [i for i in partial.element_features(image, view, light) if i.seen_share >= 0.5]
    alone = dict(zip((i.element for i in items), fitted.probabilities_of(items), strict=True))
    assert partial._network_chances(image, view, light, items, alone) == {}
    score = Score()
    score_reading(
        score, partial.read(image, view), truth["visible"], partial.schema, partial.elements
    )
    assert score.right >= 0.97 * (score.right + score.wrong)


def test_the_maps_of_some_squares_are_those_squares_maps_of_the_whole_board(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cache = tmp_path_factory.mktemp("appearance-net-rows")
    pictures = load_setup(Setup("painted", 1913, "easy", (960, 540), GAME), cache, lambda _: None)
    reader, view = calibrated_reader(pictures, load_fitted(GAME))
    image, _ = pictures.plays[0]
    light = fit_light(image, view, reader.appearance, reader.model.size_mm)
    every = reader.square_maps(image, view, light)
    rows = [5, 0, len(reader.squares) - 1]
    np.testing.assert_array_equal(reader.square_maps(image, view, light, rows), every[rows])
