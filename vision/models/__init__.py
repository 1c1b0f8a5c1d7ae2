"""Board models: where each element of a game's table lies, in millimetres on the board.

A model is data (``vision/models/<game>.json``): for every element the referee reads
(``4H``, ``bridge 4-7``, ``stone 4``, ``c3``, ``gate W3``, ``c3 monk``) its kind, its
centre and size on the board plane and its turn, plus the sizes of the pieces that sit there. Board
coordinates are millimetres from the board's top-left corner, x to the right and y
down, the board seen upright from the first player's seat, as in
``calibration/boards.json`` (whose board sizes the models must match).

Stack-height elements (``4H^``) are read on their space: :meth:`BoardModel.region`
answers for them with the space's region. Elements the referee has but the camera cannot
see on the board (ShenShi's path tokens, on each player's own path board) are listed in
``off_board`` with where they are instead; they have no region, and a picture of the
board leaves them unknown.

:func:`load_model` checks a model when it loads it and raises ``ModelError`` naming the
file and the fault.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engines.observation import TableSchema

FloatArray = NDArray[np.float64]

MODEL_VERSION = 1
GAMES = ("shangrila", "shendao", "shenshi")
KINDS = {
    "shangrila": ("space", "bridge", "stone"),
    "shendao": ("square", "gate"),
    "shenshi": ("tile", "cushion", "monk"),
}
PIECE_SIZES = {
    "shangrila": ("tile_mm", "tile_thickness_mm", "bridge_height_mm", "stone_height_mm"),
    "shendao": ("tile_mm", "tile_thickness_mm", "stick_height_mm"),
    "shenshi": (
        "tile_mm",
        "tile_thickness_mm",
        "cushion_mm",
        "cushion_height_mm",
        "grand_height_mm",
        "grand_base_mm",
        "master_height_mm",
        "master_base_mm",
    ),
}
# ShenShi's off-board elements: the path tokens (``tokens silver``), one count a player.
OFF_BOARD_PREFIX = {"shenshi": "tokens "}
HEIGHT_SUFFIX = "^"


class ModelError(ValueError):
    """A board model that cannot be used; the message names the file and the fault."""


@dataclass(frozen=True)
class Element:
    """One element's place on the board: a rectangle ``size_mm`` (length along its own
    x axis, width) centred at ``centre_mm`` and turned by ``angle_deg`` (the x axis
    towards the y axis, clockwise seen from above)."""

    name: str
    kind: str
    centre_mm: tuple[float, float]
    size_mm: tuple[float, float]
    angle_deg: float = 0.0
    discipline: str | None = None

    def corners_mm(self) -> FloatArray:
        """The rectangle's corners on the board, clockwise from the top-left, (4, 2)."""
        half = np.array(self.size_mm) / 2.0
        local = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * half
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(local @ rot.T + np.array(self.centre_mm))


@dataclass(frozen=True)
class Village:
    id: int
    centre_mm: tuple[float, float]
    radius_mm: float
    red: bool


@dataclass(frozen=True)
class BoardModel:
    """A game's board: its size, its elements (in the referee's order) and pieces."""

    game: str
    size_mm: tuple[float, float]
    elements: dict[str, Element]
    pieces: dict[str, float]
    villages: tuple[Village, ...] = ()
    walls: tuple[tuple[tuple[float, float], tuple[float, float]], ...] = ()
    off_board: dict[str, str] = field(default_factory=dict)
    """Referee elements not on the board (ShenShi's path tokens): name -> where they are.
    The camera does not read them."""

    def region(self, element: str) -> Element:
        """Where ``element`` is read; a stack height (``4H^``) on its space. Raises
        ``KeyError`` for a name the board does not have, or an element that is not on
        the board (``off_board``)."""
        if element in self.elements:
            return self.elements[element]
        if element in self.off_board:
            raise KeyError(
                f"{element!r} is not on the {self.game} board: {self.off_board[element]}"
            )
        base = element.removesuffix(HEIGHT_SUFFIX)
        if base != element and base in self.elements and self.elements[base].kind == "space":
            return self.elements[base]
        raise KeyError(f"the {self.game} board has no element {element!r}")

    def of_kind(self, kind: str) -> list[Element]:
        return [e for e in self.elements.values() if e.kind == kind]

    def on_board(self, element: str) -> bool:
        """Whether ``element`` (a referee name) lies on the board, where a camera can
        read it."""
        return element not in self.off_board


