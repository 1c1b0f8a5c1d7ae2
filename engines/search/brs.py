"""Best-reply search inside Monte Carlo tree search (the ``brs`` policy).

Best-reply search (Schadd and Winands, "Best Reply Search for Multiplayer Games",
IEEE TCIAIG 3(1), 2011) looks at one opponent only between two turns of the player it
searches for (the *searcher*): of all the opponents' moves, the one that hurts the
searcher most, while the other opponents stand still. More of the searcher's own turns
fit into the same budget. Nijssen and Winands ("Search Policies in Multi-Player Games",
ICGA Journal 36(1), 2013) put it in a Monte Carlo tree (MCTS-BRS): the tree alternates
the searcher's nodes, whose children are the searcher's moves, and *opponent nodes*,
whose children are the moves of every opponent together; at an opponent node the child
that lowers the searcher's reward is chosen (UCT on one minus the searcher's mean
reward), at the searcher's nodes the child that raises it. Playouts keep the real turn
order.

Standing still is a pass, and in most of our games a pass is not a legal move (in
Shangri-La only a player with nothing else to do passes). Esser, Gras, Winands, Schadd
and Lanctot ("Improving Best-Reply Search", Computers and Games 2013, BRS+) keep the
turn order instead: the opponents who do not reply play the move their move ordering
puts first, so every position in the tree is a real one. Here that ordering is the
game's playout policy (``playout_move``, else a uniform draw): when an opponent node is
first reached, one move is drawn for each opponent in turn and kept, so a line through
the tree always replays the same moves (a fixed choice, as BRS+ asks, and as cheap as a
playout step). A child of an opponent node is one line from that node to the searcher's
next turn: the kept moves of the opponents before the replying one, the reply, and kept
moves for the opponents after it (drawn once, when the child is made); the line where
every opponent plays their kept move is one child, that of the first opponent.

With two players there is one opponent and nothing to merge: the search is the same as
max^n and paranoid (``engines.search.mcts`` runs it there).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from engines.base import GameState
from engines.dice import Dice
from engines.search.evaluate import Evaluator
from engines.search.playout import play_out_and_back_up


class BRSNode:
    """One position of a best-reply tree, reached from its parent by the moves ``line``
    (one move below a searcher's node; a whole opponent layer below an opponent node)."""

    __slots__ = (
        "children",
        "kept",
        "line",
        "move",
        "mover",
        "parent",
        "totals",
        "untried",
        "visits",
    )

    def __init__(
        self, line: tuple[Any, ...], move: Any, parent: BRSNode | None, mover: int, n: int
    ) -> None:
        self.line = line
        self.move = move
        """The move searched on the way here: the searcher's move, or the reply."""
        self.parent = parent
        self.mover = mover  # the player who chose ``move``
        self.children: list[BRSNode] = []
        self.untried: list[tuple[int, Any]] | None = None  # (opponent slot, move)
        self.kept: list[Any] = []  # at an opponent node: each slot's kept move
        self.visits = 0
        self.totals = [0.0] * n

    def value(self, player: int) -> float:
        return self.totals[player] / self.visits if self.visits else 0.0


def _candidates(
    node: BRSNode, state: GameState[Any], searcher: int, draw: Callable[[Dice], Any], dice: Dice
) -> list[tuple[int, Any]]:
    """The children still to make at ``node``: the searcher's moves at their own node
    (slot 0); at an opponent node, every move of every opponent before the searcher's
    next turn, with the slot (0 for the first opponent to move) it is played at."""
    if state.to_move == searcher:
        return [(0, move) for move in state.legal_moves()]
    tokens: list[object] = []
    found: list[tuple[int, Any]] = []
    slot = 0
    while not state.is_over() and state.to_move != searcher:
        kept = draw(dice)
        # replying with the kept move gives the line where nobody replies: listed once
        found += [(slot, m) for m in state.legal_moves() if slot == 0 or m != kept]
        node.kept.append(kept)
        tokens.append(state.apply(kept))
        slot += 1
    for token in reversed(tokens):
        state.undo(token)
    return found


def _expand(
    node: BRSNode,
    state: GameState[Any],
    searcher: int,
    slot: int,
    move: Any,
    tokens: list[object],
    draw: Callable[[Dice], Any],
    dice: Dice,
) -> BRSNode:
    """Make the child of ``node`` for ``move`` at ``slot`` and play its line."""
    if state.to_move == searcher:
        child = BRSNode((move,), move, node, searcher, len(node.totals))
        tokens.append(state.apply(move))
        node.children.append(child)
        return child
    if move == node.kept[slot]:
        # nobody replies: the kept line as drawn when the node was first reached
        mover = state.to_move
        line = list(node.kept)
        for kept in line:
            tokens.append(state.apply(kept))
        child = BRSNode(tuple(line), move, node, mover, len(node.totals))
        node.children.append(child)
        return child
    line = list(node.kept[:slot])
    for kept in line:
        tokens.append(state.apply(kept))
    mover = state.to_move
    line.append(move)
    tokens.append(state.apply(move))
    while not state.is_over() and state.to_move != searcher:
        kept = draw(dice)
        line.append(kept)
        tokens.append(state.apply(kept))
    child = BRSNode(tuple(line), move, node, mover, len(node.totals))
    node.children.append(child)
    return child


def iterate(
    root: BRSNode,
    state: GameState[Any],
    evaluate: Evaluator,
    searcher: int,
    dice: Dice,
    exploration: float,
    rollout_moves: int | None,
) -> None:
    """One iteration from ``root`` (``state`` is its position, left unchanged):
    selection and expansion in the best-reply tree, a playout in the real turn order,
    and the rewards added along the path."""
    tokens: list[object] = []
    node = root
    draw: Callable[[Dice], Any] = getattr(state, "playout_move", state.random_move)
    while not state.is_over():
        if node.untried is None:
            node.untried = _candidates(node, state, searcher, draw, dice)
        if node.untried:
            slot, move = node.untried.pop(dice.below(len(node.untried)))
            node = _expand(node, state, searcher, slot, move, tokens, draw, dice)
            break
        ours = state.to_move == searcher
        log_n = math.log(node.visits)
        best, best_score = node.children[0], -math.inf
        for child in node.children:
            mean = child.totals[searcher] / child.visits
            if not ours:
                mean = 1.0 - mean
            score = mean + exploration * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        node = best
        for move in node.line:
            tokens.append(state.apply(move))
    play_out_and_back_up(state, tokens, node, draw, dice, rollout_moves, evaluate)


def descend(root: BRSNode, moves: Sequence[Any]) -> BRSNode | None:
    """The node reached from ``root`` by ``moves`` played in the real game, or None
    when they leave the tree or stop inside an opponent layer's line."""
    node = root
    i = 0
    while i < len(moves):
        found = None
        for child in node.children:
            end = i + len(child.line)
            if tuple(moves[i:end]) == child.line:
                found = child
                break
        if found is None:
            return None
        node = found
        i += len(found.line)
    return node
