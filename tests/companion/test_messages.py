"""The referee's sentences: every template in English, French and Spanish with the
same fields; the engines' sentences are all known to the catalogue, so they are said
in each language; who did what comes before the rule."""

from __future__ import annotations

import re
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
    assert (
        messages.translate(sentence, "fix.", "fr")
        == "Retirez la tuile de Violet de la case Ami des yetis du village 4."
    )
    assert (
        messages.translate(sentence, "fix.", "es")
        == "Quite la ficha de Violeta de la casilla Susurrador de Yetis de la aldea 4."
    )
    unknown = "A sentence nobody wrote a template for."
    assert messages.translate(unknown, "fix.", "fr") == unknown


def test_who_did_what_comes_before_the_rule() -> None:
    colours = ["red", "blue", "yellow", "violet"]
    flag = IllegalMove(
        0,
        "placing a violet Astrologer master in village 7",
        "turn.wrong-player",
        "It is Red's turn, not Violet's.",
        [f"Put a stone on village {v}." for v in range(5)],
        {},
    )
    text = say(flag, colours, "shangrila").splitlines()
    assert text[0] == (
        "Violet placed a tile on the Astrologer space of village 7 out of turn — it is Red's turn."
    )
    assert text[1].strip() == "It is Red's turn, not Violet's. [turn.wrong-player]"
    assert len(text) == 3 + 5  # the console lists every step
    shown = messages.steps(flag.fix, "fr")
    assert shown[:3] == [
        "Posez une pierre sur le village 0.",
        "Posez une pierre sur le village 1.",
        "Posez une pierre sur le village 2.",
    ]
    assert shown[3] == "+2 de plus"
    who = lambda p: colours[p].capitalize()  # noqa: E731
    assert messages.illegal_headline(
        0, flag.attempt, flag.rule, flag.message, who, colours, "es"
    ).startswith("Violet puso una ficha")


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
        simulator = TableSimulator(
            rules, moves[len(moves[:-30]) :], TableConfig(illegal=0.6), seed, start
        )
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


