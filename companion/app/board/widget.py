"""The digital board on screen: draws a ``scene.Scene`` scaled to fit and centred,
with its legend below the board or beside it, whichever leaves the board bigger in the
widget's place; makes the pieces to put back blink; and turns a tap into the element
tapped (``on_tap(name)``) when a question is open. What is drawn is decided in
``scene``.

The drawing is made in board millimetres under one translation and scale, so moving or
resizing the widget (the banner coming or going) only changes those two: the texts,
rendered for one size, are rendered again once the size has stayed the same a moment.
"""

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
    Scale,
    Translate,
)
from kivy.properties import ObjectProperty
from kivy.uix.widget import Widget

from companion.app.board.scene import Layer, Scene, Text
from companion.app.layout import Shape

BLINK_SECONDS = 0.45
"""Half a period of the blinking of the pieces to put back."""
SETTLED_SECONDS = 1.0
"""How long the size must stay the same before the texts are rendered for it."""


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
        self._printed: tuple[Layer, float, InstructionGroup] | None = None
        """The board's printed layer, drawn once per scene size and text scale:
        (layer, text scale, its instructions)."""
        self._textures: dict[tuple[str, int, bool], Any] = {}
        self._drawn_at = 0.0
        """The scale (px per mm) the texts were rendered for."""
        self._translate = Translate()
        self._scale = Scale()
        self._content = InstructionGroup()
        self._blinker = InstructionGroup()
        for instruction in (
            PushMatrix(),
            self._translate,
            self._scale,
            self._content,
            self._blinker,
            PopMatrix(),
        ):
            self.canvas.add(instruction)
        self._blink_groups: tuple[InstructionGroup, InstructionGroup] | None = None
        self._blink_on = True
        self._clock: Any = None
        self._settle = Clock.create_trigger(self._settled, SETTLED_SECONDS)
        # Moves and resizes come several to a layout pass: placed once, before the frame.
        self._place_later = Clock.create_trigger(self._place, -1)
        self.bind(painter=self._new_painter, size=self._place_later, pos=self._place_later)

    def _new_painter(self, *_: Any) -> None:
        self._scenes = {}
        self.redraw()

    def _pick(self) -> Scene | None:
        """The scene with the legend where the board comes out bigger (the board is
        as wide in both, so the one drawn at the larger scale)."""
        if self.painter is None:
            return None
        best, scale = None, -1.0
        for beside in (False, True):
            if beside not in self._scenes:
                self._scenes[beside] = self.painter(beside)
            scene = self._scenes[beside]
            bw, bh = scene.size
            fits = min(self.width / bw, self.height / bh)
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

    def _place(self, *_: Any) -> None:
        """Fit the drawing to the widget; draw it again when the legend is better on
        the other side, and render the texts again once the size has settled."""
        if self.painter is not None and self._pick() is not self.scene:
            self.redraw()
            return
        self._transform()
        if self.scene is not None and abs(self.fit()[0] - self._drawn_at) > 1e-6:
            self._settle()

    def _settled(self, *_: Any) -> None:
        """The size has stayed: everything drawn again for it (texts crisp)."""
        if self.scene is None:
            return
        scale = self.fit()[0]
        if abs(scale - self._drawn_at) > 1e-6 or (
            self._printed is not None and abs(self._printed[1] - scale) > 1e-6
        ):
            self._printed = None
            self.redraw()

    def _transform(self) -> None:
        """The drawing (millimetres, y turned up: -y) to window pixels: scaled, its top
        left corner on the fitted one."""
        scale, left, top = self.fit()
        self._translate.xy = (left, top)
        self._scale.xyz = (scale, scale, 1.0)

    def redraw(self, *_: Any) -> None:
        """Build the drawing of the scene that fits best, for the present size."""
        self._content.clear()
        self._blinker.clear()
        scene = self.scene = self._pick()
        if scene is None:
            self._stop_blinking()
            return
        self._transform()
        scale = self._drawn_at = self.fit()[0]
        printed, *rest = scene.layers
        # The printed board is kept while it is the same, even at another scale (its
        # texts a little blurred): drawn again once the size settles.
        if self._printed is None or self._printed[0] is not printed:
            group = InstructionGroup()
            self._layer(group, printed, scale)
            self._printed = (printed, scale, group)
        elif abs(self._printed[1] - scale) > 1e-6:
            self._settle()
        self._content.add(self._printed[2])
        for layer in rest:
            self._layer(self._content, layer, scale)
        if scene.blink.shapes or scene.blink.texts:
            flash, plain = InstructionGroup(), InstructionGroup()
            self._layer(flash, scene.blink, scale)
            self._layer(plain, scene.blink_off, scale)
            self._blink_groups = (flash, plain)
            self._blink_on = True
            self._blinker.add(flash)
            if self._clock is None:
                self._clock = Clock.schedule_interval(self._blink, BLINK_SECONDS)
        else:
            self._stop_blinking()

    def _stop_blinking(self) -> None:
        self._blink_groups = None
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None

    def _blink(self, *_: Any) -> None:
        if self._blink_groups is None:
            return
        self._blink_on = not self._blink_on
        self._blinker.clear()
        self._blinker.add(self._blink_groups[0 if self._blink_on else 1])

    @property
    def settled(self) -> bool:
        """Whether everything is drawn for the present size (no text scaled)."""
        if self.scene is None:
            return True
        scale = self.fit()[0]
        return abs(scale - self._drawn_at) < 1e-6 and (
            self._printed is None or abs(self._printed[1] - scale) < 1e-6
        )

    @property
    def blinking(self) -> bool:
        """Whether pieces to put back are shown (and blink)."""
        return self._blink_groups is not None

    @property
    def flash(self) -> bool:
        """Whether the blinking pieces are shown big now (else a plain frame)."""
        return self.blinking and self._blink_on

    def _layer(self, group: InstructionGroup, layer: Layer, scale: float) -> None:
        """Add ``layer`` to ``group`` in millimetres with y up (-y); line widths at
        least a pixel, texts rendered for ``scale`` px per mm."""
        pixel = 1.0 / scale
        for shape in layer.shapes:
            _shape(group, shape, pixel)
        for stroke in layer.strokes:
            group.add(Color(*stroke.rgba))
            points = [v for x, y in stroke.points for v in (x, -y)]
            group.add(Line(points=points, width=max(pixel, stroke.width / 2), close=stroke.closed))
        for text in layer.texts:
            texture = self._texture(text.text, font_px(text, scale), text.bold)
            w, h = texture.size[0] * pixel, texture.size[1] * pixel
            cx, cy = text.centre[0], -text.centre[1]
            x = cx if text.left else cx - w / 2
            group.add(Color(*text.rgba))
            group.add(Rectangle(texture=texture, pos=(x, cy - h / 2), size=(w, h)))

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


