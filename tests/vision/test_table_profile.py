"""A calibration profile reaches the camera: ``vision read`` and the app read with the
profile's layout and set appearance; damaged parts are refused or skipped."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from calibration.errors import ProfileError
from calibration.layout import ElementFit, LayoutFit, save_layout
from calibration.profiles import layout_path
from companion.cli import main
from vision.appearance import AppearanceReader, appearance_paths, load_fitted, save_appearance
from vision.evaluate.appearance import Setup, calibrated_reader, load_setup
from vision.synth.world import make_world
from vision.table_profile import load_table_profile

SETUP = Setup("painted", 2951, "easy", (640, 360))


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return load_setup(SETUP, tmp_path_factory.mktemp("pictures"), lambda _: None)


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pictures) -> str:  # type: ignore[no-untyped-def]
    """A profile ``table`` holding the world's layout and its set's appearance."""
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    reader, _ = calibrated_reader(pictures, load_fitted("shangrila"))
    save_appearance(reader.appearance, "table")
    model = make_world("shangrila", SETUP.kind, SETUP.seed).model
    fits = {
        name: ElementFit(name, e.centre_mm, e.angle_deg, 0.0, 1.0, 0.0, "outline")
        for name, e in model.elements.items()
    }
    save_layout(LayoutFit(model, fits), layout_path("shangrila", "table"))
    return "table"


def test_the_profile_gives_the_appearance_reader_and_the_layout(profile: str) -> None:
    table = load_table_profile("shangrila", profile)
    assert isinstance(table.reader(), AppearanceReader)
    assert table.layout is not None
    world = make_world("shangrila", SETUP.kind, SETUP.seed)
    assert table.model.elements["bridge 0-1"].centre_mm == pytest.approx(
        world.model.elements["bridge 0-1"].centre_mm
    )
    assert "the set's appearance" in " ".join(table.describe())


def test_vision_read_uses_the_profile(
    profile: str,
    pictures,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
) -> None:
    image, truth = pictures.plays[0]
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), image)
    truth_file = tmp_path / "truth.json"
    truth_file.write_text(
        json.dumps(
            {"observation": truth["visible"], "camera": pictures.camera, "pose": pictures.pose}
        ),
        encoding="utf-8",
    )
    status = main(
        [
            "vision",
            "read",
            "--game",
            "shangrila",
            str(picture),
            "--profile",
            profile,
            "--locate",
            "truth",
            "--truth",
            str(truth_file),
        ]
    )
    out = capsys.readouterr().out
    assert "the set's appearance" in out and "the board's own layout" in out
    assert status == 0, out
    # without the profile the made-up board is not read at all
    main(
        [
            "vision",
            "read",
            "--game",
            "shangrila",
            str(picture),
            "--no-profile",
            "--locate",
            "truth",
            "--truth",
            str(truth_file),
        ]
    )
    assert "no profile used" in capsys.readouterr().out


def test_a_damaged_part_of_a_named_profile_is_an_error(profile: str) -> None:
    document, _ = appearance_paths("shangrila", profile)
    document.write_text('{"kind": "companion.appearance", "version": 1}', encoding="utf-8")
    with pytest.raises(ProfileError):
        load_table_profile("shangrila", profile)
    status = main(["vision", "read", "--game", "shangrila", "x.png", "--profile", profile])
    assert status == 2


def test_a_damaged_part_of_the_default_profile_is_skipped_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pictures
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    reader, _ = calibrated_reader(pictures, load_fitted("shangrila"))
    document = save_appearance(reader.appearance)
    document.write_text("{", encoding="utf-8")
    table = load_table_profile("shangrila")
    assert table.appearance is None
    assert any("not used" in note for note in table.describe())


def test_the_app_reads_with_the_profile(profile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.app.recognition import VisionRecogniser, make_recogniser

    recogniser = make_recogniser("shangrila", profile=profile)
    assert isinstance(recogniser, VisionRecogniser)
    assert isinstance(recogniser.pipeline.reader, AppearanceReader)
