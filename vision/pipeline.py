"""The camera pipeline: frames in, observations out, one stage after another.

For each frame from any source (a camera, a video, a folder of images: see
:mod:`vision.sources`), :class:`Pipeline` runs

1. **locate** — where the board lies (:class:`vision.locate.Locator`: markers, a
   reference picture, tracking), or a fixed view given once (a camera on a stand
   calibrated beforehand, or a rendered picture's own view);
2. **stillness** — has the board been still for a few frames, and what do hands cover
   (:class:`vision.stillness.StillnessDetector`);
3. **read** — every element with a confidence, or unknown (:class:`vision.read.BoardReader`);
   the appearance reader (:class:`vision.appearance.AppearanceReader`) also weighs every
   value an element may take, and its probabilities go with the observation as each
   reading's chances (:func:`weighed_observation`), for the referee to weigh.

An :class:`~engines.observation.Observation` is emitted only when the board is still;
elements under a hand are unknown. Each stage may be replaced by any object with the
same method (``locate(frame)`` returning something with ``view`` and ``message``;
``update(frame, view)`` returning something with ``still``, ``covered_elements`` and
``message``), which is how tests feed scripted stages.

:func:`draw_recognised` draws what was read over the frame, for the app and the demo.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engines.observation import Observation, Reading, Value
from vision.appearance import AppearanceReading
from vision.locate import Locator
from vision.models import HEIGHT_SUFFIX, BoardModel, load_model
from vision.read import BoardReader, FrameReading
from vision.read_config import ReadConfig, with_colour_model
from vision.read_shendao import ShendaoReader
from vision.read_shenshi import ShenshiReader, metals_in_play
from vision.stillness import StillnessDetector
from vision.view import BoardView

Image = NDArray[np.uint8]

NO_FRAME = "no_frame"
NO_BOARD = "no_board"
MOVING = "moving"
STILL = "still"
UNREADABLE = "unreadable"


class LocatesBoard(Protocol):
    def locate(self, frame: Image | None) -> Any: ...


class DetectsStillness(Protocol):
    def update(self, frame: Image, view: BoardView | None) -> Any: ...


@dataclass(frozen=True)
class PipelineResult:
    """What one frame gave: ``status`` (``no_frame``, ``no_board``, ``moving``,
    ``unreadable``, ``still``), a plain-words ``message``, the board's ``view`` when
    found, the ``reading`` and the emitted ``observation`` (only when ``still``), and
    ``fresh``: the first observation after the board moved."""

    status: str
    message: str
    timestamp: float = 0.0
    label: str = ""
    view: BoardView | None = None
    reading: FrameReading | None = None
    covered: tuple[str, ...] = ()
    fresh: bool = False

    @property
    def observation(self) -> Observation | None:
        return self.reading.observation if self.status == STILL and self.reading else None


def reader_for(
    game: str, model: BoardModel | None = None, colours: Any = None, rules: Any = None
) -> BoardReader:
    """The reader of ``game``'s table (ShenShi's and Shendao's look twice, their own way),
    with the piece colours of ``colours`` (a calibration ``ColourModel``) when given,
    and told what ``rules`` (the game's rules object) put on the table when given
    (ShenShi: the monks' metals in play). Raises ``vision.models.ModelError`` for a
    game without a board model."""
    config = ReadConfig.for_game(game)
    if colours is not None:
        config = with_colour_model(config, game, colours)
    if game == "shenshi":
        return ShenshiReader(model, config, None if rules is None else metals_in_play(rules))
    if game == "shendao":
        return ShendaoReader(model, config)
    return BoardReader(game, model, config)


def weighed_observation(
    observation: Observation, probabilities: Mapping[str, Mapping[str, float]]
) -> Observation:
    """``observation`` with each element's ``probabilities`` (element -> {value as
    text: probability}, as :class:`~vision.appearance.AppearanceReading` gives them)
    attached as its reading's chances, keyed by the schema's own values (counts and
    flags, not their text). What is not a value of the element (something else on
    it) is left out, so the chances may sum to less than 1, and a shown reading keeps
    the reader's confidence. An element left unknown because something else is on it
    most likely (a hand) gets no chances; one left unknown because the reader is
    unsure between its values does."""
    schema = observation.schema
    updates: dict[str, Reading | Value | None] = {}
    for element, chances in probabilities.items():
        allowed = schema.values.get(element)
        if allowed is None:
            continue
        by_text = {str(v): v for v in allowed}
        pairs = [
            (by_text[text], float(p)) for text, p in chances.items() if text in by_text and p > 0.0
        ]
        if not pairs:
            continue
        reading = observation[element]
        best = max(p for _, p in pairs)
        if not reading.known and any(
            p > best for text, p in chances.items() if text not in by_text
        ):
            continue
        weighed = Reading.weighed(pairs, shown=reading.known, scaled=False)
        if reading.known and not (
            weighed.value == reading.value and type(weighed.value) is type(reading.value)
        ):
            continue  # the reader showed another value than its likeliest: keep it plain
        updates[element] = (
            Reading(reading.value, reading.confidence, weighed.chances)
            if reading.known
            else weighed
        )
    return observation.replace(updates) if updates else observation


class _FixedView:
    """A locator that always answers with one view (a camera that does not move)."""

    def __init__(self, view: BoardView) -> None:
        self.view = view

    def locate(self, frame: Image | None) -> Any:
        return self


class Pipeline:
    """Frames of ``game``'s table in, observations out (see the module docstring).

    ``view``: a fixed view to use instead of locating the board. ``locator``,
    ``stillness``, ``reader``: replace a stage (default: markers, the stillness
    detector with the board model, :func:`reader_for` the game). ``colours``: the
    set's calibration colour model (``vision.table_profile.load_table_profile`` reads
    it from a profile, saying what it could not use), and ``rules``, the game's
    rules object (what is in play), for the default reader.
    ``require_still=False``: read every frame whatever the stillness says (pictures
    one by one). Raises
    ``vision.models.ModelError`` for a game without a board model.
    """

    def __init__(
        self,
        game: str,
        *,
        view: BoardView | None = None,
        locator: LocatesBoard | None = None,
        stillness: DetectsStillness | None = None,
        reader: BoardReader | None = None,
        model: BoardModel | None = None,
        colours: Any = None,
        rules: Any = None,
        require_still: bool = True,
    ) -> None:
        self.game = game
        self.model = model or load_model(game)
        self.reader = reader or reader_for(game, self.model, colours, rules)
        if locator is None and view is not None:
            locator = _FixedView(view)
        if locator is None:
            locator = Locator(game)
        self.locator = locator
        if stillness is None and require_still:
            stillness = StillnessDetector(self.model.size_mm, self.model)
        self.stillness = stillness
        self._was_still = False

    def process(
        self, frame: Image | None, timestamp: float = 0.0, label: str = ""
    ) -> PipelineResult:
        """Run one frame through every stage. Never raises for a bad frame."""
        if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
            self._was_still = False
            return PipelineResult(NO_FRAME, "no picture in this frame", timestamp, label)
        located = self.locator.locate(frame)
        view = getattr(located, "view", None)
        if view is None:
            self._was_still = False
            message = getattr(located, "message", "") or "board not found"
            return PipelineResult(NO_BOARD, message, timestamp, label)
        covered: tuple[str, ...] = ()
        if self.stillness is not None:
            state = self.stillness.update(frame, view)
            covered = tuple(getattr(state, "covered_elements", ()))
            if not state.still:
                self._was_still = False
                return PipelineResult(
                    MOVING,
                    getattr(state, "message", "moving"),
                    timestamp,
                    label,
                    view,
                    None,
                    covered,
                )
        reading = self.reader.read(frame, view, covered)
        if isinstance(reading, AppearanceReading) and reading.problem is None:
            reading = dataclasses.replace(
                reading, observation=weighed_observation(reading.observation, reading.probabilities)
            )
        if reading.problem is not None:
            self._was_still = False
            return PipelineResult(
                UNREADABLE,
                f"cannot read the board: {reading.problem}",
                timestamp,
                label,
                view,
                reading,
                covered,
            )
        fresh = not self._was_still
        self._was_still = True
        seen = reading.read
        message = f"read {seen} of {len(reading.observation)} elements" + (
            f"; {len(covered)} covered" if covered else ""
        )
        return PipelineResult(STILL, message, timestamp, label, view, reading, covered, fresh)

    def run(self, frames: Iterable[Any]) -> Iterator[PipelineResult]:
        """Process a source's frames (``vision.sources.SourceFrame``: timestamp,
        image, label, problem) one by one."""
        for item in frames:
            if getattr(item, "image", None) is None:
                problem = getattr(item, "problem", "") or "no picture in this frame"
                yield PipelineResult(
                    NO_FRAME, problem, getattr(item, "timestamp", 0.0), getattr(item, "label", "")
                )
                continue
            yield self.process(item.image, item.timestamp, item.label)


# --- the overlay ---------------------------------------------------------------------

# Outline colours (BGR) of what was read.
VALUE_BGR: dict[Any, tuple[int, int, int]] = {
    "red": (40, 40, 230),
    "blue": (230, 120, 30),
    "yellow": (30, 220, 240),
    "violet": (200, 60, 170),
    "light": (245, 245, 245),
    "dark": (30, 30, 30),
    "closed": (40, 40, 230),
    True: (60, 220, 60),
}
EMPTY_BGR = (150, 150, 150)
ABSTAIN_BGR = (255, 0, 255)


EDGE_BGR = (0, 0, 0)
"""Drawn under every outline (white under a dark one), so that it stands out on light
and dark boards alike."""
VALUE_WORDS: dict[Any, str] = {True: "present", "closed": "closed"}


def draw_recognised(
    frame: Image, view: BoardView, observation: Observation, model: BoardModel, legend: bool = False
) -> Image:
    """A copy of ``frame`` with each element outlined where it lies, coloured by the
    value read (grey: empty or absent), a magenta cross on each element not read, and
    "2" on stacks of two tiles; each outline edged in black to stand out on any board.
    ``legend``: a key in the top left corner saying what each colour and mark means."""
    image: Image = (
        frame.copy()
        if frame.ndim == 3
        else np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    )
    scale = max(1, round(max(image.shape[:2]) / 900))
    seen: dict[str, tuple[int, int, int]] = {}
    for element in model.elements.values():
        reading = observation[element.name]
        corners = view.to_image(element.corners_mm())
        outline = np.rint(corners * 16).astype(np.int32).reshape(-1, 1, 2)
        if not reading.known:
            a, b, c, d = (tuple(int(v) for v in np.rint(p * 16)) for p in corners)
            for colour, width in ((EDGE_BGR, 3 * scale), (ABSTAIN_BGR, scale)):
                cv2.polylines(image, [outline], True, colour, width, cv2.LINE_AA, 4)
                cv2.line(image, a, c, colour, width, cv2.LINE_AA, 4)
                cv2.line(image, b, d, colour, width, cv2.LINE_AA, 4)
            seen["not read"] = ABSTAIN_BGR
            continue
        colour = VALUE_BGR.get(reading.value, EMPTY_BGR)
        thick = 2 * scale if colour != EMPTY_BGR else scale
        cv2.polylines(image, [outline], True, _edge(colour), thick + 2 * scale, cv2.LINE_AA, 4)
        cv2.polylines(image, [outline], True, colour, thick, cv2.LINE_AA, 4)
        seen.setdefault(
            VALUE_WORDS.get(reading.value, str(reading.value)) if colour != EMPTY_BGR else "empty",
            colour,
        )
        height = element.name + HEIGHT_SUFFIX
        if height in observation.schema.values and observation.value(height) == 2:
            centre = corners.mean(axis=0)
            origin = (int(centre[0]) - 4 * scale, int(centre[1]) + 4 * scale)
            for colour, width in ((EDGE_BGR, 3 * scale), ((255, 255, 255), scale)):
                cv2.putText(
                    image,
                    "2",
                    origin,
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.45 * scale,
                    colour,
                    width,
                    cv2.LINE_AA,
                )
            seen["2: a stack of two"] = (255, 255, 255)
    if legend and seen:
        _draw_legend(image, seen, scale)
    return image


def _edge(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """The edge drawn under an outline of ``colour``: black, or white under a dark one."""
    return (235, 235, 235) if sum(colour) < 240 else EDGE_BGR


def _draw_legend(image: Image, entries: dict[str, tuple[int, int, int]], scale: int) -> None:
    """A key of ``entries`` (words: colour) on a dark box in the top left corner."""
    font, size = cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale
    line = 20 * scale
    width = max(cv2.getTextSize(words, font, size, scale)[0][0] for words in entries)
    box = (
        8 * scale,
        8 * scale,
        8 * scale + width + 40 * scale,
        8 * scale + line * len(entries) + 8 * scale,
    )
    corner = image[box[1] : box[3], box[0] : box[2]]
    corner[:] = (corner * 0.25).astype(image.dtype)
    for i, (words, colour) in enumerate(entries.items()):
        y = box[1] + 8 * scale + line * i
        swatch = ((box[0] + 6 * scale, y + 2 * scale), (box[0] + 26 * scale, y + 14 * scale))
        cv2.rectangle(image, *swatch, colour, -1)
        cv2.rectangle(image, *swatch, (200, 200, 200), 1)
        cv2.putText(
            image,
            words,
            (box[0] + 32 * scale, y + 13 * scale),
            font,
            size,
            (255, 255, 255),
            scale,
            cv2.LINE_AA,
        )
