"""Spoken announcements with a fake voice that records when it is asked: the same words
as the screen in each language, never blocking the caller, stale announcements dropped,
an illegal move cutting a move short, mute, a machine without speech (one quiet log
line), the time from an illegal move to its spoken call, and in the real app the
Voice and Large text settings and the last move shown large."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from companion.app.controller import PlayController
from companion.app.gamesetup import GameSetup
from companion.app.i18n import Translator
from companion.app.speech import (
    Announcement,
    Announcer,
    SpeechUnavailable,
    announcements,
    find_voice,
    spoken,
)
from companion.referee.events import IllegalMove, MoveAccepted, Output
from companion.simulator import TableConfig, TableSimulator
from tests.app.conftest import Driver


class RecordingVoice:
    """Says nothing: records each text, its language and when it was asked, and takes
    ``seconds_per_char`` over it (about a real voice's pace) unless stopped."""

    def __init__(self, seconds_per_char: float = 0.0) -> None:
        self.calls: list[tuple[str, str, float]] = []
        self.seconds_per_char = seconds_per_char
        self.stops = 0
        self._stopped = threading.Event()

    def say(self, text: str, language: str) -> None:
        self.calls.append((text, language, time.perf_counter()))
        self._stopped.clear()
        self._stopped.wait(len(text) * self.seconds_per_char)

    def stop(self) -> None:
        self.stops += 1
        self._stopped.set()


def _game(language: str = "en") -> PlayController:
    return PlayController.start(GameSetup.default("shangrila"), Translator(language), None)


def _illegal(controller: PlayController) -> list[Output]:
    """Type moves of a simulated game until one is illegal; its outputs."""
    rules = controller.referee.rules
    for step in TableSimulator.random(rules, TableConfig(illegal=0.3), seed=5):
        outputs = controller.handle(step.event)
        if any(isinstance(o, IllegalMove) for o in outputs):
            return outputs
    raise AssertionError("no illegal move in the simulated game")


def test_spoken_text_drops_rule_ids_and_markup() -> None:
    assert (
        spoken("[b]Illegal move by Red[/b]\nNo tile there. [R3]\n• put it back")
        == "Illegal move by Red. No tile there. put it back."
    )


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_announcements_are_the_screens_words(language: str) -> None:
    controller = _game(language)
    move = controller.referee.rules.format_move(controller.referee.state.legal_moves()[0])
    outputs = controller.typed(move)
    assert any(isinstance(o, MoveAccepted) for o in outputs)
    view = controller.view()
    [said] = announcements(view, outputs)
    assert said.kind == "move" and said.text == spoken(view.log[-1][1])
    outputs = _illegal(controller)
    view = controller.view()
    illegal = [a for a in announcements(view, outputs) if a.kind == "illegal"]
    assert len(illegal) == 1 and illegal[0].text.startswith(spoken(view.banner.title))
    assert illegal[0].at == view.verdict_time
    assert "[" not in illegal[0].text


def test_telling_never_waits_for_the_voice() -> None:
    voice = RecordingVoice(seconds_per_char=0.05)  # each announcement takes seconds
    announcer = Announcer(lambda: voice, language=lambda: "fr")
    announcer.set_enabled(True)
    started = time.perf_counter()
    for n in range(10):
        announcer.add(Announcement("move", f"Move {n} said slowly", time.perf_counter()))
    assert time.perf_counter() - started < 0.05
    deadline = time.perf_counter() + 2.0
    while not voice.calls and time.perf_counter() < deadline:
        time.sleep(0.005)
    announcer.set_enabled(False)  # cuts short what is being said, drops what waits
    assert announcer.wait_quiet(2.0)
    assert len(voice.calls) == 1 and voice.calls[0][1] == "fr"
    assert announcer.dropped == 9
    announcer.close()


def test_pile_up_keeps_the_newest_and_the_important() -> None:
    voice = RecordingVoice(seconds_per_char=0.01)
    announcer = Announcer(lambda: voice, max_waiting=2)
    announcer.set_enabled(True)
    now = time.perf_counter()
    announcer.add(Announcement("move", "first move, being said", now))
    time.sleep(0.05)
    announcer.add(Announcement("illegal", "Illegal move by Red", now))  # cuts it short
    announcer.add(Announcement("move", "second move", now))
    announcer.add(Announcement("move", "third move", now))
    assert announcer.wait_quiet(3.0)
    assert [text for text, _, _ in voice.calls] == [
        "first move, being said",
        "Illegal move by Red",
        "third move",
    ]
    assert voice.stops == 1 and announcer.dropped == 1
    old = Announcement("move", "long ago", time.perf_counter() - 60)
    announcer.add(old)
    assert announcer.wait_quiet(2.0) and voice.calls[-1][0] == "third move"
    announcer.close()


def test_muted_says_nothing() -> None:
    voice = RecordingVoice()
    announcer = Announcer(lambda: voice)
    announcer.set_enabled(True)
    announcer.muted = True
    controller = _game()
    outputs = _illegal(controller)
    announcer.tell(controller.view(), outputs)
    announcer.muted = False
    assert announcer.wait_quiet(1.0) and voice.calls == []
    announcer.tell(controller.view(), outputs)
    assert announcer.wait_quiet(1.0) and len(voice.calls) == 1
    announcer.close()


def test_no_speech_on_the_machine_is_one_quiet_line(caplog: pytest.LogCaptureFixture) -> None:
    def no_voice() -> Any:
        raise SpeechUnavailable("no speech engine: install espeak-ng, or plyer")

    announcer = Announcer(no_voice)
    announcer.set_enabled(True)
    with caplog.at_level(logging.INFO, logger="companion.app.speech"):
        for n in range(3):
            announcer.add(Announcement("move", f"move {n}", time.perf_counter()))
            announcer.wait_quiet(1.0)
        controller = _game()
        announcer.tell(controller.view(), _illegal(controller))
        announcer.wait_quiet(1.0)
    lines = [r for r in caplog.records if r.name == "companion.app.speech"]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert "install espeak-ng" in lines[0].getMessage()
    assert announcer.unavailable.startswith("no speech engine")
    announcer.close()


def test_the_desktop_finds_a_voice_or_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda program: None)
    monkeypatch.setitem(__import__("sys").modules, "plyer", None)
    with pytest.raises(SpeechUnavailable, match="install espeak-ng, or plyer"):
        find_voice("linux")
    monkeypatch.setattr(shutil, "which", lambda program: f"/usr/bin/{program}")
    assert find_voice("linux").program == "/usr/bin/espeak-ng"  # type: ignore[attr-defined]


