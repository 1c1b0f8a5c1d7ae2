"""The referee's sentences: every template in English, French and Spanish with the
same fields; the engines' sentences are all known to the catalogue, so they are said
in each language; who did what comes before the rule."""

from __future__ import annotations

from typing import Any

import pytest

from companion.referee import messages
from companion.referee.core import Referee
from companion.referee.events import IllegalMove
from companion.referee.words import say
from companion.simulator import TableConfig, TableSimulator, random_game
from companion.simulator.scoring import RefereedGame
from engines.registry import rules_class


def test_every_template_has_three_languages_with_the_same_fields() -> None:
    catalogue = messages.catalogue()
    for key, entry in catalogue["messages"].items():
        assert set(entry) - {"match"} == set(messages.LANGUAGES), key
        wanted = messages.fields(entry["en"])
        for language in messages.LANGUAGES:
            assert messages.fields(entry[language]) == wanted, (key, language)
        if "match" in entry:  # what is shown comes from what the engines wrote
            assert wanted - {"who"} <= messages.fields(entry["match"]), key
    for word, entry in catalogue["terms"].items():
        assert set(entry) == set(messages.LANGUAGES) and all(entry.values()), word


def test_a_sentence_is_said_in_each_language_with_its_fields() -> None:
    sentence = "Take the violet tile off the Yeti-whisperer space of village 4."
    assert messages.translate(sentence, "fix.", "en") == sentence
    assert messages.translate(sentence, "fix.", "fr") == \
        "Retirez la tuile de Violet de la case Ami des yetis du village 4."
    assert messages.translate(sentence, "fix.", "es") == \
        "Quite la ficha de Violeta de la casilla Susurrador de Yetis de la aldea 4."
    unknown = "A sentence nobody wrote a template for."
    assert messages.translate(unknown, "fix.", "fr") == unknown


def test_who_did_what_comes_before_the_rule() -> None:
    colours = ["red", "blue", "yellow", "violet"]
    flag = IllegalMove(0, "placing a violet Astrologer master in village 7",
                       "turn.wrong-player", "It is Red's turn, not Violet's.",
                       [f"Put a stone on village {v}." for v in range(5)], {})
    text = say(flag, colours, "shangrila").splitlines()
    assert text[0] == ("Violet placed a tile on the Astrologer space of village 7 out of "
                       "turn — it is Red's turn.")
    assert text[1].strip() == "It is Red's turn, not Violet's. [turn.wrong-player]"
    assert len(text) == 3 + 5  # the console lists every step
    shown = messages.steps(flag.fix, "fr")
    assert shown[:3] == ["Posez une pierre sur le village 0.",
                         "Posez une pierre sur le village 1.",
                         "Posez une pierre sur le village 2."]
    assert shown[3] == "+2 de plus"
    who = lambda p: colours[p].capitalize()  # noqa: E731
    assert messages.illegal_headline(0, flag.attempt, flag.rule, flag.message, who, colours,
                                     "es").startswith("Violet puso una ficha")


class _Heard(Referee):
    """A referee keeping every illegal-move flag it raises."""

    flags: list[IllegalMove]

    def handle(self, event: Any) -> list[Any]:
        outputs = super().handle(event)
        self.flags += [o for o in outputs if isinstance(o, IllegalMove)]
        return outputs


@pytest.mark.parametrize("game", ["shangrila", "shendao", "shenshi"])
def test_the_engines_sentences_are_all_in_the_catalogue(game: str) -> None:
    """The ends of simulated games with many illegal attempts: every step to put the
    table right and every attempt the referee names is a known template."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(4 if game == "shangrila" else 2), {})
    flags: list[IllegalMove] = []
    for seed in range(3):
        moves = random_game(rules, seed)
        start = rules.initial_state()
        for move in moves[:-30]:
            start.apply(move)
        simulator = TableSimulator(rules, moves[len(moves[:-30]):], TableConfig(illegal=0.6),
                                   seed, start)
        referee = _Heard(rules, start)
        referee.flags = flags
        refereed = RefereedGame(simulator, referee, lambda: 0.0)
        for step in simulator:
            refereed.step(step.event, step.truth)
    assert len(flags) >= 10
    for flag in flags:
        for step in flag.fix:
            assert messages.parse(step, "fix.") is not None, step
        if flag.attempt:
            assert messages.parse(flag.attempt, "attempt.") is not None, flag.attempt


def test_the_app_names_the_disciplines_as_the_referee_does() -> None:
    """The board's legend and the referee's sentences use the rule books' names."""
    from companion.app.i18n import table
    from engines.shangrila.moves import NAMES

    for language in messages.LANGUAGES:
        for index, name in enumerate(NAMES):
            assert table(language)[f"discipline.{index}"] == messages.term(name, language)


def _tries(game: str, rules: Any) -> list[str]:
    """Moves worth trying anywhere: every placement, journey and one-student recruit
    of Shangri-La; every gate of Shendao, plain and with each card."""
    if game == "shangrila":
        return ([f"{d}@{v}" for d in "RPYADHF" for v in range(13)]
                + [f"{a}>{b}" for a in range(13) for b in range(13) if a != b]
                + [f"+{d}{v}" for d in "RPYADHF" for v in range(13)] + ["-"])
    from engines.shendao.board import GATES
    from engines.shendao.moves import CARD_NAMES

    return [*GATES, "pass", *(f"{g} {card}" for g in GATES for card in CARD_NAMES)]


@pytest.mark.parametrize("game", ["shangrila", "shendao"])
def test_the_rules_sentences_of_the_two_french_and_spanish_rule_books_are_known(
        game: str) -> None:
    """Along a random game, every illegal move tried is refused with a sentence the
    catalogue knows, so it is said in French and Spanish too."""
    from engines import Dice
    from engines.errors import EngineError, IllegalMoveError

    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(4 if game == "shangrila" else 2), {})
    state, dice = rules.initial_state(), Dice(1)
    refused: dict[str, str] = {}
    turn = 0
    while not state.is_over():
        if turn % 6 == 0:
            for text in _tries(game, rules):
                try:
                    state.check(rules.parse_move(text))
                except IllegalMoveError as error:
                    refused.setdefault(error.message, error.rule)
                except EngineError:
                    pass
        state.play(state.random_move(dice))
        turn += 1
    assert len(set(refused.values())) >= 4
    unknown = {rule: text for text, rule in refused.items()
               if messages.parse(text, "rule.") is None}
    assert not unknown
