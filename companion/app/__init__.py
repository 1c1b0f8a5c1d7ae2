"""The tablet app (Kivy): start a game, calibrate the camera, play with the referee
watching, see the result and the strength report, and go back over past games.

The pure parts (``setup``, ``controller``, ``session``, ``wording``, ``layout``,
``history``, ``report``, ``locale``) import no Kivy, so they are tested and used
headless; ``widgets``, ``screens`` and ``main`` are the Kivy side, with the layout and
bindings in ``kv/*.kv``. ``run_app`` opens the app.
"""

from __future__ import annotations

from typing import Any


def run_app(**kwargs: Any) -> int:
    """Open the app (see ``companion.app.main.run_app`` for the arguments). Imports
    Kivy only when called."""
    import os

    os.environ.setdefault("KIVY_NO_ARGS", "1")  # the app's arguments are not Kivy's
    from companion.app.main import run_app as run

    return run(**kwargs)


__all__ = ["run_app"]
