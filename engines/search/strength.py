"""How strong did a player play? An estimate on the engine level scale, with its range.

The analysis of a game gives every judged move an accuracy score (Lichess's formula on
the move's win-chance loss, ``move_accuracy``); a player's accuracy is the mean of
theirs. Engine players of each level score in a typical way. The calibration
(``strength_calibration.json`` beside this module, made by ``companion bench
calibrate-strength``) holds, per game, the judged move losses of every player of many
games between engine levels, analysed at one analysis budget; level 0 is random play.

The model: a player-game's accuracy is normal around its level's mean, with a variance
in two parts — the spread of single moves divided by the number of moves (a short game
says little), plus the spread between games that no number of moves removes (a player
in a lost position scores differently from one in a close game). Both are measured on
the calibration games, per level, and pooled over the levels: one shared spread keeps
the estimate monotone (a higher accuracy never points to a lower level, which a level
with a wide spread of its own could otherwise attract at both ends). The likelihood of
each level is raised to a power ``temperature`` (at most 1, widening every range
alike), fitted on the calibration games themselves: the largest at which the range
estimated for a player-game left out of the fit holds its true level at least
``COVERAGE`` of the time. A uniform prior over
the levels then gives a posterior: the most likely level, the expected level, and the
narrowest run of levels holding ``COVERAGE`` of it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

COVERAGE = 0.9
"""Share of the posterior the reported range of levels holds."""
TEMPERATURES: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(20, 0, -1))
"""Candidate temperatures, tried from 1 down."""
MIN_PLAYER_GAMES = 2
"""A level enters the model with at least this many calibration player-games."""
MIN_GAME_VARIANCE = 4.0
"""Floor of the between-games variance (accuracy points squared): a handful of
calibration games can by chance show almost none."""
FEW_MOVES = 15
"""Below this many judged moves the estimate carries a note that it says little."""
CALIBRATION_PATH = Path(__file__).with_name("strength_calibration.json")


class CalibrationError(ValueError):
    """The calibration file is missing, unreadable or malformed (the message says
    which, with the path)."""


def move_accuracy(loss: float) -> float:
    """Lichess's accuracy (0-100) of one move from its win-chance loss (0-1):
    ``103.1668 exp(-0.04354 x) - 3.1669`` with ``x`` the loss in points."""
    value = 103.1668 * math.exp(-0.04354 * (100.0 * loss)) - 3.1669
    return max(0.0, min(100.0, value))


@dataclass(frozen=True)
class PlayerGame:
    """One player's judged moves in one calibration game: what the model is fitted on."""

    level: int
    losses: tuple[float, ...]

    @property
    def scores(self) -> list[float]:
        return [move_accuracy(loss) for loss in self.losses]

    @property
    def accuracy(self) -> float:
        scores = self.scores
        return sum(scores) / len(scores) if scores else 100.0

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "losses": [round(x, 4) for x in self.losses]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PlayerGame:
        """Raises KeyError / TypeError / ValueError on a malformed row."""
        return cls(int(data["level"]), tuple(float(x) for x in data["losses"]))


@dataclass(frozen=True)
class LevelFit:
    """What a level's calibration player-games show."""

    mean: float
    """Mean accuracy of a player-game."""
    move_variance: float
    """Variance of one move's accuracy within a game."""
    game_variance: float
    """Variance between games beyond what the number of moves explains."""
    player_games: int
    moves: int


def fit_level(rows: Sequence[PlayerGame]) -> LevelFit:
    """The fit of one level's player-games (those with at least one judged move)."""
    rows = [pg for pg in rows if pg.losses]
    accuracies = [pg.accuracy for pg in rows]
    mean = sum(accuracies) / len(accuracies)
    within = []
    for pg in rows:
        scores = pg.scores
        if len(scores) > 1:
            centre = sum(scores) / len(scores)
            within.append(sum((s - centre) ** 2 for s in scores) / (len(scores) - 1))
    move_variance = sum(within) / len(within) if within else 0.0
    spread = (sum((a - mean) ** 2 for a in accuracies) / (len(accuracies) - 1)
              if len(accuracies) > 1 else 0.0)
    explained = sum(move_variance / len(pg.losses) for pg in rows) / len(rows)
    return LevelFit(mean, move_variance, max(MIN_GAME_VARIANCE, spread - explained),
                    len(rows), sum(len(pg.losses) for pg in rows))


