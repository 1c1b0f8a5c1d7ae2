"""``companion bench reader-errors``: measure how a game's fitted appearance reader errs,
per element kind and true value, on the appearance test set, and write the rates
(``vision.reader_errors``) that ``companion bench referee --readers fitted`` draws the
camera's readings from.

The pictures are those of ``companion bench appearance`` (``companion.bench_appearance``:
rendered tables of held-out worlds, each calibrated as a player would, the board's exact
view given); by default the test set, whose landscape worlds took part in no fit and no
choice.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path
from typing import Any

from companion.cli import UsageError

DEFAULT_SETUPS = {"shangrila": 60, "shendao": 36}
"""Test setups measured per game by default (three pictures of play each); other games
take ``FALLBACK_SETUPS``."""
FALLBACK_SETUPS = 36


def measure(
    game: str,
    set_name: str,
    count: int,
    levels: tuple[str, ...],
    size: tuple[int, int],
    cache: Path | None,
    progress: Any = print,
    command: str = "",
) -> Any:
    """The reader errors of ``game``'s shipped appearance reader on ``count`` setups of
    set ``set_name`` at ``levels`` (pictures rendered into ``cache`` when missing);
    ``command``: the command line, for the provenance."""
    import cv2

    from companion.bench_appearance import SETS, calibrated_reader, load_setup, setups
    from engines.observation import Observation
    from vision.appearance import fitted_path
    from vision.reader_errors import NOT_SHOWN, RIGHT, UNSURE, WRONG, ReaderErrors

    cv2.setNumThreads(1)
    chosen = setups(set_name, count, levels, size, game)
    errors = ReaderErrors(game)
    boards = 0
    for number, setup in enumerate(chosen, 1):
        pictures = load_setup(setup, cache, lambda m: progress(f"  {m}"))
        reader, view = calibrated_reader(pictures)
        kinds = {e: reader.model.elements[e].kind for e in reader.elements}
        for image, truth in pictures.plays:
            seen = Observation.from_json(reader.schema, {"readings": truth["visible"]})
            reading = reader.read(image, view)
            boards += 1
            for element, kind in kinds.items():
                true = seen[element]
                if not true.known:  # under a hand in the picture: the table simulates hands
                    continue
                assert true.value is not None
                got = reading.observation[element]
                chances = reading.probabilities.get(element)
                if not got.known:
                    outcome = NOT_SHOWN if element in reading.unseen else UNSURE
                    errors.add(kind, true.value, outcome, chances=chances)
                elif got.value == true.value and type(got.value) is type(true.value):
                    errors.add(kind, true.value, RIGHT, got.value, got.confidence)
                else:
                    errors.add(kind, true.value, WRONG, got.value, got.confidence, chances)
        progress(f"[{number}/{len(chosen)}] {setup.kind} world {setup.seed} ({setup.level}) read")
    fitted = fitted_path(game)
    errors.provenance = {
        "command": command,
        "set": set_name,
        "kinds_of_world": list(SETS[set_name][0]),
        "setup_seeds": [s.seed for s in chosen],
        "levels": list(levels),
        "size": list(size),
        "view": "exact (the picture's own)",
        "boards": boards,
        "fitted_reader": f"vision/fitted/{fitted.name}",
        "fitted_reader_sha256": hashlib.sha256(fitted.read_bytes()).hexdigest()[:16],
    }
    return errors


def report(errors: Any) -> str:
    """The measured rates, one line per kind and true value."""
    from vision.reader_errors import WRONG, rates_line, upper_rate

    lines = [f"reader errors of {errors.game}: {errors.provenance.get('command', '')}"]
    for name, kind in sorted(errors.kinds.items()):
        pooled = kind.pooled()
        lines.append(
            f"{name}: {rates_line(pooled)} (wrong at most "
            f"{100 * upper_rate(pooled.wrong_total, pooled.total):.3f}%, 95%)"
        )
        for _, counts in sorted(kind.values.items(), key=repr):
            wrong = ", ".join(f"{v[1]} x{n}" for v, n in sorted(counts.wrong.items(), key=repr))
            lines.append(
                f"  {counts.value!s:>8}: {rates_line(counts)}"
                + (f" ({WRONG}: {wrong})" if wrong else "")
            )
    return "\n".join(lines)


def reader_errors_command(args: argparse.Namespace) -> int:
    from companion.bench_appearance import GAMES, SETS, _default_cache, _size
    from companion.bench_vision import LEVELS
    from vision.appearance import fitted_path
    from vision.reader_errors import dumps, errors_path

    if args.game not in GAMES:
        raise UsageError(
            f"the appearance pictures cannot show {args.game!r} yet (available: {', '.join(GAMES)})"
        )
    if not fitted_path(args.game).exists():
        raise UsageError(
            f"no fitted appearance reader for {args.game} "
            f"({fitted_path(args.game)}: companion vision fit makes it)"
        )
    if args.set not in SETS:
        raise UsageError(f"--set must be one of {', '.join(SETS)}")
    count = args.setups or DEFAULT_SETUPS.get(args.game, FALLBACK_SETUPS)
    if count < 1:
        raise UsageError("--setups must be at least 1")
    unknown = sorted(set(args.level or ()) - set(LEVELS))
    if unknown:
        raise UsageError(f"no level {', '.join(unknown)} (levels: {', '.join(LEVELS)})")
    command = (
        f"companion bench reader-errors --game {args.game} --set {args.set} "
        f"--setups {count}"
        + "".join(f" --level {lv}" for lv in args.level or ())
        + f" --size {args.size}"
    )
    cache = Path(args.cache).expanduser() if args.cache else _default_cache()
    started = time.time()
    errors = measure(
        args.game,
        args.set,
        count,
        tuple(args.level or LEVELS),
        _size(args.size),
        cache,
        lambda m: print(m, flush=True),
        command,
    )
    out = Path(args.output) if args.output else errors_path(args.game)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps(errors), encoding="utf-8")
    print(report(errors))
    print(f"wrote {out} in {time.time() - started:.0f} s")
    return 0


def register_reader_errors(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion bench reader-errors``."""
    parser = bench_sub.add_parser(
        "reader-errors",
        help="how often the camera's fitted reader errs, per element "
        "kind and value, for the referee benchmark",
        description="Read the appearance test set's pictures (made-up boards the reader "
        "was never fitted on) with a game's fitted appearance reader and write, per "
        "element kind and true value, how often it read right, read another value "
        "(which), was unsure or did not show the element, with the confidences it gave; "
        "companion bench referee --readers fitted draws the camera's readings from it.",
    )
    parser.add_argument(
        "--game",
        default="shangrila",
        help="the game (one with a fitted appearance reader; default shangrila)",
    )
    parser.add_argument("--set", default="test", help="the set of pictures (default test)")
    parser.add_argument(
        "--setups",
        type=int,
        help="setups (world, camera, level) to read, "
        f"three pictures each (default {DEFAULT_SETUPS} by game, else "
        f"{FALLBACK_SETUPS})",
    )
    parser.add_argument(
        "--level", action="append", help="only this level (repeatable; default every level)"
    )
    parser.add_argument("--size", default="1280x720", help="picture size (default 1280x720)")
    parser.add_argument(
        "--cache", help="folder of rendered pictures (default ~/.cache/companion/appearance)"
    )
    parser.add_argument(
        "--output",
        help="where to write the rates (default: the file "
        "shipped in the package, vision/fitted/reader-errors-GAME.json)",
    )
    parser.set_defaults(handler=reader_errors_command)
