"""The report as one HTML file that can be sent to someone: styles, script, boards and
charts inside it, pictures and the film as data URIs. Its review works like an
analysis board: the move list beside the board at each move, stepped with the buttons
or the arrow keys (Home and End for the start and the end), each move's judgement and
the better move, the charts' cursor and the film following the move shown.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.app.i18n import Translator
from companion.review import Review, compact_boards
from engines import GameRecord

FILM_EMBED_LIMIT = 15_000_000
"""Bytes of film kept inside the page (a third more once written as text); a longer
film is linked beside it instead, since a page of more than some 20 MB is more than
most mail takes."""
JUDGEMENT_COLOURS = {
    "best": "#1b5e20",
    "good": "#2e7d32",
    "inaccuracy": "#b26a00",
    "mistake": "#c43e00",
    "blunder": "#b71c1c",
}
CHART_COLOURS = {
    "red": "#c62828",
    "blue": "#1565c0",
    "yellow": "#f9a825",
    "violet": "#6a1b9a",
    "light": "#bca77a",
    "dark": "#3e2723",
    "silver": "#9e9e9e",
    "copper": "#b87333",
    "gold": "#d4af37",
    "black": "#212121",
}


@dataclass(frozen=True)
class Film:
    """The film of the game: the video file, its frames per second (the moves'
    ``frame`` numbers say where each was accepted) and its MIME type (one browsers
    play: ``video/webm`` or an H.264 ``video/mp4``)."""

    path: Path
    fps: float
    kind: str = "video/webm"


def data_uri(path: Path, kind: str) -> str:
    """The file as a ``data:`` URI of MIME type ``kind``. Raises ``OSError``."""
    return f"data:{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def page(
    review: Review,
    title: str,
    record: GameRecord,
    *,
    intro: str = "",
    sections: str = "",
    pictures: Sequence[tuple[str, Path]] = (),
    film: Film | None = None,
    tr: Translator | None = None,
) -> str:
    """The whole page, in ``tr``'s language (English by default). ``intro`` and
    ``sections``: HTML shown before and after the review (the caller escapes its own
    text); ``pictures``: (caption, PNG) charts, embedded; ``film``: embedded up to
    ``FILM_EMBED_LIMIT`` bytes, else linked by its name beside the page. Raises
    ``OSError`` for a picture or film that cannot be read."""
    e = html.escape
    tr = tr or Translator()
    t = tr.text
    boards = compact_boards(review)
    data = {
        "pieces": boards.pieces,
        "positions": boards.positions,
        "captions": [caption(review, i, tr) for i in range(review.positions)],
        "where": [where(review, i, tr) for i in range(review.positions)],
        "frames": [m.frame for m in review.moves],
        "fps": film.fps if film is not None else 0,
    }
    width, height = boards.size
    charts = "".join(
        f"<figure><figcaption>{e(name)}</figcaption>"
        f"<img alt='{e(name)}' src='{data_uri(path, 'image/png')}'></figure>"
        for name, path in pictures
    )
    record_json = json.dumps(record.to_json(), indent=1)
    record_uri = "data:application/json;base64," + base64.b64encode(
        record_json.encode("utf-8")
    ).decode("ascii")
    return f"""<!doctype html>
<html lang="{tr.language}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{e(title)}</h1>
{intro}
<h2 id="review-title">{e(t("review.title"))}</h2>
<p class="help">{e(t("page.help"))}</p>
<div class="review">
 <div class="boardside">
  <svg id="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}"
   role="img" aria-label="{e(t("page.board"))}" font-family="sans-serif"><g
   id="shared">{boards.shared}</g><g id="moving"></g></svg>
  <div class="controls">
   <button id="first" title="{e(t("review.first"))} (Home)">◀◀</button>
   <button id="back" title="{e(t("review.back"))} (←)">◀</button>
   <span id="where" aria-live="polite"></span>
   <button id="forward" title="{e(t("review.next"))} (→)">▶</button>
   <button id="last" title="{e(t("review.last"))} (End)">▶▶</button>
  </div>
  <div id="caption"></div>
  {_film(film, tr)}
 </div>
 <div class="moves">{move_table(review, tr)}</div>
