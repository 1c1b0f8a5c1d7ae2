"""The demo's report: what the referee said, the final scores, how well each player
played, and pictures — as JSON, PNG charts and one HTML page that holds them all (the
film too), with the game to step through move by move (``companion.review_page``)."""

from __future__ import annotations

import base64
import html
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.analyse_cli import write_plots
from companion.demo.chain import ChainResult
from companion.demo.film import FPS
from companion.demo.script import Script
from companion.referee.events import GameOver, IllegalMove, MoveAccepted, MoveTakenBack, Output
from companion.referee.words import say, tiebreak_words
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from companion.analyse_cli import PLAYER_COLOURS

    series = np.array(scores_over_time(record))
    xs = np.arange(first_move, first_move + len(series))
    figure, axis = plt.subplots(figsize=(9, 3.5), dpi=110)
    for p, name in enumerate(record.players):
        axis.plot(xs, series[:, p], label=name, color=PLAYER_COLOURS.get(name),
                  linewidth=2.0, drawstyle="steps-post")
        axis.plot(xs[-1:], series[-1:, p], "o", color=PLAYER_COLOURS.get(name))  # the result
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_xlabel("moves played (the last point: the result)")
    axis.set_ylabel("score")
    axis.set_title(f"{record.game}: scores over the filmed moves")
    axis.grid(alpha=0.3)
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=len(record.players),
                frameon=False, fontsize=9)  # under the chart: it hides no line
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)


def strength_table(analysis: Analysis) -> list[dict[str, Any]]:
    """One row per player: accuracy, mean loss, and the count of each judgement."""
    return [{"player": s.name, "moves": s.moves,
             "accuracy": round(s.accuracy, 1) if s.moves else None,
             "mean_loss": round(100 * s.mean_loss, 1) if s.moves else None,
             **{j: s.counts.get(j, 0) for j, _ in JUDGEMENTS},
             "strength": s.strength.describe() if s.strength is not None else "no move to judge"}
            for s in analysis.summary]


