"""``companion bench ...``: figures measured on this machine, not timed tests.

Each module of this package adds its topics with ``register(bench_sub)``; the topics
are found by listing the package, like the command groups. The measuring itself lives
beside the part it measures; the modules here read the arguments and print."""

from __future__ import annotations

import sys

from companion.cli import Subparsers, discover

ORDER = 20
"""Where the group is listed in ``companion --help``."""


def register(sub: Subparsers) -> None:
    """Add ``companion bench`` and every topic of this package."""
    parser = sub.add_parser(
        "bench",
        help="measure speed and quality figures",
        description="Benchmarks. Figures vary with the machine's load: run on a quiet "
        "machine and quote the command with its result.",
    )
    bench_sub = parser.add_subparsers(dest="bench_command", required=True, metavar="COMMAND")
    for module in discover(sys.modules[__name__]):
        module.register(bench_sub)
