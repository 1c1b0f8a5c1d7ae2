"""``companion app`` checks its arguments before it opens a window: with a display
there, a player count the game does not allow, or a camera number below 0, is one line
and exit status 2, and the app is never started."""

from __future__ import annotations

from typing import Any

import pytest

from companion.cli import main


@pytest.fixture
def no_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.cli import app as app_cli

    def started(**_: Any) -> int:
        raise AssertionError("the app was started")

    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")
    monkeypatch.setattr(app_cli, "run_app", started)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["app", "--players", "9"], "shangrila is played by 3 to 4 players"),
        (["app", "--players", "0"], "shangrila is played by 3 to 4 players"),
        (["app", "--game", "shendao", "--players", "3"], "shendao is played by 2 players"),
    ],
)
def test_a_player_count_the_game_does_not_allow(
    no_app: None, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_camera_number_below_zero(no_app: None, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["app", "--camera", "-1"])
    assert exit_.value.code == 2
    assert "-1 is not a camera number" in capsys.readouterr().err
