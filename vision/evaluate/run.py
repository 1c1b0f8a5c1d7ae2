"""A run of ``companion bench vision``: the sets read and scored, and the reader's time
per frame on one core."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engines.bench import one_core
from vision.evaluate.score import LevelResult, _summary_line, score, score_located
from vision.evaluate.sets import FRAME_SIZE, Shot, _set_rules, load_shot, shot_view
from vision.pipeline import reader_for
from vision.stillness import StillnessDetector

TIMING_SIZES = ((1280, 720), (1920, 1080))
TIMING_FRAMES = 3
TIMING_REPEATS = 7
# The pictures with corner markers (through localisation) are numbered from here, apart
# from the timing pictures (1000...) and the sets (0...).
LOCATED_FIRST = 2000


@dataclass
class Timing:
    game: str
    size: str
    read_ms: float
    read_and_stillness_ms: float
    new_view_ms: float


# --- timing ----------------------------------------------------------------------------------


def time_reading(
    game: str, seed: int, cache: Path | None, progress: Callable[[str], None]
) -> list[Timing]:
    """Milliseconds per frame on one core, per picture size (median over pictures of
    the hardest level and repeats)."""

    out = []
    for size in TIMING_SIZES:
        reader = reader_for(game, rules=_set_rules(game))
        shots = [Shot(game, "hardest", 1000 + i, seed, size) for i in range(TIMING_FRAMES)]
        pictures = [load_shot(s, cache, progress) for s in shots]
        read_ms, both_ms, new_ms = [], [], []
        with one_core():
            for image, truth in pictures:
                view = shot_view(truth, reader.model.size_mm)
                began = time.perf_counter()
                reader.read(image, view)
                new_ms.append((time.perf_counter() - began) * 1000)
                stillness = StillnessDetector(reader.model.size_mm, reader.model)
                for _ in range(TIMING_REPEATS):
                    began = time.perf_counter()
                    reader.read(image, view)
                    read_ms.append((time.perf_counter() - began) * 1000)
                    began = time.perf_counter()
                    state = stillness.update(image, view)
                    reader.read(image, view, state.covered_elements)
                    both_ms.append((time.perf_counter() - began) * 1000)
        out.append(
            Timing(
                game,
                f"{size[0]}x{size[1]}",
                statistics.median(read_ms),
                statistics.median(both_ms),
                statistics.median(new_ms),
            )
        )
    return out


# --- the command -------------------------------------------------------------------------------


def parse_seeds(text: str) -> list[int]:
    """Set seeds from ``"1"``, ``"1,2,7-13"``; raises ``ValueError`` naming the fault."""
    seeds: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last or first)
        except ValueError:
            raise ValueError(
                f"{part.strip()!r} is not a seed or a range of seeds (1, 2,5 or 7-13)"
            ) from None
        if low < 0 or high < low:
            raise ValueError(f"{part.strip()!r} is not a range of seeds from low to high")
        seeds += [s for s in range(low, high + 1) if s not in seeds]
    return seeds


def run_bench(
    games: list[str],
    levels: list[str],
    frames: int,
    seed: int | Sequence[int],
    cache: Path | None,
    timing: bool,
    progress: Callable[[str], None],
    size: tuple[int, int] = FRAME_SIZE,
    located_frames: int = 0,
) -> tuple[list[LevelResult], list[Timing], list[LevelResult]]:
    """The figures: per game and level with the exact view (``frames`` pictures of each
    set ``seed``, pooled, with each set's own kept in ``by_seed`` when there are
    several), the timings, and per game at the hardest level (when among ``levels``)
    through localisation (``located_frames`` pictures with corner markers, numbered
    apart from the others); the timings and localisation use the first set."""

    seeds = [seed] if isinstance(seed, int) else list(seed)
    seed = seeds[0]
    results = []
    located = []
    timings: list[Timing] = []
    for game in games:
        reader = reader_for(game, rules=_set_rules(game))
        for level in levels:
            result = LevelResult(game, level, 0)
            for set_seed in seeds:
                part = LevelResult(game, level, 0)
                for index in range(frames):
                    shot = Shot(game, level, index, set_seed, size)
                    image, truth = load_shot(shot, cache, progress)
                    label = (
                        f"{level} #{index}"
                        if len(seeds) == 1
                        else f"{level} set {set_seed} #{index}"
                    )
                    score(part, reader, image, truth, label)
                result.add(part)
                if len(seeds) > 1:
                    result.by_seed.append((set_seed, part))
                    progress(f"set {set_seed}: {_summary_line(part)}")
            results.append(result)
            progress(_summary_line(result))
        if located_frames and "hardest" in levels:
            exact = LevelResult(game, "hardest, exact view", 0)
            result = LevelResult(game, "hardest, located", 0)
            for index in range(located_frames):
                shot = Shot(game, "hardest", LOCATED_FIRST + index, seed, size, markers=True)
                image, truth = load_shot(shot, cache, progress)
                label = f"hardest with markers #{LOCATED_FIRST + index}"
                score(exact, reader, image, truth, f"{label} (exact view)")
                exact.located = exact.boards
                score_located(result, reader, image, truth, f"{label} (located)")
            located += [exact, result]
            progress(_summary_line(exact))
            progress(_summary_line(result))
        if timing:
            timings.extend(time_reading(game, seed, cache, progress))
    return results, timings, located
