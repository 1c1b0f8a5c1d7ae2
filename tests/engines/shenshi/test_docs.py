"""docs/shenshi.md lists exactly the rule ids the engine gives."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[3]


def test_every_rule_id_is_documented_and_every_documented_id_exists() -> None:
    source = "".join(
        (ROOT / "engines" / "shenshi" / name).read_text(encoding="utf-8")
        for name in ("validate.py", "plan.py")
    )
    rule_id = r"((?:game|turn|monk|neutral|pass|expert|walk|hover|enter|swap|give)\.[a-z-]+)"
    raised = set(re.findall(f'"{rule_id}"', source))
    docs = (ROOT / "docs" / "shenshi.md").read_text(encoding="utf-8")
    table_rows = [line for line in docs.splitlines() if line.startswith("| `")]
    documented = {found for row in table_rows for found in re.findall(f"`{rule_id}`", row)}
    assert raised == documented
