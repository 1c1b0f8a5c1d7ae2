"""``companion bench strength-games | strength-fit | strength-check``: the games the
strength model learns from, its fit, and its check on games it never saw.

- ``strength-games --set S --seed N --games K`` plays and analyses games of engine
  levels (``engines.search.calibration``) and adds them to
  ``engines/search/strength_games/S-seedN.jsonl`` (a run stopped early keeps what it
  did; running it again goes on from there).
- ``strength-edges --set S --seed N`` adds every judged move's edge
  (``engines.search.edge``) to stored games made before the analysis found edges, by
  replaying their moves (the same games always get the same edges).
- ``strength-fit`` fits each set's model on its fitting games (the seeds of
  ``engines.search.bench_strength.FIT_SEEDS``), and those of the sets it learns from too
  (``engines.search.calibration.FIT_ALSO``), and writes
  ``engines/search/strength_model.json``.
- ``strength-check`` estimates every player of the test games (``TEST_SEED``, never used
  in the fit; ``--seed`` another set of games never fitted on, repeated or ``--seeds
  5,6`` for the games of several seeds together) and compares with the level that
  really played, per view of the game (the whole game, joined at its middle, its last
  20 moves) and per level, with the players of each level; and every seat of the test
  tables where everyone plays at random (``RANDOM_TABLES``). A fitting seed is refused;
  a seed a set's model was tuned on (``TUNING_SEEDS``, ``THIN_COVERAGE_SEEDS``) is
  checked, with a warning line (and ``tuned_on`` in the JSON) that its figures are no
  fair test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from companion.app.analysis_time import time_analysis
from companion.cli import Subparsers, UsageError
from engines.registry import rules_class
from engines.search.analysis import (
    ANALYSIS_ITERATIONS,
    GAME_BUDGETS,
    analysis_budget,
    analysis_config,
    game_config,
)
from engines.search.bench_strength import (
    FIT_SEEDS,
    GAMES_DIR,
    LEAD_SPLIT_SETS,
    TABLE_WEIGHTS,
    TEST_SEED,
    THIN_COVERAGE_SEEDS,
    TUNED_THRESHOLD_SETS,
    TUNING_SEEDS,
    _pool_rows,
    _whole_games_cv,
    check_set,
    fitting_games,
    games_of_seeds,
    games_path,
    marked_fitting_rows,
    random_game,
    random_play_share,
    random_tables_cv,
    tuned_seeds,
)
from engines.search.calibration import (
    EDGE_EVIDENCE_SETS,
    EDGE_SETS,
    FIT_ALSO,
    MIN_FIT_GAMES,
    RANDOM_REFERENCE_SETS,
    RANDOM_TABLES,
    SETS,
    append_game,
    generate,
    options_of,
    read_games,
    with_edges,
)
from engines.search.players import LEVELS
from engines.search.pooling import (
    GROUP_SIZES,
    POOLING_PATH,
    check_pooled,
    entry_json,
    fit_shared_held_out,
    load_shared,
    pooled_groups,
)
from engines.search.strength import (
    COVERAGE,
    MODEL_PATH,
    fit_model,
    load_models,
)

ORDER = 55
"""Where the topics are listed in ``companion bench --help``: after ``policies``."""


def register(bench_sub: Subparsers) -> None:
    games = bench_sub.add_parser(
        "strength-games",
        help="play and analyse games of engine levels for the strength model",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    games.add_argument("--set", required=True, choices=sorted(SETS), dest="set_name")
    games.add_argument(
        "--seed",
        type=int,
        default=FIT_SEEDS[0],
        help=f"fitting games: {', '.join(map(str, FIT_SEEDS))}; test games: {TEST_SEED}",
    )
    games.add_argument(
        "--games", type=int, required=True, help="games the file should hold when done"
    )
    games.add_argument("--folder", type=Path, default=GAMES_DIR)
    games.set_defaults(handler=games_command)

    edges = bench_sub.add_parser(
        "strength-edges",
        help="add the moves' edges to stored games made without them",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    edges.add_argument("--set", required=True, choices=sorted(SETS), dest="set_name")
    edges.add_argument("--seed", type=int, required=True)
    edges.add_argument("--folder", type=Path, default=GAMES_DIR)
    edges.set_defaults(handler=edges_command)

    fit = bench_sub.add_parser(
        "strength-fit",
        help="fit the strength model on the fitting games",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fit.add_argument(
        "--set",
        action="append",
        choices=sorted(SETS),
        dest="sets",
        help="only this set (repeatable; default all with games)",
    )
    fit.add_argument("--folder", type=Path, default=GAMES_DIR)
    fit.add_argument("--output", type=Path, default=MODEL_PATH)
    fit.set_defaults(handler=fit_command)

    test = bench_sub.add_parser(
        "strength-check",
        help="check the strength model on test games it never saw",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    test.add_argument(
        "--set",
        action="append",
        choices=sorted(SETS),
        dest="sets",
        help="only this set (repeatable; default all in the model)",
    )
    test.add_argument("--folder", type=Path, default=GAMES_DIR)
    test.add_argument("--model", type=Path, default=MODEL_PATH)
    test.add_argument(
        "--seed",
        type=int,
        action="append",
        dest="seed_list",
        help=f"the test games' seed (default {TEST_SEED}; never a fitting seed); repeat "
        "it to check the games of several seeds together",
    )
    test.add_argument(
        "--seeds",
        type=_seed_list,
        dest="seed_lists",
        action="append",
        help="test seeds separated by commas (5,6): their games checked together",
    )
    test.add_argument("--json", action="store_true", help="print the figures as JSON")
    test.set_defaults(handler=check_command)

    pool_fit = bench_sub.add_parser(
        "strength-pool-fit",
        help="fit how the strength of several games is pooled",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pool_fit.add_argument("--folder", type=Path, default=GAMES_DIR)
    pool_fit.add_argument("--model", type=Path, default=MODEL_PATH)
    pool_fit.add_argument("--output", type=Path, default=POOLING_PATH)
    pool_fit.set_defaults(handler=pool_fit_command)

    pool_check = bench_sub.add_parser(
        "strength-pool-check",
        help="check the pooled strength of several games on test games",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pool_check.add_argument("--folder", type=Path, default=GAMES_DIR)
    pool_check.add_argument("--model", type=Path, default=MODEL_PATH)
    pool_check.add_argument("--pooling", type=Path, default=POOLING_PATH)
    pool_check.add_argument(
        "--seed",
        type=int,
        default=TEST_SEED,
        help=f"the test games' seed (default {TEST_SEED}; never a fitting seed)",
    )
    pool_check.add_argument("--json", action="store_true", help="print the figures as JSON")
    pool_check.set_defaults(handler=pool_check_command)

    timing = bench_sub.add_parser(
        "analysis-time",
        help="time the analysis of a whole game, from scratch and live",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    timing.add_argument("--game", default="shangrila")
    timing.add_argument("--players", type=int, default=4)
    timing.add_argument(
        "--seed",
        type=int,
        default=5,
        help="the random game's seed (as companion rules demo; default 5)",
    )
    timing.add_argument(
        "--level",
        type=int,
        default=None,
        help="the search budget of this engine level (default: the "
        f"analysis' own, {ANALYSIS_ITERATIONS} iterations a position, "
        f"{GAME_BUDGETS['shenshi'][0]} in ShenShi)",
    )
    timing.add_argument(
        "--workers", type=int, default=2, help="processes of the analysis from scratch (default 2)"
    )
    timing.add_argument(
        "--move-seconds",
        type=float,
        default=0.0,
        help="live: seconds between moves (default 0: each move once "
        "the one before is analysed, players slower than the analysis)",
    )
    timing.add_argument("--json", action="store_true", help="print the figures as JSON")
    timing.set_defaults(handler=timing_command)


def games_command(args: argparse.Namespace) -> int:
    path = games_path(args.set_name, args.seed, args.folder)
    start = len(read_games(path))
    for stored in generate(args.set_name, args.seed, start, args.games):
        append_game(path, stored)
        print(
            f"{args.set_name} seed {args.seed} game {stored.index + 1}/{args.games}: "
            f"levels {list(stored.levels)}, {len(stored.moves)} moves "
            f"({stored.seconds:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    print(f"{path}: {max(start, args.games)} games (seats of levels {SETS[args.set_name][2]})")
    return 0


def edges_command(args: argparse.Namespace) -> int:
    path = games_path(args.set_name, args.seed, args.folder)
    stored = read_games(path)
    if not stored:
        raise UsageError(f"no stored games in {path}")
    found = [with_edges(g, options_of(args.set_name)) if g.record else g for g in stored]
    path.write_text(
        "".join(json.dumps(g.to_json(), separators=(",", ":")) + "\n" for g in found),
        encoding="utf-8",
    )
    without = sum(not g.record for g in stored)
    print(
        f"{path}: edges of {len(stored) - without} games"
        + (f" ({without} stored without their moves keep none)" if without else "")
    )
    return 0


def _sets_with_games(wanted: Sequence[str] | None, folder: Path) -> list[str]:
    """The sets with fitting games that get a model (random tables only help fit one)."""
    return [
        s for s in (wanted or sorted(SETS)) if s not in RANDOM_TABLES and fitting_games(s, folder)
    ]


def _named(set_name: str, folder: Path) -> str:
    """The files of a set's fitting games, with the games each holds."""
    held = [(seed, len(read_games(games_path(set_name, seed, folder)))) for seed in FIT_SEEDS]
    return ", ".join(
        f"{games_path(set_name, seed, GAMES_DIR).name} ({count} games)"
        for seed, count in held
        if count
    )