def test_illegal_move_to_spoken_call() -> None:
    """From the referee's verdict to the voice being asked, through the session's
    threads as in the app (the UI thread's hop is a plain call here)."""
    from companion.app.session import Session

    voice = RecordingVoice()
    announcer = Announcer(lambda: voice)
    announcer.set_enabled(True)

    class Screen:
        def show_view(self, view: Any, outputs: list[Output]) -> None:
            announcer.tell(view, outputs)

        def show_frame(self, frame: Any, message: str) -> None:
            pass

        def show_notice(self, key: str, detail: str) -> None:
            pass

    setup = GameSetup.default("shangrila")
    controller = PlayController.start(setup, Translator(), None)
    session = Session(controller, setup, Screen(), lambda callback: callback()).start()
    delays = []
    try:
        steps = TableSimulator.random(controller.referee.rules, TableConfig(illegal=0.3), seed=8)
        for step in steps:
            before, handled = len(voice.calls), session.worker.handled
            session.send(step.event)
            deadline = time.perf_counter() + 5.0
            while session.worker.handled == handled and time.perf_counter() < deadline:
                time.sleep(0.0005)
            assert announcer.wait_quiet(2.0)
            view = controller.view()
            if (
                view.banner is not None
                and view.banner.kind == "illegal"
                and len(voice.calls) > before
                and voice.calls[-1][0].startswith(spoken(view.banner.title))
            ):
                delays.append(voice.calls[-1][2] - view.verdict_time)
            if len(delays) >= 5:
                break
    finally:
        session.stop()
        announcer.close()
    assert len(delays) == 5 and all(0 <= d < 1.0 for d in delays), delays


