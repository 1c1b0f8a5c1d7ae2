"""``companion calibrate ...`` end to end on rendered pictures: sheets, lens, board,
check, colours, show, and one-line errors for damaged profiles."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.boards import board_geometry, draw_board, draw_pieces
from calibration.config import CalibrationConfig
from calibration.evaluate import BOARD_PX_PER_MM, PIECE_BGR, bench_camera
from calibration.sheets import charuco_sheet
from calibration.targets import CharucoTarget
from companion.cli import main
from vision.synth import LIGHTS, Imaging, PlanarTexture, Pose, Scene, render, table_texture

# Plumbing, not accuracy, is tested here: one ray per pixel renders twice as fast.
IMAGING = Imaging(noise_sigma=1.5, blur_sigma=0.6, supersample=1)
BOARD_POSE = Pose(70.0, 5.0, 900.0, (0.0, 20.0))


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rendered photographs on disk: ChArUco views, the board, the moved board, and
    the colour captures."""
    from calibration.config import load_config

    config = load_config()
    folder = tmp_path_factory.mktemp("pictures")
    camera = bench_camera()
    sheet, _ = charuco_sheet(CharucoTarget.from_config(config.charuco))
    table = table_texture(2)
    charuco = Scene((table, PlanarTexture(sheet.image, sheet.size_mm)), LIGHTS["warm"])
    rng = np.random.default_rng(7)
    (folder / "views").mkdir()
    for i in range(8):
        pose = Pose(
            float(rng.uniform(45, 80)),
            float(rng.uniform(-180, 180)),
            float(rng.uniform(400, 600)),
            (float(rng.uniform(-100, 100)), float(rng.uniform(-60, 60))),
            float(rng.uniform(-180, 180)),
        )
        cv2.imwrite(
            str(folder / "views" / f"view{i}.png"), render(camera, pose, charuco, IMAGING, i)
        )
    board = board_geometry("shangrila")
    picture = draw_board(board, BOARD_PX_PER_MM)

    def shoot(texture: np.ndarray, name: str, seed: int, offset: float = 0.0) -> None:
        scene = Scene((table, PlanarTexture(texture, board.size_mm, (offset, 0.0))), LIGHTS["warm"])
        cv2.imwrite(str(folder / name), render(camera, BOARD_POSE, scene, IMAGING, seed))

    shoot(picture, "board.png", 20)
    shoot(picture, "moved.png", 21, offset=8.0)
    for k, (name, bgr) in enumerate(PIECE_BGR.items()):
        spots = [((100.0 + 75.0 * i, 110.0 + 90.0 * k), bgr) for i in range(4)]
        shoot(draw_pieces(picture, BOARD_PX_PER_MM, spots, board.piece_mm), f"{name}.png", 30 + k)
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_printable_sheets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "calibrate",
        "charuco-sheet",
        "--out",
        str(tmp_path / "target.png"),
        "--paper",
        "letter",
    )
    assert status == 0 and "Print at 100%" in out
    assert (tmp_path / "target.pdf").read_bytes().startswith(b"%PDF")
    status, out, _ = run(
        capsys, "calibrate", "markers", "--game", "shendao", "--out", str(tmp_path / "markers.png")
    )
    assert status == 0 and "markers 4, 5, 6, 7" in out
    assert (tmp_path / "markers.png").exists() and (tmp_path / "markers.pdf").exists()


