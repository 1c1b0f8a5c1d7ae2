"""The game the demo films: engine players of different strengths play it out, and the
film shows its last moves, chosen so that they show what a newcomer should see (for
the Bridges of Shangri-La: a recruit, several journeys, and the end).

Everything follows the seed, so a demo is the same game every time it is run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.demo.base import DemoError
from engines import GameRecord, GameState, Rules
from engines.registry import rules_class
from engines.search.players import SearchPlayer


@dataclass(frozen=True)
class Feature:
    """Something the filmed moves must show: ``at_least`` moves passing ``test``."""

    what: str
    test: Callable[[str], bool]
    at_least: int = 1


@dataclass(frozen=True)
class DemoSpec:
    game: str
    players: tuple[str, ...]
    levels: tuple[int, ...]
    """The engine level that plays each seat: the strength report should tell them
    apart."""
    filmed: int
    """How many of the game's last moves the film shows; the earlier ones are already
    on the table when it starts (a demo has two minutes)."""
    illegal_rules: tuple[str, ...]
    """Illegal moves a player may try during the film, one of which is."""
    features: tuple[Feature, ...]


SPECS: dict[str, DemoSpec] = {
    "shangrila": DemoSpec(
        "shangrila",
        ("red", "blue", "yellow", "violet"),
        (1, 2, 3, 3),
        20,
        ("place.space-occupied", "place.no-master-in-village", "turn.wrong-player"),
        (
            Feature("a recruit", lambda m: m.startswith("+")),
            Feature("journeys", lambda m: ">" in m, 3),
        ),
    ),
    "shendao": DemoSpec(
        "shendao",
        ("light", "dark"),
        (1, 4),
        24,
        ("gate.closed", "gate.blocked", "turn.wrong-player"),
        (Feature("a card played", lambda m: " " in m),),
    ),
    "shenshi": DemoSpec(
        "shenshi",
        ("silver", "copper"),
        (1, 3),
        12,
        ("walk.blocked", "walk.length", "hover.not-straight"),
        (Feature("a monk entering", lambda m: "@" in m),),
    ),
}
SEARCHED_SEEDS = 40
"""Seeds tried, from the one asked for, until a game shows every feature."""


@dataclass(frozen=True)
class Script:
    """The demo's game: the whole record, and where the film joins it."""

    spec: DemoSpec
    seed: int
    rules: Rules[Any, Any]
    moves: list[str]
    joined_at: int

    @property
    def start(self) -> GameState[Any]:
        """The table when the film starts."""
        state = self.rules.initial_state()
        for text in self.moves[: self.joined_at]:
            state.play_text(text)
        return state

    @property
    def filmed_moves(self) -> list[str]:
        return self.moves[self.joined_at :]

    def record(self) -> GameRecord:
        """The filmed part as a record starting from the table the film opens on."""
        return GameRecord(
            self.spec.game,
            list(self.spec.players),
            self.rules.options_json(),
            self.filmed_moves,
            self.start.to_json(),
        )


def make_script(spec: DemoSpec, seed: int, progress: Callable[[str], None] | None = None) -> Script:
    """Play the demo's game (engine players at ``spec.levels``) from ``seed``, trying
    the following seeds until the filmed moves show every feature. Raises
    ``DemoError`` when none of ``SEARCHED_SEEDS`` seeds does."""
    game = spec.game
    rules = rules_class(game)(list(spec.players))
    for tried in range(seed, seed + SEARCHED_SEEDS):
        if progress is not None:
            progress(f"the engine players play a game of {game} (seed {tried})")
        moves = _play(rules, spec, tried)
        joined_at = max(0, len(moves) - spec.filmed)
        filmed = moves[joined_at:]
        if all(sum(f.test(m) for m in filmed) >= f.at_least for f in spec.features):
            return Script(spec, tried, rules, moves, joined_at)
    wanted = ", ".join(f.what for f in spec.features)
    raise DemoError(
        f"no game from seeds {seed}..{seed + SEARCHED_SEEDS - 1} ends with "
        f"{wanted} in its last {spec.filmed} moves"
    )


def _play(rules: Rules[Any, Any], spec: DemoSpec, seed: int) -> list[str]:
    seats = [SearchPlayer(level, seed * 10 + i) for i, level in enumerate(spec.levels)]
    state = rules.initial_state()
    moves: list[str] = []
    while not state.is_over():
        move = seats[state.to_move].choose(state)
        state.play(move)
        moves.append(rules.format_move(move))
    return moves
