"""How strong did a player play? A level on the engine scale (0: random play), with a
range, or "not enough moves".

The evidence is a player's judged moves in one analysed game: for each move its
accuracy (``engines.search.accuracy``, 0-100; it gives the move's loss of win chance),
whether it was the analysis' best move, and the win chance the best move kept. What
tells levels apart is the **relative loss** of a move: the share of their win chance
the player gave away (a loss of 0.05 is small for a leader at 0.6, and nearly all a
trailing player at 0.06 had). Random play often gives away more than half of it;
strong play rarely does.

Six averages over a player's moves (``QUANTITIES``: the mean relative loss, the share of
moves giving away more than half, the share giving away almost nothing, the share of
best moves, the mean loss, the mean win chance kept), and for the models that read it
(``StrengthModel.edges``) the mean edge of the moves (``engines.search.edge``: how the
static evaluation ranks the move among the turns random play draws), are each drawn
towards the fitting players' average by ``SHRINK`` moves' worth (a short game says
little and lands near the middle), and, with the number of moves, give each level a
probability by a multinomial logistic model (fitted by ``fit_model`` on analysed games
between engine levels, ``engines.search.calibration``). Its log-odds times a
``temperature`` (below 1 widening every range alike; above 1, up to ``MAX_TEMPERATURE``,
narrowing them: the fit's ridge penalty draws the log-odds towards zero, and the
cross-validation tells how far back out they can be trusted) and times ``n / (n +
few_moves)`` for ``n`` judged moves (widening the ranges of short evidence most) give
the posterior. For the models that weigh it (``StrengthModel.edge_shift``) the sum of
the moves' edges first adds its log-likelihood under each level to the log-odds
(``edge_evidence``: unlike an average, its evidence grows with the moves, as a test of
"random play or not" should), and the logistic model is fitted with it in place
(``edge_offsets``), so that the edges are counted once. For the models that split
them (``StrengthModel.lead_split``) each level is fitted as two classes, the players
who led and those who did not, and the level's log-odds are its halves' together: a
random player who leads a table of random players looks like a stronger leader, not
like the random players who trail. The fit may weigh the players of tables where every
seat plays at random more than others (``StrengthModel.table_weight``). The range is
the narrowest run of levels holding ``COVERAGE`` of the posterior (``THIN_COVERAGE`` of
it when there are few moves: the fewer the moves, the more the posterior rests on what
the fit chose, and the wider the range must be). The level given is the posterior
median, or level 0 (random play) as soon as level 0 has at least ``random_threshold``
of the posterior and there are ``random_moves`` judged moves: a player who may well be
playing at random is told so, once there are moves enough to tell. The range always
holds the level given.

``few_moves``, ``temperature`` and ``random_threshold`` are chosen on the fitting games
by cross-validation (folds of whole games): for each ``few_moves`` of
``FEW_MOVES_CHOICES`` the largest temperature whose ranges hold the true level
``COVERAGE`` of the time in whole games and in games joined late alike, and of those
the pair giving the narrowest ranges; then the threshold and ``random_moves`` (of
``RANDOM_MOVES_CHOICES``: a game of few turns a player, as ShenShi, must name random
play from fewer moves than a long one) the pair coming closest to both aims on whole
games (the level within one of the truth ``NEAR_GOAL`` of the time, random play judged
level 0 ``RANDOM_AIM`` of the time: a margin above the goal ``RANDOM_GOAL`` that a test
of a few dozen random players needs). Fewer than
``MIN_MOVES`` judged moves give no level at all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

COVERAGE = 0.9
"""Share of the posterior the reported range of levels holds (but see
``THIN_COVERAGE``), and of the players whose range should hold their level."""
MIN_MOVES = 4
"""Below this many judged moves there is no estimate ("not enough moves")."""
FEW_MOVES = 15
"""Below this many judged moves the estimate carries a note that it says little, and
its range holds ``THIN_COVERAGE`` of the posterior."""
THIN_COVERAGE = 0.94
"""Share of the posterior the range of fewer than ``FEW_MOVES`` judged moves holds. The
temperature and ``few_moves`` are fitted so that the ranges hold ``COVERAGE`` of the
time in cross-validation, and with few moves (the last 20 moves of a game: 4 to 10
judged moves a player) the posterior rests most on them: on games never fitted on, the
ranges of three-player Shangri-La's last 20 moves held the level 89% of the time on
one seed's 75 players. Chosen among 0.90, 0.92, 0.93, 0.94, 0.95 and 0.97 on the seen test games of
seeds 5 to 12 (``engines.search.bench_strength.THIN_COVERAGE_SEEDS``), every player of
fewer than ``FEW_MOVES`` judged moves at the tables of engines: the least whose ranges
held the level ``THIN_AIM`` of the time in every game. Three-player Shangri-La (564
players) 91.8% at 0.90, 94.7% at 0.93, 95.9% at 0.94; four-player (480) 92.7%, 95.2%,
95.8%; Shendao (1164) 94.4%, 96.4%, 97.1%; ShenShi (1436) 95.7%, 96.9%, 97.4%. The
price: more of these ranges span every level ("not enough moves to tell"), at 0.90 ->
0.94 7% -> 17%, 17% -> 31%, 8% -> 20% and 8% -> 16%."""
THIN_AIM = 0.95
"""The share of players of few moves whose range should hold their level on the games
``THIN_COVERAGE`` is chosen on, above the goal ``COVERAGE``: a test of 75 players (one
seed's last 20 moves of three-player Shangri-La) meets the goal about 19 times in 20
when the true share is 95%, about half the time when it is 90%."""
RANDOM_MOVES_CHOICES: tuple[int, ...] = (FEW_MOVES, 12, 10, 8, 6, MIN_MOVES)
"""Candidate ``random_moves``, the judged moves from which level 0 is named on its
threshold: tried from the most down, of equals the most kept."""
TUNED_RANDOM_MOVES: tuple[int, ...] = (30, 25, 20, FEW_MOVES)
"""Candidate ``random_moves`` of a model whose level-0 rule is chosen on games it was
not fitted on (``tune_random``): a whole three-player Shangri-La game gives a player 28
to 47 judged moves, one joined at its middle 15 to 24; a four-player one 28 to 41 at
tables of engines and 24 to 37 at tables where everyone plays at random, and 11 to 21."""
NEAR_GOAL = 0.8
RANDOM_GOAL = 0.95
"""The goals the level-0 threshold is chosen for (see the module's docstring)."""
RANDOM_AIM = 0.975
"""The share of random play named level 0 the threshold aims at on the fitting games,
above ``RANDOM_GOAL``: a test of 30 to 40 random players meets the goal only with at
most one of them missed, which a true share of 97.5% does about three times in four (a
true share of 95%, about half the time)."""
SHRINK = 2.0
"""Moves' worth of the fitting players' average added to a player's own averages."""
KEPT_FLOOR = 0.02
"""Win chance below which a move's relative loss is taken against this floor."""
BIG_SHARE = 0.5
SMALL_SHARE = 0.05
"""A move gives away much (more than ``BIG_SHARE`` of the win chance it had) or almost
nothing (less than ``SMALL_SHARE``)."""
QUANTITIES: tuple[str, ...] = (
    "relative loss",
    "gave away more than half",
    "gave away almost nothing",
    "best move",
    "loss",
    "win chance kept",
)
KEPT_BINS = 10
"""Bins of equal width of the win chance a move's best move kept, in which random play's
average of each quantity is taken (``random_reference``)."""
REFERENCE_PRIOR = 20.0
"""Moves' worth of random play's overall average added to each bin's own (a thin bin
lands near the overall average)."""
L2 = 0.3
"""Ridge penalty of the logistic model (on standardised features)."""
STEPS = 2000
RATE = 0.5
"""Gradient steps and step size of the fit (deterministic: same games, same model)."""
MAX_TEMPERATURE = 2.0
"""The most a temperature sharpens the fitted log-odds."""
TEMPERATURES: tuple[float, ...] = tuple(
    round(0.05 * k, 2) for k in range(round(MAX_TEMPERATURE / 0.05), 0, -1)
)
"""Candidate temperatures, tried from ``MAX_TEMPERATURE`` down."""
FEW_MOVES_CHOICES: tuple[float, ...] = (0.0, 5.0, 10.0, 20.0, 40.0)
"""Candidate ``few_moves``: the moves at which the evidence's log-odds count half."""
RANDOM_THRESHOLDS: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 11))
"""Candidate level-0 thresholds."""
FOLDS = 5
MODEL_PATH = Path(__file__).with_name("strength_model.json")

