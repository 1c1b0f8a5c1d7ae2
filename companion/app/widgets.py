"""The app's own widgets: the digital board, the live camera view, the board layout
over it while calibrating, and the alarm sound. They draw what they are given and
forward taps; the shapes come from ``layout.paint``, the frames from the session and
the layout's outlines from ``layout_edit``, so no game logic lives here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kivy.core.audio import SoundLoader
from kivy.graphics import Color, Ellipse, Line, PopMatrix, PushMatrix, Rectangle, Rotate
from kivy.graphics.texture import Texture
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty, StringProperty
from kivy.uix.image import Image as KivyImage
from kivy.uix.widget import Widget

from companion.app.layout import Shape
from companion.app.layout_edit import CLEAR, DOUBTFUL, FOLLOWS, MOVED, Outline, PictureBox


class BoardWidget(Widget):
    """Draws a list of ``layout.Shape`` (board millimetres, y down) scaled to fit,
    centred, y up as Kivy draws."""

    shapes = ListProperty([])
    board_size = ListProperty([500.0, 500.0])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(shapes=self._redraw, board_size=self._redraw, size=self._redraw, pos=self._redraw)

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
    texture: Any  # Kivy's property of ``Image``

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


OUTLINE_RGBA = {
    CLEAR: (0.30, 0.90, 0.30, 1.0),
    DOUBTFUL: (1.0, 0.50, 0.0, 1.0),
    FOLLOWS: (0.35, 0.65, 1.0, 1.0),
    MOVED: (1.0, 0.35, 1.0, 1.0),
}
"""The layout's outlines: found clearly (green), doubtful (orange, drawn thicker),
following their neighbours (blue), moved by the player (pink)."""


class LayoutOverlay(Widget):
    """The board layout over the live picture (the same box as the ``CameraView``,
    whose picture it fits the same way): draws ``editor``'s outlines, and a touch drag
    on one moves that element, or its whole group with ``group``, through the editor
    (``layout_edit.LayoutEditor``). Fires ``on_moved(label, shift_mm)`` after each
    kept drag."""

    editor = ObjectProperty(None, allownone=True)
    group = BooleanProperty(False)
    __events__ = ("on_moved",)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(editor=self.redraw, size=self.redraw, pos=self.redraw)

    def box(self) -> PictureBox | None:
        if self.editor is None:
            return None
        return PictureBox.contain(tuple(self.editor.view.image_size), self.pos, self.size)

    def redraw(self, *_: Any) -> None:
        self._draw(self.editor.outlines() if self.editor is not None else [])

    def _draw(self, outlines: list[Outline]) -> None:
        self.canvas.clear()
        box = self.box()
        if box is None:
            return
        with self.canvas:
            for outline in outlines:
                Color(*OUTLINE_RGBA[outline.state])
                points = box.to_widget(outline.points_px).reshape(-1).tolist()
                thick = outline.state in (DOUBTFUL, MOVED)
                Line(points=points, close=True, width=dp(2.2) if thick else dp(1.1))

    def on_touch_down(self, touch: Any) -> bool:
        box = self.box()
        if box is None or not self.collide_point(*touch.pos):
            return bool(super().on_touch_down(touch))
        start = box.to_picture(*touch.pos)
        target = self.editor.pick(start, self.group, box.picture_px(dp(14)))
        if target is None:
            return bool(super().on_touch_down(touch))
        touch.grab(self)
        touch.ud[self.uid] = (target, start)
        return True

    def on_touch_move(self, touch: Any) -> bool:
        box = self.box()
        if touch.grab_current is not self or box is None:
            return bool(super().on_touch_move(touch))
        target, start = touch.ud[self.uid]
        editor = self.editor
        moving = editor.moved_fit(target, editor.shift_mm(start, box.to_picture(*touch.pos)))
        self._draw(editor.outlines(moving, editor.moved | set(target.names)))
        return True

    def on_touch_up(self, touch: Any) -> bool:
        box = self.box()
        if touch.grab_current is not self:
            return bool(super().on_touch_up(touch))
        touch.ungrab(self)
        if box is None:
            return True
        target, start = touch.ud.pop(self.uid)
        shift = self.editor.drag(target, start, box.to_picture(*touch.pos))
        self.redraw()
        if shift != (0.0, 0.0):
            self.dispatch("on_moved", target.label, shift)
        return True

    def on_moved(self, label: str, shift_mm: tuple[float, float]) -> None:
        pass


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
