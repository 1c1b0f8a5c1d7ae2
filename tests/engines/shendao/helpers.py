"""Building Shendao positions for scenario tests."""

from __future__ import annotations

from typing import Any

import pytest

from engines import IllegalMoveError
from engines.shendao import ShendaoRules, ShendaoState


def position(
    light: str = "",
    dark: str = "",
    *,
    closed: str = "",
    to_move: int = 0,
    cards: dict[str, list[str]] | None = None,
    supply: dict[str, int] | None = None,
    players: tuple[str, str] = ("light", "dark"),
    **options: Any,
) -> ShendaoState:
    """A position from space-separated squares: ``position("c3 d4", "e5",
    closed="W3 E3")``; cards and supplies default to those of a new game."""
    rules = ShendaoRules(players, **options)
    document: dict[str, Any] = {
        "to_move": to_move,
        "tiles": {"light": light.split(), "dark": dark.split()},
        "closed_gates": closed.split(),
    }
    if cards is not None:
        document["cards"] = cards
    if supply is not None:
        document["supply"] = supply
    return rules.state_from_json(document)


def board(state: ShendaoState) -> dict[str, str]:
    """The tiles on the board: ``{"c3": "light", ...}``."""
    tiles = state.to_json()["tiles"]
    return {square: name for name, squares in tiles.items() for square in squares}


def closed(state: ShendaoState) -> list[str]:
    gates: list[str] = state.to_json()["closed_gates"]
    return gates


def illegal(state: ShendaoState, text: str) -> IllegalMoveError:
    """Assert ``text`` is refused and the state unchanged; return the error."""
    before = state.to_json()
    with pytest.raises(IllegalMoveError) as caught:
        state.play_text(text)
    assert state.to_json() == before
    assert caught.value.message.endswith(".")
    assert text not in state.legal_texts()
    return caught.value


def played(state: ShendaoState, text: str) -> ShendaoState:
    """Play ``text`` (which must be listed as legal) and return the state."""
    assert text in state.legal_texts(), f"{text} not among {state.legal_texts()}"
    state.play_text(text)
    return state
