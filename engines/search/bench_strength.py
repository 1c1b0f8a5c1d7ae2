"""The games the strength model learns from and is checked on, and the measures of
``companion bench strength-games | strength-fit | strength-check | strength-pool-*``."""

from __future__ import annotations

import resource
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from engines import GameRecord
from engines.dice import Dice
from engines.record import new_record
from engines.registry import rules_class
from engines.search.calibration import (
    FIT_ALSO,
    RANDOM_TABLES,
    SETS,
    VIEWS,
    StoredGame,
    evidence_of,
    labelled,
    read_games,
)
from engines.search.strength import (
    MIN_MOVES,
    FloatArray,
    Labelled,
    StrengthModel,
    check,
    estimate_evidence,
    held_out_logits,
    random_share,
)

GAMES_DIR = Path(__file__).resolve().parent / "strength_games"


FIT_SEEDS: tuple[int, ...] = (1, 2, 3, 4, 100)
"""The seeds of the fitting games: 1 first, then 2, 3 and 4 (made as test games of
earlier models, fitted on since), and 100 (tables where every seat plays at random, made
for the fit; Shendao's 20 first, 40 more later, when its fitting random tables were all
named level 0 in cross-validation but 92% of the fresh ones)."""
TEST_SEED = 5
"""The seed of the test games, made after the models were fitted and checked once."""
TABLE_WEIGHTS: dict[str, float] = {"shenshi-2": 4.0, "shangrila-4": 4.0}
"""How much a player of the fitting tables where every seat plays at random weighs in a
set's fit against one of its mixed tables (1 when not named). Such tables are few (10
to 60 games a set against 100 to 280 mixed), and their winner, given the lead by the
others' moves, is the random player most often named a stronger level. Chosen among
1, 2, 3, 4 and 8 by cross-validation on the fitting games, the random tables held out
in turn, whole games, with ``LEAD_SPLIT_SETS``: ShenShi's random tables' seats named
level 0 21, 22, 23 and 23 of 24 at 1, 3, 4 and 8, the level within one 83.5%, 83.7%,
83.7% and 84.7%. Three-player Shangri-La's 27, 28, 28 and 29 of 30 at 1, 2, 3 and 4,
but the level within one 81.3%, 78.7%, 75.3% and 75.7%: left at 1. Four-player
Shangri-La, not split: 53, 56, 57, 57 and 59 of 60 at 1, 2, 3, 4 and 8, the level
within one 80.1%, 78.9%, 80.7%, 80.6% and 80.0%, random play at tables of engines named
level 0 95.6%, 95.6%, 94.9%, 96.3% and 94.9%: 4 (split and weighed 3 or 4 times it named
59 of 60, but on its test games of seed 5, seen before, random play at tables of
engines was named level 0 17 times in 19, below the held-out check's nine in ten;
unsplit at 4, 18 in 19). Shendao: 1 (114, 114, 116 and 116 of its 120 seats at 1, 2,
3 and 4, the level within one 83.2%, 82.9%, 80.7% and 79.3%)."""
LEAD_SPLIT_SETS: frozenset[str] = frozenset({"shangrila-3", "shenshi-2"})
"""Sets whose model fits each level as two classes, the players who led and those who
did not (``engines.search.strength.StrengthModel.lead_split``). Chosen by
cross-validation on the fitting games, whole games: three-player Shangri-La's random
tables' seats named level 0 26 -> 27 of 30 and the level within one 79.0% -> 81.3%;
with ``TABLE_WEIGHTS`` ShenShi's 21 -> 23 of 24 (within one 82.9% -> 83.7%). Not
four-player Shangri-La (see ``TABLE_WEIGHTS``), nor Shendao: on its 60 fitting random
tables split named 116 of 120 seats level 0 instead of 114 (within one 82.1% instead
of 83.2%), but without the win chances known (an even share assumed) it named a player
of 90% accurate moves, 60% of them best, no higher than one of 40%, 10% best."""
TUNING_SEEDS: dict[str, tuple[int, ...]] = {
    "shangrila-3": (5, 8, 9, 10),
    "shangrila-4": (5, 8, 9, 10),
}
"""Per set, the seeds of games never fitted on on which its level-0 rule is chosen
(``engines.search.strength.tune_random``): the set's own games and its tables where
every seat plays at random (``RANDOM_TABLES``) of those seeds, whole and joined at the
middle. Three-player Shangri-La's mixed fitting games were stored without their moves,
so the cross-validation judges them without the edges every new analysis reads: there
the level-0 rule it chose named 171 of the 180 random tables' seats of seeds 8, 9 and
10 level 0, and placed players joined at the middle within one of their level 75% of
the time. Four-player Shangri-La chooses there only the judged moves from which level
0 is named (``TUNED_THRESHOLD_SETS``). These games were test games of earlier models
(seen, never fitted on); since the rule is chosen on them they are no longer a fair
test of these sets."""
TUNED_THRESHOLD_SETS: frozenset[str] = frozenset({"shangrila-3"})
"""Sets of ``TUNING_SEEDS`` whose tuning games choose the level-0 threshold too; the
others keep the cross-validated threshold and choose there only from how many judged
moves it names level 0. Four-player Shangri-La's cross-validation judges whole games
only, where every player had 28 or more judged moves: any count up to 15 did the same
there and it kept 15, so a player seen from the middle of a game (12 to 21 judged
moves) was named level 0 as soon as it held a fifth of the chance, and players of
levels 2 and 3 were named level 0 with them: on the fitting games, cross-validated,
placed within one of their level 72.9% of the time from the middle (80.7% from 25
judged moves, whole games unchanged at 80.6%). Choosing the threshold on the tuning
games too took it down to 0.15 (random tables' seats named level 0 57 -> 59 of 60 in
the cross-validation), but whole games fell to 76.4% within one there, and to 77% on
the test games of seed 5."""
THIN_COVERAGE_SEEDS: tuple[int, ...] = (5, 6, 7, 8, 9, 10, 11, 12)
"""The seeds of the games, never fitted on, on which the share of the posterior the
ranges of few moves hold was chosen, for every set
(``engines.search.strength.THIN_COVERAGE``): no longer a fair test of the ranges."""


