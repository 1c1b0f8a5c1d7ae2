"""A Shendao entry shown accepted whole, then a tile taken off the board by the next
player: the table looks like the entering tile lifted to slide on after a card (the
entry going on into a bigger move), but that move never shows whole. Found on simulated
tables (development games), each on a scripted stream from a position of such a game."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import TurnDone, TypedMove
from companion.simulator.core import random_game
from engines.observation import Observation
from tests.companion.referee.streams import names, only, show
from tests.referee.test_shendao_misreads import after_moves


def entered(referee: Referee, text: str) -> Observation:
    """The table of the referee's position with the entry ``text`` made."""
    state = referee.state.copy()
    state.play(state.rules.parse_move(text))
    return referee.explainer.expected(state)


def test_the_entered_tile_taken_off_by_the_next_player_is_their_move() -> None:
    # Light enters through Sf (the tile stops on f5) and the entry is accepted; Dark
    # takes that tile off. Without the tile the table is on the way to Light's Sf with
    # Loung taking f6 (the tile lifted to slide on), so Sf was taken back; Dark's done
    # is Dark's tile taken off the board, Sf accepted again
    referee = Referee((state := after_moves(8066, 20)).rules, state)
    table = entered(referee, "Sf")
    assert names(show(referee, table)) == ["move_accepted"]
    out = show(referee, table.replace({"f5": "empty"}))
    assert names(out) == ["move_taken_back", "move_in_progress"]
    out = referee.handle(TurnDone())
    assert only(out, "move_accepted").move == "Sf"
    flag = only(out, "illegal_move")
    assert (flag.rule, flag.player) == ("table.unexplained", 1)
    assert flag.fix == ["Put a light tile on f5."]
    assert "If Light was still moving" in flag.message
    assert [text for _, text in referee.history] == ["Sf"]
    assert names(show(referee, table)) == ["table_restored"]


def test_the_card_in_doubt_before_is_kept_when_the_entry_is_accepted_again() -> None:
    # Dark's Nd spent Tigre Blanc or Loung on d5 (the same table: the record shows
    # Loung, the belief keeps Tigre Blanc); ten moves on, Dark's Ne is accepted and
    # Light takes its tile off e6, on the way to Dark's Ne with Tigre Blanc (only
    # in the belief's history). Light's done is Light's tile taken off; Ne accepted
    # again under that table keeps the history in which Dark spent Tigre Blanc
    state = after_moves(8012, 13)
    rules = state.rules
    referee = Referee(rules, state)
    for text in [rules.format_move(m) for m in random_game(rules, 8012)[13:24]]:
        state.play(rules.parse_move(text))
        show(referee, referee.explainer.expected(state))
        if referee.history[-1][1] != text and text not in referee.belief.choices(
            [t for _, t in referee.history], len(referee.history) - 1
        ):
            referee.handle(TypedMove(text))  # a card nothing showed, said by its player
    record = [text for _, text in referee.history]
    assert (record[0], record[-1]) == ("Nd loung d5", "Ne")
    assert [h.moves[0] for h in referee.belief.histories] == ["Nd tigre"]
    out = show(referee, referee.explainer.expected(state).replace({"e6": "empty"}))
    assert names(out) == ["move_taken_back", "move_in_progress"]
    out = referee.handle(TurnDone())
    flag = only(out, "illegal_move")
    assert (flag.rule, flag.player) == ("table.unexplained", 0)
    assert [text for _, text in referee.history] == record
    assert [h.moves for h in referee.belief.histories] == [["Nd tigre", *record[1:]]]


def test_an_entry_going_on_with_a_cards_effect_half_made_is_still_that_entry() -> None:
    # Light's stick and tile through Na are accepted as the plain entry; Light then
    # lifts the dark tile on a6 to put one of theirs there (the Prêtresse) and says
    # done: the entry's tile and stick are still down, so the done is Light's, the
    # entry misplaced, not Dark's tile taken off the board
    referee = Referee((state := after_moves(8090, 10)).rules, state)
    table = entered(referee, "Na")
    show(referee, table)
    out = show(referee, table.replace({"a6": "empty"}))
    assert names(out) == ["move_taken_back", "move_in_progress"]
    out = referee.handle(TurnDone())
    flag = only(out, "illegal_move")
    assert (flag.rule, flag.player) == ("table.misplaced", 0)
    assert referee.history == []