FloatArray = npt.NDArray[np.float64]


class CalibrationError(ValueError):
    """The model file is missing, unreadable or malformed (the message says which,
    with the path)."""


def loss_of(accuracy: float) -> float:
    """The loss of win chance (0-1) a move's accuracy stands for (the inverse of
    ``engines.search.accuracy.move_accuracy``; accuracy 0 stands for a loss of 0.8 or
    more, 100 for none)."""
    clipped = max(0.0, min(100.0, accuracy))
    return max(0.0, -math.log((clipped + 3.1669) / 103.1668) / 0.04354) / 100.0


@dataclass(frozen=True)
class Evidence:
    """One player's judged moves in one game (or in the part of it analysed)."""

    accuracies: tuple[float, ...]
    """Each judged move's accuracy, 0-100."""
    best: tuple[bool, ...]
    """Whether each judged move was the analysis' best move."""
    kept: tuple[float, ...] = ()
    """The win chance (0-1) the best move kept at each judged move; empty when not
    known (an even share is assumed, a rougher estimate)."""
    table: float | None = None
    """How the others at the table played: the mean relative loss of their judged moves
    in the same part of the game (``table_loss``); None when not known (the fitting
    tables' average is assumed)."""
    edges: tuple[float, ...] = ()
    """Each judged move's edge (``engines.search.edge``: how much better the static
    evaluation found it than the turns random play draws); empty when not known (the
    fitting players' average is assumed)."""

    @property
    def moves(self) -> int:
        return len(self.accuracies)

    def relative_losses(self, even_share: float) -> FloatArray:
        """Each judged move's relative loss (the first of ``QUANTITIES``)."""
        return self.quantities(even_share)[:, 0]

    def quantities(self, even_share: float) -> FloatArray:
        """Per judged move, the ``QUANTITIES`` (one row a move)."""
        kept = self.kept if len(self.kept) == self.moves else (even_share,) * self.moves
        rows = []
        for accuracy, best, chance in zip(self.accuracies, self.best, kept, strict=True):
            loss = loss_of(accuracy)
            relative = min(1.0, loss / max(chance, KEPT_FLOOR))
            rows.append(
                (
                    relative,
                    float(relative > BIG_SHARE),
                    float(relative < SMALL_SHARE),
                    float(best),
                    loss,
                    chance,
                )
            )
        return np.array(rows, dtype=np.float64).reshape(-1, len(QUANTITIES))


@dataclass(frozen=True)
class Labelled:
    """Evidence of a player whose level is known, and the game it comes from."""

    level: int
    evidence: Evidence
    group: int
    """Which game (folds of the cross-validation keep a game's players together)."""
    view: str = "full"
    """Which part of the game: ``full``, or joined late (``engines.search.calibration``)."""
    borrowed: bool = False
    """From another set's games (``engines.search.calibration.FIT_ALSO``): always fitted
    on, never held out in the cross-validation (which judges the set's own games)."""
    random_table: bool = False
    """From a table where every seat plays at random (weighed ``table_weight`` in the
    fit, ``fit_logistic``)."""
    tuning: bool = False
    """From games never fitted on that choose the level-0 rule only (``tune_random``):
    left out of every fit and of the cross-validation."""


def led(evidence: Evidence, even_share: float) -> int:
    """1 when the win chance the player's best moves kept averages more than an even
    share (they led), else 0: the half of a level its player falls in when the model
    splits each level by it (``StrengthModel.lead_split``)."""
    return int(bool(evidence.kept) and float(np.mean(evidence.kept)) > even_share)


