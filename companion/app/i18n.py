"""Every string the app shows, in English, French or Spanish.

The tables are ``locale/<language>.json``: key -> text, with ``{name}`` fields filled
by ``Translator.text``. English is complete by construction (a test checks that every
key exists in every language); a key missing from a table falls back to English rather
than showing nothing, and a key missing from English raises ``KeyError``, because that
is a programming error.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = ("en", "fr", "es")
DEFAULT_LANGUAGE = "en"


def system_language(environ: dict[str, str] | None = None) -> str:
    """The language the system asks for (``LC_ALL``, ``LC_MESSAGES``, then ``LANG``,
    as in ``fr_FR.UTF-8``) when the app has it, else English."""
    environ = dict(os.environ) if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            code = value.split("_")[0].split(".")[0].lower()
            return code if code in LANGUAGES else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


@cache
def table(language: str) -> dict[str, str]:
    """The string table of ``language``. Raises ``ValueError`` for an unknown one."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    text = resources.files("companion.app.locale").joinpath(f"{language}.json").read_text("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"locale/{language}.json must be an object of strings")
    return {str(k): str(v) for k, v in data.items()}


class Translator:
    """The current language and its lookups (the Kivy app redraws its labels when it
    switches: they are bound to its ``lang`` property)."""

    def __init__(self, language: str = DEFAULT_LANGUAGE) -> None:
        self.language = DEFAULT_LANGUAGE
        self.set_language(language)

    def set_language(self, language: str) -> None:
        """Switch; raises ``ValueError`` for a language without a table."""
        table(language)
        self.language = language

    def text(self, key: str, **fields: Any) -> str:
        """The text of ``key`` in the current language, its fields filled in."""
        template = table(self.language).get(key)
        if template is None:
            template = table(DEFAULT_LANGUAGE)[key]
        return template.format(**fields) if fields else template

    def has(self, key: str) -> bool:
        return key in table(DEFAULT_LANGUAGE)

    def name(self, kind: str, value: object) -> str:
        """A game word (``colour.red``, ``option.variant``, ...) in the current language;
        the value itself when the table has no entry for it (a player's own name)."""
        key = f"{kind}.{value}"
        return self.text(key) if self.has(key) else str(value)
