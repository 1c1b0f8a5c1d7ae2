"""A game to go back over, like an analysis board: every move with its number in the
game, who made it, what it did in words, the elements of the table it changed, and,
from the strength report when there is one, its judgement and the better move; the
table before the first move and after each, drawn as the Play screen draws the board
(``companion.app.board.scene``). Pure (no Kivy): the HTML report
(``companion.review_page``, the board as SVG) and the app's End and History screens
both draw from it.

Move numbers are the game's own, from 1: a record that begins part-way through a game
(the demo's film joins late) says so with ``first_number``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from companion.app.board.maps import legend, map_of
from companion.app.board.scene import BoardMap, Layer, LegendLine, Scene, Stroke, Text, compose
from companion.app.i18n import Translator
from companion.app.layout import RGBA, Shape, frame_shapes
from companion.app.wording import move_words, player_name
from engines import GameRecord, GameState
from engines.observation import Observation
from engines.registry import table_model
from engines.search.analysis import Analysis
from vision.models import load_model

LAST_MOVE_RGBA: RGBA = (0.10, 0.45, 0.95, 1)
"""Frames around what the move shown changed (blue: the app's hint is green)."""
BETTER_MOVE_RGBA: RGBA = (0.10, 0.70, 0.20, 1)
"""Frames around what the better move would have changed (green, as a hint)."""


@dataclass(frozen=True)
class ReviewMove:
    number: int
    """The move's number in the game, from 1."""
    player: int
    notation: str
    words: str
    changed: tuple[str, ...]
    """The table elements the move changed."""
    judgement: str = ""
    """``best``, ``good``, ``inaccuracy``, ``mistake`` or ``blunder``; empty when the
    game was not analysed or the move was the only one (``forced``)."""
    forced: bool = False
    best: str = ""
    """The better move in notation; empty when the move played was judged best (or
    not judged)."""
    best_words: str = ""
    best_changed: tuple[str, ...] = ()
    loss: float | None = None
    """Win chance lost against the best move, 0-1."""
    frame: int | None = None
    """The film's frame at which the referee accepted the move (a filmed game)."""


@dataclass(frozen=True)
class Review:
    game: str
    names: tuple[str, ...]
    """The names shown, per seat."""
    colours: tuple[str, ...]
    first_number: int
    """The number of the record's first move in the game."""
    moves: tuple[ReviewMove, ...]
    tables: tuple[Observation, ...]
    """The table before the first move, then after each move."""
    scores: tuple[tuple[int, ...], ...]
    """Every player's score at each position of ``tables``."""
    chances: tuple[tuple[float, ...], ...] = ()
    """Every player's win chance at each position (the last: the result), from the
    analysis; empty without one."""
    result: str = ""
    """The result in words."""
    legend: tuple[LegendLine, ...] = ()
    """The board's legend (the disciplines, the players' letters), in words."""

    @property
    def positions(self) -> int:
        return len(self.tables)

    def move_at(self, index: int) -> ReviewMove | None:
        """The move that led to position ``index`` (None at the first position)."""
        return self.moves[index - 1] if 0 < index <= len(self.moves) else None

    def scene(self, index: int, board: BoardMap, beside: bool = False) -> Scene:
        """The board at position ``index`` as the Play screen draws it, with its legend
        (below, or ``beside``), blue frames on what the move that led there changed
        and green ones on what the better move would have."""
        move = self.move_at(index)
        scene = compose(
            board,
            self.tables[index],
            suggest=move.best_changed if move else (),
            legend=self.legend,
            beside=beside,
        )
        if move is None:
            return scene
        frames = Layer(shapes=frame_shapes(board.layout, move.changed, LAST_MOVE_RGBA))
        return replace(scene, layers=(*scene.layers, frames))


def game_board(game: str) -> BoardMap:
    """The game's own board (the model's layout), as a report sent to anyone shows it."""
    return map_of(game, load_model(game))


def build_review(
    record: GameRecord,
    tr: Translator | None = None,
    names: Sequence[str] = (),
    analysis: Analysis | None = None,
    first_number: int = 1,
    frames: Sequence[int | None] = (),
    result: str = "",
) -> Review:
    """The review of ``record``: ``names`` shown per seat (empty ones: the colour in
    ``tr``'s language, English by default); ``analysis`` of the same record gives the
    judgements, better moves and win chances; ``frames``: the film's frame of each
    move. Raises ``EngineError`` for a record that does not replay, or for an analysis
    whose better move cannot be played where it is given (an analysis of another
    game)."""
    tr = tr or Translator("en")
    state = record.starting_state()
    rules = state.rules
    shown = tuple(player_name(tr, rules.players, names, i) for i in range(len(rules.players)))
    model = table_model(record.game)
    tables = [model.expected(state)]
    scores = [tuple(state.scores())]
    judged = {m.index: m for m in analysis.moves} if analysis is not None else {}
    moves = []
    for index, text in enumerate(record.moves):
        before = state.copy()
        player = state.to_move
        state.play_text(text)
        tables.append(model.expected(state))
        scores.append(tuple(state.scores()))
        notation = rules.format_move(rules.parse_move(text))
        report = judged.get(index)
        best = best_words = ""
        best_changed: tuple[str, ...] = ()
        if (
            report is not None
            and not report.forced
            and report.best != report.played
            and report.judgement != "best"
        ):
            best = report.best
            best_words = move_words(tr, rules, shown[player], best)
            best_changed = _changed(model, before, best)
        moves.append(
            ReviewMove(
                number=first_number + index,
                player=player,
                notation=notation,
                words=move_words(tr, rules, shown[player], notation),
                changed=_diff(tables[-2], tables[-1]),
                judgement=report.judgement if report is not None and not report.forced else "",
                forced=bool(report and report.forced),
                best=best,
                best_words=best_words,
                best_changed=best_changed,
                loss=report.loss if report is not None else None,
                frame=frames[index] if index < len(frames) else None,
            )
        )
    chances = tuple(tuple(c) for c in analysis.chances) if analysis is not None else ()
    lines = tuple(legend(record.game, rules.players, shown, tr.name))
    return Review(
        record.game,
        shown,
        tuple(rules.players),
        first_number,
        tuple(moves),
        tuple(tables),
        tuple(scores),
        chances,
        result,
        lines,
    )


def _diff(before: Observation, after: Observation) -> tuple[str, ...]:
    return tuple(sorted(e for e in after if before.value(e) != after.value(e)))


def _changed(model: Any, state: GameState[Any], text: str) -> tuple[str, ...]:
    """What ``text`` would change on the table of ``state``. Raises ``EngineError``
    when the engine cannot play it there."""
    after = state.copy()
    after.play_text(text)
    return _diff(model.expected(state), model.expected(after))


# ---------------------------------------------------------------------- the board as SVG


def _paint(rgba: Sequence[float], part: str = "fill") -> str:
    """``fill="#rrggbb"`` (or ``stroke``) with its opacity when not opaque."""
    r, g, b = (max(0, min(255, round(255 * c))) for c in rgba[:3])
    alpha = rgba[3] if len(rgba) > 3 else 1.0
    opacity = f' {part}-opacity="{alpha:.2f}"' if alpha < 1 else ""
    return f'{part}="#{r:02x}{g:02x}{b:02x}"{opacity}'


def shape_svg(shape: Shape) -> str:
    """One shape as an SVG element, in board millimetres (y down, as SVG)."""
    (cx, cy), (w, h) = shape.centre, shape.size
    turn = f' transform="rotate({shape.angle:.1f} {cx:.1f} {cy:.1f})"' if shape.angle else ""
    if shape.shape == "ellipse":
        return (
            f'<ellipse cx="{cx:.1f}" cy="{cy:.1f}" rx="{w / 2:.1f}" ry="{h / 2:.1f}" '
            f"{_paint(shape.rgba)}{turn}/>"
        )
    box = f'x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}"'
    if shape.shape == "rect":
        return f"<rect {box} {_paint(shape.rgba)}{turn}/>"
    return (
        f'<rect {box} fill="none" {_paint(shape.rgba, "stroke")} '
        f'stroke-width="{max(0.5, shape.width):.1f}"{turn}/>'
    )


def stroke_svg(stroke: Stroke) -> str:
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in stroke.points)
    tag = "polygon" if stroke.closed else "polyline"
    return (
        f'<{tag} points="{points}" fill="none" {_paint(stroke.rgba, "stroke")} '
        f'stroke-width="{stroke.width:.2f}" stroke-linejoin="round" '
        'stroke-linecap="round"/>'
    )


