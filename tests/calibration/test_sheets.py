"""Printed sheets come out at their true size, as PNG and as PDF."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.boards import board_geometry
from calibration.config import CalibrationConfig
from calibration.errors import ConfigError
from calibration.pdf import POINTS_PER_MM, pdf_bytes
from calibration.sheets import MM_PER_INCH, charuco_sheet, marker_sheet, png_with_resolution
from calibration.targets import CharucoTarget, aruco_dictionary


def test_pdf_page_is_the_paper_and_the_xref_table_is_right() -> None:
    image = np.zeros((30, 20, 3), np.uint8)
    image[:, :, 2] = 255  # red, in OpenCV's BGR order
    data = pdf_bytes(image, (210.0, 297.0), "a (title)")
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert box is not None
    assert float(box[1]) == pytest.approx(210.0 * POINTS_PER_MM, abs=1e-3)
    assert float(box[2]) == pytest.approx(297.0 * POINTS_PER_MM, abs=1e-3)
    start = int(re.search(rb"startxref\n(\d+)", data)[1])  # type: ignore[index]
    entries = re.findall(rb"(\d{10}) 00000 n", data[start:])
    for number, offset in enumerate(entries, start=1):
        assert data[int(offset) :].startswith(f"{number} 0 obj".encode())
    stream = re.search(rb"/Length (\d+) >>\nstream\n", data)
    assert stream is not None
    pixels = zlib.decompress(data[stream.end() : stream.end() + int(stream[1])])
    assert pixels[:3] == b"\xff\x00\x00"  # stored as RGB
    assert b"a \\(title\\)" in data


def test_pdf_refuses_other_images() -> None:
    with pytest.raises(ValueError, match="uint8"):
        pdf_bytes(np.zeros((2, 2), np.float32), (10.0, 10.0))
    with pytest.raises(ValueError, match="not positive"):
        pdf_bytes(np.zeros((2, 2), np.uint8), (0.0, 10.0))


def test_png_records_its_resolution() -> None:
    data = png_with_resolution(np.zeros((4, 4), np.uint8), 300)
    at = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert (x, y, unit) == (11811, 11811, 1)
    assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED).shape == (4, 4)


def test_charuco_squares_print_at_their_stated_size(
    config: CalibrationConfig, tmp_path: Path
) -> None:
    target = CharucoTarget.from_config(config.charuco)
    sheet, printed = charuco_sheet(target, "A4", 300)
    assert sheet.image.shape == (2480, 3508)  # A4 landscape at 300 dpi
    assert abs(printed.square_mm - target.square_mm) < MM_PER_INCH / 300
    corners, ids, _, _ = cv2.aruco.CharucoDetector(printed.board()).detectBoard(sheet.image)
    assert len(ids) == printed.corner_count
    order = np.argsort(ids.reshape(-1))
    pitch_px = np.diff(corners.reshape(-1, 2)[order][:6, 0]).mean()
    assert pitch_px * MM_PER_INCH / 300 == pytest.approx(printed.square_mm, abs=1e-3)
    first = corners.reshape(-1, 2)[order][0]
    expected = (np.array(sheet.origin_mm) + printed.square_mm) * 300 / MM_PER_INCH - 0.5
    np.testing.assert_allclose(first, expected, atol=0.05)
    png, pdf = sheet.write(tmp_path / "target.png")
    assert png.exists() and pdf.read_bytes().startswith(b"%PDF")


def test_a_board_too_large_for_the_paper_is_refused(config: CalibrationConfig) -> None:
    target = CharucoTarget((9, 7), 40.0, 30.0, "DICT_5X5_100")
    with pytest.raises(ConfigError, match="does not fit on landscape A4"):
        charuco_sheet(target, "A4", 150)
    with pytest.raises(ConfigError, match="unknown paper"):
        charuco_sheet(CharucoTarget.from_config(config.charuco), "B5", 150)


def test_marker_sheet_holds_the_games_markers_at_size() -> None:
    board = board_geometry("shendao")
    sheet = marker_sheet(board, "A4", 300)
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(board.dictionary))
    corners, ids, _ = detector.detectMarkers(sheet.image)
    assert sorted(ids.reshape(-1).tolist()) == list(board.marker_ids)
    for quad in corners:
        side_px = np.linalg.norm(quad[0, 1] - quad[0, 0])
        assert side_px * MM_PER_INCH / 300 == pytest.approx(board.marker_mm, abs=0.15)


def test_unknown_dictionary() -> None:
    with pytest.raises(ConfigError, match="unknown ArUco dictionary 'DICT_9X9'"):
        CharucoTarget((7, 5), 30.0, 22.0, "DICT_9X9")