</div>
{charts_html(review, tr)}
{charts}
{sections}
<h2>{e(t("page.record"))}</h2>
<p>{e(t("page.record_lead"))} <a download="record.json"
href="{record_uri}">{e(t("page.download"))}</a> {e(t("page.record_tail"))}</p>
<pre id="record">{e(notation_lines(review))}</pre>
<script id="boards" type="application/json">{_script_json(data)}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def caption(review: Review, index: int, tr: Translator | None = None) -> str:
    """What the page says under the board at position ``index`` (plain text; the
    script puts it in as text)."""
    t = (tr or Translator()).text
    move = review.move_at(index)
    if move is None:
        first = review.first_number
        return t("history.start") if first == 1 else t("review.start_late", number=first - 1)
    who = review.names[move.player]
    lines = [t("review.move", number=move.number, player=who, move=move.notation), move.words]
    if move.judgement:
        judged = t("review.judged", judgement=t("judgement." + move.judgement))
        if move.loss is not None and move.judgement != "best":
            judged += " " + t("page.loss", points=f"{100 * move.loss:.0f}")
        lines.append(judged)
    if move.best:
        lines.append(t("review.better", move=move.best, words=move.best_words))
    if move.forced:
        lines.append(t("review.forced"))
    if index == review.positions - 1 and review.result:
        lines.append(review.result)
    return "\n".join(lines)


def where(review: Review, index: int, tr: Translator) -> str:
    """Where the board is, between the buttons: the start, or the move's number."""
    move = review.move_at(index)
    if move is None:
        return tr.text("review.start_row")
    return tr.text("review.where", number=move.number, at=index, of=review.positions - 1)


def move_table(review: Review, tr: Translator | None = None) -> str:
    e = html.escape
    t = (tr or Translator()).text
    start = (
        t("review.start_row")
        if review.first_number == 1
        else t("page.after", number=review.first_number - 1)
    )
    rows = [f"<tr data-i='0' class='start'><td></td><td colspan='4'>{e(start)}</td></tr>"]
    for i, move in enumerate(review.moves, start=1):
        judgement = (
            (
                f"<span class='j' style='color:{JUDGEMENT_COLOURS.get(move.judgement)}'>"
                f"{e(t('judgement.' + move.judgement))}</span>"
            )
            if move.judgement
            else ""
        )
        colour = CHART_COLOURS.get(review.colours[move.player], "#555")
        rows.append(
            f"<tr data-i='{i}'><td class='n'>{move.number}</td>"
            f"<td><span class='dot' style='background:{colour}'></span>"
            f"{e(review.names[move.player])}</td><td class='m'>{e(move.notation)}</td>"
            f"<td>{judgement}</td><td class='m'>{e(move.best)}</td></tr>"
        )
    head = "".join(
        f"<th>{e(t(key))}</th>"
        for key in ("page.col_player", "page.col_move", "page.col_judged", "page.col_better")
    )
    return (
        f"<table id='movelist'><thead><tr><th>#</th>{head}</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def notation_lines(review: Review) -> str:
    return "\n".join(f"{m.number}. {review.names[m.player]}: {m.notation}" for m in review.moves)


# ---------------------------------------------------------------------- charts


def charts_html(review: Review, tr: Translator | None = None) -> str:
    """The scores and (with an analysis) the win chance after each move, as SVG with a
    cursor on the move shown; both end on the result."""
    t = (tr or Translator()).text
    out = [f"<h2>{html.escape(t('page.over_the_game'))}</h2><div class='charts'>"]
    out.append(
        _line_chart(
            review,
            [list(s) for s in review.scores],
            t("page.scores_chart"),
            t("page.score"),
            None,
            t("page.moves_played"),
        )
    )
    if review.chances:
        chances = [[100 * c for c in row] for row in review.chances]
        out.append(
            _line_chart(
                review,
                chances,
                t("page.chances_chart"),
                t("page.win_chance"),
                (0.0, 100.0),
                t("page.moves_played"),
            )
        )
    out.append("</div>")
    return "".join(out)


def _ticks(low: float, high: float, most: int = 8) -> list[float]:
    """Round tick values from ``low`` to ``high``, at most about ``most``."""
    span = max(1e-9, high - low)
    raw = span / most
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step + 1e-9) + 1)]


