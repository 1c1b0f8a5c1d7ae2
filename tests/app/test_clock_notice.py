"""Clocks kept with a game that cannot be read: the game starts with new clocks and
the player is told why, in the message line, as it starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.app.gamesetup import GameSetup
from tests.app.conftest import Driver


def test_clocks_that_cannot_be_read_are_said_as_the_game_starts(
    ui: Driver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.app.screens.clocks as clocks

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))

    def damaged(*_: Any) -> tuple[None, str]:
        return None, "g.clock.json: the clock file is not valid JSON"

    monkeypatch.setattr(clocks, "open_clock", damaged)
    play = ui.app.root.ids.play
    ui.app.go("start")
    ui.app.root.ids.start.load(GameSetup.default("shangrila"))
    ui.pump(2)
    ui.app.root.ids.start.begin()
    ui.pump(4)
    try:
        assert "clocks kept with this game cannot be read" in play.status, play.status
        assert "g.clock.json: the clock file is not valid JSON" in play.status
    finally:
        play.detach()
