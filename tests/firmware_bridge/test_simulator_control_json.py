"""The simulator's control stream reads its observations through the guarded JSON
reader: a line nested too deep or holding a huge number is reported and skipped, and
the simulator goes on (a deep line killed it with a RecursionError)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_hostile_observation_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    lines = [
        "{" + '"a": {' * 5_000 + "1" + "}" * 5_001,
        '{"readings": {"4H": ' + "9" * 5_000 + "}}",
        '{"readings": {"4H": NaN}}',
        "quit",
    ]
    control = tmp_path / "control.txt"
    control.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "firmware_bridge.simulator",
            "--exit-at-end",
            "--table",
            str(control),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("simulator:")]
    assert len(errors) == 3, result.stderr
    assert "nested more than" in errors[0] and "characters" in errors[1] and "NaN" in errors[2]
