"""``companion bench calibration``: the figures of ``calibration.evaluate``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any

from calibration.errors import CalibrationError
from companion.cli import Subparsers, positive, user_errors
from engines.registry import GAMES

ORDER = 20
"""Where the topic is listed in ``companion bench --help``."""


def register(bench_sub: Subparsers) -> None:
    """Add ``companion bench calibration``."""
    parser = bench_sub.add_parser(
        "calibration",
        help="calibration accuracy on rendered views and real photographs",
        description="Measure: lens figures recovered from rendered ChArUco views with known "
        "intrinsics; agreement with OpenCV's reference calibration of real chessboard "
        "photographs; board registration error in mm at 1280x720; colour separation under "
        "the renderer's hardest light. Each figure is printed with its tolerance.",
    )
    parser.add_argument(
        "--views", type=positive(int), default=12, help="rendered ChArUco views (default 12)"
    )
    parser.add_argument(
        "--real-photos",
        type=Path,
        metavar="DIR",
        default=None,
        help="the OpenCV left*.jpg photographs (default: the copy in tests/data/calib-real)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=calibration_command)


@user_errors(CalibrationError)
def calibration_command(args: argparse.Namespace) -> int:
    from calibration import evaluate  # deferred: OpenCV and the renderer load only here
    from calibration.config import load_config  # deferred: with the measuring

    if args.real_photos is None:
        args.real_photos = evaluate.REAL_PHOTOS_DIR
    config = load_config()
    figures: dict[str, Any] = {}
    start = time.perf_counter()
    intrinsics, lens = evaluate.rendered_intrinsics(config, args.views, args.seed)
    figures["rendered_charuco"] = dataclasses.asdict(intrinsics)
    if not args.json:
        print(
            f"rendered ChArUco, {intrinsics.used} of {intrinsics.views} views at 1280x720: "
            f"fx {intrinsics.fx_error_pct:+.3f}%, fy {intrinsics.fy_error_pct:+.3f}%, "
            f"cx {intrinsics.cx_error_pct:+.3f}%, cy {intrinsics.cy_error_pct:+.3f}%, "
            f"RMS {intrinsics.rms_px:.3f} px (tolerance: focal within "
            f"{evaluate.FOCAL_TOLERANCE_PCT}%)",
            flush=True,
        )
    if args.real_photos.is_dir():
        real = evaluate.real_photos(config, args.real_photos)
        figures["real_photos"] = dataclasses.asdict(real)
        if not args.json:
            worst = max(
                real.intrinsics_difference_pct, key=lambda k: abs(real.intrinsics_difference_pct[k])
            )
            print(
                f"real photos, {real.views} views: RMS {real.rms_px:.4f} px, "
                f"{round(real.rms_difference_px, 4) + 0.0:+.4f} px from OpenCV's reference; "
                f"intrinsics within "
                f"{real.worst_intrinsics_pct:.4f}% (worst {worst}) (tolerance: RMS "
                f"{evaluate.REAL_RMS_TOLERANCE_PX} px, intrinsics "
                f"{evaluate.REAL_INTRINSICS_TOLERANCE_PCT}%)",
                flush=True,
            )
    elif not args.json:
        print(f"real photos: not found at {args.real_photos} (skipped)")
    figures["registration"] = []
    for game in GAMES:
        reg = evaluate.registration_accuracy(config, game, lens, args.seed)
        figures["registration"].append(dataclasses.asdict(reg))
        if not args.json:
            print(
                f"registration {game} at 1280x720 (lens from the rendered calibration): "
                f"{reg.rms_mm:.3f} mm RMS, {reg.max_mm:.3f} mm max over {reg.points} board "
                f"points in {reg.poses} poses; check reports {reg.check_max_mm:.2f} mm max "
                f"(tolerance: {evaluate.REGISTRATION_TOLERANCE_MM} mm)",
                flush=True,
            )
    colours = evaluate.colour_separation(config, args.seed)
    figures["colours"] = dataclasses.asdict(colours)
    if not args.json:
        a, b = colours.closest
        print(
            f"colours under the '{colours.light}' light: closest pair {a}/{b} "
            f"{colours.separation:.1f} standard deviations apart; "
            f"{colours.test_correct}/{colours.test_patches} new patches right "
            f"(smallest margin {colours.smallest_margin:.1f}); training samples "
            f"{colours.training_accuracy:.1%} right"
        )
        print(f"({time.perf_counter() - start:.0f} s)")
    else:
        figures["seconds"] = round(time.perf_counter() - start, 1)
        print(json.dumps(figures))
    return 0
