"""The History screen follows the app's language: the games' rows, the title of the
game gone over and the move shown in words are written again, at the same move."""

from __future__ import annotations

from companion.app.gamesetup import GameSetup
from tests.app.conftest import Driver


def test_history_is_written_again_in_the_new_language(ui: Driver) -> None:
    app = ui.app
    app.go("start")
    app.root.ids.start.load(GameSetup.default("shendao"))
    ui.pump(2)
    app.root.ids.start.begin()
    ui.pump(2)
    play = app.root.ids.play
    for move in ("W1", "E8"):
        play.type_move(move)
        assert ui.wait(lambda m=move: play.controller.referee.history
                       and play.controller.referee.history[-1][1] == m, 5)
    journal = str(play.controller.journal.path)
    play.detach()
    app.go("history")
    ui.pump(3)
    history = app.root.ids.history
    history.select(journal)
    history.show(1)
    ui.pump(2)

    def row() -> str:
        return next(r.label for r in history.ids.games.children if r.path == journal)

    assert "not finished (2 moves)" in row() and history.title == "Shendao: 2 moves"
    assert "Light" in history.ids.review.caption
    try:
        app.root.ids.language.text = "Français"
        ui.pump(3)
        assert "pas finie (2 coups)" in row(), row()
        assert history.title == "Shendao : 2 coups", history.title
        assert history.ids.review.index == 1
        assert "Clair" in history.ids.review.caption and "Light" not in \
            history.ids.review.caption, history.ids.review.caption
    finally:
        app.root.ids.language.text = "English"
        ui.pump(3)
    assert "not finished (2 moves)" in row()
