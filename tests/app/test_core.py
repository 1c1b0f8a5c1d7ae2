"""The app's pure layer, without Kivy: options, setup, the controller over the referee,
the digital board's shapes, move words, history, the report and the alarm."""

from __future__ import annotations

import json
import re
import wave
from dataclasses import replace
from pathlib import Path

import pytest

from companion.app.controller import PlayController, read_seats
from companion.app.gamesetup import GameSetup, Seat, option_specs
from companion.app.history import list_games, positions, replay_record
from companion.app.i18n import LANGUAGES, Translator, table
from companion.app.layout import HIGHLIGHT_RGBA, board_layout, paint
from companion.app.report import export, final_result
from companion.app.sound import RATE, TONES, alarm_file
from companion.app.wording import move_words, verdict_words
from companion.referee.events import Answer, IllegalMove, MoveInProgress, Question
from companion.simulator import TableConfig, TableSimulator
from engines import Dice, available_games, rules_class

APP = Path(__file__).resolve().parents[2] / "companion" / "app"


def test_every_key_exists_in_every_language() -> None:
    english = set(table("en"))
    for language in LANGUAGES:
        assert set(table(language)) == english, language
        assert all(text.strip() for text in table(language).values())


def test_every_key_the_code_uses_is_in_the_tables() -> None:
    """Literal keys in the Python and kv sources (dynamic ones, built from a prefix, are
    checked through their prefix)."""
    english = set(table("en"))
    used = set()
    for path in [*APP.rglob("*.py"), *APP.glob("kv/*.kv")]:
        text = path.read_text(encoding="utf-8")
        used.update(re.findall(r"""\.t(?:ext)?\(\s*['"]([a-z_]+\.[a-z_.]+)['"]""", text))
        used.update(re.findall(r"""_notice\(\s*['"]([a-z_]+\.[a-z_.]+)['"]""", text))
    assert used, "no keys found: the pattern is out of date"
    for key in used:
        if key.endswith((".", "_")):
            assert any(k.startswith(key) for k in english), key
        else:
            assert key in english, key


def test_fields_agree_between_languages() -> None:
    field = re.compile(r"{(\w+)}")
    for key, text in table("en").items():
        for language in LANGUAGES:
            assert set(field.findall(table(language)[key])) == set(field.findall(text)), (
                language,
                key,
            )


@pytest.mark.parametrize("game", available_games())
def test_options_are_every_engine_option_with_its_default(game: str) -> None:
    cls = rules_class(game)
    specs = option_specs(game)
    defaults = cls.from_record(cls.default_players(cls.min_players), {}).options_json()
    assert {s.name for s in specs} == set(defaults)
    for spec in specs:
        if spec.name != "layout":  # drawn from the seed when not given
            assert spec.default == defaults[spec.name], spec.name
    setup = GameSetup.default(game)
    assert setup.check() == []
    assert setup.rules().options_json() == defaults


def test_setup_problems_are_sentences() -> None:
    setup = GameSetup.default("shenshi").with_players(3)
    setup = replace(setup, options={**setup.options, "variant": "expert"})
    assert any("expert variant is for 2 players" in p for p in setup.check())
    assert GameSetup.default("shangrila").with_players(3).check() == []
    spec = next(s for s in option_specs("shenshi") if s.name == "quiet_rounds")
    with pytest.raises(ValueError, match="whole number"):
        spec.parse("ten")
    assert spec.parse(" 12 ") == 12


def _controller(game: str, tmp_path: Path | None = None) -> PlayController:
    return PlayController.start(GameSetup.default(game), Translator(), tmp_path)


def _until(controller: PlayController, simulator: TableSimulator, kind: type) -> list:
    for step in simulator:
        outputs = controller.handle(step.event)
        if any(isinstance(o, kind) for o in outputs):
            return [step, outputs]
    raise AssertionError(f"no {kind.__name__} in the whole game")


def test_illegal_move_makes_a_banner_with_what_to_put_back(tmp_path: Path) -> None:
    controller = _controller("shangrila", tmp_path)
    rules = controller.referee.rules
    simulator = TableSimulator.random(rules, TableConfig(illegal=0.15), seed=3)
    _, outputs = _until(controller, simulator, IllegalMove)
    flag = next(o for o in outputs if isinstance(o, IllegalMove))
    view = controller.view()
    assert view.banner is not None and view.banner.kind == "illegal"
    assert view.banner.rule == flag.rule and flag.message in view.banner.body
    assert view.banner.steps and view.highlight == frozenset(flag.elements)
    assert {(light.colour, light.pattern) for light in controller.lights} == {("red", "blink")}
    assert view.verdict_time > 0
    shapes = paint(board_layout("shangrila"), view.table, view.highlight)
    assert sum(s.rgba == HIGHLIGHT_RGBA for s in shapes) == len(flag.elements)


def test_question_choices_answer_it() -> None:
    controller = _controller("shangrila")  # a recruit seen from above is asked about
    simulator = TableSimulator.random(controller.referee.rules, TableConfig(illegal=0.15), seed=1)
    step, _ = _until(controller, simulator, Question)
    question = controller.view().question
    assert question is not None and len(question.choices) >= 2
    assert step.truth.move in [c.move for c in question.choices]
    assert all(c.words for c in question.choices)
    outputs = controller.handle(Answer(step.truth.move))
    assert outputs[0].name == "move_accepted" and outputs[0].by == "answer"
    assert controller.view().question is None


