"""How strong did a player play? A level on the engine scale (0: random play), with a
range, or "not enough moves".

The evidence is a player's judged moves in one analysed game: each move's accuracy
(``engines.search.accuracy``, 0-100) and whether it was the analysis' best move. Each
move gets a **score**, ``weight * accuracy + (1 - weight) * 100 * best``, and the
evidence is the mean score over the player's ``n`` judged moves.

The model (one per game and player count, fitted by ``fit_model`` on analysed games
between engine levels, ``engines.search.calibration``): each level's mean score (forced
to rise with the level), and a spread in two parts — that of one move, divided by
``n`` (a short game says little), and that between games, which no number of moves
removes (a player in a lost position scores differently from one in a close game).
Both spreads are pooled over the levels, so a higher score never points to a lower
level. The likelihood of each level, raised to a power ``temperature`` (at most 1,
widening every range alike), with a uniform prior over the levels, gives a
posterior: the most likely level, and the narrowest run of levels holding
``COVERAGE`` of it. ``weight`` and ``temperature`` are chosen on the fitting games by
cross-validation (folds of whole games): the temperature is the largest whose ranges
hold the true level ``COVERAGE`` of the time, the weight the one whose most likely
level is most often within one of the truth. Fewer than ``MIN_MOVES`` judged moves
give no level at all.
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
MIN_MOVES = 4
"""Below this many judged moves there is no estimate ("not enough moves")."""
FEW_MOVES = 15
"""Below this many judged moves the estimate carries a note that it says little."""
MIN_GAME_VARIANCE = 1.0
"""Floor of the between-games variance (score points squared)."""
WEIGHTS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Candidate weights of accuracy against the best-move share in a move's score."""
TEMPERATURES: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(20, 0, -1))
"""Candidate temperatures, tried from 1 down."""
FOLDS = 5
MODEL_PATH = Path(__file__).with_name("strength_model.json")


class CalibrationError(ValueError):
    """The model file is missing, unreadable or malformed (the message says which,
    with the path)."""


@dataclass(frozen=True)
class Evidence:
    """One player's judged moves in one game (or in the part of it analysed)."""

    accuracies: tuple[float, ...]
    """Each judged move's accuracy, 0-100."""
    best: tuple[bool, ...]
    """Whether each judged move was the analysis' best move."""

    @property
    def moves(self) -> int:
        return len(self.accuracies)

    def scores(self, weight: float) -> list[float]:
        return [weight * a + (1.0 - weight) * (100.0 if b else 0.0)
                for a, b in zip(self.accuracies, self.best, strict=True)]

    def mean_score(self, weight: float) -> float:
        scores = self.scores(weight)
        return sum(scores) / len(scores)


@dataclass(frozen=True)
class Labelled:
    """Evidence of a player whose level is known, and the game it comes from."""

    level: int
    evidence: Evidence
    group: int
    """Which game (folds of the cross-validation keep a game's players together)."""


@dataclass(frozen=True)
class StrengthModel:
    """Per level, its mean score; the pooled spreads; weight and temperature."""

    key: str
    """Game and player count, ``shangrila-4``."""
    means: dict[int, float]
    move_variance: float
    game_variance: float
    weight: float
    temperature: float
    analysis_iterations: int
    """The analysis budget (iterations a position) of the fitting games: losses found
    with another budget compare only roughly."""

    @property
    def levels(self) -> list[int]:
        return sorted(self.means)

    def posterior(self, evidence: Evidence) -> dict[int, float]:
        """Probability of each level given ``evidence`` (no moves: uniform)."""
        if evidence.moves < 1:
            return {level: 1.0 / len(self.means) for level in self.levels}
        score = evidence.mean_score(self.weight)
        variance = self.move_variance / evidence.moves + self.game_variance
        logs = {level: -self.temperature * (score - mean) ** 2 / (2.0 * variance)
                for level, mean in self.means.items()}
        top = max(logs.values())
        weights = {level: math.exp(value - top) for level, value in logs.items()}
        total = sum(weights.values())
        return {level: weights[level] / total for level in self.levels}

    def to_json(self) -> dict[str, Any]:
        return {"means": {str(k): round(v, 3) for k, v in sorted(self.means.items())},
                "move_variance": round(self.move_variance, 3),
                "game_variance": round(self.game_variance, 3), "weight": self.weight,
                "temperature": self.temperature,
                "analysis_iterations": self.analysis_iterations}

    @classmethod
    def from_json(cls, key: str, data: Mapping[str, Any]) -> StrengthModel:
        """Raises KeyError / TypeError / ValueError on a malformed entry."""
        means = {int(k): float(v) for k, v in data["means"].items()}
        model = cls(key, means, float(data["move_variance"]), float(data["game_variance"]),
                    float(data["weight"]), float(data["temperature"]),
                    int(data["analysis_iterations"]))
        if not means or model.move_variance < 0 or model.game_variance <= 0:
            raise ValueError(f"{key}: needs levels and positive spreads")
        if not 0 < model.temperature <= 1 or not 0 <= model.weight <= 1:
            raise ValueError(f"{key}: temperature in (0, 1] and weight in [0, 1]")
        return model


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


