"""A one-page PDF holding one image at an exact physical size.

Printed sheets (calibration targets, board markers) must come out at their true size:
the page is exactly the image's size in millimetres and the image fills it, so a printer
set to "actual size" (100%) reproduces every square to within its dot pitch. Written in
plain Python (zlib-compressed image XObject) to avoid a PDF library dependency.
"""

from __future__ import annotations

import zlib

import numpy as np
from numpy.typing import NDArray

POINTS_PER_MM = 72.0 / 25.4


def pdf_bytes(image: NDArray[np.uint8], size_mm: tuple[float, float], title: str = "") -> bytes:
    """A single-page PDF showing ``image`` (uint8 grey, or BGR as OpenCV holds colour)
    over a page of ``size_mm`` (width, height). Raises ``ValueError`` for an image of
    another shape or type, or a page size that is not positive."""
    if (
        image.dtype != np.uint8
        or image.ndim not in (2, 3)
        or (image.ndim == 3 and image.shape[2] != 3)
    ):
        raise ValueError(f"expected a uint8 grey or BGR image, not {image.dtype} {image.shape}")
    if not (size_mm[0] > 0 and size_mm[1] > 0):
        raise ValueError(f"page size {size_mm} mm is not positive")
    height, width = image.shape[:2]
    if image.ndim == 2:
        colour_space, samples = "/DeviceGray", image
    else:
        colour_space, samples = "/DeviceRGB", image[:, :, ::-1]
    pixels = zlib.compress(np.ascontiguousarray(samples).tobytes(), 9)
    page_w = size_mm[0] * POINTS_PER_MM
    page_h = size_mm[1] * POINTS_PER_MM
    content = f"q {page_w:.4f} 0 0 {page_h:.4f} 0 0 cm /Im0 Do Q".encode("ascii")
    info = f"<< /Title ({_pdf_text(title)}) /Producer (companion) >>".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.4f} {page_h:.4f}] "
            f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>"
        ).encode("ascii"),
        (
            f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} "
            f"/ColorSpace {colour_space} /BitsPerComponent 8 /Interpolate false "
            f"/Filter /FlateDecode /Length {len(pixels)} >>\nstream\n"
        ).encode("ascii")
        + pixels
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode("ascii") + content + b"\nendstream",
        info,
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode("ascii") + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode("ascii")
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode("ascii")
    return bytes(out)


def _pdf_text(text: str) -> str:
    """``text`` as the inside of a PDF literal string (ASCII, parentheses escaped)."""
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    return ascii_text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
