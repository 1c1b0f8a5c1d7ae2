"""``companion bench layout``: the layout fit on boards whose layout is not the model's
(``calibration.evaluate_layout``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from companion.cli import Subparsers
from vision.evaluate import LEVELS
from vision.models import GAMES

ORDER = 80
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    """Add ``companion bench layout``."""
    bench = bench_sub.add_parser(
        "layout",
        help="the layout fit on boards whose layout is not the model's",
        description="Render calibration pictures (empty board, calibration position) of "
        "boards whose elements lie elsewhere than the model says - Shangri-La editions "
        "with villages shifted and enlarged and bridges moved along their paths; Shendao "
        "and ShenShi with the model shifted and scaled - fit the layout and print, per "
        "kind of element, the median, 95th percentile and largest error in mm and how "
        "many lie within 2 mm.",
    )
    bench.add_argument(
        "--game",
        action="append",
        choices=sorted(GAMES),
        help="game (repeatable; default shangrila)",
    )
    bench.add_argument(
        "--kind",
        action="append",
        choices=("painted", "landscape", "project"),
        help="kind of board (repeatable; default: every kind of the game)",
    )
    bench.add_argument(
        "--level",
        action="append",
        choices=LEVELS,
        help="difficulty level (repeatable; default: every level)",
    )
    bench.add_argument(
        "--setups", type=int, default=4, help="boards per game, kind and level (default 4)"
    )
    bench.add_argument(
        "--first-seed",
        type=int,
        metavar="N",
        help="seed of each kind's first board (default: painted 1, landscape "
        "2000, the project's own boards 1)",
    )
    bench.add_argument("--size", default="1280x720", help="picture size (default 1280x720)")
    bench.add_argument(
        "--pictures", metavar="DIR", help="write a picture of each element beyond 2 mm into DIR"
    )
    bench.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    bench.set_defaults(handler=layout_command)


def layout_command(args: argparse.Namespace) -> int:
    from calibration import evaluate_layout as evaluate  # deferred: OpenCV, the renderer

    games = args.game or ["shangrila"]
    levels = args.level or list(LEVELS)
    size = tuple(int(x) for x in args.size.split("x"))
    results: dict[str, evaluate.Errors] = {}
    timing: dict[str, list[float]] = {}
    for game in games:
        kinds = args.kind or evaluate.KINDS[game]
        for kind in kinds:
            if kind not in evaluate.KINDS[game]:
                continue
            first_seed = evaluate.FIRST_SEED[kind] if args.first_seed is None else args.first_seed
            for level in levels:
                for i in range(args.setups):
                    setup = evaluate.LayoutSetup(
                        game, kind, first_seed + i, level, (size[0], size[1])
                    )
                    done = evaluate.fit_setup(setup)
                    if done.fit is None:
                        print(f"{game} {kind} {setup.seed} {level}: {done.error}", flush=True)
                        kinds_seen = {e.kind for e in done.pictures.truth.elements.values()}
                        for element_kind in kinds_seen:
                            results.setdefault(
                                f"{game} {kind} {level} {element_kind}", evaluate.Errors()
                            ).failed += 1
                        continue
                    timing.setdefault(f"{game} {kind} {level}", []).append(done.seconds)
                    distances = done.distances
                    for name, element in done.pictures.truth.elements.items():
                        results.setdefault(
                            f"{game} {kind} {level} {element.kind}", evaluate.Errors()
                        ).distances.append(distances[name])
                        if name in done.piece_distances:
                            results.setdefault(
                                f"{game} {kind} {level} {element.kind} (piece)", evaluate.Errors()
                            ).distances.append(done.piece_distances[name])
                    worst = sorted(distances, key=lambda n: -distances[n])
                    beyond = [n for n in worst if distances[n] > evaluate.WITHIN_MM]
                    doubtful = set(done.fit.doubtful())
                    print(
                        f"{game} {kind} world {setup.seed} ({level}): fitted in "
                        f"{done.seconds:.1f} s, worst "
                        + ", ".join(
                            f"{n} {distances[n]:.2f} mm" + (" (doubtful)" if n in doubtful else "")
                            for n in worst[:3]
                        ),
                        flush=True,
                    )
                    if args.pictures and beyond:
                        path = Path(args.pictures) / (
                            f"{game}-{kind}-{setup.seed}-{level}-{args.size}.png"
                        )
                        evaluate.write_picture(path, done.pictures, done.fit, beyond)
                        print(f"  wrote {path}")
    command = (
        f"companion bench layout --setups {args.setups} --size {args.size}"
        + (f" --first-seed {args.first_seed}" if args.first_seed is not None else "")
        + "".join(f" --game {g}" for g in games)
        + "".join(f" --kind {k}" for k in args.kind or [])
        + "".join(f" --level {lv}" for lv in args.level or [])
    )
    print(command)
    for key in sorted(results):
        print(f"{key:40s} {results[key].line()}")
    for key in sorted(timing):
        print(f"{key:40s} fit time median {np.median(timing[key]):.1f} s")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "command": command,
                    "errors": {k: v.summary() for k, v in results.items()},
                    "fit_seconds_median": {k: float(np.median(v)) for k, v in timing.items()},
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
    return 0
