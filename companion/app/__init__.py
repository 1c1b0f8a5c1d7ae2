"""The tablet app (Kivy): start a game, calibrate the camera, play with the referee
watching, see the result and the strength report, and go back over past games.

The pure parts (``setup``, ``controller``, ``session``, ``wording``, ``layout``,
``history``, ``report``, ``locale``) import no Kivy, so they are tested and used
headless; ``widgets``, ``screens`` and ``main`` are the Kivy side, with the layout and
bindings in ``kv/*.kv``. ``run_app`` opens the app.
"""

from __future__ import annotations

import logging
import os
from typing import Any

DESKTOP_WINDOW = (1280, 800)
"""The window a desktop opens the app in: a landscape tablet's screen (Kivy's own
800x600 is the smallest the app is laid out for)."""

QUIET_PROBES = ("MTDev is not supported", "Unable to find any valuable Cutbuffer")
"""Kivy's reports of optional Linux extras it looks for at start and the app does not
use (multitouch devices read directly; X11's middle-click buffer): an error with a
traceback and a CRITICAL line on a machine without them, though nothing is wrong."""


NO_AUDIO = "Unable to open mixer"
"""Kivy's CRITICAL line on a machine with no sound device: said plainly instead (the
illegal-move chime is silent there, and nothing else needs sound)."""


class _QuietProbes(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if NO_AUDIO in message:
            record.msg, record.args = "Audio: no sound device; the chime stays silent.", ()
            record.levelno, record.levelname = logging.INFO, "INFO"
        return not any(probe in message for probe in QUIET_PROBES)


def prepare_kivy() -> None:
    """Before Kivy opens its window (the app's entry points call it; a library never
    does): Kivy's arguments left alone, its start-up probes of unused extras and other
    libraries' debug lines kept out of the log, and a desktop's window
    ``DESKTOP_WINDOW`` unless Kivy's settings ask for another size than its 800x600."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")  # the app's arguments are not Kivy's
    from kivy.config import Config  # deferred: kivy, for the app's entry points
    from kivy.logger import Logger  # deferred: kivy, for the app's entry points
    from kivy.utils import platform  # deferred: kivy, for the app's entry points

    if not any(isinstance(f, _QuietProbes) for f in Logger.filters):
        Logger.addFilter(_QuietProbes())
    # Kivy opens the root logger to every level; other libraries' debug lines (the
    # report's charts list every font they try) stay out, Kivy's own keep its level
    logging.root.setLevel(logging.INFO)
    if platform in ("android", "ios"):
        return
    if (Config.getint("graphics", "width"), Config.getint("graphics", "height")) == (800, 600):
        Config.set("graphics", "width", str(DESKTOP_WINDOW[0]))
        Config.set("graphics", "height", str(DESKTOP_WINDOW[1]))


def run_app(**kwargs: Any) -> int:
    """Open the app (see ``companion.app.main.run_app`` for the arguments). Imports
    Kivy only when called."""
    prepare_kivy()
    from companion.app.main import run_app as run  # deferred: kivy

    return run(**kwargs)


__all__ = ["DESKTOP_WINDOW", "prepare_kivy", "run_app"]
