"""The table simulator on ShenShi: turns made by hand action after action, whole games
refereed end to end, and every illegal attempt the table can show, caught."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from companion.referee.core import Referee
from companion.referee.events import TurnDone, input_to_json
from companion.simulator import SimulatorError, TableConfig, TableSimulator, referee_game
from companion.simulator import shenshi as simulated_shenshi
from companion.simulator.core import ATTEMPT, MOVE, REPAIR, random_game
from companion.simulator.scoring import RefereedGame
from companion.simulator.shenshi import STAGEABLE, ShenshiHandling
from engines import Dice
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.schema import SQUARES
from tests.engines.shenshi.positions import position

TWO = ShenshiRules(["silver", "copper"])
FOUR = ShenshiRules(["silver", "copper", "gold", "black"])
BUSY = TableConfig(flicker=0.01, unsure=0.01, hands=0.3, pause=0.2, change_of_mind=0.3, illegal=0.3)


def hall() -> ShenshiState:
    """Silver to move: G on c3, M on e3 (blond); copper's G on c6, M on d4 (blond);
    neutral G on a1 (blond), M on g7 (orange); a free blond cushion on d7."""
    return position(
        TWO,
        blond="c3 e3 a1 d5 c6 d3 d4 d7",
        orange="g7 b2",
        faded="d2 f4",
        intact="b4 f2",
        monks={"silver": ("c3", "e3"), "copper": ("c6", "d4"), "neutral": ("a1", "g7")},
    )


def test_the_stream_replays_from_its_seed() -> None:
    def stream(seed: int) -> list[Any]:
        rules = ShenshiRules(["silver", "copper"], seed=seed)
        moves = random_game(rules, seed)[:12]
        return [(input_to_json(s.event), s.truth) for s in TableSimulator(rules, moves, BUSY, seed)]

    first = stream(4)
    assert first == stream(4)
    assert first != stream(5)
    assert {truth.phase for _, truth in first} >= {"attempt", "repair", "move"}


def test_a_random_game_is_drawn_like_a_playout() -> None:
    # A uniform draw over up to a million turns takes seconds a turn; the playout's
    # draw is the engine's own and replays from the seed.
    rules = ShenshiRules(["silver", "copper"], seed=3)
    moves = random_game(rules, 3)
    state = rules.initial_state()
    dice = Dice(3)
    for move in moves:
        assert move == state.playout_move(dice)
        state.play(move)
    assert state.is_over()


@pytest.mark.parametrize(("players", "seed", "turns"), [(2, 1, 20), (3, 2, 14), (4, 0, 14)])
def test_a_clean_stream_is_recognised_turn_for_turn(players: int, seed: int, turns: int) -> None:
    rules = ShenshiRules(ShenshiRules.default_players(players), seed=seed)
    simulator = TableSimulator(rules, random_game(rules, seed)[:turns], TableConfig(), seed)
    score = referee_game(simulator)
    assert (score.moves, score.exact, score.corrected) == (turns, turns, 0)
    assert score.false_flags == 0
    assert score.final_state_right


@pytest.mark.parametrize(
    "text",
    [
        "Gc3-d3-d4 Me3~e5",  # a walk removing copper's master, tokens taken
        "NMg7~a7(d7>e5) Gc3~c5",  # an orange hover lifting a blond cushion
        "Gc3~c5 Me3~e5 Me5=c5",  # a swap after two hovers
        "Gc3-d3 NMg7~g4 NMg4-f4",  # the neutral master hovers, then walks
    ],
)
@pytest.mark.parametrize("seed", range(3))
def test_each_kind_of_action_made_by_hand_is_recognised(text: str, seed: int) -> None:
    start = hall()
    config = TableConfig(hands=0.5, pause=0.3)
    score = referee_game(TableSimulator(TWO, [text], config, seed, start))
    assert (score.exact, score.false_flags) == (1, 0)


def test_an_entry_with_a_cushion_from_the_board_is_recognised() -> None:
    start = position(
        TWO,
        blond="c3 a1 e5",
        orange="g7",
        monks={"silver": ("c3", None), "neutral": ("a1", "g7")},
        reserves={"silver": (0, 0)},
    )
    score = referee_game(TableSimulator(TWO, ["M@e3:e5 Gc3~c6"], TableConfig(), 0, start))
    assert (score.exact, score.false_flags) == (1, 0)


def test_a_walk_is_made_piece_by_piece() -> None:
    start = hall()
    handling = ShenshiHandling(TWO)
    move = TWO.parse_move("Gc3-d3-d4 Me3~e5")
    touches = handling.steps(start, move, np.random.default_rng(1), TableConfig())
    changes = [t.changes for t in touches]
    assert changes[0] == {"c3 monk": ("silver-grand", "none")}  # lifted
    assert changes[1] == {"d4 monk": ("copper-master", "none")}  # removed
    assert changes[2] == {"d4 monk": ("none", "silver-grand")}  # put down
    assert changes[3] == {"tokens silver": (1, 3)}  # tokens taken


SCENES: dict[str, ShenshiState] = {
    "turn.wrong-player": hall(),
    "walk.length": position(
        TWO,
        blond="c3 c4 c5 c6 c7 a1",
        orange="g7",
        monks={"silver": ("c3", "c4"), "neutral": ("a1", "g7")},
    ),
    "walk.step": hall(),
    "walk.not-walkable": hall(),
    "walk.blocked": position(
        TWO,
        blond="c3 c4 c5 a1",
        orange="g7",
        monks={"silver": ("c3", "c4"), "neutral": ("a1", "g7")},
    ),
    "hover.not-straight": hall(),
    "hover.blocked": hall(),
    "swap.not-in-line": position(
        TWO, blond="c3 e5 a1", orange="g7", monks={"silver": ("c3", "e5"), "neutral": ("a1", "g7")}
    ),
    "enter.square-taken": position(
        TWO,
        blond="c3 a1",
        orange="g7",
        intact="b4",
        monks={"silver": ("c3", None), "neutral": ("a1", "g7")},
    ),
    "enter.no-reserve-cushion": position(
        TWO,
        blond="c3 a1",
        orange="g7",
        monks={"silver": ("c3", None), "neutral": ("a1", "g7")},
        reserves={"silver": (2, 0)},
    ),
    "turn.enter-first": position(
        TWO, blond="c3 a1", orange="g7", monks={"silver": ("c3", None), "neutral": ("a1", "g7")}
    ),
    "neutral.no-return": position(
        TWO,
        blond="c3 e3 a1",
        orange="g7",
        neutral_from={"M": "g6"},
        monks={"silver": ("c3", "e3"), "neutral": ("a1", "g7")},
    ),
    "turn.needs-master": hall(),
    "turn.needs-grand-master": hall(),
    "turn.needs-both-monks": position(FOUR, blond="c3 e3 a1", monks={"silver": ("c3", "e3")}),
    "turn.swap-alone": hall(),
    "pass.has-turn": position(  # silver's monks not in line: no swap to undo
        TWO,
        blond="c3 e4 a1 d5 c6 d3 d4 d7",
        orange="g7 b2",
        monks={"silver": ("c3", "e4"), "copper": ("c6", "d4"), "neutral": ("a1", "g7")},
    ),
    "table.unexplained": hall(),
}


def test_every_stageable_rule_has_a_scene() -> None:
    assert set(SCENES) == set(STAGEABLE)


@pytest.mark.parametrize("rule", sorted(SCENES))
def test_an_illegal_attempt_is_flagged_with_its_rule_then_put_right(rule: str) -> None:
    start = SCENES[rule]
    config = TableConfig(illegal=1.0, illegal_rules=(rule,), hands=0.3)
    move = start.playout_move(Dice(1))
    simulator = TableSimulator(start.rules, [move], config, 0, start)
    phases = [s.truth.phase for s in simulator]
    assert phases[0] == ATTEMPT and phases[-1] == MOVE
    score = referee_game(simulator)
    staged = score.rules[rule]
    assert (staged.tried, staged.caught, staged.right_rule) == (1, 1, 1)
    if rule != "pass.has-turn":  # nothing to put back
        assert REPAIR in phases
        assert staged.restored == staged.repaired == 1
    assert (score.exact, score.false_flags) == (1, 0)


def test_done_on_a_table_a_swap_undone_explains_is_not_staged() -> None:
    # silver's monks on c3 and e3 may swap and swap back, which leaves no trace: done
    # with nothing moved, or with one monk's action, is a legal turn
    handling = ShenshiHandling(TWO)
    rng = np.random.default_rng(0)
    assert handling.attempt(hall(), "pass.has-turn", rng, TableConfig()) is None
    assert handling.attempt(SCENES["pass.has-turn"], "pass.has-turn", rng, TableConfig())


def test_an_attempt_a_legal_turn_explains_is_not_staged() -> None:
    # The master two squares from the Grand Master on a line of cushions: a swap is
    # legal, so the two exchanged is no illegal swap.
    start = position(
        TWO,
        blond="c3 c4 c5 a1",
        orange="g7",
        monks={"silver": ("c3", "c5"), "neutral": ("a1", "g7")},
    )
    handling = ShenshiHandling(TWO)
    assert (
        handling.attempt(start, "swap.not-in-line", np.random.default_rng(0), TableConfig()) is None
    )


def test_a_diagonal_a_walk_round_the_corner_reaches_is_no_diagonal_step() -> None:
    # Silver's Grand Master on c3, with cushions on c4 and d4: the slide to d4 shows
    # the walk c3-c4-d4 (the table cannot show the way), so it is not staged as a
    # diagonal step; with c4 and d3 bare, no walk reaches d4 and it is. (The master,
    # on f6, has no square to slide to diagonally.)
    def start(blond: str) -> ShenshiState:
        return position(
            TWO,
            blond=f"c3 d4 f6 {blond} a1",
            orange="g7",
            monks={"silver": ("c3", "f6"), "neutral": ("a1", "g7")},
        )

    handling = ShenshiHandling(TWO)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        assert handling.attempt(start("c4"), "walk.step", rng, TableConfig()) is None
    attempt = handling.attempt(start(""), "walk.step", np.random.default_rng(0), TableConfig())
    assert attempt is not None and attempt.rule == "walk.step"


def test_a_sensor_board_must_read_colours() -> None:
    handling = ShenshiHandling(TWO)
    with pytest.raises(SimulatorError, match="colours"):
        handling.readable("sensors", TableConfig(sources=("sensors",)))
    unsure = TableConfig(sources=("sensors",), sensor_colours=True)
    assert handling.stageable(unsure) == ("pass.has-turn",)


@pytest.mark.slow
def test_the_bench_referees_shenshi_games() -> None:
    # Two games (2 and 3 players), each with its own tiles: the figures of the issue.
    from dataclasses import replace

    from companion.simulator.evaluate import BENCH_TABLE, run

    figures = run("shenshi", 2, 0.01, 7, replace(BENCH_TABLE, illegal=0.2))
    assert figures["games"] == 2 and figures["moves"] > 40
    assert figures["illegal_attempts"] > 0
    assert figures["illegal_caught_pct"] == 100.0
    assert figures["verdict_ms"]["verdicts"] == len(figures["verdict_ms_all"]) > 0


class _Silent(Referee):
    """A referee that never answers (so never flags an illegal move)."""

    def handle(self, event: Any) -> list[Any]:
        return []


class _Recording(RefereedGame):
    """A refereed game that keeps every input it gives the referee."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.inputs: list[Any] = []

    def handle(self, event: Any, truth: Any, *, timed: bool = True) -> list[Any]:
        self.inputs.append(event)
        return super().handle(event, truth, timed=timed)


