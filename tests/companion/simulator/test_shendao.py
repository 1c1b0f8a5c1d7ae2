"""The table simulator on Shendao: moves made by hand, card effects, illegal attempts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.referee.events import TypedMove, input_to_json
from companion.simulator import SimulatorError, TableConfig, TableSimulator, referee_game
from companion.simulator.core import ATTEMPT, MOVE, REPAIR
from companion.simulator.shendao import STAGEABLE, ShendaoHandling
from engines.shendao import ShendaoRules, ShendaoState
from engines.shendao.moves import Enter
from engines.shendao.observation import prefer
from tests.engines.shendao.helpers import position

RULES = ShendaoRules()
BUSY = TableConfig(flicker=0.02, unsure=0.02, hands=0.3, pause=0.2, change_of_mind=0.2, illegal=0.2)
ALL = ["brigand", "loung", "nugua", "pretresse", "tigre", "yinyang"]


def without(*cards: str) -> dict[str, list[str]]:
    left = [c for c in ALL if c not in cards]
    return {"light": left, "dark": left}


def test_the_stream_replays_from_its_seed() -> None:
    def stream(seed: int) -> list[Any]:
        return [
            (input_to_json(s.event), s.truth) for s in TableSimulator.random(RULES, BUSY, seed=seed)
        ]

    first = stream(4)
    assert first == stream(4)
    assert first != stream(5)
    assert {truth.phase for _, truth in first} == {"attempt", "repair", "change_of_mind", "move"}


def traceless(state: Any, moves: list[Any]) -> int:
    """The card moves whose table another legal move leaves too (the card cannot be
    told from the table)."""
    handling = ShendaoHandling(state.rules)
    state = state.copy()
    count = 0
    for move in moves:
        if isinstance(move, Enter) and move.card:
            tables: dict[Any, list[Any]] = {}
            for m in state.legal_moves():
                token = state.apply(m)
                tables.setdefault(tuple(sorted(handling.table(state).items())), []).append(m)
                state.undo(token)
            token = state.apply(move)
            same = tables[tuple(sorted(handling.table(state).items()))]
            state.undo(token)
            count += move not in prefer(same)
        state.apply(move)
    return count


@pytest.mark.parametrize("seed", [11, 12])
def test_a_clean_stream_of_a_whole_game_is_recognised_move_for_move(seed: int) -> None:
    simulator = TableSimulator.random(RULES, TableConfig(), seed=seed)
    score = referee_game(simulator)
    # a card no reader can see is said (typed) by its player, so nobody corrects
    said = sum(isinstance(step.event, TypedMove) for step in simulator)
    assert said <= traceless(simulator.start, simulator.moves)
    assert score.moves == len(simulator.moves) > 20
    # two cards with the same effect: the referee shows the likelier and keeps the
    # other in doubt (nobody corrects it); every other move is exact
    assert (score.exact + score.in_doubt, score.corrected) == (score.moves, 0)
    assert (score.false_flags, score.done_presses) == (0, 0)
    assert score.final_state_right or score.in_doubt


@pytest.mark.parametrize(
    "move",
    [
        "W3",
        "W3 nugua b3",
        "W3 loung e3",
        "W3 pretresse",
        "W3 yinyang",
        "E3 brigand",
        "Sc",
        "W2 tigre",
    ],
)
@pytest.mark.parametrize("seed", range(2))
def test_each_card_made_by_hand_is_recognised(move: str, seed: int) -> None:
    # dark on e3 stops a tile from W3 on d3; gate E3 closed; W2's tile leaves the board
    start = position(light="c6", dark="e3", closed="E3")
    config = TableConfig(hands=0.5, pause=0.3)
    score = referee_game(TableSimulator(RULES, [move], config, seed, start))
    assert (score.exact, score.false_flags) == (1, 0)  # W2 tigre: said, as no effect shows


def test_a_yinyang_swap_is_lifted_and_put_back() -> None:
    start = position(dark="e3")
    simulator = TableSimulator(RULES, ["W3 yinyang"], TableConfig(), 0, start)
    touches = simulator.handling.steps(
        start, RULES.parse_move("W3 yinyang"), np.random.default_rng(0), simulator.config
    )
    assert len(touches) == 4  # the stopping tile lifted, both put down, the stick
    assert touches[0].changes == {"e3": ("dark", "empty")}
    assert touches[-1].changes == {"gate W3": ("open", "closed")}


SCENES: dict[str, ShendaoState] = {
    "turn.wrong-player": position(light="e3", dark="c6"),
    "gate.closed": position(light="e3", closed="W3 Sa Nh", cards=without("brigand")),
    "gate.blocked": position(light="a3 e3", dark="h6"),
    "table.misplaced": position(light="e3", dark="c4 f3", cards=without("nugua")),
    "table.unexplained": position(light="e3", dark="c6"),
}


def test_every_stageable_rule_has_a_scene() -> None:
    assert set(SCENES) == set(STAGEABLE)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rule", sorted(SCENES))
def test_an_illegal_attempt_is_flagged_with_its_rule_then_put_right(rule: str, seed: int) -> None:
    start = SCENES[rule]
    config = TableConfig(illegal=1.0, illegal_rules=(rule,), hands=0.3)
    move = [m for m in start.legal_moves() if isinstance(m, Enter) and m.card is None][seed]
    simulator = TableSimulator(RULES, [move], config, seed, start)
    phases = [s.truth.phase for s in simulator]
    assert phases[0] == ATTEMPT and REPAIR in phases and phases[-1] == MOVE
    score = referee_game(simulator)
    staged = score.rules[rule]
    assert (staged.tried, staged.caught, staged.right_rule) == (1, 1, 1)
    assert staged.restored == staged.repaired == 1
    assert (score.exact, score.false_flags) == (1, 0)


def test_an_attempt_a_card_in_hand_makes_legal_is_not_staged() -> None:
    # With the Brigand in hand a tile through a closed gate is legal; with the Main de
    # Nugua a tile stopped short is.
    handling = ShendaoHandling(RULES)
    rng = np.random.default_rng(0)
    config = TableConfig()
    assert handling.attempt(position(light="e3", closed="W3"), "gate.closed", rng, config) is None
    attempt = handling.attempt(
        position(light="e3", cards=without("loung", "tigre")), "table.misplaced", rng, config
    )
    assert attempt is not None and "taken off" in attempt.description


def test_a_rule_the_table_cannot_show_is_refused() -> None:
    with pytest.raises(SimulatorError, match="cannot stage"):
        TableSimulator(RULES, [], TableConfig(illegal_rules=("pass.can-enter",)))


def test_a_sensor_board_with_unsure_colours_stages_only_the_sticks() -> None:
    handling = ShendaoHandling(RULES)
    sensors = TableConfig(sources=("sensors",), sensor_colours=True)
    assert handling.stageable(sensors) == ("gate.blocked",)
    with pytest.raises(SimulatorError, match="colours"):
        handling.readable("sensors", TableConfig(sources=("sensors",)))
