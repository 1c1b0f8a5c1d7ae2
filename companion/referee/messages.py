"""The referee's sentences for players, in English, French or Spanish: who did what,
then the rule, then the steps that put the table right.

Every sentence is a template with named fields in ``messages.json`` (beside this
module), one text per language. The engines and the referee's core speak English; a
sentence of theirs that matches a template's English (its ``match`` when given) is
said again in the language asked for, its fields carried over (game words among them,
such as colours and disciplines, translated through the catalogue's ``terms``). A
sentence no template knows is given as it is, so nothing is ever lost.

These are pure functions of an output and the players' names: the console
(``words.say``), the app, the demo's report and the docs all word a verdict the same.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = ("en", "fr", "es")
STEPS_SHOWN = 3
"""Steps shown under a headline; the rest are counted ("+2 more")."""
WRONG_PLAYER = "turn.wrong-player"

Who = Callable[[int], str]
"""The name shown for a seat."""

_FIELD_PATTERNS = {
    **dict.fromkeys(
        (
            "village",
            "origin",
            "destination",
            "a",
            "b",
            "count",
            "number",
            "limit",
            "players",
            "wanted",
        ),
        r"\d+",
    ),
    **dict.fromkeys(("square", "start", "end"), r"[a-z]\d{1,2}"),
    **dict.fromkeys(
        (
            "colour",
            "seen",
            "cushion",
            "side",
            "metal",
            "owner",
            "player",
            "actor",
            "again",
            "discipline",
            "space",
        ),
        r"[A-Za-z-]+",
    ),
    **dict.fromkeys(("gate", "gate2"), r"\S+"),
}
"""What a field of the engines' English may hold (any text for the others)."""


