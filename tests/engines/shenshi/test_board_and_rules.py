"""Board data, squares, the seeded setup, players and options."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engines import GameRecord, RecordError, new_record, replay
from engines.shenshi import ShenshiRules, load_board, movegen, parse_square, square_name
from engines.shenshi.board import CYCLES, NEIGHBOURS, RAYS, between
from engines.shenshi.rules import DEFAULTS

BOARD = load_board()


def test_squares_a1_to_g7_map_to_rulings_rows_and_columns() -> None:
    # RULINGS (row, col): row 0 is rank 7, col 0 is file a.
    assert square_name(0) == "a7" and square_name(6) == "g7"
    assert square_name(42) == "a1" and square_name(48) == "g1"
    assert [square_name(2 * 7 + 2), square_name(3 * 7 + 3), square_name(4 * 7 + 4)] == [
        "c5",
        "d4",
        "e3",
    ]
    assert all(parse_square(square_name(s)) == s for s in range(49))
    assert parse_square("D4") == 24
    assert parse_square("h1") is None and parse_square("a8") is None
    assert parse_square("a0") is None and parse_square("a") is None


def test_board_data_is_the_rulings_reconstruction() -> None:
    assert [square_name(s) for s in BOARD.marked] == [
        "b6",
        "d6",
        "f6",
        "b4",
        "f4",
        "b2",
        "d2",
        "f2",
    ]  # (1,1) (1,3) ... (5,5)
    assert BOARD.bag == "IIIIFFFFBBBO"
    assert [(square_name(s), c) for s, c in BOARD.start_cushions] == [
        ("c5", 1),
        ("d4", 1),
        ("e3", 1),
    ]
    assert [square_name(s) for s in BOARD.neutral_squares] == ["c5", "e3"]
    assert BOARD.reserve == (2, 1) and BOARD.cushions == (14, 5)
    assert (BOARD.tokens_total, BOARD.tokens_start, BOARD.goal) == (30, 1, 8)


def sq(name: str) -> int:
    square = parse_square(name)
    assert square is not None
    return square


def test_geometry_tables() -> None:
    d4 = sq("d4")
    assert {square_name(s) for s in NEIGHBOURS[d4]} == {"d5", "e4", "d3", "c4"}
    assert len(NEIGHBOURS[sq("a1")]) == 2
    assert [square_name(s) for s in RAYS[d4][1]] == ["e4", "f4", "g4"]
    assert [square_name(s) for s in CYCLES[d4][1]] == ["e4", "f4", "g4", "a4", "b4", "c4", "d4"]
    assert [square_name(s) for s in CYCLES[d4][0]] == ["d5", "d6", "d7", "d1", "d2", "d3", "d4"]
    assert between(d4, sq("d7")) == (sq("d6"), sq("d5"))
    assert between(d4, sq("e5")) is None


def test_the_setup_draw_is_fixed_for_a_seed_on_every_machine() -> None:
    # Golden values: SplitMix64 and Fisher-Yates need no library, so they never change.
    assert [BOARD.draw_layout(seed) for seed in range(3)] == ["FIFBIFII", "FFFBOIBI", "OFFBIFIB"]
    for seed in range(200):
        layout = BOARD.draw_layout(seed)
        assert len(layout) == 8
        assert not Counter(layout) - Counter(BOARD.bag)  # 8 of the 12 tiles


def test_a_broken_board_file_is_a_record_error(tmp_path: Path) -> None:
    data = json.loads((Path(__file__).parents[3] / "engines/shenshi/board.json").read_text())
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data))
    assert load_board(path) == BOARD
    data["neutral_monks"]["M"] = "c5"
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="neutral monks"):
        load_board(path)
    path.write_text("{")
    with pytest.raises(RecordError, match="cannot read"):
        load_board(path)


def test_players_are_metals_and_black_plays_only_with_four() -> None:
    assert ShenshiRules.default_players(2) == ["silver", "copper"]
    assert ShenshiRules.default_players(4) == ["silver", "copper", "gold", "black"]
    assert ShenshiRules(["gold", "silver"]).players == ("gold", "silver")
    with pytest.raises(RecordError, match="black plays only"):
        ShenshiRules(["silver", "black"])
    with pytest.raises(RecordError, match="unknown colour"):
        ShenshiRules(["silver", "red"])
    with pytest.raises(RecordError, match="2 to 4"):
        ShenshiRules(["silver"])
    with pytest.raises(RecordError, match="distinct"):
        ShenshiRules(["silver", "silver"])
    with pytest.raises(RecordError):
        ShenshiRules.default_players(5)


def test_options_have_defaults_and_round_trip_through_records() -> None:
    rules = ShenshiRules.from_record(["silver", "copper"], {})
    assert rules.options_json() == {**DEFAULTS, "layout": "FIFBIFII"}
    again = ShenshiRules.from_record(["silver", "copper"], rules.options_json())
    assert again.options_json() == rules.options_json()
    expert = ShenshiRules.from_record(["silver", "copper"], {"variant": "expert", "seed": 2})
    assert expert.layout == "OFFBIFIB" and expert.expert


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"colour": 1}, "unknown ShenShi options"),
        ({"variant": "advanced"}, "variant"),
        ({"monks_per_turn": "two"}, "monks_per_turn"),
        ({"walk": "diagonal"}, "walk"),
        ({"neutral_return": "never"}, "neutral_return"),
        ({"black_start": "box"}, "black_start"),
        ({"lift_put_down": "anywhere"}, "lift_put_down"),
        ({"orange_lifts": -1}, "orange_lifts"),
        ({"orange_lifts": True}, "orange_lifts"),
        ({"orange_lifts": 15}, "orange_lifts"),
        ({"quiet_rounds": 2.5}, "quiet_rounds"),
        ({"seed": -3}, "seed"),
        ({"seed": "1"}, "seed"),
        ({"layout": "IIIIIFFF"}, "I tiles"),
        ({"layout": "IFB"}, "8 letters"),
        ({"layout": 7}, "string"),
        ({"layout": "IFIFIFBO", "seed": 0}, "not the one seed 0 draws"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], match: str) -> None:
    with pytest.raises(RecordError, match=match):
        ShenshiRules.from_record(["silver", "copper"], options)


def test_the_expert_variant_is_for_two_players() -> None:
    with pytest.raises(RecordError, match="2 players"):
        ShenshiRules(["silver", "copper", "gold"], variant="expert")


def test_an_explicit_layout_replays_without_a_seed() -> None:
    rules = ShenshiRules.from_record(["silver", "copper"], {"layout": "ifbo ifbi".replace(" ", "")})
    assert rules.seed is None and rules.layout == "IFBOIFBI"
    assert rules.options_json()["seed"] is None
    both = ShenshiRules.from_record(["silver", "copper"], {"seed": 1, "layout": "FFFBOIBI"})
    assert both.layout == "FFFBOIBI"


def test_a_record_keeps_the_setup() -> None:
    rules = ShenshiRules(["silver", "copper"], seed=7)
    record = new_record(rules)
    first = movegen.has_turn(rules.initial_state())
    assert first is not None
    record.moves.append(rules.format_move(first))
    again = GameRecord.loads(record.dumps())
    assert again.options["layout"] == rules.layout and again.options["seed"] == 7
    result = replay(again)
    assert result.error is None and result.played == 1
    assert result.state.to_json()["tiles"] == rules.initial_state().to_json()["tiles"]
