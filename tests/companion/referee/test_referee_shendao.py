"""The referee on scripted Shendao streams: entries, cards seen by their effect, rules."""

from __future__ import annotations

from companion.referee.core import Referee
from companion.referee.events import Takeback, TurnDone, TypedMove
from engines import Dice
from engines.observation import Observation
from engines.shendao import ShendaoRules
from engines.shendao.observation import expected
from tests.companion.referee.streams import names, only, show
from tests.engines.shendao.helpers import position


def referee_for(**kwargs: object) -> Referee:
    state = position(**kwargs)  # type: ignore[arg-type]
    return Referee(state.rules, state)


def table(referee: Referee, **changes: str) -> Observation:
    """The expected table with changes: ``c3="light"``, ``gate_W3="closed"``."""
    readings = {
        (k.replace("gate_", "gate ") if k.startswith("gate_") else k): v for k, v in changes.items()
    }
    return referee.expected_table().replace(readings)


def test_a_plain_entry_is_accepted() -> None:
    referee = referee_for(light="e3")
    out = show(referee, table(referee, d3="light", gate_W3="closed"))
    assert only(out, "move_accepted").move == "W3"


def test_a_card_is_recognised_by_its_effect() -> None:
    # Yin-Yang: the entering tile swaps places with the tile that stops it.
    referee = referee_for(dark="e3")
    out = show(referee, table(referee, d3="dark", e3="light", gate_W3="closed"))
    assert only(out, "move_accepted").move == "W3 yinyang"


def test_two_cards_with_the_same_effect_are_kept_in_doubt() -> None:
    # Tigre Blanc destroys the stopping tile; Loung may remove that same tile.
    referee = referee_for(dark="e3")
    out = show(referee, table(referee, d3="light", e3="empty", gate_W3="closed"))
    assert only(out, "move_accepted").move == "W3 loung e3"
    assert [h.moves for h in referee.belief.histories] == [["W3 tigre"]]


def test_a_card_with_no_visible_effect_is_not_assumed() -> None:
    referee = referee_for(closed="E3")  # the far gate stops the tile on h3
    out = show(referee, table(referee, h3="light", gate_W3="closed"))
    assert names(out) != ["question"]
    accepted = [o for o in out if o.name == "move_accepted"]
    assert accepted and accepted[0].move == "W3"
    assert referee.state.cards_left(0) == [
        "brigand",
        "loung",
        "nugua",
        "pretresse",
        "tigre",
        "yinyang",
    ]


def test_a_tile_through_a_closed_gate_is_flagged() -> None:
    # (with the Brigand in hand this is a legal move: it has been used here)
    left = ["loung", "nugua", "pretresse", "tigre", "yinyang"]
    referee = referee_for(closed="W3", light="e3", cards={"light": left, "dark": left})
    out = show(referee, table(referee, d3="light"))
    # with the Main de Nugua, d3 could be an entry through Sd, its stick not yet down
    assert names(out) == ["move_in_progress"]
    flag = only(referee.handle(TurnDone()), "illegal_move")
    assert flag.rule in ("gate.closed", "table.misplaced")
    assert "Take the light tile off d3." in flag.fix


def test_the_wrong_colour_is_the_wrong_player() -> None:
    referee = referee_for(light="e3")
    flag = only(show(referee, table(referee, d3="dark", gate_W3="closed")), "illegal_move")
    assert flag.rule == "turn.wrong-player"
    assert set(flag.fix) == {
        "Take the dark tile off d3.",
        "Take the red stick off gate W3: it is open.",
    }


def test_a_tile_stopped_short_gets_the_steps_to_finish() -> None:
    # (with the Main de Nugua in hand, stopping short is legal: it has been used here)
    left = ["brigand", "loung", "pretresse", "tigre", "yinyang"]
    referee = referee_for(light="e3", cards={"light": left, "dark": left})
    flag = only(show(referee, table(referee, b3="light", gate_W3="closed")), "illegal_move")
    assert flag.rule == "table.misplaced"
    assert set(flag.fix) == {"Take the light tile off b3.", "Put a light tile on d3."}


