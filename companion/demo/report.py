"""The demo's report: what the referee said, the final scores, how well each player
played, and pictures — as JSON, PNG charts and one HTML page that holds them all (the
film too), with the game to step through move by move (``companion.review_page``)."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.app.i18n import Translator
from companion.app.report import strength_rows
from companion.app.wording import verdict_words
from companion.charts import write_plots
from companion.demo.chain import ChainResult
from companion.demo.film import FPS
from companion.demo.script import Script
from companion.referee import messages
from companion.referee.events import (
    GameOver,
    IllegalMove,
    MoveAccepted,
    MoveCorrected,
    MoveTakenBack,
    Output,
    Question,
)
from companion.review import build_review
from companion.review_page import Film, data_uri, page
from engines import GameRecord
from engines.search.analysis import JUDGEMENTS, Analysis


@dataclass(frozen=True)
class Timings:
    script_s: float
    film_s: float
    renders: int
    chain_s: float
    analysis_s: float
    total_s: float = 0.0
    calibration_s: float = 0.0


def scores_over_time(record: GameRecord) -> list[list[int]]:
    """Every player's score after each move of ``record`` (the start first)."""
    state = record.starting_state()
    series = [list(state.scores())]
    for text in record.moves:
        state.play_text(text)
        series.append(list(state.scores()))
    return series


def write_scores_chart(record: GameRecord, path: Path, first_move: int) -> None:
    """scores.png: each player's score over the filmed moves."""
    import matplotlib  # deferred: matplotlib, for the chart only

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: matplotlib, for the chart only
    from matplotlib.ticker import MaxNLocator  # deferred: matplotlib, for the chart only

    from companion.charts import (
        PLAYER_COLOURS,  # deferred: the chart's colours, with matplotlib
    )

    series = np.array(scores_over_time(record))
    xs = np.arange(first_move, first_move + len(series))
    figure, axis = plt.subplots(figsize=(9, 3.5), dpi=110)
    for p, name in enumerate(record.players):
        axis.plot(
            xs,
            series[:, p],
            label=name,
            color=PLAYER_COLOURS.get(name),
            linewidth=2.0,
            drawstyle="steps-post",
        )
        axis.plot(xs[-1:], series[-1:, p], "o", color=PLAYER_COLOURS.get(name))  # the result
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_xlabel("moves played (the last point: the result)")
    axis.set_ylabel("score")
    axis.set_title(f"{record.game}: scores over the filmed moves")
    axis.grid(alpha=0.3)
    axis.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncol=len(record.players),
        frameon=False,
        fontsize=9,
    )  # under the chart: it hides no line
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)


def strength_table(analysis: Analysis) -> list[dict[str, Any]]:
    """One row per player: accuracy, mean loss, and the count of each judgement."""
    return [
        {
            "player": s.name,
            "moves": s.moves,
            "accuracy": round(s.accuracy, 1) if s.moves else None,
            "mean_loss": round(100 * s.mean_loss, 1) if s.moves else None,
            **{j: s.counts.get(j, 0) for j, _ in JUDGEMENTS},
            "strength": s.strength.describe() if s.strength is not None else "no move to judge",
        }
        for s in analysis.summary
    ]


