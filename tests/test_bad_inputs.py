"""The bad-input corpus: every command, fed every kind of input a user can get wrong.

Each row of ``CASES`` is a command line (files named ``{d}/...`` come from the fixture
folder built below: damaged records, profiles, layouts, configurations, pictures,
videos...) with the exit status docs/errors.md promises for it. One test runs every row
and asserts, for each: no traceback, a clear one-line message on standard error
(argparse's usage lines may come before it), the documented exit status, and no input
file changed. Rows run in-process through ``companion.cli.main``; the few marked
``subprocess`` run as a child process, where only the process boundary shows the
failure (OpenCV crashing the interpreter on a bad camera index).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    argv: str
    code: int = 2
    stdin: str = ""
    subprocess: bool = False


GOOD_RECORD = {"game": "shangrila", "players": ["red", "blue", "yellow", "violet"], "moves": []}

JSON_FILES: dict[str, bytes] = {
    "empty.json": b"",
    "garbage.json": b"\x00\x01 this is not JSON",
    "cut.json": b'{"game": "shangri',
    "deep.json": b"[" * 50_000 + b"]" * 50_000,
    "deep-object.json": b'{"game": ' + b'{"a": ' * 5_000 + b"1" + b"}" * 5_001,
    "huge-int.json": b'{"version": ' + b"7" * 20_000 + b"}",
    "not-utf8.json": b'{"game": "\xff\xfe\xfd"}',
    "nan.json": b'{"version": NaN, "kind": "companion.camera"}',
    "array.json": b"[1, 2, 3]",
    "string.json": b'"shangrila"',
    "null.json": b"null",
}
"""Damaged JSON of every kind; each is handed to every command that reads JSON."""

RECORDS: dict[str, object] = {
    "record-unknown-game.json": {**GOOD_RECORD, "game": "chess"},
    "record-unknown-key.json": {**GOOD_RECORD, "colour": "red"},
    "record-players-text.json": {**GOOD_RECORD, "players": "red blue"},
    "record-too-many-players.json": {**GOOD_RECORD, "players": [f"p{i}" for i in range(9)]},
    "record-bad-move.json": {**GOOD_RECORD, "moves": ["4>>7"]},
    "record-moves-numbers.json": {**GOOD_RECORD, "moves": [1, 2]},
    "record-bad-option.json": {**GOOD_RECORD, "options": {"no_such_option": True}},
    "record-bad-option-value.json": {**GOOD_RECORD, "options": {"stable_frames": [[]]}},
    "record-start-text.json": {**GOOD_RECORD, "start": "the beginning"},
    "record-start-empty.json": {**GOOD_RECORD, "start": {}},
    "record-shendao-bad.json": {
        "game": "shendao",
        "players": ["white", "black"],
        "moves": ["zz99"],
    },
}

PROFILE_FILES = ("camera.json", "board-shangrila.json", "colours-shangrila.json")
"""A profile's files; profile ``damaged`` holds garbage in each."""


def _bad_json_rows(template: str) -> list[tuple[str, Case]]:
    return [
        (
            f"{template.split()[0]} {template.split()[1]} {name}",
            Case(template.format(f="{d}/" + name)),
        )
        for name in [*JSON_FILES, "missing.json", "folder"]
    ]


