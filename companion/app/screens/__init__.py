"""The app's screens. Each exposes Kivy properties that its ``.kv`` file draws and
forwards taps to the pure layer (``gamesetup``, ``controller``/``session``, ``report``,
``history``, ``wizard``); work that takes time runs on threads and comes back through
``Clock.schedule_once`` (``common.post``)."""

from companion.app.screens.calibrate import CalibrateScreen
from companion.app.screens.clocks import ClockBar
from companion.app.screens.common import RootView, post
from companion.app.screens.end import EndScreen
from companion.app.screens.history import GameRow, HistoryScreen
from companion.app.screens.play import PlayScreen
from companion.app.screens.review import ReviewPanel
from companion.app.screens.start import OptionChoiceRow, OptionTextRow, SeatRow, StartScreen

__all__ = [
    "CalibrateScreen",
    "ClockBar",
    "EndScreen",
    "GameRow",
    "HistoryScreen",
    "OptionChoiceRow",
    "OptionTextRow",
    "PlayScreen",
    "ReviewPanel",
    "RootView",
    "SeatRow",
    "StartScreen",
    "post",
]
