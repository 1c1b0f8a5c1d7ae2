"""``companion analyse``: judge every move of a game record (``companion.analyse_cli``)."""

from companion.analyse_cli import register as register

ORDER = 40
"""Where the group is listed in ``companion --help``."""

__all__ = ["ORDER", "register"]
