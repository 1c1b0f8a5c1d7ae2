"""The players' clocks: each player's time for the whole game and for each move,
running for the player to move, stopped while the game is paused or over. Pure (the
time is passed in), so it is tested without waiting.

The clocks are the players' own: no rule book of these games loses a game on time, so
a player past their time is shown in red, never stopped from playing.

The clocks are kept beside the game's journal (``<journal>.clock.json``), written at
every move, pause and end, so a game reopened from the History screen goes on with the
times it had.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.jsontext import JSONTextError, read_json_file

CLOCK_SUFFIX = ".clock.json"
"""Beside each journal: the clocks' limits and the time each player has used."""

TOTAL_CHOICES = (0, 5, 10, 15, 20, 30, 45, 60, 90, 120)
"""Minutes for the whole game per player that the Start screen offers (0: no limit)."""
MOVE_CHOICES = (0, 15, 30, 60, 120, 180, 300)
"""Seconds per move that the Start screen offers (0: no limit)."""


class ClockError(ValueError):
    """A clock file or limit that cannot be read (the message says which and why)."""


@dataclass(frozen=True)
class Limit:
    """One player's limits in seconds: ``total`` for the whole game and ``per_move``
    for each move; 0 is no limit."""

    total: float = 0.0
    per_move: float = 0.0

    def __post_init__(self) -> None:
        for name in ("total", "per_move"):
            value = getattr(self, name)
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not math.isfinite(value)
                or value < 0
            ):
                raise ClockError(f"a clock's {name} is a number of seconds from 0, not {value!r}")

    @property
    def timed(self) -> bool:
        return bool(self.total or self.per_move)


@dataclass(frozen=True)
class ClockSettings:
    """The limits of each seat in turn order; no limits at all means no clocks."""

    limits: tuple[Limit, ...] = ()

    @classmethod
    def same(cls, players: int, total: float = 0.0, per_move: float = 0.0) -> ClockSettings:
        """The same limits for every one of ``players``."""
        return cls(tuple(Limit(total, per_move) for _ in range(players)))

    @property
    def timed(self) -> bool:
        return any(limit.timed for limit in self.limits)

    def for_players(self, players: int) -> ClockSettings:
        """These limits for ``players`` seats (the first seat's for a seat added)."""
        first = self.limits[0] if self.limits else Limit()
        return ClockSettings(
            tuple(self.limits[i] if i < len(self.limits) else first for i in range(players))
        )

    def to_json(self) -> list[dict[str, float]]:
        return [{"total": limit.total, "per_move": limit.per_move} for limit in self.limits]

    @classmethod
    def from_json(cls, data: Any) -> ClockSettings:
        """Read ``to_json``'s form. Raises ``ClockError``."""
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise ClockError('the clocks\' limits are a list of {"total", "per_move"}')
        return cls(tuple(Limit(d.get("total", 0.0), d.get("per_move", 0.0)) for d in data))


@dataclass(frozen=True)
class Reading:
    """One player's clock at a moment, for the screen."""

    player: int
    used: float
    """Seconds used in the whole game."""
    left: float | None
    """Seconds left of the game's time (negative: past it); None without a limit."""
    move_left: float | None
    """Seconds left of this move's time, for the player to move; None otherwise."""
    running: bool
    over: bool
    """Past the game's time or this move's."""


@dataclass
class GameClock:
    """Every player's clock (see the module's docstring). ``follow`` is told the game
    as it stands (whose turn, how many moves, whether the clocks run) with the time;
    the time since the last call is charged to the player whose clock was running."""

    settings: ClockSettings
    used: list[float] = field(default_factory=list)
    move_used: float = 0.0
    """Seconds the player to move has used on this move."""
    to_move: int = 0
    moves: int = -1
    """Moves played when last told (-1: not told yet)."""
    running: bool = False
    since: float = 0.0
    """The time of the last ``follow`` while running."""

    def __post_init__(self) -> None:
        players = len(self.settings.limits)
        if not self.used:
            self.used = [0.0] * players
        if len(self.used) != players:
            raise ClockError(
                f"the clocks hold times for {len(self.used)} players, their limits for {players}"
            )

    def follow(self, to_move: int, moves: int, running: bool, now: float) -> bool:
        """Charge the time since the last call, then take ``to_move``, ``moves`` and
        ``running`` as the game stands at ``now``. True when a move was made or taken
        back, or the clocks stopped or started (a moment to write them down)."""
        self._charge(now)
        changed = moves != self.moves or running != self.running or to_move != self.to_move
        if moves != self.moves or to_move != self.to_move:
            self.move_used = 0.0
        self.to_move, self.moves, self.running = to_move, moves, running
        self.since = now
        return changed

    def _charge(self, now: float) -> None:
        if self.running and 0 <= self.to_move < len(self.used):
            spent = max(0.0, now - self.since)
            self.used[self.to_move] += spent
            self.move_used += spent
        self.since = now

    def readings(self, now: float) -> list[Reading]:
        """Every player's clock at ``now`` (nothing is charged)."""
        spent = max(0.0, now - self.since) if self.running else 0.0
        out = []
        for player, limit in enumerate(self.settings.limits):
            mine = player == self.to_move
            used = self.used[player] + (spent if mine else 0.0)
            left = limit.total - used if limit.total else None
            move_left = limit.per_move - self.move_used - spent if mine and limit.per_move else None
            over = (left is not None and left < 0) or (move_left is not None and move_left < 0)
            out.append(Reading(player, used, left, move_left, mine and self.running, over))
        return out

    def to_json(self, now: float) -> dict[str, Any]:
        """The clocks at ``now``, stopped (a resumed game starts them again)."""
        self._charge(now)
        return {
            "clock": 1,
            "limits": self.settings.to_json(),
            "used": [round(u, 3) for u in self.used],
            "move_used": round(self.move_used, 3),
            "to_move": self.to_move,
            "moves": self.moves,
        }

    @classmethod
    def from_json(cls, data: Any) -> GameClock:
        """Read ``to_json``'s form, stopped. Raises ``ClockError``."""
        if not isinstance(data, dict) or data.get("clock") != 1:
            raise ClockError("not a companion clock file")
        used = data.get("used")
        if not isinstance(used, list) or not all(
            isinstance(u, int | float) and not isinstance(u, bool) and u >= 0 for u in used
        ):
            raise ClockError("the clocks' used times are a list of seconds")
        numbers = [data.get(key, 0) for key in ("move_used", "to_move", "moves")]
        if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in numbers):
            raise ClockError("the clocks' move time, player and moves are numbers")
        return cls(
            ClockSettings.from_json(data.get("limits")),
            [float(u) for u in used],
            float(numbers[0]),
            int(numbers[1]),
            int(numbers[2]),
        )