def referee_schema(game: str) -> TableSchema:
    """The referee's table schema of ``game`` (every board element, all player counts)."""
    # each game's engine is imported only when its schema is asked for
    if game == "shangrila":
        from engines.shangrila import ShangrilaRules  # deferred: per game
        from engines.shangrila.observation import schema as shangrila_schema  # deferred: per game

        return shangrila_schema(ShangrilaRules())
    if game == "shendao":
        from engines.shendao import ShendaoRules  # deferred: per game
        from engines.shendao.observation import schema as shendao_schema  # deferred: per game

        return shendao_schema(ShendaoRules())
    if game == "shenshi":
        from engines.shenshi.observation import schema as shenshi_schema  # deferred: per game
        from engines.shenshi.rules import METALS, ShenshiRules  # deferred: per game

        return shenshi_schema(ShenshiRules(METALS))  # 4 players: every player's tokens
    raise ModelError(f"no board model for game {game!r}; known: {', '.join(GAMES)}")


def load_model(game: str, path: str | Path | None = None) -> BoardModel:
    """The board model of ``game`` (the packaged ``vision/models/<game>.json`` unless
    ``path`` is given). Raises ``ModelError`` naming the file and the fault."""
    if game not in GAMES:
        raise ModelError(f"no board model for game {game!r}; known: {', '.join(GAMES)}")
    if path is None:
        return _packaged_model(game)
    return _read_model(game, path)


@cache
def _packaged_model(game: str) -> BoardModel:
    """The packaged model, read and checked once (every render asks for it). Shared:
    treat it as read-only."""
    return _read_model(game, None)


