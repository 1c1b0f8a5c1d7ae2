"""What every screen shares: the running app and a way back onto the UI thread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.uix.boxlayout import BoxLayout

if TYPE_CHECKING:
    from companion.app.main import CompanionApp


def post(callback: Any) -> None:
    """Run ``callback`` on the UI thread at the next frame."""
    Clock.schedule_once(lambda _dt: callback(), 0)


def running_app() -> CompanionApp:
    """The running ``CompanionApp`` (its strings, data folder and screen switching)."""
    app: CompanionApp = App.get_running_app()
    return app


class RootView(BoxLayout):
    """The top bar and the screens (``kv/common.kv``)."""