def tuned_seeds(set_name: str, seeds: Sequence[int]) -> list[int]:
    """The seeds of ``seeds`` whose games of ``set_name`` took part in a choice of its
    model (``TUNING_SEEDS``, ``THIN_COVERAGE_SEEDS``): figures on them are no fair
    test, in increasing order."""
    used = {*TUNING_SEEDS.get(set_name, ()), *THIN_COVERAGE_SEEDS}
    return sorted(set(seeds) & used)


STRONG_GAP = 3
"""``strong_above_weak``: levels a strong player sits above a weak one (level 0 or 1)."""


def games_path(set_name: str, seed: int, folder: Path = GAMES_DIR) -> Path:
    return folder / f"{set_name}-seed{seed}.jsonl"


def games_of_seeds(
    set_name: str, seeds: Sequence[int], folder: Path = GAMES_DIR
) -> dict[int, list[StoredGame]]:
    """The stored games of ``set_name`` of every seed of ``seeds`` (none for a seed
    without a file), by seed."""
    return {seed: read_games(games_path(set_name, seed, folder)) for seed in seeds}


def marked_fitting_rows(set_name: str, folder: Path = GAMES_DIR) -> list[Labelled]:
    """``fitting_rows`` of ``set_name`` with the players of tables where every seat
    plays at random marked (``Labelled.random_table``)."""
    levels = SETS[set_name][2]
    rows = labelled(fitting_games(set_name, folder), VIEWS, levels)
    for other in FIT_ALSO.get(set_name, ()):
        offset = 1 + max((r.group for r in rows), default=0)
        rows += [
            replace(r, group=r.group + offset, borrowed=True, random_table=other in RANDOM_TABLES)
            for r in labelled(fitting_games(other, folder), VIEWS, levels)
        ]
    return rows + tuning_rows(set_name, folder, 1 + max((r.group for r in rows), default=0))


def tuning_rows(set_name: str, folder: Path = GAMES_DIR, first_group: int = 0) -> list[Labelled]:
    """The rows of the games of ``TUNING_SEEDS`` of ``set_name`` (its own and its random
    tables'), marked ``Labelled.tuning`` (never fitted on; they choose the level-0 rule
    only), their groups from ``first_group`` on; none for a set without such seeds."""
    seeds = TUNING_SEEDS.get(set_name, ())
    levels = SETS[set_name][2]
    tables = [t for t, base in RANDOM_TABLES.items() if base == set_name]
    rows: list[Labelled] = []
    for source in (set_name, *tables):
        games = [g for held in games_of_seeds(source, seeds, folder).values() for g in held]
        offset = first_group + len({r.group for r in rows})
        rows += [
            replace(r, group=r.group + offset, tuning=True, random_table=source in RANDOM_TABLES)
            for r in labelled(games, VIEWS, levels)
        ]
    return rows


def fitting_games(set_name: str, folder: Path = GAMES_DIR) -> list[StoredGame]:
    """The fitting games of ``set_name``: those of every seed of ``FIT_SEEDS``."""
    return [g for seed in FIT_SEEDS for g in read_games(games_path(set_name, seed, folder))]


def _held_out(model: StrengthModel, rows: Sequence[Labelled]) -> list[tuple[Labelled, FloatArray]]:
    """``held_out_logits`` of ``rows`` with ``model`` 's levels and choices."""
    return held_out_logits(
        rows,
        model.levels,
        model.even_share,
        model.edges,
        bool(model.edge_shift),
        bool(model.random_reference),
        model.table_weight,
        model.lead_split,
    )