def fit_command(args: argparse.Namespace) -> int:
    sets = _sets_with_games(args.sets, args.folder)
    if not sets:
        raise UsageError(f"no fitting games in {args.folder}: run strength-games first")
    document: dict[str, Any] = {"models": {}}
    if args.output.exists():
        document = json.loads(args.output.read_text(encoding="utf-8"))
    for set_name in sets:
        games = fitting_games(set_name, args.folder)
        if len(games) < MIN_FIT_GAMES:
            print(
                f"{set_name}: only {len(games)} fitting games, no model (at least "
                f"{MIN_FIT_GAMES}; strength-games goes on where it stopped)"
            )
            continue
        game, players, levels = SETS[set_name]
        rows = marked_fitting_rows(set_name, args.folder)
        cls = rules_class(game)
        options = cls.from_record(cls.default_players(players), options_of(set_name)).options_json()
        iterations, rollout = analysis_budget(game)
        model, cv = fit_model(
            set_name,
            rows,
            iterations,
            levels,
            1.0 / players,
            options,
            set_name in EDGE_SETS,
            set_name in EDGE_EVIDENCE_SETS,
            set_name in RANDOM_REFERENCE_SETS,
            TABLE_WEIGHTS.get(set_name, 1.0),
            set_name in LEAD_SPLIT_SETS,
            set_name in TUNED_THRESHOLD_SETS,
        )
        named, seats = random_tables_cv(model, set_name, args.folder)
        document["models"][set_name] = {
            "command": f"companion bench strength-fit --set {set_name}",
            "made": date.today().isoformat(),
            "fitting_games": ", ".join(
                _named(s, args.folder)
                for s in (set_name, *FIT_ALSO.get(set_name, ()))
                if fitting_games(s, args.folder)
            ),
            "analysis": {"iterations": iterations, "rollout_moves": rollout},
            "cross_validated": cv.to_json(),
            "cross_validated_whole_games": _whole_games_cv(model, rows),
            "cross_validated_random_tables": {"level_0": named, "seats": seats},
            "model": model.to_json(),
        }
        found = document["models"][set_name]["cross_validated_whole_games"]
        print(
            f"{set_name}: {len(games)} games, temperature {model.temperature}, few moves "
            f"{model.few_moves}, level-0 "
            f"threshold {model.random_threshold}; cross-validated on the fitting "
            f"games: range holds the level {100 * cv.coverage:.0f}% (every view); "
            f"whole games: within one {100 * found['within_one']:.0f}%, random play "
            f"level 0 {100 * found['random_play_level_0']:.0f}%; tables where everyone "
            f"plays at random (held out in turn too): {named} of {seats} seats named "
            "level 0"
        )
    document["about"] = (
        "Strength model (engines/search/strength.py), one per game and player count, "
        "fitted by the command given on the games named (engines/search/strength_games). "
        "population: the fitting players' average of each quantity; centre, scale, "
        "weights: the multinomial logistic model over the levels; temperature: the "
        "largest sharpening (above 1) or least widening that makes the ranges hold the level "
        f"{100 * COVERAGE:.0f}% of the "
        "time in cross-validation on the fitting games; random_threshold: the share of "
        "the posterior on level 0 from which level 0 is given, from random_moves "
        "judged moves on; edges: whether the model reads the moves' edges (then the "
        "population's second last entry is the fitting players' mean edge); "
        "random_reference: random play's average of each quantity but the win chance kept, "
        "in ten bins of the win chance kept, when the model compares every move with it "
        "(then the population holds those differences, and not the win chance kept); "
        "lead_split: each level fitted as two classes, the players who led (their best "
        "moves kept more than an even share of win chance on average) and those who did "
        "not (then weights has two columns a level, the trailing half first); "
        "table_weight: how much a player of the tables where every seat plays at random "
        "weighed in the fit; options: the rules options of the fitting games."
    )
    args.output.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    load_models.cache_clear()
    print(f"written to {args.output}")
    return 0