def fit_levels(data: Sequence[PlayerGame]) -> dict[int, LevelFit]:
    """The fit of every level with at least ``MIN_PLAYER_GAMES`` player-games."""
    by_level: dict[int, list[PlayerGame]] = {}
    for pg in data:
        if pg.losses:
            by_level.setdefault(pg.level, []).append(pg)
    return {level: fit_level(rows) for level, rows in sorted(by_level.items())
            if len(rows) >= MIN_PLAYER_GAMES}


def pooled_variances(fits: Mapping[int, LevelFit]) -> tuple[float, float]:
    """(move variance, between-games variance) over all levels, each level weighted by
    its player-games."""
    total = sum(fit.player_games for fit in fits.values())
    return (sum(fit.move_variance * fit.player_games for fit in fits.values()) / total,
            sum(fit.game_variance * fit.player_games for fit in fits.values()) / total)


@dataclass(frozen=True)
class StrengthModel:
    """Per level, the fit of its accuracy; the pooled spreads; the temperature."""

    game: str
    fits: dict[int, LevelFit]
    temperature: float
    analysis_iterations: int
    """The analysis budget (iterations per position) the calibration games were judged
    with: losses found with another budget compare only roughly."""

    move_variance: float
    """Pooled variance of one move's accuracy within a game."""
    game_variance: float
    """Pooled variance between games beyond what the number of moves explains."""

    @classmethod
    def pooled(cls, game: str, fits: dict[int, LevelFit], temperature: float,
               analysis_iterations: int) -> StrengthModel:
        """The model with the spreads of ``fits`` pooled."""
        move_variance, game_variance = pooled_variances(fits)
        return cls(game, fits, temperature, analysis_iterations, move_variance,
                   game_variance)

    def variance(self, moves: int) -> float:
        """Variance of the accuracy of a player-game of ``moves`` judged moves."""
        return self.move_variance / moves + self.game_variance

    @property
    def levels(self) -> list[int]:
        return sorted(self.fits)

    def posterior(self, accuracy: float, moves: int) -> dict[int, float]:
        """Probability of each level for a player of this ``accuracy`` over ``moves``
        judged moves (uniform prior; no moves: uniform)."""
        if moves < 1:
            return {level: 1.0 / len(self.fits) for level in self.levels}
        variance = self.variance(moves)
        logs = {level: -self.temperature * (accuracy - fit.mean) ** 2 / (2 * variance)
                for level, fit in self.fits.items()}
        top = max(logs.values())
        weights = {level: math.exp(value - top) for level, value in logs.items()}
        total = sum(weights.values())
        return {level: weights[level] / total for level in self.levels}


def credible_range(posterior: Mapping[int, float],
                   coverage: float = COVERAGE) -> tuple[int, int]:
    """The narrowest run of consecutive levels holding ``coverage`` of the posterior
    (of equally narrow runs, the one holding most)."""
    levels = sorted(posterior)
    best: tuple[int, float, int, int] | None = None
    for i, low in enumerate(levels):
        mass = 0.0
        for high in levels[i:]:
            mass += posterior[high]
            if mass >= coverage - 1e-9:
                width = high - low
                if best is None or (width, -mass) < (best[0], -best[1]):
                    best = (width, mass, low, high)
                break
    assert best is not None  # the whole scale always holds all of the posterior
    return best[2], best[3]


@dataclass(frozen=True)
class HeldOutCheck:
    """How well the estimate did on calibration player-games left out of its fit."""

    coverage: float
    """Share whose true level lay in the range."""
    within_one: float
    """Share whose most likely level was the true level or next to it."""
    mean_width: float
    """Mean of high - low of the ranges, in levels."""
    tested: int


def held_out_check(data: Sequence[PlayerGame], temperature: float,
                   coverage: float = COVERAGE) -> HeldOutCheck:
    """Estimate each player-game with a model fitted without it (levels the model has,
    player-games with judged moves) and compare with its true level."""
    fits = fit_levels(data)
    by_level: dict[int, list[PlayerGame]] = {}
    for pg in data:
        by_level.setdefault(pg.level, []).append(pg)
    hits = near = width = tested = 0
    for level, rows in by_level.items():
        if level not in fits or len(rows) <= MIN_PLAYER_GAMES:
            continue  # left out, the level would drop out of the model
        for i, held in enumerate(rows):
            if not held.losses:
                continue
            rest = fit_level(rows[:i] + rows[i + 1:])
            model = StrengthModel.pooled("", {**fits, level: rest}, temperature, 0)
            posterior = model.posterior(held.accuracy, len(held.losses))
            low, high = credible_range(posterior, coverage)
            likeliest = max(posterior, key=lambda lv: (posterior[lv], -lv))
            hits += low <= level <= high
            near += abs(likeliest - level) <= 1
            width += high - low
            tested += 1
    if not tested:
        return HeldOutCheck(0.0, 0.0, 0.0, 0)
    return HeldOutCheck(hits / tested, near / tested, width / tested, tested)


