"""``companion bench players``, ``search``, ``policies``, ``strength-*`` and ``analysis-time``
(``companion.bench_players``, ``companion.bench_strength``)."""

from companion.bench_players import register_bench as register

ORDER = 50
"""Where the topic is listed in ``companion bench --help``."""

__all__ = ["ORDER", "register"]