@dataclass
class StrengthEstimate:
    """A player's strength on the level scale (level 0: random play)."""

    level: int | None
    """The most likely level; None with too few judged moves."""
    expected: float | None
    """The posterior mean level."""
    low: int
    high: int
    """The range of levels holding ``coverage`` of the posterior (all levels when there
    is no estimate)."""
    coverage: float
    moves: int
    """Judged moves the estimate rests on."""
    posterior: dict[int, float] = field(default_factory=dict)
    note: str = ""
    """Why to take it with care (few moves, another analysis budget), or empty."""
    whole_scale: bool = False
    """The range covers every level the model knows: the moves did not tell."""

    def describe(self) -> str:
        """``plays like level 3 (range 2-4)``; ``not enough moves to tell (range 0-4)``
        when the range is the whole scale; ``not enough moves (3 judged)`` without an
        estimate."""
        if self.level is None:
            return f"not enough moves ({self.moves} judged)"
        if self.whole_scale:
            return f"not enough moves to tell (range {self.low}-{self.high})"
        span = f"{self.low}" if self.low == self.high else f"{self.low}-{self.high}"
        return f"plays like level {self.level} (range {span})"


def estimate(model: StrengthModel, accuracies: Sequence[float], best: Sequence[bool],
             analysis_iterations: int | None = None) -> StrengthEstimate:
    """The strength estimate from a player's judged moves: their accuracies (0-100) and
    whether each was the best move, found by an analysis of ``analysis_iterations`` a
    position when given."""
    evidence = Evidence(tuple(accuracies), tuple(best))
    levels = model.levels
    if evidence.moves < MIN_MOVES:
        return StrengthEstimate(None, None, levels[0], levels[-1], COVERAGE, evidence.moves,
                                {}, f"fewer than {MIN_MOVES} judged moves", True)
    posterior = model.posterior(evidence)
    low, high = credible_range(posterior)
    level = max(posterior, key=lambda lv: (posterior[lv], -lv))
    notes = []
    if evidence.moves < FEW_MOVES:
        notes.append(f"only {evidence.moves} judged moves: a wide range")
    if analysis_iterations is not None and analysis_iterations != model.analysis_iterations:
        notes.append(f"the model knows analyses of {model.analysis_iterations} iterations a "
                     f"position, this one used {analysis_iterations}: a rough guide")
    return StrengthEstimate(
        level, round(sum(lv * p for lv, p in posterior.items()), 2), low, high, COVERAGE,
        evidence.moves, {lv: round(p, 4) for lv, p in posterior.items()}, "; ".join(notes),
        (low, high) == (levels[0], levels[-1]))


# ---------------------------------------------------------------------- fitting


def isotonic(values: Mapping[int, float], weights: Mapping[int, float]) -> dict[int, float]:
    """The non-decreasing sequence (by level) closest to ``values`` in weighted least
    squares (pool adjacent violators)."""
    blocks: list[list[Any]] = []  # [mean, weight, levels]
    for level in sorted(values):
        blocks.append([values[level], weights[level], [level]])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, l2 = blocks.pop()
            v1, w1, l1 = blocks.pop()
            blocks.append([(v1 * w1 + v2 * w2) / (w1 + w2), w1 + w2, l1 + l2])
    return {level: value for value, _, levels in blocks for level in levels}


def fit_spreads(rows: Sequence[Labelled], weight: float,
                analysis_iterations: int, key: str = "") -> StrengthModel:
    """Level means and pooled spreads of ``rows`` (player-games with at least two
    judged moves), at temperature 1. Raises ValueError without data."""
    by_level: dict[int, list[list[float]]] = {}
    for row in rows:
        if row.evidence.moves >= 2:
            by_level.setdefault(row.level, []).append(row.evidence.scores(weight))
    if not by_level:
        raise ValueError("no player-game with two judged moves to fit on")
    raw_means, counts = {}, {}
    within_sum = within_df = 0.0
    for level, games in by_level.items():
        means = [sum(g) / len(g) for g in games]
        raw_means[level] = sum(means) / len(means)
        counts[level] = float(len(games))
        for g, m in zip(games, means, strict=True):
            within_sum += sum((s - m) ** 2 for s in g)
            within_df += len(g) - 1
    move_variance = within_sum / max(1.0, within_df)
    means_fit = isotonic(raw_means, counts)
    between_sum = between_n = 0.0
    for level, games in by_level.items():
        for g in games:
            residual = sum(g) / len(g) - means_fit[level]
            between_sum += residual ** 2 - move_variance / len(g)
            between_n += 1
    game_variance = max(MIN_GAME_VARIANCE, between_sum / max(1.0, between_n))
    return StrengthModel(key, means_fit, move_variance, game_variance, weight, 1.0,
                         analysis_iterations)


