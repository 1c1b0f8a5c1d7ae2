"""Printable sheets: the ChArUco calibration target and each game's corner markers.

A :class:`Sheet` is a page image at a known resolution; :meth:`Sheet.write` saves it as
a PNG (with its resolution recorded, so image viewers print it at size) and a one-page
PDF of the paper's exact size. Every sheet prints its own sizes and a 100 mm check bar:
measure the bar after printing, and if it is not 100 mm the printer scaled the page.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.boards import MARKER_MODULES, BoardGeometry, flush_distance, marker_image
from calibration.errors import ConfigError
from calibration.pdf import pdf_bytes
from calibration.profiles import write_atomic
from calibration.targets import CharucoTarget

Image = NDArray[np.uint8]
MM_PER_INCH = 25.4
# Paper sizes in mm, portrait (width, height).
PAPER_MM = {"A4": (210.0, 297.0), "letter": (215.9, 279.4), "A3": (297.0, 420.0)}
# Printers cannot print right to the paper's edge; nothing important goes closer.
PRINT_MARGIN_MM = 10.0
# Height of a line of text on the sheets.
TEXT_MM = 3.2
CHECK_BAR_MM = 100.0
_FONT = cv2.FONT_HERSHEY_SIMPLEX
# Height in pixels of a capital letter of FONT_HERSHEY_SIMPLEX at scale 1.
_FONT_CAP_PX = 21.0


@dataclass(frozen=True, eq=False)
class Sheet:
    """A printable page: ``image`` (grey or BGR) covering ``size_mm`` at ``dpi``;
    ``origin_mm`` is where the printed target's top-left corner lies on the page."""

    image: Image
    size_mm: tuple[float, float]
    dpi: int
    title: str
    origin_mm: tuple[float, float] = (0.0, 0.0)

    def write(self, png_path: Path) -> tuple[Path, Path]:
        """Write the PNG at ``png_path`` and the PDF beside it (same name, ``.pdf``).
        Raises ``ProfileError`` if a file cannot be written."""
        pdf_path = png_path.with_suffix(".pdf")
        write_atomic(png_path, png_with_resolution(self.image, self.dpi))
        write_atomic(pdf_path, pdf_bytes(self.image, self.size_mm, self.title))
        return png_path, pdf_path