def fit_model(game: str, data: Sequence[PlayerGame],
              analysis_iterations: int) -> tuple[StrengthModel, HeldOutCheck]:
    """The model for ``data`` and how its estimates did held out: the temperature is the
    largest candidate whose ranges hold the true level at least ``COVERAGE`` of the
    time, else the smallest. Raises ValueError when no level has enough data."""
    fits = fit_levels(data)
    if not fits:
        raise ValueError(f"no level has {MIN_PLAYER_GAMES} calibration player-games")
    for temperature in TEMPERATURES:
        check = held_out_check(data, temperature)
        if check.coverage >= COVERAGE:
            break
    return StrengthModel.pooled(game, fits, temperature, analysis_iterations), check


@dataclass
class StrengthEstimate:
    """A player's strength on the level scale (level 0: random play)."""

    level: int
    """The most likely level."""
    expected: float
    """The posterior mean level."""
    low: int
    high: int
    """The range of levels holding ``coverage`` of the posterior."""
    coverage: float
    moves: int
    """Judged moves the estimate rests on."""
    posterior: dict[int, float] = field(default_factory=dict)
    note: str = ""
    """Why to take it with care (few moves, another analysis budget), or empty."""

    def describe(self) -> str:
        """``plays like level 3 (range 2-4)``."""
        span = f"{self.low}" if self.low == self.high else f"{self.low}-{self.high}"
        return f"plays like level {self.level} (range {span})"


def estimate(model: StrengthModel, losses: Sequence[float],
             analysis_iterations: int | None = None) -> StrengthEstimate:
    """The strength estimate from a player's judged move ``losses`` (0-1 each), found
    by an analysis of ``analysis_iterations`` per position when given."""
    scores = [move_accuracy(loss) for loss in losses]
    accuracy = sum(scores) / len(scores) if scores else 100.0
    posterior = model.posterior(accuracy, len(scores))
    low, high = credible_range(posterior)
    level = max(posterior, key=lambda lv: (posterior[lv], -lv))
    notes = []
    if len(losses) < FEW_MOVES:
        notes.append(f"only {len(losses)} judged moves: a wide range")
    if analysis_iterations is not None and analysis_iterations != model.analysis_iterations:
        notes.append(f"calibrated on analyses of {model.analysis_iterations} iterations a "
                     f"position, this one used {analysis_iterations}: a rough guide")
    return StrengthEstimate(
        level, round(sum(lv * p for lv, p in posterior.items()), 2), low, high, COVERAGE,
        len(losses), {lv: round(p, 4) for lv, p in posterior.items()}, "; ".join(notes))


def fits_to_json(fits: Mapping[int, LevelFit]) -> dict[str, dict[str, float]]:
    return {str(level): {"mean": round(fit.mean, 3), "move_variance": round(fit.move_variance, 3),
                         "game_variance": round(fit.game_variance, 3),
                         "player_games": fit.player_games, "moves": fit.moves}
            for level, fit in fits.items()}


def model_from_json(game: str, entry: Mapping[str, Any]) -> StrengthModel:
    """The model stored for ``game`` in a calibration document. Raises ``KeyError`` /
    ``ValueError`` / ``TypeError`` on a malformed entry."""
    fits = {int(level): LevelFit(float(f["mean"]), float(f["move_variance"]),
                                 float(f["game_variance"]), int(f["player_games"]),
                                 int(f["moves"]))
            for level, f in entry["fits"].items()}
    if not fits or any(f.game_variance <= 0 for f in fits.values()):
        raise ValueError(f"{game}: every level needs a positive game_variance")
    return StrengthModel.pooled(game, fits, float(entry["temperature"]),
                                int(entry["analysis_iterations"]))


@cache
def load_models(path: Path = CALIBRATION_PATH) -> dict[str, StrengthModel]:
    """The calibrated model of every game in the calibration file. Raises
    ``CalibrationError``."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CalibrationError(f"cannot read the strength calibration {path}: {error}") from None
    try:
        return {game: model_from_json(game, entry)
                for game, entry in document["games"].items()}
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        raise CalibrationError(
            f"the strength calibration {path} is malformed: {error!r}") from None


def model_for(game: str, path: Path = CALIBRATION_PATH) -> StrengthModel | None:
    """The calibrated model of ``game``, None when the file has none for it. Raises
    ``CalibrationError`` for an unreadable file."""
    return load_models(path).get(game)