def text_svg(text: Text) -> str:
    """A text as the board widget draws it: ``height`` mm of letters (a font size a
    third larger), centred on ``centre`` or starting there."""
    x, y = text.centre
    anchor = "start" if text.left else "middle"
    weight = ' font-weight="bold"' if text.bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{1.3 * text.height:.1f}" '
        f'text-anchor="{anchor}" dominant-baseline="central"{weight} '
        f"{_paint(text.rgba)}>{_escape(text.text)}</text>"
    )


def layer_svg(layer: Layer) -> list[str]:
    """A layer's elements in the order the board widget draws them."""
    return (
        [shape_svg(s) for s in layer.shapes]
        + [stroke_svg(s) for s in layer.strokes]
        + [text_svg(t) for t in layer.texts]
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass(frozen=True)
class Boards:
    """Every position's board as SVG, compactly: what all of them share (the printed
    board, the legend) once, and for each position indexes into one list of distinct
    elements (a long game's positions share most of their pieces)."""

    size: tuple[float, float]
    shared: str
    pieces: list[str]
    positions: list[list[int]]


def compact_boards(review: Review, board: BoardMap | None = None) -> Boards:
    """The boards of ``review`` (on the game's own board by default)."""
    board = board or game_board(review.game)
    scenes = [review.scene(i, board) for i in range(review.positions)]
    layers = [[layer_svg(layer) for layer in scene.layers] for scene in scenes]
    shared_count = 0
    while shared_count < min(len(x) for x in layers) and all(
        x[shared_count] == layers[0][shared_count] for x in layers
    ):
        shared_count += 1
    pieces: dict[str, int] = {}
    positions = []
    for per_layer in layers:
        row = []
        for part in per_layer[shared_count:]:
            row += [pieces.setdefault(svg, len(pieces)) for svg in part]
        positions.append(row)
    shared = "".join("".join(part) for part in layers[0][:shared_count])
    return Boards(scenes[0].size, shared, list(pieces), positions)


# ---------------------------------------------------------------------- the record


def record_notation(
    record: GameRecord, first_number: int = 1, names: Callable[[int], str] | None = None
) -> str:
    """The moves as numbered lines in the game's notation (``docs/notation.md``), one
    move a line: ``12. red: +H4``."""
    state = record.starting_state()
    lines = []
    for index, text in enumerate(record.moves):
        player = state.to_move
        who = names(player) if names is not None else record.players[player]
        lines.append(f"{first_number + index}. {who}: {text}")
        state.play_text(text)
    return "\n".join(lines)


def judged(moves: Collection[ReviewMove]) -> int:
    """How many of ``moves`` have a judgement."""
    return sum(1 for m in moves if m.judgement)
