"""The table simulator: seeded streams, and the referee on them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.referee.core import Referee
from companion.referee.events import Answer, Question, TurnDone, input_to_json
from companion.simulator import (
    SimulatorError,
    TableConfig,
    TableSimulator,
    Touch,
    random_game,
    referee_game,
)
from companion.simulator.core import CHANGE_OF_MIND, MOVE, Truth
from engines.shangrila import ShangrilaRules
from engines.shangrila.moves import Journey, Recruit

FOUR = ShangrilaRules()
THREE = ShangrilaRules(["red", "blue", "yellow"])
BUSY = TableConfig(flicker=0.02, unsure=0.02, hands=0.3, pause=0.2, change_of_mind=0.2, illegal=0.2)


def stream(simulator: TableSimulator) -> list[tuple[dict[str, Any], Truth]]:
    return [(input_to_json(step.event), step.truth) for step in simulator]


def test_the_stream_replays_from_its_seed() -> None:
    moves = random_game(FOUR, 5)[:40]
    first = stream(TableSimulator(FOUR, moves, BUSY, seed=5))
    assert first == stream(TableSimulator(FOUR, moves, BUSY, seed=5))
    assert first != stream(TableSimulator(FOUR, moves, BUSY, seed=6))
    phases = {truth.phase for _, truth in first}
    assert phases == {"attempt", "repair", "change_of_mind", "move"}


def test_a_random_game_is_the_engines_random_game() -> None:
    simulator = TableSimulator.random(THREE, seed=3)
    assert simulator.moves == random_game(THREE, 3)
    played = [t.move for t in (s.truth for s in simulator) if t.last and t.phase == MOVE]
    assert played == [THREE.format_move(m) for m in simulator.moves]


@pytest.mark.parametrize(
    ("rules", "sources"), [(FOUR, ("camera",)), (THREE, ("camera", "sensors"))]
)
def test_a_clean_stream_of_a_whole_game_is_recognised_move_for_move(
    rules: ShangrilaRules, sources: tuple[str, ...]
) -> None:
    simulator = TableSimulator.random(rules, TableConfig(sources=sources), seed=11)
    score = referee_game(simulator)
    assert score.moves == len(simulator.moves) > 100
    # a recruit seen from above that fits a few ways is shown as the likeliest and
    # the others kept in doubt: nobody corrects it, later tables or a question settle it
    assert (
        score.exact + score.in_doubt,
        score.corrected,
        score.false_flags,
        score.done_presses,
    ) == (score.moves, 0, 0, 0)
    assert score.record_right >= 0.95 * score.moves
    recruits = sum(type(m) is Recruit for m in simulator.moves)
    if sources == ("camera",):  # a recruit fitting many ways is asked about
        assert 0 < score.questions <= recruits + 2
    else:
        assert score.questions == 0
    if "sensors" in sources:  # one student at a time: a first student is revised
        assert score.revised == sum(
            type(m) is Recruit and len(m.targets) == 2 for m in simulator.moves
        )


@pytest.mark.parametrize("seed", [1, 2])
def test_with_unsure_flicker_and_hands_the_game_ends_in_the_true_position(seed: int) -> None:
    # Wrong readings the reader marks unsure, right ones marked unsure, hands, pauses:
    # the engine absorbs them, so nobody has to correct the referee.
    # Five frames per touch (a camera gives dozens): with the referee believing a
    # reading after three equal frames, a flickered frame must leave room to recover.
    config = TableConfig(
        flicker=0.03, flicker_sure=0.0, unsure=0.03, hands=0.4, pause=0.2, frames_per_step=5
    )
    score = referee_game(TableSimulator.random(THREE, config, seed))
    assert (score.corrected, score.false_flags) == (0, 0)
    assert score.final_state_right


def test_with_sure_flicker_most_moves_are_still_recognised() -> None:
    config = TableConfig(flicker=0.01, unsure=0.01, hands=0.3, pause=0.1)
    score = referee_game(TableSimulator.random(FOUR, config, 4))
    assert score.exact >= 0.95 * score.moves
    assert score.final_state_right


@pytest.mark.parametrize("sources", [("camera",), ("camera", "sensors")])
def test_a_change_of_mind_never_raises_an_illegal_flag(sources: tuple[str, ...]) -> None:
    moves = random_game(FOUR, 8)[:70]
    simulator = TableSimulator(
        FOUR, moves, TableConfig(sources=sources, change_of_mind=1.0), seed=8
    )
    started = [s for s in simulator if s.truth.phase == CHANGE_OF_MIND]
    assert started
    score = referee_game(simulator)
    assert score.changes_of_mind > 40
    assert (score.false_flags, score.exact) == (0, len(moves))


def test_an_invisible_recruit_is_asked_about_with_the_truth_among_the_choices() -> None:
    simulator = TableSimulator.random(FOUR, TableConfig(hands=0.3), seed=2)
    referee = Referee(FOUR)
    asked = []
    played = [FOUR.format_move(m) for m in simulator.moves]
    for step in simulator:
        outputs = referee.handle(step.event)
        while outputs:
            output = outputs.pop(0)
            if isinstance(output, Question):
                # about the move just made, or an earlier one left in doubt (the answer
                # may bring the question on the move just made)
                true = played[output.about - 1] if output.about else step.truth.move
                asked.append(true)
                assert true in output.candidates
                assert isinstance(step.event, TurnDone)
                outputs += referee.handle(Answer(true))
    recruits = [FOUR.format_move(m) for m in simulator.moves if type(m) is Recruit]
    assert len(recruits) > 20
    # A recruit with a single possible target is accepted on "done" without a question,
    # one with a few is kept in doubt: the others are asked about.
    assert set(asked) <= set(recruits) and asked
    record = [text for _, text in referee.history]
    assert len(record) == len(played)
    wrong = [i for i, (a, b) in enumerate(zip(record, played, strict=True)) if a != b]
    assert len(wrong) <= 0.1 * len(recruits)  # doubts no later table settled
    assert all(any(h.moves[i] == played[i] for h in referee.belief.histories) for i in wrong)


def test_a_journey_is_made_one_piece_at_a_time() -> None:
    moves = random_game(FOUR, 21)
    state = FOUR.initial_state()
    number = 0
    while not (
        type(move := moves[number]) is Journey  # a journey of several students
        and sum(state.student[move.origin * 7 + d] for d in range(7)) >= 2
    ):
        state.apply(move)
        number += 1
    number += 1
    simulator = TableSimulator(FOUR, moves[:number], seed=21)
    touches = simulator.handling.steps(state, move, np.random.default_rng(0), TableConfig())
    assert len(touches) >= 3 and sum(len(t.changes) for t in touches) >= 4
    referee = Referee(FOUR)
    during = []
    for step in simulator:
        outputs = referee.handle(step.event)
        if any(isinstance(o, Question) for o in outputs):
            referee.handle(Answer(step.truth.move))
        if step.truth.number == number:
            during += [o.name for o in outputs]
    assert "move_in_progress" in during and "illegal_move" not in during
    assert referee.history[-1][1] == FOUR.format_move(move)


def test_the_table_and_its_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="flicker"):
        TableConfig(flicker=1.5)
    with pytest.raises(ValueError, match="sources"):
        TableConfig(sources=("radar",))
    with pytest.raises(SimulatorError, match="cannot stage"):
        TableSimulator(FOUR, [], TableConfig(illegal_rules=("place.no-supply",)))
    with pytest.raises(SimulatorError, match="shows"):
        Touch({"bridge 4-7": (False, True)}).apply({"bridge 4-7": True})
