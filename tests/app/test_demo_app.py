"""``companion demo`` with a display: the app opens on the film, its camera reading
through the table profile the demo calibrated (not the player's default profile)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.app.people import DemoFilm
from companion.demo import run
from companion.demo.calibrate import TableCalibration
from companion.demo.report import Timings
from companion.demo.script import SPECS, Script
from engines.registry import rules_class
from vision.table_profile import TableProfile


def test_the_demo_opens_the_app_on_its_film_through_its_calibration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kivy.app import App

    from companion.app.main import CompanionApp
    from companion.app.recognition import VisionRecogniser

    # the app made here is never run: the session's running app must stay the one
    # the other app tests drive
    monkeypatch.setattr(App, "_running_app", App._running_app)

    spec = SPECS["shangrila"]
    script = Script(spec, 0, rules_class("shangrila")(list(spec.players)), [], 0)
    profile = TableProfile("shangrila", "demo")
    prepared = run.Prepared(
        script,
        TableCalibration(profile, tmp_path, (), 0.0),
        [],
        tmp_path / "film.mp4",
        Timings(0.0, 0.0, 0, 0.0, 0.0),
    )
    built: list[tuple[Any, Any, Any]] = []
    real_pipeline = run.camera_pipeline

    def pipeline(profile: Any, rules: Any, reader: str = "appearance") -> Any:
        made = real_pipeline(profile, rules, reader)
        built.append((profile, rules, made))
        return made

    opened: list[CompanionApp] = []
    monkeypatch.setattr(run, "prepare", lambda options, out: prepared)
    monkeypatch.setattr(run, "camera_pipeline", pipeline)
    monkeypatch.setattr(CompanionApp, "run", lambda app: opened.append(app))
    assert run.open_app(run.DemoOptions(out=tmp_path)) == 0
    (app,) = opened
    assert app.autostart
    assert (app.setup.camera, app.setup.video) == ("video", str(tmp_path / "film.mp4"))
    assert app.setup.start == script.start.to_json()
    ((used, rules, made),) = built
    assert used is profile and rules is script.rules
    recogniser = app.session_options["recogniser"]
    assert isinstance(recogniser, VisionRecogniser) and recogniser.pipeline is made
    # the film with its truth: its people press done and answer, as headless
    film = app.session_options["film"]
    assert isinstance(film, DemoFilm) and film.moments is prepared.film
    assert film.simulator.start == script.start and film.on_end is not None
