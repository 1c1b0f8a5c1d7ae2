"""The report of ``companion bench vision``: Markdown tables and the figures as JSON."""

from __future__ import annotations

import platform
import sys
from dataclasses import asdict
from typing import Any

from vision.evaluate.run import Timing
from vision.evaluate.score import LevelResult, Tally, _percent
from vision.evaluate.sets import FRAME_SIZE, LEVEL_SPECS, SET_VERSION, set_version


def report_markdown(
    results: list[LevelResult],
    timings: list[Timing],
    command: str,
    size: tuple[int, int] = FRAME_SIZE,
    located: list[LevelResult] | None = None,
) -> str:
    """The figures as a Markdown document (``located``: the same boards read through
    the Locator, when measured)."""
    lines = [
        "# Camera reading bench",
        "",
        f"Command: `{command}`",
        "",
        f"Pictures of {size[0]}x{size[1]} pixels, read with their exact view.",
        "",
        "Accuracy counts the elements read (abstentions apart); abstention is the "
        "share of the visible elements not read, split into *not shown* (the view "
        "cannot show the element: a hand over it, a view too steep to show the side "
        "of the tiles, a piece standing in front) and *unsure* (the reader could "
        "see it but would not decide; the goal of under 1% is on these). Elements "
        "a hand hides in the truth are left out (column *hidden*). A board is "
        "perfect when no element is wrong, complete when also none is abstained.",
        "",
    ]
    lines += _level_table(results)
    lines += [
        "",
        "By kind of element:",
        "",
        "| game | level | kind | elements | accuracy | wrong | abstained | not shown | unsure |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        for kind, t in sorted(r.kinds.items()):
            lines.append(
                f"| {r.game} | {r.level} | {kind} | {t.seen} | "
                f"{_percent(t.accuracy(), 3)} | {t.wrong} | "
                f"{_percent(t.abstention())} | {_percent(t.unseen_share())} | "
                f"{_percent(t.unsure_share())} |"
            )
    if any(r.by_seed for r in results):
        lines += [
            "",
            "By set (each its own seed; the tables above pool them):",
            "",
            "| game | level | set | boards | wrong | perfect boards | unsure |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in results:
            for set_seed, part in r.by_seed:
                t = part.total()
                lines.append(
                    f"| {r.game} | {r.level} | {set_seed} | {part.boards} | "
                    f"{t.wrong} | {part.perfect}/{part.boards} | "
                    f"{_percent(t.unsure_share())} |"
                )
    if located:
        lines += [
            "",
            "Through localisation: other boards at the hardest level, "
            "photographed with the printed corner markers; each picture read once "
            "with its exact view and once where the Locator (with the camera's "
            "lens profile, a fresh Locator per picture: no tracking) finds the "
            "board from the picture alone. *Located*: boards the Locator found; "
            "a board not found counts every element abstained (unsure).",
            "",
        ]
        lines += _level_table(located, located=True)
    if timings:
        lines += [
            "",
            "Milliseconds per frame on one core (median; the board's view "
            "unchanged from the frame before; *new view*: the first frame of a "
            "view, when the sample points are projected):",
            "",
            "| game | frame | read | stillness + read | new view |",
            "|---|---|---|---|---|",
        ]
        for timing in timings:
            lines.append(
                f"| {timing.game} | {timing.size} | {timing.read_ms:.1f} | "
                f"{timing.read_and_stillness_ms:.1f} | {timing.new_view_ms:.1f} |"
            )
    for title, key in (
        ("Why elements the reader could see were not read (unsure):", "reasons"),
        ("Why elements were not shown by the view:", "unseen_reasons"),
    ):
        reasons: dict[str, int] = {}
        for r in [*results, *(located or [])]:
            for why, n in getattr(r, key).items():
                reasons[why] = reasons.get(why, 0) + n
        if reasons:
            lines += ["", title, ""]
            for why, n in sorted(reasons.items(), key=lambda item: -item[1]):
                lines.append(f"- {n}: {why}")
    errors = [e for r in [*results, *(located or [])] for e in (f"{r.game} {x}" for x in r.errors)]
    if errors:
        lines += ["", "Wrong readings (first ones):", ""]
        lines += [f"- {e}" for e in errors[:60]]
    return "\n".join(lines) + "\n"


def _level_table(results: list[LevelResult], located: bool = False) -> list[str]:
    head = (
        "| game | level | boards | "
        + ("located | " if located else "")
        + "elements | right | wrong | accuracy | perfect boards | complete boards | "
        "abstained | not shown | unsure | hidden |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        t = r.total()
        found = f"{r.located} | " if located else ""
        lines.append(
            f"| {r.game} | {r.level} | {r.boards} | {found}{t.seen} | "
            f"{t.right} | {t.wrong} | {_percent(t.accuracy(), 3)} | "
            f"{_percent(r.perfect / r.boards if r.boards else None, 1)} | "
            f"{_percent(r.complete / r.boards if r.boards else None, 1)} | "
            f"{_percent(t.abstention())} | {_percent(t.unseen_share())} | "
            f"{_percent(t.unsure_share())} | {t.hidden} |"
        )
    return lines


def report_json(
    results: list[LevelResult],
    timings: list[Timing],
    command: str,
    size: tuple[int, int] = FRAME_SIZE,
    located: list[LevelResult] | None = None,
) -> dict[str, Any]:
    def tally(t: Tally) -> dict[str, Any]:
        return {
            **asdict(t),
            "seen": t.seen,
            "unsure": t.unsure,
            "accuracy": t.accuracy(),
            "abstention": t.abstention(),
            "unseen_share": t.unseen_share(),
            "unsure_share": t.unsure_share(),
        }

    def level(r: LevelResult) -> dict[str, Any]:
        return {
            "game": r.game,
            "level": r.level,
            "boards": r.boards,
            "located": r.located,
            "perfect": r.perfect,
            "complete": r.complete,
            "total": tally(r.total()),
            "kinds": {k: tally(t) for k, t in r.kinds.items()},
            "reasons": r.reasons,
            "unseen_reasons": r.unseen_reasons,
            "errors": r.errors,
            "by_seed": [{"seed": seed, **level(part)} for seed, part in r.by_seed],
        }

    return {
        "command": command,
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "set_version": SET_VERSION,
        "frame_size": list(size),
        "game_set_versions": {r.game: set_version(r.game) for r in [*results, *(located or [])]},
        "levels": {name: asdict(spec) for name, spec in LEVEL_SPECS.items()},
        "results": [level(r) for r in results],
        "located": [level(r) for r in located or []],
        "timing_ms": [asdict(t) for t in timings],
    }