def test_the_whole_set_up(
    pictures: Path,
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config: CalibrationConfig,
) -> None:
    status, out, _ = run(capsys, "calibrate", "camera", "--images", str(pictures / "views"))
    assert status == 0, out
    assert "camera profile saved to" in out and "view0.png: " in out
    profile = json.loads((data_dir / "profiles" / "default" / "camera.json").read_text("utf-8"))
    assert abs(profile["camera_matrix"][0][0] - 930.0) / 930.0 < 0.01

    status, out, _ = run(
        capsys,
        "calibrate",
        "board",
        "--game",
        "shangrila",
        "--image",
        str(pictures / "board.png"),
        "--overlay",
        str(tmp_path / "o.png"),
    )
    assert status == 0 and "registered from markers 0, 1, 2, 3" in out
    assert cv2.imread(str(tmp_path / "o.png")) is not None

    status, out, _ = run(
        capsys,
        "calibrate",
        "check",
        "--game",
        "shangrila",
        "--image",
        str(pictures / "board.png"),
        "--json",
    )
    figures = json.loads(out)
    assert status == 0 and figures["ok"] and figures["max_mm"] < 1.0
    status, out, _ = run(
        capsys, "calibrate", "check", "--game", "shangrila", "--image", str(pictures / "moved.png")
    )
    assert status == 1 and "TOO LARGE" in out and "register the board again" in out

    pieces = [f"--pieces={name}={pictures / (name + '.png')}" for name in PIECE_BGR]
    status, out, _ = run(
        capsys,
        "calibrate",
        "colours",
        "--game",
        "shangrila",
        "--empty",
        str(pictures / "board.png"),
        *pieces,
    )
    assert status == 0, out
    assert "colour model saved" in out and "red: Lab" in out and "4 pieces found" in out

    status, out, _ = run(
        capsys,
        "calibrate",
        "undistort",
        str(pictures / "board.png"),
        "--out",
        str(tmp_path / "straight"),
    )
    assert status == 0 and (tmp_path / "straight" / "board.png").exists()

    status, out, _ = run(capsys, "calibrate", "show")
    assert status == 0
    for name in ("camera.json", "board-shangrila.json", "colours-shangrila.json"):
        assert name in out

    colours = data_dir / "profiles" / "default" / "colours-shangrila.json"
    colours.write_text(colours.read_text("utf-8")[:200], encoding="utf-8")
    status, out, _ = run(capsys, "calibrate", "show")
    assert status == 1 and "colours-shangrila.json: REFUSED" in out and "damaged" in out

    board = data_dir / "profiles" / "default" / "board-shangrila.json"
    board.write_text(json.dumps({"kind": "companion.camera", "version": 1}), encoding="utf-8")
    status, out, err = run(
        capsys, "calibrate", "check", "--game", "shangrila", "--image", str(pictures / "board.png")
    )
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "is a camera profile, not a board profile" in err


def test_user_errors_are_one_line(
    data_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(
        capsys, "calibrate", "check", "--game", "shenshi", "--image", str(tmp_path / "none.png")
    )
    assert status == 2 and "no board profile at" in err and err.count("\n") == 1
    status, _, err = run(capsys, "calibrate", "camera", "--images", str(tmp_path))
    assert status == 2 and "no images" in err
    status, _, err = run(
        capsys, "calibrate", "charuco-sheet", "--squares", "12x9", "--out", str(tmp_path / "x.png")
    )
    assert status == 2 and "does not fit" in err
    status, _, err = run(
        capsys, "calibrate", "camera", "--images", str(tmp_path), "--profile", "../escape"
    )
    assert status == 2 and "not allowed" in err
    status, _, err = run(
        capsys,
        "calibrate",
        "markers",
        "--game",
        "shangrila",
        "--out",
        str(tmp_path / "markers.jpg"),
    )
    assert status == 2 and "ending in .png" in err


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (
        "charuco-sheet",
        "camera",
        "undistort",
        "markers",
        "board",
        "check",
        "colours",
        "show",
    ):
        with pytest.raises(SystemExit) as leaving:
            main(["calibrate", command, "--help"])
        assert leaving.value.code == 0
        out, _ = capsys.readouterr()
        assert len(out) > 300, command


@pytest.mark.slow
def test_bench_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    """About 25 s: deselected by default, run with ``-m slow``."""
    status, out, _ = run(capsys, "bench", "calibration", "--json")
    figures = json.loads(out)
    assert status == 0
    assert {"rendered_charuco", "registration", "colours"} <= set(figures)
