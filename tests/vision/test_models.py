"""Board models: element names are the referee's, sizes are calibration's, bad files fail
clearly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from calibration.boards import board_geometry
from vision.models import GAMES, ModelError, load_model, referee_schema


@pytest.mark.parametrize("game", GAMES)
def test_model_names_are_the_referees(game: str) -> None:
    model = load_model(game)
    schema = referee_schema(game)
    assert list(model.elements) == [e for e in schema.elements if not e.endswith("^")]
    for element in schema.elements:  # every element, stack heights too, has a region
        assert model.region(element).name == element.removesuffix("^")


@pytest.mark.parametrize("game", GAMES)
def test_model_board_size_matches_calibration(game: str) -> None:
    assert load_model(game).size_mm == board_geometry(game).size_mm


def test_shangrila_model_contents() -> None:
    model = load_model("shangrila")
    assert len(model.of_kind("space")) == 91
    assert len(model.of_kind("bridge")) == 23
    assert len(model.of_kind("stone")) == 13
    assert model.region("4H^") is model.region("4H")
    # spaces of a village lie inside it, and do not overlap one another
    for village in model.villages:
        spaces = [model.region(f"{village.id}{letter}") for letter in "RPYADHF"]
        for space in spaces:
            reach = np.linalg.norm(space.corners_mm() - np.array(village.centre_mm), axis=1)
            assert reach.max() <= village.radius_mm
        centres = np.array([s.centre_mm for s in spaces])
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2) + np.eye(7) * 1e3
        assert gaps.min() >= 20.0
    # a bridge lies between its two villages, along the path
    for bridge in model.of_kind("bridge"):
        a, b = (model.villages[int(v)] for v in bridge.name[7:].split("-"))
        ab = np.array(b.centre_mm) - np.array(a.centre_mm)
        t = (np.array(bridge.centre_mm) - np.array(a.centre_mm)) @ ab / (ab @ ab)
        assert 0.2 < t < 0.8


def test_shendao_model_contents() -> None:
    model = load_model("shendao")
    assert len(model.of_kind("square")) == 64
    assert len(model.of_kind("gate")) == 36
    a1, h8 = model.region("a1"), model.region("h8")
    assert a1.centre_mm[0] < h8.centre_mm[0] and a1.centre_mm[1] > h8.centre_mm[1]
    assert model.region("gate W1").centre_mm[1] == a1.centre_mm[1]
    assert model.region("gate Nh").centre_mm[0] == h8.centre_mm[0]
    assert len(model.walls) == 2


def _packaged(game: str) -> dict:
    return json.loads((Path(__file__).parents[2] / "vision" / "models" / f"{game}.json")
                      .read_text(encoding="utf-8"))


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["elements"].pop("4H"), "elements missing: 4H"),
    (lambda d: d["elements"].__setitem__("bridge 1-9", dict(d["elements"]["bridge 1-2"])),
     "does not know: bridge 1-9"),
    (lambda d: d["elements"]["4H"].__setitem__("centre_mm", [600.0, 10.0]), "off the"),
    (lambda d: d["elements"]["stone 3"].__setitem__("kind", "rock"), "kind 'rock'"),
    (lambda d: d["pieces"].pop("tile_mm"), "pieces.tile_mm"),
    (lambda d: d.__setitem__("version", 7), "version 1"),
])
def test_bad_models_fail_clearly(tmp_path: Path, change, message: str) -> None:
    data = _packaged("shangrila")
    change(data)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match=message) as error:
        load_model("shangrila", path)
    assert str(path) in str(error.value)


def test_unreadable_and_unknown(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot read"):
        load_model("shendao", tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(ModelError, match="not valid JSON"):
        load_model("shendao", tmp_path / "bad.json")
    with pytest.raises(ModelError, match="no board model"):
        load_model("chess")
