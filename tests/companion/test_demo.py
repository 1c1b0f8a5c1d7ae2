"""`companion demo` end to end, headless, on a short film: the referee reads the
rendered video through the camera pipeline, accepts the moves, and the report is
written."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from companion.demo.film import Shot, moments
from companion.demo.run import DemoOptions, run_demo
from companion.demo.script import SPECS, Script, make_script


@pytest.fixture(scope="module")
def script() -> Script:
    return make_script(SPECS["shangrila"], 0)


def test_the_script_shows_what_the_demo_promises(script: Script) -> None:
    filmed = script.filmed_moves
    assert len(filmed) == SPECS["shangrila"].filmed
    assert any(m.startswith("+") for m in filmed)  # a recruit
    assert sum(">" in m for m in filmed) >= 3  # journeys
    end = script.start
    for text in filmed:
        end.play_text(text)
    assert end.is_over()


def test_the_film_stages_exactly_one_illegal_move(script: Script) -> None:
    film = moments(script, Shot(), 0)
    attempts = {m.truth.number for m in film if m.truth.phase == "attempt"}
    assert len(attempts) == 1
    assert any(m.filmed.hidden for m in film)  # hands over the board


def test_headless_demo_referees_a_short_film(tmp_path: Path) -> None:
    out = io.StringIO()
    page = run_demo(DemoOptions(out=tmp_path, moves=4, level=1), out)
    text = out.getvalue()
    assert "Move 1:" in text and "Final scores" in text
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["final"] is not None and report["moves_filmed"] == 4
    assert report["referee"]["moves"] == 4
    assert report["referee"]["final_table_right"]
    assert len(report["strength"]) == 4
    for name in ("index.html", "film.mp4", "scores.png", "win-chance.png", "loss.png",
                 "record.json"):
        assert (tmp_path / name).stat().st_size > 0
    assert "Final scores" in page.read_text()


@pytest.mark.slow
def test_headless_demo_with_the_simulated_sensor_board(tmp_path: Path) -> None:
    # The sensor board reads stack heights: recruits need no question.
    run_demo(DemoOptions(out=tmp_path, moves=5, level=1, sensor=True), io.StringIO())
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["referee"]["final_table_right"]
    assert report["referee"]["questions"] == 0
    assert report["referee"]["illegal_moves_caught"] == 1
