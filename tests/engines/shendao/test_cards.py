"""The six cards (RULINGS 2.3), one card a turn, each once, and the variants."""

from __future__ import annotations

import pytest

from engines import Dice, NotationError
from engines.shendao import ShendaoRules
from engines.shendao.moves import CARD_NAMES
from tests.engines.shendao.helpers import board, closed, illegal, played, position

# ---------------------------------------------------------------- Brigand


def test_brigand_enters_through_a_closed_gate_which_stays_closed() -> None:
    state = played(position(dark="f3", closed="W3 E3"), "W3 brigand")
    assert board(state) == {"e3": "light", "f3": "dark"}
    assert closed(state) == ["W3", "E3"]
    assert state.cards_left(0) == ["loung", "nugua", "pretresse", "tigre", "yinyang"]


def test_brigand_through_an_open_gate_closes_it() -> None:
    state = played(position(dark="f3"), "W3 brigand")
    assert closed(state) == ["W3"]


def test_brigand_passes_a_closed_far_gate_and_leaves_the_board() -> None:
    state = played(position(closed="E3"), "W3 brigand")
    assert board(state) == {}
    assert state.supply == [30, 30]


def test_brigand_passes_the_central_walls_by_default() -> None:
    state = played(position(dark="g4"), "W4 brigand")
    assert board(state) == {"f4": "light", "g4": "dark"}
    state = played(position(), "SW brigand")
    assert board(state) == {}, "the long diagonal is empty: the tile leaves at h8"
    state = played(position(dark="g4", brigand_passes_walls=False), "W4 brigand")
    assert board(state) == {"d4": "light", "g4": "dark"}


def test_brigand_cannot_enter_onto_a_taken_square() -> None:
    state = position(dark="a3", closed="W3")
    assert illegal(state, "W3 brigand").rule == "gate.blocked"


# ---------------------------------------------------------------- Loung


def test_loung_splits_a_group() -> None:
    state = position(dark="c2 c3 c4")
    assert state.scores() == [0, 3]
    played(state, "W3 loung c3")
    assert board(state) == {"b3": "light", "c2": "dark", "c4": "dark"}
    assert state.scores() == [1, 1]
    assert state.supply == [29, 27], "the removed tile is out of the game"


def test_loung_removes_any_tile_of_the_line_even_past_a_wall_or_ones_own() -> None:
    state = played(position("h4", "f4"), "W4 loung f4")
    assert board(state) == {"d4": "light", "h4": "light"}
    state = played(position("h4", "f4"), "W4 loung h4")
    assert board(state) == {"d4": "light", "f4": "dark"}


def test_loung_refuses_a_square_off_the_line_or_without_a_tile() -> None:
    state = position("h4", "f4 c3")
    error = illegal(state, "W4 loung c3")
    assert error.rule == "loung.not-on-line"
    assert "c3 is not on the line behind gate W4 (a4-h4)" in error.message
    assert "Choose one of f4 h4." in error.message
    error = illegal(state, "W4 loung b4")
    assert error.rule == "loung.no-tile"
    error = illegal(position(), "W3 loung c3")
    assert error.rule == "loung.no-tile"
    assert "holds no tile" in error.message


# ---------------------------------------------------------------- Main de Nugua


def test_nugua_stops_the_tile_on_a_chosen_free_square_of_its_way() -> None:
    state = played(position(dark="f3"), "W3 nugua c3")
    assert board(state) == {"c3": "light", "f3": "dark"}
    state = played(position(), "W3 nugua h3")
    assert board(state) == {"h3": "light"}, "a tile that would leave may stop anywhere"
    assert [
        t for t in position(dark="d3").legal_texts() if "nugua" in t and t.startswith("W3")
    ] == ["W3 nugua a3", "W3 nugua b3", "W3 nugua c3"]


def test_nugua_cannot_jump_a_tile_or_a_wall() -> None:
    state = position(dark="f3")
    error = illegal(state, "W3 nugua g3")
    assert error.rule == "nugua.not-on-path"
    assert error.message.endswith("one of a3 b3 c3 d3 e3.")
    assert illegal(position(), "W4 nugua f4").rule == "nugua.not-on-path"
    assert illegal(position(), "W4 nugua c3").rule == "nugua.not-on-path"


