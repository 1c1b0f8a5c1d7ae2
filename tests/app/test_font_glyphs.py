"""Every character the app can show exists in the app's font (Kivy's Roboto, regular
and bold for the marked-up words): the app's texts in every language, the referee's
sentences in every language, and the words of the moves of a game of each kind (a
character missing from the font is drawn as an empty box). The report's page is read
in a browser, with its own fonts: its texts (``page.*``) are not checked here."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path

import pytest

from companion.app.i18n import LANGUAGES, Translator, table
from companion.app.wording import move_words
from engines import Dice
from engines.registry import available_games, rules_class

FONTS = ("Roboto-Regular.ttf", "Roboto-Bold.ttf")
"""Kivy's default font, as the labels draw it (bold inside [b] markup)."""


@cache
def _missing_from_font() -> frozenset[str]:
    """Characters that some of ``FONTS`` lacks, among those the app's texts use."""
    ttlib = pytest.importorskip("fontTools.ttLib")
    import kivy

    folder = Path(kivy.__file__).parent / "data" / "fonts"
    maps = [set(ttlib.TTFont(str(folder / name)).getBestCmap()) for name in FONTS]
    return frozenset(
        chr(code) for code in range(0x20, 0x3000) if not all(code in cmap for cmap in maps)
    )


def _lacking(text: str) -> str:
    missing = _missing_from_font()
    return "".join(sorted({c for c in text if c in missing}))


def _strings(data: object) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []


def test_the_font_lacks_the_arrows_this_test_is_for() -> None:
    assert _lacking("d4 → d5") == "→"  # the check can fail
    assert _lacking("Épée, à l'œil — « señal » ¿sí?") == ""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_apps_texts_are_in_its_font(language: str) -> None:
    bad = {
        key: _lacking(text)
        for key, text in table(language).items()
        if not key.startswith("page.") and _lacking(text)
    }
    assert not bad, bad


def test_the_referees_sentences_are_in_the_apps_font() -> None:
    text = resources.files("companion.referee").joinpath("messages.json").read_text("utf-8")
    bad = [s for s in _strings(json.loads(text)) if _lacking(s)]
    assert not bad, bad[:5]


@pytest.mark.parametrize("game", available_games())
def test_the_words_of_a_game_are_in_the_apps_font(game: str) -> None:
    rules = rules_class(game)()
    moves = []
    state, dice = rules.initial_state(), Dice(7)
    while not state.is_over() and len(moves) < 10:
        move = state.random_move(dice)
        moves.append(rules.format_move(move))
        state.play(move)
    said = [
        move_words(Translator(language), rules, "Ann", text)
        for language in LANGUAGES
        for text in moves
    ]
    bad = [s for s in said if _lacking(s)]
    assert not bad, bad[:5]


def test_a_shenshi_walk_is_said_in_words() -> None:
    rules = rules_class("shenshi")()
    said = {
        language: move_words(Translator(language), rules, "Ann", "Ge4-e6") for language in LANGUAGES
    }
    assert said["en"] == "Ann: the Grand Master walks from e4 by e5 to e6.", said
    assert not any(_lacking(text) for text in said.values())


def test_a_placement_names_the_space_as_the_referee_does() -> None:
    rules = rules_class("shangrila")()
    said = move_words(Translator("en"), rules, "Blue", "A@12")
    assert said == "Blue places a master on the Astrologer space of village 12.", said
