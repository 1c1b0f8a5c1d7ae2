"""Each player's level over their recorded games, for the History screen: the level
they played like in each game with its range, the level of all their games pooled
(``engines.search.pooling``), and how they finished against each player they sat with.

Players are matched by the name typed at the start (case and spaces aside) and shown as
most often spelt; a seat without a name is a colour, not a person, and is left out. An
engine seat without a name is its level's engine ("engine 3"). A game counts for the
level when its strength report was kept (``companion.app.history``) and the strength
model knows its game and player count; for head to head when it is finished.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.app.controller import SeatsError, read_seats
from companion.app.history import (
    AnalysisError,
    PastGame,
    _moves_played,
    list_games,
    load_analysis,
    report_folder,
)
from companion.referee.journal import JournalError
from engines import EngineError
from engines.search.analysis import Analysis, seat_evidence
from engines.search.pooling import (
    POOLING_PATH,
    Finish,
    HeadToHead,
    head_to_head,
    pooled_estimate,
    shared_for,
)
from engines.search.strength import (
    MODEL_PATH,
    CalibrationError,
    Evidence,
    StrengthEstimate,
    estimate,
    model_for,
)


@dataclass(frozen=True)
class GameLevel:
    """A player's level in one game."""

    when: str
    key: str
    """The model's game and player count, ``shangrila-4``."""
    estimate: StrengthEstimate
    evidence: Evidence
    iterations: int | None
    """The analysis' budget (iterations a position)."""


@dataclass
class PlayerLevels:
    """One player's games, oldest first, their pooled level per game and player count,
    and their head-to-head results."""

    name: str
    games: list[GameLevel] = field(default_factory=list)
    pooled: dict[str, StrengthEstimate] = field(default_factory=dict)
    """Per ``game-players``, the level of all those games pooled."""
    rivals: list[HeadToHead] = field(default_factory=list)
    played: int = 0
    """Recorded games the player sat at (with a strength report or not)."""


def person(name: str) -> str:
    """The key a name is matched by."""
    return " ".join(name.split()).casefold()


def seat_names(past: PastGame, engine_name: Callable[[int], str]) -> list[str]:
    """Each seat's player name ("" for a seat without one)."""
    seats = read_seats(past.path, past.players)
    return [" ".join(s.name.split()) or (engine_name(s.level) if s.engine else "") for s in seats]


def evidence_of(analysis: Analysis, seat: int) -> Evidence:
    """The judged moves of ``seat`` in ``analysis``, with how the others played (as its
    strength estimate uses)."""
    return seat_evidence(analysis.moves, seat)


@dataclass(frozen=True)
class SkippedGame:
    """A recorded game left out of the levels, and why."""

    when: str
    reason: str


def collect(
    data: Path,
    engine_name: Callable[[int], str] = lambda level: f"engine {level}",
    model_path: Path = MODEL_PATH,
    pooling_path: Path = POOLING_PATH,
    skipped: list[SkippedGame] | None = None,
) -> dict[str, PlayerLevels]:
    """Every named player of the games kept in ``data`` (the app's data folder), by
    ``person(name)``. A game that cannot be read (its journal, its seats or its
    strength report) is left out and, when ``skipped`` is given, added to it with why.
    Raises ``CalibrationError`` for an unreadable model file."""
    left_out: list[SkippedGame] = [] if skipped is None else skipped
    players: dict[str, PlayerLevels] = {}
    spellings: dict[str, Counter[str]] = {}
    finishes: list[Finish] = []
    for past in sorted(list_games(data / "games"), key=lambda p: (p.when, str(p.path))):
        if past.problem:
            left_out.append(SkippedGame(past.when, past.problem))
            continue
        try:
            names = seat_names(past, engine_name)
        except SeatsError as error:
            left_out.append(SkippedGame(past.when, str(error)))
            continue
        keys = [person(n) for n in names]
        for name, key in zip(names, keys, strict=True):
            if key:
                players.setdefault(key, PlayerLevels(name)).played += 1
                spellings.setdefault(key, Counter())[name] += 1
        if past.over and past.scores:
            finishes.append(Finish(tuple(keys), past.scores, past.winners))
        model = model_for(past.game, len(past.players), model_path)
        if model is None or not any(keys):
            continue
        try:
            record = _moves_played(past.path)
            analysis = load_analysis(report_folder(data, past.path), record)
        except (OSError, JournalError, EngineError, AnalysisError) as error:
            left_out.append(SkippedGame(past.when, str(error)))
            continue
        if analysis is None:
            continue
        iterations = analysis.level_config.get("iterations")
        budget = iterations if isinstance(iterations, int) else None
        for seat, key in enumerate(keys):
            if not key:
                continue
            found = evidence_of(analysis, seat)
            players[key].games.append(
                GameLevel(
                    past.when,
                    model.key,
                    estimate(
                        model, found.accuracies, found.best, budget, found.kept, table=found.table
                    ),
                    found,
                    budget,
                )
            )
    for key, player in players.items():
        # shown as spelt most often (the earliest of equals: Counter keeps first seen first)
        player.name = spellings[key].most_common(1)[0][0]
    for key, player in players.items():
        player.rivals = [
            HeadToHead(players[h.opponent].name, h.games, h.ahead, h.behind, h.level)
            for h in head_to_head(key, finishes)
            if h.opponent
        ]
        player.pooled = pooled(player.games, model_path, pooling_path)
    return players


def pooled(
    games: Sequence[GameLevel], model_path: Path = MODEL_PATH, pooling_path: Path = POOLING_PATH
) -> dict[str, StrengthEstimate]:
    """The level of ``games`` pooled, per game and player count. Raises
    ``CalibrationError`` for an unreadable model file."""
    out = {}
    for key in sorted({g.key for g in games}):
        mine = [g for g in games if g.key == key]
        game, players = key.rsplit("-", 1)
        model = model_for(game, int(players), model_path)
        if model is None:
            raise CalibrationError(f"no strength model for {key} in {model_path}")
        # a budget the model does not know, if any game used one: the estimate says so
        budget = next(
            (g.iterations for g in mine if g.iterations not in (None, model.analysis_iterations)),
            None,
        )
        out[key] = pooled_estimate(
            model, [g.evidence for g in mine], shared_for(key, pooling_path), budget
        )
    return out