def _tries(game: str, rules: Any, state: Any) -> list[str]:
    """Moves worth trying here: every placement, journey and one-student recruit of
    Shangri-La; every gate of Shendao, plain and with each card (Loung and the Main de
    Nugua on a few squares); every walk, hover and swap of ShenShi from where each monk
    the player may move stands, and entries from the reserve and the board."""
    if game == "shangrila":
        return (
            [f"{d}@{v}" for d in "RPYADHF" for v in range(13)]
            + [f"{a}>{b}" for a in range(13) for b in range(13) if a != b]
            + [f"+{d}{v}" for d in "RPYADHF" for v in range(13)]
            + ["-"]
        )
    if game == "shendao":
        from engines.shendao.board import GATES
        from engines.shendao.moves import CARD_NAMES

        targets = ("a1", "c3", "d4", "d5", "e2", "f6", "h8")
        return [
            *GATES,
            "pass",
            *(f"{g} {card}" for g in GATES for card in CARD_NAMES),
            *(f"{g} {card} {t}" for g in GATES for card in ("loung", "nugua") for t in targets),
        ]
    from engines.shenshi.board import SIZE, square_name

    squares = [square_name(s) for s in range(SIZE * SIZE)]
    tried = ["pass", "give a1", "give d4"]
    for code, letter in enumerate(("G", "M", "NG", "NM")):
        monk = rules.monk_id(state.turn, code)
        here = state.pos[monk] if monk >= 0 else -1
        if here < 0:
            tried += [f"{letter}@{s}:{c}" for s in squares[::4] for c in ("b", "o", "c3", "d4")]
            tried.append(f"{letter}a1-a2")
            continue
        row, column = divmod(here, SIZE)
        near = [
            s for s in range(SIZE * SIZE) if abs(s // SIZE - row) + abs(s % SIZE - column) in (1, 2)
        ]
        start = squares[here]
        tried += [f"{letter}{start}~{s}" for s in squares]
        tried += [f"{letter}{start}={s}" for s in squares]
        tried += [f"{letter}{start}-{squares[s]}" for s in near]
        tried += [
            f"{letter}{start}-{squares[s]}-{squares[t]}"
            for s in near
            for t in near
            if abs(s // SIZE - t // SIZE) + abs(s % SIZE - t % SIZE) == 1
        ]
        tried += [f"{letter}{start}~{s} {letter}{start}~{s}" for s in squares[::6]]
        tried += [
            f"{letter}@{start}:b",
            f"{letter}{start}-{squares[near[0]]}-{start}",
            f"{letter}{start}-{squares[near[0]]}-{squares[near[1]]}-{start}",
        ]
    if state.is_over():
        return tried
    return tried + [_twice(text) for text in _turns(rules, state)] + _turns(rules, state, 4)


def _turns(rules: Any, state: Any, repeat: int = 1) -> list[str]:
    """A few legal turns here, their actions said ``repeat`` times."""
    from engines import Dice

    return [
        " ".join([rules.format_move(state.random_move(Dice(seed)))] * repeat) for seed in range(4)
    ]


def _twice(turn: str) -> str:
    """``turn`` with each monk sent back where its action started: a second walk, hover
    or swap of the same monk, after the other monk's actions."""
    back = []
    for action in turn.split():
        plain = re.sub(r"\(.*\)", "", action)
        for mark in "-~=":
            if mark in plain and "@" not in plain:
                letter = re.match(r"[A-Z]+", plain)
                squares = plain[letter.end() :].split(mark) if letter else []
                if letter and len(squares) >= 2:
                    back.append(letter.group() + mark.join(reversed(squares)))
    return " ".join([turn, *back])


_SETUPS = {
    "shangrila": [(4, {})],
    "shendao": [
        (2, {}),
        (2, {"variant": "chaton", "card_without_effect": "refused"}),
        (2, {"variant": "tigre", "card_without_effect": "refused"}),
    ],
    "shenshi": [(2, {}), (3, {}), (4, {}), (2, {"variant": "expert"})],
}
"""The games' setups whose illegal moves are tried: the rarer rules (cards left out of
a variant, a card refused where it changes nothing, neutral monks, the expert variant)
are only broken in some."""


# ShenShi's setups take long to try; its rarer sentences are checked below in any case.
@pytest.mark.parametrize(
    "game", ["shangrila", "shendao", pytest.param("shenshi", marks=pytest.mark.slow)]
)
def test_the_rules_sentences_are_known_in_french_and_spanish(game: str) -> None:
    """Along a random game of each setup, every illegal move tried is refused with a
    sentence the catalogue knows, so it is said in French and Spanish too; so is what
    a ShenShi sentence says a square holds and which monk it names."""
    from engines import Dice
    from engines.errors import EngineError, IllegalMoveError

    cls = rules_class(game)
    refused: dict[str, str] = {}
    for players, options in _SETUPS[game]:
        rules = cls.from_record(cls.default_players(players), options)
        state, dice = rules.initial_state(), Dice(1)
        turn, every, last = 0, *((8, 48) if game == "shenshi" else (6, 400))
        while not state.is_over() and turn < last:
            if turn % every == 0:
                for text in _tries(game, rules, state):
                    try:
                        state.check(rules.parse_move(text))
                    except IllegalMoveError as error:
                        refused.setdefault(error.message, error.rule)
                    except EngineError:
                        pass
            state.play(state.random_move(dice))
            turn += 1
        if state.is_over():
            for text in _tries(game, rules, state)[:3]:
                try:
                    state.check(rules.parse_move(text))
                except IllegalMoveError as error:
                    refused.setdefault(error.message, error.rule)
                except EngineError:
                    pass
    assert len(set(refused.values())) >= {"shangrila": 4, "shendao": 8, "shenshi": 30}[game]
    unknown = {
        rule: text for text, rule in refused.items() if messages.parse(text, "rule.") is None
    }
    assert not unknown
    for text in refused:
        for language in ("fr", "es"):
            said = messages.translate(text, "rule.", language)
            assert said != text
            for english in ("Grand Master", " holds ", "cushion", "faded", " on it"):
                assert english not in said, (language, said)


def test_a_shenshi_sentence_names_monks_and_what_squares_hold_in_each_language() -> None:
    sentence = (
        "Gg3=a7: a7 holds a blond cushion with the neutral master on it, not "
        "silver's master; a swap exchanges the two monks of one colour."
    )
    assert messages.translate(sentence, "rule.", "fr") == (
        "Gg3=a7 : a7 : un coussin blond avec le maître neutre dessus, pas le maître "
        "d'Argent ; une permutation échange les deux moines d'une même couleur."
    )
    back = (
        "The neutral master came from g3 on copper's turn: Silver may not move it back "
        "there this turn."
    )
    assert messages.translate(back, "rule.", "es") == (
        "El maestro neutral vino de g3 en el turno de Cobre: Plata no puede devolverlo allí "
        "este turno."
    )


_RARER = [
    "The game is over (silver holds 8 path tokens): no move can be played.",
    "The game is over (every player passed in turn): no move can be played.",
    ("The game is over (12 rounds went by without a monk removed): no move can be played."),
    (
        "Silver has no cushion to choose now: in the expert variant the opponent chooses "
        "a free cushion only when a player who must enter a monk has none left in "
        "reserve."
    ),
    (
        "e5 holds an orange cushion with copper's master on it: choose a cushion with no "
        "monk on it for silver's entry."
    ),
    (
        "NG@d4:b: the neutral monks never leave the board, so they never enter; only a "
        "player's own Grand Master (G) or master (M) enters."
    ),
    ("Silver's Grand Master is already on the board, on d4: only a monk off the board enters."),
    (
        "Silver's Grand Master's last hover would leave from the cushion of its first "
        "hover: in hover, walk, hover the walk must end on another cushion."
    ),
    (
        "Silver reached 8 path tokens with action 2 and won at once: the actions after it"
        " cannot be played. End the turn there."
    ),
    "A turn has at most three actions: leave out the fourth and those after it.",
    (
        "Silver has already entered a monk this turn: one monk enters per turn; silver's "
        "master enters on Silver's next turn."
    ),
    (
        "The neutral master has finished acting this turn: all the actions of one monk "
        "come before those of the next. Play them together."
    ),
    (
        "Silver has already used a Grand Master this turn: a turn uses one Grand Master "
        "and one master, so the neutral Grand Master cannot act too."
    ),
    (
        "Silver has already used a master this turn: a turn uses one Grand Master and one"
        " master, so silver's master cannot act too."
    ),
    (
        "Silver's master has already walked this turn (entering and swapping count as its"
        " walk): a monk walks at most once a turn."
    ),
    (
        "Silver's master has already hovered this turn: a monk hovers at most once a turn"
        " (in the expert variant, twice only as hover, walk, hover)."
    ),
    (
        "Silver's master cannot hover again here: one monk's three actions go hover, "
        "walk, hover, and a monk otherwise walks once and hovers once."
    ),
    (
        "Silver's turn has no action: a turn has one to three actions (a player with no "
        "possible turn passes)."
    ),
    (
        "Gc3-c4-c5: with the option walk = straight, a two-square walk goes straight on; "
        "it cannot turn or come back."
    ),
    (
        "Gc3-c4-c3: silver's Grand Master would end where it started without removing a "
        "monk; a walk back to its own square is allowed only after removing a monk on the"
        " way."
    ),
    (
        "Gc3-c4: silver's Grand Master cannot walk along this path; a walk is one or two "
        "orthogonal steps over cushions and faded mandalas."
    ),
    (
        "Gc3~c5(c4>a1): silver's Grand Master sits on a blond cushion; only an orange "
        "cushion lifts blond cushions on its way."
    ),
    ("Gc3~c7(c4>a1,c5>a2): one hover lifts at most 1 blond cushion (option orange_lifts)."),
    ("Gc3~c7(c4>a1,c5>a2,c6>a3): one hover lifts at most 2 blond cushions (option orange_lifts)."),
    (
        "Gc3~c5(c4>a1): c4 holds a faded mandala in line with c3; an orange cushion lifts"
        " only a free blond cushion on its row or column."
    ),
    (
        "Gc3~c5(c4>a1): the lifted cushion cannot go on a1, which holds an intact "
        "mandala; put it on an empty square."
    ),
    (
        "Gc3~c5(c4>c5): as it lifts the cushion of c4, the orange cushion still stands on"
        " c5, so the lifted cushion cannot go there; put it down on another empty square "
        "(option lift_put_down)."
    ),
    (
        "Gc3~c5(c4>a1): with those lifts the orange cushion cannot reach c5. It lifts "
        "only the free blond cushions it meets, in the order it meets them, going one way"
        " along its row or column, and a cushion put down in its way stops it."
    ),
    (
        "Gc3~c5: c4 (a blond cushion) is in the way; a hover passes only empty squares "
        "and stops before the first obstacle (an orange cushion may lift a free blond "
        "cushion)."
    ),
    (
        "Gc3=c5: these monks cannot swap; two monks of one colour swap along a row or "
        "column of walkable squares with no monk between."
    ),
    (
        "G@c3:b: Silver cannot enter this way; a monk enters on an empty square with a "
        "cushion from the reserve, or from the board when the reserve is empty."
    ),
    ("G@c3:e5: copper chose the cushion on b2 for this entry; Silver enters on that one."),
    (
        "G@c3:o: Silver has no orange cushion left in reserve; with none left in reserve,"
        " take a free cushion of the board (like G@d4:e5)."
    ),
    (
        "Gc3=c5: c4 between them holds copper's master; no monk may stand between two "
        "monks that swap."
    ),
    (
        "Gc3-c4: c4 holds the neutral master, and neutral monks can never be removed, "
        "passed or stood on."
    ),
    (
        "Light has only one tile left: the Prêtresse de Sichuan needs a second one to "
        "replace the tile it takes. Play another card or none."
    ),
    "Light has no tile left to enter and must pass.",
    "The game is over: neither player can enter a tile.",
    (
        "c3 is not on the line behind gate N2 (b1-b8): Loung removes a tile on the line "
        "the tile entered by. The line behind gate N2 holds no tile: play Loung "
        "elsewhere."
    ),
    (
        "There is no tile on c3 for Loung to remove. The line behind gate N2 holds no "
        "tile: play Loung elsewhere."
    ),
]
"""Sentences the engines write (their wording copied here) in positions a short random
game rarely reaches: the end of a game, lifts, the expert variant, a turn's limits."""


@pytest.mark.parametrize("sentence", _RARER)
def test_the_rarer_rules_sentences_are_known_too(sentence: str) -> None:
    assert messages.parse(sentence, "rule.") is not None
    for language in ("fr", "es"):
        said = messages.translate(sentence, "rule.", language)
        assert said != sentence
        for english in ("Grand Master", " holds ", "cushion", "faded", " on it"):
            assert english not in said, (language, said)
