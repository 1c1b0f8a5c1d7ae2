"""Best-reply search: the worst reply for the searcher is found among all opponents' moves,
the others keep a legal move, the search replays from its seed and keeps its tree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from engines.base import JSON, GameState, Rules
from engines.dice import Dice
from engines.errors import IllegalMoveError
from engines.search import MCTS, SearchConfig
from engines.search.brs import BRSNode
from engines.search.evaluate import outcome
from engines.shangrila import ShangrilaRules


class TripleRules(Rules[str, "TripleState"]):
    """One round of three players. The first says ``safe`` (everyone shares the win) or
    ``risky`` (they win alone, unless the third answers with the ``threat``: then the
    second and third share it). The second's ``a`` and ``b`` change nothing."""

    game: ClassVar[str] = "triple"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 3

    def __init__(self, players: Sequence[str], threat: str = "strike") -> None:
        super().__init__(players)
        self.threat = threat
        self.moves: tuple[tuple[str, ...], ...] = (("safe", "risky"), ("a", "b"), ("x", "strike"))

    @classmethod
    def from_record(cls, players: Sequence[str], options: Mapping[str, JSON]) -> Self:
        return cls(players)

    @classmethod
    def default_players(cls, n: int) -> list[str]:
        return ["red", "blue", "yellow"]

    def options_json(self) -> dict[str, JSON]:
        return {"threat": self.threat}

    def initial_state(self) -> TripleState:
        return TripleState(self, [])

    def state_from_json(self, data: JSON) -> TripleState:
        return TripleState(self, list(data["moves"]))

    def parse_move(self, text: str) -> str:
        return text

    def format_move(self, move: str) -> str:
        return move


class TripleState(GameState[str]):
    def __init__(self, rules: TripleRules, moves: list[str]) -> None:
        self.rules: TripleRules = rules
        self.moves = moves

    @property
    def to_move(self) -> int:
        return len(self.moves) % 3

    def legal_moves(self) -> list[str]:
        return [] if self.is_over() else list(self.rules.moves[len(self.moves)])

    def apply(self, move: str) -> object:
        self.moves.append(move)
        return None

    def undo(self, token: object) -> None:
        self.moves.pop()

    def copy(self) -> Self:
        return type(self)(self.rules, self.moves[:])

    def check(self, move: str) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError("turn", f"{move} is not a move here.")

    def is_over(self) -> bool:
        return len(self.moves) == 3

    def scores(self) -> list[int]:
        return [1 if p in self.winners() else 0 for p in range(3)]

    def tiebreak(self) -> JSON:
        return []

    def winners(self) -> list[int]:
        if self.moves[0] == "safe":
            return [0, 1, 2]
        return [1, 2] if self.moves[2] == self.rules.threat else [0]

    def to_json(self) -> dict[str, JSON]:
        return {"moves": self.moves[:]}

    def describe(self) -> str:
        return " ".join(self.moves)


def brs_root(
    state: GameState[Any], iterations: int, seed: int, rollout: int | None = None
) -> tuple[Any, BRSNode]:
    config = SearchConfig(iterations=iterations, seed=seed, policy="brs", rollout_moves=rollout)
    mcts = MCTS(config, evaluator=outcome if rollout is None else None)
    best = mcts.search(state).best
    assert isinstance(mcts.root, BRSNode)
    return best, mcts.root


def test_the_worst_reply_among_all_opponents_is_found_and_avoided() -> None:
    for seed in range(4):
        state = TripleRules(["red", "blue", "yellow"]).initial_state()
        best, root = brs_root(state, 200, seed)
        risky = next(c for c in root.children if c.move == "risky")
        # one opponent node holds both opponents' moves; in every line both move
        assert {c.mover for c in risky.children} == {1, 2}
        assert all(len(c.line) == 2 for c in risky.children)
        reply = max(risky.children, key=lambda c: c.visits)
        assert "strike" in reply.line
        assert risky.value(0) < 0.2
        assert best == "safe"


def test_without_a_threat_the_bold_move_is_chosen() -> None:
    state = TripleRules(["red", "blue", "yellow"], threat="none").initial_state()
    assert brs_root(state, 200, seed=2)[0] == "risky"


def shangrila_positions(players: int) -> list[GameState[Any]]:
    """Positions of a game played by the playout policy: its start, early, middle, late."""
    rules = ShangrilaRules.from_record(ShangrilaRules.default_players(players), {})
    found: list[GameState[Any]] = []
    for plies, seed in ((0, 1), (7, 2), (45, 3), (100, 4)):
        state = rules.initial_state()
        dice = Dice(seed)
        for _ in range(plies):
            if state.is_over():
                break
            state.apply(state.playout_move(dice))
        if not state.is_over():
            found.append(state)
    return found


def replay_checked(state: GameState[Any], node: BRSNode, searcher: int) -> list[int]:
    """Play every line of the tree through the rules' checks; the length of each line
    below an opponent node, ended early only by the end of the game."""
    lengths = []
    for child in node.children:
        after = state.copy()
        for move in child.line:
            after.play(move)
        if state.to_move != searcher:
            assert after.is_over() or after.to_move == searcher
            lengths.append(len(child.line))
        lengths += replay_checked(after, child, searcher)
    return lengths


def test_every_line_of_the_tree_and_every_chosen_move_is_legal() -> None:
    for players in (3, 4):
        for state in shangrila_positions(players)[1:3]:
            before = state.to_json()
            best, root = brs_root(state, 100, seed=5, rollout=5)
            assert state.to_json() == before
            state.check(best)
            lengths = replay_checked(state, root, state.to_move)
            # nobody passes: every opponent plays, the replying one or a kept move
            assert lengths and set(lengths) == {players - 1}


def test_the_same_seed_gives_the_same_search() -> None:
    state = shangrila_positions(3)[2]
    first, second, other = (
        MCTS(SearchConfig(iterations=150, rollout_moves=10, seed=s, policy="brs")).search(state)
        for s in (7, 7, 8)
    )
    assert first.best == second.best
    assert [(s.move, s.visits, s.value) for s in first.stats] == [
        (s.move, s.visits, s.value) for s in second.stats
    ]
    assert [(s.move, s.visits) for s in first.stats] != [(s.move, s.visits) for s in other.stats]


def test_best_reply_differs_from_max_n_with_three_players() -> None:
    state = shangrila_positions(3)[2]
    found = [
        MCTS(SearchConfig(iterations=150, rollout_moves=10, seed=3, policy=p)).search(state)
        for p in ("maxn", "brs")
    ]
    assert found[0].values != found[1].values


def test_the_tree_is_kept_along_a_searched_line_and_dropped_inside_one() -> None:
    state = TripleRules(["red", "blue", "yellow"]).initial_state()
    mcts = MCTS(SearchConfig(iterations=60, seed=1, policy="brs"), evaluator=outcome)
    mcts.search(state)
    assert isinstance(mcts.root, BRSNode)
    risky = next(c for c in mcts.root.children if c.move == "risky")
    mcts.advance(state, ["risky"])
    assert mcts.root is risky and mcts.root.parent is None
    after = state.copy()
    after.apply("risky")
    mcts.advance(after, ["a"])
    assert mcts.root is None
