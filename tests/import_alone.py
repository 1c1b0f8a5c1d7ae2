"""Imports each named module alone, in a fresh copy of an interpreter that has loaded
no project module, and prints one JSON line per module: ``{"module", "error"}``
(``error`` is null on success, ``"missing:<name>"`` when a third-party module is not
installed, otherwise the exception).

``python -m tests.import_alone engines.shenshi vision.read ...``

Each module is imported in a child forked from this process, so the children share
the third-party libraries loaded once here (numpy, OpenCV, Kivy...) but start with
no project module loaded: a cycle that only works from one entry point fails here.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import traceback

# Kivy without a window or command-line parsing, as the app's tests run it.
os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ["KIVY_NO_ARGS"] = "1"
os.environ["KIVY_NO_CONSOLELOG"] = "1"
os.environ["KIVY_LOG_MODE"] = "PYTHON"

LIGHT = ("numpy", "serial")
HEAVY = (
    "cv2",
    "matplotlib",
    "matplotlib.pyplot",
    "kivy",
    "kivy.app",
    "kivy.lang",
    "kivy.uix.widget",
    "kivy.uix.label",
)
"""Loaded once before forking, to keep each child's import short; the heavy ones only
when a module outside ``engines`` and ``firmware_bridge`` is asked for."""

TIMEOUT_SECONDS = 120


def import_in_child(module: str) -> str | None:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        signal.alarm(TIMEOUT_SECONDS)
        error = None
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            root = (exc.name or "").split(".")[0]
            if root in {"engines", "firmware_bridge", "calibration", "vision", "companion"}:
                error = traceback.format_exc(limit=-4)
            else:
                error = f"missing:{exc.name}"
        except BaseException:
            error = traceback.format_exc(limit=-4)
        os.write(write_end, (error or "").encode())
        os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    if not text and status != 0:
        return f"child ended with status {status} (timeout after {TIMEOUT_SECONDS} s?)"
    return text or None


def main(modules: list[str]) -> None:
    light = all(m.split(".")[0] in {"engines", "firmware_bridge"} for m in modules)
    for name in LIGHT if light else LIGHT + HEAVY:
        with contextlib.suppress(Exception):  # a child then reports the failure
            importlib.import_module(name)
    for module in modules:
        print(json.dumps({"module": module, "error": import_in_child(module)}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
