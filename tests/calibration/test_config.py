"""The configuration file: complete, every value explained, and refused when wrong."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from calibration.config import CalibrationConfig, config_from_json, config_reasons, load_config
from calibration.errors import ConfigError


def packaged() -> dict[str, Any]:
    text = resources.files("calibration").joinpath("config.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def test_packaged_config_loads(config: CalibrationConfig) -> None:
    assert config.camera.min_views >= 3
    assert config.charuco.squares == (7, 5)
    assert config.chessboard.inner_corners == (9, 6)


def test_every_value_has_its_reason() -> None:
    data = packaged()
    for section, reasons in config_reasons().items():
        values = set(data[section]) - {"why"}
        assert values == set(reasons), section
        assert all(len(text) > 20 for text in reasons.values())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["camera"].pop("min_views"), "missing min_views"),
        (lambda d: d["camera"].update(extra=1), "unknown extra"),
        (lambda d: d["camera"].update(min_views="five"), "camera.min_views"),
        (lambda d: d["camera"].update(max_view_error_px=-1), "positive number"),
        (lambda d: d["camera"].update(fix_k3=1), "true or false"),
        (lambda d: d["charuco"].update(squares=[7]), "two whole numbers"),
        (lambda d: d.update(version=2), "version 2"),
        (lambda d: d.pop("colours"), "colours: the section is missing"),
        (lambda d: d.update(lenses={}), "unknown sections: lenses"),
    ],
)
def test_bad_values_are_refused_with_their_place(change: Any, message: str) -> None:
    data = packaged()
    change(data)
    with pytest.raises(ConfigError, match=message):
        config_from_json(data, "test.json")


def test_unreadable_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config(broken)


def test_an_edited_copy_is_used(tmp_path: Path) -> None:
    data = packaged()
    data["camera"]["max_view_error_px"] = 0.75
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_config(path).camera.max_view_error_px == 0.75
