"""ShenShi (2-4 players, and the expert 2-player variant): rules engine.

``ShenshiRules`` holds the players and options; ``rules.initial_state()`` gives a
``ShenshiState``. The other modules, along the seams of a turn:

* ``board`` — squares a1-g7, geometry, the parts and the seeded draw (``board.json``);
* ``moves`` — turns, actions and their notation;
* ``plan`` — the limits of a turn (which monk may do which kind of action next);
* ``options`` — where one monk can walk, hover, swap or enter;
* ``movegen`` — every legal turn, depth-first; counting and uniform draws;
* ``validate`` — why a move is illegal: rule ids and sentences;
* ``document`` — the position as JSON, and as text;
* ``schema`` — what a table shows: its elements, and what a state shows on them;
* ``turn_search`` — the turns that could leave a table as it is seen;
* ``observation`` — the table model for the referee: sentences, guesses.
"""

from engines.shenshi.board import Board, load_board, parse_square, square_name
from engines.shenshi.moves import (
    MONK_LETTERS,
    RESERVE_BLOND,
    RESERVE_ORANGE,
    Action,
    Enter,
    Give,
    Hover,
    Move,
    Pass,
    Swap,
    Turn,
    Walk,
    format_action,
    parse_action,
)
from engines.shenshi.rules import METALS, OPTIONS, ShenshiRules
from engines.shenshi.state import ShenshiState

__all__ = [
    "METALS",
    "MONK_LETTERS",
    "OPTIONS",
    "RESERVE_BLOND",
    "RESERVE_ORANGE",
    "Action",
    "Board",
    "Enter",
    "Give",
    "Hover",
    "Move",
    "Pass",
    "ShenshiRules",
    "ShenshiState",
    "Swap",
    "Turn",
    "Walk",
    "format_action",
    "load_board",
    "parse_action",
    "parse_square",
    "square_name",
]
