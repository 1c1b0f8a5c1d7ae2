"""``companion bench referee``: the referee on simulated tables, against the truth.

Random legal games (``engines.Dice``, seeded; ShenShi's turns drawn as its playouts
draw them, ``Handling.random_move``) are played on a simulated table
(``companion.simulator``) with readings that flicker, hands, pauses, changes of mind and
injected illegal moves, each into a fresh ``Referee``. The figures: moves recognised
exactly, false illegal-move flags per 1,000 moves, injected illegal moves caught,
questions per game, and the verdict time.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from companion.cli import UsageError
from companion.referee.core import Referee, RefereeConfig
from companion.simulator import TableConfig, TableSimulator, referee_game
from companion.simulator.config import VIEWS
from companion.simulator.scoring import GameScore, totals
from engines import rules_class

PLAYER_COUNTS = {"shangrila": (4, 3), "shendao": (2,), "shenshi": (2, 3, 4)}
"""Player counts per game, taken in turn game after game."""
DRAWN_SETUP = {"shenshi"}
"""Games whose setup is drawn from the rules' ``seed`` option (ShenShi's tiles): each
simulated game draws its own, from its game seed."""

BENCH_TABLE = TableConfig(
    frames_per_step=3,
    settle_frames=4,
    reach_frames=3,
    hands=0.3,
    pause=0.1,
    bridge_first=0.5,
    change_of_mind=0.05,
    illegal=0.05,
    flicker_sure=0.5,
)
"""The simulated table of the benchmark; ``flicker`` and ``unsure`` are set per run to
the flicker rate asked for (so at 1%, 1% of readings are wrong for a frame and another 1%
are right but unsure)."""


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = bench_sub.add_parser(
        "referee",
        help="the referee on simulated tables: recognition, false alarms, "
        "illegal moves caught, questions, verdict time",
        description="Play random legal games on a simulated table (pieces moved one at a "
        "time, readings that flicker, hands, pauses, changes of mind, illegal attempts "
        "and their repair) into a fresh referee per game, and compare every verdict with "
        "the truth. Runs for minutes: progress goes to stderr.",
    )
    parser.add_argument(
        "--games", type=int, default=200, help="games per flicker rate (default 200)"
    )
    parser.add_argument(
        "--flicker",
        type=float,
        nargs="+",
        default=[0.01, 0.05],
        metavar="RATE",
        help="share of readings wrong for one frame (default 0.01 0.05)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--game",
        default="shangrila",
        choices=sorted(PLAYER_COUNTS),
        help="the game (default shangrila)",
    )
    parser.add_argument(
        "--sources",
        nargs="+",
        default=["camera"],
        choices=["camera", "sensors"],
        help="what reads the table (default: camera)",
    )
    parser.add_argument(
        "--stable-frames",
        type=int,
        default=RefereeConfig.stable_frames,
        help="the referee's debouncing: frames in a row an element must "
        f"read the same (default {RefereeConfig.stable_frames})",
    )
    parser.add_argument(
        "--clock",
        default="wall",
        choices=sorted(CLOCKS),
        help="how verdict times are measured: wall (default) or cpu, the "
        "processor time of this process alone (a shared machine's waiting "
        "for a core left out)",
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="keep what the table hides part by part (Shangri-La: village "
        "by village) instead of as whole games (RefereeConfig.parts)",
    )
    parser.add_argument(
        "--gap",
        type=float,
        default=0.0,
        metavar="RATE",
        help="share of moves after which the table goes unseen for a few "
        "moves (a cable pulled, a paused camera; default 0)",
    )
    parser.add_argument(
        "--gap-moves",
        type=int,
        nargs=2,
        default=[2, 2],
        metavar=("LOW", "HIGH"),
        help="how many moves a gap lasts (default 2 2)",
    )
    parser.add_argument(
        "--gap-hidden",
        action="store_true",
        help="during a gap the readers see a hand over the whole table rather than nothing",
    )
    parser.add_argument(
        "--unsure",
        type=float,
        metavar="RATE",
        help="share of right readings the camera marks unsure (default: "
        "the flicker rate); with --flicker-sure, the error rates a reader "
        "was measured at (companion bench appearance)",
    )
    parser.add_argument(
        "--flicker-sure",
        type=float,
        metavar="SHARE",
        help=f"share of wrong readings given with a sure confidence "
        f"(default {BENCH_TABLE.flicker_sure})",
    )
    parser.add_argument(
        "--readers",
        default="flicker",
        choices=READERS,
        help="how the camera reads: flicker (default; the flat rates of "
        "--flicker, --unsure and --flicker-sure) or fitted (each element "
        "read as often right, wrong, unsure or not shown as the game's "
        "fitted reader was measured to be, companion bench "
        "reader-errors; --flicker is then not used)",
    )
    parser.add_argument(
        "--chances",
        default="without",
        choices=CHANCES,
        help="with --readers fitted: whether each camera reading carries "
        "the chance of every value (without: the default; with; both: "
        "one run each)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rules option for every game (a JSON value: "
        "--option orange_lifts=1 --option lift_put_down="
        "'\"also-orange-square\"' make ShenShi's turns fewer and its "
        "games quicker to referee); may be repeated",
    )
    parser.add_argument(
        "--view",
        default="above",
        choices=VIEWS,
        help="where the camera looks from: above (default; no stack "
        "heights) or 55 degrees, reading the heights of the stacks "
        "whose side shows, as often and as well as measured "
        "(TableConfig.side_heights)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=referee_command)
    # the rates ``--readers fitted`` draws from are measured by their own command


READERS = ("flicker", "fitted")
CHANCES = ("without", "with", "both")

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""The clocks verdict times can be measured with (``--clock``)."""


