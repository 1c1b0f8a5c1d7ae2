"""A player's strength over several games: each game's level with its range, the
level of all their games pooled, and how they finished against each player they met.

**Pooling.** Under the strength model (``engines.search.strength``) each game gives
the log-odds of each level. Over several games of one player the games are not
independent witnesses: whatever makes this player's games look unlike the model's
average (how they play, what the model gets wrong about games like theirs) does not
average out over their games. With a *shared* fraction ``c`` (the correlation between a
player's games), ``k`` games weigh as ``k / (1 + c (k - 1))`` independent ones: each
game's log-odds count ``1 / (1 + c (k - 1))`` times, are added up, and the model's
widening (its ``temperature``, and its ``few_moves`` for the judged moves the games
are worth: all of them, counted ``1 / (1 + c (k - 1))`` times too) then gives the
pooled posterior, its level and the narrowest run of levels holding ``COVERAGE`` of
it. One game pooled alone gives that game's estimate whatever ``c``.

The shared fraction is fitted (``fit_shared_held_out``) on the strength model's fitting
games, each pooled under a model of the shipped model's kind fitted without it
(``fold_models``): the smallest whose pooled ranges (a level's players in groups of
``GROUP_SIZES`` games) hold the true level ``COVERAGE`` of the time, for each number
of games; the test games check it. Pooling assumes
the player kept one level over the games pooled; each game's own estimate shows whether
they did. Games of another game or player count have another model: they are pooled
apart.

**Head to head.** Of two players who sat at the same finished game, the one with the
higher score finished ahead; equal scores are told by the winners (a winner is ahead of
a player who did not win), else neither finished ahead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from engines.search.strength import (
    COVERAGE,
    FOLDS,
    MIN_MOVES,
    CalibrationError,
    Check,
    Evidence,
    Labelled,
    StrengthEstimate,
    StrengthModel,
    fit_logistic,
    summarise,
)

SHARED_FRACTIONS: tuple[float, ...] = (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)
"""Candidate shares of the game variance that a player's games have in common."""
GROUP_SIZES: tuple[int, ...] = (2, 3, 5)
"""Games pooled per player in the fit and the check."""
POOLING_PATH = Path(__file__).with_name("pooling_model.json")


def pooled_posterior(
    model: StrengthModel, games: Sequence[Evidence], shared: float = 0.0
) -> dict[int, float]:
    """Probability of each level given every game of ``games``, a ``shared`` fraction
    of what sets a game apart being common to them (uniform without a judged move)."""
    played = [evidence for evidence in games if evidence.moves >= 1]
    if not played:
        return {level: 1.0 / len(model.levels) for level in model.levels}
    weight = 1.0 / (1.0 + shared * (len(played) - 1))
    total = np.sum([model.logits(evidence) for evidence in played], axis=0)
    return model.posterior_of(weight * total, weight * sum(e.moves for e in played))