def write_report(folder: Path, script: Script, chain: ChainResult, analysis: Analysis,
                 timings: Timings, board_picture: np.ndarray[Any, Any] | None,
                 levels: list[int], calibration: dict[str, Any] | None = None) -> Path:
    """Write report.json, the charts, board.png and index.html into ``folder``; the
    HTML file's path. ``calibration``: the table's calibration, as
    :meth:`companion.demo.calibrate.TableCalibration.to_json` gives it."""
    folder.mkdir(parents=True, exist_ok=True)
    record = script.record()
    (folder / "record.json").write_text(json.dumps(record.to_json(), indent=1) + "\n",
                                        encoding="utf-8")
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
        "game": script.spec.game, "players": players, "engine_levels": levels,
        "seed": script.seed, "moves_before_film": script.joined_at,
        "first_move_number": script.joined_at + 1,
        "moves_filmed": len(script.filmed_moves),
        "camera_calibration": calibration,
        "final": None if over is None else {
            "scores": over.scores, "tiebreak": over.tiebreak,
            "winners": [players[w] for w in over.winners], "summary": over.summary},
        "referee": {
            "moves_right_in_record": score.record_right,
            "moves_right_first_time": score.exact, "moves": score.moves,
            "moves_corrected_by_players": score.corrected, "questions": score.questions,
            "done_presses": score.done_presses, "false_flags": score.false_flags,
            "illegal_moves_tried": tried, "illegal_moves_caught": caught,
            "final_table_right": score.final_state_right,
            "wrong_moves": score.wrong_moves},
        "verdicts": [{"frame": frame, **output.to_json()} for frame, output in chain.outputs
                     if isinstance(output, MoveAccepted | IllegalMove | GameOver)
                     or output.name in ("question", "table_restored", "move_taken_back")],
        "strength": strength_table(analysis),
        "analysis": analysis.to_json(),
        "timings": timings.__dict__,
        "vision_ms_per_frame": round(1000 * chain.seconds_vision / max(1, chain.frames), 1),
    }
    (folder / "report.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    page = folder / "index.html"
    page.write_text(_html(data, chain, players, record, analysis, folder,
                          board_picture is not None), encoding="utf-8")
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
    """``output`` with its move number counted in the whole game, not from the film's
    first move."""
    if isinstance(output, MoveAccepted | MoveTakenBack):
        return replace(output, number=output.number + before)
    return output


def _html(data: dict[str, Any], chain: ChainResult, players: list[str],
          record: GameRecord, analysis: Analysis, folder: Path, has_board: bool) -> str:
    e = html.escape
    final = data["final"]
    referee = data["referee"]
    before = data["moves_before_film"]
    rows = []
    if final is not None:
        for p, name in enumerate(players):
            won = " (winner)" if name in final["winners"] else ""
            rows.append(f"<tr><td>{e(name.capitalize())}{won}</td>"
                        f"<td>{final['scores'][p]}</td></tr>")
    judgements = [j for j, _ in JUDGEMENTS]
    strength = "".join(
        "<tr>" + "".join(f"<td>{e('-' if row[k] is None else str(row[k]))}</td>" for k in
                         ["player", "moves", "accuracy", "mean_loss", *judgements,
                          "strength"]) + "</tr>"
        for row in data["strength"])
    verdicts = "".join(
        f"<li><span class='f'>frame {frame}</span> "
        f"{e(say(renumbered(output, before), players, data['game']))}</li>"
        .replace("\n", "<br>")
        for frame, output in chain.outputs if _shown(output))
    board = ("<h2>The board as the camera read it at the end</h2>"
             f"<img src='{picture_uri(folder / 'board.png')}' "
             "alt='the recognised board'>") if has_board else ""
    calibration = _calibration_html(data["camera_calibration"], folder)
    heading = "Final scores" + (f" — {e(final['summary'])}" if final else " (not finished)")
    tiebreak = tiebreak_words(data["game"], final["tiebreak"], players) if final else "-"
    result = (final["summary"] + " " if final else "") + f"Tie-break: {tiebreak}."
    review = build_review(record, analysis=analysis, first_number=before + 1,
                          frames=film_frames(chain, len(record.moves)),
                          result=result)
    levels = ", ".join(map(str, data["engine_levels"]))
    intro = f"""<p>{len(players)} players, engine levels {e(levels)}.
The film joins the game after move {before} and shows moves {before + 1} to
{before + data['moves_filmed']}; the camera pipeline read every frame and the referee
ruled on what it read.</p>
<h2>{heading}</h2>
<table><tr><th>player</th><th>score</th></tr>{''.join(rows)}</table>
<p>Tie-break: {e(tiebreak)}</p>"""
    sections = f"""<h2>How well each player played</h2>
<table><tr><th>player</th><th>moves</th><th>accuracy %</th><th>mean loss</th>
{''.join(f'<th>{e(j)}</th>' for j in judgements)}<th>strength</th></tr>{strength}</table>
<h2>The referee</h2>
<p>{referee['moves_right_in_record']} of {referee['moves']} moves right in the referee's
record ({referee['moves_right_first_time']} recognised at once, the others kept in doubt
until a later table or an answer settled them);
{referee['moves_corrected_by_players']} corrected by the players;
{referee['illegal_moves_caught']} of {referee['illegal_moves_tried']} illegal moves caught;
{referee['false_flags']} false alarms; {referee['questions']} questions.</p>
{calibration}
{board}
<h2>What the referee said</h2><ol>{verdicts}</ol>"""
    pictures = [(name, folder / file) for name, file in
                (("Loss per move", "loss.png"), ("Which level each player played like",
                                                  "strength.png"))
                if (folder / file).is_file()]
    film = browser_film(folder / "film.mp4", folder / "film.webm")
    return page(review, f"companion demo: {data['game']}", record, intro=intro,
                sections=sections, pictures=pictures,
                film=Film(film, FPS, "video/webm") if film is not None else None)


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


def _calibration_html(calibration: dict[str, Any] | None, folder: Path) -> str:
    """The calibration the camera read through: its steps, the profile's parts and the
    fitted layout drawn on the empty board."""
    if not calibration:
        return ""
    e = html.escape
    steps = "".join(f"<li>{e(step)}</li>" for step in calibration["steps"])
    picture = calibration.get("layout_picture")
    return ("<h2>The camera's calibration</h2><p>Before the film the table was calibrated "
            "as a player's is, from a picture of the empty board and one of the "
            f"calibration position:</p><ul>{steps}</ul><p>The camera read through "
            + "; ".join(e(line) for line in calibration["profile"]) + ".</p>"
            + (f"<img src='{picture_uri(folder / picture)}' "
               "alt='the fitted layout on the empty board'>"
               if picture and (folder / picture).is_file() else ""))


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
    return output.name in ("move_accepted", "illegal_move", "table_restored", "question",
                           "move_taken_back", "game_over", "board_mismatch")
