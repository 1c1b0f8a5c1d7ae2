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
        assert ui.wait(
            lambda m=move: (
                play.controller.referee.history and play.controller.referee.history[-1][1] == m
            ),
            5,
        )
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
        assert (
            "Clair" in history.ids.review.caption and "Light" not in history.ids.review.caption
        ), history.ids.review.caption
    finally:
        app.root.ids.language.text = "English"
        ui.pump(3)
    assert "not finished (2 moves)" in row()


def test_the_move_list_keeps_the_move_shown_in_view(ui: Driver) -> None:
    from companion.review import build_review
    from tests.companion.test_review import random_record

    app = ui.app
    panel = app.root.ids.history.ids.review
    scroll = panel.ids.scroll
    manager = app.root.ids.manager
    try:
        for orientation in ("landscape", "portrait"):
            ui.size(orientation)
            app.go("start")
            assert ui.wait(lambda: not manager.transition.is_active, 10)
            app.go("history")  # the list filled as the screen comes in, not laid out yet
            panel.load(build_review(random_record(60), app.translator))  # at its end
            panel.show(1)
            assert ui.wait(lambda: not manager.transition.is_active, 10)
            ui.pump(6)
            assert panel.ids.moves.height > scroll.height  # the list scrolls
            row = panel._rows[1]
            top = row.to_window(row.x, row.top)[1]
            bottom = scroll.to_window(scroll.x, scroll.y)[1]
            assert bottom <= top <= bottom + scroll.height + 1, (orientation, top, bottom)
            panel.show(panel.last)
            ui.pump(6)
            row = panel._rows[panel.last]
            low = row.to_window(row.x, row.y)[1]
            assert bottom - 1 <= low <= bottom + scroll.height, (orientation, low, bottom)
        panel.show(1)  # the tablet turned: the move shown stays in view
        ui.size("landscape")
        ui.pump(6)
        row = panel._rows[1]
        top = row.to_window(row.x, row.top)[1]
        bottom = scroll.to_window(scroll.x, scroll.y)[1]
        assert bottom <= top <= bottom + scroll.height + 1, ("turned", top, bottom)
    finally:
        panel.load(None)
        ui.size("landscape")