# ---------------------------------------------------------------- Prêtresse de Sichuan


def test_pretresse_turns_the_stopping_tile_into_ones_own() -> None:
    state = played(position(dark="f3 f4"), "W3 pretresse")
    assert board(state) == {"e3": "light", "f3": "light", "f4": "dark"}
    assert state.supply == [28, 28], "the taken tile is out of the game"
    assert state.scores() == [2, 1]


def test_pretresse_has_no_effect_on_ones_own_tile_or_after_a_wall() -> None:
    state = played(position("f3"), "W3 pretresse")
    assert board(state) == {"e3": "light", "f3": "light"}
    assert state.supply == [28, 30]
    state = played(position(dark="e4"), "W4 pretresse")
    assert board(state) == {"d4": "light", "e4": "dark"}, "a wall stopped it"
    assert "pretresse" not in state.cards_left(0), "the card is spent all the same"


def test_pretresse_needs_a_second_tile() -> None:
    state = position(dark="f3", supply={"light": 1})
    assert illegal(state, "W3 pretresse").rule == "pretresse.no-tile"
    assert "W3 tigre" in state.legal_texts()


# ---------------------------------------------------------------- Tigre Blanc


def test_tigre_blanc_destroys_the_stopping_tile_even_ones_own() -> None:
    state = played(position(dark="f3 g3"), "W3 tigre")
    assert board(state) == {"e3": "light", "g3": "dark"}
    assert state.supply == [29, 28], "the destroyed tile is out of the game"
    state = played(position("f3"), "W3 tigre")
    assert board(state) == {"e3": "light"}


def test_tigre_blanc_strikes_across_a_wall() -> None:
    state = played(position(dark="g4 h4"), "W4 tigre")
    assert board(state) == {"d4": "light", "h4": "dark"}
    state = played(position(dark="f6"), "SW tigre")
    assert board(state) == {"d4": "light"}


def test_tigre_blanc_without_a_tile_beyond_is_spent_for_nothing() -> None:
    state = played(position(), "W3 tigre")
    assert board(state) == {}
    assert "tigre" not in state.cards_left(0)
    state = played(position(closed="E3"), "W3 tigre")
    assert board(state) == {"h3": "light"}


# ---------------------------------------------------------------- Yin-Yang


def test_yin_yang_swaps_with_the_stopping_tile() -> None:
    state = played(position(dark="f3 e2"), "W3 yinyang")
    assert board(state) == {"e2": "dark", "e3": "dark", "f3": "light"}
    assert state.scores() == [1, 2]


def test_yin_yang_swaps_across_a_wall() -> None:
    state = played(position(dark="g4"), "W4 yinyang")
    assert board(state) == {"d4": "dark", "g4": "light"}
    state = played(position(dark="c3"), "NE yinyang")
    assert board(state) == {"c3": "light", "e5": "dark"}


def test_yin_yang_with_nothing_to_swap_places_the_tile_as_usual() -> None:
    state = played(position(closed="E3"), "W3 yinyang")
    assert board(state) == {"h3": "light"}


# ---------------------------------------------------------------- one card a turn, once each


def test_each_card_is_played_once() -> None:
    state = played(position(dark="h8"), "W3 tigre")
    played(state, "W1")
    error = illegal(state, "W5 tigre")
    assert error.rule == "card.used"
    assert error.message.startswith("Light has already used the Tigre Blanc")
    assert "Cards left: Brigand, Loung" in error.message
    state = position(cards={"light": [], "dark": []})
    error = illegal(state, "W3 yinyang")
    assert error.rule == "card.used"
    assert "No cards are left" in error.message


def test_one_card_a_turn_at_most() -> None:
    rules = ShendaoRules()
    with pytest.raises(NotationError, match="one card a turn at most"):
        rules.parse_move("W3 tigre yinyang")
    with pytest.raises(NotationError, match="one card a turn at most"):
        rules.parse_move("W3 loung c3 tigre")


# ---------------------------------------------------------------- variants


