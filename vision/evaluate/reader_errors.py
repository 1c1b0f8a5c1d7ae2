"""``companion bench reader-errors``: measure how a game's fitted appearance reader errs,
per element kind and true value, on the appearance test set, and write the rates
(``vision.reader_errors``) that ``companion bench referee --readers fitted`` draws the
camera's readings from.

The pictures are those of ``companion bench appearance`` (``vision.evaluate.appearance``:
rendered tables of held-out worlds, each calibrated as a player would, the board's exact
view given); by default the test set, whose landscape worlds took part in no fit and no
choice.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from engines.observation import Observation
from vision.evaluate.appearance import SETS, calibrated_reader, load_setup, setups
from vision.reader_errors import (
    NOT_SHOWN,
    RIGHT,
    UNSURE,
    WRONG,
    ReaderErrors,
    rates_line,
    upper_rate,
)

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
    import cv2  # deferred: loads OpenCV

    from vision.appearance import fitted_path  # deferred: loads OpenCV

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