def table_loss(others: Sequence[Evidence], even_share: float) -> float | None:
    """The mean relative loss of the judged moves of ``others``, the other players of a
    game (None without a judged move): at a table where nobody plays well every player
    keeps more win chance than their play deserves, and the model takes it into
    account."""
    losses = [e.relative_losses(even_share) for e in others if e.moves]
    return float(np.concatenate(losses).mean()) if losses else None


def kept_bins(kept: FloatArray) -> npt.NDArray[np.int64]:
    """The bin (``KEPT_BINS``) of each win chance kept."""
    found: npt.NDArray[np.int64] = np.clip((kept * KEPT_BINS).astype(np.int64), 0, KEPT_BINS - 1)
    return found


def random_reference(
    evidences: Sequence[Evidence], even_share: float
) -> tuple[tuple[float, ...], ...]:
    """Random play's average of each quantity but the last (the win chance kept,
    ``QUANTITIES``) in each bin of the win chance kept (``KEPT_BINS``), from the judged
    moves of random players' ``evidences``; each bin's drawn towards the overall average
    by ``REFERENCE_PRIOR`` moves. Raises ValueError without a judged move."""
    found = [e.quantities(even_share) for e in evidences if e.moves]
    if not found:
        raise ValueError("no judged move of random play to compare moves with")
    rows = np.concatenate(found)
    bins = kept_bins(rows[:, -1])
    overall = rows[:, :-1].mean(axis=0)
    reference = []
    for b in range(KEPT_BINS):
        mine = rows[bins == b, :-1]
        mean = (mine.sum(axis=0) + REFERENCE_PRIOR * overall) / (len(mine) + REFERENCE_PRIOR)
        reference.append(tuple(float(v) for v in mean))
    return tuple(reference)


def against_random(rows: FloatArray, reference: Sequence[Sequence[float]]) -> FloatArray:
    """Per judged move (rows of ``Evidence.quantities``), each quantity but the win
    chance kept less random play's average at the same win chance (``random_reference``):
    how much better or worse than random play the move did in a position like its own.
    The win chance kept itself is left out: the other players' play decides it as much
    as the mover's."""
    out: FloatArray = rows[:, :-1] - np.array(reference, dtype=np.float64)[kept_bins(rows[:, -1])]
    return out


def edge_shifts(
    players_by_level: Mapping[int, Sequence[Sequence[float]]], levels: Sequence[int]
) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """For each level, from the edges of its players' moves (``players_by_level``: one
    sequence of edges a player): the mean edge less one half, the spread (standard
    deviation) of a move's edge, and the spread of a player's own mean edge beyond what
    the number of their moves explains (players of one level differ). A level with fewer
    than two moves gets the figures of all levels together."""
    everyone = [p for level in levels for p in players_by_level.get(level, ()) if p]
    shifts = []
    spreads = []
    between = []
    for level in levels:
        players = [p for p in players_by_level.get(level, ()) if p]
        if sum(len(p) for p in players) < 2:
            players = everyone
        moves = np.array([e for p in players for e in p], dtype=np.float64)
        mean = float(moves.mean()) if len(moves) else 0.5
        spread = float(moves.std()) if len(moves) >= 2 else 0.0
        means = np.array([np.mean(p) for p in players])
        beyond = float(
            np.mean((means - mean) ** 2) - np.mean([spread**2 / len(p) for p in players])
        )
        shifts.append(mean - 0.5)
        spreads.append(spread)
        between.append(math.sqrt(max(0.0, beyond)) if len(players) >= 2 else 0.0)
    return tuple(shifts), tuple(spreads), tuple(between)


def edge_evidence(
    edges: Sequence[float],
    shift: Sequence[float],
    spread: Sequence[float],
    between: Sequence[float],
) -> FloatArray:
    """Each level's log-likelihood of ``edges`` (a player's ``n`` moves' edges), up to a
    constant: their sum less one half a move, taken as normal about ``n`` times the
    level's ``shift``, with the variance of ``n`` independent moves of its ``spread``
    and of a player's own mean differing from the level's by ``between``."""
    n = len(edges)
    total = sum(edges) - 0.5 * n
    shifts = np.array(shift, dtype=np.float64)
    variance = n * np.array(spread) ** 2 + n**2 * np.array(between) ** 2
    out: FloatArray = -0.5 * (total - n * shifts) ** 2 / variance - 0.5 * np.log(variance)
    return out


def edge_offsets(
    evidences: Sequence[Evidence],
    shift: Sequence[float],
    spread: Sequence[float],
    between: Sequence[float],
) -> FloatArray:
    """One row a player of ``edge_evidence`` (each level's log-likelihood of the sum of
    their moves' edges), less its mean over the levels; zeros for a player whose edges
    are not known (``StrengthModel.logits`` adds none then)."""
    out: FloatArray = np.zeros((len(evidences), len(shift)))
    for i, evidence in enumerate(evidences):
        if evidence.moves and len(evidence.edges) == evidence.moves:
            row = edge_evidence(evidence.edges, shift, spread, between)
            out[i] = row - row.mean()
    return out


def features(
    evidence: Evidence,
    population: FloatArray,
    even_share: float,
    edges: bool = False,
    reference: Sequence[Sequence[float]] = (),
) -> FloatArray:
    """The model's inputs: each quantity's average drawn towards ``population`` (the
    fitting players' averages, then, when the model reads ``edges``, their mean edge,
    then their tables') by ``SHRINK`` moves; with ``edges`` the mean edge drawn the same
    way (the fitting players' when not known); the others' play (``Evidence.table``; the
    fitting tables' average when not known), and the log of the number of moves. With a
    ``reference`` (``random_reference``) the quantities are compared with random play's
    at the same win chance (``against_random``), and the win chance kept is not one."""
    rows = evidence.quantities(even_share)
    if reference:
        rows = against_random(rows, reference)
    width = rows.shape[1]
    mean = (rows.sum(axis=0) + SHRINK * population[:width]) / (len(rows) + SHRINK)
    if edges:
        known = len(evidence.edges) == evidence.moves and evidence.moves > 0
        edge = (
            (sum(evidence.edges) + SHRINK * population[width]) / (len(rows) + SHRINK)
            if known
            else population[width]
        )
        mean = np.append(mean, edge)
    table = population[-1] if evidence.table is None else evidence.table
    return np.append(mean, [table, math.log(max(1, len(rows)))])


