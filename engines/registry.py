"""The games the engines know, loaded on first use."""

from __future__ import annotations

import importlib
from typing import Any

from engines.base import Rules
from engines.errors import RecordError
from engines.table_model import TableModel

_GAMES: dict[str, tuple[str, str]] = {
    "shangrila": ("engines.shangrila", "ShangrilaRules"),
    "shendao": ("engines.shendao", "ShendaoRules"),
    "shenshi": ("engines.shenshi", "ShenshiRules"),
}

GAMES: tuple[str, ...] = tuple(_GAMES)

TITLES: dict[str, str] = {
    "shangrila": "The Bridges of Shangri-La",
    "shendao": "Shendao",
    "shenshi": "ShenShi",
}
"""Each game's name as its box prints it, for titles shown to players."""


def title(game: str) -> str:
    """``game``'s printed name (its id for a game without one)."""
    return TITLES.get(game, game)


def rules_class(game: str) -> type[Rules[Any, Any]]:
    """The ``Rules`` class of ``game``. Raises ``RecordError`` for an unknown game."""
    try:
        module_name, class_name = _GAMES[game]
    except KeyError:
        raise RecordError(f"unknown game {game!r}; known games: {', '.join(GAMES)}") from None
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        raise RecordError(f"the {game} engine is not available in this version") from None
    cls: type[Rules[Any, Any]] | None = getattr(module, class_name, None)
    if cls is None:
        raise RecordError(f"the {game} engine is incomplete in this version")
    return cls


def table_model(game: str) -> TableModel[Any, Any, Any]:
    """The table model of ``game`` (``engines.table_model.TableModel``: what its table
    shows, for the referee). Raises ``RecordError`` for an unknown game."""
    rules_class(game)  # an unknown or missing game says so the same way
    try:
        module = importlib.import_module(f"engines.{game}.observation")
    except ModuleNotFoundError:
        raise RecordError(f"the {game} table model is not available in this version") from None
    model = getattr(module, "TABLE", None)
    if not isinstance(model, TableModel):
        raise RecordError(f"the {game} table model is incomplete in this version")
    return model


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
