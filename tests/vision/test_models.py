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
    on_board = [e for e in schema.elements if model.on_board(e)]
    assert list(model.elements) == [e for e in on_board if not e.endswith("^")]
    assert set(model.off_board) | set(on_board) == set(schema.elements)
    for element in on_board:  # every element, stack heights too, has a region
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


def test_shenshi_model_contents() -> None:
    model = load_model("shenshi")
    for kind in ("tile", "cushion", "monk"):
        assert len(model.of_kind(kind)) == 49
    # the squares are calibration's grid: 7x7 cells from the origin, a7 top-left
    layout = board_geometry("shenshi").layout
    assert layout.cells == (7, 7)
    a7, g1 = model.region("a7 tile"), model.region("g1 tile")
    half = layout.cell_mm / 2
    assert np.allclose(a7.centre_mm, np.array(layout.origin_mm) + half, atol=0.01)
    assert np.allclose(g1.centre_mm, np.array(layout.origin_mm) + 6.5 * layout.cell_mm, atol=0.01)
    # a square's tile, cushion and monk stack on one spot, the pieces fit the square
    assert model.region("d4 monk").centre_mm == model.region("d4 tile").centre_mm
    for name in ("tile_mm", "cushion_mm", "grand_base_mm"):
        assert model.pieces[name] < layout.cell_mm
    assert model.pieces["grand_height_mm"] > model.pieces["master_height_mm"]


def test_shenshi_path_tokens_are_off_the_board() -> None:
    model = load_model("shenshi")
    assert set(model.off_board) == {"tokens silver", "tokens copper", "tokens gold", "tokens black"}
    assert not model.on_board("tokens gold") and model.on_board("c3 monk")
    with pytest.raises(KeyError, match="not on the shenshi board"):
        model.region("tokens gold")


def _packaged(game: str) -> dict:
    return json.loads(
        (Path(__file__).parents[2] / "vision" / "models" / f"{game}.json").read_text(
            encoding="utf-8"
        )
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["elements"].pop("4H"), "elements missing: 4H"),
        (
            lambda d: d["elements"].__setitem__("bridge 1-9", dict(d["elements"]["bridge 1-2"])),
            "does not know: bridge 1-9",
        ),
        (lambda d: d["elements"]["4H"].__setitem__("centre_mm", [600.0, 10.0]), "off the"),
        (lambda d: d["elements"]["stone 3"].__setitem__("kind", "rock"), "kind 'rock'"),
        (lambda d: d["pieces"].pop("tile_mm"), "pieces.tile_mm"),
        (lambda d: d.__setitem__("version", 7), "version 1"),
    ],
)
def test_bad_models_fail_clearly(tmp_path: Path, change, message: str) -> None:
    data = _packaged("shangrila")
    change(data)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match=message) as error:
        load_model("shangrila", path)
    assert str(path) in str(error.value)


def _move_token_onto_board(data: dict) -> None:
    data["off_board"].pop("tokens gold")
    data["elements"]["tokens gold"] = dict(data["elements"]["c3 tile"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["off_board"].pop("tokens black"), "off_board must list tokens black"),
        (_move_token_onto_board, "off_board must list tokens gold"),
        (
            lambda d: d["off_board"].__setitem__("c3 monk", "in the box"),
            "c3 monk cannot be off the board",
        ),
        (lambda d: d.__setitem__("off_board", ["tokens silver"]), "'off_board' must be an object"),
        (
            lambda d: d["elements"]["c3 monk"].__setitem__("kind", "cushion"),
            "'c3 monk': kind must be 'monk'",
        ),
        (
            lambda d: d["elements"]["c3 cushion"].__setitem__("centre_mm", [160.0, 160.0]),
            "is not its square's",
        ),
        (
            lambda d: d["pieces"].__setitem__("master_height_mm", 40.0),
            "grand_height_mm must exceed",
        ),
        (lambda d: d["pieces"].pop("cushion_height_mm"), "pieces.cushion_height_mm"),
        (lambda d: d["elements"].pop("g7 tile"), "elements missing: g7 tile"),
    ],
)
def test_bad_shenshi_models_fail_clearly(tmp_path: Path, change, message: str) -> None:
    data = _packaged("shenshi")
    change(data)
    path = tmp_path / "shenshi.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match=message) as error:
        load_model("shenshi", path)
    assert str(path) in str(error.value)


def test_unreadable_and_unknown(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot read"):
        load_model("shendao", tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(ModelError, match="not valid JSON"):
        load_model("shendao", tmp_path / "bad.json")
    with pytest.raises(ModelError, match="no board model"):
        load_model("chess")
