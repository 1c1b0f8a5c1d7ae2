"""The review of a game (moves numbered as in the game, judgements, better moves, the
board at each move) and the report page: one self-contained file, stepped through in a
real headless browser by keyboard, buttons and the move list."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

import pytest

from companion.app.i18n import Translator
from companion.app.report import Result, export, strength
from companion.review import build_review, game_board, record_notation
from companion.review_page import Film, page
from engines import Dice, EngineError, GameRecord
from engines.search.analysis import Analysis
from engines.shangrila import ShangrilaRules
from tests.browser import Browser, find_chromium


def random_record(moves: int, seed: int = 1) -> GameRecord:
    state = ShangrilaRules().initial_state()
    dice = Dice(seed)
    played = []
    while not state.is_over() and len(played) < moves:
        move = state.random_move(dice)
        played.append(state.rules.format_move(move))
        state.apply(move)
    return GameRecord("shangrila", list(state.rules.players), state.rules.options_json(), played)


@pytest.fixture(scope="module")
def analysed() -> tuple[GameRecord, Analysis]:
    record = random_record(14)
    return record, strength(record, level=1)


def test_moves_keep_the_game_numbering_and_the_analysis(
    analysed: tuple[GameRecord, Analysis],
) -> None:
    record, analysis = analysed
    review = build_review(record, analysis=analysis, first_number=41, names=("Ann", "", "", ""))
    assert [m.number for m in review.moves] == list(range(41, 55))
    assert review.positions == len(record.moves) + 1
    assert review.names[:2] == ("Ann", "Blue")
    assert len(review.chances) == review.positions  # the last point is the result
    for move, report in zip(review.moves, analysis.moves, strict=True):
        assert move.judgement == ("" if report.forced else report.judgement)
        if move.best:  # only where the move played was not judged best
            assert move.judgement != "best" and move.best == report.best != report.played
            assert move.best_words and move.best_changed
        assert move.changed  # every Shangri-La move changes the table
    assert any(m.best for m in review.moves)
    first = review.moves[0]
    assert first.words.startswith("Ann places")
    # the board of a position: the Play screen's drawing, and frames on what changed
    board = game_board("shangrila")
    start, after = review.scene(0, board), review.scene(1, board)
    assert len(after.layers) == len(start.layers) + 1
    assert len(after.layers[-1].shapes) == len(first.changed)


def test_the_notation_export_numbers_moves_as_the_game_does() -> None:
    record = random_record(3)
    lines = record_notation(record, first_number=7).splitlines()
    assert lines == [f"{7 + i}. {record.players[i]}: {m}" for i, m in enumerate(record.moves)]
    assert GameRecord.loads(record.dumps()) == record


def test_the_page_is_one_file_that_can_be_sent(
    tmp_path: Path, analysed: tuple[GameRecord, Analysis]
) -> None:
    record, analysis = analysed
    film = tmp_path / "film.webm"
    film.write_bytes(b"\x1aE\xdf\xa3 not really a film")
    chart = tmp_path / "c.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n")
    text = page(
        build_review(record, analysis=analysis, frames=range(0, 140, 10)),
        "a game",
        record,
        pictures=[("a chart", chart)],
        film=Film(film, 10.0),
    )
    # nothing it needs lives outside it: every src and href is inline data
    links = re.findall(r"""(?:src|href)=['"]([^'"]*)['"]""", text)
    assert links and all(link.startswith("data:") for link in links)
    assert "data:video/webm;base64," in text and "data:image/png;base64," in text
    assert "<script src" not in text and "<link" not in text
    for move in record.moves:
        assert f">{move}<" in text


def test_export_writes_the_record_and_the_page(
    tmp_path: Path, analysed: tuple[GameRecord, Analysis]
) -> None:
    record, analysis = analysed
    result = Result(
        "shangrila",
        ("Ann", "Blue", "Yellow", "Violet"),
        (3, 1, 0, 2),
        (0,),
        "Ann leads.",
        False,
        record,
    )
    path = export(tmp_path, result, analysis) / "report.html"
    assert path.stat().st_size > 0
    assert GameRecord.load(tmp_path / "record.json") == record
    assert (tmp_path / "moves.txt").read_text().splitlines()[0] == f"1. Ann: {record.moves[0]}"
    assert "Ann leads." in path.read_text()
    french = export(tmp_path / "fr", result, analysis, Translator("fr")) / "report.html"
    text = french.read_text()  # the page in the app's language
    assert '<html lang="fr">' in text and "Revoir la partie" in text
    assert "Coup 1, Ann" in text and "Ann place" in text
    assert "Perte à chaque coup" in text and "Loss per move" not in text  # the charts' titles


CHROMIUM = find_chromium()


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium installed (apt-get install chromium) to open the report in a real browser",
)
def test_a_real_browser_steps_through_the_report(
    tmp_path: Path, analysed: tuple[GameRecord, Analysis]
) -> None:
    record, analysis = analysed
    result = Result(
        "shangrila",
        ("Ann", "Blue", "Yellow", "Violet"),
        (3, 1, 0, 2),
        (0,),
        "Ann leads.",
        False,
        record,
    )
    path = export(tmp_path, result, analysis) / "report.html"
    assert CHROMIUM is not None
    browser = Browser(CHROMIUM)
    try:
        browser.open(path)
        last = len(record.moves)

        def at() -> int:
            return int(browser.evaluate("document.body.dataset.at"))

        def caption() -> str:
            return str(browser.evaluate("document.getElementById('caption').textContent"))

        def pieces() -> int:
            return int(browser.evaluate("document.getElementById('moving').childElementCount"))

        assert at() == last and "Ann leads." in caption()  # opens on the end
        browser.key("Home")
        assert at() == 0 and caption() == "Before the first move."
        empty = pieces()
        browser.key("ArrowRight")
        assert at() == 1 and caption().startswith(f"Move 1, Ann: {record.moves[0]}")
        assert pieces() > empty  # the first master is on the board
        browser.screenshot(tmp_path / "move-1.png")
        browser.key("ArrowRight")
        browser.key("ArrowLeft")
        browser.key("ArrowLeft")
        browser.key("ArrowLeft")  # past the start stays on it
        assert at() == 0
        browser.click("#forward")
        browser.click("#forward")
        assert at() == 2 and "Move 2, Blue" in caption()
        browser.click("#movelist tr[data-i='9']")
        assert at() == 9
        assert browser.evaluate("document.querySelector('#movelist tr.now').dataset.i") == "9"
        judged = analysis.moves[8]
        if not judged.forced:
            assert f"Judged: {judged.judgement}" in caption()
        cursor = browser.evaluate("document.querySelector('svg.chart .cursor').getAttribute('x1')")
        browser.key("End")
        assert at() == last
        assert (
            browser.evaluate("document.querySelector('svg.chart .cursor').getAttribute('x1')")
            != cursor
        )  # the charts follow
        shot = browser.screenshot(tmp_path / "end.png")
        assert shot.stat().st_size > 10_000
    finally:
        browser.close()


@pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium installed (apt-get install chromium)"
    " to play the report's film in a real browser",
)
def test_the_film_in_the_page_plays_in_a_real_browser(
    tmp_path: Path, analysed: tuple[GameRecord, Analysis]
) -> None:
    import cv2
    import numpy as np

    from companion.demo.report import browser_film

    film = tmp_path / "film.mp4"  # as the demo films: MPEG-4, which browsers cannot play
    writer = cv2.VideoWriter(str(film), cv2.VideoWriter_fourcc(*"mp4v"), 10.0, (320, 240))
    for shade in range(20):
        writer.write(np.full((240, 320, 3), 10 * shade, np.uint8))
    writer.release()
    copy = browser_film(film, tmp_path / "film.webm")
    assert copy is not None
    record, analysis = analysed
    path = tmp_path / "page.html"
    path.write_text(
        page(
            build_review(record, analysis=analysis, frames=range(0, 14)),
            "a game",
            record,
            film=Film(copy, 10.0),
        ),
        encoding="utf-8",
    )
    assert CHROMIUM is not None
    browser = Browser(CHROMIUM)
    try:
        browser.open(path)
        deadline = time.monotonic() + 10
        while browser.evaluate("document.getElementById('film').readyState") < 1:
            assert time.monotonic() < deadline, "the browser did not read the film"
            time.sleep(0.1)
        assert browser.evaluate("document.getElementById('film').duration") == pytest.approx(
            2.0, abs=0.2
        )
        assert browser.evaluate("document.getElementById('film').videoWidth") > 0
        browser.key("Home")
        browser.key("ArrowRight")
        browser.key("ArrowRight")  # move 2 was accepted at frame 1: 0.1 s into the film
        assert browser.evaluate("document.getElementById('film').currentTime") == pytest.approx(
            0.1, abs=0.05
        )
    finally:
        browser.close()


def test_an_analysis_whose_better_move_cannot_be_played_there_is_refused(
    analysed: tuple[GameRecord, Analysis],
) -> None:
    record, analysis = analysed
    index = next(
        m.index
        for m in analysis.moves[1:]
        if not m.forced and m.best != m.played and m.judgement != "best"
    )
    # the move just before, played again: its place is taken already
    wrong = dataclasses.replace(analysis.moves[index], best=record.moves[index - 1])
    moves = [wrong if m.index == index else m for m in analysis.moves]
    with pytest.raises(EngineError, match="already taken"):
        build_review(record, analysis=dataclasses.replace(analysis, moves=moves))
