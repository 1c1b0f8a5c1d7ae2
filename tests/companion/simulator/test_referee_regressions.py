"""Referee fixes found by the table simulator, each on a scripted stream."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import Seen, TurnDone
from engines.observation import Observation
from engines.shangrila.observation import from_camera_above
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.observation import expected as shenshi_expected
from engines.shenshi.observation import extends as shenshi_extends
from tests.companion.referee.streams import names, only, show
from tests.engines.shangrila.helpers import position
from tests.engines.shenshi.positions import position as shenshi_position

TWO = ShenshiRules(["silver", "copper"])
FOUR = ShenshiRules(["silver", "copper", "gold", "black"])


def referee_for(spaces: dict[int, dict[str, str]], **kwargs: object) -> Referee:
    state = position(spaces, **kwargs)  # type: ignore[arg-type]
    return Referee(state.rules, state)


def table(referee: Referee, **changes: object) -> Observation:
    """The expected table with ``changes`` (``_4H="red"``, ``_4H_h=2``,
    ``bridge_4_7=False``, as in the referee's own tests)."""
    readings = {}
    for key, value in changes.items():
        name = key.lstrip("_")
        if name.startswith("bridge_"):
            a, b = name[7:].split("_")
            name = f"bridge {a}-{b}"
        elif name.endswith("_h"):
            name = name[:-2] + "^"
        readings[name] = value
    return referee.expected_table().replace(readings)


def sensors(table: Observation) -> Observation:
    """What a sensor board reads: the stacks only."""
    return Observation(table.schema, {e: table[e] for e in table if e.endswith("^")})


def test_one_camera_frame_counts_once_beside_a_sensor_board() -> None:
    # Each input was merged and debounced as a whole, so one wrong camera frame followed
    # by a sensor frame counted twice and reached a verdict.
    referee = referee_for({4: {"A": "red"}})
    calm = referee.expected_table()
    show(referee, from_camera_above(calm))
    show(referee, sensors(calm), source="sensors")
    out = referee.handle(Seen(from_camera_above(table(referee, _7Y="blue")), "camera"))
    out += referee.handle(Seen(sensors(calm), "sensors"))
    out += show(referee, from_camera_above(calm))
    assert out == []


def test_a_two_student_recruit_made_one_student_at_a_time() -> None:
    # The first student alone is a legal recruit; the second then looked like the next
    # player's illegal recruit.
    referee = referee_for({4: {"A": "red", "H": "red"}, 7: {"F": "red"}})
    out = show(referee, sensors(table(referee, _4A_h=2)), source="sensors")
    assert only(out, "move_accepted").move == "+A4"
    out = show(referee, sensors(table(referee, _7F_h=2)), source="sensors")
    assert names(out) == ["move_taken_back", "move_accepted"]
    assert only(out, "move_accepted").move == "+A4+F7"
    assert [text for _, text in referee.history] == ["+A4+F7"]


def test_a_journey_whose_first_student_lands_like_a_placement() -> None:
    # The bridge goes last: red's Healer student lands where red could place a Healer.
    referee = referee_for({4: {"H": "red+", "R": "blue+"}, 7: {"A": "red"}})
    steps = [dict(_4H_h=1), dict(_7H="red", _7H_h=1)]
    changes: dict[str, object] = {}
    outputs = []
    for step in steps:
        changes.update(step)
        outputs += show(referee, from_camera_above(table(referee, **changes)))
    assert only(outputs, "move_accepted").move == "H@7"
    changes.update(_4R_h=1, _7R="blue", _7R_h=1)
    out = show(referee, from_camera_above(table(referee, **changes)))
    assert "illegal_move" not in names(out)
    changes["bridge_4_7"] = False
    out += show(referee, from_camera_above(table(referee, **changes)))
    assert names(out)[-1] == "move_accepted" and "move_taken_back" in names(out)
    assert [text for _, text in referee.history] == ["4>7"]


def test_the_next_players_move_does_not_revise_a_placement() -> None:
    referee = referee_for({4: {"H": "red+", "A": "blue"}, 7: {"A": "red"}})
    show(referee, from_camera_above(table(referee, _7H="red")))
    out = show(referee, from_camera_above(table(referee, _7H="red", _4P="blue")))
    assert names(out) == ["move_accepted"]
    assert [text for _, text in referee.history] == ["H@7", "P@4"]


def test_a_half_made_move_is_judged_once_the_player_is_done() -> None:
    # A red tile where red has no master, but where red's journey 4>7 would put one:
    # in progress while the player moves, illegal once they say they are done.
    referee = referee_for({4: {"Y": "red+"}, 0: {"A": "red"}})
    out = show(referee, from_camera_above(table(referee, _7Y="red")))
    assert names(out) == ["move_in_progress"]
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule == "place.no-master-in-village"


def test_done_with_nothing_moved_is_a_pass_that_is_not_allowed() -> None:
    referee = referee_for({4: {"A": "red"}})
    show(referee, referee.expected_table(), source="sensors")
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule == "pass.has-action"


def test_a_move_is_not_accepted_while_a_hand_hides_what_it_changes() -> None:
    # A hand over village 7 (the destination): the journey fits every reading left, but
    # accepting it then turned the students still to come into a false alarm.
    referee = referee_for({4: {"R": "red+", "H": "blue+"}, 7: {"A": "yellow"}})
    show(referee, from_camera_above(table(referee)))
    hand = {f"7{d}": None for d in "RPYADHF"}
    out = show(referee, from_camera_above(table(referee, bridge_4_7=False, **hand)))
    assert names(out) == ["move_in_progress"]
    out = show(referee, from_camera_above(table(referee, bridge_4_7=False, _7R="red")))
    assert "move_accepted" not in names(out) and "illegal_move" not in names(out)
    out = show(referee, from_camera_above(table(referee, bridge_4_7=False, _7R="red", _7H="blue")))
    assert only(out, "move_accepted").move == "4>7"


# ---------------------------------------------------------------------- ShenShi, made by hand


def shenshi_referee(state: ShenshiState) -> Referee:
    return Referee(state.rules, state)


def shenshi_after(state: ShenshiState, text: str, **changes: str) -> Observation:
    """The table once ``text`` is played (unchecked: half a turn too), with ``changes``
    (``c3_monk="none"``)."""
    other = state.copy()
    other.apply(state.rules.parse_move(text))
    return shenshi_expected(other).replace(
        {key.replace("_", " "): value for key, value in changes.items()}
    )


def test_an_entry_alone_is_a_turn_in_progress() -> None:
    # The few turns offered as "in progress" all moved the entered monk on, away from
    # where the table showed it: the entry was flagged as half a turn.
    state = shenshi_position(
        TWO, blond="c3 a1", orange="g7", monks={"silver": ("c3", None), "neutral": ("a1", "g7")}
    )
    referee = shenshi_referee(state)
    out = show(referee, shenshi_after(state, "M@e5:b", e5_monk="none"))
    out += show(referee, shenshi_after(state, "M@e5:b"))
    assert set(names(out)) == {"move_in_progress"}
    assert all(m.startswith("M@e5:b ") for m in only(out[-1:], "move_in_progress").candidates)


def test_a_third_action_of_the_monk_that_acted_first_revises_the_turn() -> None:
    # The neutral Grand Master hovers, the neutral master hovers, then the Grand Master
    # walks on: the turn is written NM first (a monk's actions come together), so the
    # accepted turn, written NG first, was not seen as its beginning.
    state = shenshi_position(
        TWO,
        blond="c3 e3 a1 c1",
        orange="g7",
        monks={"silver": ("c3", "e3"), "neutral": ("a1", "g7")},
    )
    referee = shenshi_referee(state)
    out = show(referee, shenshi_after(state, "NGa1~b1 NMg7~g4"))
    assert only(out, "move_accepted").move in ("NGa1~b1 NMg7~g4", "NMg7~g4 NGa1~b1")
    out = show(referee, shenshi_after(state, "NMg7~g4 NGa1~b1 NGb1-c1"))
    assert names(out) == ["move_taken_back", "move_accepted"]
    assert [text for _, text in referee.history] == ["NMg7~g4 NGa1~b1 NGb1-c1"]


def test_a_monk_entered_then_lifted_with_its_cushion_goes_on() -> None:
    # In a four-player game an entry alone is a whole turn, accepted at once; lifting
    # the monk with its cushion to hover on leaves the table as before the entry,
    # which no turn of the next player explains: it was flagged. Now it is in
    # progress, and the turn is revised once the monk lands.
    state = shenshi_position(FOUR, blond="c3 a1")
    referee = shenshi_referee(state)
    out = show(referee, shenshi_after(state, "G@e5:b"))
    assert only(out, "move_accepted").move == "G@e5:b"
    out = show(referee, shenshi_expected(state))
    assert names(out) == ["move_in_progress"]
    out = show(referee, shenshi_after(state, "G@e5:b Ge5~e7"))
    only(out, "move_accepted")  # written G@e7:b: the same position
    truth = state.copy()
    truth.play(state.rules.parse_move("G@e5:b Ge5~e7"))
    assert referee.state.to_json() == truth.to_json()


def test_a_walk_that_removes_a_monk_and_comes_back_is_in_progress() -> None:
    # The walker is in the hand and its victim taken off: the walk ends where it began,
    # so its square showed nothing the turn changes, and the table was flagged.
    state = shenshi_position(
        TWO,
        blond="c3 c4 e3 a1",
        orange="g7",
        monks={"silver": ("c3", "e3"), "copper": (None, "c4"), "neutral": ("a1", "g7")},
    )
    referee = shenshi_referee(state)
    out = show(referee, shenshi_after(state, "Gc3-c4-c3", c3_monk="none", tokens_silver=1))
    assert names(out) == ["move_in_progress"]
    out = show(referee, shenshi_after(state, "Gc3-c4-c3 Me3~e5"))
    assert only(out, "move_accepted").move in ("Gc3-c4-c3 Me3~e5", "Me3~e5 Gc3-c4-c3")


def test_a_hover_lifting_a_cushion_onto_its_start_is_named_in_a_flag() -> None:
    # Half a turn declared done: the orange hover put its lifted blond cushion on the
    # square it left; the diagnosis read a walk, and named the wrong rule.
    state = shenshi_position(
        TWO,
        blond="c3 e3 a1 d7",
        orange="g7",
        monks={"silver": ("c3", "e3"), "neutral": ("a1", "g7")},
    )
    referee = shenshi_referee(state)
    show(referee, shenshi_after(state, "NMg7~c7(d7>g7)"))
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule == "turn.needs-grand-master"
    assert flag.attempt.startswith("hovering the neutral master")


def _made_by_hand(
    seed: int, players: int, first: int, last: int
) -> tuple[Referee, list[tuple[str, list[Observation]]], ShenshiState]:
    """A seeded random ShenShi game: a referee at the position before move ``first``,
    each move from ``first`` to ``last`` with the tables its touches leave, and the
    position after move ``last``."""
    import numpy as np

    from companion.simulator.config import TableConfig
    from companion.simulator.core import random_game
    from companion.simulator.handling import handling_for
    from engines.observation import Reading
    from engines.shenshi.observation import schema

    # The games are replayed with the lift options they were played with: one lift a
    # hover, put down on any empty square.
    rules = ShenshiRules.from_record(
        ShenshiRules.default_players(players),
        {"seed": seed, "orange_lifts": 1, "lift_put_down": "also-orange-square"},
    )
    assert len(random_game(rules, seed)) >= last
    handling = handling_for(rules)
    moves = random_game(rules, seed)
    state = rules.initial_state()
    rng = np.random.default_rng(seed)
    made = []
    referee = Referee(rules, state)
    for number, move in enumerate(moves[:last], 1):
        if number == first:
            referee = Referee(rules, state)
        table = handling.table(state)
        tables = []
        for touch in handling.steps(state, move, rng, TableConfig()):  # the same draws
            touch.apply(table)
            tables.append(
                Observation.trusted(schema(rules), {e: Reading(v, 0.97) for e, v in table.items()})
            )
        if number >= first:
            made.append((rules.format_move(move), tables))
        state.play(move)
    return referee, made, state


def _feed(referee: Referee, made: list[tuple[str, list[Observation]]]) -> None:
    """Show each move's tables; the player says done unless a move of theirs was
    accepted."""
    for _, tables in made:
        player = referee.state.to_move
        out: list[object] = []
        for table in tables:
            out += show(referee, table)
        if not any(getattr(o, "name", "") == "move_accepted" and o.player == player for o in out):  # type: ignore[attr-defined]
            referee.handle(TurnDone())


def test_a_turn_half_made_is_never_a_turn_that_comes_back_on_itself() -> None:
    # Seeded game (4 players): silver's master hovered a7~b7, half a turn; the referee
    # accepted "Ma7~b7 Mb7=b6 Gb7=b6", a swap and the same swap again, which leaves
    # that table. The candidates now leave out actions bringing the board back to
    # where it was.
    referee, made, truth = _made_by_hand(seed=3, players=4, first=19, last=21)
    _feed(referee, made)
    assert len(referee.history) == len(made) and referee.state == truth


def test_a_neutral_monk_moved_first_by_the_next_player_splits_the_turns_again() -> None:
    # Seeded game (3 players): gold played "Ge4~e3 NMg5~g6", then black moved the
    # neutral master on (NMg6-g7) before his Grand Master. The walk was taken for
    # gold's third action; black's turn then did not fit, and the referee kept the
    # wrong split. It now goes back to gold's two actions when black's turn fits those.
    referee, made, truth = _made_by_hand(seed=5, players=3, first=59, last=60)
    _feed(referee, made)
    assert len(referee.history) == len(made) and referee.state == truth


def test_the_next_player_moving_a_neutral_monk_on_is_not_another_turn_before() -> None:
    # Seeded game (3 players): silver's turn "NGd3-c3-c4 NMd5-e5" was accepted with the
    # neutral Grand Master surely seen on c4. The next player walked it on to b3 and
    # said done with half a turn: the referee took silver's turn back for
    # "NGd3-b3 NMd5-e5", which would never have shown it on c4, and flagged nothing.
    referee, made, truth = _made_by_hand(seed=50, players=3, first=41, last=41)
    _feed(referee, made)
    assert [text for _, text in referee.history] == ["NGd3-c3-c4 NMd5-e5"]
    walked = shenshi_expected(truth).replace({"c4 monk": "none", "b3 monk": "black-grand"})
    show(referee, walked)
    out = referee.handle(TurnDone())
    assert "move_taken_back" not in names(out)
    only(out, "illegal_move")
    assert [text for _, text in referee.history] == ["NGd3-c3-c4 NMd5-e5"]


def test_a_third_action_after_cushions_lifted_in_another_pairing_goes_on() -> None:
    # Seeded game (2 players): two orange hovers each lifted a blond cushion. Which
    # went where cannot be seen, so the turn accepted paired them otherwise than the
    # player did; the player's third action (the Grand Master walking on, its two
    # actions written together first) was then not taken as going on from it, and
    # the next player was flagged.
    referee, _, _ = _made_by_hand(seed=4, players=2, first=34, last=34)
    state = referee.state
    parse = state.rules.parse_move
    accepted = parse("Gc1~e1(a1>d5) Me3~a3(a3>f1)")
    for goes_on in ("Me3~a3(a3>d5) Gc1~e1(a1>f1) Ge1-f1", "Gc1~e1(a1>f1) Ge1-f1 Me3~a3(a3>d5)"):
        state.check(parse(goes_on))
        assert shenshi_extends(state, accepted, parse(goes_on)), goes_on
    other = parse("Me3~a3(a3>d5) Gc1~d1(a1>a7)")
    state.check(other)
    assert not shenshi_extends(state, other, parse("Me3~a3(a3>d5) Gc1~e1(a1>f1) Ge1-f1"))


def test_a_walk_there_and_back_then_a_hover_is_one_turn() -> None:
    # Seeded game (3 players): copper's master walked a6-a7-a6, taking silver's Grand
    # Master off a7, then hovered on to a5. Its square a6 looked as before the walk,
    # so the search never started an action there: "Ga4-b4 Ma6-a7-a6" was found only
    # as a turn in progress, with no third action kept, and the hover was flagged as
    # the next player's.
    referee, made, truth = _made_by_hand(seed=8, players=3, first=8, last=8)
    assert made[0][0] == "Ga4-b4 Ma6-a7-a6 Ma6~a5"
    _feed(referee, made)
    assert [text for _, text in referee.history] == [made[0][0]]
    assert referee.state == truth


def test_a_third_action_of_a_turn_found_in_another_form_goes_on() -> None:
    # Seeded game (3 players): gold's master hovered, lifting a blond cushion onto e4;
    # the Grand Master walked onto it and hovered on. After two actions the table was
    # that of "Ge3~e4 Mg4~c4(a4>e3)" (the Grand Master hovering instead), the form the
    # search kept; the third action, a second hover, could not follow that form, and
    # was flagged as the next player's.
    referee, made, truth = _made_by_hand(seed=29, players=3, first=9, last=9)
    assert made[0][0] == "Mg4~c4(a4>e4) Ge3-e4 Ge4~e6"
    _feed(referee, made)
    assert len(referee.history) == 1 and referee.state == truth
