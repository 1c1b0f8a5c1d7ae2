"""The calibration configuration: thresholds and defaults, read from ``config.json``.

Every stage takes its section of :class:`CalibrationConfig` as its first argument; no
threshold lives in the code. ``load_config()`` reads the packaged file, or a copy the
user edited, and refuses unknown, missing or mistyped values.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from calibration.errors import ConfigError
from engines.jsontext import JSONTextError, parse_json

CONFIG_VERSION = 1


@dataclass(frozen=True)
class CameraConfig:
    """Camera intrinsics: detection and view rejection (see ``config.json``)."""

    min_views: int
    min_corners: int
    max_view_error_px: float
    outlier_factor: float
    subpix_window_px: int
    subpix_max_iterations: int
    subpix_epsilon_px: float
    fix_k3: bool
    coverage_grid: tuple[int, int]
    min_coverage: float
    stream_min_motion_px: float
    stream_views: int
    video_frame_step: int
    camera_interval_s: float
    camera_timeout_s: float


@dataclass(frozen=True)
class CharucoConfig:
    """The default printed ChArUco target."""

    squares: tuple[int, int]
    square_mm: float
    marker_mm: float
    dictionary: str
    paper: str
    dpi: int


@dataclass(frozen=True)
class ChessboardConfig:
    """The default classic chessboard target."""

    inner_corners: tuple[int, int]
    square_mm: float


@dataclass(frozen=True)
class RegistrationConfig:
    """Board registration with markers or a reference image."""

    min_markers: int
    fit_warn_mm: float
    check_limit_mm: float
    marker_cell_px: int
    marker_cell_margin: float
    outline_min_area: float
    outline_max_side_error: float
    orb_features: int
    match_ratio: float
    ransac_px: float
    min_matches: int


@dataclass(frozen=True)
class ColourConfig:
    """The colour model: sampling captures and classifying patches."""

    px_per_mm: float
    tile_mm: float
    change_threshold: float
    min_piece_area_mm2: float
    edge_margin_mm: float
    max_tiles_per_class: int
    covariance_floor: float
    min_separation: float
    max_distance: float


@dataclass(frozen=True)
class CalibrationConfig:
    camera: CameraConfig
    charuco: CharucoConfig
    chessboard: ChessboardConfig
    registration: RegistrationConfig
    colours: ColourConfig
    source: str = "the packaged config.json"


_SECTIONS: dict[str, type[Any]] = {
    "camera": CameraConfig,
    "charuco": CharucoConfig,
    "chessboard": ChessboardConfig,
    "registration": RegistrationConfig,
    "colours": ColourConfig,
}


def load_config(path: str | Path | None = None) -> CalibrationConfig:
    """Read the configuration: the packaged ``config.json``, or the file at ``path``.

    Raises ``ConfigError`` naming the file and the value when the file cannot be read,
    is not JSON, or has a missing, unknown, mistyped or out-of-range value.
    """
    source = "the packaged config.json" if path is None else str(path)
    try:
        if path is None:
            text: str | bytes = (
                resources.files("calibration").joinpath("config.json").read_text("utf-8")
            )
        else:
            text = Path(path).read_bytes()
    except OSError as error:
        raise ConfigError(
            f"cannot read the calibration config {source}: {error.strerror or error}"
        ) from None
    try:
        data = parse_json(text, f"the calibration config {source}")
    except JSONTextError as error:
        raise ConfigError(str(error)) from None
    return config_from_json(data, source)


def config_from_json(data: Any, source: str) -> CalibrationConfig:
    """Build the configuration from parsed JSON; see :func:`load_config`."""
    if not isinstance(data, dict):
        raise ConfigError(f"the calibration config {source} is not a JSON object")
    if data.get("version") != CONFIG_VERSION:
        raise ConfigError(
            f"the calibration config {source} has version "
            f"{data.get('version')!r}; this version reads {CONFIG_VERSION}"
        )
    unknown = set(data) - set(_SECTIONS) - {"about", "version"}
    if unknown:
        raise ConfigError(
            f"the calibration config {source} has unknown sections: {', '.join(sorted(unknown))}"
        )
    sections = {
        name: _section(cls, data.get(name), f"{source}: {name}") for name, cls in _SECTIONS.items()
    }
    return CalibrationConfig(source=source, **sections)


def _section(cls: type[Any], data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: the section is missing or not an object")
    names = [f.name for f in dataclasses.fields(cls)]
    missing = [n for n in names if n not in data]
    unknown = sorted(set(data) - set(names) - {"why"})
    if missing or unknown:
        parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"unknown {', '.join(unknown)}"] if unknown else []
        )
        raise ConfigError(f"{where}: {'; '.join(parts)}")
    values = {}
    for f in dataclasses.fields(cls):
        values[f.name] = _value(str(f.type), data[f.name], f"{where}.{f.name}")
    return cls(**values)


def _value(kind: str, value: Any, where: str) -> Any:
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, not {value!r}")
        return value
    if kind == "str":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: expected a non-empty string, not {value!r}")
        return value
    if kind == "tuple[int, int]":
        if not (isinstance(value, list) and len(value) == 2):
            raise ConfigError(f"{where}: expected two whole numbers, not {value!r}")
        return tuple(_value("int", v, where) for v in value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ConfigError(f"{where}: expected a positive whole number, not {value!r}")
        return value
    if kind == "float":
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not value > 0
            or value == float("inf")
        ):
            raise ConfigError(f"{where}: expected a positive number, not {value!r}")
        return float(value)
    raise TypeError(f"no reader for config values of type {kind}")


def config_reasons() -> dict[str, dict[str, str]]:
    """The ``why`` texts of the packaged configuration, by section and key."""
    data = json.loads(resources.files("calibration").joinpath("config.json").read_text("utf-8"))
    return {name: dict(data[name].get("why", {})) for name in _SECTIONS}
