"""What the Start screen chooses: the game, its rule options, the players, the camera
and the sensor board. Pure data with checks; the screen only edits it.

Rule options are read from each engine (``OPTIONS``: name -> allowed values, the rule
book's default first; ShenShi's ``CHOICES`` and ``DEFAULTS``), so a new option appears
on the Start screen without touching the app.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace
from typing import Any

from companion.app.clock import ClockSettings
from engines import GameState, RecordError, Rules, rules_class
from engines.search.players import DEFAULT_LEVEL, LEVELS
from engines.shenshi.board import load_board

CAMERA_KINDS = ("none", "index", "video")
"""``none``: no camera (the table simulator stands in for it when ``demo`` is set);
``index``: a camera by its number; ``video``: a video file."""
SENSOR_KINDS = ("none", "port", "simulator")
"""``none``; ``port``: a serial port (empty: search every port); ``simulator``: the
simulated board on a pseudo-terminal."""
LEVEL_RANGE = (min(LEVELS), max(LEVELS))


@dataclass(frozen=True)
class OptionSpec:
    """One rule option as the Start screen offers it: ``choices`` for a word or a flag,
    ``kind`` ``"number"`` (a whole number >= ``low``, up to ``high`` when set) or
    ``"text"`` (free text, empty meaning the default)."""

    name: str
    default: Any
    kind: str = "choice"
    choices: tuple[Any, ...] = ()
    low: int = 0
    high: int | None = None

    def parse(self, text: str) -> Any:
        """The option's value from what was typed or chosen. Raises ``ValueError``."""
        if self.kind == "choice":
            for choice in self.choices:
                if str(choice).lower() == text.strip().lower():
                    return choice
            raise ValueError(
                f"{self.name}: choose one of {', '.join(str(c) for c in self.choices)}"
            )
        if self.kind == "number":
            try:
                value = int(text.strip())
            except ValueError:
                raise ValueError(f"{self.name}: a whole number, not {text!r}") from None
            if value < self.low or (self.high is not None and value > self.high):
                top = "" if self.high is None else f" to {self.high}"
                raise ValueError(f"{self.name}: from {self.low}{top}, not {value}")
            return value
        return text.strip() or None


def option_specs(game: str) -> list[OptionSpec]:
    """Every rule option of ``game``'s engine, with its default. Raises ``RecordError``
    for an unknown game."""
    rules_class(game)
    module = importlib.import_module(f"engines.{game}.rules")
    if hasattr(module, "DEFAULTS"):  # ShenShi: word choices plus numbers and a layout
        specs = []
        choices: dict[str, tuple[Any, ...]] = module.CHOICES
        for name, default in module.DEFAULTS.items():
            if name in choices:
                specs.append(OptionSpec(name, default, "choice", choices[name]))
            elif default is None:
                specs.append(OptionSpec(name, default, "text"))
            else:
                high = _shenshi_high(name)
                specs.append(OptionSpec(name, default, "number", (), 0, high))
        return specs
    options: dict[str, tuple[Any, ...]] = module.OPTIONS
    return [OptionSpec(name, values[0], "choice", values) for name, values in options.items()]


def _shenshi_high(name: str) -> int | None:
    if name == "orange_lifts":
        return int(load_board().cushions[0])
    return None


@dataclass(frozen=True)
class Seat:
    """A player: their colour (the engine's name for the seat), the name shown, and
    whether the engine plays the seat, at which search level."""

    colour: str
    name: str = ""
    engine: bool = False
    level: int = DEFAULT_LEVEL

    @property
    def shown(self) -> str:
        return self.name or self.colour


@dataclass(frozen=True)
class GameSetup:
    """A game about to be played (or resumed): everything the Start screen chooses."""

    game: str = "shangrila"
    options: dict[str, Any] = field(default_factory=dict)
    seats: tuple[Seat, ...] = ()
    camera: str = "none"
    camera_index: int = 0
    video: str = ""
    sensors: str = "none"
    port: str = ""
    demo: bool = False
    """With no camera: the table simulator plays ``demo_record`` (or a random game) on
    the table, so the app can be seen working with no hardware."""
    demo_record: str = ""
    seed: int = 1
    start: dict[str, Any] | None = None
    """The position the game begins from (a state document), or None: the start."""
    clocks: ClockSettings = field(default_factory=ClockSettings)
    """The players' clocks (none by default); a reopened game keeps its own."""

    @classmethod
    def default(cls, game: str = "shangrila") -> GameSetup:
        """The rule book's defaults and the game's usual players."""
        cls_rules = rules_class(game)
        count = 4 if game == "shangrila" else cls_rules.min_players
        seats = tuple(Seat(c) for c in cls_rules.default_players(count))
        options = {spec.name: spec.default for spec in option_specs(game)}
        return cls(game, options, seats)

    def with_players(self, count: int) -> GameSetup:
        """The same game for ``count`` players (their default colours, names kept)."""
        colours = rules_class(self.game).default_players(count)
        old = {seat.colour: seat for seat in self.seats}
        return replace(self, seats=tuple(old.get(c, Seat(c)) for c in colours))

    def player_counts(self) -> list[int]:
        cls_rules = rules_class(self.game)
        return list(range(cls_rules.min_players, cls_rules.max_players + 1))

    def rules(self) -> Rules[Any, Any]:
        """The engine's rules for this setup. Raises ``RecordError`` with the engine's
        sentence for options or players it refuses."""
        if not self.seats:
            raise RecordError("choose the players")
        options = {k: v for k, v in self.options.items() if v is not None or k != "layout"}
        return rules_class(self.game).from_record([s.colour for s in self.seats], options)

    def starting_state(self) -> GameState[Any] | None:
        """The position to begin from, or None for the rules' own start. Raises
        ``RecordError`` for a state document the engine refuses."""
        rules = self.rules()
        return rules.state_from_json(self.start) if self.start is not None else None

    def check(self) -> list[str]:
        """What must be fixed before the game can start (empty: ready)."""
        problems = []
        try:
            self.starting_state()
        except RecordError as error:
            problems.append(str(error))
        if self.camera == "video" and not self.video:
            problems.append("choose a video file")
        for seat in self.seats:
            if seat.engine and not LEVEL_RANGE[0] <= seat.level <= LEVEL_RANGE[1]:
                problems.append(f"{seat.colour}: level {LEVEL_RANGE[0]} to {LEVEL_RANGE[1]}")
        return problems
