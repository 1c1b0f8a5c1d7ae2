"""The end of a game: the final scores with the tie-break spelled out, the strength
report (``engines.search.analysis``: accuracy per player, good moves and mistakes, the
win chance over the game) and the export of the record and the report."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.app.controller import PlayController
from companion.app.i18n import Translator
from companion.app.wording import tiebreak_words
from companion.referee.events import GameOver
from companion.review import build_review, record_notation
from companion.review_page import page
from engines import GameRecord
from engines.search.analysis import JUDGEMENTS, Analysis, analyse
from engines.search.mcts import SearchConfig
from engines.search.players import LEVELS

ANALYSIS_LEVEL = 2
"""Search level of the strength report on the tablet (level 4 is the command line's
default; a tablet wants the report within a minute)."""


@dataclass(frozen=True)
class Result:
    game: str
    players: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    sentence: str
    finished: bool
    """False when the players ended the game before its end (scores so far)."""
    record: GameRecord


def final_result(controller: PlayController) -> Result:
    """The result as it stands (the final one once the game is over)."""
    tr = controller.tr
    referee = controller.referee
    state = referee.state
    over = controller.over or GameOver(state.scores(), state.tiebreak(), state.winners(), "")
    players = tuple(controller.who(i) for i in range(len(referee.rules.players)))
    sentence = tiebreak_words(tr, referee.rules.game, over, controller.who)
    if not state.is_over():
        sentence = tr.text("result.unfinished") + " " + sentence
    return Result(
        referee.rules.game,
        players,
        tuple(over.scores),
        tuple(over.winners),
        sentence,
        state.is_over(),
        referee.record(),
    )


def strength(
    record: GameRecord,
    level: int = ANALYSIS_LEVEL,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """The strength report of ``record`` (one process: the tablet's other core keeps
    the UI going). Raises the engines' errors for a record that does not replay."""
    base = LEVELS[level]
    config = SearchConfig(base.iterations, base.seconds, base.exploration, base.rollout_moves, seed)
    return analyse(record, config, workers=1, progress=progress)


def strength_rows(analysis: Analysis, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per player: name, moves judged, accuracy, the count of each judgement, and the
    engine level they played like with its range (empty without an estimate, or with
    too few moves for one)."""
    rows = []
    for summary in analysis.summary:
        counts = {j: summary.counts.get(j, 0) for j, _ in JUDGEMENTS}
        level = summary.strength
        rows.append(
            {
                "name": names[summary.player],
                "moves": summary.moves,
                "accuracy": summary.accuracy,
                **counts,
                "level": ""
                if level is None or level.level is None
                else (
                    f"{level.level}"
                    if level.low == level.high
                    else f"{level.level} ({level.low}-{level.high})"
                ),
            }
        )
    return rows


def write_charts(analysis: Analysis, folder: Path, names: tuple[str, ...] | None = None) -> Path:
    """win-chance.png and loss.png in ``folder``; the win-chance chart's path.
    ``names``: the players' names by seat, for the legends."""
    from companion.charts import write_plots  # deferred: matplotlib, in the charts

    write_plots(analysis, folder, names=names)
    return folder / "win-chance.png"


REPORT_PAGE = "report.html"
"""The exported report: one HTML file with everything in it, to keep or send."""


def export(
    folder: Path, result: Result, analysis: Analysis | None, tr: Translator | None = None
) -> Path:
    """Write the record (``record.json``, and ``moves.txt``: the moves in the game's
    notation, numbered), the report (``report.json``), the charts with an analysis,
    and ``report.html`` (all of it in one page, the game to step through) into
    ``folder``; returns ``folder``. Raises ``OSError``; a record that does not replay
    raises the engines' errors."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "record.json").write_text(result.record.dumps() + "\n", encoding="utf-8")
    (folder / "moves.txt").write_text(
        record_notation(result.record, names=lambda p: result.players[p]) + "\n", encoding="utf-8"
    )
    report: dict[str, Any] = {
        "game": result.game,
        "players": list(result.players),
        "scores": list(result.scores),
        "winners": [result.players[w] for w in result.winners],
        "result": result.sentence,
        "finished": result.finished,
    }
    pictures: list[tuple[str, Path]] = []
    if analysis is not None:
        report["strength"] = strength_rows(analysis, result.players)
        report["analysis"] = analysis.to_json()
        write_charts(analysis, folder, result.players)
        words = tr or Translator()
        pictures = [
            (words.text("page.loss_picture"), folder / "loss.png"),
            (words.text("page.strength_picture"), folder / "strength.png"),
        ]
    (folder / "report.json").write_text(
        json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    tr = tr or Translator()
    review = build_review(result.record, tr, result.players, analysis, result=result.sentence)
    path = folder / REPORT_PAGE
    path.write_text(
        page(
            review,
            _title(result, tr),
            result.record,
            intro=_summary_html(result, analysis, tr),
            pictures=pictures,
            tr=tr,
        ),
        encoding="utf-8",
    )
    return folder


def _title(result: Result, tr: Translator) -> str:
    return f"{tr.name('game', result.game)}: {', '.join(result.players)}"


def _summary_html(result: Result, analysis: Analysis | None, tr: Translator) -> str:
    """The result, the scores and the strength table, as HTML in ``tr``'s language."""
    e = html.escape
    t = tr.text
    winner = f" ({e(t('page.winner'))})"
    rows = "".join(
        f"<tr><td>{e(name)}{winner if p in result.winners else ''}</td><td>{score}</td></tr>"
        for p, (name, score) in enumerate(zip(result.players, result.scores, strict=True))
    )
    out = [
        f"<p><b>{e(result.sentence)}</b></p>",
        f"<table><tr><th>{e(t('end.player'))}</th><th>{e(t('page.score_col'))}</th></tr>"
        f"{rows}</table>",
    ]
    if analysis is not None:
        head = "".join(f"<th>{e(t('judgement.' + j))}</th>" for j, _ in JUDGEMENTS)
        body = "".join(_strength_row(row) for row in strength_rows(analysis, result.players))
        out.append(
            f"<h2>{e(t('end.strength'))}</h2><table><tr><th>{e(t('end.player'))}</th>"
            f"<th>{e(t('page.moves_judged'))}</th><th>{e(t('end.accuracy'))} %</th>"
            f"{head}<th>{e(t('end.level'))}</th></tr>{body}</table>"
        )
    return "".join(out)


def _strength_row(row: dict[str, Any]) -> str:
    e = html.escape
    accuracy = f"{row['accuracy']:.1f}" if row["moves"] else "-"
    counts = "".join(f"<td>{row[j]}</td>" for j, _ in JUDGEMENTS)
    return (
        f"<tr><td>{e(row['name'])}</td><td>{row['moves']}</td><td>{accuracy}</td>"
        f"{counts}<td>{e(row['level'] or '-')}</td></tr>"
    )
