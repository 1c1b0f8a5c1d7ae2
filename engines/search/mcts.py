"""Monte Carlo tree search for 2 to 4 players over the common game interface.

Each node keeps, per player, the sum of the rewards seen below it. Selection at a node
follows the search's ``policy`` (``POLICIES``): by default it maximises the reward of
the player to move there (UCT, "max^n"), so every player plays for their own result;
``paranoid`` has every other player minimise the reward of the player the search is
for (the root's player to move), as if all opponents played against them; ``brs``,
best-reply search, lets only the one opponent whose reply hurts that player most move
between two of their turns (``engines.search.brs``). Rewards lie in [0, 1] per player
(``engines.search.evaluate``).

Playouts use the game's ``playout_move(dice)`` when the state has one (a policy that
plays more like people than uniform moves), else ``random_move``. The search is seeded
(``engines.Dice``), stops after an iteration budget or a time
budget, keeps its tree between moves (``advance``), and ``search_parallel`` runs
independent trees on several processes and adds up their root statistics (root
parallelism), which uses both cores of a small machine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from engines.base import GameState
from engines.dice import Dice
from engines.search import brs
from engines.search.brs import BRSNode
from engines.search.evaluate import Evaluator, evaluator_for
from engines.search.playout import play_out_and_back_up

POLICIES: tuple[str, ...] = ("maxn", "paranoid", "brs")
"""How a node's child is chosen in a game of more than two players: ``maxn``, each
player for their own reward; ``paranoid``, the opponents of the searching player against
that player's reward; ``brs``, best-reply search: between two turns of the searching
player only the opponent with the reply worst for that player is searched, the others
play their playout policy's move (``engines.search.brs``). With two players all three
are the same search."""

WIDENING = 2.0
"""Progressive widening for games with ``wide_branching`` states (ShenShi: a million
turns in a position): children allowed per node, times the square root of its visits."""


@dataclass(frozen=True)
class SearchConfig:
    """How hard to think. ``iterations`` and ``seconds`` are both limits; at least one
    must be set."""

    iterations: int | None = 1000
    seconds: float | None = None
    exploration: float = 0.7
    """UCT constant: larger explores more."""
    rollout_moves: int | None = None
    """Stop a playout after this many moves and evaluate (None: play to the end)."""
    seed: int = 0
    policy: str = "maxn"
    """How the tree's players choose (``POLICIES``)."""

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a search needs an iteration or a time budget")
        if self.policy not in POLICIES:
            raise ValueError(f"unknown search policy {self.policy!r}: one of {', '.join(POLICIES)}")


class Node:
    """One position in the tree, reached by ``move`` from its parent."""

    __slots__ = ("children", "move", "mover", "parent", "totals", "untried", "visits")

    def __init__(self, move: Any, parent: Node | None, mover: int, n_players: int) -> None:
        self.move = move
        self.parent = parent
        self.mover = mover  # the player who chose ``move``
        self.children: list[Node] = []
        self.untried: list[Any] | None = None  # filled on first visit
        self.visits = 0
        self.totals = [0.0] * n_players

    def value(self, player: int) -> float:
        return self.totals[player] / self.visits if self.visits else 0.0


@dataclass
class MoveStat:
    move: Any
    visits: int
    value: float
    """Mean reward of the player to move after playing ``move``."""


@dataclass
class SearchResult:
    best: Any
    stats: list[MoveStat]
    iterations: int
    seconds: float
    values: list[float] = field(default_factory=list)
    """Expected reward of each player at the root."""

    def stat(self, move: Any) -> MoveStat | None:
        return next((s for s in self.stats if s.move == move), None)


