"""The rule named for a ShenShi table no legal turn explains: the turn the player meant
is rebuilt from the actions each monk's options allow (``guess``), so the rule is the
one that turn breaks, not one of a walk made up from where the monk went."""

from __future__ import annotations

from engines import IllegalMoveError
from engines.shenshi import ShenshiRules, ShenshiState
from engines.shenshi.moves import format_move
from engines.shenshi.observation import expected, guess
from tests.engines.shenshi.positions import position

TWO = ShenshiRules(["silver", "copper"])


def rebuilt(state: ShenshiState, text: str) -> tuple[str, str]:
    """The turn ``guess`` rebuilds from the table ``text`` leaves, and the rule it breaks."""
    other = state.copy()
    other.apply(state.rules.parse_move(text))
    table, before = expected(other), expected(state)
    changed = [e for e in table if table.value(e) != before.value(e)]
    _, move, player = guess(state, table, changed)
    assert move is not None and player == state.to_move
    try:
        state.check(move)
    except IllegalMoveError as error:
        return format_move(move), error.rule
    return format_move(move), ""


def test_a_walk_removing_a_monk_round_a_corner_is_that_walk() -> None:
    # f6 to g7 is no line: the walk was rebuilt as a diagonal step (walk.step)
    state = position(
        TWO,
        blond="f6 g6 g7 a1 c3 g1",
        orange="a7",
        monks={"silver": ("f6", "a1"), "copper": ("c3", "g6"), "neutral": ("g1", "a7")},
    )
    assert rebuilt(state, "Gf6-g6-g7") == ("Gf6-g6-g7", "turn.needs-master")


def test_an_orange_hover_onto_the_square_of_the_cushion_it_lifted_is_that_hover() -> None:
    # the end square held a cushion before the turn: rebuilt as a walk (walk.length)
    state = position(
        TWO,
        blond="d6 a1 c3 g1 a7",
        orange="d3",
        monks={"silver": ("a1", "d3"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )
    assert rebuilt(state, "Md3~d6(d6>b7)") == ("Md3~d6(d6>b7)", "turn.needs-grand-master")


def test_a_slide_no_action_allows_is_still_named_by_the_squares() -> None:
    # three squares straight on, the cushion left behind: no walk or hover of the monk
    # ends there, so the walk made up from the squares names the rule
    state = position(
        TWO,
        blond="d3 d4 d5 d6 a1 c3 g1 a7",
        monks={"silver": ("a1", "d3"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )
    assert rebuilt(state, "Md3-d4-d5-d6") == ("Md3-d4-d5-d6", "walk.length")


def test_a_monk_moved_diagonally_where_a_walk_round_the_corner_goes_made_that_walk() -> None:
    # the table cannot show the way the monk went: it shows a legal walk, and the
    # turn then lacks its Grand Master (not a diagonal step)
    state = position(
        TWO,
        blond="d3 d4 e3 e4 a1 c3 g1 a7",
        monks={"silver": ("a1", "d3"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )
    text, rule = rebuilt(state, "Md3-d4-e4")
    assert text in ("Md3-d4-e4", "Md3-e3-e4") and rule == "turn.needs-grand-master"


def test_a_monk_moved_diagonally_no_walk_reaches_is_a_diagonal_step() -> None:
    # neither corner square holds a cushion: no walk goes there, so the step was
    # diagonal
    state = position(
        TWO,
        blond="d3 e4 a1 c3 g1 a7",
        monks={"silver": ("a1", "d3"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )
    after = position(
        TWO,
        blond="d3 e4 a1 c3 g1 a7",
        monks={"silver": ("a1", "e4"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )
    table, before = expected(after), expected(state)
    changed = [e for e in table if table.value(e) != before.value(e)]
    _, move, _ = guess(state, table, changed)
    assert move is not None and format_move(move) == "Md3-e4"
    try:
        state.check(move)
    except IllegalMoveError as error:
        assert error.rule == "walk.step"
    else:
        raise AssertionError("a diagonal step was taken for legal")


def test_a_walk_there_and_back_removing_a_monk_is_that_walk() -> None:
    # the walker's square looks as before and only copper's monk is gone: it was named
    # "taking monks off the board" (table.unexplained), not what the turn lacks
    state = position(
        TWO,
        blond="d4 d5 a1 c3 g1 a7",
        monks={"silver": ("d4", "a1"), "copper": ("c3", "d5"), "neutral": ("g1", "a7")},
    )
    assert rebuilt(state, "Gd4-d5-d4") == ("Gd4-d5-d4", "turn.needs-master")
