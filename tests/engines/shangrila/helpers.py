"""Building Shangri-La positions for scenario tests."""

from __future__ import annotations

from typing import Any

import pytest

from engines import IllegalMoveError
from engines.shangrila import ShangrilaRules, ShangrilaState

FOUR = ["red", "blue", "yellow", "violet"]
THREE = ["red", "blue", "yellow"]


def position(
    spaces: dict[int, dict[str, str]],
    *,
    players: list[str] | None = None,
    to_move: int = 0,
    broken: tuple[tuple[int, int], ...] = (),
    phase: str = "play",
    **options: Any,
) -> ShangrilaState:
    """A play-phase position: ``spaces[village][letter] = "blue"`` or ``"blue+"`` (with a
    student); every bridge stands except ``broken`` (isolated villages get stones)."""
    rules = ShangrilaRules(players or FOUR, **options)
    standing = [
        f"{a}-{b}" for a, b in rules.bridges if (a, b) not in broken and (b, a) not in broken
    ]
    isolated = [v for v in range(13) if not any(str(v) in pair.split("-") for pair in standing)]
    document = {
        "phase": phase,
        "to_move": to_move,
        "spaces": {str(v): cells for v, cells in spaces.items()},
        "bridges": standing,
        "stones": isolated,
        "passes": 0,
    }
    return rules.state_from_json(document)


def cell(state: ShangrilaState, village: int, letter: str) -> str:
    """What a space shows: "." or "blue" or "blue+"."""
    return state.to_json()["spaces"].get(str(village), {}).get(letter, ".")


def illegal(state: ShangrilaState, text: str) -> IllegalMoveError:
    """Assert ``text`` is refused and the state unchanged; return the error."""
    before = state.to_json()
    with pytest.raises(IllegalMoveError) as caught:
        state.play_text(text)
    assert state.to_json() == before
    assert caught.value.message.endswith(".")
    assert text not in state.legal_texts()
    return caught.value
