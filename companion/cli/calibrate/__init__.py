"""``companion calibrate ...`` (the figures of ``companion bench calibration`` are in
``companion.cli.bench.calibration``).

The commands set a table up once: the camera's lens (``charuco-sheet``, ``camera``,
``undistort``), where the board lies (``markers``, ``board``, ``check``) and what the
players' colours look like (``colours``); ``show`` lists what is stored. OpenCV loads
inside the handlers, so ``companion --help`` stays quick.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from calibration.config import load_config
from calibration.errors import CalibrationError, ProfileError, SourceError
from calibration.profiles import (
    board_path,
    camera_path,
    colours_path,
    data_dir,
    list_profiles,
    profile_dir,
    reference_image_path,
    write_atomic,
)
from companion.cli import UsageError, camera_index, positive
from companion.cli import user_errors as cli_user_errors
from companion.cli.calibrate.layout import add_layout_command

if TYPE_CHECKING:
    from calibration.config import CalibrationConfig
    from calibration.intrinsics import CameraProfile

GAMES = ("shangrila", "shendao", "shenshi")
ORDER = 50
"""Where the group is listed in ``companion --help``."""


user_errors = cli_user_errors(CalibrationError)
"""The calibration package's errors become one-line usage errors."""


# --- argument types -------------------------------------------------------------------


