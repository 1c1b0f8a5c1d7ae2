"""Two small dialogs: a question with two answers (``confirm``) before something that
cannot be undone lightly, and a message to acknowledge (``tell``) after something
that happened out of sight (a file written)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.factory import Factory
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup

from companion.app.screens.common import running_app as _app


def _dialog(
    title: str, text: str, buttons: list[tuple[str, Callable[[], None] | None, tuple[float, ...]]]
) -> Popup:
    body = BoxLayout(orientation="vertical", spacing=dp(12), padding=dp(8))
    message = Factory.WrapLabel(text=text, font_size="19sp")
    body.add_widget(message)
    body.add_widget(Factory.Widget())
    row = BoxLayout(size_hint_y=None, height=dp(60), spacing=dp(10))
    popup = Popup(
        title=title,
        title_size="22sp",
        content=body,
        auto_dismiss=False,
        size_hint=(0.8, None),
        height=dp(330),
    )

    def answer(action: Callable[[], None] | None) -> Callable[[Any], None]:
        def run(_button: Any) -> None:
            popup.dismiss(animation=False)
            if action is not None:
                action()

        return run

    popup.buttons = []  # the answers, in order (for tests)
    for label, action, colour in buttons:
        button = Factory.TapButton(text=label, background_color=colour)
        button.bind(on_release=answer(action))
        row.add_widget(button)
        popup.buttons.append(button)
    body.add_widget(row)
    popup.open(animation=False)
    return popup


def confirm(title: str, text: str, yes: str, no: str, on_yes: Callable[[], None]) -> Popup:
    """Ask; ``on_yes`` runs only if the player chooses ``yes`` (the last button)."""
    return _dialog(
        title, text, [(no, None, (0.35, 0.35, 0.40, 1)), (yes, on_yes, (0.8, 0.4, 0.2, 1))]
    )


def tell(title: str, text: str) -> Popup:
    """Say something that needs an OK."""
    return _dialog(title, text, [(_app().t("common.ok"), None, (0.2, 0.6, 0.3, 1))])
