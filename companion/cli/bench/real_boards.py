"""``companion bench real-boards`` (``companion.bench_real_boards``)."""

from companion.bench_real_boards import register_bench as register

ORDER = 90
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