def png_with_resolution(image: Image, dpi: int) -> bytes:
    """PNG bytes of ``image`` with a ``pHYs`` chunk recording ``dpi``."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise RuntimeError("OpenCV could not encode a PNG image")
    data = encoded.tobytes()
    pixels_per_metre = round(dpi / MM_PER_INCH * 1000.0)
    body = b"pHYs" + struct.pack(">IIB", pixels_per_metre, pixels_per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    end_of_header = 8 + 4 + 4 + 13 + 4  # signature, IHDR length, type, data, CRC
    return data[:end_of_header] + chunk + data[end_of_header:]


def _px(mm: float, dpi: int) -> int:
    return round(mm * dpi / MM_PER_INCH)


def _paper(name: str, landscape: bool) -> tuple[float, float]:
    if name not in PAPER_MM:
        raise ConfigError(f"unknown paper {name!r}; known: {', '.join(PAPER_MM)}")
    w, h = PAPER_MM[name]
    return (h, w) if landscape else (w, h)


def _text(image: Image, text: str, x_mm: float, y_mm: float, dpi: int, scale: float = 1.0) -> None:
    """Write ``text`` with its baseline at (x_mm, y_mm)."""
    height_px = TEXT_MM * scale * dpi / MM_PER_INCH
    font_scale = height_px / _FONT_CAP_PX
    thickness = max(1, round(font_scale * 1.6))
    cv2.putText(
        image, text, (_px(x_mm, dpi), _px(y_mm, dpi)), _FONT, font_scale, 0, thickness, cv2.LINE_AA
    )


def _check_bar(image: Image, x_mm: float, y_mm: float, dpi: int) -> None:
    """A 100 mm bar with 10 mm ticks, and its caption."""
    x0, x1 = _px(x_mm, dpi), _px(x_mm + CHECK_BAR_MM, dpi)
    y = _px(y_mm, dpi)
    line = max(1, _px(0.4, dpi))
    cv2.line(image, (x0, y), (x1, y), 0, line)
    for i in range(11):
        x = _px(x_mm + i * 10.0, dpi)
        tick = _px(4.0 if i % 5 == 0 else 2.5, dpi)
        cv2.line(image, (x, y - tick), (x, y), 0, line)
    _text(image, "this bar must measure exactly 100 mm", x_mm + CHECK_BAR_MM + 4.0, y_mm, dpi, 0.9)


def charuco_sheet(
    target: CharucoTarget, paper: str = "A4", dpi: int = 300
) -> tuple[Sheet, CharucoTarget]:
    """The ChArUco target on a landscape sheet, and the target as it will print: its
    squares rounded to whole printer dots. Raises ``ConfigError`` if the board does not
    fit the paper with its margins and labels."""
    page = _paper(paper, landscape=True)
    square_px = _px(target.square_mm, dpi)
    printed = replace(target, square_mm=square_px * MM_PER_INCH / dpi)
    cols, rows = target.squares
    board_w, board_h = cols * printed.square_mm, rows * printed.square_mm
    label_mm = 4 * (TEXT_MM + 3.0) + 10.0
    if (
        board_w + 2 * PRINT_MARGIN_MM > page[0]
        or board_h + 2 * PRINT_MARGIN_MM + label_mm > page[1]
    ):
        raise ConfigError(
            f"a {cols}x{rows} board of {target.square_mm:g} mm squares "
            f"({board_w:.0f}x{board_h:.0f} mm) does not fit on landscape {paper} "
            f"({page[0]:g}x{page[1]:g} mm) with margins and labels; use smaller "
            "squares, fewer squares or larger paper"
        )
    image = np.full((_px(page[1], dpi), _px(page[0], dpi)), 255, dtype=np.uint8)
    board_image = target.board().generateImage(
        (cols * square_px, rows * square_px), marginSize=0, borderBits=1
    )
    x0 = (image.shape[1] - board_image.shape[1]) // 2
    y0 = _px(PRINT_MARGIN_MM, dpi)
    image[y0 : y0 + board_image.shape[0], x0 : x0 + board_image.shape[1]] = board_image
    top = (y0 + board_image.shape[0]) * MM_PER_INCH / dpi + 8.0
    left = PRINT_MARGIN_MM + 5.0
    lines = [
        f"ChArUco calibration target: {cols} x {rows} squares of {printed.square_mm:.2f} mm, "
        f"markers {target.marker_mm:.2f} mm, {target.dictionary}",
        "Print at 100% (actual size, no fit-to-page). Glue it flat on card; keep it flat.",
        f"companion calibrate camera --square-mm {printed.square_mm:.2f} "
        f"--marker-mm {target.marker_mm:.2f} --squares {cols}x{rows} "
        f"--dictionary {target.dictionary}",
    ]
    for i, line in enumerate(lines):
        _text(image, line, left, top + i * (TEXT_MM + 3.0), dpi)
    _check_bar(image, left, top + len(lines) * (TEXT_MM + 3.0) + 3.0, dpi)
    title = f"ChArUco target {cols}x{rows}, {printed.square_mm:.2f} mm squares"
    origin = (x0 * MM_PER_INCH / dpi, y0 * MM_PER_INCH / dpi)
    return Sheet(image, page, dpi, title, origin), printed


def marker_sheet(geometry: BoardGeometry, paper: str = "A4", dpi: int = 300) -> Sheet:
    """The game's corner markers on one portrait sheet: each marker inside a dashed cut
    line with its id, its corner and where its centre goes, a diagram of the board,
    instructions, and the check bar. Raises ``ConfigError`` if they do not fit."""
    if len(geometry.markers) > 4:
        raise ConfigError(
            f"the marker sheet holds 4 markers; {geometry.game} has {len(geometry.markers)}"
        )
    page = _paper(paper, landscape=False)
    # Whole printer dots per module keep the bit pattern crisp.
    side_px = max(
        MARKER_MODULES, round(_px(geometry.marker_mm, dpi) / MARKER_MODULES) * MARKER_MODULES
    )
    cut_mm = max(geometry.card_mm(i) for i in geometry.marker_ids)
    cell_w = (page[0] - 2 * PRINT_MARGIN_MM) / 2.0
    header_mm = 6 * (TEXT_MM + 2.5) + 8.0
    cell_h = cut_mm + 4 * (TEXT_MM + 2.5) + 10.0
    footer_mm = 80.0
    if cut_mm + 10.0 > cell_w or header_mm + 2 * cell_h + footer_mm > page[1] - 2 * PRINT_MARGIN_MM:
        raise ConfigError(
            f"{geometry.marker_mm:g} mm markers do not fit four to a {paper} "
            "sheet; use smaller markers or larger paper"
        )
    image = np.full((_px(page[1], dpi), _px(page[0], dpi)), 255, dtype=np.uint8)
    left = PRINT_MARGIN_MM
    w, h = geometry.size_mm
    header = [
        f"{geometry.name}: corner markers ({geometry.dictionary}, black square "
        f"{geometry.marker_mm:g} mm)",
        "Print at 100% (actual size). Cut along the dashed lines.",
        "Stick each marker on the board upright (its arrow towards the board's top edge)",
        "at the corner given below it (the board seen from the first player's seat,",
        f"{w:g} x {h:g} mm). Keep the markers flat and uncovered during play.",
        "Then: companion calibrate board --game " + geometry.game,
    ]
    y = PRINT_MARGIN_MM + TEXT_MM
    for line in header:
        _text(image, line, left, y, dpi)
        y += TEXT_MM + 2.5
    top = PRINT_MARGIN_MM + header_mm
    for index, placement in enumerate(geometry.markers[:4]):
        cx = left + cell_w * (index % 2) + cell_w / 2.0
        cy = top + cell_h * (index // 2) + cut_mm / 2.0 + 6.0
        flush = flush_distance(geometry, placement.centre_mm)
        _marker_cell(
            image,
            geometry,
            placement.id,
            side_px,
            (cx, cy),
            geometry.card_mm(placement.id) / 2.0,
            dpi,
        )
        ty = cy + cut_mm / 2.0 + TEXT_MM + 3.0
        captions = [f"id {placement.id}: {placement.corner} corner"]
        if flush is not None:
            captions += ["cut on the dashed line, then lay", "it into the corner, edges flush"]
        else:
            captions += _distance_captions(geometry, placement.centre_mm)
        for line in captions:
            _text(image, line, cx - cut_mm / 2.0 - 4.0, ty, dpi)
            ty += TEXT_MM + 2.5
    _diagram(image, geometry, (left + 5.0, top + 2 * cell_h + 2.0), 60.0, dpi)
    _check_bar(image, left, page[1] - PRINT_MARGIN_MM - 4.0, dpi)
    return Sheet(image, page, dpi, f"{geometry.name} corner markers")


def _distance_captions(geometry: BoardGeometry, centre_mm: tuple[float, float]) -> list[str]:
    w, h = geometry.size_mm
    x, y = centre_mm
    across = f"{x:g} mm from the left edge" if x <= w / 2 else f"{w - x:g} mm from the right edge"
    down = f"{y:g} mm from the top edge" if y <= h / 2 else f"{h - y:g} mm from the bottom edge"
    return [f"centre {across},", down]


def _marker_cell(
    image: Image,
    geometry: BoardGeometry,
    marker_id: int,
    side_px: int,
    centre_mm: tuple[float, float],
    half_cut_mm: float,
    dpi: int,
) -> None:
    marker = marker_image(geometry, marker_id, side_px)
    cx, cy = _px(centre_mm[0], dpi), _px(centre_mm[1], dpi)
    x0, y0 = cx - side_px // 2, cy - side_px // 2
    image[y0 : y0 + side_px, x0 : x0 + side_px] = marker
    half_cut = _px(half_cut_mm, dpi)
    dash = _px(3.0, dpi)
    line = max(1, _px(0.3, dpi))
    corners = [
        (cx - half_cut, cy - half_cut),
        (cx + half_cut, cy - half_cut),
        (cx + half_cut, cy + half_cut),
        (cx - half_cut, cy + half_cut),
    ]
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
        length = max(abs(bx - ax), abs(by - ay))
        for start in range(0, length, 2 * dash):
            end = min(start + dash, length)
            p = (ax + (bx - ax) * start // length, ay + (by - ay) * start // length)
            q = (ax + (bx - ax) * end // length, ay + (by - ay) * end // length)
            cv2.line(image, p, q, 0, line)
    # The arrow pointing to the board's top edge, outside the cut line.
    tip = (cx, cy - half_cut - _px(7.0, dpi))
    cv2.arrowedLine(
        image,
        (cx, cy - half_cut - _px(1.5, dpi)),
        tip,
        0,
        max(1, _px(0.5, dpi)),
        cv2.LINE_AA,
        tipLength=0.4,
    )


def _diagram(
    image: Image, geometry: BoardGeometry, origin_mm: tuple[float, float], side_mm: float, dpi: int
) -> None:
    """A small drawing of the board with the markers where they go."""
    w, h = geometry.size_mm
    scale = side_mm / max(w, h)
    ox, oy = origin_mm
    p0 = (_px(ox, dpi), _px(oy, dpi))
    p1 = (_px(ox + w * scale, dpi), _px(oy + h * scale, dpi))
    cv2.rectangle(image, p0, p1, 0, max(1, _px(0.4, dpi)))
    for placement in geometry.markers:
        mx, my = placement.centre_mm
        half = geometry.marker_mm / 2.0 * scale
        a = (_px(ox + mx * scale - half, dpi), _px(oy + my * scale - half, dpi))
        b = (_px(ox + mx * scale + half, dpi), _px(oy + my * scale + half, dpi))
        cv2.rectangle(image, a, b, 0, -1)
        _text(
            image,
            str(placement.id),
            ox + mx * scale + (half + 1.5 if mx < w / 2 else -half - 6.0),
            oy + my * scale + (half + TEXT_MM + 1.0 if my < h / 2 else -half - 1.5),
            dpi,
            0.9,
        )
    _text(image, "top edge", ox + w * scale / 2 - 7.0, oy - 2.0, dpi, 0.9)
    _text(
        image,
        f"board seen from above, {w:g} x {h:g} mm",
        ox + w * scale + 6.0,
        oy + h * scale / 2,
        dpi,
        0.9,
    )