def test_a_player_who_said_done_does_not_say_it_again_at_once() -> None:
    # An illegal attempt ending with the player's done, which the referee answers
    # without a flag: the player does not press done a second time in the same
    # breath (that second done used to be judged as the next player passing).
    rules = TWO
    sim = TableSimulator.random(rules, BUSY, seed=0)
    game = _Recording(sim, _Silent(rules), time.perf_counter)
    attempts = 0
    for step in sim:
        game.inputs.clear()
        game.step(step.event, step.truth)
        if step.truth.phase == ATTEMPT and isinstance(step.event, TurnDone):
            attempts += 1
            assert sum(isinstance(e, TurnDone) for e in game.inputs) == 1
    assert attempts, "no attempt ending with a done in this game"


def test_an_attempt_every_way_of_which_a_legal_turn_shows_is_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Copper's master on an orange cushion hovers with two blond lifts in ten thousand
    # ways, each shown as well by a legal turn (the two monks swapped and swapped back,
    # then that hover): the Grand Master's missing action cannot be staged there, and
    # the stager gives up after a bounded number of looks instead of minutes.
    state = TWO.state_from_json(
        {
            "phase": "turn",
            "to_move": 1,
            "tiles": {"d6": "intact", "f6": "faded", "f4": "intact", "b2": "faded", "d2": "intact"},
            "cushions": {
                **dict.fromkeys(("g7", "c5", "c3"), "orange"),
                **dict.fromkeys(("c6", "g6", "e5", "c4", "e4", "e3", "g3", "g2", "a1"), "blond"),
            },
            "monks": {
                "silver": {"G": "a1", "M": "g7"},
                "copper": {"G": "c5", "M": "c3"},
                "neutral": {"G": "b2", "M": "g6"},
            },
            "reserves": {
                "silver": {"blond": 0, "orange": 0},
                "copper": {"blond": 0, "orange": 0},
            },
            "tokens": {"silver": 3, "copper": 2},
            "quiet": 8,
            "passes": 0,
        }
    )
    handling = ShenshiHandling(TWO)
    looked: list[bool] = []
    explained = ShenshiHandling._explained_on_the_way

    def counted(self: ShenshiHandling, *args: Any, **kwargs: Any) -> bool:
        looked.append(explained(self, *args, **kwargs))
        return looked[-1]

    monkeypatch.setattr(ShenshiHandling, "_explained_on_the_way", counted)
    monkeypatch.setattr(simulated_shenshi, "TRIES", 4)  # each look takes a tenth of a second
    rng = np.random.default_rng(1)
    found = handling.attempt(state, "turn.needs-grand-master", rng, BUSY)
    assert found is None
    assert looked == [True] * 4