CASES: list[tuple[str, Case]] = [
    # ---- companion itself
    ("no command", Case("")),
    ("unknown command", Case("chess")),
    ("unknown option", Case("rules replay --frobnicate {d}/good-record.json")),
    # ---- rules
    *_bad_json_rows("rules replay {f}"),
    *[(f"rules replay {name}", Case(f"rules replay {{d}}/{name}")) for name in RECORDS],
    ("rules replay --json deep", Case("rules replay --json {d}/deep.json")),
    ("rules replay stdin garbage", Case("rules replay -", stdin="{not json")),
    ("rules replay stdin deep", Case("rules replay -", stdin="[" * 10_000)),
    ("rules demo --game chess", Case("rules demo --game chess")),
    ("rules demo --players 0", Case("rules demo --players 0")),
    ("rules demo --players -3", Case("rules demo --players -3")),
    ("rules demo --players 99", Case("rules demo --players 99")),
    ("rules demo --players many", Case("rules demo --players many")),
    ("rules demo --seed x", Case("rules demo --seed x")),
    ("rules demo --record no folder", Case("rules demo --record {d}/nowhere/game.json")),
    ("rules demo --record a folder", Case("rules demo --record {d}/folder")),
    # ---- analyse
    *_bad_json_rows("analyse x {f}"),
    *[(f"analyse {name}", Case(f"analyse {{d}}/{name}")) for name in RECORDS],
    ("analyse --level 0", Case("analyse --level 0 {d}/good-record.json")),
    ("analyse --level 99", Case("analyse --level 99 {d}/good-record.json")),
    ("analyse --workers 0", Case("analyse --workers 0 {d}/good-record.json")),
    (
        "analyse --plots onto a file",
        Case("analyse --plots {d}/good-record.json {d}/good-record.json"),
    ),
    # ---- referee
    ("referee --game chess", Case("referee --game chess")),
    ("referee --players one", Case("referee --players red")),
    ("referee two players", Case("referee --players red blue")),
    ("referee --game shendao three players", Case("referee --game shendao --players a b c")),
    ("referee --start missing", Case("referee --start {d}/missing.json")),
    ("referee --start deep", Case("referee --start {d}/deep.json")),
    ("referee --start not UTF-8", Case("referee --start {d}/not-utf8.json")),
    ("referee --start bad move", Case("referee --start {d}/record-bad-move.json")),
    ("referee --journal no folder", Case("referee --journal {d}/nowhere/game.journal")),
    ("referee --journal exists", Case("referee --journal {d}/good-record.json")),
    ("referee --resume missing", Case("referee --resume {d}/missing.json")),
    ("referee --resume folder", Case("referee --resume {d}/folder")),
    *[
        (f"referee --resume {name}", Case(f"referee --resume {{d}}/{name}"))
        for name in (
            "empty.json",
            "garbage.json",
            "deep.json",
            "deep-object.json",
            "huge-int.json",
            "not-utf8.json",
            "nan.json",
            "array.json",
        )
    ],
    # ---- calibrate
    ("calibrate no command", Case("calibrate")),
    (
        "calibrate charuco-sheet --paper B9",
        Case("calibrate charuco-sheet --paper B9 --out {d}/out/sheet.png"),
    ),
    ("calibrate charuco-sheet --dpi 0", Case("calibrate charuco-sheet --dpi 0")),
    ("calibrate charuco-sheet --squares 1x1", Case("calibrate charuco-sheet --squares 1x1")),
    ("calibrate charuco-sheet --squares abc", Case("calibrate charuco-sheet --squares abc")),
    (
        "calibrate charuco-sheet --dictionary",
        Case("calibrate charuco-sheet --dictionary NOPE --out {d}/out/sheet.png"),
    ),
    *_bad_json_rows("calibrate charuco-sheet --out {{d}}/out/sheet.png --config {f}"),
    ("calibrate camera --images missing", Case("calibrate camera --images {d}/missing")),
    ("calibrate camera --images empty", Case("calibrate camera --images {d}/folder")),
    ("calibrate camera --images of junk", Case("calibrate camera --images {d}/junk")),
    ("calibrate camera --video missing", Case("calibrate camera --video {d}/missing.avi")),
    ("calibrate camera --video corrupt", Case("calibrate camera --video {d}/corrupt.avi")),
    ("calibrate camera --camera -1", Case("calibrate camera --camera -1", subprocess=True)),
    ("calibrate camera --camera x", Case("calibrate camera --camera x")),
    ("calibrate camera --camera 99", Case("calibrate camera --camera 99999")),
    ("calibrate camera --views 0", Case("calibrate camera --images {d}/folder --views 0")),
    ("calibrate camera --profile ../x", Case("calibrate camera --images {d}/junk --profile ../x")),
    (
        "calibrate camera --config deep",
        Case("calibrate camera --images {d}/junk --config {d}/deep.json"),
    ),
    (
        "calibrate undistort no profile",
        Case("calibrate undistort --profile none --out {d}/out {d}/blank.png"),
    ),
    (
        "calibrate undistort damaged profile",
        Case("calibrate undistort --profile damaged --out {d}/out {d}/blank.png"),
    ),
    ("calibrate markers --game chess", Case("calibrate markers --game chess")),
    (
        "calibrate markers --paper B9",
        Case("calibrate markers --game shangrila --paper B9 --out {d}/out/m.png"),
    ),
    *_bad_json_rows("calibrate markers --game shangrila --out {{d}}/out/m.png --boards {f}"),
    (
        "calibrate board --image missing",
        Case("calibrate board --game shangrila --image {d}/missing.png"),
    ),
    ("calibrate board --image text", Case("calibrate board --game shangrila --image {d}/text.png")),
    (
        "calibrate board --image corrupt",
        Case("calibrate board --game shangrila --image {d}/corrupt.png"),
    ),
    (
        "calibrate board --image blank",
        Case("calibrate board --game shangrila --image {d}/blank.png"),
    ),
    (
        "calibrate board --camera -1",
        Case("calibrate board --game shangrila --camera -1", subprocess=True),
    ),
    ("calibrate board --camera 99", Case("calibrate board --game shangrila --camera 99999")),
    (
        "calibrate board --camera 9, as a process",
        Case("calibrate board --game shangrila --camera 9", subprocess=True),
    ),
    (
        "calibrate board --corners bad",
        Case(
            "calibrate board --game shangrila --method "
            "reference --image {d}/blank.png --corners 1,2"
        ),
    ),
    (
        "calibrate board --damaged profile",
        Case("calibrate board --game shangrila --profile damaged --image {d}/blank.png"),
    ),
    (
        "calibrate check no profile",
        Case("calibrate check --game shangrila --profile none --image {d}/blank.png"),
    ),
    (
        "calibrate check damaged",
        Case("calibrate check --game shangrila --profile damaged --image {d}/blank.png"),
    ),
    ("calibrate check --camera -1", Case("calibrate check --game shangrila --camera -1")),
    (
        "calibrate colours no profile",
        Case(
            "calibrate colours --game shangrila --profile none "
            "--empty {d}/blank.png --pieces red={d}/blank.png"
        ),
    ),
    (
        "calibrate colours damaged",
        Case(
            "calibrate colours --game shangrila --profile damaged "
            "--empty {d}/blank.png --pieces red={d}/blank.png"
        ),
    ),
    (
        "calibrate colours --pieces bad",
        Case("calibrate colours --game shangrila --empty {d}/blank.png --pieces red"),
    ),
    ("calibrate colours --camera -1", Case("calibrate colours --game shangrila --camera -1")),
    ("calibrate show --profile ../x", Case("calibrate show --profile ../x")),
    ("calibrate show damaged", Case("calibrate show --profile damaged", code=1)),
    # ---- device
    ("device show --game chess", Case("device show --game chess --seconds 0.1")),
    ("device show --seconds -1", Case("device show --seconds -1 loop://")),
    *_bad_json_rows("device show --seconds 0.1 --layouts {f}"),
    (
        "device show --referee one player",
        Case("device show loop:// --referee --players red --seconds 0.2"),
    ),
    (
        "device show --game shendao --referee",
        Case("device show loop:// --game shendao --referee --players a b c --seconds 0.2"),
    ),
    ("device show no such port", Case("device show {d}/no-such-port --seconds 0.3", code=1)),
    ("device show a file", Case("device show {d}/text.png --seconds 0.3", code=1)),
    ("device simulate --game chess", Case("device simulate --game chess")),
    ("device simulate --scan-hz 0", Case("device simulate --scan-hz 0")),
    ("device simulate --debounce 0", Case("device simulate --debounce 0")),
    ("device simulate --baud -1", Case("device simulate --baud -1")),
    ("device simulate --table missing", Case("device simulate --table {d}/missing.txt")),
    # ---- vision
    ("vision render --game chess", Case("vision render --game chess")),
    (
        "vision render --size",
        Case("vision render --game shangrila --size huge --out {d}/out/t.png"),
    ),
    (
        "vision render --size 0",
        Case("vision render --game shangrila --size 0x0 --out {d}/out/t.png"),
    ),
    (
        "vision render --moves -1",
        Case("vision render --game shangrila --moves -1 --out {d}/out/t.png"),
    ),
    (
        "vision render --players 9",
        Case("vision render --game shangrila --players 9 --out {d}/out/t.png"),
    ),
    (
        "vision render --players 0",
        Case("vision render --game shendao --players 0 --out {d}/out/t.png"),
    ),
    (
        "vision render --elevation 10",
        Case("vision render --game shangrila --elevation 10 --out {d}/out/t.png"),
    ),
    (
        "vision render --distance 0",
        Case("vision render --game shangrila --distance 0 --out {d}/out/t.png"),
    ),
    (
        "vision render --placement -1",
        Case(
            "vision render --game shangrila --placement -1 "
            "--moves 0 --size 64x48 --out {d}/out/t.png"
        ),
    ),
    (
        "vision render --light",
        Case("vision render --game shangrila --light disco --out {d}/out/t.png"),
    ),
    ("vision render --out .txt", Case("vision render --game shangrila --out {d}/out/t.txt")),
    ("vision render --fov 0", Case("vision render --game shangrila --fov 0 --out {d}/out/t.png")),
    ("vision render --jpeg 0", Case("vision render --game shangrila --jpeg 0 --out {d}/out/t.jpg")),
    ("vision read missing", Case("vision read --game shangrila {d}/missing.png")),
    (
        "vision read missing, as a process",
        Case("vision read --game shangrila {d}/missing.png", subprocess=True),
    ),
    ("vision read text", Case("vision read --game shangrila {d}/text.png")),
    ("vision read corrupt", Case("vision read --game shangrila {d}/corrupt.png")),
    ("vision read a folder", Case("vision read --game shangrila {d}/folder")),
    ("vision read --game chess", Case("vision read --game chess {d}/blank.png")),
    (
        "vision read --profile ../x",
        Case("vision read --game shangrila --profile ../x {d}/blank.png"),
    ),
    (
        "vision read --profile damaged",
        Case(
            "vision read --game shangrila --profile damaged "
            "--locate truth --truth {d}/truth.json "
            "--overlay {d}/out/o.png {d}/blank.png"
        ),
    ),
    (
        "vision read --locate truth alone",
        Case("vision read --game shangrila --locate truth {d}/blank.png"),
    ),
    *_bad_json_rows(
        "vision read --game shangrila --overlay {{d}}/out/o.png --truth {f} {{d}}/blank.png"
    ),
    (
        "vision read truth wrong shape",
        Case(
            "vision read --game shangrila --locate truth --truth {d}/truth-wrong.json {d}/blank.png"
        ),
    ),
    (
        "vision read truth bad elements",
        Case(
            "vision read --game shangrila --locate truth "
            "--truth {d}/truth-elements.json "
            "--overlay {d}/out/o.png {d}/blank.png"
        ),
    ),
    # ---- file names that are not UTF-8 (OpenCV crashed the process on them)
    (
        "vision read a name not UTF-8",
        Case(
            "vision read --game shangrila --overlay {d}/out/o.png {d}/\udcff.png",
            code=1,
            subprocess=True,
        ),
    ),
    (
        "calibrate camera --video a name not UTF-8",
        Case("calibrate camera --video {d}/\udcff.avi", subprocess=True),
    ),
    (
        "calibrate camera --images with a name not UTF-8",
        Case("calibrate camera --images {d}/odd", subprocess=True),
    ),
    (
        "calibrate board --image a name not UTF-8",
        Case("calibrate board --game shangrila --image {d}/\udcff.png"),
    ),
    ("rules replay a name not UTF-8", Case("rules replay {d}/\udcfe.json")),
    ("demo --out a name not UTF-8", Case("demo --headless --out {d}/out/\udcff")),
    # ---- demo
    ("demo --game chess", Case("demo --game chess")),
    ("demo --moves 2", Case("demo --headless --moves 2 --out {d}/out/demo")),
    ("demo --moves 0", Case("demo --headless --moves 0 --out {d}/out/demo")),
    ("demo --moves -5", Case("demo --headless --moves -5 --out {d}/out/demo")),
    ("demo --level 9", Case("demo --headless --level 9")),
    ("demo --out a file", Case("demo --headless --out {d}/good-record.json")),
    # ---- app
    ("app --game chess", Case("app --game chess")),
    ("app --video missing", Case("app --video {d}/missing.avi")),
    ("app --video a folder", Case("app --video {d}/folder")),
    ("app --camera -1", Case("app --camera -1")),
    ("app --camera x", Case("app --camera x")),
    ("app --players 0", Case("app --players 0")),
    ("app --players 9", Case("app --players 9")),
    ("app --language xx", Case("app --language xx")),
    # ---- bench (the arguments only: every row fails before measuring)
    ("bench rules --game chess", Case("bench rules --game chess --seconds 0.01")),
    ("bench app --starts 0", Case("bench app --starts 0")),
    ("bench referee --games -1", Case("bench referee --games -1")),
    ("bench settleable --games 0", Case("bench settleable --games 0")),
    ("bench settleable --game shendao", Case("bench settleable --game shendao")),
    ("bench heights-fit --setups 0", Case("bench heights-fit --setups 0")),
    ("bench appearance --setups 0", Case("bench appearance --setups 0")),
    ("bench appearance --first-seed 5", Case("bench appearance --set test --first-seed 5")),
    ("vision fit --networks -1", Case("vision fit --game shenshi --networks -1")),
    ("vision fit --setups 0", Case("vision fit --game shenshi --setups 0")),
    ("vision fit --network-setups 0", Case("vision fit --game shendao --network-setups 0")),
    ("vision fit --networks-only, no network", Case("vision fit --networks-only")),
    # an explicit 0 is refused, not read as "the default": that run rewrites a shipped file
    ("bench reader-errors --setups 0", Case("bench reader-errors --game shenshi --setups 0")),
]

