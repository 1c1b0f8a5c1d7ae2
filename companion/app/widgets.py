"""The app's own widgets: the digital board, the live camera view and the alarm sound.
They draw what they are given and forward taps; the shapes come from ``layout.paint``
and the frames from the session, so no game logic lives here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.core.audio import SoundLoader
from kivy.graphics import Color, Ellipse, Line, PopMatrix, PushMatrix, Rectangle, Rotate
from kivy.graphics.texture import Texture
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.image import Image as KivyImage
from kivy.uix.widget import Widget

from companion.app.layout import Shape


class BoardWidget(Widget):
    """Draws a list of ``layout.Shape`` (board millimetres, y down) scaled to fit,
    centred, y up as Kivy draws."""

    shapes = ListProperty([])
    board_size = ListProperty([500.0, 500.0])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(shapes=self._redraw, board_size=self._redraw, size=self._redraw,
                  pos=self._redraw)

    def fit(self) -> tuple[float, float, float]:
        """(scale px per mm, x and y of the board's top-left corner in window px)."""
        bw, bh = self.board_size
        scale = min(self.width / bw, self.height / bh) if bw and bh else 1.0
        left = self.x + (self.width - bw * scale) / 2
        top = self.y + (self.height + bh * scale) / 2
        return scale, left, top

    def _redraw(self, *_: Any) -> None:
        self.canvas.clear()
        scale, left, top = self.fit()
        with self.canvas:
            for shape in self.shapes:
                _draw(shape, scale, left, top)


def _draw(shape: Shape, scale: float, left: float, top: float) -> None:
    cx = left + shape.centre[0] * scale
    cy = top - shape.centre[1] * scale
    w, h = shape.size[0] * scale, shape.size[1] * scale
    Color(*shape.rgba)
    turned = bool(shape.angle)
    if turned:
        PushMatrix()
        # Board angles turn clockwise with y down; on screen (y up) that is -angle.
        Rotate(angle=-shape.angle, origin=(cx, cy))
    if shape.shape == "rect":
        Rectangle(pos=(cx - w / 2, cy - h / 2), size=(w, h))
    elif shape.shape == "ellipse":
        Ellipse(pos=(cx - w / 2, cy - h / 2), size=(w, h))
    else:
        Line(rectangle=(cx - w / 2, cy - h / 2, w, h), width=max(1.0, shape.width * scale))
    if turned:
        PopMatrix()


class CameraView(KivyImage):
    """The live picture: BGRA frames (``feeds.for_display``) blitted into one texture,
    made again only when the frame size changes; ``message`` is shown over it when there
    is no picture."""

    message = StringProperty("")
    has_frame = BooleanProperty(False)

    def show_frame(self, frame: Any) -> None:
        height, width = frame.shape[:2]
        texture = self.texture
        if texture is None or tuple(texture.size) != (width, height) or not self.has_frame:
            texture = Texture.create(size=(width, height), colorfmt="bgra")
            texture.flip_vertical()
            self.texture = texture
        texture.blit_buffer(frame.tobytes(), colorfmt="bgra", bufferfmt="ubyte")
        self.has_frame = True
        self.canvas.ask_update()


class Alarm:
    """The illegal-move chime (``sound.alarm_file``); silent when ``muted`` or when the
    machine has no audio output."""

    def __init__(self, path: Path) -> None:
        self.muted = False
        self._sound: Any = None
        self._path = path

    def play(self) -> bool:
        """Play the chime; False when muted or no sound could be loaded."""
        if self.muted:
            return False
        if self._sound is None:
            self._sound = SoundLoader.load(str(self._path)) or False
        if not self._sound:
            return False
        self._sound.stop()
        self._sound.play()
        return True


class Swatch(Widget):
    """A small square of a player's colour (the Start screen's seat rows)."""

    rgba = ListProperty([1, 1, 1, 1])