def _test_seed(seed: int) -> int:
    """``seed`` when it is not the fitting games'. Raises UsageError."""
    if seed in FIT_SEEDS:
        raise UsageError(f"seed {seed} holds fitting games: check on games never fitted on")
    return seed


def _seed_list(text: str) -> list[int]:
    """``5,6`` as [5, 6]. Raises argparse.ArgumentTypeError."""
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not seeds separated by commas: {text!r}") from None
    if not seeds:
        raise argparse.ArgumentTypeError("no seed given")
    return seeds


def _test_seeds(args: argparse.Namespace) -> list[int]:
    """The test seeds of ``--seed`` (repeated) and ``--seeds``, each once, in increasing
    order (``TEST_SEED`` when none is given). Raises UsageError for a fitting seed."""
    given = [*(args.seed_list or []), *(s for group in args.seed_lists or [] for s in group)]
    return [_test_seed(seed) for seed in sorted(set(given or [TEST_SEED]))]


def _seeds_text(seeds: Sequence[int]) -> str:
    return f"seed {seeds[0]}" if len(seeds) == 1 else "seeds " + ", ".join(map(str, seeds))


def _tuned_warning(set_name: str, seeds: Sequence[int]) -> str:
    used = sorted({*TUNING_SEEDS.get(set_name, ()), *THIN_COVERAGE_SEEDS})
    return (
        f"WARNING: {set_name}'s model was tuned on the games of {_seeds_text(seeds)} "
        f"(its tuning seeds: {', '.join(map(str, used))}); its figures below count "
        "them, so they are no fair test: check on seeds never used"
    )


