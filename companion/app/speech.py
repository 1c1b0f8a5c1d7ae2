"""Spoken announcements: each accepted move, each illegal move and the end of the game,
said aloud in the app's language by the platform's speech.

What is said is what the Play screen shows, in the same words (``announcements`` takes
them from the ``PlayView``, whose texts ``wording`` made): the move's sentence from the
log, the banner's headline and first line for an illegal move or the result.

``Announcer`` never blocks its caller: announcements wait in a short queue that a
thread of its own says one at a time, the most important first. When they pile up (a
quick run of moves), the oldest of the least important are dropped, and any older than
``STALE_AFTER`` seconds are not said at all; an illegal move or the end of the game
cuts short a move being said.

The voices: Android's text-to-speech through pyjnius (``AndroidVoice``); espeak-ng or
espeak where installed (``CommandVoice``, Linux); otherwise plyer's ``tts`` (macOS,
Windows), in the system's language. Where there is none, the announcer stays silent
and logs one quiet line saying why. (plyer is not the first choice: its Android
speech always speaks American English, and its Linux speech has no language either.)
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from companion.app.controller import PlayView
from companion.referee.events import Output

log = logging.getLogger(__name__)

MAX_WAITING = 2
"""Announcements waiting to be said; beyond it the oldest least important goes."""
STALE_AFTER = 8.0
"""Seconds after which an announcement not yet said is dropped: the table has moved on."""
PRIORITY = {"move": 0, "illegal": 1, "over": 1}
SPEECH_TIMEOUT = 30.0
"""Longest a voice may take over one announcement."""


class SpeechUnavailable(Exception):
    """This machine cannot speak: no speech engine, or it failed to start. The message
    says which."""


@dataclass(frozen=True)
class Announcement:
    """One thing to say: ``kind`` is ``move``, ``illegal`` or ``over``; ``at`` is the
    ``time.perf_counter()`` of the verdict it announces."""

    kind: str
    text: str
    at: float


_RULE_TAG = re.compile(r"\s*\[[^\]]*\]")
_MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


def spoken(text: str) -> str:
    """Screen text as a sentence to say: no markup, no rule ids in brackets (they are
    for looking the rule up), lines joined into sentences."""
    text = _RULE_TAG.sub("", _MARKUP.sub("", text))
    lines = [line.strip(" •-") for line in text.splitlines() if line.strip(" •-")]
    return " ".join(line if line[-1] in ".!?…:" else line + "." for line in lines)


def announcements(
    view: PlayView, outputs: Sequence[Output], clock: Callable[[], float] = time.perf_counter
) -> list[Announcement]:
    """What to say about ``outputs``, in the words ``view`` shows: each accepted move's
    sentence from the log, then an illegal move's or the result's banner."""
    names = [output.name for output in outputs]
    said = []
    accepted = names.count("move_accepted")
    if accepted and view.log:
        now = clock()
        said += [Announcement("move", spoken(words), now) for _, words in view.log[-accepted:]]
    banner = view.banner
    if banner is not None:
        at = view.verdict_time or clock()
        first = banner.body.splitlines()[0] if banner.body else ""
        if banner.kind == "illegal" and "illegal_move" in names:
            said.append(Announcement("illegal", spoken(f"{banner.title}\n{first}"), at))
        elif banner.kind == "over" and "game_over" in names:
            said.append(Announcement("over", spoken(f"{banner.title}\n{banner.body}"), at))
    return said


# ---------------------------------------------------------------------- voices


class Voice(Protocol):
    """A speech engine: ``say`` returns once the text has been said (or cut short by
    ``stop``, from another thread). Both may raise ``SpeechUnavailable``."""

    def say(self, text: str, language: str) -> None: ...

    def stop(self) -> None: ...


class CommandVoice:
    """espeak-ng or espeak, with the app's language as its voice."""

    def __init__(self, program: str) -> None:
        self.program = program
        self._process: subprocess.Popen[bytes] | None = None

    def say(self, text: str, language: str) -> None:
        try:
            self._process = subprocess.Popen(
                [self.program, "-v", language, "--", text],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self._process.wait(SPEECH_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as error:
            self.stop()
            raise SpeechUnavailable(f"{self.program} failed: {error}") from None

    def stop(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()


class AndroidVoice:
    """Android's text-to-speech engine (one for the app), its language set to the
    app's before each announcement. Raises ``SpeechUnavailable`` when it does not
    start."""

    def __init__(self) -> None:
        try:
            from jnius import PythonJavaClass, autoclass, java_method  # deferred: Android only
        except ImportError as error:
            raise SpeechUnavailable(f"no pyjnius ({error})") from None

        class Started(PythonJavaClass):
            __javainterfaces__ = ("android/speech/tts/TextToSpeech$OnInitListener",)
            __javacontext__ = "app"

            def __init__(self) -> None:
                super().__init__()
                self.done = threading.Event()
                self.ok = False

            @java_method("(I)V")
            def onInit(self, status: int) -> None:
                self.ok = status == 0  # TextToSpeech.SUCCESS
                self.done.set()

        self._started = Started()
        speech = autoclass("android.speech.tts.TextToSpeech")
        self._locale = autoclass("java.util.Locale")
        activity = autoclass("org.kivy.android.PythonActivity").mActivity
        self._engine = speech(activity, self._started)
        self._queue_add = speech.QUEUE_ADD
        if not self._started.done.wait(5.0) or not self._started.ok:
            raise SpeechUnavailable("Android's text-to-speech did not start")
        self._language = ""

    def say(self, text: str, language: str) -> None:
        if language != self._language:
            self._engine.setLanguage(self._locale(language))
            self._language = language
        self._engine.speak(text, self._queue_add, None, "companion")
        deadline = time.monotonic() + SPEECH_TIMEOUT
        time.sleep(0.05)  # the engine starts speaking a moment after being asked
        while self._engine.isSpeaking() and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> None:
        self._engine.stop()


class PlyerVoice:
    """plyer's ``tts``: the system's speech in the system's language."""

    def __init__(self) -> None:
        try:
            from plyer import tts  # deferred: plyer, optional
        except ImportError as error:
            raise SpeechUnavailable(
                f"no speech engine: install espeak-ng, or plyer ({error})"
            ) from None
        self._tts = tts

    def say(self, text: str, language: str) -> None:
        try:
            self._tts.speak(message=text)
        except NotImplementedError:
            raise SpeechUnavailable(
                "plyer has no speech on this system (on Linux it needs espeak or flite)"
            ) from None

    def stop(self) -> None:
        """plyer cannot stop a sentence: it ends on its own."""


def find_voice(platform: str | None = None) -> Voice:
    """The best voice of this machine (see the module's docstring). Raises
    ``SpeechUnavailable`` when there is none."""
    if platform is None:
        from kivy.utils import platform as kivy_platform  # deferred: kivy

        platform = str(kivy_platform)
    if platform == "android":
        return AndroidVoice()
    for program in ("espeak-ng", "espeak"):
        found = shutil.which(program)
        if found:
            return CommandVoice(found)
    return PlyerVoice()


# ---------------------------------------------------------------------- the announcer


class Announcer:
    """Says announcements on its own thread (see the module's docstring). ``enabled``
    is the player's setting, ``muted`` the Play screen's mute; ``language()`` gives the
    app's language at the time of speaking. ``said`` keeps (announcement, when the
    voice was asked) for the last few hundred, ``dropped`` counts those not said."""

    def __init__(
        self,
        voice: Callable[[], Voice] = find_voice,
        language: Callable[[], str] = lambda: "en",
        clock: Callable[[], float] = time.perf_counter,
        max_waiting: int = MAX_WAITING,
        stale_after: float = STALE_AFTER,
    ) -> None:
        self.voice_factory = voice
        self.language = language
        self.clock = clock
        self.max_waiting = max_waiting
        self.stale_after = stale_after
        self.enabled = False
        self.said: deque[tuple[Announcement, float]] = deque(maxlen=500)
        self.dropped = 0
        self.unavailable = ""
        """Why nothing can be said on this machine (empty until a voice fails)."""
        self._muted = False
        self._voice: Voice | None = None
        self._speaking: Announcement | None = None
        self._waiting: list[Announcement] = []
        self._condition = threading.Condition()
        self._closing = False
        self._thread: threading.Thread | None = None

    @property
    def muted(self) -> bool:
        return self._muted

    @muted.setter
    def muted(self, muted: bool) -> None:
        """Muting drops what waits and cuts short what is being said."""
        self._muted = muted
        if muted:
            self._silence()

    def set_enabled(self, enabled: bool) -> None:
        self.enabled = enabled
        if not enabled:
            self._silence()

    def tell(self, view: PlayView, outputs: Sequence[Output]) -> None:
        """Announce what ``outputs`` did, as ``view`` shows it; returns at once."""
        if self.enabled and not self._muted and not self.unavailable:
            for announcement in announcements(view, outputs, self.clock):
                self.add(announcement)

    def add(self, announcement: Announcement) -> None:
        """Queue one announcement (see the module's docstring); returns at once."""
        interrupt = None
        with self._condition:
            now = self.clock()
            fresh = [a for a in self._waiting if now - a.at <= self.stale_after]
            self.dropped += len(self._waiting) - len(fresh)
            fresh.append(announcement)
            while len(fresh) > self.max_waiting:
                least = min(range(len(fresh)), key=lambda i: (PRIORITY[fresh[i].kind], i))
                del fresh[least]
                self.dropped += 1
            self._waiting = fresh
            speaking = self._speaking
            if speaking is not None and PRIORITY[announcement.kind] > PRIORITY[speaking.kind]:
                interrupt = self._voice
            self._condition.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
                self._thread.start()
        if interrupt is not None:
            interrupt.stop()

    def close(self) -> None:
        with self._condition:
            self._closing = True
            self._waiting.clear()
            self._condition.notify()
            thread = self._thread
        if self._voice is not None:
            self._voice.stop()
        if thread is not None and thread is not threading.current_thread():
            thread.join(2.0)

    def wait_asked(self, timeout: float) -> bool:
        """Wait until the voice has been handed everything waiting (benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while self._waiting:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._condition.wait(min(left, 0.01))
        return True

    def wait_quiet(self, timeout: float) -> bool:
        """Wait until nothing waits or is being said (tests, benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while self._waiting or self._speaking is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._condition.wait(min(left, 0.05))
        return True

    def _silence(self) -> None:
        with self._condition:
            self.dropped += len(self._waiting)
            self._waiting.clear()
            speaking = self._speaking is not None
        if speaking and self._voice is not None:
            self._voice.stop()

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._waiting and not self._closing:
                    self._condition.wait()
                if self._closing:
                    return
                # the most important first, then the oldest
                first = max(
                    range(len(self._waiting)), key=lambda i: (PRIORITY[self._waiting[i].kind], -i)
                )
                announcement = self._waiting.pop(first)
                self._condition.notify_all()
                if self._muted or self.clock() - announcement.at > self.stale_after:
                    self.dropped += 1
                    continue
                self._speaking = announcement
            try:
                self._say(announcement)
            finally:
                with self._condition:
                    self._speaking = None
                    self._condition.notify_all()

    def _say(self, announcement: Announcement) -> None:
        if self.unavailable:  # said once why; the machine will not speak this time
            self.dropped += 1
            return
        try:
            if self._voice is None:
                self._voice = self.voice_factory()
            self.said.append((announcement, self.clock()))
            self._voice.say(announcement.text, self.language())
        except SpeechUnavailable as error:
            self._give_up(str(error))
        except Exception as error:  # a voice's own failure must not end the app's speech quietly
            self._give_up(f"{type(error).__name__}: {error}")

    def _give_up(self, why: str) -> None:
        self.unavailable = why
        with self._condition:
            self.dropped += len(self._waiting)
            self._waiting.clear()
        log.info("Spoken announcements are off: %s", why)


__all__ = [
    "Announcement",
    "Announcer",
    "SpeechUnavailable",
    "Voice",
    "announcements",
    "find_voice",
    "spoken",
]