def test_voice_and_large_text_settings_in_the_app(ui: Driver) -> None:
    app = ui.app
    play = app.root.ids.play
    voice = RecordingVoice()
    app.speech.voice_factory = lambda: voice
    app.speech._voice = None
    ui.app.go("start")
    app.root.ids.start.load(GameSetup.default("shangrila"))
    ui.pump(2)
    app.root.ids.start.begin()
    ui.pump(2)
    try:
        play.ids.voice.trigger_action(0)
        play.ids.large_text.trigger_action(0)
        ui.pump(2)
        assert app.speaking and app.text_scale > 1
        assert app.config.get("table", "speech") == "1"
        assert "large_text = 1" in (app.data_path / "companion.ini").read_text()
        assert play.ids.turn.font_size > 24 * 1.4  # sp(24) at least, times 1.5
        app.speech.muted = False  # the test app starts muted
        rules = play.controller.referee.rules
        steps = iter(TableSimulator.random(rules, TableConfig(illegal=0.15), seed=3))
        assert ui.feed(steps, lambda: play.banner_kind == "illegal" and play.last_move)
        assert app.speech.wait_quiet(2.0)
        ui.pump(2)
        said = [text for text, _, _ in voice.calls]
        assert said and said[-1].startswith(spoken(play.banner_title))
        assert play.last_move and play.ids.last_move.text == play.last_move
        assert spoken(play.last_move) in said
        path = ui.shot("play-large-text", "landscape")
        assert path.exists()
    finally:
        play.ids.voice.trigger_action(0)
        play.ids.large_text.trigger_action(0)
        ui.pump(2)
        app.speech.voice_factory = lambda: RecordingVoice()
    assert not app.speaking and app.text_scale == 1.0


def test_espeak_is_asked_in_the_apps_language(tmp_path: Any) -> None:
    from companion.app.speech import CommandVoice

    said = tmp_path / "said.txt"
    program = tmp_path / "espeak-ng"
    program.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > "{said}"\n')
    program.chmod(0o755)
    CommandVoice(str(program)).say("Coup illégal de Rouge.", "fr")
    assert said.read_text() == "-v|fr|--|Coup illégal de Rouge.|"
    with pytest.raises(SpeechUnavailable, match="failed"):
        CommandVoice(str(tmp_path / "missing")).say("x", "en")


def test_android_speech_through_pyjnius(monkeypatch: pytest.MonkeyPatch) -> None:
    """Android's TextToSpeech as pyjnius shows it: started through its listener, the
    language set once per change, each text queued and waited for."""
    import sys
    import types

    from companion.app.speech import AndroidVoice

    calls: list[tuple[Any, ...]] = []

    class TextToSpeech:
        QUEUE_ADD = 1

        def __init__(self, activity: Any, listener: Any) -> None:
            self.speaking = 0
            threading.Timer(0.01, listener.onInit, args=(0,)).start()

        def setLanguage(self, locale: Any) -> int:
            calls.append(("language", locale))
            return 0

        def speak(self, text: str, mode: int, params: Any, utterance: str) -> int:
            calls.append(("speak", text, mode))
            self.speaking = 3  # busy for three polls
            return 0

        def isSpeaking(self) -> bool:
            self.speaking = max(0, self.speaking - 1)
            return self.speaking > 0

        def stop(self) -> None:
            calls.append(("stop",))

    classes = {
        "android.speech.tts.TextToSpeech": TextToSpeech,
        "java.util.Locale": lambda language: f"Locale({language})",
        "org.kivy.android.PythonActivity": types.SimpleNamespace(mActivity="activity"),
    }
    jnius = types.ModuleType("jnius")
    jnius.autoclass = classes.__getitem__  # type: ignore[attr-defined]
    jnius.PythonJavaClass = object  # type: ignore[attr-defined]
    jnius.java_method = lambda signature: lambda method: method  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jnius", jnius)
    voice = AndroidVoice()
    voice.say("Coup illégal de Rouge.", "fr")
    voice.say("Rouge joue.", "fr")
    voice.say("Red plays.", "en")
    voice.stop()
    assert calls == [
        ("language", "Locale(fr)"),
        ("speak", "Coup illégal de Rouge.", 1),
        ("speak", "Rouge joue.", 1),
        ("language", "Locale(en)"),
        ("speak", "Red plays.", 1),
        ("stop",),
    ]
    assert find_voice("android").__class__ is AndroidVoice
