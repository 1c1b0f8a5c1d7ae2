"""A damaged board layout from calibration: the game starts all the same with the
game's usual board, and the player is told so in plain words, once."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.gamesetup import GameSetup
from tests.app.conftest import Driver


def test_a_damaged_layout_is_said_once_and_the_usual_board_is_drawn(
    ui: Driver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibration.profiles import layout_path
    from vision.models import load_model

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    path = layout_path("shangrila")
    path.parent.mkdir(parents=True)
    path.write_text("{ half a file", encoding="utf-8")
    said: list[str] = []
    play = ui.app.root.ids.play
    play.bind(status=lambda _widget, text: said.append(text))
    ui.app.go("start")
    ui.app.root.ids.start.load(GameSetup.default("shangrila"))
    ui.pump(2)
    ui.app.root.ids.start.begin()
    ui.pump(4)
    assert "cannot be used" in play.status  # still there once the game has started
    told = [text for text in said if "layout saved at calibration cannot be used" in text]
    assert len(told) == 1, said
    assert "not valid JSON" in told[0] and "usual layout" in told[0]
    expected = load_model("shangrila").elements["4H"].centre_mm
    assert play._map.layout.spot("4H").centre == expected
    move = play.controller.referee.state.legal_moves()[0]
    play.type_move(play.controller.referee.rules.format_move(move))
    assert ui.wait(lambda: bool(play.controller.referee.history), 5)  # the game goes on
    ui.pump(2)
    assert len([t for t in said if "calibration cannot be used" in t]) == 1
    play.detach()