def game_at(
    players: int, seed: int, played: int
) -> tuple[ShenshiRules, list[Any], ShenshiState, ShenshiHandling]:
    """Simulated game ``seed`` (its rules drawn from it) after its first ``played``
    moves, with a handling told each of them as it was played."""
    rules = ShenshiRules.from_record(ShenshiRules.default_players(players), {"seed": seed})
    moves = random_game(rules, seed)
    state = rules.initial_state()
    handling = ShenshiHandling(rules)
    for move in moves[:played]:
        handling.played(state, move)
        state.apply(move)
    return rules, moves, state, handling


def test_an_attempt_a_legal_turn_explains_after_the_turn_before_read_shorter_is_not_staged() -> (
    None
):
    # Silver's turn ends with the neutral Grand Master swapping with the neutral master
    # (NGa3=b3); read without that swap it is a legal turn too, after which copper's
    # NMb3-b2 NGa3-b3 leaves the table the neutral master slid from a3 to b2 (a
    # diagonal step) shows: the referee rightly accepts that, so it is no attempt.
    rules, moves, state, handling = game_at(3, 1420, 64)
    assert rules.format_move(moves[63]) == "Mc7-d7 NGa5~a3(a3>e7) NGa3=b3"
    slide = ShenshiHandling._slide(handling.table(state), SQUARES.index("a3"), SQUARES.index("b2"))
    assert handling._explained_on_the_way(state, [slide])
    assert not ShenshiHandling(rules)._explained_on_the_way(state, [slide])


