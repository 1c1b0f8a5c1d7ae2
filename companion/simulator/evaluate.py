"""The referee on simulated tables, against the truth (``companion bench referee``).

Random legal games (``engines.Dice``, seeded; ShenShi's turns drawn as its playouts
draw them, ``Handling.random_move``) are played on a simulated table
(``companion.simulator``) with readings that flicker, hands, pauses, changes of mind and
injected illegal moves, each into a fresh ``Referee``. The figures: moves recognised
exactly, false illegal-move flags per 1,000 moves, injected illegal moves caught,
questions per game, and the verdict time.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from companion.referee.core import Referee, RefereeConfig
from companion.simulator import TableConfig, TableSimulator, referee_game
from companion.simulator.scoring import GameScore, totals
from engines import rules_class
from vision.reader_errors import load_errors

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
    quiet = [x * 1000 for x in sums["quiet"]]

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
        "quiet_ms": {
            "inputs": len(quiet),
            "p99": round(quiet[int(0.99 * (len(quiet) - 1))], 2) if quiet else None,
            "max": round(quiet[-1], 2) if quiet else None,
        },
        "games_without_correction": sums["games_without_correction"],
        "final_position_right": sums["final_states_right"],
        "rules": {rule: asdict(r) for rule, r in sorted(sums["rules"].items())},
        "seconds": round(seconds, 1),
        "verdict_ms_all": [round(x, 3) for x in ms],
        "cases": sums["cases"],
    }


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
    lines.append(
        f"{f'other inputs ({clock}) p99 / max (ms)':<40}"
        + "".join(f"{'{p99} / {max}'.format(**r['quiet_ms']):>22}" for r in runs)
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
