"""The games' registry: every installed game has its printed name for titles."""

from __future__ import annotations

from engines.registry import GAMES, TITLES, title


def test_every_game_has_its_printed_name() -> None:
    assert set(TITLES) == set(GAMES)
    assert title("shangrila") == "The Bridges of Shangri-La"
    assert title("shenshi") == "ShenShi"


def test_a_game_without_a_printed_name_is_titled_by_its_id() -> None:
    assert title("chess") == "chess"