def test_an_attempt_that_leaves_the_table_as_it_was_is_not_staged() -> None:
    # Gold's master waits to enter; moving the Grand Master first breaks
    # turn.enter-first, but a walk d4-c4-d4 (there and back) leaves the table as it
    # was: what the table shows is a pass, so that walk is never the attempt.
    rules, moves, state, handling = game_at(4, 2244, 34)
    assert rules.format_move(moves[34]) == "M@f3:b5 Mf3~e3 Gd4-c4"
    before = handling.table(state)
    for seed in range(40):
        attempt = handling.attempt(
            state, "turn.enter-first", np.random.default_rng(seed), TableConfig()
        )
        assert attempt is not None
        after = dict(before)
        for touch in attempt.touches:
            touch.apply(after)
        assert after != before, seed


def test_an_attempt_the_player_before_could_have_made_in_place_of_their_turn_is_not_staged() -> (
    None
):
    # Silver walked Me2-e3-f3 (after NGd7~b7); copper then slides silver's master back
    # to e3 (another player's monk: turn.wrong-player). The table is the one silver's
    # Me2-e3 would have left, which the referee rightly reads instead: no attempt there.
    rules, moves, state, handling = game_at(2, 2206, 17)
    assert rules.format_move(moves[16]) == "NGd7~b7 Me2-e3-f3"
    slide = ShenshiHandling._slide(handling.table(state), SQUARES.index("f3"), SQUARES.index("e3"))
    assert handling._explained_on_the_way(state, [slide])
    assert not ShenshiHandling(rules)._explained_on_the_way(state, [slide])
