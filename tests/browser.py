"""A real headless browser for the tests: Chromium driven through its DevTools
protocol over a pipe (``--remote-debugging-pipe``: JSON messages ending in a NUL byte,
read on the browser's descriptor 4 and written on its 3), so no library is needed.
``find_chromium`` is None where no Chromium is installed, and the tests skip."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

KEY_CODES = {"ArrowLeft": 37, "ArrowRight": 39, "Home": 36, "End": 35}


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    """The browser said no, or said nothing in time."""


class Browser:
    """One headless Chromium with one page (``open``, ``evaluate``, ``key``,
    ``click``, ``screenshot``); ``close`` ends it."""

    def __init__(self, executable: str, size: tuple[int, int] = (1280, 900)) -> None:
        self._profile = tempfile.mkdtemp(prefix="companion-chromium-")
        to_browser_read, self._write = os.pipe()
        self._read, from_browser_write = os.pipe()
        # The browser reads commands on its descriptor 3 and writes answers on its 4.
        self._process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--no-first-run",
                "--mute-audio",
                f"--window-size={size[0]},{size[1]}",
                f"--user-data-dir={self._profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=_descriptors(to_browser_read, from_browser_write),
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next = 0
        self.session = ""
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call(
            "Target.attachToTarget", targetId=page["targetId"], flatten=True, session=False
        )["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def call(
        self, method: str, timeout: float = 30.0, session: bool = True, **params: Any
    ) -> dict[str, Any]:
        """Send one command and wait for its answer (events on the way are skipped)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for answer in self._messages(deadline):
                if answer.get("id") == self._next:
                    if "error" in answer:
                        raise BrowserError(f"{method}: {answer['error']}")
                    result: dict[str, Any] = answer.get("result", {})
                    return result

    def _messages(self, deadline: float) -> list[dict[str, Any]]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        *whole, self._buffer = self._buffer.split(b"\0")
        return [json.loads(m) for m in whole if m]

    def open(self, path: Path) -> None:
        """Load a local file and wait until its scripts have run."""
        self.call("Page.navigate", url=path.resolve().as_uri())
        deadline = time.monotonic() + 30
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise BrowserError(f"{path} did not finish loading")
            time.sleep(0.05)

    def evaluate(self, expression: str) -> Any:
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def key(self, name: str) -> None:
        """Press and release a key, as a player's keyboard does."""
        code = KEY_CODES[name]
        for kind in ("rawKeyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key=name,
                code=name,
                windowsVirtualKeyCode=code,
                nativeVirtualKeyCode=code,
            )

    def click(self, selector: str) -> None:
        """A mouse click in the middle of the first element ``selector`` finds."""
        box = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)}); "
            "el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect(); "
            "return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=box[0],
                y=box[1],
                button="left",
                clickCount=1,
            )

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.call("Browser.close", timeout=5.0, session=False)
        try:
            self._process.wait(5.0)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(5.0)
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)


def _descriptors(read: int, write: int) -> Any:
    """In the child, before the browser starts: its pipe ends as descriptors 3 and 4."""

    def move() -> None:
        os.dup2(read, 3)
        os.dup2(write, 4)

    return move
