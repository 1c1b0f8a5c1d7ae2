"""Shendao (2 players): rules engine.

``ShendaoRules`` holds the players and options; ``rules.initial_state()`` gives a
``ShendaoState``. Moves and notation are in ``engines.shendao.moves``; the board (gates,
walls, corner connections) is data, ``board.json``, read by ``engines.shendao.board``.
"""

from engines.shendao.board import Board, Gate, load_board
from engines.shendao.moves import (
    CARD_NAMES,
    CARDS,
    GATES,
    SQUARES,
    Enter,
    Move,
    Pass,
    format_move,
    parse_move,
)
from engines.shendao.rules import OPTIONS, PLAYERS, TILES, VARIANTS, ShendaoRules
from engines.shendao.state import ShendaoState

__all__ = [
    "CARDS",
    "CARD_NAMES",
    "GATES",
    "OPTIONS",
    "PLAYERS",
    "SQUARES",
    "TILES",
    "VARIANTS",
    "Board",
    "Enter",
    "Gate",
    "Move",
    "Pass",
    "ShendaoRules",
    "ShendaoState",
    "format_move",
    "load_board",
    "parse_move",
]
