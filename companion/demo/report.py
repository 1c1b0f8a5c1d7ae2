"""The demo's report: what the referee said, the final scores, how well each player
played, and pictures — as JSON, PNG charts and one HTML page that shows them all."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.analyse_cli import write_plots
from companion.demo.chain import ChainResult
from companion.demo.script import Script
from companion.referee.events import GameOver, IllegalMove, MoveAccepted, Output
from companion.referee.words import say, tiebreak_words
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
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_xlabel("move")
    axis.set_ylabel("score")
    axis.set_title(f"{record.game}: scores over the filmed moves")
    axis.grid(alpha=0.3)
    axis.legend(loc="upper left", ncol=len(record.players))
    figure.tight_layout()
    figure.savefig(path)
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
    write_plots(analysis, folder)
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
        "moves_filmed": len(script.filmed_moves),
        "camera_calibration": calibration,
        "final": None if over is None else {
            "scores": over.scores, "tiebreak": over.tiebreak,
            "winners": [players[w] for w in over.winners], "summary": over.summary},
        "referee": {
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
    page.write_text(_html(data, chain, players, board_picture is not None), encoding="utf-8")
    return page


def _html(data: dict[str, Any], chain: ChainResult, players: list[str],
          has_board: bool) -> str:
    e = html.escape
    final = data["final"]
    referee = data["referee"]
    rows = []
    if final is not None:
        for p, name in enumerate(players):
            won = " (winner)" if name in final["winners"] else ""
            rows.append(f"<tr><td>{e(name)}{won}</td><td>{final['scores'][p]}</td></tr>")
    judgements = [j for j, _ in JUDGEMENTS]
    strength = "".join(
        "<tr>" + "".join(f"<td>{e('-' if row[k] is None else str(row[k]))}</td>" for k in
                         ["player", "moves", "accuracy", "mean_loss", *judgements,
                          "strength"]) + "</tr>"
        for row in data["strength"])
    verdicts = "".join(
        f"<li><span class='f'>frame {frame}</span> {e(say(output, players))}</li>"
        .replace("\n", "<br>")
        for frame, output in chain.outputs if _shown(output))
    board = ("<h2>The board as the camera read it at the end</h2>"
             "<img src='board.png' alt='the recognised board'>") if has_board else ""
    calibration = _calibration_html(data["camera_calibration"])
    heading = "Final scores" + (f" — {e(final['summary'])}" if final else " (not finished)")
    tiebreak = tiebreak_words(data["game"], final["tiebreak"], players) if final else "-"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>companion demo: {e(data['game'])}</title>
<style>
body {{ font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: right; }}
td:first-child, th:first-child {{ text-align: left; }}
img {{ max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }}
li {{ margin: 0.3em 0; }} .f {{ color: #888; font-size: 0.8em; }}
</style></head><body>
<h1>companion demo: {e(data['game'])}</h1>
<p>{len(players)} players, engine levels {e(str(data['engine_levels']))}. The film joins
the game after move {data['moves_before_film']} and shows its last
{data['moves_filmed']} moves; the camera pipeline read every frame and the referee
ruled on what it read.</p>
<h2>{heading}</h2>
<table><tr><th>player</th><th>score</th></tr>{''.join(rows)}</table>
<p>Tie-break: {e(tiebreak)}</p>
<h2>Scores over the game</h2><img src="scores.png" alt="scores over the game">
<h2>How well each player played</h2>
<table><tr><th>player</th><th>moves</th><th>accuracy %</th><th>mean loss</th>
{''.join(f'<th>{e(j)}</th>' for j in judgements)}<th>strength</th></tr>{strength}</table>
<img src="win-chance.png" alt="win chance over the game">
<img src="loss.png" alt="loss per move">
<h2>The referee</h2>
<p>{referee['moves_right_first_time']} of {referee['moves']} moves recognised right first
time; {referee['moves_corrected_by_players']} corrected by the players;
{referee['illegal_moves_caught']} of {referee['illegal_moves_tried']} illegal moves caught;
{referee['false_flags']} false alarms; {referee['questions']} questions.</p>
{calibration}
{board}
<h2>What the referee said</h2><ol>{verdicts}</ol>
</body></html>
"""


def _calibration_html(calibration: dict[str, Any] | None) -> str:
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
            + (f"<img src='{e(picture)}' alt='the fitted layout on the empty board'>"
               if picture else ""))


def _shown(output: Output) -> bool:
    return output.name in ("move_accepted", "illegal_move", "table_restored", "question",
                           "move_taken_back", "game_over", "board_mismatch")
