"""Where calibration profiles live, and how they are written and read safely.

A *profile* is one table set-up (a camera over a table, under its light), stored as a
folder ``<data dir>/profiles/<name>/`` holding:

- ``camera.json``: the lens (kind ``companion.camera``);
- ``board-<game>.json`` (+ ``board-<game>-reference.png`` without markers): where the
  board lies in the image (kind ``companion.board``);
- ``colours-<game>.json``: what each player's colour looks like (kind
  ``companion.colours``);
- ``layout-<game>.json``: where each element lies on this board (kind
  ``companion.layout``).

Every file is JSON with ``kind`` and ``version`` fields. Files are written atomically
(a temporary file renamed over the old one), so a crash never leaves half a profile;
reading checks everything before returning, so a damaged or foreign file is refused
with a message naming the file and the fault, never half-loaded.

The data dir is ``$COMPANION_DATA_DIR`` when set (tests use it); otherwise the folder
Kivy's ``App.user_data_dir`` gives an app named ``companion``, so the command line and
the tablet app share profiles.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from calibration.errors import ProfileError
from engines.jsontext import JSONTextError, parse_json

PROFILE_VERSION = 1
DATA_DIR_ENV = "COMPANION_DATA_DIR"
APP_NAME = "companion"
DEFAULT_PROFILE = "default"
KIND_CAMERA = "companion.camera"
KIND_BOARD = "companion.board"
KIND_COLOURS = "companion.colours"
KIND_LAYOUT = "companion.layout"
KIND_NAMES = {
    KIND_CAMERA: "camera profile",
    KIND_BOARD: "board profile",
    KIND_COLOURS: "colour model",
    KIND_LAYOUT: "board layout",
}
# Profiles and sheets are ordinary user files: readable by others, like any saved file.
_FILE_MODE = 0o644
_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def data_dir() -> Path:
    """The companion's data folder (see the module docstring)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    home = Path.home()
    if sys.platform.startswith("win"):
        return Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")) / APP_NAME
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / APP_NAME
    return Path(os.environ.get("XDG_CONFIG_HOME", home / ".config")) / APP_NAME


def profile_dir(name: str = DEFAULT_PROFILE) -> Path:
    """The folder of profile ``name``. Raises ``ProfileError`` for a name that is not
    1-64 letters, digits, ``-``, ``_`` or ``.`` starting with a letter or digit."""
    if not _NAME_PATTERN.fullmatch(name):
        raise ProfileError(
            f"profile name {name!r} is not allowed: use 1-64 letters, digits, "
            "'-', '_' or '.', starting with a letter or digit"
        )
    return data_dir() / "profiles" / name


def camera_path(name: str = DEFAULT_PROFILE) -> Path:
    return profile_dir(name) / "camera.json"


def board_path(game: str, name: str = DEFAULT_PROFILE) -> Path:
    return profile_dir(name) / f"board-{game}.json"


def reference_image_path(game: str, name: str = DEFAULT_PROFILE) -> Path:
    return profile_dir(name) / f"board-{game}-reference.png"


def colours_path(game: str, name: str = DEFAULT_PROFILE) -> Path:
    return profile_dir(name) / f"colours-{game}.json"


def layout_path(game: str, name: str = DEFAULT_PROFILE) -> Path:
    return profile_dir(name) / f"layout-{game}.json"


def list_profiles() -> list[str]:
    """Names of the stored profiles, sorted."""
    root = data_dir() / "profiles"
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and _NAME_PATTERN.fullmatch(p.name))


def now_iso() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never
    a part: write a temporary file beside it, flush it to disk, rename it over.
    Raises ``ProfileError`` when the folder cannot be created or written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
        )
        try:
            os.chmod(temporary, _FILE_MODE)
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise ProfileError(f"cannot write {path}: {error.strerror or error}") from None


def save_document(path: Path, kind: str, body: dict[str, Any]) -> None:
    """Write a profile document: ``kind``, ``version`` and ``body``'s fields, atomically."""
    document = {"kind": kind, "version": PROFILE_VERSION, **body}
    text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    write_atomic(path, text.encode("utf-8"))