@cache
def catalogue() -> dict[str, Any]:
    """``messages.json``: its ``messages`` (key -> language -> template) and ``terms``."""
    text = resources.files("companion.referee").joinpath("messages.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def fields(template: str) -> set[str]:
    """The names of a template's fields (``{colour:cap}`` -> ``colour``)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@dataclass(frozen=True)
class _Word:
    """A field's value as it is said: ``{name:cap}`` starts it with a capital."""

    text: str

    def __format__(self, spec: str) -> str:
        return self.text[:1].upper() + self.text[1:] if spec == "cap" else self.text


def render(key: str, language: str = "en", **values: Any) -> str:
    """The template ``key`` in ``language``, its fields filled with ``values`` (said
    as they are). Raises ``KeyError`` for an unknown key, ``ValueError`` for an
    unknown language."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    template = catalogue()["messages"][key][language]
    said = str(template.format(**{k: _Word(str(v)) for k, v in values.items()}))
    if language == "fr":  # "le maître d'Argent", not "de Argent"
        said = re.sub(r"\b([dD]e|[qQ]ue) (?=[AEIOUÉ])", lambda m: m.group(1)[:-1] + "'", said)
    return said


def term(word: str, language: str) -> str:
    """A game word (a colour, a discipline, a side) in ``language``, keeping a
    capital it starts with; the word as it is when the catalogue has none."""
    entry = catalogue()["terms"].get(word.lower())
    if entry is None:
        return word
    said = str(entry[language])
    return said[:1].upper() + said[1:] if word[:1].isupper() else said


@cache
def _patterns(prefix: str) -> list[tuple[str, re.Pattern[str]]]:
    """The English of each template whose key starts with ``prefix``, as a regular
    expression, most specific first."""
    found = []
    for key, entry in catalogue()["messages"].items():
        if not key.startswith(prefix):
            continue
        english = entry.get("match", entry["en"])
        pattern, last = [], 0
        for match in re.finditer(r"\{(\w+)(?::\w+)?\}", english):
            pattern.append(re.escape(english[last : match.start()]))
            name = match.group(1)
            pattern.append(f"(?P<{name}>{_FIELD_PATTERNS.get(name, '.+?')})")
            last = match.end()
        pattern.append(re.escape(english[last:]))
        literal = len(re.sub(r"\{[^}]*\}", "", english))
        found.append((literal, key, re.compile("".join(pattern) + "$")))
    found.sort(key=lambda item: -item[0])
    return [(key, compiled) for _, key, compiled in found]


def parse(sentence: str, prefix: str) -> tuple[str, dict[str, str]] | None:
    """The template (among those whose key starts with ``prefix``) that wrote
    ``sentence`` in English, and its fields; None when none did."""
    for key, pattern in _patterns(prefix):
        match = pattern.match(sentence)
        if match:
            return key, match.groupdict()
    return None


def translate(sentence: str, prefix: str, language: str) -> str:
    """``sentence`` (the engines' or the core's English) in ``language``: through the
    template that wrote it, else as it is."""
    found = parse(sentence, prefix)
    if found is None:
        return sentence
    key, values = found
    return render(key, language, **{k: _field(k, v, language) for k, v in values.items()})


def _field(name: str, value: str, language: str) -> str:
    if name in ("monk", "other"):
        return _phrase(value, "monk.", language)
    if name in ("holds", "what"):  # what a square holds: "an orange cushion with ... on it"
        return _phrase(value, "holds.", language)
    return term(value, language)


def _phrase(value: str, prefix: str, language: str) -> str:
    """A phrase of the engines' (a monk, what a square holds) in ``language``, also
    when it starts a sentence with a capital ("The neutral master")."""
    if parse(value, prefix) is None and value[:1].isupper():
        said = translate(value[:1].lower() + value[1:], prefix, language)
        return said[:1].upper() + said[1:]
    return translate(value, prefix, language)


# ----------------------------------------------------------------------------- verdicts


def seat_of(colour: str, colours: Sequence[str]) -> int | None:
    """The seat playing ``colour`` (any case), or None."""
    lowered = [c.lower() for c in colours]
    return lowered.index(colour.lower()) if colour.lower() in lowered else None


def illegal_headline(
    player: int,
    attempt: str,
    rule: str,
    message: str,
    who: Who,
    colours: Sequence[str],
    language: str = "en",
) -> str:
    """Who did what: "Violet placed a tile on the Astrologer space of village 7 out of
    turn — it is Red's turn", "Illegal move: Red put a tile on e3" (``player``: the
    player to move; ``attempt``, ``rule``, ``message``: as ``IllegalMove`` holds
    them)."""
    did = translate(attempt, "attempt.", language) if attempt else ""
    if did == attempt and parse(attempt, "attempt.") is None:
        did = ""
    if rule == WRONG_PLAYER:
        found = parse(message, "rule.wrong_player")
        actor = seat_of(found[1]["actor"], colours) if found else None
        if actor is not None and did:
            return render(
                "illegal.out_of_turn", language, actor=who(actor), did=did, player=who(player)
            )
    if did:
        return render("illegal.headline", language, who=who(player), did=did)
    return render("illegal.by", language, who=who(player))


def reason(rule: str, message: str, language: str = "en") -> str:
    """The rule's sentence, then its id in brackets (a player looks the rule up by it
    in any language)."""
    return f"{translate(message, 'rule.', language)} [{rule}]"


def steps(fix: Sequence[str], language: str = "en", shown: int | None = STEPS_SHOWN) -> list[str]:
    """The steps that put the table right, at most ``shown`` of them then "+N more"
    (all with ``shown`` None)."""
    said = [translate(step, "fix.", language) for step in fix]
    if not said:
        return [render("illegal.nothing_to_move", language)]
    if shown is None or len(said) <= shown:
        return said
    return [*said[:shown], render("illegal.more_steps", language, count=len(said) - shown)]


def question(text: str, language: str = "en") -> str:
    """The referee's reason for asking, in ``language``."""
    return translate(text, "question.", language)


def tiebreak(game: str, value: Any, who: Who, players: int, language: str = "en") -> str:
    """What breaks a tie in ``game``, with this end of game's figures (``value``: what
    the game state's ``tiebreak()`` gives)."""
    if game == "shangrila" and isinstance(value, list):
        held = ", ".join(f"{who(p)} {n}" for p, n in zip(range(players), value, strict=True))
        return render("tiebreak.shangrila", language, detail=held)
    if game == "shendao":
        if value is None:
            return render("tiebreak.shendao_unneeded", language)
        return render("tiebreak.shendao", language, starter=who(0))
    return render("tiebreak.shenshi", language)


def result(
    game: str,
    scores: Sequence[int],
    winners: Sequence[int],
    value: Any,
    who: Who,
    language: str = "en",
) -> str:
    """The result in a sentence, the tie-break spelled out when it decided."""
    best = max(scores) if scores else 0
    leaders = [p for p, s in enumerate(scores) if s == best]
    names = _and([who(p) for p in winners], language)
    if len(leaders) == 1:
        return render("result.wins", language, names=names, score=best)
    rule = tiebreak(game, value, who, len(scores), language)
    if len(winners) == 1:
        return render(
            "result.tiebreak",
            language,
            tied=_and([who(p) for p in leaders], language),
            score=best,
            names=names,
            rule=rule,
        )
    return render("result.shared", language, names=names, score=best, rule=rule)


def _and(names: Sequence[str], language: str) -> str:
    if len(names) <= 1:
        return "".join(names)
    return render("result.and", language, first=", ".join(names[:-1]), second=names[-1])