def run(
    game: str,
    games: int,
    flicker: float,
    seed: int,
    table: TableConfig,
    referee: RefereeConfig | None = None,
    progress: bool = False,
    clock: str = "wall",
    unsure: float | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Referee ``games`` simulated games at ``flicker``; the figures (verdict times by
    ``clock``, a key of ``CLOCKS``). ``unsure``: the share of right readings marked
    unsure (default: as many as ``flicker``). A ``table`` whose camera reads by
    measured errors (``camera_errors``) takes neither: its camera's other elements
    read without flicker."""
    cls = rules_class(game)
    counts = PLAYER_COUNTS.get(game, (cls.min_players,))
    if table.camera_errors:
        flicker, unsure = 0.0, 0.0
    config = replace(table, flicker=flicker, unsure=flicker if unsure is None else unsure)
    label = readers_label(config)
    scores: list[GameScore] = []
    start = time.perf_counter()
    for i in range(games):
        drawn = {"seed": seed + i} if game in DRAWN_SETUP else {}
        rules = cls.from_record(
            cls.default_players(counts[i % len(counts)]), {**(options or {}), **drawn}
        )
        simulator = TableSimulator.random(rules, config, seed + i)
        scores.append(referee_game(simulator, Referee(rules, config=referee), clock=CLOCKS[clock]))
        if progress:
            print(f"\r{label}: {i + 1}/{games} games", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    out = figures(scores, flicker, time.perf_counter() - start)
    out["readers"] = label
    return out


def readers_label(table: TableConfig) -> str:
    """How the camera of ``table`` reads, in a few words (a column of the report)."""
    if table.camera_errors:
        where = "fitted" if table.camera_errors == "fitted" else table.camera_errors
        return f"{where}{', chances' if table.camera_chances else ''}"
    return f"flicker {_rate(table.flicker)}"


def figures(scores: list[GameScore], flicker: float, seconds: float) -> dict[str, Any]:
    """The benchmark's figures from the games' scores."""
    sums = totals(scores)
    moves, games = sums["moves"], sums["games"]
    attempts = sum(r.tried for r in sums["rules"].values())
    caught = sum(r.caught for r in sums["rules"].values())
    right = sum(r.right_rule for r in sums["rules"].values())
    repaired = sum(r.repaired for r in sums["rules"].values())
    restored = sum(r.restored for r in sums["rules"].values())
    ms = [x * 1000 for x in sums["latencies"]]

    def share(part: int, whole: int) -> float | None:
        return round(100 * part / whole, 2) if whole else None

    return {
        "flicker": flicker,
        "games": games,
        "moves": moves,
        "recognised_exactly_pct": share(sums["exact"], moves),
        "exact_after_a_question": sums["asked"],
        "revised_by_the_referee": sums["revised"],
        "done_presses": sums["done_presses"],
        "put_right_by_a_person": sums["corrected"],
        "false_flags_per_1000_moves": round(1000 * sums["false_flags"] / moves, 2)
        if moves
        else None,
        "false_flags": sums["false_flags"],
        "flags_while_changing_mind": sums["flags_in_change_of_mind"],
        "changes_of_mind": sums["changes_of_mind"],
        "illegal_attempts": attempts,
        "illegal_caught_pct": share(caught, attempts),
        "illegal_right_rule_pct": share(right, attempts),
        "table_restored_pct": share(restored, repaired),
        "questions_per_game": round(sums["questions"] / games, 2) if games else None,
        "corrections_per_game": round(sums["corrections"] / games, 2) if games else None,
        "record_right_pct": share(sums["record_right"], moves),
        "record_alike_pct": share(sums["record_alike"], moves),
        "left_in_doubt": sums["in_doubt"],
        "gaps": sums["gaps"],
        "gaps_recognised_pct": share(sums["gaps_recognised"], sums["gaps"]),
        "flags_after_a_gap": sums["gap_flags"],
        "verdict_ms": {
            "verdicts": len(ms),
            "median": round(statistics.median(ms), 2) if ms else None,
            "p90": round(ms[int(0.90 * (len(ms) - 1))], 2) if ms else None,
            "p95": round(ms[int(0.95 * (len(ms) - 1))], 2) if ms else None,
            "p99": round(ms[int(0.99 * (len(ms) - 1))], 2) if ms else None,
            "max": round(ms[-1], 2) if ms else None,
        },
        "games_without_correction": sums["games_without_correction"],
        "final_position_right": sums["final_states_right"],
        "rules": {rule: asdict(r) for rule, r in sorted(sums["rules"].items())},
        "seconds": round(seconds, 1),
        "verdict_ms_all": [round(x, 3) for x in ms],
    }


def referee_command(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if any(not 0.0 <= f <= 0.5 for f in args.flicker):
        raise UsageError("--flicker rates must be within 0 and 0.5")
    if args.game not in PLAYER_COUNTS:
        raise UsageError(
            f"no table simulator for {args.game!r} yet (available: {', '.join(PLAYER_COUNTS)})"
        )
    if args.stable_frames < 1:
        raise UsageError("--stable-frames must be at least 1")
    if not 0.0 <= args.gap <= 1.0:
        raise UsageError("--gap must be within 0 and 1")
    if not 2 <= args.gap_moves[0] <= args.gap_moves[1]:
        raise UsageError("--gap-moves must be LOW HIGH with 2 <= LOW <= HIGH")
    for name in ("unsure", "flicker_sure"):
        value = getattr(args, name, None)
        if value is not None and not 0.0 <= value <= 1.0:
            raise UsageError(f"--{name.replace('_', '-')} must be within 0 and 1")
    table = replace(
        BENCH_TABLE,
        sources=tuple(args.sources),
        gap=args.gap,
        view=getattr(args, "view", "above"),
        gap_moves=tuple(args.gap_moves),
        gap_hidden=args.gap_hidden,
    )
    if getattr(args, "flicker_sure", None) is not None:
        table = replace(table, flicker_sure=args.flicker_sure)
    referee = RefereeConfig(stable_frames=args.stable_frames, parts=getattr(args, "parts", False))
    options = _options(getattr(args, "option", []))
    readers = getattr(args, "readers", "flicker")
    if readers == "fitted":
        chances = {"without": [False], "with": [True], "both": [False, True]}[
            getattr(args, "chances", "without")
        ]
        _check_fitted(args.game, table)
        runs = [
            run(
                args.game,
                args.games,
                0.0,
                args.seed,
                replace(table, camera_errors="fitted", camera_chances=c),
                referee,
                progress=True,
                clock=args.clock,
                options=options,
            )
            for c in chances
        ]
    else:
        runs = [
            run(
                args.game,
                args.games,
                f,
                args.seed,
                table,
                referee,
                progress=True,
                clock=args.clock,
                unsure=getattr(args, "unsure", None),
                options=options,
            )
            for f in args.flicker
        ]
    shown = replace(table, camera_errors="fitted") if readers == "fitted" else table
    if args.json:
        print(
            json.dumps(
                {
                    "game": args.game,
                    "seed": args.seed,
                    "options": options,
                    "python": platform.python_version(),
                    "table": shown.to_json(),
                    "referee": referee.to_json(),
                    "clock": args.clock,
                    "runs": runs,
                }
            )
        )
    else:
        print(
            report(
                args.game,
                args.seed,
                shown,
                referee,
                runs,
                args.clock,
                getattr(args, "unsure", None),
            )
        )
    return 0


def _options(texts: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` s as a dict. Raises ``UsageError``."""
    options: dict[str, Any] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise UsageError(f"--option wants NAME=VALUE, not {text!r}")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value  # a plain word
    return options


def _check_fitted(game: str, table: TableConfig) -> None:
    """Raise ``UsageError`` unless the camera can read ``game`` by measured errors."""
    from vision.reader_errors import ReaderErrorsError, load_errors

    if "camera" not in table.sources:
        raise UsageError("--readers fitted is the camera's: add --sources camera")
    try:
        load_errors(game)
    except ReaderErrorsError as error:
        raise UsageError(str(error)) from None


_ROWS = (
    ("moves", "moves", "{}"),
    ("recognised exactly", "recognised_exactly_pct", "{}%"),
    ("  of which after a question", "exact_after_a_question", "{}"),
    ("  revised by the referee itself", "revised_by_the_referee", "{}"),
    ("  needing a 'done' from the player", "done_presses", "{}"),
    ("put right by a person", "put_right_by_a_person", "{}"),
    ("false illegal-move flags / 1,000 moves", "false_flags_per_1000_moves", "{}"),
    ("  of which while changing one's mind", "flags_while_changing_mind", "{}"),
    ("injected illegal moves", "illegal_attempts", "{}"),
    ("  caught", "illegal_caught_pct", "{}%"),
    ("  caught with the rule broken", "illegal_right_rule_pct", "{}%"),
    ("  table restored after the repair", "table_restored_pct", "{}%"),
    ("questions per game", "questions_per_game", "{}"),
    ("corrections per game (by the referee)", "corrections_per_game", "{}"),
    ("moves right in the final record", "record_right_pct", "{}%"),
    ("  or up to what no table can tell", "record_alike_pct", "{}%"),
    ("games needing no correction", "games_without_correction", "{}"),
    ("time (s)", "seconds", "{}"),
)
_GAP_ROWS = (
    ("gaps (moves made unseen)", "gaps", "{}"),
    ("  every move of the gap recognised", "gaps_recognised_pct", "{}%"),
    ("  illegal-move flags after a gap", "flags_after_a_gap", "{}"),
)
"""Rows shown when the table has gaps (``--gap``)."""


def _readings_line(game: str, table: TableConfig, unsure: float | None) -> str:
    """How the camera's readings err, in words."""
    if table.camera_errors:
        from vision.reader_errors import load_errors

        path = None if table.camera_errors == "fitted" else table.camera_errors
        made = load_errors(game, path).provenance.get("command", "")
        return f"readings drawn from the fitted reader's measured errors ({made})"
    return f"{table.flicker_sure:.0%} of wrong readings look sure; " + (
        f"{unsure:.2%} of right readings are unsure"
        if unsure is not None
        else "as many right readings as wrong ones are unsure"
    )


def _rate(rate: float) -> str:
    """A rate as a percentage, with decimals where it is under 1%."""
    return f"{rate:.0%}" if rate == 0 or rate >= 0.01 else f"{rate:.2%}"


def report(
    game: str,
    seed: int,
    table: TableConfig,
    referee: RefereeConfig,
    runs: list[dict[str, Any]],
    clock: str = "wall",
    unsure: float | None = None,
) -> str:
    """The figures as a readable table, one column per flicker rate (or way of
    reading)."""
    games = runs[0]["games"] if runs else 0
    lines = [
        f"companion bench referee: {game}, {games} games per column, seed {seed}; "
        f"referee: {referee.stable_frames} frames to believe a reading, sure from "
        f"{referee.sure}",
        f"table: {' + '.join(table.sources)}"
        f"{' (camera at 55 degrees)' if table.view == '55' else ''}; "
        f"{table.frames_per_step} frames per touch; "
        f"hands on {table.hands:.0%} of touches, pauses on {table.pause:.0%}; changes of "
        f"mind on {table.change_of_mind:.0%} of moves, illegal attempts on "
        f"{table.illegal:.0%}; "
        + _readings_line(game, table, unsure)
        + (
            f"; gaps of {table.gap_moves[0]}-{table.gap_moves[1]} moves unseen after "
            f"{table.gap:.0%} of moves"
            f"{' (a hand over the table)' if table.gap_hidden else ''}"
            if table.gap
            else ""
        ),
        "",
        f"{'':<40}"
        + "".join(f"{r.get('readers', 'flicker ' + _rate(r['flicker'])):>22}" for r in runs),
    ]
    for label, key, fmt in _ROWS + (_GAP_ROWS if table.gap else ()):
        lines.append(f"{label:<40}" + "".join(f"{fmt.format(r[key]):>22}" for r in runs))
    lines.append(
        f"{f'verdict time ({clock}) median / p90 / p95 (ms)':<40}"
        + "".join(f"{'{median} / {p90} / {p95}'.format(**r['verdict_ms']):>22}" for r in runs)
    )
    lines.append(
        f"{f'verdict time ({clock}) p99 (ms)':<40}"
        + "".join(f"{r['verdict_ms']['p99']:>22}" for r in runs)
    )
    lines.append(
        f"{f'verdict time ({clock}) max (ms)':<40}"
        + "".join(f"{r['verdict_ms']['max']:>22}" for r in runs)
    )
    lines += ["", "injected illegal moves per rule (tried: caught, with the rule):"]
    rules = sorted({rule for r in runs for rule in r["rules"]})
    for rule in rules:
        cells = []
        for r in runs:
            score = r["rules"].get(rule)
            cells.append(
                "-"
                if score is None
                else f"{score['tried']}: {score['caught']}, {score['right_rule']}"
            )
        lines.append(f"  {rule:<38}" + "".join(f"{c:>22}" for c in cells))
    return "\n".join(lines)
