"""The demo's report follows the language asked for (``--language``, else the
system's): a short headless demo written in French, the referee's sentences too."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest

from companion.app.i18n import system_language
from companion.demo.run import DemoOptions, run_demo


def test_the_systems_language_is_used_when_the_app_has_it() -> None:
    assert system_language({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert system_language({"LC_ALL": "es_ES.UTF-8", "LANG": "fr_FR.UTF-8"}) == "es"
    assert system_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert system_language({"LANG": "C.UTF-8"}) == "en"
    assert system_language({}) == "en"


def test_the_demo_command_takes_the_language(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.cli import build_parser

    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    parser = build_parser()
    assert parser.parse_args(["demo", "--language", "fr"]).language == "fr"
    assert parser.parse_args(["demo"]).language is None  # the system's, when it runs
    with pytest.raises(SystemExit):
        parser.parse_args(["demo", "--language", "de"])


@pytest.mark.slow
def test_the_demo_report_is_in_french(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from calibration.profiles import DATA_DIR_ENV

    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "data"))
    page = run_demo(
        DemoOptions(out=tmp_path / "demo", moves=4, level=1, language="fr"), io.StringIO()
    )
    text = html.unescape(page.read_text(encoding="utf-8"))
    assert '<html lang="fr">' in text
    for french in (
        "Scores finaux",
        "Ce que l'arbitre a dit",
        "L'arbitre",
        "Départage",
        "Le jeu de chaque joueur",
        "Rouge",
        "perte moyenne",
    ):
        assert french in text, french
    for english in (
        "Final scores",
        "What the referee said",
        "Tie-break",
        "false alarms",
        "How well each player played",
        "mean loss",
        "(winner)",
    ):
        assert english not in text, english
    said = text[text.index("Ce que l'arbitre a dit") :]
    assert re.search(r"Coup \d+ : ", said), said[:400]  # the referee's sentences, in French
