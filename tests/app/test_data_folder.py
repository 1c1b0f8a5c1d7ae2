"""The app's data folder is made with the folders above it: on a fresh Linux account
there is no ``~/.config`` yet, and Kivy makes only the last level (starting a game
crashed there)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def app_object() -> Iterator[object]:
    """A CompanionApp that is not run; the running app of the session stays it."""
    from kivy.app import App

    from companion.app.main import CompanionApp

    running = App._running_app
    try:
        yield CompanionApp(muted=True)
    finally:
        App._running_app = running


@pytest.mark.parametrize("config_home", [None, "deep/er/config"])
def test_the_data_folder_is_made_with_its_parents(
    app_object: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config_home: str | None
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    if config_home is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
        expected = tmp_path / ".config" / "companion"
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / config_home))
        expected = tmp_path / config_home / "companion"
    data = app_object.data_path  # type: ignore[attr-defined]
    assert data == expected and data.is_dir()
    games = data / "games"
    games.mkdir()  # where "Start the game" writes its journal
    assert games.is_dir()
