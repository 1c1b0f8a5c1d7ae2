"""``companion bench appearance`` (with ``--heights``, the stack heights) and
``companion bench heights-fit``: the appearance reader's figures and the height
reader's fit, measured by ``vision.evaluate.appearance`` and ``vision.evaluate.heights``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from companion.cli import Subparsers, UsageError, picture_size, positive
from vision.evaluate import LEVELS, heights
from vision.evaluate.appearance import (
    GAMES,
    LOCATE_MODES,
    SETS,
    SUMMARY_HEADER,
    Cell,
    bench_table,
    default_cache,
    format_markdown,
    format_summary,
    rows_from_json,
    setups,
)

ORDER = 70
"""Where the topic is listed in ``companion bench --help``."""


def bench_command(args: argparse.Namespace) -> int:
    """``companion bench appearance``: the appearance reader (and the colour reader for
    comparison, when asked) on a set's pictures, at every level and size asked, with
    the exact view and through the markers."""
    if getattr(args, "heights", False):
        return heights_command(args)
    if args.from_json:
        rows = rows_from_json(Path(args.from_json))
        print(format_markdown(rows))
        print("\n" + "\n\n".join(summaries(rows, args.game)))
        return 0
    cache = Path(args.cache).expanduser() if args.cache else default_cache()
    levels = _levels(args)
    sizes = [picture_size(s) for s in (args.sizes.split(",") if args.sizes else [args.size])]
    try:
        setups(args.set, args.setups, levels, first_seed=args.first_seed)
    except ValueError as error:
        raise UsageError(f"--first-seed: {error}") from None
    command = (
        f"companion bench appearance --game {args.game} --set {args.set} "
        f"--setups {args.setups} --levels {','.join(levels)} "
        f"--sizes {','.join(f'{w}x{h}' for w, h in sizes)} --locate {args.locate}"
        + (f" --first-seed {args.first_seed}" if args.first_seed is not None else "")
        + (" --keep-calibration" if args.keep_calibration else "")
        + (f" --layout {args.layout}" if args.layout != "true" else "")
    )

    def write(rows: dict[str, Cell]) -> None:
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "command": command,
                        "game": args.game,
                        "set": args.set,
                        "kinds": list(SETS[args.set][0]),
                        "setup_seeds": [
                            s.seed
                            for s in setups(
                                args.set, args.setups, levels, first_seed=args.first_seed
                            )
                        ],
                        "rows": {
                            key: {**asdict(cell), "figures": cell.figures()}
                            for key, cell in rows.items()
                        },
                    },
                    indent=1,
                ),
                encoding="utf-8",
            )

    rows = bench_table(
        args.game,
        args.set,
        args.setups,
        levels,
        sizes,
        args.locate,
        cache,
        lambda m: print(m, flush=True),
        colour=args.colour_reader,
        done=write,
        first_seed=args.first_seed,
        retake=not args.keep_calibration,
        layout=args.layout,
    )
    write(rows)
    text = "\n\n".join(
        [f"`{command}`", format_markdown(rows)]
        + summaries(rows, args.game)
        + (
            [f"The colour reader, given the same views:\n\n{format_markdown(rows, 'colour')}"]
            if args.colour_reader
            else []
        )
    )
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    return 0


def summaries(rows: dict[str, Cell], game: str) -> list[str]:
    """The goals' table of the landscape boards at the hardest level, one per way of
    finding the board by its markers that was measured (each picture a cold start; as
    the app, after calibration), each under a line saying which."""
    out = []
    for mode, said in (
        ("markers", "Found by the markers, each picture a first frame (a cold start):"),
        ("calibrated", "Found by the markers as the app does after calibration:"),
    ):
        summary = format_summary(rows, game, mode=mode)
        if summary:
            out.append(f"{said}\n\n{SUMMARY_HEADER}\n{summary}")
    return out


def _levels(args: argparse.Namespace) -> list[str]:
    if args.levels:
        chosen = list(LEVELS) if args.levels == "all" else args.levels.split(",")
        unknown = [level for level in chosen if level not in LEVELS]
        if unknown:
            raise UsageError(
                f"--levels: no level {', '.join(unknown)} (the levels: {', '.join(LEVELS)}, or all)"
            )
        return chosen
    return list(args.level or LEVELS)


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, default="shangrila")
    parser.add_argument("--set", choices=sorted(SETS), default="test")
    parser.add_argument(
        "--first-seed",
        type=int,
        metavar="N",
        help="the first setup seed (default the set's first: train 1, validation 1000, "
        "test 2000); a fresh test set is one whose seeds were never read before",
    )
    parser.add_argument(
        "--setups",
        type=positive(int),
        default=12,
        help="setups (world, camera, level) at each size, spread over the "
        "set's kinds of world and the levels (default 12)",
    )
    parser.add_argument(
        "--levels",
        metavar="LEVEL,...",
        help=f"levels, comma-separated, or all ({', '.join(LEVELS)}; default all)",
    )
    parser.add_argument(
        "--level",
        action="append",
        choices=LEVELS,
        help="a level (repeatable; --levels says the same in one word)",
    )
    parser.add_argument(
        "--sizes", metavar="WxH,...", help="picture sizes, comma-separated (default --size)"
    )
    parser.add_argument("--size", default="1280x720", help="one picture size (default 1280x720)")
    parser.add_argument(
        "--locate",
        choices=tuple(LOCATE_MODES),
        default="truth",
        help="where the board is: the picture's exact view (truth, the "
        "default); found by the corner markers stuck on it, each picture by a "
        "locator of its own, a cold start (markers: the calibration pictures "
        "too); found by the markers as the app finds it after calibration, one "
        "locator that saw the empty board the player calibrated with following "
        "the board from picture to picture (calibrated); each picture read with "
        "the exact view and by markers (both); or all three ways (all)",
    )
    parser.add_argument(
        "--layout",
        choices=("true", "fitted"),
        default="true",
        help="the board's layout the reader reads by: the world's true one (true, the "
        "default), or the one 'companion calibrate layout' fits from the setup's "
        "calibration pictures, starting from the project's model, as a player's "
        "calibration has it (fitted; a setup whose layout cannot be fitted is not read)",
    )
    parser.add_argument(
        "--keep-calibration",
        action="store_true",
        help="read every setup with the calibration pictures first taken, even where "
        "the calibration warns that something lay over the board (by default they are "
        "taken again, as the player is told to)",
    )
    parser.add_argument(
        "--colour-reader",
        action="store_true",
        help="also read every picture with the colour reader, for comparison",
    )
    parser.add_argument("--cache")
    parser.add_argument("--json", help="write the figures here as JSON (after every setup)")
    parser.add_argument("--markdown", help="write the figures here as a markdown table")
    parser.add_argument(
        "--from-json",
        metavar="FILE",
        help="print the tables of a run's --json file instead of reading",
    )
    parser.add_argument(
        "--heights",
        action="store_true",
        help="the stack heights of Shangri-La, on tables of stacks of one "
        "and two tiles seen from several elevations (docs/vision-bench.md)",
    )
    parser.add_argument(
        "--elevation",
        type=float,
        action="append",
        help="with --heights: the camera's elevation in degrees (repeat; default 90, 70 and 55)",
    )


def register(bench_sub: Subparsers) -> None:
    """Add ``companion bench appearance``."""
    bench = bench_sub.add_parser(
        "appearance",
        help="the appearance reader on boards of worlds it was not fitted on",
        description="Read the pictures of a set (default: the test set, whose kind of "
        "world was never used for fitting) with the appearance reader, calibrated on each "
        "setup's own calibration pictures, and with the colour reader for comparison.",
    )
    add_bench_arguments(bench)
    bench.set_defaults(handler=bench_command)
    register_heights_fit(bench_sub)


def heights_command(args: argparse.Namespace) -> int:
    """The heights of stacks of one and two tiles on a set's pictures, per elevation
    and height (``bench appearance --heights``)."""
    if getattr(args, "game", heights.GAME) != heights.GAME:
        print("stack heights are read in Shangri-La only", file=sys.stderr)
        return 2
    cache = Path(args.cache).expanduser() if args.cache else heights.default_cache()
    elevations = tuple(args.elevation or heights.BENCH_ELEVATIONS)
    size = (1280, 720)
    if getattr(args, "size", None):
        size = picture_size(args.size)
    figures = heights.measure(args.set, args.setups, elevations, size, cache)
    scores, times, known = figures.scores, figures.times, figures.known
    lines = [
        f"companion bench appearance --heights --set {args.set} --setups {args.setups} "
        f"--size {size[0]}x{size[1]} " + " ".join(f"--elevation {e:g}" for e in elevations)
    ]
    if times:
        lines.append(
            f"appearance reader with heights: {1000 * float(np.median(times)):.0f} ms "
            f"the first frame of a view, "
            f"{1000 * float(np.median(known or times)):.0f} ms a frame once the view "
            f"is known (median, processor time)"
        )
    for key in sorted(scores, key=lambda k: (-float(k.split()[0]), k)):
        lines.append(f"{key:22s} {scores[key].line()}")
        if key.endswith("all") and scores[key].reasons:
            lines.append(f"{'':22s} abstained: {scores[key].why()}")
    print("\n".join(lines))
    if getattr(args, "json", None):
        Path(args.json).write_text(
            json.dumps({k: asdict(s) for k, s in scores.items()}, indent=1), encoding="utf-8"
        )
    return 0


def heights_fit_command(args: argparse.Namespace) -> int:
    """Fit the height reader's weights on the training set and calibrate its chances
    on the validation pictures (``companion bench heights-fit``)."""
    from vision import appearance_heights as ah  # deferred: loads OpenCV

    cache = Path(args.cache).expanduser() if args.cache else heights.default_cache()
    started = time.time()
    data: list[Any] = []
    chosen = heights.setups("train", args.setups)
    for i, setup in enumerate(chosen, 1):
        data.extend(heights.examples(heights.load(setup, cache)))
        print(
            f"[{i}/{len(chosen)}] {setup.kind} world {setup.seed} at "
            f"{setup.elevation:.0f} degrees: {len(data)} examples",
            flush=True,
        )
    held: list[Any] = []
    checks = heights.validation_pictures(cache) if args.validation else []
    for i, (name, pictures) in enumerate(checks, 1):
        held.extend(heights.examples(pictures()))
        print(f"[validation {i}/{len(checks)}] {name}: {len(held)} examples", flush=True)
    provenance = {
        "command": f"companion bench heights-fit --setups {args.setups}"
        + ("" if args.validation else " --no-validation"),
        "set": "train",
        "kind": heights.SETS["train"][0],
        "setup_seeds": [s.seed for s in chosen],
        "elevations": [round(s.elevation, 1) for s in chosen],
        "examples": len(data),
        "level": heights.LEVEL,
        "size": list(chosen[0].size),
        "calibrated_on": {
            "set": "validation",
            "kind": heights.SETS["validation"][0],
            "pictures": [name for name, _ in checks],
            "examples": len(held),
        },
    }
    model = ah.fit(heights.GAME, data, provenance)
    if held:
        model = ah.calibrate(model, held, (1, 2))
    out = Path(args.output) if args.output else ah.fitted_path(heights.GAME)
    out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {out} from {len(data)} examples in {time.time() - started:.0f} s: "
        f"weights {model.weights.round(4).tolist()}, temperature {model.temperature}, "
        f"heights read at {model.read_at} or more"
    )
    return 0


def register_heights_fit(bench_sub: Subparsers) -> None:
    """Add ``companion bench heights-fit``."""
    fit = bench_sub.add_parser(
        "heights-fit",
        help="fit the height reader's weights on the training set",
        description="Render the heights' training set (Shangri-La tables with stacks of "
        "one and two tiles, many worlds and elevations), fit the height reader's weights "
        "and calibrate its chances on the validation pictures; the same setups give the "
        "same file (the one shipped in the package unless --output says otherwise).",
    )
    fit.add_argument("--setups", type=positive(int), default=16)
    fit.add_argument("--output")
    fit.add_argument("--cache")
    fit.add_argument(
        "--no-validation",
        dest="validation",
        action="store_false",
        help="keep the chances as fitted (no temperature, heights read at 0.6)",
    )
    fit.set_defaults(handler=heights_fit_command)
