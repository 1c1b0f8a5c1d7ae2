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


def test_a_monk_slid_one_square_diagonally_is_a_diagonal_step() -> None:
    # a walk round the corner leaves the same table, but nothing else tells of it
    state = position(
        TWO,
        blond="d3 d4 e3 e4 a1 c3 g1 a7",
        monks={"silver": ("a1", "d3"), "copper": ("c3", None), "neutral": ("g1", "a7")},
    )
    other = state.copy()
    other.apply(state.rules.parse_move("Md3-d4-e4"))
    table, before = expected(other), expected(state)
    changed = [e for e in table if table.value(e) != before.value(e)]
    _, move, _ = guess(state, table, changed)
    assert move is not None and format_move(move) == "Md3-e4"