def _line_chart(
    review: Review,
    series: list[list[float]],
    title: str,
    unit: str,
    bounds: tuple[float, float] | None,
    axis: str,
) -> str:
    """One chart: a line per player over positions 0..n (x: moves played, whole moves
    only), the legend under it, a cursor line the script moves."""
    e = html.escape
    w, h, left, right, top, bottom = 640.0, 270.0, 46.0, 12.0, 24.0, 34.0
    n = len(series) - 1
    first = review.first_number - 1
    values = [v for row in series for v in row]
    low, high = bounds if bounds is not None else (min(0.0, min(values)), max(values) or 1.0)
    if high <= low:
        high = low + 1

    def x(i: float) -> float:
        return left + (w - left - right) * (i / max(1, n))

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - (v - low) / (high - low))

    parts = [
        f"<svg class='chart' viewBox='0 0 {w:.0f} {h:.0f}' role='img' aria-label='{e(title)}'>"
    ]
    for v in _ticks(low, high, 5):
        parts.append(
            f"<line x1='{left}' x2='{w - right}' y1='{y(v):.1f}' y2='{y(v):.1f}' "
            f"class='grid'/><text x='{left - 4}' y='{y(v) + 4:.1f}' "
            f"class='ya'>{v:g}</text>"
        )
    whole = [t for t in _ticks(first, first + n, 10) if float(t).is_integer()]
    for t in whole:
        parts.append(
            f"<text x='{x(t - first):.1f}' y='{h - bottom + 16}' class='xa'>{int(t)}</text>"
        )
    parts.append(
        f"<text x='{(left + w - right) / 2}' y='{h - 2}' class='xa'>"
        f"{e(axis)}</text><text x='4' y='12' class='unit'>{e(unit)}</text>"
    )
    for p, colour_name in enumerate(review.colours):
        colour = CHART_COLOURS.get(colour_name, "#555")
        points = " ".join(f"{x(i):.1f},{y(row[p]):.1f}" for i, row in enumerate(series))
        parts.append(
            f"<polyline points='{points}' fill='none' stroke='{colour}' stroke-width='2'/>"
        )
        end = series[-1][p]
        parts.append(f"<circle cx='{x(n):.1f}' cy='{y(end):.1f}' r='3.5' fill='{colour}'/>")
    parts.append(
        f"<line class='cursor' x1='{x(n):.1f}' x2='{x(n):.1f}' y1='{top}' "
        f"y2='{h - bottom}' data-left='{left}' data-width='{w - left - right}' "
        f"data-n='{n}'/></svg>"
    )
    legend = "".join(
        f"<span><span class='dot' style='background:"
        f"{CHART_COLOURS.get(c, '#555')}'></span>{e(review.names[p])}: "
        f"{series[-1][p]:.0f}</span>"
        for p, c in enumerate(review.colours)
    )
    return (
        f"<figure class='line'><figcaption>{e(title)}</figcaption>{''.join(parts)}"
        f"<div class='legend'>{legend}</div></figure>"
    )


# ---------------------------------------------------------------------- parts


def _film(film: Film | None, tr: Translator) -> str:
    if film is None or not film.path.is_file():
        return ""
    size = film.path.stat().st_size
    source = (
        data_uri(film.path, film.kind) if size <= FILM_EMBED_LIMIT else html.escape(film.path.name)
    )
    return (
        f"<video id='film' controls muted preload='metadata' src='{source}'></video>"
        f"<p class='help'>{html.escape(tr.text('page.film'))}</p>"
    )


