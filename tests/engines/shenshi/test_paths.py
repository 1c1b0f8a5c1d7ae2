"""Path tokens (RULINGS 3.2 "Paths"), winning at 8 and what a removed monk must do."""

from __future__ import annotations

from typing import Any

from engines.shenshi import ShenshiRules, ShenshiState
from tests.engines.shenshi.positions import is_legal, legal, position, rule_of

TWO = ShenshiRules(["silver", "copper"])
THREE = ShenshiRules(["silver", "copper", "gold"])


def duel(
    silver_g: str,
    silver_m: str,
    copper: tuple[str | None, str | None],
    neutral: tuple[str, str] = ("a1", "a7"),
    **extra: Any,
) -> ShenshiState:
    """Silver to move with its monks and copper's where given, on blond cushions, with a
    free cushion on d6 to walk on; the neutral monks on a1 and a7 by default."""
    squares = {silver_g, silver_m, *neutral, *(s for s in copper if s), "d6"}
    return position(
        TWO,
        blond=" ".join(sorted(squares)),
        monks={"silver": (silver_g, silver_m), "copper": copper, "neutral": neutral},
        **extra,
    )


def after(state: ShenshiState, text: str) -> ShenshiState:
    state.play_text(text)
    return state


def test_own_grand_master_removing_a_master_takes_two_from_the_supply() -> None:
    state = after(duel("d4", "g7", (None, "d5")), "Gd4-d5 Mg7~g6")
    assert state.tokens == [3, 1] and state.supply == 26
    assert state.scores() == [3, 1]


def test_own_master_removing_a_grand_master_takes_one_from_the_supply_one_from_its_owner() -> None:
    state = after(duel("g1", "d4", ("d5", None)), "Md4-d5 Gg1~g2")
    assert state.tokens == [3, 0] and state.supply == 27


def test_when_the_owner_has_no_token_only_the_supply_pays() -> None:
    state = after(duel("g1", "d4", ("d5", None), tokens={"copper": 0}), "Md4-d5 Gg1~g2")
    assert state.tokens == [2, 0] and state.supply == 28


def test_a_neutral_monk_earns_one_token() -> None:
    master = after(duel("g1", "g7", (None, "d5"), neutral=("d4", "a7")), "NGd4-d5 Mg7~g6")
    assert master.tokens == [2, 1] and master.supply == 27
    grand = after(duel("g1", "g7", ("d5", None), neutral=("a1", "d4")), "NMd4-d5 Gg1~g2")
    assert grand.tokens == [2, 0] and grand.supply == 28
    poor = after(
        duel("g1", "g7", ("d5", None), neutral=("a1", "d4"), tokens={"copper": 0}), "NMd4-d5 Gg1~g2"
    )
    assert poor.tokens == [2, 0] and poor.supply == 28


def test_the_supply_pays_only_what_it_holds() -> None:
    state = duel("d4", "g7", (None, "d5"))
    state.supply = 1  # set by hand: no game runs that low
    state.play_text("Gd4-d5 Mg7~g6")
    assert state.tokens == [2, 1] and state.supply == 0


def test_the_removed_monk_goes_home_and_must_enter_on_its_owners_next_turn() -> None:
    state = after(duel("d4", "g7", ("c1", "d5")), "Gd4-d5 Mg7~g6")
    assert state.pos[3] == -1 and state.to_move == 1
    assert rule_of(state, "Gc1~c2 NMa7~b7") == "turn.enter-first"
    assert is_legal(state, "M@e1:b Gc1~c2")


def test_eight_tokens_win_at_once_even_in_the_middle_of_a_turn() -> None:
    state = duel("d4", "g7", (None, "d5"), tokens={"silver": 6})
    assert is_legal(state, "Gd4-d5")  # no master needed now
    assert rule_of(state, "Gd4-d5 Mg7~g6") == "turn.game-won"
    assert "Gd4-d5 Mg7~g6" not in legal(state)
    state.play_text("Gd4-d5")
    assert state.is_over() and state.winners() == [0]
    assert state.tokens == [8, 1] and state.legal_moves() == []
    assert state.tiebreak() is None


def test_with_three_players_the_grand_masters_owner_pays() -> None:
    state = position(
        THREE,
        blond="c4 d4 a1 g7 a7 g1",
        monks={"silver": ("a1", "c4"), "gold": ("d4", None), "neutral": ("a7", "g7")},
        tokens={"gold": 2},
    )
    state.play_text("Mc4-d4 Ga1~a2")
    assert state.tokens == [3, 1, 1] and state.supply == 25