def _shape(group: InstructionGroup, shape: Shape, pixel: float) -> None:
    cx, cy = shape.centre[0], -shape.centre[1]
    w, h = shape.size
    group.add(Color(*shape.rgba))
    turned = bool(shape.angle)
    if turned:
        group.add(PushMatrix())
        # Board angles turn clockwise with y down; with y up that is -angle.
        group.add(Rotate(angle=-shape.angle, origin=(cx, cy)))
    if shape.shape == "rect":
        group.add(Rectangle(pos=(cx - w / 2, cy - h / 2), size=(w, h)))
    elif shape.shape == "ellipse":
        group.add(Ellipse(pos=(cx - w / 2, cy - h / 2), size=(w, h)))
    else:
        group.add(Line(rectangle=(cx - w / 2, cy - h / 2, w, h), width=max(pixel, shape.width / 2)))
    if turned:
        group.add(PopMatrix())


MOST_GROWN = 1.6
"""How much larger than its place on the board a text with a smallest size may be
drawn to reach it (more, and it would spill over its neighbours on a small board)."""


def font_px(text: Text, scale: float) -> int:
    """The font size of ``text`` on a board drawn at ``scale`` px per mm: its height,
    and at least its ``min_px`` where that fits."""
    size = text.height * scale * 1.3
    return max(7, round(size), min(text.min_px, round(size * MOST_GROWN)))
