"""Every reader of a JSON file a user hands in refuses hostile text with its own error:
deep nesting, a number of thousands of digits, bytes that are not UTF-8, NaN. None of
them may let a ``RecursionError``, a bare ``ValueError`` or a ``UnicodeDecodeError``
escape."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HOSTILE = {
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "deep object": b'{"game": ' + b'{"a": ' * 5_000 + b"1" + b"}" * 5_001,
    "huge integer": b'{"game": "shangrila", "players": [], "version": ' + b"9" * 5_000 + b"}",
    "huge float": b'{"version": 1.' + b"5" * 5_000 + b"}",
    "not UTF-8": b'{"game": "shangrila\xff\xfe"}',
    "NaN": b'{"kind": "companion.camera", "version": NaN}',
    "cut": b'{"game": "shangri',
}


def _record(path: Path) -> Any:
    from engines import GameRecord, RecordError

    with pytest.raises(RecordError):
        GameRecord.load(path)
    with pytest.raises(RecordError):
        GameRecord.loads(path.read_bytes())


def _profile(path: Path) -> Any:
    from calibration.errors import ProfileError
    from calibration.profiles import KIND_CAMERA, read_document

    with pytest.raises(ProfileError, match="damaged"):
        read_document(path, KIND_CAMERA)


def _config(path: Path) -> Any:
    from calibration.config import load_config
    from calibration.errors import ConfigError

    with pytest.raises(ConfigError):
        load_config(path)


def _boards(path: Path) -> Any:
    from calibration.boards import load_boards
    from calibration.errors import ConfigError

    with pytest.raises(ConfigError):
        load_boards(path)


def _layouts(path: Path) -> Any:
    from firmware_bridge.errors import LayoutError
    from firmware_bridge.layouts import load_layouts

    with pytest.raises(LayoutError):
        load_layouts(path)


READERS: dict[str, Callable[[Path], Any]] = {
    "record": _record,
    "profile": _profile,
    "config": _config,
    "boards": _boards,
    "layouts": _layouts,
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_json_is_the_readers_own_error(tmp_path: Path, reader: str, kind: str) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(HOSTILE[kind])
    READERS[reader](path)


@pytest.mark.parametrize(
    "text",
    [b'{"layouts": []}', b"[1, 2]", b'{"layouts": {"shangrila": {"kinds": [], "positions": []}}}'],
)
def test_layouts_of_the_wrong_shape_are_a_layout_error(tmp_path: Path, text: bytes) -> None:
    from firmware_bridge.errors import LayoutError
    from firmware_bridge.layouts import load_layouts

    path = tmp_path / "layouts.json"
    path.write_bytes(text)
    with pytest.raises(LayoutError):
        load_layouts(path)
