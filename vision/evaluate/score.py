"""The scoring of ``companion bench vision``: each element read right, wrong or
abstained, counted per kind of element and per board."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from calibration.intrinsics import CameraProfile
from engines.observation import Observation
from vision.evaluate.sets import shot_view
from vision.locate import Locator
from vision.synth.camera import Camera


@dataclass
class Tally:
    """Counts of one group of elements."""

    right: int = 0
    wrong: int = 0
    abstained: int = 0
    unseen: int = 0
    """Of the abstentions, those of elements the view cannot show (a hand over them,
    a view too steep to show the side of the tiles, a piece in front)."""
    hidden: int = 0

    @property
    def seen(self) -> int:
        return self.right + self.wrong + self.abstained

    def accuracy(self) -> float | None:
        """Right among the elements read (abstentions apart)."""
        read = self.right + self.wrong
        return self.right / read if read else None

    @property
    def unsure(self) -> int:
        """Abstentions on elements the reader could see but would not decide."""
        return self.abstained - self.unseen

    def abstention(self) -> float | None:
        return self.abstained / self.seen if self.seen else None

    def unseen_share(self) -> float | None:
        return self.unseen / self.seen if self.seen else None

    def unsure_share(self) -> float | None:
        return self.unsure / self.seen if self.seen else None

    def add(self, other: Tally) -> None:
        self.right += other.right
        self.wrong += other.wrong
        self.abstained += other.abstained
        self.unseen += other.unseen
        self.hidden += other.hidden


@dataclass
class LevelResult:
    game: str
    level: str
    boards: int
    perfect: int = 0
    complete: int = 0
    kinds: dict[str, Tally] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    located: int = 0
    """Boards the Locator found (the run through localisation only)."""
    reasons: dict[str, int] = field(default_factory=dict)
    """Why elements were not read: reason -> count, for the unsure abstentions."""
    unseen_reasons: dict[str, int] = field(default_factory=dict)
    """The same for the elements the view cannot show."""
    by_seed: list[tuple[int, LevelResult]] = field(default_factory=list)
    """Each set's own figures, when several sets were pooled."""

    def add(self, other: LevelResult) -> None:
        """Pool ``other`` (the same game and level, another set) into this one."""
        self.boards += other.boards
        self.perfect += other.perfect
        self.complete += other.complete
        self.located += other.located
        for kind, tally in other.kinds.items():
            self.kinds.setdefault(kind, Tally()).add(tally)
        self.errors.extend(other.errors[: max(0, 40 - len(self.errors))])
        for mine, theirs in (
            (self.reasons, other.reasons),
            (self.unseen_reasons, other.unseen_reasons),
        ):
            for why, n in theirs.items():
                mine[why] = mine.get(why, 0) + n

    def total(self) -> Tally:
        out = Tally()
        for tally in self.kinds.values():
            out.add(tally)
        return out


# --- scoring -------------------------------------------------------------------------------


def element_group(game: str, element: str, kind: str) -> str:
    """The group an element is reported under: its kind, or ``stack`` for heights."""
    return "stack" if element.endswith("^") else kind


def score(
    result: LevelResult,
    reader: Any,
    image: Any,
    truth: dict[str, Any],
    label: str,
    view: Any = None,
) -> None:
    """Read one picture and add it to ``result``, where ``view`` puts the board
    (default: the picture's exact view)."""

    schema = reader.schema
    if view is None:
        view = shot_view(truth, reader.model.size_mm)
    reading = reader.read(image, view)
    visible = Observation.from_json(schema, {"readings": truth["visible"]})
    wrong = 0
    complete = True
    for element in schema.elements:
        try:
            kind = reader.model.region(element).kind
        except KeyError:  # off the board (ShenShi's path tokens): not the camera's
            continue
        group = element_group(schema.game, element, kind)
        tally = result.kinds.setdefault(group, Tally())
        if not visible[element].known:
            tally.hidden += 1
            continue
        got = reading.observation[element]
        if not got.known:
            tally.abstained += 1
            complete = False
            why = reading.abstained.get(element, "?")
            counts = result.reasons
            if element in reading.unseen:
                tally.unseen += 1
                counts = result.unseen_reasons
            counts[why] = counts.get(why, 0) + 1
            continue
        want = visible[element].value
        if got.value == want and type(got.value) is type(want):
            tally.right += 1
        else:
            tally.wrong += 1
            wrong += 1
            if len(result.errors) < 40:
                result.errors.append(
                    f"{label}: {element} is {want!r}, read {got.value!r} ({got.confidence:.2f})"
                )
    result.boards += 1
    result.perfect += wrong == 0
    result.complete += wrong == 0 and complete


def lens_profile(truth: dict[str, Any]) -> Any:
    """The renderer's camera of a picture as a calibration profile: the bench's camera
    was calibrated, as a player's would be (``companion calibrate camera``)."""

    camera = Camera(**truth["camera"])
    matrix = tuple(tuple(float(v) for v in row) for row in camera.matrix)
    return CameraProfile(
        (camera.width, camera.height),
        matrix,
        tuple(float(v) for v in camera.distortion),
        0.0,
        (),
        (),
        "the bench's renderer",
        "",
    )


def score_located(
    result: LevelResult, reader: Any, image: Any, truth: dict[str, Any], label: str
) -> None:
    """Locate the board in a picture with corner markers (a fresh Locator: no
    tracking from another picture), read it there and add it to ``result``. A board
    not found counts every visible element abstained (unsure)."""

    location = Locator(result.game, camera=lens_profile(truth)).locate(image)
    if location.view is not None:
        result.located += 1
        score(result, reader, image, truth, label, location.view)
        return
    visible = Observation.from_json(reader.schema, {"readings": truth["visible"]})
    why = location.message or "board not found"
    for element in reader.schema.elements:
        try:
            kind = reader.model.region(element).kind
        except KeyError:
            continue
        tally = result.kinds.setdefault(element_group(result.game, element, kind), Tally())
        if visible[element].known:
            tally.abstained += 1
            result.reasons[why] = result.reasons.get(why, 0) + 1
        else:
            tally.hidden += 1
    result.boards += 1


def _percent(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{100 * value:.{digits}f}%"


def _summary_line(result: LevelResult) -> str:
    total = result.total()
    return (
        f"{result.game} {result.level}: {_percent(total.accuracy())} right, "
        f"{result.perfect}/{result.boards} boards perfect, "
        f"{_percent(total.abstention())} abstained "
        f"({_percent(total.unsure_share())} unsure)"
    )
