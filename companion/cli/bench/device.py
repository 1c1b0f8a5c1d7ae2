"""``companion bench device``: the sensor board's throughput (``firmware_bridge.bench``)
and its change-to-verdict latency (``companion.referee.sensors``)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from companion.cli import Subparsers
from companion.referee.sensors import latency
from firmware_bridge.bench import throughput
from firmware_bridge.messages import BAUD, MAX_EVENT_RATE

ORDER = 30
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    bench = bench_sub.add_parser(
        "device",
        help="sensor board: zero-loss throughput and change-to-verdict latency",
        description="Run the board simulator as a separate process on a pseudo-terminal "
        f"paced to {BAUD} baud. Throughput: change the table once per scan at the "
        f"protocol's ceiling ({MAX_EVENT_RATE} one-change events a second) for --seconds "
        "and check that every event arrives, in order and intact. Latency: play a "
        "seeded Shangri-La game on the simulated board and time each move from the "
        "table change to the referee's verdict.",
    )
    bench.add_argument(
        "--seconds",
        type=float,
        default=600.0,
        help="throughput run length (default 600; e.g. 60 for a short run)",
    )
    bench.add_argument(
        "--moves",
        type=int,
        default=60,
        help="moves timed for latency (default 60; 0 skips latency)",
    )
    bench.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.set_defaults(handler=bench_command)


def bench_command(args: argparse.Namespace) -> int:
    figures: dict[str, Any] = {}
    if args.seconds > 0:
        if not args.json:
            print(f"throughput: {args.seconds:g} s at {MAX_EVENT_RATE} events/s ...", flush=True)
        figure = throughput(args.seconds)
        figures["throughput"] = asdict(figure)
        if not args.json:
            print(
                f"  {figure.events_received}/{figure.events_expected} events in "
                f"{figure.seconds:.1f} s ({figure.events_per_second:.1f}/s): "
                f"{figure.events_lost} lost, {figure.events_wrong} wrong, "
                f"{figure.sequence_gaps} sequence gaps, {figure.garbled_frames} garbled "
                f"frames, {figure.resync_snapshots} resync snapshots, "
                f"{figure.device_overflows} device overflows",
                flush=True,
            )
    if args.moves > 0:
        figure_l = latency(args.moves, args.seed)
        figures["latency"] = asdict(figure_l)
        if not args.json:
            print(
                f"latency: {figure_l.accepted}/{figure_l.moves} moves accepted; "
                f"board change -> bridge delivery median {figure_l.delivered_median_ms} "
                f"ms (p90 {figure_l.delivered_p90_ms}); -> referee verdict median "
                f"{figure_l.verdict_median_ms} ms (p90 {figure_l.verdict_p90_ms}, max "
                f"{figure_l.verdict_max_ms}); board scans at {figure_l.scan_hz} Hz, "
                f"debounce {figure_l.debounce_scans} scans",
                flush=True,
            )
    if args.json:
        print(json.dumps({"python": sys.version.split()[0], "baud": BAUD, **figures}))
    lost = figures.get("throughput", {}).get("events_lost", 0)
    wrong = figures.get("throughput", {}).get("events_wrong", 0)
    return 1 if lost or wrong else 0
