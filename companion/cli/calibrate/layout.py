"""``companion calibrate layout``: find where each element lies on the player's board.

Takes a picture of the empty board and, for Shangri-La and Shendao, a picture of the
calibration position (Shangri-La: every bridge and stone in place and three tiles of each
colour on the spaces ``--print-position`` lists; Shendao: every gate closed), both from
the camera in its playing position after ``companion calibrate board``. Fits the layout
(:mod:`calibration.layout`), stores it in the profile (``layout-<game>.json``) and writes
the picture with the fitted layout drawn over it for the player to check.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from calibration.errors import CalibrationError, SourceError
from calibration.profiles import board_path, camera_path, layout_path
from companion.cli import UsageError, user_errors
from vision.models import load_model, referee_schema

GAMES = ("shangrila", "shendao", "shenshi")
NEEDS_POSITION = ("shangrila", "shendao")
APPEARANCE_GAMES = ("shangrila", "shendao", "shenshi")
"""Games whose set appearance the calibration position teaches the camera."""
SET_ONLY_POSITION = ("shenshi",)
"""Games whose calibration position is optional and teaches the set's look only (the
layout is fitted from the empty board)."""


def add_layout_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion calibrate layout``."""
    layout = commands.add_parser(
        "layout",
        help="find where each space, square, bridge and stone lies on your board",
        description="Find where each element really lies on your board, from a picture "
        "of the empty board and a picture of the calibration position (Shangri-La: every "
        "bridge and stone in place and three tiles of each colour, on the spaces "
        "--print-position lists; Shendao: every gate closed; ShenShi: the empty board is "
        "enough). Register the board first ('calibrate board'). Stores the layout with the "
        "profile and writes the picture with the layout drawn on it: green where the "
        "element was found clearly, orange where it is doubtful, blue where it only "
        "follows its neighbours.",
    )
    layout.add_argument("--game", choices=GAMES, required=True)
    layout.add_argument("--empty", type=Path, metavar="FILE", help="picture of the empty board")
    layout.add_argument(
        "--position",
        type=Path,
        metavar="FILE",
        help="picture of the calibration position (Shangri-La, Shendao)",
    )
    layout.add_argument(
        "--overlay",
        type=Path,
        metavar="FILE.png",
        help="where to write the picture with the layout drawn on it "
        "(default: layout-GAME.png beside the profile's files)",
    )
    layout.add_argument(
        "--print-position",
        action="store_true",
        help="print the calibration position (what goes where) and stop",
    )
    layout.add_argument(
        "--profile",
        default="default",
        metavar="NAME",
        help="the table set-up to use (default: 'default')",
    )
    layout.set_defaults(handler=user_errors(CalibrationError)(layout_command))


def _position(game: str, model: Any, colours: tuple[str, ...]) -> Any:
    """The calibration position of ``game`` on the packaged layout's names, or ``None``
    when the game needs none."""
    from vision.appearance import calibration_layout  # deferred: loads OpenCV

    schema = referee_schema(game)
    if game in NEEDS_POSITION or game in SET_ONLY_POSITION:
        return calibration_layout(schema, model, list(colours))
    return None


def _describe_position(game: str, position: Any) -> list[str]:
    if game in SET_ONLY_POSITION:
        squares = dict.fromkeys(
            name.split(" ")[0]
            for name in position.schema.elements
            if not name.startswith("tokens ")
        )
        lines = []
        for square in squares:
            parts = [
                str(position.value(f"{square} {kind}")) + f" {kind}"
                for kind in ("tile", "cushion", "monk")
                if position.value(f"{square} {kind}") not in (None, "none")
            ]
            if parts:
                lines.append(f"  {square}: " + ", ".join(parts))
        return [
            "(optional: it teaches the camera your set) on each of these squares, bottom up:",
            *lines,
            "every other square empty",
        ]
    tiles = [
        f"{name}: {position.value(name)}"
        for name in position.schema.elements
        if not name.endswith("^") and position.value(name) not in (None, "empty", True, False)
    ]
    first = (
        "every gate closed (a stick in each gate)"
        if game == "shendao"
        else "every bridge and every stone in place"
    )
    places = "squares" if game == "shendao" else "spaces"
    return [first, f"one tile on each of these {places}:", *(f"  {line}" for line in tiles)]


