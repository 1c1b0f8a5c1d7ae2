"""The letter in each Shangri-La space's corner is readable on a tablet at 1280x800
and 800x1280, even with the camera's picture beside the board (the board at its
smallest): its capitals are at least 10 pixels high as drawn."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from companion.app.board.scene import DISCIPLINES
from companion.app.board.widget import font_px
from companion.app.gamesetup import GameSetup
from tests.app.conftest import Driver


def _ink_height(texture: object) -> int:
    """Rows of ``texture`` with any ink (a letter's height in pixels as drawn)."""
    w, h = texture.size  # type: ignore[attr-defined]
    alpha = np.frombuffer(texture.pixels, np.uint8).reshape(h, w, 4)[..., 3]  # type: ignore[attr-defined]
    return int((alpha > 96).any(axis=1).sum())


def test_a_spaces_letter_is_at_least_10_px_high(ui: Driver, board_video: Path) -> None:
    setup = replace(GameSetup.default("shangrila"), camera="video", video=str(board_video))
    ui.app.go("start")
    ui.app.root.ids.start.load(setup)
    ui.pump(2)
    ui.app.root.ids.start.begin()
    ui.pump(4)
    play = ui.app.root.ids.play
    board = play.ids.board
    try:
        for orientation in ("landscape", "portrait"):
            ui.size(orientation)
            assert ui.wait(lambda: board.settled, 5)
            ui.pump(2)
            scale = board.fit()[0]
            spaces = [t for t in board.scene.layers[0].texts if t.text in DISCIPLINES]
            assert len(spaces) >= 13 * 7
            drawn = {
                key: tex
                for key, tex in board._textures.items()
                if key[0] in DISCIPLINES and len(key[0]) == 1
            }
            sizes = {font_px(t, scale) for t in spaces}
            heights = {
                letter: _ink_height(drawn[(letter, size, True)])
                for letter in DISCIPLINES
                for size in sizes
            }
            assert min(heights.values()) >= 10, (orientation, scale, heights)
    finally:
        play.detach()
        ui.size("landscape")