def _read_model(game: str, path: str | Path | None) -> BoardModel:
    source = f"the packaged {game}.json" if path is None else str(path)
    try:
        if path is None:
            text = resources.files("vision.models").joinpath(f"{game}.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as error:
        raise ModelError(
            f"cannot read the board model {source}: {error.strerror or error}"
        ) from None
    except json.JSONDecodeError as error:
        raise ModelError(
            f"the board model {source} is not valid JSON: {error.msg} at line {error.lineno}"
        ) from None
    try:
        return model_from_json(game, data)
    except ValueError as error:
        raise ModelError(f"the board model {source}: {error}") from None


def model_from_json(game: str, data: Any) -> BoardModel:
    """Check and build a model. Raises ``ValueError`` saying what is wrong."""
    if not isinstance(data, dict) or data.get("version") != MODEL_VERSION:
        raise ValueError(f"not a version {MODEL_VERSION} board model")
    if data.get("game") != game:
        raise ValueError(f"it describes {data.get('game')!r}, not {game!r}")
    size = _pair(data.get("size_mm"), "size_mm")
    pieces_raw = data.get("pieces")
    if not isinstance(pieces_raw, dict):
        raise ValueError("'pieces' must be an object of sizes in mm")
    pieces = {key: _positive(pieces_raw.get(key), f"pieces.{key}") for key in PIECE_SIZES[game]}
    raw = data.get("elements")
    if not isinstance(raw, dict) or not raw:
        raise ValueError("'elements' must be an object: element name -> place")
    elements: dict[str, Element] = {}
    for name, item in raw.items():
        elements[name] = _element(game, name, item, size)
    schema = referee_schema(game)
    off_board = _off_board(game, data.get("off_board", {}), schema.elements)
    wanted = [e for e in schema.elements if not e.endswith(HEIGHT_SUFFIX) and e not in off_board]
    missing = [e for e in wanted if e not in elements]
    extra = [e for e in elements if e not in schema.values]
    on_and_off = [e for e in elements if e in off_board]
    if on_and_off:
        raise ValueError(f"elements both on the board and off_board: {', '.join(on_and_off)}")
    if missing:
        raise ValueError(
            f"elements missing: {', '.join(missing[:8])}" + (" ..." if len(missing) > 8 else "")
        )
    if extra:
        raise ValueError(f"elements the referee does not know: {', '.join(extra[:8])}")
    ordered = {name: elements[name] for name in wanted}
    villages = tuple(_village(v, i) for i, v in enumerate(data.get("villages", [])))
    if game == "shangrila" and len(villages) != 13:
        raise ValueError(f"'villages' must list 13 villages, not {len(villages)}")
    walls = tuple(
        (_pair(w[0], "walls", True), _pair(w[1], "walls", True)) for w in data.get("walls", [])
    )
    if game == "shenshi":
        _check_shenshi(ordered, pieces)
    return BoardModel(game, size, ordered, pieces, villages, walls, off_board)


def _off_board(game: str, raw: Any, referee: tuple[str, ...]) -> dict[str, str]:
    """The ``off_board`` entries: every referee element of the kind the game keeps off
    the board (and only those), each with where it is."""
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise ValueError("'off_board' must be an object: element name -> where it lies")
    prefix = OFF_BOARD_PREFIX.get(game)
    expected = [e for e in referee if prefix is not None and e.startswith(prefix)]
    wrong = [e for e in raw if e not in expected]
    if wrong:
        allowed = ", ".join(expected) if expected else "none"
        raise ValueError(
            f"off_board: {', '.join(wrong)} cannot be off the board "
            f"(off-board elements of {game}: {allowed})"
        )
    absent = [e for e in expected if e not in raw]
    if absent:
        raise ValueError(
            f"off_board must list {', '.join(absent)} (not on the board: the "
            f"camera does not read them)"
        )
    return {name: raw[name] for name in expected}


def _check_shenshi(elements: dict[str, Element], pieces: dict[str, float]) -> None:
    """A square's tile, cushion and monk stack on one spot; a Grand Master is taller
    and wider than a master (that is how the camera tells them apart)."""
    for name, element in elements.items():
        square, part = name.split(" ", 1)
        if element.kind != part:
            raise ValueError(f"element {name!r}: kind must be {part!r}, not {element.kind!r}")
        tile = elements[f"{square} tile"]
        if element.centre_mm != tile.centre_mm:
            raise ValueError(
                f"element {name!r}: centre {element.centre_mm} is not its "
                f"square's ({square} tile: {tile.centre_mm})"
            )
    if pieces["grand_height_mm"] <= pieces["master_height_mm"]:
        raise ValueError(
            "pieces.grand_height_mm must exceed pieces.master_height_mm "
            "(a Grand Master is taller than a master)"
        )
    if pieces["grand_base_mm"] < pieces["master_base_mm"]:
        raise ValueError("pieces.grand_base_mm must be at least pieces.master_base_mm")


def _element(game: str, name: str, item: Any, size: tuple[float, float]) -> Element:
    if not isinstance(item, dict):
        raise ValueError(f"element {name!r} must be an object")
    kind = item.get("kind")
    if kind not in KINDS[game]:
        raise ValueError(f"element {name!r}: kind {kind!r} is not one of {', '.join(KINDS[game])}")
    centre = _pair(item.get("centre_mm"), f"{name}.centre_mm", allow_zero=True)
    if not (0.0 <= centre[0] <= size[0] and 0.0 <= centre[1] <= size[1]):
        raise ValueError(
            f"element {name!r}: centre {centre} lies off the {size[0]:g} x {size[1]:g} mm board"
        )
    extent = _pair(item.get("size_mm"), f"{name}.size_mm")
    angle = item.get("angle_deg", 0.0)
    if not isinstance(angle, int | float) or isinstance(angle, bool):
        raise ValueError(f"element {name!r}: angle_deg must be a number")
    discipline = item.get("discipline")
    if kind == "space" and (not isinstance(discipline, str) or discipline != name[-1]):
        raise ValueError(f"space {name!r}: discipline must be {name[-1]!r}")
    return Element(name, kind, centre, extent, float(angle), discipline)


def _village(item: Any, index: int) -> Village:
    if not isinstance(item, dict) or item.get("id") != index:
        raise ValueError(f"village {index} must be an object with id {index}")
    return Village(
        index,
        _pair(item.get("centre_mm"), f"village {index}.centre_mm"),
        _positive(item.get("radius_mm"), f"village {index}.radius_mm"),
        bool(item.get("red", False)),
    )


def _positive(value: Any, key: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{key} must be a positive number of mm, not {value!r}")
    return float(value)


def _pair(value: Any, key: str, allow_zero: bool = False) -> tuple[float, float]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{key} must be two numbers (mm), not {value!r}")
    if not allow_zero and min(value) <= 0:
        raise ValueError(f"{key} must be positive, not {value!r}")
    return (float(value[0]), float(value[1]))