def check_command(args: argparse.Namespace) -> int:
    seeds = _test_seeds(args)
    models = load_models(args.model)
    sets = [s for s in (args.sets or sorted(models)) if s in models]
    figures = {}
    games_by_seed: dict[str, dict[str, int]] = {}
    began = time.perf_counter()
    for set_name in sets:
        by_seed = games_of_seeds(set_name, seeds, args.folder)
        for seed, held in by_seed.items():
            if not held and (args.sets or seed == TEST_SEED or len(seeds) > 1):
                raise UsageError(f"no test games of seed {seed} for {set_name} in {args.folder}")
        games = [g for held in by_seed.values() for g in held]
        if not games:
            continue
        games_by_seed[set_name] = {str(seed): len(held) for seed, held in by_seed.items()}
        figures[set_name] = check_set(models[set_name], games)
        for table, base in RANDOM_TABLES.items():
            random_games = [
                g for held in games_of_seeds(table, seeds, args.folder).values() for g in held
            ]
            if base == set_name and random_games:
                figures[set_name]["random_tables"] = [
                    len(random_games),
                    *random_play_share(models[set_name], random_games),
                ]
    tuned = {s: tuned_seeds(s, seeds) for s in figures if tuned_seeds(s, seeds)}
    if args.json:
        print(
            json.dumps(
                {"figures": figures, "seeds": seeds, "games": games_by_seed, "tuned_on": tuned}
            )
        )
        return 0
    for set_name, found in figures.items():
        if set_name in tuned:
            print(_tuned_warning(set_name, tuned[set_name]))
        zero, judged = found["random_play_level_0"]
        right, pairs = found["strong_above_weak"]
        counts = " + ".join(str(n) for n in games_by_seed[set_name].values())
        print(
            f"{set_name}: {found['test_games']} test games ({_seeds_text(seeds)}"
            + (f": {counts}" if len(seeds) > 1 else "")
            + f"); random play judged level 0 in {zero}/{judged} whole games; strong "
            f"player above weak (3+ levels apart) {right}/{pairs} pairs"
        )
        if "random_tables" in found:
            tables, zero, judged = found["random_tables"]
            print(
                f"  tables where every seat plays at random ({tables} games, "
                f"{_seeds_text(seeds)}): judged level 0 in {zero}/{judged} seats"
            )
        print(
            f"  {'view':<6} {'players':>7} {'in range':>8} {'within 1':>8} "
            f"{'exact':>6} {'width':>6} {'too few':>7} {'told not enough':>15}"
        )
        for view, c in found["views"].items():
            told, seats = found["not_enough_moves"][view]
            print(
                f"  {view:<6} {c['tested']:>7} {100 * c['coverage']:>7.0f}% "
                f"{100 * c['within_one']:>7.0f}% {100 * c['exact']:>5.0f}% "
                f"{c['mean_width']:>6.1f} {c['refused']:>7} {100 * told / seats:>14.0f}%"
            )
        for level, c in found["levels"].items():
            few = f" (and {c['refused']} with too few moves)" if c["refused"] else ""
            print(
                f"  level {level} (whole games): {c['tested']} players{few}, in range "
                f"{100 * c['coverage']:.0f}%, within one {100 * c['within_one']:.0f}%"
            )
    print(f"({time.perf_counter() - began:.1f} s)")
    return 0


