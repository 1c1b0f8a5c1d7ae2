"""One guarded reader for every JSON text a user hands in.

``json.loads`` alone lets three kinds of hostile text escape as something other than
a plain "this is not valid JSON": a deeply nested document (``RecursionError``), an
integer of thousands of digits (``ValueError`` from the integer-size limit, or a slow
conversion), and bytes that are not UTF-8. ``parse_json`` turns each into
``JSONTextError``, a ``ValueError`` whose message names the source and, where it can,
the line, so a caller shows it unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted; no document of ours needs 20."""

MAX_NUMBER_DIGITS = 64
"""Longest number accepted, in characters; no value of ours needs more than 20."""

MAX_TEXT_BYTES = 64 * 1024 * 1024
"""Largest JSON file read whole (a journal line or a profile is far smaller)."""


class JSONTextError(ValueError):
    """A JSON text that cannot be read: not UTF-8, not JSON, too deep or too large."""


def _number(kind: Callable[[str], int | float]) -> Callable[[str], int | float]:
    def convert(text: str) -> int | float:
        if len(text) > MAX_NUMBER_DIGITS:
            raise JSONTextError(
                f"a number of {len(text)} characters (at most {MAX_NUMBER_DIGITS} are accepted)"
            )
        return kind(text)

    return convert


def _reject_constant(name: str) -> float:
    raise JSONTextError(f"{name} is not a number JSON allows")


def _depth(text: str) -> int:
    """Deepest nesting of brackets outside strings, found without recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def parse_json(text: str | bytes, source: str = "the text") -> Any:
    """Parse ``text`` (a ``str``, or UTF-8 ``bytes``) as one JSON value.

    Raises ``JSONTextError`` for bytes that are not UTF-8, text that is not JSON,
    nesting deeper than ``MAX_DEPTH``, numbers longer than ``MAX_NUMBER_DIGITS``
    characters, and ``NaN`` or ``Infinity``.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JSONTextError(f"{source} is not UTF-8 text (byte {error.start})") from None
    if _depth(text) > MAX_DEPTH:
        raise JSONTextError(f"{source} is nested more than {MAX_DEPTH} levels deep")
    try:
        return json.loads(
            text,
            parse_int=_number(int),
            parse_float=_number(float),
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as error:
        raise JSONTextError(
            f"{source} is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except JSONTextError as error:
        raise JSONTextError(f"{source}: {error}") from None
    except (RecursionError, ValueError) as error:
        raise JSONTextError(f"{source} cannot be read as JSON: {error}") from None


def read_json_file(path: str | Path, what: str = "file") -> Any:
    """Read and parse a JSON file. Raises ``JSONTextError``, also for unreadable files."""
    source = f"{what} {path}"
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_TEXT_BYTES + 1)
    except OSError as error:
        raise JSONTextError(f"cannot read {source}: {error.strerror or error}") from None
    if len(data) > MAX_TEXT_BYTES:
        raise JSONTextError(f"{source} is larger than {MAX_TEXT_BYTES // (1024 * 1024)} MB")
    return parse_json(data, source)
