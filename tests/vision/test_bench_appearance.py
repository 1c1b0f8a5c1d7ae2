"""The appearance bench's table: every picture read with its exact view and through the
markers, a row per world, level, size and way of finding the board."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.cli import UsageError
from companion.cli.bench.appearance import _levels
from vision.evaluate.appearance import (
    Score,
    Setup,
    bench_table,
    calibrated_reader,
    format_markdown,
    load_setup,
    score_reading,
    table_rows,
)

SIZE = (960, 540)


def test_the_table_reads_every_picture_with_the_exact_view_and_through_the_markers(
    tmp_path: Path,
) -> None:
    said: list[str] = []
    rows = bench_table("shendao", "test", 1, ["medium"], [SIZE], "both", tmp_path, said.append)
    assert set(rows) == {
        "appearance|landscape|medium|960x540|exact",
        "appearance|landscape|medium|960x540|markers",
    }
    assert any(line.startswith("[1/1] shendao landscape world 2000") for line in said)
    exact, markers = (
        rows[f"appearance|landscape|medium|960x540|{m}"] for m in ("exact", "markers")
    )
    assert exact.pictures == markers.pictures == 3
    assert exact.score.boards == markers.score.boards == 3
    assert exact.score.elements == markers.score.elements > 0
    assert markers.calibrations == 1 and markers.located <= 3
    assert len(markers.marker_px) == 3 and min(markers.marker_px) > 5
    assert len(exact.first_ms) == 1 and len(exact.known_ms) == 3
    # the exact-view row is what the reader reads on those pictures
    pictures = load_setup(
        Setup("landscape", 2000, "medium", SIZE, "shendao", True), tmp_path, lambda _: None
    )
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


def test_the_summary_names_the_goals_missed_and_a_run_reads_back(tmp_path: Path) -> None:
    import json

    from vision.evaluate.appearance import Cell, format_summary, rows_from_json, summary_row

    good = Cell(
        Score(
            elements=10000,
            right=9990,
            wrong=1,
            wrong_sure=0,
            unsure=100,
            boards=30,
            perfect=29,
            sure=9900,
            sure_right=9900,
        ),
        pictures=30,
        located=30,
        pictures_reliable=30,
        located_reliable=30,
        marker_px=[24.0] * 30,
        known_ms=[12.0] * 27,
        first_ms=[90.0] * 10,
    )
    slow = Cell(
        Score(**{**vars(good.score), "unsure": 400}),
        **{**{k: v for k, v in vars(good).items() if k != "score"}, "first_ms": [90.0, 180.0]},
    )
    rows = {
        "appearance|landscape|hardest|1280x720|markers": good,
        "appearance|landscape|hardest|1920x1080|markers": slow,
    }
    assert all(summary_row(rows, "1280x720")["met"].values())
    lines = format_summary(rows, "shendao").splitlines()
    assert lines[0].endswith("| yes |")
    assert lines[1].endswith("| no: unsure, first frame |")
    path = tmp_path / "run.json"
    path.write_text(
        json.dumps({"rows": {k: {**vars(c), "score": vars(c.score)} for k, c in rows.items()}}),
        encoding="utf-8",
    )
    assert rows_from_json(path) == rows


def test_after_calibration_the_board_is_followed_past_covered_markers(tmp_path: Path) -> None:
    """``calibrated``: one locator sees the empty board, then each picture of play after
    the one before, as the app's; a picture whose markers are all but one covered is
    placed from the view before, where a cold start cannot place it."""
    import cv2
    import numpy as np

    from calibration.boards import board_geometry
    from vision.evaluate.appearance import _view, bench_setup
    from vision.synth.world import make_world

    setup = Setup("landscape", 2000, "medium", SIZE, "shendao", True)
    pictures = load_setup(setup, tmp_path, lambda _: None)
    exact = _view(pictures, make_world("shendao", "landscape", 2000).model.size_mm)
    geometry = board_geometry("shendao")
    image = pictures.plays[1][0].copy()
    for marker_id in geometry.marker_ids[1:]:
        corners = exact.to_image(geometry.marker_corners_mm(marker_id))
        centre = corners.mean(axis=0)
        cover = centre + 1.8 * (corners - centre)  # a hand over the marker and its card
        cv2.fillConvexPoly(image, np.round(cover).astype(np.int32), (90, 120, 170))
    pictures.plays[1] = (image, pictures.plays[1][1])
    cells = bench_setup(pictures, ("markers", "calibrated"))
    cold, followed = cells["appearance", "markers"], cells["appearance", "calibrated"]
    assert cold.pictures == followed.pictures == 3
    assert followed.calibrations == followed.calibrations_located == 1
    assert cold.located == 2 and followed.located == 3
    assert followed.score.unsure < cold.score.unsure
    assert len(followed.first_ms) == 1 and len(followed.known_ms) == 3


def test_every_way_of_finding_the_board_has_its_row_and_its_goals(tmp_path: Path) -> None:
    from companion.cli.bench.appearance import summaries

    rows = bench_table("shendao", "test", 1, ["hardest"], [SIZE], "all", tmp_path, print)
    assert [r["mode"] for r in table_rows(rows)] == ["exact", "markers", "calibrated"]
    table = format_markdown(rows).splitlines()
    assert table[4].startswith("| landscape | hardest | 960x540 | markers, after calibration |")
    said = summaries(rows, "shendao")
    assert len(said) == 2 and "cold start" in said[0] and "after calibration" in said[1]


def test_the_bench_reads_with_the_layout_the_player_fits(tmp_path: Path) -> None:
    """``--layout fitted``: the reader reads by the layout ``calibrate layout`` fits from
    the setup's calibration pictures (the project's model moved to where this world
    prints its squares), close to the true one, and reads the pictures nearly as well; a
    setup whose layout cannot be fitted is counted and read as nothing."""
    from calibration.layout import LayoutError
    from vision.evaluate.appearance import bench_setup

    pictures = load_setup(
        Setup("landscape", 2002, "easy", SIZE, "shendao", False), tmp_path, lambda _: None
    )
    true, _ = calibrated_reader(pictures)
    fitted, _ = calibrated_reader(pictures, fit_layout=True)
    off = [
        np.linalg.norm(np.subtract(fitted.model.elements[n].centre_mm, e.centre_mm))
        for n, e in true.model.elements.items()
        if e.kind == "square"
    ]
    assert len(off) == 64 and max(off) < 2.0
    cells = bench_setup(pictures, ("exact",), layout="fitted")
    read = cells["appearance", "exact"]
    assert read.layouts_failed == 0 and read.score.right >= 0.98 * read.score.elements
    blank = replace(pictures, empty=np.zeros_like(pictures.empty))
    with pytest.raises(LayoutError):
        calibrated_reader(blank, fit_layout=True)
    failed = bench_setup(blank, ("exact",), layout="fitted")["appearance", "exact"]
    assert failed.layouts_failed == 1 and failed.score.right == 0
    assert failed.score.unsure == failed.score.elements
    # a board not read at all has nothing wrong, yet is no perfect board
    assert failed.score.boards == len(pictures.plays) and failed.score.perfect == 0
