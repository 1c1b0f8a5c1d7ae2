"""The review panel's move list shows the move shown: a list filled at its end and
then taken back to the first move, in landscape and once the tablet is turned to
portrait (as the History screen's picture in the docs is taken)."""

from __future__ import annotations

from typing import Any

from tests.app.conftest import Driver


def _in_view(panel: Any, index: int) -> bool:
    scroll, row = panel.ids.scroll, panel._rows[index]
    top = row.to_window(row.x, row.top)[1]
    low = row.to_window(row.x, row.y)[1]
    bottom = scroll.to_window(scroll.x, scroll.y)[1]
    return bool(bottom - 1 <= low and top <= bottom + scroll.height + 1)


def test_the_first_move_stays_in_view_when_the_tablet_is_turned(ui: Driver) -> None:
    from companion.review import build_review
    from tests.companion.test_review import random_record

    app = ui.app
    history = app.root.ids.history
    panel = history.ids.review
    manager = app.root.ids.manager
    try:
        ui.size("landscape")
        app.go("history")
        panel.load(build_review(random_record(143), app.translator))  # at its end
        panel.show(1)
        assert ui.wait(lambda: not manager.transition.is_active, 10)
        ui.pump(6)
        assert panel.ids.moves.height > panel.ids.scroll.height  # the list scrolls
        assert _in_view(panel, 1)
        for orientation in ("portrait", "landscape", "portrait"):
            ui.size(orientation)  # what a screenshot waits, no more
            assert _in_view(panel, 1), orientation
            assert not _in_view(panel, panel.last), orientation
    finally:
        panel.load(None)
        ui.size("landscape")