@pytest.mark.parametrize(
    ("variant", "allowed", "refused"),
    [
        ("tigre-blanc", ["brigand", "loung", "nugua", "pretresse", "tigre", "yinyang"], []),
        ("tigre", ["nugua", "tigre", "yinyang"], ["brigand", "loung", "pretresse"]),
        ("chaton", [], ["brigand", "loung", "nugua", "pretresse", "tigre", "yinyang"]),
    ],
)
def test_the_variants_choose_the_cards(
    variant: str, allowed: list[str], refused: list[str]
) -> None:
    state = position("c3", "f3", variant=variant)
    assert state.cards_left(0) == state.cards_left(1) == allowed
    texts = state.legal_texts()
    suffix = {"loung": " loung c3", "nugua": " nugua a3"}
    for card in allowed:
        assert f"W3{suffix.get(card, ' ' + card)}" in texts
    for card in refused:
        error = illegal(state, f"W3{suffix.get(card, ' ' + card)}")
        assert error.rule == "card.not-in-variant"
        assert f"{variant} variant" in error.message


def test_a_card_with_no_effect_is_legal_and_spent() -> None:
    for card in ("brigand", "pretresse", "tigre", "yinyang"):
        state = played(position(), f"W3 {card}")
        assert board(state) == {}
        assert card not in state.cards_left(0)


# ---------------------------------------------------------------- uncertain readings


def test_tigre_blanc_across_a_wall_and_an_empty_square_by_option() -> None:
    # "Votre pavé détruit le pavé contre lequel il s'arrête ... même s'il y a une porte
    # entre les pavés": W4 stops on d4 at the wall; e4 is empty, g4 dark.
    state = played(position(dark="g4"), "W4 tigre")
    assert board(state) == {"d4": "light"}, "first-tile: past the empty square"
    state = played(position(dark="g4", tigre_across_wall="next-square"), "W4 tigre")
    assert board(state) == {"d4": "light", "g4": "dark"}, "next-square: only e4"
    state = played(position(dark="e4 g4", tigre_across_wall="next-square"), "W4 tigre")
    assert board(state) == {"d4": "light", "g4": "dark"}


def test_yin_yang_across_a_wall_and_an_empty_square_by_option() -> None:
    # "Votre pavé échange sa position avec le premier pavé rencontré sur sa ligne.
    # L'échange se fait même s'il y a une porte entre les pavés."
    state = played(position(dark="g4"), "W4 yinyang")
    assert board(state) == {"d4": "dark", "g4": "light"}
    state = played(position(dark="g4", yinyang_across_wall="next-square"), "W4 yinyang")
    assert board(state) == {"d4": "light", "g4": "dark"}
    state = played(position(dark="e4 g4", yinyang_across_wall="next-square"), "W4 yinyang")
    assert board(state) == {"d4": "dark", "e4": "light", "g4": "dark"}


def test_a_card_without_effect_can_be_refused_by_option() -> None:
    refused = {"card_without_effect": "refused"}
    for card in ("brigand", "pretresse", "tigre", "yinyang"):
        error = illegal(position(**refused), f"W3 {card}")
        assert error.rule == "card.no-effect"
        assert error.message.startswith(f"The {CARD_NAMES[card]} would change nothing")
    error = illegal(position(closed="E3", **refused), "W3 nugua h3")  # the plain stop
    assert error.rule == "card.no-effect"
    assert illegal(position("f3", **refused), "W3 yinyang").rule == "card.no-effect"
    assert illegal(position("f3", **refused), "W3 pretresse").rule == "card.no-effect"
    # Where the card acts it stays legal.
    played(position(closed="E3", **refused), "W3 nugua g3")
    played(position(closed="E3", **refused), "W3 brigand")  # passes the closed gate
    played(position(dark="f3", **refused), "W3 pretresse")
    played(position(dark="f3", **refused), "W3 tigre")
    played(position(dark="f3", **refused), "W3 yinyang")
    played(position(dark="f3", **refused), "W3 loung f3")
    # The uniform draw only draws legal moves.
    state = position(dark="f3 c6", closed="E3 E5", **refused)
    legal = set(state.legal_texts())
    dice = Dice(3)
    drawn = {state.rules.format_move(state.random_move(dice)) for _ in range(3000)}
    assert drawn == legal
    assert position(**refused).rules.options_json()["card_without_effect"] == "refused"
