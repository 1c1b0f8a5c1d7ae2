"""The appearance bench's table: every picture read with its exact view and through the
markers, a row per world, level, size and way of finding the board."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from companion.bench_appearance import (
    Score,
    Setup,
    _levels,
    bench_table,
    calibrated_reader,
    format_markdown,
    load_setup,
    score_reading,
    table_rows,
)
from companion.cli import UsageError

SIZE = (960, 540)


def test_the_table_reads_every_picture_with_the_exact_view_and_through_the_markers(
        tmp_path: Path) -> None:
    said: list[str] = []
    rows = bench_table("shendao", "test", 1, ["medium"], [SIZE], "both", tmp_path,
                       said.append)
    assert set(rows) == {"appearance|landscape|medium|960x540|exact",
                         "appearance|landscape|medium|960x540|markers"}
    assert any(line.startswith("[1/1] shendao landscape world 2000") for line in said)
    exact, markers = (rows[f"appearance|landscape|medium|960x540|{m}"]
                      for m in ("exact", "markers"))
    assert exact.pictures == markers.pictures == 3
    assert exact.score.boards == markers.score.boards == 3
    assert exact.score.elements == markers.score.elements > 0
    assert markers.calibrations == 1 and markers.located <= 3
    assert len(markers.marker_px) == 3 and min(markers.marker_px) > 5
    assert len(exact.first_ms) == 1 and len(exact.known_ms) == 3
    # the exact-view row is what the reader reads on those pictures
    pictures = load_setup(Setup("landscape", 2000, "medium", SIZE, "shendao", True), tmp_path,
                          lambda _: None)
    reader, view = calibrated_reader(pictures)
    direct = Score()
    elements = [e for e in reader.schema.elements if e.removesuffix("^") in reader.model.elements]
    for image, truth in pictures.plays:
        score_reading(direct, reader.read(image, view), truth["visible"], reader.schema, elements)
    assert direct == exact.score
    table = format_markdown(rows).splitlines()
    assert len(table) == 2 + 2 and table[2].startswith("| landscape | medium | 960x540 | exact")
    assert [r["mode"] for r in table_rows(rows)] == ["exact", "markers"]


def test_levels_are_named_or_all() -> None:
    def args(levels: str | None, level: list[str] | None = None) -> argparse.Namespace:
        return argparse.Namespace(levels=levels, level=level)

    assert _levels(args("all")) == ["easy", "medium", "hardest"]
    assert _levels(args("hardest,easy")) == ["hardest", "easy"]
    assert _levels(args(None, ["medium"])) == ["medium"]
    with pytest.raises(UsageError, match="no level extreme"):
        _levels(args("easy,extreme"))
