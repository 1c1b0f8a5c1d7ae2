"""A check of the village-by-village belief against the truth of a simulated game: after
every move played, the true game must be one of the ways the referee keeps (the record,
or a way of ``Parts``). ``first_loss`` finds the first move where it is not.

Run alone: ``python -m tests.companion.referee.parts_truth SEED [SEED ...] [--view 55]
[--flicker 0.01]`` prints, per seed, the first move the truth left the belief.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import Any

from companion.referee.core import Referee, RefereeConfig
from companion.simulator import TableSimulator
from companion.simulator.core import Truth
from companion.simulator.evaluate import BENCH_TABLE, PLAYER_COUNTS
from companion.simulator.scoring import RefereedGame
from engines import rules_class


def truth_kept(referee: Referee, truth: Any) -> bool:
    """Whether ``truth`` is the referee's record or one whole way of its parts."""
    if referee.state == truth:
        parts = referee.parts
        if parts is None or not parts:
            return True
        parts.at(referee.state)
        record = referee._record_put()
        return (
            all(e is not None for e in record)
            and parts.best(
                dict(enumerate(record))  # type: ignore[arg-type]
            )
            is not None
        )
    parts = referee.parts
    if parts is None or not parts:
        return False
    model = parts.model
    contents = {p: model.content(truth, p) for f in parts.factors for p in f.parts}
    if model.with_content(referee.state, contents) != truth:
        return False
    fixed = {}
    for i, factor in enumerate(parts.factors):
        content = tuple(contents[p] for p in factor.parts)
        entries = [e for e in factor.entries if e.content == content]
        if not entries:
            return False
        fixed[i] = entries
    parts.at(referee.state)
    # some choice of the entries with the true contents is a whole way
    saved = [f.entries for f in parts.factors]
    try:
        for i, factor in enumerate(parts.factors):
            factor.entries = fixed[i]
        return parts.best() is not None
    finally:
        for factor, entries in zip(parts.factors, saved, strict=True):
            factor.entries = entries


class CheckedGame(RefereedGame):
    """A refereed game that notes the first move after which the truth is not kept."""

    lost: int | None = None
    note: str = ""

    def _in_belief(self, moves: int) -> bool:
        kept = super()._in_belief(moves)
        if self.lost is None and not (kept and truth_kept(self.referee, self.truth_state)):
            self._lose(moves)
        return kept

    def _end_move(self, truth: Truth) -> None:
        super()._end_move(truth)
        if self.lost is None and not truth_kept(self.referee, self.truth_state):
            self._lose(truth.number)

    def _lose(self, number: int) -> None:
        self.lost = number
        self.note = (
            f"played {' '.join(self.played[-3:])}; record "
            + " ".join(t for _, t in self.referee.history[-3:])
            + f" ({len(self.referee.history)} moves)"
        )


def first_loss(
    seed: int, view: str = "above", flicker: float = 0.01, parts: bool = True, start: int = 7000
) -> tuple[int | None, str, Any]:
    """The first move (number) of bench game ``seed`` (of a bench run from seed
    ``start``) after which the truth is not kept, a note on it, and the game's score."""
    game = "shangrila"
    cls = rules_class(game)
    counts = PLAYER_COUNTS[game]
    rules = cls.from_record(cls.default_players(counts[(seed - start) % len(counts)]), {})
    config = replace(BENCH_TABLE, view=view, flicker=flicker, unsure=flicker)
    simulator = TableSimulator.random(rules, config, seed)
    referee = Referee(rules, config=RefereeConfig(parts=parts))
    checked = CheckedGame(simulator, referee, time.process_time)
    for step in simulator:
        checked.step(step.event, step.truth)
    checked.end_attempt()
    return checked.lost, checked.note, checked.score


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.99 * (len(ordered) - 1))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("seeds", type=int, nargs="+")
    parser.add_argument("--view", default="above")
    parser.add_argument("--flicker", type=float, default=0.01)
    args = parser.parse_args()
    for seed in args.seeds:
        lost, note, score = first_loss(seed, args.view, args.flicker)
        print(
            f"seed {seed}: moves {score.moves}, lost at {lost} {note}; questions "
            f"{score.questions}, corrections {score.corrections}, corrected by a person "
            f"{score.corrected}, false flags {score.false_flags}, verdict p99 "
            f"{_p99(score.latencies) * 1000:.0f} ms {score.wrong_moves[:3]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
