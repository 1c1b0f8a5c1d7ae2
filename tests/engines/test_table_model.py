"""Every game's table model implements ``engines.table_model.TableModel``."""

from __future__ import annotations

import importlib

import pytest

from engines import GAMES, RecordError, rules_class
from engines.observation import Observation
from engines.registry import table_model
from engines.table_model import TableModel


@pytest.mark.parametrize("game", GAMES)
def test_each_game_module_has_a_table_model(game: str) -> None:
    module = importlib.import_module(f"engines.{game}.observation")
    model = table_model(game)
    assert model is module.TABLE
    assert isinstance(model, TableModel)
    assert model.game == game
    assert not getattr(type(model), "__abstractmethods__", frozenset())


@pytest.mark.parametrize("game", GAMES)
def test_a_table_model_answers_for_a_new_game(game: str) -> None:
    model = table_model(game)
    rules = rules_class(game)()
    state = rules.initial_state()
    table = model.expected(state)
    assert isinstance(table, Observation) and table.schema == model.schema(rules)
    assert all(table[e].known for e in table)
    assert isinstance(model.TURN_IN_PARTS, bool) and isinstance(model.MOVES_GO_ON, bool)
    element = table.schema.elements[0]
    assert model.describe_element(element)
    assert model.group(element)
    assert model.transient(element) <= table.schema.values[element]
    seen = table[element].value
    assert seen is not None
    wanted = next(v for v in table.schema.values[element] if v != seen)
    assert model.fix_sentences([(element, seen, wanted)])
    moves = model.candidates(state, table, [], frozenset())
    assert set(map(rules.format_move, moves)) <= set(map(rules.format_move, state.legal_moves()))


def test_the_defaults_compare_every_legal_move_and_prefer_none() -> None:
    model = table_model("shangrila")
    rules = rules_class("shangrila")()
    state = rules.initial_state()
    table = model.expected(state)
    assert model.candidates(state, table, []) == state.legal_moves()
    assert model.first_candidates(state, table, []) == state.legal_moves()
    assert model.touched(state, state.legal_moves()[0]) == ()
    assert not model.extends(state, state.legal_moves()[0], state.legal_moves()[1])
    assert not model.TURN_IN_PARTS and not model.MOVES_GO_ON


def test_shenshi_says_its_turns_come_in_parts_and_go_on() -> None:
    model = table_model("shenshi")
    assert model.TURN_IN_PARTS and model.MOVES_GO_ON


def test_an_unknown_game_has_no_table_model() -> None:
    with pytest.raises(RecordError, match="unknown game"):
        table_model("chess")
