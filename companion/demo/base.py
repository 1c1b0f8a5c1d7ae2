"""What every part of the demo shares: the games it films, how the camera may read the
film, the games' names, and the demo's error."""

from __future__ import annotations

from companion.cli import UsageError
from engines.registry import TITLES

GAMES = ("shangrila", "shendao", "shenshi")
READERS = ("appearance", "colours")
"""How the camera reads the film (see ``companion.demo.recognise``)."""
NAMES = TITLES


class DemoError(UsageError):
    """The demo cannot be made as asked (a film too short to show what it must, no
    game among the seeds tried that shows it); the message says what to change."""