def _script_json(data: object) -> str:
    """JSON safe inside a ``<script>`` element."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


STYLE = """
body { font-family: system-ui, sans-serif; max-width: 76em; margin: 1.5em auto;
  padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.7em; } h2 { margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
td, th { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.review { display: flex; flex-wrap: wrap; gap: 1.2em; align-items: flex-start; }
.boardside { flex: 1 1 28em; max-width: 44em; }
#board { width: 100%; height: auto; border: 1px solid #bbb; background: #eee; }
.controls { display: flex; align-items: center; gap: 0.4em; margin: 0.5em 0; }
.controls button { font-size: 1.3em; min-width: 2.6em; padding: 0.2em 0.5em; }
#where { flex: 1; text-align: center; font-weight: bold; }
#caption { white-space: pre-line; min-height: 4.5em; font-size: 1.05em; }
video { width: 100%; margin-top: 0.6em; background: #000; }
.moves { flex: 1 1 22em; max-height: 42em; overflow-y: auto; border: 1px solid #ddd; }
#movelist { width: 100%; margin: 0; }
#movelist td, #movelist th { text-align: left; border: none; border-bottom: 1px solid #eee; }
#movelist th { position: sticky; top: 0; background: #f4f4f4; }
#movelist tr { cursor: pointer; } #movelist tr.now { background: #dbe8ff; }
#movelist .n { color: #666; text-align: right; } .m { font-family: monospace; }
.j { font-weight: bold; }
.dot { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 50%;
  margin-right: 0.35em; vertical-align: -0.05em; border: 1px solid #0004; }
.help { color: #555; font-size: 0.9em; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0.5em 0; } figure.line { flex: 1 1 30em; max-width: 40em; }
img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-weight: bold; margin-bottom: 0.3em; }
svg.chart { width: 100%; height: auto; }
svg.chart .grid { stroke: #ddd; } svg.chart text { font-size: 11px; fill: #444; }
svg.chart .ya { text-anchor: end; } svg.chart .xa { text-anchor: middle; }
svg.chart .cursor { stroke: #1e62d0; stroke-width: 1.5; stroke-dasharray: 4 3; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.6em; max-height: 20em; overflow: auto; }
"""

SCRIPT = """
(function () {
  const data = JSON.parse(document.getElementById('boards').textContent);
  const board = document.getElementById('moving');
  const rows = Array.from(document.querySelectorAll('#movelist tbody tr'));
  const film = document.getElementById('film');
  const last = data.positions.length - 1;
  let at = last;
  function show(i, seek) {
    at = Math.max(0, Math.min(last, i));
    board.innerHTML = data.positions[at].map(k => data.pieces[k]).join('');
    document.getElementById('caption').textContent = data.captions[at];
    document.getElementById('where').textContent = data.where[at];
    rows.forEach((row, k) => row.classList.toggle('now', k === at));
    const row = rows[at], box = row.closest('.moves');
    if (row.offsetTop < box.scrollTop + 30 || row.offsetTop > box.scrollTop + box.clientHeight - 30)
      box.scrollTop = row.offsetTop - box.clientHeight / 2;
    document.querySelectorAll('svg.chart .cursor').forEach(c => {
      const x = +c.dataset.left + +c.dataset.width * at / Math.max(1, +c.dataset.n);
      c.setAttribute('x1', x); c.setAttribute('x2', x);
    });
    const frame = at > 0 ? data.frames[at - 1] : null;
    if (seek && film && data.fps && frame !== null && frame !== undefined)
      film.currentTime = frame / data.fps;
    document.body.dataset.at = at;
  }
  document.getElementById('first').onclick = () => show(0, true);
  document.getElementById('back').onclick = () => show(at - 1, true);
  document.getElementById('forward').onclick = () => show(at + 1, true);
  document.getElementById('last').onclick = () => show(last, true);
  rows.forEach((row, k) => row.addEventListener('click', () => show(k, true)));
  document.addEventListener('keydown', ev => {
    if (ev.target.closest && ev.target.closest('input, textarea, video')) return;
    const to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: last}[ev.key];
    if (to !== undefined) { show(to, true); ev.preventDefault(); }
  });
  show(last, false);
})();
"""