def _grid(text: str) -> tuple[int, int]:
    from calibration.targets import parse_grid  # deferred: loads OpenCV

    try:
        return parse_grid(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _numbers(text: str, count: int, what: str) -> tuple[float, ...]:
    parts = text.replace(";", " ").replace(",", " ").split()
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != count:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return values


def _corners(text: str) -> tuple[float, ...]:
    return _numbers(text, 8, "four corners 'x,y x,y x,y x,y' in pixels")


def _region(text: str) -> tuple[float, ...]:
    return _numbers(text, 4, "a rectangle 'x,y,width,height' in board mm")


def _piece(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not COLOUR=FILE (like red=red.jpg)")
    return name.strip(), Path(path)


# --- registration of the commands ---------------------------------------------------------


def _common(
    parser: argparse.ArgumentParser, profile: bool = True, config: bool = True, boards: bool = False
) -> None:
    if profile:
        parser.add_argument(
            "--profile",
            default="default",
            metavar="NAME",
            help="the table set-up to use (default: 'default'); profiles live "
            "in the data folder, or $COMPANION_DATA_DIR if set",
        )
    if config:
        parser.add_argument(
            "--config",
            metavar="FILE",
            type=Path,
            help="thresholds and defaults (default: calibration/config.json)",
        )
    if boards:
        parser.add_argument(
            "--boards",
            metavar="FILE",
            type=Path,
            help="board geometry (default: calibration/boards.json)",
        )


def _source(parser: argparse.ArgumentParser, what: str) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--image", type=Path, metavar="FILE", help=f"a photograph of {what}")
    group.add_argument(
        "--camera",
        type=camera_index,
        metavar="N",
        help=f"take the picture of {what} from camera N (0 is the first)",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion calibrate`` and its commands."""
    calibrate = sub.add_parser(
        "calibrate",
        help="set up a camera over a table: lens, board position, colours",
        description="One-time set-up of a camera over a table: the camera's lens, where the "
        "board lies in the picture and what each player's colour looks like under this "
        "light. Steps, in order: charuco-sheet, camera, markers, board, check, colours. "
        "See docs/calibration.md.",
    )
    commands = calibrate.add_subparsers(dest="calibrate_command", required=True, metavar="COMMAND")

    sheet = commands.add_parser(
        "charuco-sheet",
        help="write the printable ChArUco target (PNG and PDF)",
        description="Write the ChArUco calibration target as a PNG and a one-page PDF of the "
        "paper's exact size. Print it at 100%% (actual size), check the 100 mm bar, and "
        "glue it flat on card.",
    )
    sheet.add_argument(
        "--out",
        type=Path,
        metavar="FILE.png",
        help="where to write the PNG; the PDF goes beside it "
        "(default: charuco-COLSxROWS-PAPER.png here)",
    )
    sheet.add_argument(
        "--squares",
        type=_grid,
        metavar="COLSxROWS",
        help="squares across and down (default from config: 7x5)",
    )
    sheet.add_argument("--square-mm", type=positive(float), help="square side in mm")
    sheet.add_argument("--marker-mm", type=positive(float), help="marker side in mm")
    sheet.add_argument("--dictionary", help="ArUco dictionary (default DICT_5X5_100)")
    sheet.add_argument("--paper", help="A4 (default), letter or A3")
    sheet.add_argument("--dpi", type=positive(int), help="printer resolution (default 300)")
    _common(sheet, profile=False)
    sheet.set_defaults(handler=charuco_sheet_command)

    camera = commands.add_parser(
        "camera",
        help="calibrate the camera's lens from views of the printed target",
        description="Find the printed target (ChArUco, or a classic chessboard) in photographs "
        "from a folder, a video or a live camera, fit the lens (focal lengths, principal "
        "point, five distortion coefficients) and store the camera profile. Views that "
        "hurt the fit are left out, each with its reason. Take 15-25 views: target near "
        "the edges and corners of the picture, tilted up to 45 degrees, never blurred.",
    )
    group = camera.add_mutually_exclusive_group(required=True)
    group.add_argument("--images", type=Path, metavar="DIR", help="a folder of photographs")
    group.add_argument("--video", type=Path, metavar="FILE", help="a video of the target")
    group.add_argument(
        "--camera", type=camera_index, metavar="N", help="live camera N (0 is the first)"
    )
    camera.add_argument(
        "--target",
        choices=("charuco", "chessboard"),
        default="charuco",
        help="the printed target (default charuco)",
    )
    camera.add_argument(
        "--squares",
        type=_grid,
        metavar="COLSxROWS",
        help="ChArUco squares across and down (default 7x5)",
    )
    camera.add_argument(
        "--inner-corners",
        type=_grid,
        metavar="COLSxROWS",
        help="chessboard inner corners across and down (default 9x6)",
    )
    camera.add_argument(
        "--square-mm", type=positive(float), help="the printed square side in mm, as measured"
    )
    camera.add_argument("--marker-mm", type=positive(float), help="ChArUco marker side in mm")
    camera.add_argument("--dictionary", help="ChArUco's ArUco dictionary (default DICT_5X5_100)")
    camera.add_argument(
        "--views",
        type=positive(int),
        help="from a video or camera: stop after this many good views (default 25)",
    )
    camera.add_argument(
        "--max-view-error",
        type=positive(float),
        metavar="PX",
        help="keep any view whose own error is below this (default 1.5 px)",
    )
    camera.add_argument("--json", action="store_true", help="print the profile as JSON")
    _common(camera)
    camera.set_defaults(handler=camera_command)

    undistort = commands.add_parser(
        "undistort",
        help="straighten photographs with the camera profile",
        description="Remove the lens distortion from photographs taken by the calibrated "
        "camera at the profile's image size (straight lines come out straight).",
    )
    undistort.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    undistort.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder for the straightened images (same file names)",
    )
    _common(undistort, config=False)
    undistort.set_defaults(handler=undistort_command)

    markers = commands.add_parser(
        "markers",
        help="write the printable corner markers of a game's board",
        description="Write the ArUco markers to stick at the corners of a game's board, with "
        "cut lines and where each one goes, as PNG and PDF. Print at 100%%.",
    )
    markers.add_argument("--game", choices=GAMES, required=True)
    markers.add_argument(
        "--out",
        type=Path,
        metavar="FILE.png",
        help="where to write the PNG (default: markers-GAME-PAPER.png here)",
    )
    markers.add_argument("--paper", default="A4", help="A4 (default), letter or A3")
    markers.add_argument(
        "--dpi", type=positive(int), default=300, help="printer resolution (default 300)"
    )
    _common(markers, profile=False, config=False, boards=True)
    markers.set_defaults(handler=markers_command)

    board = commands.add_parser(
        "board",
        help="register where the board lies in the camera's picture",
        description="Find the board in a picture from the camera in its playing position and "
        "store where it lies. With markers (default) the board may be moved later and "
        "registered again in a second; with --method reference the board needs no markers: "
        "a picture of the empty board is kept and later frames are compared with it. Uses "
        "the camera profile when there is one.",
    )
    _source(board, "the board")
    board.add_argument("--game", choices=GAMES, required=True)
    board.add_argument(
        "--method",
        choices=("markers", "reference"),
        default="markers",
        help="markers (default) or reference (empty board, no markers)",
    )
    board.add_argument(
        "--corners",
        type=_corners,
        metavar="'x,y x,y x,y x,y'",
        help="reference method: the board's corners in the picture (top-left, "
        "top-right, bottom-right, bottom-left) instead of finding its outline",
    )
    board.add_argument(
        "--overlay",
        type=Path,
        metavar="FILE.png",
        help="also write the picture with the board model drawn on it",
    )
    _common(board, boards=True)
    board.set_defaults(handler=board_command)

    check = commands.add_parser(
        "check",
        help="measure the board registration on a new picture",
        description="Compare a new picture with the stored registration and report the error "
        "in mm on the board; optionally draw the board model over the picture. Exit status "
        "0 when the largest error is within the limit (3 mm), 1 when the board or the camera "
        "has moved and the board must be registered again.",
    )
    _source(check, "the board")
    check.add_argument("--game", choices=GAMES, required=True)
    check.add_argument(
        "--overlay",
        type=Path,
        metavar="FILE.png",
        help="write the picture with the board model drawn on it",
    )
    check.add_argument("--json", action="store_true", help="print the figures as JSON")
    _common(check)
    check.set_defaults(handler=check_command)

    colours = commands.add_parser(
        "colours",
        help="learn the players' colours under this table's light",
        description="Guided capture: a picture of the empty board, then one picture per "
        "colour with that colour's pieces spread on the board. Fits a colour model, stored "
        "with the profile. White balance comes from the board's border strip, or from a "
        "grey card lying on the board in the empty-board picture (--grey-card).",
    )
    colours.add_argument("--game", choices=GAMES, required=True)
    colours.add_argument("--empty", type=Path, metavar="FILE", help="picture of the empty board")
    colours.add_argument(
        "--pieces",
        type=_piece,
        action="append",
        metavar="COLOUR=FILE",
        help="picture of one colour's pieces on the board (repeat per colour)",
    )
    colours.add_argument(
        "--camera",
        type=camera_index,
        metavar="N",
        help="take the pictures from camera N, prompting for each",
    )
    colours.add_argument(
        "--colours",
        metavar="NAMES",
        help="with --camera: comma-separated colours (default: the game's)",
    )
    colours.add_argument(
        "--grey-card",
        type=_region,
        metavar="X,Y,W,H",
        help="where a grey card lies in the empty-board picture (board mm)",
    )
    colours.add_argument(
        "--seed", type=int, default=0, help="random seed for picking samples (default 0)"
    )
    _common(colours)
    colours.set_defaults(handler=colours_command)

    show = commands.add_parser(
        "show",
        help="list the stored profiles and check every file",
        description="List the profiles in the data folder ($COMPANION_DATA_DIR when set, "
        "else the app's user data folder) and what each holds: the camera profile, the "
        "board registrations and the colour models. Every file is read and checked as the "
        "other commands would; exit status 1 if a file is refused (damaged, foreign or from "
        "a newer version).",
    )
    show.add_argument("--profile", metavar="NAME", help="only this profile")
    show.set_defaults(handler=show_command)

    add_layout_command(commands)


# --- shared loading -------------------------------------------------------------------------


def _config(args: argparse.Namespace) -> CalibrationConfig:
    return load_config(getattr(args, "config", None))


def _geometry(args: argparse.Namespace) -> Any:
    from calibration.boards import board_geometry  # deferred: loads OpenCV

    return board_geometry(args.game, getattr(args, "boards", None))


def _camera_profile(name: str, required: bool = False) -> CameraProfile | None:
    """The profile's camera profile; ``None`` when there is none and it is not
    ``required``. A file that exists but is refused always raises."""

    if not camera_path(name).exists() and not required:
        return None
    return _required_camera_profile(name)


def _required_camera_profile(name: str) -> CameraProfile:
    from calibration.intrinsics import load_camera_profile  # deferred: loads OpenCV

    return load_camera_profile(camera_path(name))


def _png_path(path: Path | None, default: str) -> Path:
    out = path or Path(default)
    if out.suffix.lower() != ".png":
        raise UsageError(f"--out {out}: give a file name ending in .png (the PDF goes beside it)")
    return out


def _frame(args: argparse.Namespace) -> Any:
    from calibration.sources import grab_frame, read_image  # deferred: loads OpenCV

    if args.image is not None:
        return read_image(args.image)
    return grab_frame(args.camera)


def _print_warnings(warnings: Iterable[str]) -> None:
    for warning in warnings:
        print(f"warning: {warning}")


# --- handlers -----------------------------------------------------------------------------


@user_errors
def charuco_sheet_command(args: argparse.Namespace) -> int:
    from calibration.sheets import charuco_sheet  # deferred: loads OpenCV
    from calibration.targets import CharucoTarget  # deferred: loads OpenCV

    defaults = _config(args).charuco
    target = CharucoTarget(
        args.squares or defaults.squares,
        args.square_mm or defaults.square_mm,
        args.marker_mm or defaults.marker_mm,
        args.dictionary or defaults.dictionary,
    )
    paper = args.paper or defaults.paper
    sheet, printed = charuco_sheet(target, paper, args.dpi or defaults.dpi)
    cols, rows = target.squares
    png, pdf = sheet.write(_png_path(args.out, f"charuco-{cols}x{rows}-{paper}.png"))
    print(f"wrote {png} and {pdf}: {printed.describe()} on {paper}")
    print(
        "Print at 100% (actual size), check that the bar measures 100 mm, glue the sheet "
        "flat on card, then measure a square and pass it as --square-mm to "
        "'companion calibrate camera'."
    )
    return 0


@user_errors
def markers_command(args: argparse.Namespace) -> int:
    from calibration.sheets import marker_sheet  # deferred: loads OpenCV

    geometry = _geometry(args)
    sheet = marker_sheet(geometry, args.paper, args.dpi)
    png, pdf = sheet.write(_png_path(args.out, f"markers-{geometry.game}-{args.paper}.png"))
    ids = ", ".join(str(i) for i in geometry.marker_ids)
    print(
        f"wrote {png} and {pdf}: markers {ids} ({geometry.dictionary}, "
        f"{geometry.marker_mm:g} mm) for {geometry.name}"
    )
    print(
        "Print at 100% (actual size), cut out the markers and stick them as the sheet shows; "
        f"then run 'companion calibrate board --game {geometry.game}'."
    )
    return 0


def _target(args: argparse.Namespace, config: CalibrationConfig) -> Any:
    from calibration.targets import CharucoTarget, ChessboardTarget  # deferred: loads OpenCV

    if args.target == "chessboard":
        return ChessboardTarget(
            args.inner_corners or config.chessboard.inner_corners,
            args.square_mm or config.chessboard.square_mm,
        )
    defaults = config.charuco
    return CharucoTarget(
        args.squares or defaults.squares,
        args.square_mm or defaults.square_mm,
        args.marker_mm or defaults.marker_mm,
        args.dictionary or defaults.dictionary,
    )


@user_errors
def camera_command(args: argparse.Namespace) -> int:
    from calibration.intrinsics import (  # deferred: loads OpenCV
        calibrate_camera,
        save_camera_profile,
    )
    from calibration.sources import (  # deferred: loads OpenCV
        camera_frames,
        folder_frames,
        video_frames,
    )
    from calibration.targets import RejectedView  # deferred: loads OpenCV

    config = _config(args)
    camera_config = config.camera
    if args.max_view_error is not None:
        camera_config = dataclasses.replace(camera_config, max_view_error_px=args.max_view_error)
    if args.views is not None:
        camera_config = dataclasses.replace(camera_config, stream_views=args.views)
    target = _target(args, config)
    path = camera_path(args.profile)
    frames: Iterable[tuple[str, Any]]
    if args.images is not None:
        frames, stream = folder_frames(args.images), False
    elif args.video is not None:
        frames, stream = video_frames(args.video, camera_config.video_frame_step), True
    else:
        frames, stream = (
            camera_frames(
                args.camera, camera_config.camera_interval_s, camera_config.camera_timeout_s
            ),
            True,
        )
        if not args.json:
            print(
                f"Show the target to camera {args.camera}; move and tilt it between views. "
                f"Stopping after {camera_config.stream_views} good views."
            )

    def report(outcome: Any) -> None:
        if args.json:
            return
        if isinstance(outcome, RejectedView):
            print(f"{outcome.label}: not used: {outcome.reason}")
        else:
            print(f"{outcome.label}: {len(outcome.ids)} corners")

    from calibration.targets import collect_views  # deferred: loads OpenCV

    if not args.json:
        print(f"target: {target.describe()}")
    views, rejected = collect_views(camera_config, target, frames, stream, report)
    result = calibrate_camera(camera_config, views, rejected, target.describe())
    profile = result.profile
    save_camera_profile(profile, path)
    stale = sorted(p.name for p in profile_dir(args.profile).glob("board-*.json"))
    if args.json:
        print(
            json.dumps(
                {
                    "path": str(path),
                    "coverage": result.coverage,
                    "warnings": list(result.warnings),
                    "profile": profile.to_json(),
                }
            )
        )
        return 0
    for view in profile.rejected[len(rejected) :]:
        print(f"{view.label}: left out of the fit: {view.reason}")
    w, h = profile.image_size
    worst = max(profile.views, key=lambda v: v.error_px)
    k1, k2, p1, p2, k3 = profile.distortion
    print(f"camera profile saved to {path}")
    print(f"  image size {w}x{h}")
    print(
        f"  focal length fx {profile.fx:.2f} px, fy {profile.fy:.2f} px; principal point "
        f"({profile.cx:.2f}, {profile.cy:.2f}) px"
    )
    print(f"  distortion k1 {k1:.4f}, k2 {k2:.4f}, p1 {p1:.5f}, p2 {p2:.5f}, k3 {k3:.4f}")
    print(
        f"  RMS reprojection error {profile.rms_px:.3f} px over {len(profile.views)} views "
        f"(worst {worst.label}: {worst.error_px:.2f} px); {len(profile.rejected)} views not "
        f"used; corners covered {result.coverage:.0%} of the image"
    )
    _print_warnings(result.warnings)
    if stale:
        print(f"note: register the board again ({', '.join(stale)} used the old lens figures)")
    return 0


@user_errors
def undistort_command(args: argparse.Namespace) -> int:
    from calibration.intrinsics import undistort_image  # deferred: loads OpenCV
    from calibration.sources import read_image, shown, write_image  # deferred: loads OpenCV

    profile = _required_camera_profile(args.profile)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.images:
        image = read_image(path)
        out = args.out / path.name
        if out.resolve() == path.resolve():
            raise SourceError(f"{shown(out)} would overwrite its own input; choose another --out")
        write_image(out, undistort_image(profile, image))
        print(f"wrote {shown(out)}")
    return 0


@user_errors
def board_command(args: argparse.Namespace) -> int:
    from calibration.registration import (  # deferred: loads OpenCV
        draw_overlay,
        register_with_outline,
        save_board_profile,
    )
    from vision.locate import register_board  # deferred: loads OpenCV

    config = _config(args)
    geometry = _geometry(args)
    camera = _camera_profile(args.profile)
    image = _frame(args)
    if args.corners is not None and args.method != "reference":
        raise UsageError("--corners goes with --method reference")
    if args.method == "markers":
        registration = register_board(config.registration, geometry, image, camera)
    else:
        corners = None if args.corners is None else np.array(args.corners).reshape(4, 2)
        registration, png = register_with_outline(
            config.registration, geometry, image, camera, corners
        )
        write_atomic(reference_image_path(args.game, args.profile), png)
    profile = registration.profile
    path = board_path(args.game, args.profile)
    save_board_profile(profile, path)
    print(f"board profile saved to {path}")
    if profile.method == "markers":
        print(
            f"  {geometry.name} registered from markers "
            f"{', '.join(map(str, profile.markers_seen))}; they fit the board model to "
            f"{profile.fit_rms_mm:.2f} mm RMS"
        )
    else:
        print(f"  {geometry.name} registered from its outline; reference picture kept beside it")
    print(
        "  lens distortion: "
        + (
            "corrected with the camera profile"
            if profile.camera
            else "not corrected (no camera profile)"
        )
    )
    _print_warnings(registration.warnings)
    if args.overlay is not None:
        _write_image(args.overlay, draw_overlay(config.registration, profile, camera, image))
        print(f"wrote {args.overlay}")
    if colours_path(args.game, args.profile).exists():
        print(
            "note: capture the colours again ('companion calibrate colours'): the colour "
            "model belongs to the previous registration"
        )
    return 0


def _write_image(path: Path, image: Any) -> None:
    from calibration.sources import write_image  # deferred: loads OpenCV

    write_image(path, image)


@user_errors
def check_command(args: argparse.Namespace) -> int:
    from calibration.registration import (  # deferred: loads OpenCV
        check_registration,
        draw_overlay,
        load_board_profile,
        load_reference_image,
    )

    config = _config(args)
    profile = load_board_profile(board_path(args.game, args.profile), args.game)
    camera = _camera_profile(args.profile, required=profile.camera is not None)
    reference = None
    if profile.method == "reference":
        reference = load_reference_image(reference_image_path(args.game, args.profile), profile)
    image = _frame(args)
    result = check_registration(config.registration, profile, camera, image, reference)
    limit = config.registration.check_limit_mm
    ok = result.max_mm <= limit
    if args.overlay is not None:
        _write_image(
            args.overlay, draw_overlay(config.registration, profile, camera, image, result)
        )
    if args.json:
        print(
            json.dumps(
                {
                    "ok": ok,
                    "rms_mm": result.rms_mm,
                    "max_mm": result.max_mm,
                    "points": result.points,
                    "seen": result.seen,
                    "limit_mm": limit,
                }
            )
        )
    else:
        verdict = "OK" if ok else "TOO LARGE"
        print(
            f"registration error {result.rms_mm:.2f} mm RMS, {result.max_mm:.2f} mm max over "
            f"{result.points} points ({result.seen}): {verdict} (limit {limit:g} mm)"
        )
        if not ok:
            print(
                f"The board or the camera has moved: register the board again with "
                f"'companion calibrate board --game {args.game}'."
            )
        if args.overlay is not None:
            print(f"wrote {args.overlay}")
    return 0 if ok else 1


@user_errors
def colours_command(args: argparse.Namespace) -> int:
    from calibration.colours import (  # deferred: loads OpenCV
        EMPTY,
        UNKNOWN,
        capture_samples,
        fit_colour_model,
        save_colour_model,
    )
    from calibration.registration import load_board_profile  # deferred: loads OpenCV
    from calibration.sources import grab_frame, read_image  # deferred: loads OpenCV

    config = _config(args)
    profile = load_board_profile(board_path(args.game, args.profile), args.game)
    camera = _camera_profile(args.profile, required=profile.camera is not None)
    if args.camera is not None:
        if args.empty is not None or args.pieces:
            raise UsageError("use either --camera or --empty with --pieces, not both")
        names = (
            [n.strip() for n in args.colours.split(",")]
            if args.colours
            else list(profile.geometry.player_colours)
        )
        input(
            "Clear the board (leave a grey card on it if you use --grey-card), then press Enter: "
        )
        empty = grab_frame(args.camera)
        pieces = {}
        for name in names:
            input(
                f"Put all the {name} pieces on the board, spread out and away from the "
                "markers, then press Enter: "
            )
            pieces[name] = grab_frame(args.camera)
    else:
        if args.empty is None or not args.pieces:
            raise UsageError(
                "give --empty FILE and one --pieces COLOUR=FILE per colour, or --camera N"
            )
        empty = read_image(args.empty)
        pieces = {}
        for name, path in args.pieces:
            if name in pieces:
                raise UsageError(f"colour {name!r} is given twice")
            pieces[name] = read_image(path)
    for name in pieces:
        if name in (EMPTY, UNKNOWN):
            raise UsageError(f"{name!r} cannot be a colour's name: the model uses it")
    capture = capture_samples(
        config.colours,
        profile,
        camera,
        empty,
        pieces,
        np.random.default_rng(args.seed),
        args.grey_card,
    )
    model, separation = fit_colour_model(config.colours, profile, capture)
    path = colours_path(args.game, args.profile)
    save_colour_model(model, path)
    print(
        f"colour model saved to {path} (white balance from the "
        f"{'grey card' if capture.white_balance == 'grey-card' else 'board border'})"
    )
    for cls in model.classes:
        found = f", {capture.pieces[cls.name]} pieces found" if cls.name in capture.pieces else ""
        lab = ", ".join(f"{v:.1f}" for v in cls.mean)
        print(f"  {cls.name}: Lab ({lab}) from {cls.samples} samples{found}")
    a, b = separation.closest
    print(
        f"  closest colours: {a} and {b}, {separation.distance:.1f} standard deviations apart; "
        f"{separation.training_accuracy:.1%} of the samples classified right"
    )
    if separation.distance < config.colours.min_separation:
        print(
            f"warning: {a} and {b} look alike under this light (need "
            f"{config.colours.min_separation:g} standard deviations): add light or avoid "
            "coloured light, and capture again"
        )
    return 0


@user_errors
def show_command(args: argparse.Namespace) -> int:
    names = [args.profile] if args.profile else list_profiles()
    print(f"data folder: {data_dir()}")
    if not names:
        print("no profiles yet: start with 'companion calibrate charuco-sheet'")
        return 0
    refused = 0
    for name in names:
        folder = profile_dir(name)
        print(f"profile {name}:")
        files = sorted(folder.glob("*.json")) if folder.is_dir() else []
        if not files:
            print("  (empty)")
        for path in files:
            try:
                print(f"  {path.name}: {_describe(path)}")
            except ProfileError as error:
                refused += 1
                print(f"  {path.name}: REFUSED: {error}")
    return 1 if refused else 0


def _describe(path: Path) -> str:
    """One line on a stored file, after reading and checking all of it.
    Raises ``ProfileError`` for a refused file."""
    from calibration.colours import load_colour_model  # deferred: loads OpenCV
    from calibration.intrinsics import load_camera_profile  # deferred: loads OpenCV
    from calibration.registration import load_board_profile  # deferred: loads OpenCV

    if path.name == "camera.json":
        p = load_camera_profile(path)
        w, h = p.image_size
        return (
            f"camera {w}x{h}, fx {p.fx:.1f} px, RMS {p.rms_px:.3f} px over {len(p.views)} "
            f"views, made {p.created}"
        )
    if path.name.startswith("board-"):
        b = load_board_profile(path)
        return f"{b.game} board registered by {b.method}, made {b.created}"
    if path.name.startswith("colours-"):
        c = load_colour_model(path)
        return f"{c.game} colours {', '.join(c.names)}, made {c.created}"
    if path.name.startswith("layout-"):
        from calibration.layout import describe_layout  # deferred: loads OpenCV

        return describe_layout(path)
    if path.name.startswith("appearance-"):
        from vision.appearance import load_appearance  # deferred: loads OpenCV

        game = path.stem.removeprefix("appearance-")
        appearance = load_appearance(game, path.parent.name)
        if appearance is None:
            raise ProfileError(f"{path} cannot be read")
        kinds = ", ".join(
            f"{kind}: {', '.join(str(v) for v in values)}"
            for kind, values in sorted(appearance.colours.items())
        )
        return f"{game} set appearance: the empty board and {kinds}"
    raise ProfileError(f"{path} is not a file the companion writes")
