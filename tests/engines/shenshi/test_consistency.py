"""The move generator and the validator agree.

``legal_moves`` (``movegen``) and ``validate`` (``validate``, rule by rule) are written
separately; in positions met in random games under each set of options, every listed
turn must pass the validator, and turns changed a little must pass it exactly when they
are listed.
"""

from __future__ import annotations

from typing import Any

import pytest

from engines import Dice, IllegalMoveError
from engines.shenshi import (
    Enter,
    Hover,
    Move,
    ShenshiRules,
    ShenshiState,
    Swap,
    Turn,
    Walk,
    movegen,
)

CONFIGS: list[tuple[list[str], dict[str, Any]]] = [
    (["silver", "copper"], {}),
    (["silver", "copper"], {"variant": "expert", "seed": 1, "orange_lifts": 0}),
    (["gold", "silver", "copper"], {"seed": 2, "walk": "straight"}),
    (["silver", "copper", "gold", "black"], {"seed": 3, "black_start": "board"}),
    (
        ["copper", "silver"],
        {"monks_per_turn": "any", "neutral_return": "turn", "seed": 4, "orange_lifts": 0},
    ),
]
PLIES = 18
SMALL = 12_000  # positions with more turns are played through, not checked


def accepted(state: ShenshiState, move: Move) -> bool:
    try:
        state.validate(move)
    except IllegalMoveError as error:
        assert error.rule and error.message.endswith((".", ")")), error
        return False
    return True


def variations(turn: Turn, other: Turn, dice: Dice) -> list[Move]:
    """Small changes of ``turn``: shorter, longer, reordered, one square moved."""
    actions = turn.actions
    out: list[Move] = [
        Turn(actions[:-1]),
        Turn((*actions, other.actions[-1])),
        Turn(actions[::-1]),
        Turn((*actions[:-1], *other.actions[:1])),
    ]
    for i, action in enumerate(actions):
        shift = 1 + dice.below(8)
        if type(action) is Walk:
            path = (*action.path[:-1], (action.path[-1] + shift) % 49)
            changed: Any = Walk(action.monk, path)
        elif type(action) is Hover:
            changed = Hover(action.monk, action.start, (action.end + shift) % 49, action.lifts)
            if action.lifts:
                out.append(
                    Turn(
                        (
                            *actions[:i],
                            Hover(action.monk, action.start, action.end, ()),
                            *actions[i + 1 :],
                        )
                    )
                )
        elif type(action) is Enter:
            changed = Enter(1 - action.monk, (action.square + shift) % 49, action.cushion)
        else:
            assert type(action) is Swap
            changed = Swap(action.monk ^ 1, action.other, action.start)
        out.append(Turn((*actions[:i], changed, *actions[i + 1 :])))
    return out


@pytest.mark.parametrize(("players", "options"), CONFIGS)
def test_generator_and_validator_agree(players: list[str], options: dict[str, Any]) -> None:
    rules = ShenshiRules.from_record(players, options)
    state = rules.initial_state()
    dice = Dice(len(players) * 100 + len(options))
    checked = 0
    for _ in range(PLIES):
        if state.is_over():
            break
        if movegen.count_turns(state, limit=SMALL) <= SMALL:
            legal = state.legal_moves()
            listed = set(legal)
            for move in legal[:: max(1, len(legal) // 150)]:
                assert accepted(state, move), rules.format_move(move)
                if type(move) is Turn:
                    other = dice.choice(legal)
                    for changed in variations(move, other if type(other) is Turn else move, dice):
                        assert accepted(state, changed) == (changed in listed), (
                            rules.format_move(move),
                            changed,
                        )
            checked += 1
        state.apply(state.random_move(dice))
    assert checked >= 2


def test_random_move_draws_a_legal_move_and_replays_from_its_seed() -> None:
    from tests.engines.shenshi.positions import position

    two = ShenshiRules(["silver", "copper"])
    expert = ShenshiRules(["silver", "copper"], variant="expert")
    stuck = position(
        two,
        faded="b6 d6 f6 b4",
        blond="a1 g1",
        monks={"silver": ("b6", "b4"), "copper": ("f6", "a1"), "neutral": ("d6", "g1")},
    )
    giving = position(
        expert,
        blond="d4 g7 a1 a7 c3 e5",
        monks={"silver": ("d4", "g7"), "neutral": ("a1", "a7")},
        reserves={"copper": (0, 0)},
        to_move=0,
        phase="give",
    )
    middle = position(
        two,
        blond="d4 g7 a1 a7 d5 c2",
        orange="e2",
        monks={"silver": ("d4", "e2"), "copper": ("c2", None), "neutral": ("a1", "a7")},
    )
    for state in (stuck, giving, middle):
        listed = state.copy()
        legal = listed.legal_moves()
        for seed in range(4):
            fresh = state.rules.state_from_json(state.to_json())  # no list of moves yet
            drawn = fresh.random_move(Dice(seed))
            assert drawn in legal
            assert state.rules.state_from_json(state.to_json()).random_move(Dice(seed)) == drawn
            assert listed.random_move(Dice(seed)) == Dice(seed).choice(legal)  # from the list
    # The draw that counts every turn is the list's draw.
    legal = middle.copy().legal_moves()
    for seed in range(4):
        assert movegen.counted_move(middle.copy(), Dice(seed)) == Dice(seed).choice(legal)
