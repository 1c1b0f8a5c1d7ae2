"""``companion bench referee`` and ``bench reader-errors`` (``companion.bench_referee``)."""

from companion.bench_referee import register_bench as register

ORDER = 40
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