def _softmax(logits: FloatArray) -> FloatArray:
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    out: FloatArray = shifted / shifted.sum(axis=-1, keepdims=True)
    return out


@dataclass(frozen=True)
class StrengthModel:
    """The logistic model of one game and player count, with its temperature and
    level-0 threshold."""

    key: str
    """Game and player count, ``shangrila-4``."""
    level_list: tuple[int, ...]
    population: tuple[float, ...]
    """The fitting players' average of each quantity (what a player's own are drawn
    towards), then of their edges when the model reads them (``edges``), then of their
    tables' ``Evidence.table``."""
    centre: tuple[float, ...]
    scale: tuple[float, ...]
    """Standardisation of the features."""
    weights: tuple[tuple[float, ...], ...]
    """One row per standardised feature and a last one for the constant; one column
    per level."""
    temperature: float
    random_threshold: float
    analysis_iterations: int
    """The analysis budget (iterations a position) of the fitting games: losses found
    with another budget compare only roughly."""
    even_share: float
    """1 / players: the win chance assumed when the evidence does not say."""
    few_moves: float = 0.0
    """Judged moves at which the log-odds count half (short evidence, wide ranges)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The rules options of the fitting games (every option, as in records)."""
    random_moves: int = FEW_MOVES
    """Judged moves from which level 0 is named as soon as it holds
    ``random_threshold`` of the posterior."""
    edges: bool = False
    """Whether the model reads the moves' edges (``Evidence.edges``): where win chances
    alone cannot tell random play from the weakest level
    (``engines.search.calibration.EDGE_SETS``)."""
    edge_shift: tuple[float, ...] = ()
    """Each level's mean edge less one half, on the fitting games (``edge_shifts``); when
    not empty, the moves' edges add to each level's log-odds the log-likelihood of their
    sum under that level's mean (``edge_evidence``): their evidence grows with the
    moves, as a test of random play should."""
    edge_spread: tuple[float, ...] = ()
    """Each level's spread of a move's edge about its mean (``edge_shifts``)."""
    edge_between: tuple[float, ...] = ()
    """Each level's spread of a player's mean edge about the level's beyond what the
    number of their moves explains (``edge_shifts``)."""
    random_reference: tuple[tuple[float, ...], ...] = ()
    """Random play's average of each quantity by the win chance kept
    (``random_reference``), on the fitting games; when not empty, every move is compared
    with random play in a position of the same win chance (``against_random``), and the
    win chance kept is not read: a random player who leads a table of random players
    keeps much win chance, and gives little of it away, because of how the others
    played."""
    lead_split: bool = False
    """Whether each level is fitted as two classes, the players who led (``led``) and
    those who did not, and a level's log-odds are those of its two halves together: a
    random player who leads a table of random players looks like a stronger player who
    leads, not like the random players who trail, and one straight boundary between the
    levels cannot tell them apart (``weights`` then has two columns a level, the level's
    trailing half first)."""
    table_weight: float = 1.0
    """How much each player of the fitting tables where every seat plays at random
    weighs in the fit against one of the other games (``fit_logistic``)."""

    @property
    def levels(self) -> list[int]:
        return list(self.level_list)

    def logits(self, evidence: Evidence) -> FloatArray:
        """The untempered log-odds of each level (``levels`` order)."""
        x = features(
            evidence, np.array(self.population), self.even_share, self.edges, self.random_reference
        )
        z = np.append((x - np.array(self.centre)) / np.array(self.scale), 1.0)
        out: FloatArray = z @ np.array(self.weights)
        if self.lead_split:
            out = np.logaddexp(out[0::2], out[1::2])
        if self.edge_shift and len(evidence.edges) == evidence.moves:
            out = out + edge_evidence(
                evidence.edges, self.edge_shift, self.edge_spread, self.edge_between
            )
        return out

    def posterior(self, evidence: Evidence) -> dict[int, float]:
        """Probability of each level given ``evidence`` (no moves: uniform)."""
        if evidence.moves < 1:
            return {level: 1.0 / len(self.level_list) for level in self.levels}
        return self.posterior_of(self.logits(evidence), evidence.moves)

    def posterior_of(self, logits: FloatArray, moves: float) -> dict[int, float]:
        """The tempered posterior of untempered ``logits`` of ``moves`` judged moves
        (fewer than were played when games pooled count less than all their moves)."""
        p = _softmax(self.temperature * moves / (moves + self.few_moves) * logits)
        return {level: float(p[i]) for i, level in enumerate(self.level_list)}

    def point(self, posterior: Mapping[int, float], moves: int | None = None) -> int:
        """The level given for ``posterior`` (of ``moves`` judged moves, when known):
        the lowest level when it holds at least ``random_threshold`` and there are at
        least ``random_moves`` moves (a few moves cannot tell random play), else the
        median."""
        levels = sorted(posterior)
        enough = moves is None or moves >= self.random_moves
        if enough and posterior[levels[0]] >= self.random_threshold:
            return levels[0]
        mass = 0.0
        for level in levels:
            mass += posterior[level]
            if mass >= 0.5:
                return level
        return levels[-1]

    def span(
        self, posterior: Mapping[int, float], moves: int | None = None, thin: bool = True
    ) -> tuple[int, int]:
        """The range given for ``posterior`` (of ``moves`` judged moves, when known): the
        narrowest run holding ``range_coverage(moves)`` of it (``COVERAGE`` when not
        ``thin``: as the fit chooses the temperature), widened to the level given
        (level 0 named for a posterior that has enough of it is in its range)."""
        low, high = credible_range(posterior, range_coverage(moves) if thin else COVERAGE)
        given = self.point(posterior, moves)
        return min(low, given), max(high, given)

    def to_json(self) -> dict[str, Any]:
        return {
            "levels": list(self.level_list),
            "population": [round(v, 6) for v in self.population],
            "centre": [round(v, 6) for v in self.centre],
            "scale": [round(v, 6) for v in self.scale],
            "weights": [[round(v, 6) for v in row] for row in self.weights],
            "temperature": self.temperature,
            "random_threshold": self.random_threshold,
            "analysis_iterations": self.analysis_iterations,
            "even_share": round(self.even_share, 6),
            "few_moves": self.few_moves,
            "options": dict(self.options),
            "random_moves": self.random_moves,
            "edges": self.edges,
            **({"lead_split": True} if self.lead_split else {}),
            **({"table_weight": self.table_weight} if self.table_weight != 1.0 else {}),
            **(
                {
                    "edge_shift": [round(v, 6) for v in self.edge_shift],
                    "edge_spread": [round(v, 6) for v in self.edge_spread],
                    "edge_between": [round(v, 6) for v in self.edge_between],
                }
                if self.edge_shift
                else {}
            ),
            **(
                {"random_reference": [[round(v, 6) for v in row] for row in self.random_reference]}
                if self.random_reference
                else {}
            ),
        }

    @classmethod
    def from_json(cls, key: str, data: Mapping[str, Any]) -> StrengthModel:
        """Raises KeyError / TypeError / ValueError on a malformed entry."""
        levels = tuple(int(v) for v in data["levels"])
        edges = bool(data.get("edges", False))
        edge_shift = tuple(float(v) for v in data.get("edge_shift", ()))
        edge_spread = tuple(float(v) for v in data.get("edge_spread", ()))
        edge_between = tuple(float(v) for v in data.get("edge_between", ()))
        if edge_shift and (
            not len(edge_shift) == len(edge_spread) == len(edge_between) == len(levels)
            or not all(v > 0 for v in edge_spread)
            or any(v < 0 for v in edge_between)
        ):
            raise ValueError(f"{key}: an edge shift and a positive spread a level")
        reference = tuple(tuple(float(v) for v in row) for row in data.get("random_reference", ()))
        if reference and (
            len(reference) != KEPT_BINS or any(len(row) != len(QUANTITIES) - 1 for row in reference)
        ):
            raise ValueError(
                f"{key}: random play's reference needs {KEPT_BINS} bins of "
                f"{len(QUANTITIES) - 1} quantities"
            )
        width = len(QUANTITIES) + 2 + edges - bool(reference)
        model = cls(
            key,
            levels,
            tuple(float(v) for v in data["population"]),
            tuple(float(v) for v in data["centre"]),
            tuple(float(v) for v in data["scale"]),
            tuple(tuple(float(v) for v in row) for row in data["weights"]),
            float(data["temperature"]),
            float(data["random_threshold"]),
            int(data["analysis_iterations"]),
            float(data["even_share"]),
            float(data["few_moves"]),
            dict(data.get("options", {})),
            int(data.get("random_moves", FEW_MOVES)),
            edges,
            edge_shift,
            edge_spread,
            edge_between,
            reference,
            bool(data.get("lead_split", False)),
            float(data.get("table_weight", 1.0)),
        )
        classes = len(levels) * (2 if model.lead_split else 1)
        if (
            len(levels) < 2
            or len(model.population) != width - 1
            or len(model.centre) != width
            or len(model.scale) != width
            or len(model.weights) != width + 1
            or any(len(row) != classes for row in model.weights)
            or model.table_weight <= 0
        ):
            raise ValueError(
                f"{key}: the model's sizes do not match its levels and {width} features"
            )
        if not 0 < model.temperature <= MAX_TEMPERATURE or not 0 < model.random_threshold <= 1:
            raise ValueError(
                f"{key}: temperature in (0, {MAX_TEMPERATURE}] and threshold in (0, 1]"
            )
        if any(s <= 0 for s in model.scale) or not 0 < model.even_share < 1 or model.few_moves < 0:
            raise ValueError(f"{key}: positive scales and an even share in (0, 1)")
        if model.random_moves < MIN_MOVES:
            raise ValueError(f"{key}: level 0 named from at least {MIN_MOVES} judged moves")
        return model


