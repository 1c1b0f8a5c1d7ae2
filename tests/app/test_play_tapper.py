"""The Play screen's taps for a question without the referee's elements: worked out
from the position for every game; a move the position does not allow leaves the
buttons to answer; any other failure is an error, not a board that cannot be tapped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from companion.app.board.answer import TapAnswer
from companion.app.gamesetup import GameSetup
from companion.app.screens.play import PlayScreen
from engines.errors import IllegalMoveError


def _asked(game: str, moves: int = 3) -> tuple[Any, Any]:
    """A screen (as ``_tapper`` reads it) and a view asking about the first moves."""
    rules = GameSetup.default(game).rules()
    state = rules.initial_state()
    asked = [rules.format_move(m) for m in state.legal_moves()[:moves]]
    question = SimpleNamespace(
        about="",
        choices=[SimpleNamespace(move=m, words=f"move {m}", elements=(), card="") for m in asked],
    )
    controller = SimpleNamespace(position=lambda: (state,), referee=SimpleNamespace(rules=rules))
    return SimpleNamespace(controller=controller), SimpleNamespace(question=question, game=game)


@pytest.mark.parametrize("game", ["shangrila", "shendao", "shenshi"])
def test_a_question_is_tapped_on_every_games_board(game: str) -> None:
    screen, view = _asked(game)
    tapper = PlayScreen._tapper(screen, view)
    assert tapper is not None
    assert {c.move for c in tapper.open()} == {c.move for c in view.question.choices}


def test_only_a_move_the_position_does_not_allow_leaves_the_buttons(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    screen, view = _asked("shangrila")

    def illegal(*_: Any) -> TapAnswer:
        raise IllegalMoveError("4H", "not a move in this position")

    monkeypatch.setattr(TapAnswer, "for_question", illegal)
    assert PlayScreen._tapper(screen, view) is None

    def broken(*_: Any) -> TapAnswer:
        raise KeyError("4Z")

    monkeypatch.setattr(TapAnswer, "for_question", broken)
    with pytest.raises(KeyError, match="4Z"):
        PlayScreen._tapper(screen, view)
