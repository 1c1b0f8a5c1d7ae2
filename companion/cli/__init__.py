"""The ``companion`` command line.

Subcommands are grouped by topic (``rules``, ``bench``, ...), one module of this
package per group, each adding its commands with ``register(sub)``; the groups are
found by listing the package (``discover``). Each handler returns the process exit
status; errors a user can cause (a missing file, bad JSON, bad notation) print one line
on stderr and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, TypeAlias

from engines.errors import EngineError
from engines.registry import rules_class

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A problem with the command's input that the user can fix; exit status 2."""


def check_players(game: str, count: int) -> None:
    """Raise ``UsageError`` unless ``game`` is played by ``count`` players."""
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


def picture_size(text: str) -> tuple[int, int]:
    """A picture size ``WIDTHxHEIGHT`` in pixels, 16 to 8000 a side."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {text!r} is not WIDTHxHEIGHT") from None
    if not (16 <= w <= 8000 and 16 <= h <= 8000):
        raise UsageError(f"--size {text!r} is out of range (16..8000 pixels a side)")
    return w, h


def positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` above zero."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text} is not positive")
        return value

    return parse


def user_errors(*kinds: type[Exception]) -> Callable[[Handler], Handler]:
    """A handler decorator: a part's errors of ``kinds`` (a file the part refuses, a
    picture it cannot use) become one-line usage errors."""

    def decorate(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def wrapped(args: argparse.Namespace) -> int:
            try:
                return handler(args)
            except kinds as error:
                raise UsageError(str(error)) from error

        return wrapped

    return decorate


Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``register(sub)`` is given: the parser's subcommands, to add a group to."""


def discover(package: ModuleType) -> list[ModuleType]:
    """The modules of ``package`` that add commands: every module or subpackage whose
    name does not start with ``_`` and that has ``register(sub)``, in the order of their
    ``ORDER`` (then by name). A command group is added by adding a module here."""
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "register"):
            found.append(module)
    return sorted(found, key=lambda module: (getattr(module, "ORDER", 1000), module.__name__))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A referee for physical board games: The Bridges of Shangri-La, "
        "Shendao and ShenShi.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in discover(sys.modules[__name__]):
        module.register(sub)
    return parser


QUIET_OPENCV = {"OPENCV_LOG_LEVEL": "ERROR", "OPENCV_FFMPEG_LOGLEVEL": "-8"}
"""OpenCV's own warnings ("can't open camera by index", a video decoder's complaints)
would come before the companion's one line on standard error: they are turned off,
before OpenCV is imported, unless the user has set them."""


def main(argv: Sequence[str] | None = None) -> int:
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
