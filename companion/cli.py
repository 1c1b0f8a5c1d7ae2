"""The ``companion`` command line.

Subcommands are grouped by topic (``rules``, ``bench``, ...). Each handler returns the
process exit status; errors a user can cause (a missing file, bad JSON, bad notation)
print one line on stderr and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from engines.errors import EngineError
from engines.registry import GAMES

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A problem with the command's input that the user can fix; exit status 2."""


def check_players(game: str, count: int) -> None:
    """Raise ``UsageError`` unless ``game`` is played by ``count`` players."""
    from engines import rules_class

    cls = rules_class(game)
    if not cls.min_players <= count <= cls.max_players:
        allowed = (
            f"{cls.min_players}"
            if cls.min_players == cls.max_players
            else f"{cls.min_players} to {cls.max_players}"
        )
        raise UsageError(f"--players {count}: {game} is played by {allowed} players")


def camera_index(text: str) -> int:
    """An argparse type: a camera number, 0 for the first. Negative numbers are refused
    here, before they reach OpenCV (whose ``VideoCapture(-1)`` can crash the process)."""
    try:
        index = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a camera number (0 is the first camera)"
        ) from None
    if index < 0:
        raise argparse.ArgumentTypeError(f"{index} is not a camera number (0 is the first camera)")
    return index


def _add_rules(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from companion import rules_cli

    rules = sub.add_parser(
        "rules",
        help="replay and check game records, play random demo games",
        description="The rules engines: replay a game record or watch a random game.",
    )
    rules_sub = rules.add_subparsers(dest="rules_command", required=True, metavar="COMMAND")

    replay = rules_sub.add_parser(
        "replay",
        help="validate every move of a game record and show the final position",
        description="Validate every move of a game record (JSON) and print the final "
        "position, the player to move, the scores, the winners, whether the game is over "
        "and the legal moves. Exit status: 0 when every move is legal, 1 at the first "
        "illegal move, 2 when the file or a move cannot be read.",
    )
    replay.add_argument("file", help="the game record (JSON), or - for standard input")
    replay.add_argument(
        "--json", action="store_true", help="print exactly one JSON object instead of text"
    )
    replay.set_defaults(handler=rules_cli.replay_command)

    demo = rules_sub.add_parser(
        "demo",
        help="play a random legal game and print it move by move",
        description="Play a game of random legal moves and print each move and the final "
        "scores. The same seed always gives the same game.",
    )
    demo.add_argument(
        "--game",
        default="shangrila",
        choices=GAMES,
        help="the game: %(choices)s (default shangrila)",
    )
    demo.add_argument(
        "--players",
        type=int,
        default=None,
        help="number of players (default: 4 for Shangri-La, 2 otherwise)",
    )
    demo.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    demo.add_argument("--record", metavar="FILE", help="also write the game record (JSON) to FILE")
    demo.set_defaults(handler=rules_cli.demo_command)


def _add_bench(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    from companion import bench

    parser = sub.add_parser(
        "bench",
        help="measure speed and quality figures",
        description="Benchmarks. Figures vary with the machine's load: run on a quiet "
        "machine and quote the command with its result.",
    )
    bench_sub = parser.add_subparsers(dest="bench_command", required=True, metavar="COMMAND")
    rules = bench_sub.add_parser(
        "rules",
        help="random complete games per second on one core, per game",
        description="Play random complete games (each move drawn uniformly from the legal "
        "moves) for a fixed time per game and player count, on one core, and print games "
        "per second and moves per game. Games with a search playout policy are also "
        "measured with it (labelled 'playout').",
    )
    rules.add_argument(
        "--seconds", type=float, default=5.0, help="time per configuration (default 5)"
    )
    rules.add_argument(
        "--game", action="append", help="only this game (repeatable; default: every installed game)"
    )
    rules.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    rules.add_argument("--json", action="store_true", help="print the figures as JSON")
    rules.set_defaults(handler=bench.rules_command)
    return bench_sub


# Parts that add their own commands: each module may have ``register(sub)`` adding a
# subcommand and ``register_bench(bench_sub)`` adding a ``bench`` topic.
PLUGINS = (
    "companion.referee_cli",
    "companion.analyse_cli",
    "companion.calibrate_cli",
    "companion.device_cli",
    "companion.bench_referee",
    "companion.bench_players",
    "companion.vision_cli",
    "companion.bench_vision",
    "companion.bench_appearance",
    "companion.bench_layout",
    "companion.bench_real_boards",
    "engines.shenshi.bench_draw",
    "companion.app_cli",
    "companion.demo",
)


def _plugins() -> list[ModuleType]:
    import importlib

    found = []
    for name in PLUGINS:
        try:
            found.append(importlib.import_module(name))
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A referee for physical board games: The Bridges of Shangri-La, "
        "Shendao and ShenShi.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_rules(sub)
    bench_sub = _add_bench(sub)
    for plugin in _plugins():
        if hasattr(plugin, "register"):
            plugin.register(sub)
        if hasattr(plugin, "register_bench"):
            plugin.register_bench(bench_sub)
    return parser


QUIET_OPENCV = {"OPENCV_LOG_LEVEL": "ERROR", "OPENCV_FFMPEG_LOGLEVEL": "-8"}
"""OpenCV's own warnings ("can't open camera by index", a video decoder's complaints)
would come before the companion's one line on standard error: they are turned off,
before OpenCV is imported, unless the user has set them."""


def main(argv: Sequence[str] | None = None) -> int:
    import os

    for variable, value in QUIET_OPENCV.items():
        os.environ.setdefault(variable, value)
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except (UsageError, EngineError) as error:
        _complain(str(error))
        return 2
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as error:
        # A file or folder the user named that cannot be used (missing folder, a
        # folder where a file is wanted, no permission, disk full).
        where = f" {error.filename}" if error.filename else ""
        _complain(f"cannot use{where}: {error.strerror or error}")
        return 2


def _complain(message: str) -> None:
    """The one line on standard error; a file name that is not UTF-8 text is shown
    with escapes rather than failing to print."""
    line = f"companion: {message}".encode("utf-8", "backslashreplace").decode("utf-8")
    print(line, file=sys.stderr)


if __name__ == "__main__":
    # Run as ``python -m companion.cli``, this file is ``__main__``: the commands raise
    # ``companion.cli.UsageError``, which only the imported module's ``main`` catches.
    from companion.cli import main as imported_main

    sys.exit(imported_main())