def pool_fit_command(args: argparse.Namespace) -> int:
    models = load_models(args.model)
    document: dict[str, Any] = {"models": {}}
    for key, model in sorted(models.items()):
        if not fitting_games(key, args.folder):
            continue
        rows = marked_fitting_rows(key, args.folder)
        shared, fitted = fit_shared_held_out(model, rows)
        document["models"][key] = entry_json(
            shared,
            fitted,
            ", ".join(
                _named(s, args.folder)
                for s in (key, *FIT_ALSO.get(key, ()))
                if fitting_games(s, args.folder)
            ),
            "companion bench strength-pool-fit",
        )
        print(
            f"{key}: shared fraction {shared}; on the fitting games, each under a "
            f"model fitted without it ({fitted.tested} pooled groups), the range holds "
            f"the level "
            f"{100 * fitted.coverage:.0f}%, within one {100 * fitted.within_one:.0f}%"
        )
    if not document["models"]:
        raise UsageError(f"no fitting games in {args.folder}")
    document["about"] = (
        "Pooling of a player's games (engines/search/pooling.py): per strength model, "
        "the shared fraction of a player's games (their correlation), the smallest "
        "whose pooled ranges hold the true level "
        f"{100 * COVERAGE:.0f}% of the time on "
        "the fitting games, each pooled under a model of the shipped kind fitted "
        "without it (whole games, a level's players by 2, 3 and 5 games, each number of "
        "games on its own)."
    )
    args.output.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    load_shared.cache_clear()
    print(f"written to {args.output}")
    return 0


