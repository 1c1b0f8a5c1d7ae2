"""The moves no later table can settle: a bound on what any referee can know unasked.

A Shangri-La recruit seen from above leaves no trace: a student on its master is one
tile from above. A later table settles which recruit it was only when it would look
otherwise had the recruit gone elsewhere: a journey taking that village's students, a
stack whose side a slanted camera sees. ``unsettled`` finds, in a game's record, the
moves the table cannot show (``HiddenParts.spread``) that another legal move could
replace with the game going on legally and every later table looking the same, the
heights a slanted camera reads included. No referee tells those apart without asking:
one that asks less writes some of them wrong. It is a lower bound: two such moves
swapped at once hide more.

``measure`` counts them on random games as ``companion bench referee`` plays them (the
same rules, players and seeds), seen from above and at 55 degrees.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from companion.simulator.config import TableConfig
from companion.simulator.core import TableSimulator, random_game
from companion.simulator.evaluate import DRAWN_SETUP, PLAYER_COUNTS
from engines import EngineError, GameState, Rules
from engines.registry import rules_class, table_model
from engines.table_model import HiddenParts


def unsettled(
    rules: Rules[Any, Any],
    moves: Sequence[Any],
    seen: Collection[str] = (),
) -> list[int]:
    """The indices in ``moves`` (a game from ``rules``' initial position) of the moves
    the table cannot show that another legal move could replace, every position after
    looking the same (``HiddenParts.looks_alike``, and the heights of ``seen``, the
    stack elements a slanted camera reads) and every later move still legal."""
    model = table_model(rules.game)
    hidden = model.hidden_parts()
    if hidden is None:
        return []
    positions = [rules.initial_state()]
    for move in moves:
        after = positions[-1].copy()
        after.play(move)
        positions.append(after)
    watched = sorted(seen)
    expected = model.expected

    def heights(state: GameState[Any]) -> list[Any]:
        table = expected(state)
        return [table.value(e) for e in watched]

    shown = [heights(p) if watched else [] for p in positions]
    out = []
    for i, move in enumerate(moves):
        if not hidden.spread(move):
            continue
        text = rules.format_move(move)
        others = [
            m
            for m in positions[i].legal_moves()
            if hidden.spread(m) and rules.format_move(m) != text
        ]
        if any(_alike(hidden, positions, shown, moves, i, m, heights) for m in others):
            out.append(i)
    return out


def _alike(
    hidden: HiddenParts[Any, Any],
    positions: Sequence[GameState[Any]],
    shown: Sequence[list[Any]],
    moves: Sequence[Any],
    index: int,
    other: Any,
    heights: Any,
) -> bool:
    """Whether the game with move ``index`` replaced by ``other`` goes on legally to the
    end, every position looking as the record's (``shown``: the heights read)."""
    world = positions[index].copy()
    try:
        world.play(other)
        for j in range(index + 1, len(moves) + 1):
            if not hidden.looks_alike(world, positions[j]):
                return False
            if shown[j] and heights(world) != shown[j]:
                return False
            if j < len(moves):
                world.play(moves[j])
    except EngineError:
        return False
    return True


@dataclass(frozen=True)
class Settleable:
    """``measure``'s figures for one view."""

    game: str
    view: str
    games: int
    moves: int
    unseen: int
    """Moves the table could not show when made."""
    unsettled: int
    """Of those, the ones no later table settles (``unsettled``)."""

    @property
    def unsettled_pct(self) -> float:
        return 100.0 * self.unsettled / self.unseen if self.unseen else 0.0

    @property
    def best_record_pct(self) -> float:
        """The share of moves a referee can write right without asking about any
        unsettled one, writing one of the two ways at random: at most."""
        return 100.0 * (self.moves - self.unsettled / 2) / self.moves if self.moves else 100.0

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "unsettled_per_game": round(self.unsettled / self.games, 2) if self.games else 0,
            "unsettled_pct": round(self.unsettled_pct, 2),
            "best_record_pct": round(self.best_record_pct, 3),
        }


def measure(game: str, games: int, seed: int, view: str) -> Settleable:
    """``unsettled`` on the random games ``companion bench referee --game game --games
    games --seed seed --view view`` plays: seen from ``view`` (``VIEWS``), the stacks
    whose side it reads drawn per game as the bench's table draws them."""
    cls = rules_class(game)
    counts = PLAYER_COUNTS.get(game, (cls.min_players,))
    config = TableConfig(view=view)
    moves = unseen = total = 0
    for i in range(games):
        drawn = {"seed": seed + i} if game in DRAWN_SETUP else {}
        rules = cls.from_record(cls.default_players(counts[i % len(counts)]), drawn)
        record = random_game(rules, seed + i)
        seen: Collection[str] = ()
        if view != "above":
            seen = TableSimulator(rules, record, config, seed + i).readers[0].side
        hidden = table_model(game).hidden_parts()
        moves += len(record)
        unseen += sum(1 for m in record if hidden is not None and hidden.spread(m))
        total += len(unsettled(rules, record, seen))
    return Settleable(game, view, games, moves, unseen, total)
