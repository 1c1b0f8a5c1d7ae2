"""The games the engines know, loaded on first use."""

from __future__ import annotations

import importlib
from typing import Any

from engines.base import Rules
from engines.errors import RecordError

_GAMES: dict[str, tuple[str, str]] = {
    "shangrila": ("engines.shangrila", "ShangrilaRules"),
    "shendao": ("engines.shendao", "ShendaoRules"),
    "shenshi": ("engines.shenshi", "ShenshiRules"),
}

GAMES: tuple[str, ...] = tuple(_GAMES)


def rules_class(game: str) -> type[Rules[Any, Any]]:
    """The ``Rules`` class of ``game``. Raises ``RecordError`` for an unknown game."""
    try:
        module_name, class_name = _GAMES[game]
    except KeyError:
        raise RecordError(
            f"unknown game {game!r}; known games: {', '.join(GAMES)}"
        ) from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        raise RecordError(f"the {game} engine is not available in this version") from None
    cls: type[Rules[Any, Any]] | None = getattr(module, class_name, None)
    if cls is None:
        raise RecordError(f"the {game} engine is incomplete in this version")
    return cls


def available_games() -> list[str]:
    """The games whose engines are installed."""
    found = []
    for game in GAMES:
        try:
            rules_class(game)
        except RecordError:
            continue
        found.append(game)
    return found