def _picture(path: Path, size: tuple[int, int], what: str) -> Any:
    from calibration.sources import read_image  # deferred: loads OpenCV

    image = read_image(path)
    height, width = image.shape[:2]
    if (width, height) != tuple(size):
        raise UsageError(
            f"{path} is {width}x{height}; the board was registered on "
            f"{size[0]}x{size[1]} pictures: take {what} with the camera in "
            "its playing position"
        )
    return image


_PIECE_NAMES = {
    "bridge": "bridges",
    "stone": "stones",
    "gate": "sticks",
    "cushion": "cushions",
    "monk": "monks",
}


def _pieces_learned(colours: dict[str, Any]) -> str:
    """What the calibration position taught, in words: "red, blue tiles, bridges"."""
    parts = []
    for kind, values in sorted(colours.items()):
        if kind in _PIECE_NAMES:
            parts.append(_PIECE_NAMES[kind])
        else:
            parts.append(", ".join(str(v) for v in values) + " tiles")
    return ", ".join(parts)


def layout_command(args: argparse.Namespace) -> int:
    import cv2  # deferred: loads OpenCV

    from calibration.intrinsics import load_camera_profile  # deferred: loads OpenCV
    from calibration.layout import (  # deferred: loads OpenCV
        draw_layout,
        fit_layout,
        registered_view,
        save_layout,
    )
    from calibration.registration import load_board_profile  # deferred: loads OpenCV

    model = load_model(args.game)
    if args.print_position:
        from calibration.boards import board_geometry  # deferred: loads OpenCV

        position = _position(args.game, model, board_geometry(args.game).player_colours)
        if position is None:
            print(f"{args.game}: no calibration position; the empty board is enough")
        else:
            print("\n".join(_describe_position(args.game, position)))
        return 0
    if args.empty is None:
        raise UsageError("give --empty FILE (a picture of the empty board)")
    profile = load_board_profile(board_path(args.game, args.profile), args.game)
    camera = load_camera_profile(camera_path(args.profile)) if profile.camera else None
    view = registered_view(profile.matrix, profile.image_size, camera)
    empty = _picture(args.empty, profile.image_size, "the empty board")
    position = _position(args.game, model, profile.geometry.player_colours)
    calibration = []
    if position is not None and args.position is not None:
        calibration.append(
            (
                _picture(args.position, profile.image_size, "the calibration position"),
                view,
                position,
            )
        )
    elif position is not None and args.game not in SET_ONLY_POSITION:
        raise UsageError(
            f"give --position FILE: a picture of the {args.game} "
            "calibration position (see --print-position)"
        )
    elif args.position is not None:
        raise UsageError(f"{args.game} needs only the empty board; leave out --position")
    fit = fit_layout(
        args.game, model, empty, view, [] if args.game in SET_ONLY_POSITION else calibration
    )
    path = layout_path(args.game, args.profile)
    save_layout(fit, path)
    print(f"board layout saved to {path}")
    moved = sorted(fit.elements.values(), key=lambda f: -f.moved_mm)
    print(
        f"  {len(fit.elements)} elements; the furthest from the printed model moved "
        f"{moved[0].moved_mm:.1f} mm ({moved[0].name})"
    )
    doubtful = fit.doubtful()
    if doubtful:
        print(
            f"  check these on the picture (orange): {', '.join(doubtful[:12])}"
            + (" ..." if len(doubtful) > 12 else "")
        )
    overlay = args.overlay or path.with_suffix(".png")
    if not cv2.imwrite(str(overlay), draw_layout(fit, view, empty)):
        raise SourceError(f"cannot write {overlay} (is the folder there and the suffix .png?)")
    print(f"wrote {overlay}: every outline should sit on its printed place")
    if calibration and args.game in APPEARANCE_GAMES:
        from vision.appearance import calibrate, save_appearance  # deferred: loads OpenCV
        from vision.appearance_clear import describe, obstructions  # deferred: loads OpenCV

        appearance = calibrate(args.game, fit.model, empty, view, calibration)
        document = save_appearance(appearance, args.profile)
        print(
            f"set appearance saved to {document}: the empty board and "
            f"{_pieces_learned(appearance.colours)}; the camera now reads this set by "
            f"its own look"
        )
        picture, _, shown = calibration[0]
        found = obstructions(fit.model, empty, view, picture, view, shown)
        for warning in describe(found, fit.model.size_mm):
            print(f"warning: {warning}")
    return 0
