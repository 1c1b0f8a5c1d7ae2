"""The Bridges of Shangri-La (3-4 players): rules engine.

``ShangrilaRules`` holds the players and options; ``rules.initial_state()`` gives a
``ShangrilaState``. Moves and notation are in ``engines.shangrila.moves``.
"""

from engines.shangrila.board import COLOURS, Board, load_board
from engines.shangrila.moves import LETTERS, NAMES, Journey, Move, Pass, Place, Recruit
from engines.shangrila.rules import OPTIONS, ShangrilaRules
from engines.shangrila.state import ShangrilaState

__all__ = [
    "COLOURS",
    "LETTERS",
    "NAMES",
    "OPTIONS",
    "Board",
    "Journey",
    "Move",
    "Pass",
    "Place",
    "Recruit",
    "ShangrilaRules",
    "ShangrilaState",
    "load_board",
]