def clock_path(journal: Path) -> Path:
    return Path(str(journal) + CLOCK_SUFFIX)


def save_clock(journal: Path, clock: GameClock, now: float) -> None:
    """Write the clocks beside ``journal``: a new file put in the old one's place, so
    a crash leaves one or the other whole. Raises ``OSError``."""
    path = clock_path(journal)
    spare = path.with_name(path.name + ".new")
    spare.write_text(json.dumps(clock.to_json(now)), encoding="utf-8")
    os.replace(spare, path)


def load_clock(journal: Path) -> GameClock | None:
    """The clocks kept beside ``journal``; None when the game has none. Raises
    ``ClockError`` for a file that cannot be read."""
    path = clock_path(journal)
    if not path.exists():
        return None
    try:
        return GameClock.from_json(read_json_file(path, "the clock file"))
    except (OSError, JSONTextError, ClockError) as error:
        raise ClockError(f"{path}: {error}") from None


def open_clock(
    journal: Path | None, settings: ClockSettings, players: int, now: float
) -> tuple[GameClock | None, str]:
    """The clocks of a game: those kept beside ``journal`` (a game reopened), or new
    ones with ``settings`` (written there), None when the game is not timed; and why
    the kept clocks were not used ("" when nothing went wrong). A clock file that
    cannot be read is replaced by new clocks, and the reason says why (raises
    nothing)."""
    problem = ""
    if journal is not None:
        try:
            kept = load_clock(journal)
        except ClockError as error:
            kept, problem = None, str(error)
        if kept is not None and len(kept.used) == players:
            return kept, ""
        if kept is not None:
            problem = (
                f"{clock_path(journal)}: {len(kept.used)} players' clocks kept "
                f"for a game of {players}"
            )
    settings = settings.for_players(players)
    if not settings.timed:
        return None, problem
    clock = GameClock(settings)
    if journal is not None:
        with contextlib.suppress(OSError):  # the game goes on; its clocks are not kept
            save_clock(journal, clock, now)
    return clock, problem


def clock_text(seconds: float) -> str:
    """``12:05`` (minutes and seconds), ``1:02:05`` past an hour, ``-0:07`` past zero.
    A clock counting down shows a part second as a whole one, so 0:00 is the end."""
    sign = "-" if seconds < 0 else ""
    whole = math.ceil(abs(seconds) - 1e-9) if seconds > 0 else int(abs(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:02d}"
    return f"{sign}{minutes}:{secs:02d}"


def reading_text(reading: Reading, name: str, tr: Any) -> str:
    """One player's clock in words for the screen: their name, the game's time left
    (or used, without a limit) and, for the player to move, this move's time left."""
    shown = clock_text(reading.left) if reading.left is not None else clock_text(reading.used)
    text = f"{name} {shown}"
    if reading.move_left is not None:
        text += " · " + tr.text("clock.move", time=clock_text(reading.move_left))
    return text


def limit_words(tr: Any, minutes: int, seconds: int) -> tuple[str, str]:
    """The Start screen's words for a game time of ``minutes`` and a move time of
    ``seconds`` (0: none)."""
    total = tr.text("clock.minutes", minutes=minutes) if minutes else tr.text("clock.none")
    move = tr.text("clock.seconds", seconds=seconds) if seconds else tr.text("clock.none")
    return total, move


__all__ = [
    "CLOCK_SUFFIX",
    "ClockError",
    "ClockSettings",
    "GameClock",
    "Limit",
    "Reading",
    "clock_path",
    "clock_text",
    "load_clock",
    "open_clock",
    "reading_text",
    "save_clock",
]