class MCTS:
    """A search tree for one game; ``search`` from a state, ``advance`` after moves."""

    def __init__(
        self, config: SearchConfig | None = None, evaluator: Evaluator | None = None
    ) -> None:
        self.config = config or SearchConfig()
        self.dice = Dice(self.config.seed)
        self.evaluator = evaluator
        self.root: Node | BRSNode | None = None
        self.root_key: Any = None

    # ------------------------------------------------------------------ public

    def search(
        self, state: GameState[Any], progress: Callable[[int], None] | None = None
    ) -> SearchResult:
        """Think about ``state`` (left unchanged) within the budget. Raises ValueError
        when the game is over."""
        if state.is_over():
            raise ValueError("the game is over: there is nothing to search")
        evaluate = self.evaluator or evaluator_for(state.rules.game)
        n = state.rules.n_players
        key = state.to_json()
        config = self.config
        # best-reply search needs two opponents or more, and a list of legal moves
        best_reply = (
            config.policy == "brs" and n > 2 and not getattr(state, "wide_branching", False)
        )
        if self.root is None or self.root_key != key:
            self.root = BRSNode((), None, None, -1, n) if best_reply else Node(None, None, -1, n)
        root = self.root
        self.root_key = key
        start = time.perf_counter()
        deadline = start + config.seconds if config.seconds is not None else math.inf
        budget = config.iterations if config.iterations is not None else 1 << 62
        done = 0
        work = state.copy()
        searcher = state.to_move if config.policy != "maxn" else -1
        while done < budget:
            if isinstance(root, BRSNode):
                brs.iterate(
                    root,
                    work,
                    evaluate,
                    state.to_move,
                    self.dice,
                    config.exploration,
                    config.rollout_moves,
                )
            else:
                self._iterate(root, work, evaluate, searcher)
            done += 1
            if done & 63 == 0:
                if time.perf_counter() >= deadline:
                    break
                if progress is not None:
                    progress(done)
        return self._result(root, state, done, time.perf_counter() - start)

    def advance(self, state: GameState[Any], moves: Sequence[Any]) -> None:
        """Keep the subtree reached by ``moves`` played from ``state`` (tree reuse)."""
        after = state.copy()
        for move in moves:
            after.apply(move)
        if isinstance(self.root, BRSNode):
            found = brs.descend(self.root, moves)
            if found is not None:
                found.parent = None
                found.line = ()
            self.root = found
            self.root_key = after.to_json() if found is not None else None
            return
        node = self.root
        for move in moves:
            if node is not None:
                node = next((c for c in node.children if c.move == move), None)
        if node is not None:
            node.parent = None
            node.move = None
        self.root = node
        self.root_key = after.to_json() if node is not None else None

    # ------------------------------------------------------------------ internals

    def _iterate(
        self, root: Node, state: GameState[Any], evaluate: Evaluator, searcher: int = -1
    ) -> None:
        """One iteration. ``searcher`` >= 0: the paranoid policy, for that player (with
        two players it is max^n, and best-reply search too)."""
        tokens: list[object] = []
        node = root
        c = self.config.exploration
        draw = getattr(state, "playout_move", state.random_move)
        wide = getattr(state, "wide_branching", False)
        # selection and expansion
        while not state.is_over():
            if wide:
                # Progressive widening: a node gets a new child, drawn by the playout
                # policy, each time its visits allow one more (about 2 sqrt(visits)).
                if len(node.children) < 1 + int(WIDENING * math.sqrt(node.visits)):
                    move = draw(self.dice)
                    known = next((ch for ch in node.children if ch.move == move), None)
                    if known is None:
                        node = self._expand(node, state, move, tokens)
                        break
                    tokens.append(state.apply(move))
                    node = known
                    continue
            else:
                if node.untried is None:
                    node.untried = list(state.legal_moves())
                if node.untried:
                    move = node.untried.pop(self.dice.below(len(node.untried)))
                    node = self._expand(node, state, move, tokens)
                    break
            log_n = math.log(node.visits)
            best, best_score = node.children[0], -math.inf
            for child in node.children:
                if searcher < 0 or child.mover == searcher:
                    mean = child.totals[child.mover] / child.visits
                else:
                    mean = 1.0 - child.totals[searcher] / child.visits
                score = mean + c * math.sqrt(log_n / child.visits)
                if score > best_score:
                    best, best_score = child, score
            node = best
            tokens.append(state.apply(node.move))
        play_out_and_back_up(
            state, tokens, node, draw, self.dice, self.config.rollout_moves, evaluate
        )

    @staticmethod
    def _expand(node: Node, state: GameState[Any], move: Any, tokens: list[object]) -> Node:
        mover = state.to_move
        tokens.append(state.apply(move))
        child = Node(move, node, mover, len(node.totals))
        node.children.append(child)
        return child

    def _result(
        self, root: Node | BRSNode, state: GameState[Any], iterations: int, seconds: float
    ) -> SearchResult:
        player = state.to_move
        stats = [MoveStat(c.move, c.visits, c.value(player)) for c in root.children]
        stats.sort(key=lambda s: (-s.visits, -s.value))
        # with no finished iteration, fall back on the first legal move
        best = stats[0].move if stats else state.legal_moves()[0]
        values = [root.value(p) for p in range(state.rules.n_players)]
        return SearchResult(best, stats, iterations, seconds, values)


def _search_worker(args: tuple[GameState[Any], SearchConfig]) -> SearchResult:
    state, config = args
    return MCTS(config).search(state)


def search_parallel(
    state: GameState[Any],
    config: SearchConfig,
    workers: int = 2,
    pool: ProcessPoolExecutor | None = None,
) -> SearchResult:
    """Root parallelism: ``workers`` independent trees (seeds ``seed``, ``seed + 1``, ...)
    on separate processes; their root statistics are added up."""
    configs = [replace(config, seed=config.seed + i) for i in range(workers)]
    if workers == 1:
        return MCTS(configs[0]).search(state)
    own_pool = pool is None
    executor = pool or ProcessPoolExecutor(max_workers=workers)
    try:
        results = list(executor.map(_search_worker, [(state, c) for c in configs]))
    finally:
        if own_pool:
            executor.shutdown()
    merged: dict[str, tuple[Any, int, float]] = {}
    fmt = state.rules.format_move
    for result in results:
        for s in result.stats:
            key = fmt(s.move)
            _, visits, total = merged.get(key, (s.move, 0, 0.0))
            merged[key] = (s.move, visits + s.visits, total + s.value * s.visits)
    stats = [MoveStat(m, v, t / v if v else 0.0) for m, v, t in merged.values()]
    stats.sort(key=lambda s: (-s.visits, -s.value))
    n = state.rules.n_players
    values = [
        sum(r.values[p] * r.iterations for r in results)
        / max(1, sum(r.iterations for r in results))
        for p in range(n)
    ]
    return SearchResult(
        stats[0].move if stats else state.legal_moves()[0],
        stats,
        sum(r.iterations for r in results),
        max(r.seconds for r in results),
        values,
    )
