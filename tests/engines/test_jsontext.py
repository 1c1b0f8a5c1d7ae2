"""The guarded JSON reader turns every hostile text into one plain error."""

from __future__ import annotations

import pytest

from engines.jsontext import JSONTextError, parse_json, read_json_file


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 100_000, "nested more than"),
        ('{"a": ' + "1" * 5000 + "}", "a number of 5000 characters"),
        (b"\xff\xfe{}", "not UTF-8"),
        ('{"a": NaN}', "NaN is not a number"),
        ("{bad", "line 1, column 2"),
    ],
)
def test_hostile_text_is_one_plain_error(text: str | bytes, words: str) -> None:
    with pytest.raises(JSONTextError, match="the record") as caught:
        parse_json(text, "the record")
    assert words in str(caught.value)


def test_ordinary_documents_read_as_json() -> None:
    assert parse_json('{"a": [1, -2.5e3, "x[{"], "b": null}') == {
        "a": [1, -2500.0, "x[{"],
        "b": None,
    }
    assert parse_json(b'[[[["deep but fine"]]]]') == [[[["deep but fine"]]]]


def test_missing_file_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(JSONTextError, match=r"profile .*missing\.json"):
        read_json_file(tmp_path / "missing.json", "profile")
