"""``companion bench layout`` (``companion.bench_layout``)."""

from companion.bench_layout import register_bench as register

ORDER = 80
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
