"""The digital board on screen: draws a ``scene.Scene`` scaled to fit and centred,
with its legend below the board or beside it, whichever leaves the board bigger in the
widget's place; makes the pieces to put back blink; and turns a tap into the element
tapped (``on_tap(name)``) when a question is open. What is drawn is decided in
``scene``."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import (
    Color,
    Ellipse,
    InstructionGroup,
    Line,
    PopMatrix,
    PushMatrix,
    Rectangle,
    Rotate,
)
from kivy.properties import ObjectProperty
from kivy.uix.widget import Widget

from companion.app.board.scene import Layer, Scene
from companion.app.layout import Shape

BLINK_SECONDS = 0.45
"""Half a period of the blinking of the pieces to put back."""


class BoardMapWidget(Widget):
    """Draws the scene ``painter(beside)`` makes (board millimetres, y down; the legend
    beside the board or below it) scaled to fit, centred, y up as Kivy draws; fires
    ``on_tap(element)`` for a tap on one of the scene's targets."""

    painter = ObjectProperty(None, allownone=True)
    __events__ = ("on_tap",)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scene: Scene | None = None
        """The scene drawn now."""
        self._scenes: dict[bool, Scene] = {}
        self._printed: tuple[Layer, tuple[float, ...], InstructionGroup] | None = None
        """The board's printed layer, drawn once per place and size: (layer, where,
        its instructions)."""
        self._textures: dict[tuple[str, int, bool], Any] = {}
        self._blink_group: InstructionGroup | None = None
        self._blink_off_group: InstructionGroup | None = None
        self._blink_on = True
        self._clock: Any = None
        # Moves and resizes come several to a layout pass: drawn once, before the frame.
        self._later = Clock.create_trigger(self.redraw, -1)
        self.bind(painter=self._new_painter, size=self._later, pos=self._later)

    def _new_painter(self, *_: Any) -> None:
        self._scenes = {}
        self.redraw()

    def _pick(self) -> Scene | None:
        """The scene with the legend where the board comes out bigger."""
        if self.painter is None:
            return None
        best, scale = None, -1.0
        for beside in (False, True):
            if beside not in self._scenes:
                self._scenes[beside] = self.painter(beside)
            scene = self._scenes[beside]
            bw, bh = scene.size
            fits = min(self.width / bw, self.height / bh)
            # The board's own width in the drawing: the same in both.
            if fits > scale + 1e-9:
                best, scale = scene, fits
        return best

    def fit(self) -> tuple[float, float, float]:
        """(scale px per mm, x and y of the drawing's top-left corner in window px)."""
        bw, bh = self.scene.size if self.scene is not None else (1.0, 1.0)
        scale = min(self.width / bw, self.height / bh) if bw and bh else 1.0
        left = self.x + (self.width - bw * scale) / 2
        top = self.y + (self.height + bh * scale) / 2
        return scale, left, top

    def to_board(self, x: float, y: float) -> tuple[float, float]:
        """A window point in board millimetres."""
        scale, left, top = self.fit()
        return (x - left) / scale, (top - y) / scale

    def redraw(self, *_: Any) -> None:
        self.canvas.clear()
        self.canvas.after.clear()
        scene = self.scene = self._pick()
        if scene is None:
            self._stop_blinking()
            return
        scale, left, top = self.fit()
        printed, *rest = scene.layers
        where = (*scene.size, scale, left, top)
        if self._printed is None or self._printed[0] is not printed \
                or self._printed[1] != where:
            group = InstructionGroup()
            self._layer(group, printed, scale, left, top)
            self._printed = (printed, where, group)
        self.canvas.add(self._printed[2])
        for layer in rest:
            self._layer(self.canvas, layer, scale, left, top)
        if scene.blink.shapes or scene.blink.texts:
            group, off = InstructionGroup(), InstructionGroup()
            self._layer(group, scene.blink, scale, left, top)
            self._layer(off, scene.blink_off, scale, left, top)
            self._blink_group, self._blink_off_group = group, off
            self._blink_on = True
            self.canvas.after.add(group)
            if self._clock is None:
                self._clock = Clock.schedule_interval(self._blink, BLINK_SECONDS)
        else:
            self._stop_blinking()

    def _stop_blinking(self) -> None:
        self._blink_group = self._blink_off_group = None
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None

    def _blink(self, *_: Any) -> None:
        if self._blink_group is None or self._blink_off_group is None:
            return
        self._blink_on = not self._blink_on
        self.canvas.after.clear()
        self.canvas.after.add(self._blink_group if self._blink_on else self._blink_off_group)

    @property
    def blinking(self) -> bool:
        """Whether pieces to put back are shown (and blink)."""
        return self._blink_group is not None

    @property
    def flash(self) -> bool:
        """Whether the blinking pieces are shown big now (else a plain frame)."""
        return self.blinking and self._blink_on

    def _layer(self, canvas: Any, layer: Layer, scale: float, left: float,
               top: float) -> None:
        for shape in layer.shapes:
            _shape(canvas, shape, scale, left, top)
        for stroke in layer.strokes:
            canvas.add(Color(*stroke.rgba))
            points = [v for x, y in stroke.points for v in (left + x * scale, top - y * scale)]
            canvas.add(Line(points=points, width=max(1.0, stroke.width * scale / 2),
                            close=stroke.closed))
        for text in layer.texts:
            texture = self._texture(text.text, max(7, round(text.height * scale * 1.3)),
                                    text.bold)
            w, h = texture.size
            cx, cy = left + text.centre[0] * scale, top - text.centre[1] * scale
            canvas.add(Color(*text.rgba))
            x = cx if text.left else cx - w / 2
            canvas.add(Rectangle(texture=texture, pos=(round(x), round(cy - h / 2)),
                                 size=(w, h)))

    def _texture(self, text: str, size: int, bold: bool) -> Any:
        key = (text, size, bold)
        texture = self._textures.get(key)
        if texture is None:
            label = CoreLabel(text=text, font_size=size, bold=bold)
            label.refresh()
            texture = label.texture
            if len(self._textures) > 2000:
                self._textures.clear()
            self._textures[key] = texture
        return texture

    def on_touch_down(self, touch: Any) -> bool:
        scene = self.scene
        if scene is None or not scene.targets or not self.collide_point(*touch.pos):
            return bool(super().on_touch_down(touch))
        element = scene.target_at(self.to_board(*touch.pos))
        if element is None:
            return bool(super().on_touch_down(touch))
        self.dispatch("on_tap", element)
        return True

    def on_tap(self, element: str) -> None:
        pass


def _shape(canvas: Any, shape: Shape, scale: float, left: float, top: float) -> None:
    cx = left + shape.centre[0] * scale
    cy = top - shape.centre[1] * scale
    w, h = shape.size[0] * scale, shape.size[1] * scale
    canvas.add(Color(*shape.rgba))
    turned = bool(shape.angle)
    if turned:
        canvas.add(PushMatrix())
        # Board angles turn clockwise with y down; on screen (y up) that is -angle.
        canvas.add(Rotate(angle=-shape.angle, origin=(cx, cy)))
    if shape.shape == "rect":
        canvas.add(Rectangle(pos=(cx - w / 2, cy - h / 2), size=(w, h)))
    elif shape.shape == "ellipse":
        canvas.add(Ellipse(pos=(cx - w / 2, cy - h / 2), size=(w, h)))
    else:
        canvas.add(Line(rectangle=(cx - w / 2, cy - h / 2, w, h),
                        width=max(1.0, shape.width * scale / 2)))
    if turned:
        canvas.add(PopMatrix())
