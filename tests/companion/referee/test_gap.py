"""Moves made while nobody saw the table (a cable pulled, a paused camera, a hand over
the board): the referee explains the table by the shortest sequence of legal moves
before calling anything illegal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.referee.core import Referee
from companion.referee.events import Answer, Seen, TurnDone
from companion.referee.inference import Explainer
from companion.referee.journal import Journal, JournaledReferee, resume
from companion.simulator import random_game
from engines import GameState
from engines.observation import Reading
from engines.shangrila import ShangrilaRules
from engines.shangrila.moves import Journey, Place
from engines.shangrila.observation import expected as shangrila_table
from engines.shangrila.observation import from_camera_above
from engines.shendao import ShendaoRules
from engines.shendao.observation import expected as shendao_table
from tests.companion.referee.streams import names, only, show
from tests.engines.shangrila.helpers import position as shangrila_position
from tests.engines.shendao.helpers import position as shendao_position


def played(state: GameState[Any], *moves: str) -> GameState[Any]:
    after = state.copy()
    for text in moves:
        after.play_text(text)
    return after


def accepted(outputs: list[Any]) -> list[tuple[int, int, str, str]]:
    return [(o.number, o.player, o.move, o.by) for o in outputs if o.name == "move_accepted"]


class TestShangrila:
    def test_two_placements_made_unseen_are_both_accepted_in_turn(self) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        referee = Referee(state.rules, state)
        out = show(referee, from_camera_above(shangrila_table(played(state, "Y@4", "H@7"))))
        assert accepted(out) == [(1, 0, "Y@4", "table"), (2, 1, "H@7", "table")]
        assert "illegal_move" not in names(out)
        assert referee.state == played(state, "Y@4", "H@7")
        lights = {light.element for light in only(out, "indicators").lights}
        assert {"4Y", "7H"} <= lights

    def test_three_placements_made_unseen_are_found(self) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}, 9: {"R": "yellow"}})
        moves = ("Y@4", "H@7", "A@9")
        after = played(state, *moves)
        referee = Referee(state.rules, state)
        out = show(referee, from_camera_above(shangrila_table(after)))
        assert [m for _, _, m, _ in accepted(out)] == list(moves)
        assert referee.state == after

    def test_a_journey_and_the_next_move_made_unseen_are_found(self) -> None:
        rules = ShangrilaRules(["red", "blue", "yellow"])
        moves = random_game(rules, 4)
        state = rules.initial_state()
        for i, move in enumerate(moves):  # up to the first journey
            if isinstance(move, Journey) and isinstance(moves[i + 1], Place):
                break
            state.apply(move)
        texts = [rules.format_move(m) for m in moves[i : i + 2]]
        referee = Referee(rules, state)
        out = show(referee, from_camera_above(shangrila_table(played(state, *texts))))
        assert [m for _, _, m, _ in accepted(out)] == texts

    def test_a_player_placing_two_tiles_at_once_is_still_flagged(self) -> None:
        state = shangrila_position({4: {"A": "red"}})
        referee = Referee(state.rules, state)
        table = referee.expected_table().replace({"4Y": "red", "4H": "red"})
        out = show(referee, from_camera_above(table))
        assert names(out) == ["illegal_move"]
        assert referee.history == []

    def test_a_move_nobody_could_see_is_never_guessed(self) -> None:
        # Blue places while red is to move: from above, a recruit of red's would leave
        # the table so too, but a move that shows nothing is not assumed.
        state = shangrila_position({4: {"A": "red+"}, 7: {"Y": "blue"}})
        referee = Referee(state.rules, state)
        table = referee.expected_table().replace({"7H": "blue"})
        out = show(referee, from_camera_above(table))
        assert only(out, "illegal_move").rule == "turn.wrong-player"

    def test_a_done_waits_for_the_last_piece_of_a_gap_to_be_believed(self) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        referee = Referee(state.rules, state)
        after = from_camera_above(shangrila_table(played(state, "Y@4", "H@7")))
        # blue's tile is believed, red's (put down first) is read once, then done
        assert show(referee, after.replace({"4Y": "empty"}), times=3) == []
        assert referee.handle(Seen(after)) == []
        assert names(referee.handle(TurnDone())) == []
        out = show(referee, after, times=2)
        assert accepted(out) == [(1, 0, "Y@4", "table"), (2, 1, "H@7", "table")]
        assert "illegal_move" not in names(out)

    def test_the_moves_of_a_gap_are_journaled_and_resumed(self, tmp_path: Path) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        path = tmp_path / "game.jsonl"
        referee = Referee(state.rules, state)
        runner = JournaledReferee(referee, Journal.create(path, referee))
        table = from_camera_above(shangrila_table(played(state, "Y@4", "H@7")))
        for _ in range(5):
            runner.handle(Seen(table))
        runner.journal.close()
        assert referee.record().moves == ["Y@4", "H@7"]
        resumed = resume(path)
        assert resumed.warnings == []
        assert resumed.referee.referee.record().moves == ["Y@4", "H@7"]
        resumed.referee.journal.close()


class TestShendao:
    def test_two_entries_made_unseen_are_accepted(self) -> None:
        state = shendao_position(light="c3", dark="e5")
        after = played(state, "W3", "Na")
        referee = Referee(state.rules, state)
        out = show(referee, shendao_table(after))
        assert [m for _, _, m, _ in accepted(out)] == ["W3", "Na"]

    def test_several_sequences_accept_their_common_start_and_ask_for_the_rest(self) -> None:
        # Tigre Blanc and Loung leave the same table after dark's plain entry.
        state = shendao_position(dark="e3", to_move=1)
        referee = Referee(state.rules, state)
        out = show(referee, shendao_table(played(state, "Na", "W3 tigre")))
        assert accepted(out) == [(1, 1, "Na", "table")]
        question = only(out, "question")
        assert (question.player, question.candidates) == (0, ["W3 loung e3", "W3 tigre"])
        assert "not seen" in question.reason
        out = referee.handle(Answer("W3 loung e3"))
        assert accepted(out) == [(2, 0, "W3 loung e3", "answer")]
        assert referee.status == referee.WATCHING

    def test_an_answer_leaves_the_rest_of_the_table_to_be_explained(self) -> None:
        # The first move is Tigre Blanc or Loung; once the players say which, dark's
        # entry after it is read off the table.
        state = shendao_position(dark="e3")
        after = played(state, "W3 tigre", "Na")
        referee = Referee(state.rules, state)
        out = show(referee, shendao_table(after))
        assert accepted(out) == []
        assert only(out, "question").candidates == ["W3 loung e3", "W3 tigre"]
        out = referee.handle(Answer("W3 tigre"))
        assert [m for _, _, m, _ in accepted(out)] == ["W3 tigre", "Na"]
        assert referee.state == after


class TestSearch:
    def test_the_shortest_sequence_is_preferred(self) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        table = from_camera_above(shangrila_table(played(state, "Y@4", "H@7")))
        gap = Explainer("shangrila").explain_gap(state, table)
        assert [[state.rules.format_move(m) for m in s] for s in gap.sequences] == [["Y@4", "H@7"]]
        assert gap.complete

    def test_a_search_cut_short_by_its_budget_says_so(self) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        table = from_camera_above(shangrila_table(played(state, "Y@4", "H@7")))
        gap = Explainer("shangrila").explain_gap(state, table, budget=5)
        assert (gap.sequences, gap.complete) == ([], False)

    def test_an_unseen_table_or_a_single_move_is_no_gap(self) -> None:
        state = shangrila_position({4: {"A": "red"}})
        explainer = Explainer("shangrila")
        assert explainer.explain_gap(state, explainer.expected(state)).sequences == []
        one = from_camera_above(shangrila_table(played(state, "Y@4")))
        assert explainer.explain_gap(state, one).sequences == []

    def test_moves_changing_what_the_table_shows_as_it_was_are_not_followed(self) -> None:
        # Shendao's first position has 420 moves with the cards; only entries through
        # the two gates the table shows closed are followed, so the search is whole
        # well within its budget.
        rules = ShendaoRules(("light", "dark"))
        state = rules.initial_state()
        table = shendao_table(played(state, "W3", "Na"))
        gap = Explainer("shendao").explain_gap(state, table, budget=8000)
        assert gap.complete
        found = [[rules.format_move(m) for m in s] for s in gap.sequences]
        assert found == [["W3", "Na"], ["Na", "W3"]]

    def test_an_unsure_reading_does_not_rule_a_sequence_out(self) -> None:
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        table = from_camera_above(shangrila_table(played(state, "Y@4", "H@7")))
        gap = Explainer("shangrila").explain_gap(
            state, table.replace({"2A": Reading("violet", 0.5)})
        )
        assert len(gap.sequences) == 1 and gap.corrected == ["2A"]

    def test_a_move_leaving_no_sure_trace_is_not_part_of_a_sequence(self) -> None:
        # red's tile is read, but not surely: only blue's placement shows
        state = shangrila_position({4: {"A": "red"}, 7: {"Y": "blue"}})
        table = from_camera_above(shangrila_table(played(state, "Y@4", "H@7")))
        gap = Explainer("shangrila").explain_gap(state, table.replace({"4Y": Reading("red", 0.5)}))
        assert gap.sequences == []
