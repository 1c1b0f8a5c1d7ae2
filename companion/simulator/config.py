"""The settings of a simulated table: what reads it, how well, and how people play."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SOURCES = ("camera", "sensors")
VIEWS = ("above", "55")
"""Where the camera looks from: straight above, or slanted at 55 degrees."""


@dataclass(frozen=True)
class TableConfig:
    """A simulated table. Rates are probabilities in [0, 1]; every draw comes from the
    simulator's seeded generator, so a seed replays the same stream.

    Readers. ``camera`` is straight above the table (``view``): it reads colours,
    bridges and stones, never stack heights, and a hand hides what is under it; slanted
    at 55 degrees it also reads some stack heights from the side (``side_heights``).
    ``sensors`` is a board under the table: it reads stack heights, bridges and
    stones, hands or not; with ``sensor_colours`` it also reads colours, less surely.
    """

    sources: tuple[str, ...] = ("camera",)
    """The readers, each sending one ``Seen`` per frame: ``camera``, ``sensors``."""
    sensor_colours: bool = False
    """Whether the sensor board reads colours too (at ``sensor_colour_confidence``)."""
    sensor_colour_confidence: float = 0.8

    frames_per_step: int = 3
    """Frames read while the table rests after each touch (a camera gives many)."""
    settle_frames: int = 4
    """Frames read after the last touch of a move, an illegal attempt or its repair,
    before anyone acts again (the player looks up at the referee)."""
    reach_frames: int = 0
    """Frames read before the first touch of a move, an attempt, its repair or a change
    of mind: the player reaches for a piece (and one who has just said done reads the
    referee's answer first)."""
    confidence: float = 0.97
    """The confidence of a good reading."""
    flicker: float = 0.0
    """Per reading (one element, one frame): the reading is wrong for that frame."""
    flicker_sure: float = 0.5
    """Share of wrong readings that come with a good reading's confidence; the rest are
    marked unsure."""
    unsure: float = 0.0
    """Per reading: a correct reading that the reader marks unsure."""
    unsure_confidence: float = 0.6
    camera_errors: str = ""
    """Where the camera's readings come from: empty for the flat rates above
    (``flicker``, ``unsure``, ``flicker_sure``); ``fitted`` for the rates measured of
    the game's fitted appearance reader (``vision/fitted/reader-errors-<game>.json``,
    ``vision.reader_errors``), or the path of such a file: each frame, each element is
    read right, read as another value, left unsure or not shown as often as measured
    for its kind and true value, with a confidence drawn from the measured ones.
    Elements the appearance reader does not read on the board (ShenShi's path tokens)
    keep the flat rates; other sources too."""
    camera_chances: bool = False
    """With ``camera_errors``: each camera reading carries the probability of every
    value (``Reading.chances``), drawn as ``vision.reader_errors.ReadingSampler``
    says."""

    hands: float = 0.0
    """Per touch: a hand is seen over the piece, hiding the elements near it."""
    hand_frames: tuple[int, int] = (1, 3)
    """How many frames the hand stays (inclusive range)."""
    pause: float = 0.0
    """Per touch: the player stops to think; the same table is read for longer."""
    pause_frames: tuple[int, int] = (5, 20)

    bridge_first: float = 0.5
    """Per journey: the bridge is taken away before the students move (otherwise after
    the last student, just before the stones)."""
    change_of_mind: float = 0.0
    """Per move: the player starts another move, puts the pieces back, then plays."""
    illegal: float = 0.0
    """Per move: the player first tries an illegal move, then repairs it."""
    illegal_rules: tuple[str, ...] | None = None
    """Only stage these rule ids (None: every rule the table can show)."""

    view: str = "above"
    """Where the camera looks from (``VIEWS``): ``above``, or ``55`` degrees, where the
    side of some stacks shows (Shangri-La; the other games have no stacks to read)."""
    side_heights: float = 0.366
    """At 55 degrees: the share of stacks whose height the camera reads, each stack
    drawn once a game (neighbouring pieces hide the others). Measured: 87 of 238 stacks
    at 55 degrees in 1920x1080 (``companion bench appearance --heights``,
    docs/vision-bench.md, "Stack heights")."""
    side_heights_right: float = 0.931
    """At 55 degrees: the share of heights read that are right (81 of 87 there); the
    wrong ones are given unsure (none was wrong at 0.9 or more)."""

    gap: float = 0.0
    """Per move: the readers stop seeing the table for the next ``gap_moves`` moves (a
    cable pulled, a paused camera, a hand or a cloth over the board) and see it again
    once the last of them is made. Only moves that leave something to see and that
    nobody types in are made unseen, and none is tried illegally or changed."""
    gap_moves: tuple[int, int] = (2, 2)
    """How many moves a gap lasts (inclusive range)."""
    gap_hidden: bool = False
    """During a gap the readers go on sending frames with the whole table hidden (a
    hand or a cloth over it; a sensor board under the table still reads), rather than
    none (a cable pulled, a paused camera)."""

    def __post_init__(self) -> None:
        unknown = [s for s in self.sources if s not in SOURCES]
        if unknown or not self.sources:
            raise ValueError(
                f"sources must be some of {', '.join(SOURCES)}, not {list(self.sources)}"
            )
        for name in (
            "flicker",
            "flicker_sure",
            "unsure",
            "hands",
            "pause",
            "bridge_first",
            "change_of_mind",
            "illegal",
            "confidence",
            "unsure_confidence",
            "sensor_colour_confidence",
            "gap",
            "side_heights",
            "side_heights_right",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within 0 and 1, not {value}")
        if self.view not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(VIEWS)}, not {self.view!r}")
        if self.frames_per_step < 1 or self.settle_frames < 0 or self.reach_frames < 0:
            raise ValueError(
                "frames_per_step must be at least 1, settle_frames and reach_frames at least 0"
            )
        for name in ("hand_frames", "pause_frames", "gap_moves"):
            low, high = getattr(self, name)
            if not 1 <= low <= high:
                raise ValueError(f"{name} must be a range (low, high) with 1 <= low <= high")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
