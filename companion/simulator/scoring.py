"""Referee a simulated game and score the referee against the truth.

``referee_game(simulator)`` feeds the simulator's stream to a fresh ``Referee`` and plays
the people at the table as well:

* a question is answered at once with the true move, when it is among the choices (after
  a gap, the true move the referee is to take next);
* when a move (or an illegal attempt) is finished and the referee has said nothing
  about it, the player says done (``TurnDone``), as the app asks them to;
* when the referee ends up with another move than the one played, a person puts it
  right: takes back what it accepted and types the true move.

It counts what the benchmark reports: moves recognised exactly, questions, false
illegal-move flags, injected illegal moves caught (with the right rule, and the table
restored after the repair), and the time ``Referee.handle`` took on each input that
produced a verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.referee.core import Referee
from companion.referee.events import (
    Answer,
    IllegalMove,
    Input,
    MoveAccepted,
    MoveCorrected,
    MoveTakenBack,
    Output,
    Question,
    TableRestored,
    Takeback,
    TurnDone,
    TypedMove,
)
from companion.simulator.core import ATTEMPT, CHANGE_OF_MIND, MOVE, REPAIR, TableSimulator, Truth
from engines import EngineError, GameState

VERDICTS = (MoveAccepted, IllegalMove, Question, TableRestored)
"""Outputs that are verdicts on the table, for the latency figure."""


@dataclass
class RuleScore:
    """Injected attempts at one rule: how many, flagged at all, flagged with this rule,
    and followed by ``table_restored`` once repaired (when there was anything to put
    back)."""

    tried: int = 0
    caught: int = 0
    right_rule: int = 0
    repaired: int = 0
    restored: int = 0


@dataclass
class GameScore:
    game: str
    players: int
    seed: int
    moves: int = 0
    exact: int = 0
    """Moves after which the referee's game equals the truth with nobody correcting it
    (questions answered with the truth count)."""
    asked: int = 0
    """Exact moves that needed a question answered."""
    done_presses: int = 0
    """Moves after which the player had to say done (beyond the moves that leave no
    trace, which the stream itself ends with done)."""
    revised: int = 0
    """Moves the referee accepted and then took back by itself."""
    corrected: int = 0
    """Moves a person had to put right (take back and type)."""
    false_flags: int = 0
    """Illegal-move flags while a legal move was being made (or changed)."""
    flags_in_change_of_mind: int = 0
    changes_of_mind: int = 0
    questions: int = 0
    corrections: int = 0
    """Moves shown as accepted that the referee itself later corrected
    (``MoveCorrected``)."""
    in_doubt: int = 0
    """Moves after which the referee showed another move than the one played, while
    the move played was among those it kept in doubt (nobody corrects those)."""
    record_right: int = 0
    """Moves of the final record that are the move played (``record_right``)."""
    record_alike: int = 0
    """Moves of the final record that are the move played, or differ from the moves
    played only as the table cannot tell, then or later: from the first such move on,
    the record's positions show the truth's table and scores until one of them is the
    truth's position again (``record_alike``; a Shendao card or a stopping tile taken by
    Tigre Blanc rather than Loung, the other taken later by the other)."""
    gaps: int = 0
    """Gaps: moves made in a row while no reader saw the table."""
    gaps_recognised: int = 0
    """Gaps after which the referee had every move of the gap, with nobody correcting
    it (questions answered with the truth count)."""
    gap_flags: int = 0
    """Illegal-move flags on the table seen again after a gap (counted in
    ``false_flags`` too)."""
    rules: dict[str, RuleScore] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    """Seconds ``Referee.handle`` took on each table input that produced a verdict."""
    quiet: list[float] = field(default_factory=list)
    """Seconds it took on the others (a frame that changed nothing is when the referee
    works out ahead what the next tables will be judged against)."""
    final_state_right: bool = False
    wrong_moves: list[str] = field(default_factory=list)
    """For each corrected move: its number, the last two moves played and the last
    moves the referee had."""
    cases: list[dict[str, Any]] = field(default_factory=list)
    """Each false flag, missed illegal attempt and attempt flagged under another rule:
    the game's seed, the move number, the truth's phase and move (or the rule the
    attempt breaks) and what the referee said."""


@dataclass
class _Attempt:
    """The illegal attempt being watched: its rule and what the referee said."""

    rule: str
    number: int = 0
    move: str = ""
    flags: list[IllegalMove] = field(default_factory=list)
    repaired: bool = False
    restored: bool = False


class RefereedGame:
    """One game refereed with simulated people (see the module docstring): feed it each
    step with ``step(event, truth)``; it counts the referee's outputs against the truth
    and acts as the people at the table would. The demo drives one from its film."""

    def __init__(
        self, simulator: TableSimulator, referee: Referee, clock: Callable[[], float]
    ) -> None:
        self.referee = referee
        self.clock = clock
        self.truth_state = simulator.start.copy()
        self.score = GameScore(simulator.rules.game, simulator.rules.n_players, simulator.seed)
        self.number = 0
        self.phase = ""
        self.move_outputs: list[Output] = []
        self.attempt: _Attempt | None = None
        self.played: list[str] = []  # the true moves so far
        self.positions: list[GameState[Any]] = []  # the true position after each

    def handle(self, event: Input, truth: Truth, *, timed: bool = True) -> list[Output]:
        """Give ``event`` to the referee (timing it), count and react to the outputs."""
        start = self.clock()
        outputs = self.referee.handle(event)
        elapsed = self.clock() - start
        if timed and any(isinstance(o, VERDICTS) for o in outputs):
            self.score.latencies.append(elapsed)
        elif timed:
            self.score.quiet.append(elapsed)
        for output in outputs:
            self._count(output, truth)
        return outputs

    def _count(self, output: Output, truth: Truth) -> None:
        score = self.score
        if isinstance(output, MoveCorrected):
            score.corrections += 1
        if isinstance(output, Question):
            score.questions += 1
            true = truth.move
            if output.about:  # a move made earlier, left in doubt
                coming = [*self.played, truth.move]
                true = coming[output.about - 1] if output.about <= len(coming) else ""
                if true in output.candidates:
                    self.handle(Answer(true), truth, timed=False)
                return
            if truth.unseen:  # the gap's move the referee is to take next
                coming = [*truth.unseen, truth.move]
                index = len(self.referee.history) - len(self.played)
                true = coming[index] if 0 <= index < len(coming) else ""
            if truth.phase == MOVE and true in output.candidates:
                self.handle(Answer(true), truth, timed=False)
        elif isinstance(output, IllegalMove):
            if self.attempt is not None:
                self.attempt.flags.append(output)
            else:
                score.false_flags += 1
                score.gap_flags += bool(truth.unseen)
                score.flags_in_change_of_mind += truth.phase == CHANGE_OF_MIND
                score.cases.append(
                    {
                        "case": "false_flag",
                        "seed": score.seed,
                        "number": truth.number,
                        "phase": truth.phase,
                        "move": truth.move,
                        "rule": output.rule,
                        "attempt": output.attempt,
                        "message": output.message,
                    }
                )
        elif (
            isinstance(output, TableRestored) and truth.phase == REPAIR and self.attempt is not None
        ):
            self.attempt.restored = True
        if truth.phase == MOVE or isinstance(output, MoveAccepted):
            self.move_outputs.append(output)

    def step(self, event: Input, truth: Truth) -> None:
        if truth.number != self.number:
            self.number = truth.number
            self.move_outputs = []
        if truth.phase != self.phase:
            self._enter(truth)
        if not (isinstance(event, TurnDone) and self._accepted(truth)):
            self.handle(event, truth)
        if (
            truth.last
            and truth.phase == ATTEMPT
            and self.attempt is not None
            and not self.attempt.flags
            and not isinstance(event, TurnDone)
        ):
            # the player thinks their move is complete; one who has just said done and
            # seen the referee answer it does not say it again
            self.handle(TurnDone(), truth)
        if truth.last and truth.phase == MOVE:
            self._end_move(truth)

    def _accepted(self, truth: Truth) -> bool:
        """Whether the referee has accepted a move of the player making ``truth``'s move:
        then the player, who sees it on the screen, does not press done (a move thought
        unseen may have been seen after all). Taking the move before theirs for a bigger
        one is no answer to their move."""
        return truth.phase == MOVE and any(
            isinstance(o, MoveAccepted) and o.player == truth.player for o in self.move_outputs
        )

    def _enter(self, truth: Truth) -> None:
        """A new phase begins."""
        if self.attempt is not None and truth.phase != REPAIR:
            self.end_attempt()
        if truth.phase == ATTEMPT:
            self.attempt = _Attempt(truth.rule, truth.number, truth.move)
        elif truth.phase == REPAIR and self.attempt is not None:
            self.attempt.repaired = True
        elif truth.phase == CHANGE_OF_MIND:
            self.score.changes_of_mind += 1
        self.phase = truth.phase

    def end_attempt(self) -> None:
        """Score the attempt being watched (its repair included)."""
        attempt = self.attempt
        if attempt is None:
            return
        record = self.score.rules.setdefault(attempt.rule, RuleScore())
        record.tried += 1
        record.caught += bool(attempt.flags)
        record.right_rule += any(f.rule == attempt.rule for f in attempt.flags)
        record.repaired += attempt.repaired
        record.restored += attempt.repaired and attempt.restored
        if not any(f.rule == attempt.rule for f in attempt.flags):
            self.score.cases.append(
                {
                    "case": "misnamed" if attempt.flags else "missed",
                    "seed": self.score.seed,
                    "number": attempt.number,
                    "rule": attempt.rule,
                    "move": attempt.move,
                    "flagged": [(f.rule, f.attempt, f.message) for f in attempt.flags],
                }
            )
        self.attempt = None

    def _end_move(self, truth: Truth) -> None:
        referee, score = self.referee, self.score
        for text in truth.unseen:  # the moves of a gap before this one
            score.moves += 1
            self.truth_state.apply(self.truth_state.rules.parse_move(text))
            self.played.append(text)
            self.positions.append(self.truth_state.copy())
        score.gaps += bool(truth.unseen)
        score.moves += 1
        if not self._accepted(truth) and referee.status != referee.OVER:
            score.done_presses += 1
            self.handle(TurnDone(), truth)
        self.truth_state.apply(self.truth_state.rules.parse_move(truth.move))
        self.played.append(truth.move)
        self.positions.append(self.truth_state.copy())
        score.revised += sum(isinstance(o, MoveTakenBack) for o in self.move_outputs)
        if referee.state == self.truth_state and len(referee.history) == truth.number:
            score.exact += 1 + len(truth.unseen)
            score.gaps_recognised += bool(truth.unseen)
            score.asked += any(
                isinstance(o, MoveAccepted) and o.by == "answer" for o in self.move_outputs
            )
            return
        if self._in_belief(truth.number):
            score.in_doubt += 1
            return
        played = self.played
        had = [text for _, text in referee.history[max(0, truth.number - 2) :]]
        score.wrong_moves.append(
            f"{truth.number}: played {' '.join(played[-2:])}; the "
            f"referee had {' '.join(had) or 'nothing'}"
        )
        score.corrected += 1
        # Take back what differs from the true game, then type the true moves. Moves
        # are compared by the position they reach: a ShenShi turn can be written with
        # its monks in either order.
        while referee.history and not self._agrees(len(referee.history)):
            self.handle(Takeback(), truth, timed=False)
        for text in played[len(referee.history) :]:
            self.handle(TypedMove(text), truth, timed=False)

    def _in_belief(self, moves: int) -> bool:
        """Whether the true game of ``moves`` moves is among the histories the referee
        keeps in doubt (it will settle them itself)."""
        referee = self.referee
        parts = getattr(referee, "parts", None)
        unseen = getattr(referee, "unseen", None)
        return len(referee.history) == moves and (
            any(history.state == self.truth_state for history in referee.belief.histories)
            or (bool(parts) and parts.holds(self.truth_state, referee.state))
            or (
                bool(unseen)
                and unseen.holds([text for _, text in referee.history], self.played[:moves])
            )
        )

    def record_right(self, start: GameState[Any]) -> int:
        """Moves of the referee's record that are the move played: each one, played
        in the true position before it, reaches the true position after it (``start``:
        the position before the first)."""
        rules = self.referee.rules
        before = [start, *self.positions]
        right = 0
        for i, (_, text) in enumerate(self.referee.history[: len(self.positions)]):
            state = before[i].copy()
            try:
                state.play(rules.parse_move(text))
            except EngineError:
                continue
            right += state == self.positions[i]
        return right

    def record_alike(self, start: GameState[Any]) -> int:
        """``record_right``, counting as right too each run of moves that differ from
        the moves played while every position between shows the truth's table and
        scores, and the run ends on the truth's position (``GameScore.record_alike``)."""
        referee = self.referee
        before = [start, *self.positions]
        reached = [state for state, _ in referee.history[1:]] + [referee.state]
        count = min(len(referee.history), len(self.positions))
        expected = referee.explainer.expected
        right = [False] * count
        for i, (_, text) in enumerate(referee.history[:count]):
            state = before[i].copy()
            try:
                state.play(referee.rules.parse_move(text))
            except EngineError:
                continue
            right[i] = state == self.positions[i]
        i = 0
        while i < count:
            if right[i] or (i and reached[i - 1] != self.positions[i - 1]):
                i += 1  # right, or wrong after a position already unlike the truth's
                continue
            j = i
            while (
                j < count
                and reached[j] != self.positions[j]
                and expected(reached[j]) == expected(self.positions[j])
                and reached[j].scores() == self.positions[j].scores()
            ):
                j += 1
            if j < count and reached[j] == self.positions[j]:
                right[i : j + 1] = [True] * (j + 1 - i)
            i = j + 1
        return sum(right)

    def _agrees(self, moves: int) -> bool:
        """Whether the referee's game reaches the true positions move after move, for
        its first ``moves`` moves (its history may hold more)."""
        history = self.referee.history
        if moves > len(self.positions):
            return False
        reached = [state for state, _ in history[1:]] + [self.referee.state]
        return all(reached[i] == self.positions[i] for i in range(moves))