def read_document(path: Path, kind: str) -> dict[str, Any]:
    """Read and check the envelope of a profile document of ``kind``.

    Raises ``ProfileError`` when the file is missing or unreadable, is not JSON (a
    damaged file), is not a companion profile or is one of another kind (a foreign
    file), or was written by a newer version.
    """
    what = KIND_NAMES.get(kind, kind)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ProfileError(f"no {what} at {path}") from None
    except OSError as error:
        raise ProfileError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    try:
        data = parse_json(raw, "its text")
    except JSONTextError as error:
        raise ProfileError(f"the {what} {path} is damaged ({error}); make it again") from None
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise ProfileError(
            f"{path} is not a companion profile (no 'kind' field); refusing to use it as a {what}"
        )
    if data["kind"] != kind:
        found = KIND_NAMES.get(data["kind"], repr(data["kind"]))
        raise ProfileError(f"{path} is a {found}, not a {what}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProfileError(f"the {what} {path} has no valid version number")
    if version > PROFILE_VERSION:
        raise ProfileError(
            f"the {what} {path} was written by a newer version of the "
            f"companion (profile version {version}; this one reads up to "
            f"{PROFILE_VERSION})"
        )
    if version < 1:
        raise ProfileError(f"the {what} {path} has an invalid version {version}")
    return data


class Fields:
    """Checked access to the fields of a profile document; every failure raises
    ``ProfileError`` naming the file and the field, so nothing is half-loaded."""

    def __init__(
        self, data: dict[str, Any], source: Path | str, what: str, prefix: str = ""
    ) -> None:
        self.data = data
        self.source = source
        self.what = what
        self.prefix = prefix

    def fail(self, key: str, problem: str) -> ProfileError:
        return ProfileError(
            f"the {self.what} {self.source} is damaged: field "
            f"{self.prefix + key!r} {problem}; make it again"
        )

    def get(self, key: str) -> Any:
        if key not in self.data:
            raise self.fail(key, "is missing")
        return self.data[key]

    def string(self, key: str, choices: tuple[str, ...] | None = None) -> str:
        value = self.get(key)
        if not isinstance(value, str):
            raise self.fail(key, "is not text")
        if choices is not None and value not in choices:
            raise self.fail(key, f"is {value!r}, not one of {', '.join(choices)}")
        return value

    def number(self, key: str, minimum: float | None = None) -> float:
        return self.check_number(key, self.get(key), minimum)

    def check_number(self, key: str, value: Any, minimum: float | None = None) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise self.fail(key, f"holds {value!r}, not a finite number")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"is {value}, below {minimum}")
        return float(value)

    def integer(self, key: str, minimum: int | None = None) -> int:
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"holds {value!r}, not a whole number")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"is {value}, below {minimum}")
        return value

    def numbers(self, key: str, length: int | None = None, value: Any = None) -> tuple[float, ...]:
        value = self.get(key) if value is None else value
        if not isinstance(value, list) or (length is not None and len(value) != length):
            size = f"{length} numbers" if length is not None else "a list of numbers"
            raise self.fail(key, f"is not {size}")
        return tuple(self.check_number(key, v) for v in value)

    def matrix(self, key: str, rows: int, cols: int) -> tuple[tuple[float, ...], ...]:
        value = self.get(key)
        if not isinstance(value, list) or len(value) != rows:
            raise self.fail(key, f"is not a {rows}x{cols} matrix")
        return tuple(self.numbers(key, cols, row) for row in value)

    def size(self, key: str) -> tuple[int, int]:
        value = self.get(key)
        if not (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
        ):
            raise self.fail(key, "is not [width, height] in whole pixels")
        return (value[0], value[1])

    def records(self, key: str) -> list[dict[str, Any]]:
        value = self.get(key)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, "is not a list of objects")
        return value

    def sub(self, data: Any, key: str) -> Fields:
        """Checked access to ``data``, an object found at ``key`` in this document."""
        if not isinstance(data, dict):
            raise self.fail(key, "is not an object")
        return Fields(data, self.source, self.what, f"{self.prefix}{key}.")