def _whole_games_cv(model: StrengthModel, rows: Sequence[Labelled]) -> dict[str, float]:
    """Within one and random play judged level 0 on the whole games of ``rows``,
    cross-validated as in the fit."""
    out = _held_out(model, rows)
    items = [(r.level, r.evidence.moves, logits) for r, logits in out if r.view == "full"]
    near = [
        abs(model.point(model.posterior_of(x, n), n) - lv) <= 1
        for lv, n, x in items
        if n >= MIN_MOVES
    ]
    return {
        "within_one": round(sum(near) / max(1, len(near)), 3),
        "random_play_level_0": round(random_share(model, items), 3),
    }


def random_tables_cv(
    model: StrengthModel, set_name: str, folder: Path = GAMES_DIR
) -> tuple[int, int]:
    """(seats named level 0, seats with an estimate) of the fitting random tables of
    ``set_name``'s game and player count that its model learns from (``FIT_ALSO``),
    whole games, each judged by a model fitted without its game: those tables held out
    in turn like the set's own games (in the fit they are only learned from, never
    judged); the other sets' games, random tables of another player count too, are
    fitted on in every fold."""
    levels = SETS[set_name][2]
    rows = labelled(fitting_games(set_name, folder), VIEWS, levels)
    tables: set[int] = set()
    for other in FIT_ALSO.get(set_name, ()):
        offset = 1 + max((r.group for r in rows), default=0)
        found = labelled(fitting_games(other, folder), VIEWS, levels)
        own = RANDOM_TABLES.get(other) == set_name
        if own:
            tables.update(r.group + offset for r in found)
        rows += [
            replace(
                r,
                group=r.group + offset,
                borrowed=not own,
                random_table=other in RANDOM_TABLES,
            )
            for r in found
        ]
    out = _held_out(model, rows)
    named = [
        model.point(model.posterior_of(x, r.evidence.moves), r.evidence.moves) == model.levels[0]
        for r, x in out
        if r.group in tables and r.view == "full" and r.evidence.moves >= MIN_MOVES
    ]
    return sum(named), len(named)


def random_play_share(model: StrengthModel, games: Sequence[StoredGame]) -> tuple[int, int]:
    """(level-0 seats of whole games estimated at level 0, level-0 seats with an
    estimate)."""
    rows = labelled(games, ("full",), [0])
    found = [estimate_evidence(model, r.evidence) for r in rows]
    judged = [f for f in found if f.level is not None]
    return sum(f.level == 0 for f in judged), len(judged)


def strong_above_weak(model: StrengthModel, games: Sequence[StoredGame]) -> tuple[int, int]:
    """(pairs ranked right, pairs): every pair of seats at one table of whole games, one
    of level 0 or 1 and the other ``STRONG_GAP`` or more levels above it, ranked right
    when the stronger one's expected level is the higher."""
    right = pairs = 0
    for stored in games:
        found = [
            estimate_evidence(model, evidence_of(stored, seat))
            for seat in range(len(stored.levels))
        ]
        for strong, high in enumerate(stored.levels):
            for weak, low in enumerate(stored.levels):
                if low > 1 or high - low < STRONG_GAP:
                    continue
                pairs += 1
                right += (found[strong].expected or 0.0) > (found[weak].expected or 0.0)
    return right, pairs


def check_set(model: StrengthModel, games: Sequence[StoredGame]) -> dict[str, Any]:
    """The test figures of one set: per view, per level of whole games, random play,
    strong players above weak ones at one table."""
    levels = model.levels
    views = {view: check(model, labelled(games, (view,), levels)).to_json() for view in VIEWS}
    full = labelled(games, ("full",), levels)
    per_level = {}
    for level in model.levels:
        rows: list[Labelled] = [r for r in full if r.level == level]
        per_level[str(level)] = check(model, rows).to_json()
    zero, judged = random_play_share(model, games)
    told = {}
    for view in VIEWS:
        rows = labelled(games, (view,), levels)
        found = [estimate_evidence(model, r.evidence) for r in rows]
        told[view] = [sum(f.level is None or f.whole_scale for f in found), len(found)]
    return {
        "test_games": len(games),
        "views": views,
        "levels": per_level,
        "random_play_level_0": [zero, judged],
        "not_enough_moves": told,
        "strong_above_weak": list(strong_above_weak(model, games)),
    }


def _pool_rows(model: StrengthModel, path: Path) -> list[Labelled]:
    return labelled(read_games(path), ("full",), model.levels)


def random_game(game: str, players: int, seed: int) -> GameRecord:
    """The game of uniformly random moves ``companion rules demo`` plays for ``seed``."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(players), {})
    state = rules.initial_state()
    record = new_record(rules)
    dice = Dice(seed)
    while not state.is_over():
        move = state.random_move(dice)
        record.moves.append(rules.format_move(move))
        state.play(move)
    return record


def _processor_seconds() -> float:
    """Processor time of this process and of its finished child processes."""
    mine, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])
    except OSError:
        return "unknown"