def range_coverage(moves: int | None) -> float:
    """The share of the posterior the range of ``moves`` judged moves holds:
    ``THIN_COVERAGE`` below ``FEW_MOVES`` moves, else ``COVERAGE`` (also when not
    known)."""
    return THIN_COVERAGE if moves is not None and moves < FEW_MOVES else COVERAGE


def credible_range(posterior: Mapping[int, float], coverage: float = COVERAGE) -> tuple[int, int]:
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
    """The level given; None with too few judged moves."""
    expected: float | None
    """The posterior mean level."""
    low: int
    high: int
    """The range of levels holding ``coverage`` of the posterior (``THIN_COVERAGE``
    below ``FEW_MOVES`` judged moves; all levels when there is no estimate)."""
    coverage: float
    """The share of players whose range should hold their level (``COVERAGE``)."""
    moves: int
    """Judged moves the estimate rests on."""
    posterior: dict[int, float] = field(default_factory=dict)
    note: str = ""
    """Why to take it with care (few moves, another analysis budget or rules options),
    or empty."""
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


def differing_options(model: StrengthModel, options: Mapping[str, Any] | None) -> list[str]:
    """The rules options of a game (every option, as in records) that differ from
    those of the model's fitting games (none when either is not known)."""
    if options is None or not model.options:
        return []
    return sorted(k for k, v in model.options.items() if k in options and options[k] != v)


