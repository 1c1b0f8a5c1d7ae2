"""The Shendao docs agree with the engine: examples replay, every rule id is listed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engines import GameRecord, replay
from engines.shendao import ShendaoRules, state

DOCS = Path(__file__).resolve().parents[3] / "docs"


def _shendao_section() -> str:
    text = (DOCS / "notation.md").read_text("utf-8")
    start = text.index("<!-- section: shendao -->")
    return text[start : text.index("<!-- end: shendao -->", start)]


def test_the_notation_examples_are_valid() -> None:
    blocks = re.findall(r"```json\n(.*?)```", _shendao_section(), re.S)
    record, position = (json.loads(block) for block in blocks)
    result = replay(GameRecord.from_json(record))
    assert result.error is None and result.played == len(record["moves"])
    assert ShendaoRules().state_from_json(position).to_json() == position


def test_every_rule_id_is_explained_for_players() -> None:
    source = Path(state.__file__).read_text("utf-8")
    raised = set(re.findall(r'IllegalMoveError\(\s*"([a-z.-]+)"', source))
    page = (DOCS / "shendao.md").read_text("utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+\.[a-z.-]+)` \|", page, re.M))
    assert raised == listed
    assert len(raised) == 12
