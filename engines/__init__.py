"""Rules engines for The Bridges of Shangri-La, Shendao and ShenShi.

Pure Python and numpy; imports no other package of the project. See ``engines.base``
for the interface every game implements.
"""

from engines.base import GameState, Rules
from engines.dice import Dice
from engines.errors import (
    AmbiguousMoveError,
    EngineError,
    IllegalMoveError,
    NotationError,
    RecordError,
)
from engines.record import GameRecord, Replay, new_record, replay
from engines.registry import GAMES, available_games, rules_class

__all__ = [
    "GAMES",
    "AmbiguousMoveError",
    "Dice",
    "EngineError",
    "GameRecord",
    "GameState",
    "IllegalMoveError",
    "NotationError",
    "RecordError",
    "Replay",
    "Rules",
    "available_games",
    "new_record",
    "replay",
    "rules_class",
]