def referee_game(
    simulator: TableSimulator,
    referee: Referee | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> GameScore:
    """Run ``simulator``'s stream through ``referee`` (default: a fresh one at the
    simulator's start) with simulated people (see the module docstring); the score."""
    referee = referee or Referee(simulator.rules, simulator.start)
    game = RefereedGame(simulator, referee, clock)
    for step in simulator:
        game.step(step.event, step.truth)
    game.end_attempt()
    game.score.final_state_right = referee.state == game.truth_state
    game.score.record_right = game.record_right(simulator.start)
    game.score.record_alike = game.record_alike(simulator.start)
    return game.score


def totals(scores: list[GameScore]) -> dict[str, Any]:
    """Sums over games (latencies pooled)."""
    rules: dict[str, RuleScore] = {}
    for s in scores:
        for rule, r in s.rules.items():
            total = rules.setdefault(rule, RuleScore())
            for name in ("tried", "caught", "right_rule", "repaired", "restored"):
                setattr(total, name, getattr(total, name) + getattr(r, name))
    keys = (
        "moves",
        "exact",
        "asked",
        "done_presses",
        "revised",
        "corrected",
        "false_flags",
        "flags_in_change_of_mind",
        "changes_of_mind",
        "questions",
        "gaps",
        "gaps_recognised",
        "gap_flags",
        "corrections",
        "in_doubt",
        "record_right",
        "record_alike",
    )
    out: dict[str, Any] = {k: sum(getattr(s, k) for s in scores) for k in keys}
    out["games"] = len(scores)
    out["final_states_right"] = sum(s.final_state_right for s in scores)
    out["games_without_correction"] = sum(s.corrected == 0 for s in scores)
    out["rules"] = rules
    out["latencies"] = sorted(x for s in scores for x in s.latencies)
    out["quiet"] = sorted(x for s in scores for x in s.quiet)
    out["cases"] = [case for s in scores for case in s.cases]
    return out