def write_report(
    folder: Path,
    script: Script,
    chain: ChainResult,
    analysis: Analysis,
    timings: Timings,
    board_picture: np.ndarray[Any, Any] | None,
    levels: list[int],
    calibration: dict[str, Any] | None = None,
    language: str = "en",
) -> Path:
    """Write report.json, the charts, board.png and index.html into ``folder``; the
    HTML file's path. ``calibration``: the table's calibration, as
    :meth:`companion.demo.calibrate.TableCalibration.to_json` gives it; ``language``:
    the page's (en, fr or es)."""
    folder.mkdir(parents=True, exist_ok=True)
    record = script.record()
    (folder / "record.json").write_text(
        json.dumps(record.to_json(), indent=1) + "\n", encoding="utf-8"
    )
    first = script.joined_at + 1  # the game's number of the film's first move
    write_plots(analysis, folder, first_move=first)
    write_scores_chart(record, folder / "scores.png", script.joined_at)
    if board_picture is not None:
        cv2.imwrite(str(folder / "board.png"), board_picture)
    over = next((o for _, o in chain.outputs if isinstance(o, GameOver)), None)
    players = list(script.spec.players)
    score = chain.score
    caught = sum(r.caught for r in score.rules.values())
    tried = sum(r.tried for r in score.rules.values())
    data = {
        "game": script.spec.game,
        "players": players,
        "engine_levels": levels,
        "seed": script.seed,
        "moves_before_film": script.joined_at,
        "first_move_number": script.joined_at + 1,
        "moves_filmed": len(script.filmed_moves),
        "camera_calibration": calibration,
        "final": None
        if over is None
        else {
            "scores": over.scores,
            "tiebreak": over.tiebreak,
            "winners": [players[w] for w in over.winners],
            "summary": over.summary,
        },
        "referee": {
            "moves_right_in_record": score.record_right,
            "moves_right_first_time": score.exact,
            "moves": score.moves,
            "moves_corrected_by_players": score.corrected,
            "questions": score.questions,
            "done_presses": score.done_presses,
            "false_flags": score.false_flags,
            "illegal_moves_tried": tried,
            "illegal_moves_caught": caught,
            "final_table_right": score.final_state_right,
            "wrong_moves": score.wrong_moves,
        },
        "verdicts": [
            {"frame": frame, **output.to_json()}
            for frame, output in chain.outputs
            if isinstance(output, MoveAccepted | IllegalMove | GameOver)
            or output.name in ("question", "table_restored", "move_taken_back")
        ],
        "strength": strength_table(analysis),
        "analysis": analysis.to_json(),
        "timings": timings.__dict__,
        "vision_ms_per_frame": round(1000 * chain.seconds_vision / max(1, chain.frames), 1),
    }
    (folder / "report.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    page = folder / "index.html"
    page.write_text(
        _html(
            data,
            chain,
            players,
            record,
            analysis,
            folder,
            board_picture is not None,
            Translator(language),
        ),
        encoding="utf-8",
    )
    return page


def film_frames(chain: ChainResult, moves: int) -> list[int | None]:
    """The film's frame at which the referee accepted each of the record's ``moves``
    (the last acceptance of a move taken back and made again); None for one never
    accepted."""
    frames: list[int | None] = [None] * moves
    for frame, output in chain.outputs:
        if isinstance(output, MoveAccepted) and 0 < output.number <= moves:
            frames[output.number - 1] = frame
    return frames


def renumbered(output: Output, before: int) -> Output:
    """``output`` with its move numbers counted in the whole game, not from the film's
    first move (the referee counts from the position it was given), in its words too."""

    def words(text: str) -> str:
        return _MOVE_NUMBER.sub(lambda m: f"{m[1]}{int(m[2]) + before}{m[3]}", text)

    if isinstance(output, MoveAccepted | MoveTakenBack):
        return replace(output, number=output.number + before)
    if isinstance(output, MoveCorrected):
        return replace(output, number=output.number + before, words=words(output.words))
    if isinstance(output, Question) and output.about:
        return replace(output, about=output.about + before, reason=words(output.reason))
    return output


_MOVE_NUMBER = re.compile(r"((?:^|\b)[Mm]ove )(\d+)( was |\?)")
"""A move number in the referee's words: "Which was move 2?", "Move 2 was +R5+H6"."""


def _html(
    data: dict[str, Any],
    chain: ChainResult,
    players: list[str],
    record: GameRecord,
    analysis: Analysis,
    folder: Path,
    has_board: bool,
    tr: Translator,
) -> str:
    """The report's page in ``tr``'s language (the referee's sentences too)."""
    e = _text
    t = tr.text
    final = data["final"]
    referee = data["referee"]
    before = data["moves_before_film"]
    names = tuple(tr.name("colour", p).capitalize() for p in players)

    def who(p: int) -> str:
        return names[p]

    rows = []
    if final is not None:
        winners = {players.index(w) for w in final["winners"]}
        for p, name in enumerate(names):
            won = f" ({e(t('page.winner'))})" if p in winners else ""
            rows.append(f"<tr><td>{e(name)}{won}</td><td>{final['scores'][p]}</td></tr>")
    judgements = [j for j, _ in JUDGEMENTS]
    strength = "".join(
        "<tr>"
        + "".join(
            f"<td>{e(str(v))}</td>"
            for v in [
                row["name"],
                row["moves"],
                "-" if not row["moves"] else f"{row['accuracy']:.1f}",
                "-" if not s.moves else f"{100 * s.mean_loss:.1f}",
                *(row[j] for j in judgements),
                row["level"] or "-",
            ]
        )
        + "</tr>"
        for row, s in zip(strength_rows(analysis, names), analysis.summary, strict=True)
    )
    verdicts = "".join(
        f"<li><span class='f'>{e(t('demo.frame', frame=frame))}</span> "
        f"{e(_said(renumbered(output, before), tr, who, players))}</li>".replace("\n", "<br>")
        for frame, output in chain.outputs
        if _shown(output)
    )
    board = (
        (
            f"<h2>{e(t('demo.board_title'))}</h2>"
            f"<img src='{picture_uri(folder / 'board.png')}' "
            f"alt='{html.escape(t('demo.board_title'))}'>"
        )
        if has_board
        else ""
    )
    calibration = _calibration_html(data["camera_calibration"], folder, tr)
    outcome = (
        messages.result(
            data["game"],
            final["scores"],
            [players.index(w) for w in final["winners"]],
            final["tiebreak"],
            who,
            tr.language,
        )
        if final
        else ""
    )
    tiebreak = (
        messages.tiebreak(data["game"], final["tiebreak"], who, len(players), tr.language)
        if final
        else "-"
    )
    heading = t("demo.final_scores") + (f" — {outcome}" if final else " " + t("demo.not_finished"))
    result = outcome or t("demo.not_finished")
    review = build_review(
        record,
        tr,
        analysis=analysis,
        first_number=before + 1,
        frames=film_frames(chain, len(record.moves)),
        result=result,
    )
    levels = ", ".join(map(str, data["engine_levels"]))
    said = t(
        "demo.intro",
        players=len(players),
        levels=levels,
        before=before,
        first=before + 1,
        last=before + data["moves_filmed"],
    )
    intro = (
        f"<p>{e(said)}</p>"
        f"<h2>{e(heading)}</h2><table><tr><th>{e(t('end.player'))}</th>"
        f"<th>{e(t('page.score_col'))}</th></tr>{''.join(rows)}</table>"
        f"<p>{e(t('demo.tiebreak', tiebreak=tiebreak))}</p>"
    )
    head = "".join(
        f"<th>{e(h)}</th>"
        for h in [
            t("end.player"),
            t("page.moves_judged"),
            t("end.accuracy") + " %",
            t("demo.mean_loss"),
            *(t("judgement." + j) for j in judgements),
            t("end.level"),
        ]
    )
    referee_text = t(
        "demo.referee",
        right=referee["moves_right_in_record"],
        moves=referee["moves"],
        at_once=referee["moves_right_first_time"],
        corrected=referee["moves_corrected_by_players"],
        caught=referee["illegal_moves_caught"],
        tried=referee["illegal_moves_tried"],
        false_alarms=referee["false_flags"],
        questions=referee["questions"],
    )
    sections = (
        f"<h2>{e(t('end.strength'))}</h2><table><tr>{head}</tr>{strength}</table>"
        f"<h2>{e(t('demo.referee_title'))}</h2><p>{e(referee_text)}</p>"
        f"{calibration}{board}"
        f"<h2>{e(t('demo.said_title'))}</h2><ol>{verdicts}</ol>"
    )
    pictures = [
        (t(key), folder / file)
        for key, file in (
            ("page.loss_picture", "loss.png"),
            ("page.strength_picture", "strength.png"),
        )
        if (folder / file).is_file()
    ]
    film = browser_film(folder / "film.mp4", folder / "film.webm")
    return page(
        review,
        t("demo.title", game=tr.name("game", data["game"])),
        record,
        intro=intro,
        sections=sections,
        pictures=pictures,
        film=Film(film, FPS, "video/webm") if film is not None else None,
        tr=tr,
    )


def _said(output: Output, tr: Translator, who: Any, players: list[str]) -> str:
    """What the referee said, as the app says it, with what to put right after an
    illegal move."""
    text = verdict_words(tr, output, who, players)
    if isinstance(output, IllegalMove) and output.fix:
        text += (
            "\n"
            + messages.render("illegal.to_put_right", tr.language)
            + "\n"
            + "\n".join(f"- {step}" for step in messages.steps(output.fix, tr.language, shown=None))
        )
    return text


BROWSER_FILM_WIDTH = 854
"""The width of the report page's copy of the film (480 lines): enough to follow the
moves, a few megabytes for the page."""


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """The process's standard error (file descriptor 2, which OpenCV's FFmpeg writes
    to directly) sent nowhere meanwhile."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as nowhere:
            os.dup2(nowhere.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def browser_film(film: Path, copy: Path) -> Path | None:
    """``film`` written again as WebM (VP8) at ``BROWSER_FILM_WIDTH``, a video every
    browser plays (the MPEG-4 film the camera pipeline reads is not one of them); None
    when there is no film or it cannot be written so."""
    if not film.is_file():
        return None
    source = cv2.VideoCapture(str(film))
    ok, frame = source.read()
    if not ok:
        source.release()
        return None
    height = round(frame.shape[0] * BROWSER_FILM_WIDTH / frame.shape[1]) // 2 * 2
    size = (BROWSER_FILM_WIDTH, height)
    with _quiet_stderr():  # FFmpeg says WebM has no tag for VP8, then writes it anyway
        writer = cv2.VideoWriter(str(copy), cv2.VideoWriter_fourcc(*"VP80"), FPS, size)
    if not writer.isOpened():
        source.release()
        return None
    while ok:
        writer.write(cv2.resize(frame, size, interpolation=cv2.INTER_AREA))
        ok, frame = source.read()
    writer.release()
    source.release()
    return copy if copy.is_file() and copy.stat().st_size > 0 else None


def _calibration_html(calibration: dict[str, Any] | None, folder: Path, tr: Translator) -> str:
    """The calibration the camera read through: its steps, the profile's parts and the
    fitted layout drawn on the empty board."""
    if not calibration:
        return ""
    e = _text
    t = tr.text
    steps = "".join(f"<li>{e(step)}</li>" for step in calibration["steps"])
    picture = calibration.get("layout_picture")
    return (
        f"<h2>{e(t('demo.calibration_title'))}</h2><p>{e(t('demo.calibration'))}</p>"
        f"<ul>{steps}</ul><p>{e(t('demo.read_through'))} "
        + "; ".join(e(line) for line in calibration["profile"])
        + ".</p>"
        + (
            f"<img src='{picture_uri(folder / picture)}' "
            f"alt='{html.escape(t('demo.layout_picture'))}'>"
            if picture and (folder / picture).is_file()
            else ""
        )
    )


def _text(words: object) -> str:
    """``words`` as the text of an HTML element (apostrophes left as they are)."""
    return html.escape(str(words), quote=False)


def picture_uri(path: Path) -> str:
    """A camera-sized picture as a JPEG ``data:`` URI (a tenth of the PNG's bytes, so
    the page stays small enough to send)."""
    image = cv2.imread(str(path))
    if image is None:
        return data_uri(path, "image/png")
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        return data_uri(path, "image/png")
    return "data:image/jpeg;base64," + base64.b64encode(encoded.tobytes()).decode("ascii")


def _shown(output: Output) -> bool:
    return output.name in (
        "move_accepted",
        "illegal_move",
        "table_restored",
        "question",
        "move_taken_back",
        "game_over",
        "board_mismatch",
    )