def pooled_estimate(
    model: StrengthModel,
    games: Sequence[Evidence],
    shared: float = 0.0,
    analysis_iterations: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> StrengthEstimate:
    """The level of all ``games`` pooled (one player's evidence per game, of the
    model's game and player count; ``shared`` as ``pooled_posterior``), by analyses of
    ``analysis_iterations`` a position and of games of the rules ``options`` when given.
    Fewer than ``MIN_MOVES`` judged moves in all give no level."""
    moves = sum(e.moves for e in games)
    return summarise(
        model, pooled_posterior(model, games, shared), moves, analysis_iterations, options, "these"
    )


# ---------------------------------------------------------------------- fitting


def pooled_groups(
    rows: Sequence[Labelled], sizes: Sequence[int] = GROUP_SIZES
) -> list[tuple[int, list[Evidence]]]:
    """(level, evidence of that many games) of each level's players taken in turn in
    groups of each of ``sizes`` games: the first player of that level of each game in
    order, then the second, so that a group's games differ (players with fewer than
    ``MIN_MOVES`` judged moves left out)."""
    by_level: dict[int, list[tuple[int, int, Evidence]]] = {}
    for row in rows:
        if row.evidence.moves >= MIN_MOVES:
            mine = by_level.setdefault(row.level, [])
            nth = sum(1 for _, g, _ in mine if g == row.group)
            mine.append((nth, row.group, row.evidence))
    groups = []
    for size in sizes:
        for level, players in sorted(by_level.items()):
            found = [e for _, _, e in sorted(players, key=lambda p: (p[0], p[1]))]
            for i in range(0, len(found) - size + 1, size):
                groups.append((level, found[i : i + size]))
    return groups


def check_pooled(
    model: StrengthModel, groups: Sequence[tuple[int, list[Evidence]]], shared: float
) -> Check:
    """Pooled estimates of ``groups`` (``pooled_groups``) against their true level."""
    tested = hits = near = exact = width = 0
    for level, games in groups:
        found = pooled_estimate(model, games, shared)
        if found.level is None:
            continue
        tested += 1
        hits += found.low <= level <= found.high
        near += abs(found.level - level) <= 1
        exact += found.level == level
        width += found.high - found.low
    if not tested:
        return Check(0, 0.0, 0.0, 0.0, 0.0, len(groups))
    return Check(
        tested, hits / tested, near / tested, exact / tested, width / tested, len(groups) - tested
    )


def fit_shared(
    model: StrengthModel, groups: Sequence[tuple[int, list[Evidence]]]
) -> tuple[float, Check]:
    """The smallest shared fraction whose pooled ranges of ``groups`` hold the true
    level ``COVERAGE`` of the time for every number of games pooled (else the
    largest), and its check of them all."""
    sizes = sorted({len(games) for _, games in groups})
    by_size = [[g for g in groups if len(g[1]) == size] for size in sizes]
    found = None
    for shared in SHARED_FRACTIONS:
        found = (shared, check_pooled(model, groups, shared))
        if all(check_pooled(model, part, shared).coverage >= COVERAGE for part in by_size):
            break
    assert found is not None
    return found


def fold_models(
    model: StrengthModel, rows: Sequence[Labelled]
) -> list[tuple[StrengthModel, list[Labelled]]]:
    """(a model fitted without them, the whole games' rows) of each fold of ``rows``'s
    games (folds of whole games, as the strength model's own fit): each fold model of
    ``model``'s kind, as ``engines.search.strength.fit_model`` makes it (the moves'
    edges and their likelihood, the comparison with random play, the random tables'
    weight, the levels split by the lead; ``model``'s temperature and level-0 rule),
    learning from every view of the other folds' rows, borrowed rows in every fold
    (``Labelled.borrowed``); rows of tuning games (``Labelled.tuning``) are neither
    learned from nor pooled."""
    folds: list[list[Labelled]] = [[] for _ in range(FOLDS)]
    borrowed = [r for r in rows if r.borrowed and not r.tuning]
    for row in rows:
        if not row.borrowed and not row.tuning:
            folds[row.group % FOLDS].append(row)
    found = []
    for k in range(FOLDS):
        train = [r for j, fold in enumerate(folds) if j != k for r in fold] + borrowed
        if not folds[k] or not train:
            continue
        fitted = fit_logistic(
            model.key,
            train,
            model.levels,
            model.even_share,
            model.analysis_iterations,
            model.options,
            model.edges,
            bool(model.edge_shift),
            bool(model.random_reference),
            model.table_weight,
            model.lead_split,
        )
        held = replace(
            fitted,
            temperature=model.temperature,
            random_threshold=model.random_threshold,
            few_moves=model.few_moves,
            random_moves=model.random_moves,
        )
        found.append((held, [r for r in folds[k] if r.view == "full"]))
    return found


def fit_shared_held_out(
    model: StrengthModel, rows: Sequence[Labelled], sizes: Sequence[int] = GROUP_SIZES
) -> tuple[float, Check]:
    """As ``fit_shared``, but each game's players are pooled under a model fitted
    without that game (``fold_models``): the smallest shared fraction whose pooled
    ranges hold the true level ``COVERAGE`` of the time on games the model did not
    learn from, for each of ``sizes`` games pooled (else the largest), and its check
    of them all. Over all sizes together the few groups of the most games weigh
    little: three-player Shangri-La's ranges held the level 90.2% of the time with
    nothing shared, but over five games only 82.4%."""
    folds = fold_models(model, rows)
    found: tuple[float, Check] | None = None
    for shared in SHARED_FRACTIONS:
        by_size = [
            _summed(
                [check_pooled(held, pooled_groups(whole, (size,)), shared) for held, whole in folds]
            )
            for size in sizes
        ]
        found = (shared, _summed(by_size))
        if all(c.coverage >= COVERAGE for c in by_size):
            break
    assert found is not None
    return found


def _summed(checks: Sequence[Check]) -> Check:
    """One check of the groups of ``checks`` together."""
    tested = sum(c.tested for c in checks)
    return Check(
        tested,
        sum(c.coverage * c.tested for c in checks) / max(1, tested),
        sum(c.within_one * c.tested for c in checks) / max(1, tested),
        sum(c.exact * c.tested for c in checks) / max(1, tested),
        sum(c.mean_width * c.tested for c in checks) / max(1, tested),
        sum(c.refused for c in checks),
    )


@cache
def load_shared(path: Path = POOLING_PATH) -> dict[str, float]:
    """The shared fraction of each model (``game-players``). Raises
    ``CalibrationError`` for a missing or malformed file."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CalibrationError(f"cannot read the pooling model {path}: {error}") from None
    try:
        found = {str(key): float(entry["shared"]) for key, entry in document["models"].items()}
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        raise CalibrationError(f"the pooling model {path} is malformed: {error!r}") from None
    if not all(0.0 <= value <= 1.0 for value in found.values()):
        raise CalibrationError(f"the pooling model {path}: shared fractions lie in [0, 1]")
    return found


def shared_for(key: str, path: Path = POOLING_PATH) -> float:
    """The shared fraction of the model ``key``; the largest (the widest ranges) when
    the file has none for it. Raises ``CalibrationError`` for an unreadable file."""
    return load_shared(path).get(key, SHARED_FRACTIONS[-1])


def entry_json(shared: float, fitted: Check, games: str, command: str) -> dict[str, Any]:
    """A model's entry in the pooling file."""
    return {
        "shared": shared,
        "fitting_games": games,
        "command": command,
        "fitted": fitted.to_json(),
    }


# ---------------------------------------------------------------------- head to head


@dataclass(frozen=True)
class Finish:
    """One finished game: who sat at it, their scores and the winners (by seat)."""

    names: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class HeadToHead:
    """How a player finished against one opponent over the finished games they shared."""

    opponent: str
    games: int
    ahead: int
    behind: int
    level: int
    """Games where neither finished ahead of the other."""


def ahead_of(finish: Finish, me: int, other: int) -> int:
    """1 when seat ``me`` finished ahead of seat ``other``, -1 behind, 0 level."""
    a, b = finish.scores[me], finish.scores[other]
    if a != b:
        return 1 if a > b else -1
    mine, theirs = me in finish.winners, other in finish.winners
    return 0 if mine == theirs else (1 if mine else -1)


def head_to_head(name: str, finishes: Sequence[Finish]) -> list[HeadToHead]:
    """``name``'s record against everyone they sat with in ``finishes``, most games
    first (then by name). A name met twice at one table is each seat's."""
    tally: dict[str, list[int]] = {}
    for finish in finishes:
        seats = [i for i, n in enumerate(finish.names) if n == name]
        for me in seats:
            for other, opponent in enumerate(finish.names):
                if other == me or opponent == name:
                    continue
                row = tally.setdefault(opponent, [0, 0, 0, 0])
                result = ahead_of(finish, me, other)
                row[0] += 1
                row[1 if result > 0 else 2 if result < 0 else 3] += 1
    return sorted(
        (HeadToHead(opponent, *row) for opponent, row in tally.items()),
        key=lambda h: (-h.games, h.opponent),
    )