def summarise(
    model: StrengthModel,
    posterior: Mapping[int, float],
    moves: int,
    analysis_iterations: int | None,
    options: Mapping[str, Any] | None,
    these: str = "this one",
) -> StrengthEstimate:
    """The estimate of a ``posterior`` resting on ``moves`` judged moves."""
    levels = model.levels
    if moves < MIN_MOVES:
        return StrengthEstimate(
            None,
            None,
            levels[0],
            levels[-1],
            COVERAGE,
            moves,
            {},
            f"fewer than {MIN_MOVES} judged moves",
            True,
        )
    low, high = model.span(posterior, moves)
    notes = []
    if moves < FEW_MOVES:
        notes.append(f"only {moves} judged moves: a wide range")
    if analysis_iterations is not None and analysis_iterations != model.analysis_iterations:
        notes.append(
            f"the model knows analyses of {model.analysis_iterations} iterations a "
            f"position, {these} used {analysis_iterations}: a rough guide"
        )
    differ = differing_options(model, options)
    if differ:
        notes.append(
            f"the model knows games played with {', '.join(differ)} as "
            + ", ".join(f"{model.options[k]}" for k in differ)
            + ": a rough guide"
        )
    return StrengthEstimate(
        model.point(posterior, moves),
        round(sum(lv * p for lv, p in posterior.items()), 2),
        low,
        high,
        COVERAGE,
        moves,
        {lv: round(p, 4) for lv, p in posterior.items()},
        "; ".join(notes),
        (low, high) == (levels[0], levels[-1]),
    )


def estimate(
    model: StrengthModel,
    accuracies: Sequence[float],
    best: Sequence[bool],
    analysis_iterations: int | None = None,
    kept: Sequence[float] = (),
    options: Mapping[str, Any] | None = None,
    table: float | None = None,
) -> StrengthEstimate:
    """The strength estimate from a player's judged moves: their accuracies (0-100),
    whether each was the best move and, when known, the win chance the best move kept
    and how the others at the table played (``Evidence.table``); found by an analysis
    of ``analysis_iterations`` a position, of a game played with the rules ``options``,
    when given."""
    evidence = Evidence(tuple(accuracies), tuple(best), tuple(kept), table)
    return estimate_evidence(model, evidence, analysis_iterations, options)


