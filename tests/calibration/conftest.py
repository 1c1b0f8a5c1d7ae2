"""Shared fixtures: the packaged configuration and a private data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.config import CalibrationConfig, load_config


@pytest.fixture(scope="session")
def config() -> CalibrationConfig:
    return load_config()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Profiles go to a fresh folder, never the user's."""
    folder = tmp_path / "data"
    monkeypatch.setenv("COMPANION_DATA_DIR", str(folder))
    return folder