REFEREE_LINES = [
    "seen {not json",
    "seen " + "[" * 10_000,
    'seen {"4H": ' + "9" * 5_000 + "}",
    "seen [1, 2]",
    'seen {"nowhere": "red"}',
    'seen {"4H": "plaid"}',
    'seen {"4H": ["red", 7]}',
    'seen {"4H": NaN}',
    "answer",
    "answer zz",
    "move",
    "move 4>>7",
    "record",
    "record {d}/nowhere/game.json",
    "record {d}/folder",
    "frobnicate",
    "\x00\x01\x02",
]
"""Lines of ``companion referee``'s input a player can get wrong: each gets a one-line
message and the session goes on (the row ends with ``quit``, exit 0)."""

CASES += [
    (f"referee line {line[:30]!r}", Case("referee", code=0, stdin=f"{line}\nquit\n"))
    for line in REFEREE_LINES
]


def _picture(path: Path, kind: str) -> None:
    import cv2
    import numpy as np

    if kind == "blank":
        cv2.imwrite(str(path), np.full((48, 64, 3), 128, np.uint8))
    elif kind == "corrupt":
        good = cv2.imencode(".png", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
        path.write_bytes(good[:40] + bytes(range(256)) * 4)
    else:
        path.write_text("not a picture", encoding="utf-8")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bad-inputs")
    for name, data in JSON_FILES.items():
        (d / name).write_bytes(data)
    for name, record in RECORDS.items():
        (d / name).write_text(json.dumps(record), encoding="utf-8")
    (d / "good-record.json").write_text(json.dumps(GOOD_RECORD), encoding="utf-8")
    (d / "folder").mkdir()
    (d / "out").mkdir()
    (d / "junk").mkdir()
    (d / "junk" / "a.jpg").write_text("not a picture", encoding="utf-8")
    (d / "junk" / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    _picture(d / "blank.png", "blank")
    _picture(d / "corrupt.png", "corrupt")
    _picture(d / "text.png", "text")
    (d / "\udcff.png").write_bytes((d / "blank.png").read_bytes())
    (d / "odd").mkdir()
    (d / "odd" / "\udcff.png").write_bytes((d / "blank.png").read_bytes())
    (d / "corrupt.avi").write_bytes(b"RIFF\x00\x00\x00\x00AVI LIST" + bytes(range(256)) * 8)
    (d / "\udcff.avi").write_bytes((d / "corrupt.avi").read_bytes())
    (d / "truth-wrong.json").write_text(
        json.dumps({"observation": {}, "camera": 3}), encoding="utf-8"
    )
    truth = {
        "game": "shangrila",
        "observation": {},
        "camera": {
            "width": 64,
            "height": 48,
            "fx": 60.0,
            "fy": 60.0,
            "cx": 32.0,
            "cy": 24.0,
            "k1": 0.0,
        },
        "pose": {
            "elevation_deg": 60.0,
            "rotation_deg": 0.0,
            "distance_mm": 800.0,
            "look_at_mm": [0.0, 0.0, 0.0],
            "roll_deg": 0.0,
        },
    }
    (d / "truth.json").write_text(json.dumps(truth), encoding="utf-8")
    (d / "truth-elements.json").write_text(
        json.dumps({**truth, "observation": {"4H": 5}, "elements": [1, 2]}), encoding="utf-8"
    )
    data = d / "data"
    damaged = data / "profiles" / "damaged"
    damaged.mkdir(parents=True)
    for name in PROFILE_FILES:
        (damaged / name).write_bytes(JSON_FILES["deep.json"])
    (data / "profiles" / "none").mkdir()
    return d


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _changed(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Input files changed or gone (files a command writes anew are its output)."""
    return [name for name, digest in before.items() if after.get(name) != digest]


def _argv(case: Case, folder: Path) -> list[str]:
    return [part.replace("{d}", str(folder)) for part in case.argv.split()]


@dataclass
class Outcome:
    code: int | None
    stdout: str
    stderr: str
    traceback: str = ""


ROW_SECONDS = 60
"""A row still running after this long hangs (every row fails within a few seconds)."""


class Hung(BaseException):
    """Raised in a row that runs past ``ROW_SECONDS``."""


def _hung(signum: int, frame: object) -> None:
    raise Hung(f"still running after {ROW_SECONDS} s")


def _in_process(
    argv: list[str], stdin: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Outcome:
    from companion.cli import main

    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    timed = hasattr(signal, "SIGALRM")  # not on Windows: a hang there blocks the test
    previous = signal.signal(signal.SIGALRM, _hung) if timed else None
    if timed:
        signal.alarm(ROW_SECONDS)
    try:
        code: int | None = main(argv)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:  # anything else is a traceback the user would see
        captured = capsys.readouterr()
        return Outcome(None, captured.out, captured.err, traceback.format_exc())
    finally:
        if timed:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    captured = capsys.readouterr()
    return Outcome(code, captured.out, captured.err)


def _child(argv: list[str], stdin: str, env: dict[str, str]) -> Outcome:
    try:
        result = subprocess.run(
            [sys.executable, "-m", "companion.cli", *argv],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=ROW_SECONDS,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return Outcome(None, "", "", f"still running after {ROW_SECONDS} s")
    code = result.returncode
    if code < 0:
        return Outcome(code, result.stdout, result.stderr, f"killed by signal {-code}")
    if "Traceback (most recent call last)" in result.stderr:
        return Outcome(code, result.stdout, result.stderr, result.stderr)
    return Outcome(code, result.stdout, result.stderr)


def _message_problem(outcome: Outcome) -> str | None:
    """Why the outcome does not say clearly what is wrong. Exit status 2: one line on
    standard error starting with ``companion`` (argparse's usage lines may come first).
    Status 1 (a check that failed) and 0 (a referee session that went on past a bad
    line): the message may be in the command's report on standard output."""
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    if outcome.code != 2:
        return None if lines or outcome.stdout.strip() else "no message at all"
    if not lines:
        return "nothing on standard error"
    message = lines[-1]
    if not message.startswith("companion"):
        return f"the last line does not say it is the companion: {message!r}"
    before = lines[:-1]
    if before and not before[0].startswith("usage:"):
        return f"{len(lines)} lines, not one: {lines[:3]!r}"
    return None


def run_corpus(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, str]]:
    """Run every row; yield (row, problem) for each row that failed a check."""
    env = {**os.environ, "COMPANION_DATA_DIR": str(folder / "data")}
    for name, case in CASES:
        argv = _argv(case, folder)
        stdin = case.stdin.replace("{d}", str(folder))
        before = _snapshot(folder)
        if os.environ.get("COMPANION_CORPUS_TRACE"):
            with open(os.environ["COMPANION_CORPUS_TRACE"], "a", encoding="utf-8") as trace:
                print(f"row: {name}", file=trace)
        if case.subprocess:
            outcome = _child(argv, stdin, env)
        else:
            outcome = _in_process(argv, stdin, capsys, monkeypatch)
        if outcome.traceback:
            yield name, "traceback: " + outcome.traceback.strip().splitlines()[-1]
            continue
        if outcome.code != case.code:
            yield (
                name,
                f"exit status {outcome.code}, documented {case.code}: "
                f"{outcome.stderr.strip()[-200:]!r}",
            )
        problem = _message_problem(outcome)
        if problem is not None:
            yield name, problem
        changed = _changed(before, _snapshot(folder))
        if changed:
            yield name, f"input files changed: {changed}"


def test_every_bad_input_gets_one_line_and_its_exit_status(
    corpus: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPANION_DATA_DIR", str(corpus / "data"))
    for variable in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(corpus / "out")
    failures = list(run_corpus(corpus, capsys, monkeypatch))
    tracebacks = sum(problem.startswith("traceback") for _, problem in failures)
    with capsys.disabled():  # the figure, shown with pytest -s
        print(
            f"\n{len(CASES)} bad inputs: {tracebacks} tracebacks, hangs or crashes; "
            f"{len(failures)} checks failed"
        )
    assert not failures, "\n".join(f"{name}: {problem}" for name, problem in failures)
