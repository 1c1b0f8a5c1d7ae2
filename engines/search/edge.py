"""A move's **edge**: how much better the game's static evaluation finds the move played
than the turns random play would have drawn there.

Random play draws its turns by the game's playout draw (``playout_move``, else
uniformly): its moves have, on average, no edge at all, whatever the position, however
the game goes. Even the weakest search (level 1, the best-looking of a few such turns)
picks moves the evaluation likes a little more. Where the analysis' win chances cannot
tell random play from level 1 (in ShenShi, random play and level 1 lose about as much
win chance a move), the edge still can: it is a test of "was this turn drawn at random?"
that does not depend on how the game stood.

The edge of a move is the mover's evaluation (``engines.search.evaluate``) after it,
less the mean of their evaluation after each of ``EDGE_SAMPLE`` turns drawn as random
play draws them, with a ``Dice`` seeded by the move's index: the same record always
gives the same edges.
"""

from __future__ import annotations

from typing import Any

from engines.base import GameState
from engines.dice import Dice
from engines.search.evaluate import evaluator_for

EDGE_SAMPLE = 60
"""Turns drawn for the mean a move's edge is taken against (an edge then costs about a
hundredth of a ShenShi position's analysis)."""
TIE = 1e-12
"""Evaluations closer than this are equal (the played move beats half of such turns)."""
EDGE_SEED = 7_919
"""Added to a move's index for the seed of its draws (apart from the search's seeds)."""


def move_edge(state: GameState[Any], move: Any, index: int, sample: int = EDGE_SAMPLE) -> float:
    """The edge of ``move`` played in ``state`` (left as it was), move ``index`` of
    its game (from 0)."""
    evaluate = evaluator_for(state.rules.game)
    me = state.to_move
    dice = Dice(EDGE_SEED + index)
    draw = getattr(state, "playout_move", state.random_move)
    token = state.apply(move)
    played = evaluate(state)[me]
    state.undo(token)
    beaten = 0.0
    for _ in range(sample):
        token = state.apply(draw(dice))
        value = evaluate(state)[me]
        state.undo(token)
        beaten += 1.0 if played > value + TIE else 0.5 if played >= value - TIE else 0.0
    return beaten / sample