@dataclass(frozen=True)
class Check:
    """How estimates did against the true levels."""

    tested: int
    """Player-games with an estimate."""
    coverage: float
    """Share whose range held the true level."""
    within_one: float
    """Share whose most likely level was within one of the true level."""
    exact: float
    mean_width: float
    """Mean of high - low, in levels."""
    refused: int
    """Player-games with too few moves for an estimate."""

    def to_json(self) -> dict[str, Any]:
        return {"tested": self.tested, "coverage": round(self.coverage, 3),
                "within_one": round(self.within_one, 3), "exact": round(self.exact, 3),
                "mean_width": round(self.mean_width, 2), "refused": self.refused}


def check(model: StrengthModel, rows: Sequence[Labelled]) -> Check:
    """Estimate every row with ``model`` and compare with its true level."""
    tested = refused = hits = near = exact = width = 0
    for row in rows:
        found = estimate(model, row.evidence.accuracies, row.evidence.best)
        if found.level is None:
            refused += 1
            continue
        tested += 1
        hits += found.low <= row.level <= found.high
        near += abs(found.level - row.level) <= 1
        exact += found.level == row.level
        width += found.high - found.low
    if not tested:
        return Check(0, 0.0, 0.0, 0.0, 0.0, refused)
    return Check(tested, hits / tested, near / tested, exact / tested, width / tested,
                 refused)


def _with_temperature(model: StrengthModel, temperature: float) -> StrengthModel:
    return StrengthModel(model.key, model.means, model.move_variance, model.game_variance,
                         model.weight, temperature, model.analysis_iterations)


def cross_validated(rows: Sequence[Labelled], weight: float,
                    temperature: float) -> Check:
    """Pooled check of models fitted on all folds but one, on the fold left out."""
    folds: list[list[Labelled]] = [[] for _ in range(FOLDS)]
    for row in rows:
        folds[row.group % FOLDS].append(row)
    pooled: list[tuple[Check, int]] = []
    for k in range(FOLDS):
        train = [r for j, fold in enumerate(folds) if j != k for r in fold]
        if not folds[k] or not train:
            continue
        model = _with_temperature(fit_spreads(train, weight, 0), temperature)
        pooled.append((check(model, folds[k]), k))
    tested = sum(c.tested for c, _ in pooled)
    if not tested:
        return Check(0, 0.0, 0.0, 0.0, 0.0, sum(c.refused for c, _ in pooled))
    return Check(tested, sum(c.coverage * c.tested for c, _ in pooled) / tested,
                 sum(c.within_one * c.tested for c, _ in pooled) / tested,
                 sum(c.exact * c.tested for c, _ in pooled) / tested,
                 sum(c.mean_width * c.tested for c, _ in pooled) / tested,
                 sum(c.refused for c, _ in pooled))


def fit_model(key: str, rows: Sequence[Labelled],
              analysis_iterations: int) -> tuple[StrengthModel, Check]:
    """The model fitted on ``rows`` and its cross-validated check: for each weight the
    largest temperature whose ranges hold the true level ``COVERAGE`` of the time (else
    the smallest); of those, the weight most often within one level. Raises ValueError
    without data."""
    best: tuple[float, float, float, Check] | None = None
    for weight in WEIGHTS:
        found = None
        for temperature in TEMPERATURES:
            found = cross_validated(rows, weight, temperature)
            if found.coverage >= COVERAGE:
                break
        assert found is not None
        candidate = (found.within_one, weight, temperature, found)
        if best is None or candidate[0] > best[0] + 1e-9:
            best = candidate
    assert best is not None
    _, weight, temperature, cv = best
    model = _with_temperature(fit_spreads(rows, weight, analysis_iterations, key),
                              temperature)
    return model, cv


# ---------------------------------------------------------------------- the file


@cache
def load_models(path: Path = MODEL_PATH) -> dict[str, StrengthModel]:
    """Every model of the model file, by ``game-players`` key. Raises
    ``CalibrationError``."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CalibrationError(f"cannot read the strength model {path}: {error}") from None
    try:
        return {key: StrengthModel.from_json(key, entry["model"])
                for key, entry in document["models"].items()}
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        raise CalibrationError(
            f"the strength model {path} is malformed: {error!r}") from None


def model_for(game: str, players: int, path: Path = MODEL_PATH) -> StrengthModel | None:
    """The model of ``game`` for ``players`` players, None when the file has none.
    Raises ``CalibrationError`` for an unreadable file."""
    return load_models(path).get(f"{game}-{players}")
