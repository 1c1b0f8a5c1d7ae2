"""``companion app``: open the tablet app (Kivy).

Kivy is imported only when a command runs, so the rest of the command line works on
machines without it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from companion.app import run_app
from companion.cli import UsageError, camera_index, check_players
from engines import GAMES

__all__ = ["app_command", "register", "run_app"]

ORDER = 80
"""Where the group is listed in ``companion --help``."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "app",
        help="open the tablet app",
        description="Open the tablet app (docs/app.md). With --video, --camera or --demo "
        "it opens straight into a game read from there; otherwise on the New game screen.",
    )
    parser.add_argument(
        "--game", default="shangrila", choices=GAMES, help="the game (default shangrila)"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--video", metavar="FILE", help="read the table from a video file")
    source.add_argument(
        "--camera", type=camera_index, metavar="N", help="read the table from camera N"
    )
    source.add_argument(
        "--demo",
        action="store_true",
        help="no camera: the table simulator plays a game on the table",
    )
    parser.add_argument(
        "--sensor-sim",
        action="store_true",
        help="add the simulated sensor board (on a pseudo-terminal)",
    )
    parser.add_argument("--players", type=int, help="number of players")
    parser.add_argument(
        "--language",
        default=None,
        choices=("en", "fr", "es"),
        help="the app's language (default: the system's, English when it "
        "is none of these; switchable in the app)",
    )
    parser.set_defaults(handler=app_command)


def app_command(args: argparse.Namespace) -> int:
    if args.video is not None and not Path(args.video).is_file():
        raise UsageError(f"--video {args.video}: no such file")
    if args.players is not None:
        check_players(args.game, args.players)
    if _no_display():
        raise UsageError(
            "there is no display to open the app on: run 'companion demo' "
            "for the headless demo, or set SDL_VIDEODRIVER=offscreen to draw "
            "the app without a screen"
        )
    return run_app(
        game=args.game,
        video=args.video,
        camera=args.camera,
        demo=args.demo,
        sensor_sim=args.sensor_sim,
        language=args.language,
        players=args.players,
    )


def _no_display() -> bool:
    """Linux without X11 or Wayland and no SDL driver chosen: Kivy could not open a
    window (and would exit without saying why in plain words)."""

    if not sys.platform.startswith("linux") or os.environ.get("SDL_VIDEODRIVER"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
