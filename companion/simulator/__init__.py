"""A simulated table for tests, the demo and the benchmark: a game record played out
piece by piece as the stream of observations a camera and a sensor board give.

``TableSimulator`` (``core``) is generic; each game's ``Handling`` (``shangrila``, ...)
knows how its moves are made by hand. ``referee_game`` (``scoring``) runs a stream
through a referee with simulated people and scores it.
"""

from companion.simulator.config import TableConfig
from companion.simulator.core import Step, TableSimulator, Truth, random_game
from companion.simulator.handling import Attempt, Handling, SimulatorError, Touch
from companion.simulator.scoring import GameScore, referee_game

__all__ = [
    "Attempt",
    "GameScore",
    "Handling",
    "SimulatorError",
    "Step",
    "TableConfig",
    "TableSimulator",
    "Touch",
    "Truth",
    "random_game",
    "referee_game",
]