def test_a_typed_card_move_spends_the_card() -> None:
    referee = referee_for()
    out = referee.handle(TypedMove("W3 brigand"))
    assert only(out, "move_accepted").move == "W3 brigand"
    assert "brigand" not in referee.state.cards_left(0)


def test_a_random_game_shown_move_by_move_is_recognised() -> None:
    """Every move is recognised from the table, except cards that leave no trace of
    their own (the player then types the move), and the game ends the same."""
    rules = ShendaoRules()
    referee = Referee(rules)
    truth = rules.initial_state()
    dice = Dice(11)
    moves = recognised = 0
    while not truth.is_over():
        move = rules.format_move(truth.random_move(dice))
        truth.play_text(move)
        moves += 1
        out = show(referee, expected(truth))
        accepted = [o.move for o in out if o.name == "move_accepted"]
        if accepted == [move]:
            recognised += 1
            continue
        if accepted:  # a plain entry seen; the player had announced a card
            referee.handle(Takeback())
        elif "question" in names(out):
            assert move in only(out, "question").candidates
        referee.handle(TypedMove(move))
    assert referee.state.to_json() == truth.to_json()
    assert recognised >= 0.7 * moves


def test_a_card_that_changed_nothing_is_said_and_replaces_the_plain_entry() -> None:
    # A Prêtresse on a tile that slides off the board (nothing stops it, nothing
    # changes colour): the table is the plain entry's, so the referee accepts W3; the
    # player then says the card was spent.
    referee = referee_for()
    show(referee, table(referee, gate_W3="closed"))
    assert [text for _, text in referee.history] == ["W3"]
    out = referee.handle(TypedMove("W3 pretresse"))
    assert names(out)[:2] == ["move_taken_back", "move_accepted"]
    assert only(out, "move_accepted").move == "W3 pretresse"
    assert [text for _, text in referee.history] == ["W3 pretresse"]


def test_a_typed_move_for_the_next_player_is_not_taken_for_a_restatement() -> None:
    referee = referee_for(light="e3")
    show(referee, table(referee, d3="light", gate_W3="closed"))
    out = referee.handle(TypedMove("Sa"))
    assert only(out, "move_accepted").move == "Sa"
    assert [text for _, text in referee.history] == ["W3", "Sa"]


def test_a_move_typed_before_it_is_made_is_in_progress_while_it_is_made() -> None:
    # A card said aloud (typed) before the tile goes in: the tile in, the red stick not
    # yet on its gate, was flagged as no legal move of the next player.
    referee = referee_for(light="e3")
    out = referee.handle(TypedMove("W3"))
    assert only(out, "move_accepted").move == "W3"
    out = show(referee, expected(referee.history[-1][0]))  # not made yet
    assert names(out) == ["move_in_progress"]
    assert only(out, "move_in_progress").candidates == ["W3"]
    out = show(referee, table(referee, d3="light", gate_W3="open"))
    assert "illegal_move" not in names(out)  # the same "in progress" is not repeated
    assert "illegal_move" not in names(show(referee, table(referee, d3="light")))
    # once seen made, a wrong table is flagged again
    out = show(referee, table(referee, e3="empty", f6="light"))
    assert names(out)[0] == "illegal_move"


def test_a_done_after_an_entry_is_the_next_players_not_a_card_on_the_entry() -> None:
    # After W6 the tile of the next player entering W6 with the Brigand leaves the table
    # as it is; so would W6 with the Brigand instead of W6. The done is the next
    # player's: the entry already accepted stays as it is.
    rules = ShendaoRules.from_record(ShendaoRules.default_players(2), {})
    referee = Referee(rules)
    state = rules.initial_state()
    for text in ("Sb nugua b5", "W6"):
        state.play(rules.parse_move(text))
        assert names(show(referee, referee.explainer.expected(state))) == ["move_accepted"]
    out = referee.handle(TurnDone())
    assert "move_taken_back" not in names(out)
    assert [text for _, text in referee.history][:2] == ["Sb nugua b5", "W6"]
    assert len(referee.history) == 3 and referee.history[2][0].to_move == 0