def estimate_evidence(
    model: StrengthModel,
    evidence: Evidence,
    analysis_iterations: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> StrengthEstimate:
    """The strength estimate from ``evidence`` (as ``estimate``)."""
    return summarise(model, model.posterior(evidence), evidence.moves, analysis_iterations, options)


# ---------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class Check:
    """How estimates did against the true levels."""

    tested: int
    """Player-games with an estimate."""
    coverage: float
    """Share whose range held the true level."""
    within_one: float
    """Share whose level was within one of the true level."""
    exact: float
    mean_width: float
    """Mean of high - low, in levels."""
    refused: int
    """Player-games with too few moves for an estimate."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tested": self.tested,
            "coverage": round(self.coverage, 3),
            "within_one": round(self.within_one, 3),
            "exact": round(self.exact, 3),
            "mean_width": round(self.mean_width, 2),
            "refused": self.refused,
        }


def _tally(
    model: StrengthModel, found: Sequence[tuple[int, int, FloatArray]], thin: bool = True
) -> Check:
    """A check of (true level, moves, untempered logits) items, the ranges of few moves
    wider when ``thin`` (``StrengthModel.span``)."""
    tested = refused = hits = near = exact = width = 0
    for level, moves, logits in found:
        if moves < MIN_MOVES:
            refused += 1
            continue
        posterior = model.posterior_of(logits, moves)
        low, high = model.span(posterior, moves, thin)
        given = model.point(posterior, moves)
        tested += 1
        hits += low <= level <= high
        near += abs(given - level) <= 1
        exact += given == level
        width += high - low
    if not tested:
        return Check(0, 0.0, 0.0, 0.0, 0.0, refused)
    return Check(tested, hits / tested, near / tested, exact / tested, width / tested, refused)


def check(model: StrengthModel, rows: Sequence[Labelled]) -> Check:
    """Estimate every row with ``model`` and compare with its true level."""
    return _tally(
        model,
        [
            (r.level, r.evidence.moves, model.logits(r.evidence))
            for r in rows
            if r.evidence.moves >= 1
        ],
    )


def random_share(model: StrengthModel, found: Sequence[tuple[int, int, FloatArray]]) -> float:
    """Share of the lowest level's items (with an estimate) given the lowest level."""
    lowest = model.level_list[0]
    mine = [
        model.point(model.posterior_of(logits, moves), moves) == lowest
        for level, moves, logits in found
        if level == lowest and moves >= MIN_MOVES
    ]
    return sum(mine) / len(mine) if mine else 0.0


def _fit_logistic(
    x: FloatArray,
    y: npt.NDArray[np.int64],
    classes: int,
    offset: FloatArray | None = None,
    row_weights: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(centre, scale, weights) of a multinomial logistic model with a ridge penalty,
    by full-batch gradient descent from zero (deterministic). ``offset`` (one row of
    log-odds a row of ``x``), when given, is added to the model's log-odds as it is
    fitted: the weights learn only what the features add to it. ``row_weights`` (one
    a row, default all 1) weigh the rows' errors, scaled to average 1 (the ridge
    penalty keeps its strength)."""
    centre = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = np.hstack([(x - centre) / scale, np.ones((len(x), 1))])
    targets = np.eye(classes)[y]
    weights = np.zeros((z.shape[1], classes))
    penalty = np.ones((z.shape[1], 1))
    penalty[-1] = 0.0
    fixed = np.zeros((len(x), classes)) if offset is None else offset
    weigh = (
        np.ones((len(x), 1))
        if row_weights is None
        else (row_weights / row_weights.mean()).reshape(-1, 1)
    )
    for _ in range(STEPS):
        p = _softmax(z @ weights + fixed)
        weights -= RATE * (z.T @ ((p - targets) * weigh) + L2 * penalty * weights) / len(z)
    return centre, scale, weights


def fit_logistic(
    key: str,
    rows: Sequence[Labelled],
    levels: Sequence[int],
    even_share: float,
    analysis_iterations: int,
    options: Mapping[str, Any] | None = None,
    edges: bool = False,
    edge_likelihood: bool = False,
    compare_random: bool = False,
    table_weight: float = 1.0,
    lead_split: bool = False,
) -> StrengthModel:
    """The logistic model of ``rows`` (player-games of at least ``MIN_MOVES`` judged
    moves), reading the moves' mean edge when ``edges`` and the sum of the moves' edges
    by its likelihood under each level (``edge_shifts``, counted on the whole games of
    ``rows``; ``edge_evidence``) when ``edge_likelihood``, at temperature 1 and
    threshold 1. With ``edge_likelihood`` the logistic model is fitted together with
    that evidence (``edge_offsets``): it learns what the averages add to the edges, so
    that what the edges say is counted once, not once by the sum and again through the
    averages. With ``compare_random`` every move is compared with random play at the
    same win chance (``random_reference``, counted on the whole games of the lowest
    level's players of ``rows``). The players of tables where every seat plays at
    random (``Labelled.random_table``) weigh ``table_weight`` each; with ``lead_split``
    each level is fitted as two classes (``StrengthModel.lead_split``). Raises
    ValueError without data."""
    usable = [
        r for r in rows if r.evidence.moves >= MIN_MOVES and r.level in levels and not r.tuning
    ]
    if not usable:
        raise ValueError(f"no player-game with {MIN_MOVES} judged moves to fit on")
    reference: tuple[tuple[float, ...], ...] = ()
    if compare_random:
        reference = random_reference(
            [r.evidence for r in usable if r.level == levels[0] and r.view == "full"],
            even_share,
        )
    tables = [r.evidence.table for r in usable if r.evidence.table is not None]
    quantities = [r.evidence.quantities(even_share) for r in usable]
    if reference:
        quantities = [against_random(q, reference) for q in quantities]
    averages = np.concatenate(quantities).mean(axis=0)
    if edges:
        known = [e for r in usable for e in r.evidence.edges]
        averages = np.append(averages, float(np.mean(known)) if known else 0.0)
    population = np.append(averages, float(np.mean(tables)) if tables else 0.0)
    x = np.array([features(r.evidence, population, even_share, edges, reference) for r in usable])
    index = {level: i for i, level in enumerate(levels)}
    y = np.array([index[r.level] for r in usable], dtype=np.int64)
    shift: tuple[float, ...] = ()
    spread: tuple[float, ...] = ()
    between: tuple[float, ...] = ()
    offset = None
    if edge_likelihood:
        by_level: dict[int, list[tuple[float, ...]]] = {}
        for r in usable:
            if r.view == "full":
                by_level.setdefault(r.level, []).append(r.evidence.edges)
        shift, spread, between = edge_shifts(by_level, levels)
        offset = edge_offsets([r.evidence for r in usable], shift, spread, between)
    classes = len(levels)
    if lead_split:
        y = 2 * y + np.array([led(r.evidence, even_share) for r in usable], dtype=np.int64)
        classes *= 2
        offset = None if offset is None else np.repeat(offset, 2, axis=1)
    row_weights = np.array([table_weight if r.random_table else 1.0 for r in usable])
    centre, scale, weights = _fit_logistic(x, y, classes, offset, row_weights)
    return StrengthModel(
        key,
        tuple(levels),
        tuple(float(v) for v in population),
        tuple(float(v) for v in centre),
        tuple(float(v) for v in scale),
        tuple(tuple(float(v) for v in row) for row in weights),
        1.0,
        1.0,
        analysis_iterations,
        even_share,
        0.0,
        dict(options or {}),
        edges=edges,
        edge_shift=shift,
        edge_spread=spread,
        edge_between=between,
        random_reference=reference,
        lead_split=lead_split,
        table_weight=table_weight,
    )


def _with(
    model: StrengthModel,
    temperature: float,
    threshold: float,
    few_moves: float,
    random_moves: int = FEW_MOVES,
) -> StrengthModel:
    return StrengthModel(
        model.key,
        model.level_list,
        model.population,
        model.centre,
        model.scale,
        model.weights,
        temperature,
        threshold,
        model.analysis_iterations,
        model.even_share,
        few_moves,
        model.options,
        random_moves,
        model.edges,
        model.edge_shift,
        model.edge_spread,
        model.edge_between,
        model.random_reference,
        model.lead_split,
        model.table_weight,
    )


def held_out_logits(
    rows: Sequence[Labelled],
    levels: Sequence[int],
    even_share: float,
    edges: bool = False,
    edge_likelihood: bool = False,
    compare_random: bool = False,
    table_weight: float = 1.0,
    lead_split: bool = False,
) -> list[tuple[Labelled, FloatArray]]:
    """Each row's untempered logits by a model fitted on the folds without its game
    (borrowed rows: fitted on in every fold, never held out); reading the moves' mean
    edge when ``edges``, their edges' likelihoods when ``edge_likelihood``, comparing
    the moves with random play's when ``compare_random``, weighing random tables'
    players ``table_weight``, splitting each level by the lead when ``lead_split``
    (``fit_logistic``)."""
    folds: list[list[Labelled]] = [[] for _ in range(FOLDS)]
    borrowed = [r for r in rows if r.borrowed and not r.tuning]
    for row in rows:
        if not row.borrowed and not row.tuning:
            folds[row.group % FOLDS].append(row)
    found = []
    for k in range(FOLDS):
        train = [r for j, fold in enumerate(folds) if j != k for r in fold] + borrowed
        if not folds[k] or not train:
            continue
        model = fit_logistic(
            "",
            train,
            levels,
            even_share,
            0,
            None,
            edges,
            edge_likelihood,
            compare_random,
            table_weight,
            lead_split,
        )
        found += [(r, model.logits(r.evidence)) for r in folds[k]]
    return found


def fit_model(
    key: str,
    rows: Sequence[Labelled],
    analysis_iterations: int,
    levels: Sequence[int] | None = None,
    even_share: float | None = None,
    options: Mapping[str, Any] | None = None,
    edges: bool = False,
    edge_likelihood: bool = False,
    compare_random: bool = False,
    table_weight: float = 1.0,
    lead_split: bool = False,
    tune_threshold: bool = True,
) -> tuple[StrengthModel, Check]:
    """The model fitted on ``rows`` and its cross-validated check (every view): the
    few-moves widening and temperature as the module's docstring says, then the
    level-0 threshold and ``random_moves`` coming closest to both goals on
    whole games (``NEAR_GOAL``, ``RANDOM_GOAL``; of equals, the pair most often within
    one, then the first tried); rows marked ``Labelled.tuning`` then choose them again
    (``tune_random``), or only ``random_moves`` when not ``tune_threshold``.
    ``levels`` defaults to those of ``rows``, ``even_share`` to 1 / 4; the model reads
    the moves' edges when ``edges``, compares the moves with random play's when
    ``compare_random``, weighs the random tables' players ``table_weight`` and splits
    each level by the lead when ``lead_split`` (``fit_logistic``). Raises ValueError
    without data."""
    levels = sorted(levels or {r.level for r in rows})
    share = even_share if even_share is not None else 0.25
    base = fit_logistic(
        key,
        rows,
        levels,
        share,
        analysis_iterations,
        options,
        edges,
        edge_likelihood,
        compare_random,
        table_weight,
        lead_split,
    )
    out = held_out_logits(
        rows, levels, share, edges, edge_likelihood, compare_random, table_weight, lead_split
    )
    held = [(r.level, r.evidence.moves, logits) for r, logits in out]
    views = {r.view for r, _ in out}
    by_view = [
        [(r.level, r.evidence.moves, x) for r, x in out if r.view == view] for view in sorted(views)
    ]
    whole = [(r.level, r.evidence.moves, logits) for r, logits in out if r.view == "full"]
    chosen: tuple[float, float, float] | None = None  # (width, few moves, temperature)
    for few in FEW_MOVES_CHOICES:
        temperature = TEMPERATURES[-1]
        for candidate in TEMPERATURES:
            trial = _with(base, candidate, 1.0, few)
            if all(_tally(trial, items, False).coverage >= COVERAGE for items in by_view):
                temperature = candidate
                break
        width = _tally(_with(base, temperature, 1.0, few), held, False).mean_width
        if chosen is None or width < chosen[0] - 1e-9:
            chosen = (width, few, temperature)
    assert chosen is not None
    _, few, temperature = chosen
    best: tuple[float, float, float, int] | None = None
    for random_moves in RANDOM_MOVES_CHOICES:
        for threshold in RANDOM_THRESHOLDS:
            model = _with(base, temperature, threshold, few, random_moves)
            near = _tally(model, whole or held).within_one
            score = min(near / NEAR_GOAL, random_share(model, whole or held) / RANDOM_AIM, 1.0)
            if best is None or (score, near) > (best[0], best[1]):
                best = (score, near, threshold, random_moves)
    assert best is not None
    model = _with(base, temperature, best[2], few, best[3])
    tuning = [r for r in rows if r.tuning]
    if tuning:
        model = tune_random(
            model, tuning, RANDOM_THRESHOLDS if tune_threshold else (model.random_threshold,)
        )
    return model, _tally(model, held)


def tune_random(
    model: StrengthModel,
    rows: Sequence[Labelled],
    thresholds: Sequence[float] = RANDOM_THRESHOLDS,
) -> StrengthModel:
    """``model`` with the level-0 threshold and ``random_moves`` chosen on ``rows``,
    games it was not fitted on (``Labelled.tuning``; whole games and games joined at
    the middle, tables where every seat plays at random among them): of
    ``TUNED_RANDOM_MOVES`` (from the most down) and ``thresholds``, the pair
    coming closest to both aims, the level within one of the truth ``NEAR_GOAL`` of the
    time in whole games and in games joined at the middle alike (the tables of engines),
    and random play named level 0 ``RANDOM_AIM`` of the time in whole games (every
    table); of equals, the pair most often within one, then the first tried. For a
    model whose fitting games lack what the new analyses read (three-player
    Shangri-La's edges): the cross-validation cannot tell how sure of random play they
    make it; given the cross-validated threshold alone, only the judged moves from which
    it names level 0, for a model whose cross-validation chose that moves' count on
    whole games only (four-player Shangri-La: a whole game gives a player 24 to 41
    judged moves, one joined at its middle 11 to 21). Raises ValueError without a whole
    game of engine players and one of random play among ``rows``."""
    items = {
        view: [
            (r.level, r.evidence.moves, model.logits(r.evidence), r.random_table)
            for r in rows
            if r.view == view and r.evidence.moves >= 1
        ]
        for view in ("full", "half")
    }
    whole = [(lv, n, x) for lv, n, x, _ in items["full"]]
    mixed = [
        [(lv, n, x) for lv, n, x, table in items[view] if not table] for view in ("full", "half")
    ]
    if not mixed[0] or not any(lv == model.level_list[0] and n >= MIN_MOVES for lv, n, _ in whole):
        raise ValueError("no whole game of engines and of random play to choose level 0 on")
    best: tuple[float, float, float, int] | None = None
    for random_moves in TUNED_RANDOM_MOVES:
        for threshold in thresholds:
            trial = _with(model, model.temperature, threshold, model.few_moves, random_moves)
            near = [_tally(trial, found).within_one for found in mixed if found]
            score = min(
                *(n / NEAR_GOAL for n in near), random_share(trial, whole) / RANDOM_AIM, 1.0
            )
            if best is None or (score, min(near)) > (best[0], best[1]):
                best = (score, min(near), threshold, random_moves)
    assert best is not None
    return _with(model, model.temperature, best[2], model.few_moves, best[3])


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
        return {
            key: StrengthModel.from_json(key, entry["model"])
            for key, entry in document["models"].items()
        }
    except (KeyError, ValueError, TypeError, AttributeError) as error:
        raise CalibrationError(f"the strength model {path} is malformed: {error!r}") from None


def model_for(game: str, players: int, path: Path = MODEL_PATH) -> StrengthModel | None:
    """The model of ``game`` for ``players`` players, None when the file has none.
    Raises ``CalibrationError`` for an unreadable file."""
    return load_models(path).get(f"{game}-{players}")
