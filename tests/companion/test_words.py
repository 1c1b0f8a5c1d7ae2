"""The tie-break said in words, for each game."""

from companion.referee.words import tiebreak_words
from engines import Dice, rules_class


def test_each_game_says_its_tie_break_in_words() -> None:
    players = ["red", "blue", "yellow"]
    assert (
        tiebreak_words("shangrila", [8, 9, 6], players) == "villages held - red 8, blue 9, yellow 6"
    )
    assert (
        tiebreak_words("shendao", "starter-loses", ["light", "dark"])
        == "the largest groups are equal, so light, who began, loses"
    )
    assert (
        tiebreak_words("shendao", None, ["light", "dark"])
        == "not needed (the largest groups differ)"
    )
    assert (
        tiebreak_words("shenshi", None, ["silver", "copper"])
        == "none (equal path tokens share the win)"
    )


def test_the_words_take_what_each_engine_reports_at_the_end() -> None:
    for game in ("shangrila", "shendao", "shenshi"):
        cls = rules_class(game)
        rules = cls.from_record(
            cls.default_players(3 if game == "shangrila" else 2),
            {"orange_lifts": 1} if game == "shenshi" else {},
        )
        state = rules.initial_state()
        dice = Dice(4)
        while not state.is_over():
            state.play(
                state.playout_move(dice)
                if hasattr(state, "playout_move")
                else state.random_move(dice)
            )
        words = tiebreak_words(game, state.tiebreak(), rules.players)
        assert words and "[" not in words and "None" not in words
