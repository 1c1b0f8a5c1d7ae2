"""``companion bench appearance`` (``companion.bench_appearance``)."""

from companion.bench_appearance import register_bench as register

ORDER = 70
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
