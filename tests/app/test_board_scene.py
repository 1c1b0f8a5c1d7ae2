"""The digital board's drawing and tapping, without Kivy: what is printed on each
game's board, the players' letters, the pieces to put back, the legend, the layout
fitted at calibration, and a question answered by taps."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.app.board.answer import CHIP_PREFIX, Candidate, TapAnswer, candidates
from companion.app.board.glyphs import GLYPHS, place
from companion.app.board.maps import fitted_model, legend, map_of
from companion.app.board.scene import DISCIPLINES, Scene, Text, compose
from companion.app.layout import HIGHLIGHT_RGBA, PLAYER_RGBA
from engines import rules_class
from engines.errors import IllegalMoveError
from engines.registry import table_model
from vision.models import load_model


def _texts(scene: Scene) -> list[Text]:
    return [t for layer in scene.layers for t in layer.texts]


def _start(game: str, moves: int = 0, seed: int = 2) -> tuple[Any, Any]:
    from companion.simulator import random_game

    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(cls.max_players), {})
    state = rules.initial_state()
    for move in random_game(rules, seed)[:moves]:
        state.apply(move)
    return rules, state


def test_each_discipline_has_its_own_glyph_inside_its_box() -> None:
    assert sorted(GLYPHS) == sorted(DISCIPLINES)
    for glyph in GLYPHS.values():
        points = [p for line in glyph.lines + glyph.closed for p in line]
        points += [(x + s * r, y) for x, y, r in glyph.dots for s in (-1, 1)]
        assert points and all(abs(x) <= 1.0 and abs(y) <= 1.0 for x, y in points)
    drawn = {letter: (g.lines, g.closed, g.dots) for letter, g in GLYPHS.items()}
    assert len(set(map(repr, drawn.values()))) == len(DISCIPLINES)
    placed = place(GLYPHS["H"], (100.0, 50.0), 10.0)
    xs = [x for line in placed.closed for x, _ in line]
    assert min(xs) == pytest.approx(91.5) and max(xs) == pytest.approx(108.5)


def test_shangrila_villages_numbered_and_spaces_with_symbol_and_letter() -> None:
    model = load_model("shangrila")
    board = map_of("shangrila", model)
    scene = compose(board, table_model("shangrila").expected(_start("shangrila")[1]))
    texts = _texts(scene)
    numbers = {t.text: t.centre for t in texts if t.text.isdigit()}
    assert set(numbers) == {str(v.id) for v in model.villages}
    spaces = [e for e in model.elements.values() if e.kind == "space"]
    for village in model.villages:
        # On its village's rim, covering none of the spaces.
        at = numbers[str(village.id)]
        assert math.dist(at, village.centre_mm) == pytest.approx(village.radius_mm)
        assert all(math.dist(at, s.centre_mm) > 14.0 for s in spaces)
    letters = [t for t in texts if t.text in DISCIPLINES]
    assert len(letters) >= len(spaces)  # each space's letter (and the legend's)
    glyph_strokes = sum(len(g.lines) + len(g.closed) for g in GLYPHS.values())
    assert len(board.printed.strokes) == glyph_strokes * len(spaces) // 7
    red = [s for s in board.printed.shapes if s.rgba[:3] == (0.62, 0.18, 0.14)]
    assert len(red) == 1  # the red village's number


def test_shangrila_pieces_carry_the_players_letters_and_students_a_ring() -> None:
    _, state = _start("shangrila", moves=40)
    table = table_model("shangrila").expected(state)
    scene = compose(map_of("shangrila", load_model("shangrila")), table)
    pieces = scene.layers[2]
    masters = [e for e in table if not e.endswith("^") and str(table.value(e)) in PLAYER_RGBA]
    students = [e for e in table if e.endswith("^") and table.value(e) == 2]
    assert masters and students
    letters = [t.text for t in pieces.texts]
    assert sorted(letters) == sorted(
        {"red": "R", "blue": "B", "yellow": "Y", "violet": "V"}[str(table.value(e))]
        for e in masters
    )
    rings = [s for s in pieces.shapes if s.shape == "outline" and s.rgba == (1, 1, 1, 1)]
    assert len(rings) == len(students)
    yellow = next(t for t in pieces.texts if t.text == "Y")
    assert yellow.rgba[:3] == (0.05, 0.05, 0.05)  # dark letter on a light colour


def test_shendao_gates_squares_and_walls() -> None:
    model = load_model("shendao")
    board = map_of("shendao", model)
    scene = compose(board, table_model("shendao").expected(_start("shendao", 10)[1]))
    texts = {t.text: t.centre for t in _texts(scene)}
    gates = [n.removeprefix("gate ") for n, e in model.elements.items() if e.kind == "gate"]
    squares = [n for n, e in model.elements.items() if e.kind == "square"]
    assert len(gates) == 36 and set(gates) <= set(texts) and set(squares) <= set(texts)
    w, h = model.size_mm
    for gate in gates:  # outside the squares, on the board
        x, y = texts[gate]
        assert 0 < x < w and 0 < y < h
        assert x < 80 or x > 400 or y < 80 or y > 400
    assert texts["W3"][0] < texts["a3"][0] and texts["Nc"][1] < texts["c8"][1]
    walls = [s for s in board.printed.shapes if s.rgba == (0.80, 0.10, 0.10, 1)]
    assert len(walls) == len(model.walls)
    assert {"L", "D"} <= {t.text for t in scene.layers[2].texts}


def test_shenshi_coordinates_and_monks_by_metal_and_size() -> None:
    _, state = _start("shenshi", 10)
    table = table_model("shenshi").expected(state)
    scene = compose(map_of("shenshi", load_model("shenshi")), table)
    texts = _texts(scene)
    assert set("abcdefg") <= {t.text for t in texts} and set("1234567") <= {t.text for t in texts}
    monks = {
        e: str(table.value(e)) for e in table if e.endswith(" monk") and table.value(e) != "none"
    }
    assert monks
    pieces = scene.layers[2]
    for element, value in monks.items():
        metal, _, size = value.partition("-")
        centre = map_of("shenshi", load_model("shenshi")).layout.spot(element).centre
        letter = next(t for t in pieces.texts if t.centre == centre)
        capital = {"silver": "S", "copper": "C", "gold": "G", "black": "K"}[metal]
        assert letter.text == (capital if size == "grand" else capital.lower())
        disc = [s for s in pieces.shapes if s.centre == centre and s.rgba == PLAYER_RGBA[metal]]
        assert disc and disc[0].size[0] == (30.0 if size == "grand" else 21.0)
    tokens = [t.text for t in pieces.texts if t.text[:2] in ("S ", "C ")]
    assert len(tokens) == 2  # each player's path tokens, with the count


def test_what_goes_back_is_drawn_bigger_in_the_blinking_layer() -> None:
    _, state = _start("shangrila", moves=20)
    expected = table_model("shangrila").expected(state)
    board = map_of("shangrila", load_model("shangrila"))
    occupied = next(
        e for e in expected if not e.endswith("^") and str(expected.value(e)) in PLAYER_RGBA
    )
    empty = next(
        e
        for e in expected
        if board.layout.spot(e).kind == "space"
        and not e.endswith("^")
        and expected.value(e) == "empty"
    )
    # Seen: the master taken off its space, and a tile put on an empty one.
    seen = expected.replace({occupied: "empty", empty: "red"})
    scene = compose(board, seen, highlight=[occupied, empty], expected=expected)
    assert scene.blink.shapes and scene.blink_off.shapes
    spot = board.layout.spot(occupied)
    frames = [s for s in scene.blink.shapes if s.rgba == HIGHLIGHT_RGBA]
    assert len(frames) == 2 and all(s.size[0] >= spot.size[0] + 16 for s in frames)
    colour = PLAYER_RGBA[str(expected.value(occupied))]
    back = [s for s in scene.blink.shapes if s.rgba == colour and s.centre == spot.centre]
    assert back and back[0].size[0] > 1.2 * spot.size[0]  # the master, drawn bigger
    off = board.layout.spot(empty).centre
    cross = [s for s in scene.blink.strokes if s.rgba == HIGHLIGHT_RGBA]
    assert len(cross) == 2  # the red tile comes off
    assert all(
        math.dist(off, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)) < 1e-6
        for a, b in (c.points for c in cross)
    )
    plain = [s for s in scene.blink_off.shapes if s.rgba == HIGHLIGHT_RGBA]
    assert len(plain) == 2 and all(s.size[0] < spot.size[0] + 10 for s in plain)
    assert not compose(board, expected).blink.shapes


@pytest.mark.parametrize("game", ["shangrila", "shendao", "shenshi"])
def test_legend_below_or_beside_names_the_players(game: str) -> None:
    rules, state = _start(game)
    board = map_of(game, load_model(game))
    names = legend(
        game,
        rules.players,
        [c.title() for c in rules.players],
        lambda kind, value: f"{kind} {value}",
    )
    if game == "shangrila":
        assert [n.mark for n in names][:7] == list(DISCIPLINES)
        assert names[0].words == "discipline 0"
    players = [n for n in names if n.rgba is not None]
    assert [n.words for n in players][: len(rules.players)] == [c.title() for c in rules.players]
    table = table_model(game).expected(state)
    below = compose(board, table, legend=names)
    beside = compose(board, table, legend=names, beside=True)
    w, h = board.size
    assert below.size[0] == w and below.size[1] > h
    assert beside.size[1] == h and beside.size[0] > w
    for scene in (below, beside):
        legend_texts = [t for t in scene.layers[1].texts if not t.bold]
        assert [t.text for t in legend_texts][-len(players) :] == [n.words for n in players]
        assert all(t.centre[0] >= w or t.centre[1] >= h for t in legend_texts)


def test_the_layout_fitted_at_calibration_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibration.layout import ElementFit, LayoutFit, save_layout
    from calibration.profiles import layout_path

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    nominal = load_model("shangrila")
    assert fitted_model("shangrila") is nominal or fitted_model("shangrila") == nominal
    shift = (7.0, -5.0)

    def moved(centre: tuple[float, float], village: bool) -> tuple[float, float]:
        return (centre[0] + shift[0], centre[1] + shift[1]) if village else centre

    in_4 = {n for n in nominal.elements if n[:-1] == "4" or n == "stone 4"}
    elements = {
        n: replace(e, centre_mm=moved(e.centre_mm, n in in_4)) for n, e in nominal.elements.items()
    }
    villages = tuple(replace(v, centre_mm=moved(v.centre_mm, v.id == 4)) for v in nominal.villages)
    model = replace(nominal, elements=elements, villages=villages)
    fits = {
        n: ElementFit(n, e.centre_mm, e.angle_deg, 8.6 if n in in_4 else 0.0, 1.0, 0.0, "outline")
        for n, e in elements.items()
    }
    path = layout_path("shangrila")
    path.parent.mkdir(parents=True, exist_ok=True)
    save_layout(LayoutFit(model, fits), path)
    fitted = fitted_model("shangrila")
    board = map_of("shangrila", fitted)
    assert board.layout.spot("4H").centre == moved(nominal.elements["4H"].centre_mm, True)
    circle = next(
        s
        for s in board.printed.shapes
        if s.shape == "ellipse"
        and s.size == (88.0, 88.0)
        and math.dist(s.centre, (227.0, 170.0)) < 1
    )
    assert circle.centre == (227.0, 170.0)
    path.write_text("not a layout", encoding="utf-8")
    assert fitted_model("shangrila") is load_model("shangrila")  # a damaged file: the model


# ---------------------------------------------------------------------- answering by taps


def test_candidates_tell_apart_by_elements_and_chips_for_the_rest() -> None:
    changes = [
        ("+D1", frozenset({"1D"})),
        ("+P3", frozenset({"3P"})),
        ("+D1+P3", frozenset({"1D", "3P"})),
    ]
    choices, chips = candidates(changes, str.upper)
    assert choices == (
        Candidate("+D1", frozenset({"1D"})),
        Candidate("+P3", frozenset({"3P"})),
        Candidate("+D1+P3", frozenset({"1D", "3P"})),
    )
    assert chips == {}
    same = [
        ("E4 loung c4", frozenset({"h4", "gate E4"})),
        ("E4 tigre", frozenset({"h4", "gate E4"})),
    ]
    choices, chips = candidates(same, lambda m: m.split()[1])
    assert [c.targets for c in choices] == [
        frozenset({CHIP_PREFIX + "E4 loung c4"}),
        frozenset({CHIP_PREFIX + "E4 tigre"}),
    ]
    assert list(chips.values()) == ["loung", "tigre"]


def test_taps_select_masters_and_answer_when_one_move_is_left() -> None:
    choices = (
        Candidate("+D1", frozenset({"1D"})),
        Candidate("+P3", frozenset({"3P"})),
        Candidate("+H5", frozenset({"5H"})),
        Candidate("+D1+P3", frozenset({"1D", "3P"})),
        Candidate("+D1+H5", frozenset({"1D", "5H"})),
    )
    taps = TapAnswer(choices, {})
    assert taps.tap("7A") is None and taps.selected == frozenset()  # not a candidate's
    assert taps.tap("1D") is None
    assert [c.move for c in taps.open()] == ["+D1", "+D1+P3", "+D1+H5"]
    assert taps.tappable() == {"1D", "3P", "5H"}
    assert taps.tap("5H") == "+D1+H5"
    one = TapAnswer(choices, {})
    assert one.tap("1D") is None
    assert one.tap("1D") == "+D1"  # tapped again: that master only
    alone = TapAnswer(choices, {})
    assert alone.tap("3P") is None  # +P3 and +D1+P3
    assert alone.tap("3P") == "+P3"


def test_a_question_over_real_moves_of_each_game() -> None:
    rules, state = _start("shangrila", moves=30, seed=3)
    moves = [rules.format_move(m) for m in state.legal_moves()]
    recruits = [m for m in moves if m.startswith("+")][:6]
    assert recruits
    taps = TapAnswer.for_question("shangrila", rules, state, recruits, str)
    single = next(c for c in taps.choices if c.move.count("+") == 1)
    village, letter = single.move[2:], single.move[1]
    assert single.targets == {f"{village}{letter}"}  # the master's space, not its height
    rules, state = _start("shendao", moves=4)
    moves = [rules.format_move(x) for x in state.legal_moves()]
    gate = next(m for m in moves if m.endswith((" tigre", " yinyang")))
    plain = gate.split()[0]
    taps = TapAnswer.for_question("shendao", rules, state, [plain, gate], str)
    words = list(taps.chips.values())
    if taps.chips:  # the card left the same table as the plain move
        assert {"Tigre Blanc", "Yin-Yang"} & set(words)
        assert taps.tap(CHIP_PREFIX + gate) == gate
    else:
        assert taps.choices[0].targets != taps.choices[1].targets


def test_the_referees_elements_and_cards_answer_by_taps() -> None:
    rules, state = _start("shangrila", moves=30, seed=3)
    recruits = [
        m for m in (rules.format_move(x) for x in state.legal_moves()) if m.startswith("+")
    ][:6]
    model = table_model("shangrila")
    given = []
    for move in recruits:  # as the referee words its question: every element changed
        after = state.copy()
        after.apply(rules.parse_move(move))
        before, now = model.expected(state), model.expected(after)
        given.append((move, [e for e in before if before.value(e) != now.value(e)], ""))
    taps = TapAnswer.from_elements(given, str)
    derived = TapAnswer.for_question("shangrila", rules, state, recruits, str)
    assert taps.choices == derived.choices and not taps.chips
    cards = TapAnswer.from_elements([("E4 loung c4", [], "loung"), ("E4 tigre", [], "tigre")], str)
    assert sorted(cards.chips.values()) == ["Loung", "Tigre Blanc"]
    assert cards.tap(CHIP_PREFIX + "E4 tigre") == "E4 tigre"


def test_a_question_about_another_position_is_left_to_the_buttons() -> None:
    rules, state = _start("shangrila")
    with pytest.raises(IllegalMoveError):
        TapAnswer.for_question("shangrila", rules, state, ["+H4", "+P4"], str)


def test_target_at_finds_the_element_under_a_tap() -> None:
    board = map_of("shangrila", load_model("shangrila"))
    _, state = _start("shangrila")
    scene = compose(
        board,
        table_model("shangrila").expected(state),
        targets=["4H", "5P"],
        chips={CHIP_PREFIX + "x": "a chip"},
    )
    spot = board.layout.spot("4H")
    assert scene.target_at(spot.centre) == "4H"
    assert scene.target_at((spot.centre[0] + 9, spot.centre[1] - 9)) == "4H"
    assert scene.target_at(board.layout.spot("4P").centre) is None
    chip = scene.targets[CHIP_PREFIX + "x"]
    assert chip.centre[1] > board.size[1] and scene.target_at(chip.centre) == CHIP_PREFIX + "x"