def test_typed_moves_takeback_and_rejections() -> None:
    controller = _controller("shangrila")
    assert controller.typed("  ") == []
    assert "Type the move" in controller.view().status
    rejected = controller.typed("4>7")
    assert rejected[0].name == "input_rejected"
    assert "Not taken" in controller.view().status
    accepted = controller.typed("H@4")
    assert accepted[0].name == "move_accepted"
    view = controller.view()
    assert view.log[-1][0] == "1. Red: H@4"
    assert "Healer" in view.log[-1][1] and "village 4" in view.log[-1][1]
    controller.takeback()
    assert controller.view().log == ()


def test_game_over_banner_spells_the_result() -> None:
    controller = _controller("shendao")
    state = controller.referee.state
    dice = Dice(5)
    while not state.is_over():
        controller.typed(state.rules.format_move(state.random_move(dice)))
    view = controller.view()
    assert view.over and view.banner is not None and view.banner.kind == "over"
    assert "wins" in view.banner.body or "share" in view.banner.body
    result = final_result(controller)
    assert result.finished and result.sentence == view.banner.body


@pytest.mark.parametrize("game", available_games())
def test_moves_in_words_in_every_language(game: str) -> None:
    rules = rules_class(game).from_record(
        rules_class(game).default_players(rules_class(game).min_players), {}
    )
    state = rules.initial_state()
    dice = Dice(2)
    tr = Translator()
    for _ in range(6):
        move = state.random_move(dice)
        text = rules.format_move(move)
        english = move_words(tr, rules, "Ann", text)
        tr.set_language("fr")
        french = move_words(tr, rules, "Ann", text)
        tr.set_language("en")
        assert english.startswith("Ann") and french.startswith("Ann")
        assert english != french or (game == "shendao" and "Ann:" in english)
        state.play(move)


@pytest.mark.parametrize("game", available_games())
def test_the_digital_board_draws_every_element(game: str) -> None:
    layout = board_layout(game)
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(cls.max_players), {})
    state = rules.initial_state()
    dice = Dice(1)
    for _ in range(12):
        state.play(state.random_move(dice))
    from companion.referee.inference import table_model

    table_ = table_model(game).expected(state)
    missing = [e for e in table_ if layout.spot(e) is None]
    assert missing == []
    shapes = paint(layout, table_)
    assert len(shapes) > len(layout.background) + 20
    w, h = layout.size
    assert all(0 <= s.centre[0] <= w and 0 <= s.centre[1] <= h for s in shapes)


def test_history_lists_replays_and_keeps_names(tmp_path: Path) -> None:
    setup = GameSetup.default("shangrila")
    setup = replace(setup, seats=(Seat("red", "Ann"), *setup.seats[1:]))
    controller = PlayController.start(setup, Translator(), tmp_path)
    for move in ("H@4", "F@7", "R@1"):
        controller.typed(move)
    controller.journal.close()
    (tmp_path / "broken-20260101-120000.jsonl").write_text("not json\n", encoding="utf-8")
    games = list_games(tmp_path)
    good = [g for g in games if not g.problem]
    assert len(good) == 1 and good[0].moves == 3 and good[0].game == "shangrila"
    assert any(g.problem for g in games)
    before = good[0].path.read_bytes()
    record = replay_record(good[0].path)
    assert record.moves == ["H@4", "F@7", "R@1"]
    assert good[0].path.read_bytes() == before
    assert len(positions(record)) == 4
    assert read_seats(good[0].path, record.players)[0].name == "Ann"


def test_export_writes_record_and_report(tmp_path: Path) -> None:
    controller = _controller("shendao")
    controller.typed("W1")
    result = final_result(controller)
    assert not result.finished and "before its end" in result.sentence
    folder = export(tmp_path / "out", result, None)
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["game"] == "shendao" and report["finished"] is False
    assert json.loads((folder / "record.json").read_text())["moves"] == ["W1"]


def test_alarm_is_a_short_wav(tmp_path: Path) -> None:
    path = alarm_file(tmp_path)
    with wave.open(str(path)) as wav:
        assert wav.getframerate() == RATE
        seconds = wav.getnframes() / RATE
    assert abs(seconds - sum(t for _, t in TONES)) < 0.01
    assert alarm_file(tmp_path) == path


def test_a_game_can_begin_from_a_position() -> None:
    rules = rules_class("shangrila").from_record(["red", "blue", "yellow"], {})
    state = rules.initial_state()
    for move in ("H@4", "F@7"):
        state.play_text(move)
    setup = GameSetup(
        "shangrila",
        rules.options_json(),
        tuple(Seat(c) for c in rules.players),
        start=state.to_json(),
    )
    controller = PlayController.start(setup, Translator(), None)
    assert controller.referee.state == state
    assert controller.view().turn == "Yellow to play"


def test_pause_holds_the_readings_back() -> None:
    controller = _controller("shangrila")
    simulator = TableSimulator.random(controller.referee.rules, TableConfig(), seed=2)
    steps = iter(simulator)
    controller.set_paused(True)
    assert controller.view().turn == "Paused"
    for _, step in zip(range(40), steps, strict=False):
        assert controller.handle(step.event) == []
    assert controller.referee.sources == {}
    controller.set_paused(False)
    judged = next(
        outputs
        for _, step in zip(range(200), steps, strict=False)
        if (outputs := controller.handle(step.event))
    )
    assert judged and "camera" in controller.referee.sources


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_move_under_way_is_worded_with_or_without_its_candidates(language: str) -> None:
    tr = Translator(language)
    bare = verdict_words(tr, MoveInProgress(1, []), lambda p: f"P{p}")
    assert bare.startswith("P1") and "()" not in bare and bare.endswith(".")
    listed = verdict_words(tr, MoveInProgress(1, ["H@4", "Y@7"]), lambda p: f"P{p}")
    assert "H@4, Y@7" in listed
