"""Which board is drawn and what its legend says: the layout fitted to the player's own
board at calibration when there is one (villages where they are on that board), the
game's board model otherwise; and the legend's lines in the app's language. No Kivy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from calibration.errors import ProfileError
from calibration.profiles import DEFAULT_PROFILE, layout_path
from companion.app.board.scene import (
    DISCIPLINES,
    PLAYER_LETTERS,
    BoardMap,
    LegendLine,
    board_map,
)
from companion.app.layout import PLAYER_RGBA, layout_of_model
from vision.models import load_model


def fitted_model(game: str, profile: str | None = None) -> Any:
    """The board model to draw: the layout stored in the calibration ``profile`` (the
    default one for None) when the player fitted one, else the game's own model (also
    when the layout file cannot be read: see ``board_model`` for why)."""
    return board_model(game, profile)[0]


def board_model(game: str, profile: str | None = None) -> tuple[Any, str]:
    """``fitted_model``'s model, and why the stored layout was passed over: "" when it
    was drawn or there is none, else the file and its fault (a damaged or unreadable
    file), for the player to be told that the game's own layout is drawn instead."""
    from calibration.layout import load_layout  # deferred: cv2, only for a fitted layout

    nominal = load_model(game)
    try:
        path = layout_path(game, profile or DEFAULT_PROFILE)
        if path.exists():
            return load_layout(path, nominal).model, ""
    except (ProfileError, OSError, ValueError) as error:
        return nominal, str(error)
    return nominal, ""


def map_of(game: str, model: Any) -> BoardMap:
    """The printed board drawn from ``model`` (a ``vision.models.BoardModel``)."""
    villages = [(v.id, v.centre_mm, v.radius_mm, v.red) for v in model.villages]
    return board_map(layout_of_model(game, model), villages)


def legend(
    game: str, colours: Sequence[str], players: Sequence[str], name: Callable[[str, Any], str]
) -> list[LegendLine]:
    """The legend's lines: for Shangri-La each discipline's letter and name; then each
    player's letter on the player's colour, and name (ShenShi: the grand master's
    capital and the master's small letter, and the neutral monks in black);
    ``name(kind, value)`` is the translator's name of a discipline or colour."""
    lines = []
    if game == "shangrila":
        lines += [LegendLine(letter, name("discipline", i)) for i, letter in enumerate(DISCIPLINES)]
    for colour, player in zip(colours, players, strict=False):
        letter = PLAYER_LETTERS.get(colour, "?")
        mark = f"{letter} {letter.lower()}" if game == "shenshi" else letter
        lines.append(LegendLine(mark, player, PLAYER_RGBA.get(colour)))
    if game == "shenshi" and "black" not in colours:  # the neutral monks
        black = name("colour", "black")
        lines.append(LegendLine("K k", black[:1].upper() + black[1:], PLAYER_RGBA["black"]))
    return lines