def pool_check_command(args: argparse.Namespace) -> int:
    seed = _test_seed(args.seed)
    models = load_models(args.model)
    shares = load_shared(args.pooling)
    figures: dict[str, Any] = {}
    for key, shared in sorted(shares.items()):
        if key not in models:
            continue
        rows = _pool_rows(models[key], games_path(key, seed, args.folder))
        if not rows:
            if seed == TEST_SEED:
                raise UsageError(f"no test games for {key} in {args.folder}")
            continue
        figures[key] = {"shared": shared, "games": {}}
        for size in (1, *GROUP_SIZES):
            found = check_pooled(models[key], pooled_groups(rows, (size,)), shared)
            figures[key]["games"][str(size)] = found.to_json()
    if args.json:
        print(json.dumps({"figures": figures}))
        return 0
    for key, found in figures.items():
        print(
            f"{key}: test games (seed {seed}), whole games, a level's players "
            f"pooled by k games (shared {found['shared']})"
        )
        print(f"  {'k':>3} {'groups':>6} {'in range':>8} {'within 1':>8} {'width':>6}")
        for size, c in found["games"].items():
            print(
                f"  {size:>3} {c['tested']:>6} {100 * c['coverage']:>7.0f}% "
                f"{100 * c['within_one']:>7.0f}% {c['mean_width']:>6.1f}"
            )
    return 0


def timing_command(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.level is not None and args.level not in LEVELS:
        raise UsageError(f"--level must be one of {sorted(LEVELS)}")
    try:
        record = random_game(args.game, args.players, args.seed)
    except (KeyError, ValueError) as error:
        raise UsageError(f"cannot play {args.game} for {args.players}: {error}") from None
    if args.level is None:
        config = game_config(args.game)
    else:
        base = LEVELS[args.level]
        config = analysis_config(base.iterations or ANALYSIS_ITERATIONS, base.rollout_moves)
    found = time_analysis(record, config, args.workers, args.move_seconds)
    if args.json:
        print(json.dumps(found))
        return 0
    scratch, live = found["scratch"], found["live"]
    pace = (
        f"a move every {live['move_seconds']} s"
        if live["move_seconds"]
        else "each move once the one before was analysed"
    )
    print(
        f"{args.game}, {args.players} players, random game of seed {args.seed}: "
        f"{found['moves']} moves, {found['iterations']} iterations a position "
        f"(load before: {found['load_before']})"
    )
    print(
        f"from scratch on {scratch['workers']} processes: {scratch['wall']:.1f} s wall, "
        f"{scratch['cpu']:.1f} s processor (load after: {scratch['load']})"
    )
    mean = (
        ""
        if live["mean_move"] is None
        else (
            f"; a move took {live['mean_move']:.2f} s on average, "
            f"{live['slowest_move']:.2f} s at most"
        )
    )
    print(
        f"live on one thread ({pace}): the report {live['after_last_move']:.2f} s after "
        f"the last move; {live['cpu']:.1f} s processor in all{mean} "
        f"(load after: {live['load']})"
    )
    print("live and from scratch give the same analysis: " + ("yes" if found["same"] else "NO"))
    return 0
