"""``companion bench vision`` (``companion.bench_vision``)."""

from companion.bench_vision import register_bench as register

ORDER = 60
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
