"""`companion demo` end to end, headless, on a short film: the referee reads the
rendered video through the camera pipeline, accepts the moves, and the report is
written."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from companion.demo.calibrate import DATA_FOLDER, PROFILE, data_folder
from companion.demo.film import Shot, moments
from companion.demo.recognise import camera_pipeline
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


@pytest.fixture(scope="module")
def short_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path, Path]:
    """One short headless demo (calibration, film, referee, report) for the tests below,
    run with the player's data folder at a folder of its own: the demo's folder, what
    it printed, its page and the player's data folder."""
    from calibration.profiles import DATA_DIR_ENV

    folder = tmp_path_factory.mktemp("demo")
    players = tmp_path_factory.mktemp("players-data")
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DATA_DIR_ENV, str(players))
        page = run_demo(DemoOptions(out=folder, moves=4, level=1), out)
        assert os.environ[DATA_DIR_ENV] == str(players)
    return folder, out.getvalue(), page, players


def test_headless_demo_referees_a_short_film(short_demo: tuple[Path, str, Path, Path]) -> None:
    folder, text, page, _ = short_demo
    assert "Final scores" in text
    assert "tie-break: villages held - red " in text  # words, not a raw list
    assert "nan" not in text and "None" not in text

    def no_nan(word: str) -> float:
        raise AssertionError(f"report.json holds {word}, which is not JSON")

    report = json.loads((folder / "report.json").read_text(), parse_constant=no_nan)
    assert report["final"] is not None and report["moves_filmed"] == 4
    first = report["moves_before_film"] + 1  # moves are numbered as in the whole game
    assert f"Move {first}:" in text and "Move 1:" not in text
    assert f"<td class='n'>{first}</td>" in page.read_text()
    referee = report["referee"]
    assert referee["moves"] == referee["moves_right_in_record"] == 4
    assert referee["illegal_moves_tried"] == referee["illegal_moves_caught"] == 1
    assert referee["false_flags"] == 0
    assert referee["final_table_right"]
    assert len(report["strength"]) == 4
    for name in (
        "index.html",
        "film.mp4",
        "film.webm",
        "scores.png",
        "win-chance.png",
        "loss.png",
        "record.json",
    ):
        assert (folder / name).stat().st_size > 0
    assert "Final scores" in page.read_text()
    assert "data:video/webm;base64," in page.read_text()  # the film, one browsers play


def test_the_demo_calibrates_its_table_and_reads_through_the_profile(
    short_demo: tuple[Path, str, Path, Path],
) -> None:
    from vision.appearance import AppearanceReader
    from vision.read import BoardReader
    from vision.table_profile import load_table_profile

    folder, text, page, _ = short_demo
    assert "Calibrating the table" in text
    assert text.index("Calibrating the table") < text.index("film:")
    profile_folder = folder / DATA_FOLDER / "profiles" / PROFILE
    for name in (
        "camera.json",
        "board-shangrila.json",
        "layout-shangrila.json",
        "appearance-shangrila.json",
        "empty-shangrila.png",
        "position-shangrila.png",
        "layout-shangrila.png",
    ):
        assert (profile_folder / name).stat().st_size > 0, name
    with data_folder(folder / DATA_FOLDER):
        profile = load_table_profile("shangrila", PROFILE)
    assert profile.layout is not None and profile.appearance is not None
    assert isinstance(camera_pipeline(profile, None).reader, AppearanceReader)
    assert isinstance(camera_pipeline(profile, None, "colours").reader, BoardReader)
    assert set(profile.appearance.colours["space"]) == {"red", "blue", "yellow", "violet"}
    # the report says which calibration the camera used
    calibration = json.loads((folder / "report.json").read_text())["camera_calibration"]
    assert calibration["profile"] == profile.describe()
    assert any("appearance" in line for line in calibration["profile"])
    assert (folder / calibration["layout_picture"]).is_file()
    assert "The camera's calibration" in page.read_text()
    assert f"The camera read through {profile.describe()[0]}" in text


def test_the_demo_leaves_the_players_profiles_alone(
    short_demo: tuple[Path, str, Path, Path],
) -> None:
    assert not any(short_demo[3].iterdir())
