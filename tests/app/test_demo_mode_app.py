"""``companion app --demo`` run headless to the end: the real app (SDL offscreen), the
table simulator and its simulated people, nobody tapping; no false alarm, and each
illegal move's banner on screen soon after the verdict."""

from __future__ import annotations

from typing import Any

from tests.app.conftest import Driver
from tests.app.test_demo_people import _near_the_end

DEMO_TABLE_INTERVAL = 0.05
"""The demo table's pace in the app (``Session``'s default): one reading every 50 ms."""
BANNER_WITHIN_S = 5.0
"""The banner's first frame after the verdict: generous, since the tests share a loaded
machine (measured 0.24 to 1.39 s at the demo table's pace with a load average of 36 on
two cores; ``companion bench app`` gives the figure on a quiet one)."""


def test_the_apps_demo_mode_plays_to_the_end_with_no_false_alarm(ui: Driver) -> None:
    app: Any = ui.app
    play = app.root.ids.play
    kept = app.session_options
    app.session_options = {"simulator_interval": DEMO_TABLE_INTERVAL}
    shown_before = len(play.banner_shown_at)
    try:
        app.begin(_near_the_end("shangrila", 7, 14))
        table = play.session.table
        assert ui.wait(lambda: not table.is_alive(), 120)
        assert ui.wait(lambda: play.over, 10)
        score = table.game.score
        assert score.false_flags == 0 and score.final_state_right
        tried = sum(r.tried for r in score.rules.values())
        assert tried >= 1 and sum(r.caught for r in score.rules.values()) == tried
        ui.pump(3)
        delays = play.banner_shown_at[shown_before:]
        assert delays and max(delays) < BANNER_WITHIN_S
        assert "Game over" in play.banner_title
    finally:
        app.session_options = kept
        play.detach()
        del play.banner_shown_at[shown_before:]  # the other tests time their own banners
