"""``companion bench shenshi-draw`` (``engines.shenshi.bench_draw``)."""

from engines.shenshi.bench_draw import register_bench as register

ORDER = 100
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
