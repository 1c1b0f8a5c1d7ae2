"""``companion app`` and ``companion bench app`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main


def test_app_refuses_a_missing_video(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["app", "--video", "no-such-film.mp4"]) == 2
    assert "no-such-film.mp4: no such file" in capsys.readouterr().err


def test_app_without_a_display_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["app", "--demo"]) == 2
    assert "no display" in capsys.readouterr().err


def test_bench_app_refuses_bad_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "app", "--starts", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_app_cli_exposes_run_app() -> None:
    from companion.app import run_app
    from companion.cli import app as app_cli

    assert app_cli.run_app is run_app


@pytest.mark.slow
def test_bench_app_measures_the_three_figures(
    capsys: pytest.CaptureFixture[str], board_video: Path
) -> None:
    assert (
        main(
            [
                "bench",
                "app",
                "--video",
                str(board_video),
                "--starts",
                "1",
                "--banners",
                "2",
                "--seconds",
                "10",
                "--json",
            ]
        )
        == 0
    )
    figures = json.loads(capsys.readouterr().out)
    assert figures["start_process_s_median"] > 0
    assert figures["live_view_fps_recognised"] > 0 and figures["frames"] == 16
    assert figures["banners"] == 2 and figures["verdict_to_banner_ms_max"] < 5000
