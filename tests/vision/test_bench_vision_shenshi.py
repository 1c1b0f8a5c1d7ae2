"""The ShenShi tables ``companion bench vision`` deals: a tile layout drawn anew for each
table, as the rules' setup draws it, while the other games' tables stay as they were."""

from __future__ import annotations

import pytest

from engines.shenshi.board import load_board, square_name
from vision.evaluate.sets import (
    SET_VERSION,
    Shot,
    _set_rules,
    _state_observation,
    set_version,
    table_rules,
)


def test_each_table_draws_its_own_tiles() -> None:
    """The seed of a table draws its layout as the rules option ``seed`` does; the
    tables of a set show many layouts, intact and faded mandalas in varied numbers."""
    board = load_board()
    layouts = {table_rules("shenshi", seed).layout for seed in range(30)}
    assert all(
        table_rules("shenshi", seed).layout == board.draw_layout(seed) for seed in (0, 7, 12345)
    )
    assert len(layouts) >= 20
    assert len({(layout.count("I"), layout.count("F")) for layout in layouts}) >= 5


@pytest.mark.parametrize("seed", [3, 40, 977])
def test_the_table_shows_its_layout_after_play(seed: int) -> None:
    """The mandalas lie where the layout drew them and nowhere else (they never move);
    the drawn cushion tiles were cushions at the start, which may have moved."""
    layout = table_rules("shenshi", seed).layout
    observation = _state_observation("shenshi", seed, 25)
    board = load_board()
    names = {"I": "intact", "F": "faded"}
    drawn = {
        square_name(square): names.get(letter, "none")
        for square, letter in zip(board.marked, layout, strict=True)
    }
    for element in observation:
        if element.endswith(" tile"):
            assert observation[element].value == drawn.get(element.split(" ")[0], "none")


def test_the_other_games_tables_are_unchanged() -> None:
    """Their rules, random play and cached pictures are those of before."""
    for game in ("shangrila", "shendao"):
        assert table_rules(game, 5).options_json() == _set_rules(game).options_json()
        assert set_version(game) == SET_VERSION
        assert Shot(game, "hardest", 3, 1, (1920, 1080)).key.startswith(f"v{SET_VERSION}-")
    assert set_version("shenshi") != SET_VERSION
