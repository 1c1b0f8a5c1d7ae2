"""Shendao pieces in the hands of players (elements as in ``engines.shendao.observation``:
squares ``a1``..``h8`` empty, light or dark; ``gate W3`` open or closed).

Moves, one piece at a time:

* an entry: the tile is put down on the square where it stops, then the gate's red stick
  is put in (a Brigand entering through a closed gate leaves the stick as it is; a tile
  that slides off the board leaves only the stick);
* Main de Nugua: the tile is put down on the square the player chose, then the stick;
* Loung and Tigre Blanc: the tile, then the tile the card removes is taken off, then the
  stick;
* Prêtresse de Sichuan: the tile, then the stopping tile is lifted and one of the
  player's own put in its place, then the stick;
* Yin-Yang: the stopping tile lifted, the entering tile put in its place and the lifted
  one where the entering tile stops (in either order), then the stick;
* a pass: nothing on the table (the player says done);
* a card that changes nothing the plain entry would not (a Prêtresse or Tigre Blanc with
  no tile in the way, Loung on an empty square): the player says the move first (types
  it), since the card is spent and no reader sees cards.

The tile is shown only where it stops. A camera watching a tile slide would see it for a
moment on the squares of its path, but the referee's table model
(``engines.shendao.observation.transient``) only lets a square be empty for a moment, and
its ``group`` is the square alone: a tile resting on a path square for ``stable_frames``
frames is a different table (a Main de Nugua entry when the player holds it, otherwise an
illegal one), so a slide shown square by square would be flagged, not followed. A glimpse
shorter than ``stable_frames`` frames is absorbed by the debouncing; a slower slide would
need a table model that lets a path square show a tile while its gate is still open. The
simulator (whose touches last ``frames_per_step`` frames at least) does not show it.

Illegal moves a table can show (``STAGEABLE``), each tried as a player would:

=====================  ==============================================================
rule                   the attempt
=====================  ==============================================================
``turn.wrong-player``  a tile of the other colour entered through an open gate (on
                       the square where it stops), then the stick put in
``gate.closed``        a tile slid past a closed gate's stick (the player holds no
                       Brigand): it is put where it would stop, the stick untouched
``gate.blocked``       the stick put in on an open gate whose entry square is taken
                       (the tile could not go in)
``table.misplaced``    the stick put in, then a tile stopped short of where it stops,
                       without the Main de Nugua in hand; or the stick, then the tile
                       with a card's effect (a tile on the line taken off, the stopping
                       tile replaced by one of the player's own; both hands at once)
                       whose card is not in hand: the referee names the plain entry
                       and shows how to finish it
``table.unexplained``  a tile taken off the board, nothing entered
=====================  ==============================================================

An attempt is staged only when no legal move leaves the table it shows after any of its
touches (the Brigand through a closed gate or off the board, the Main de Nugua stopping
short and the cards' effects are legal while the card is in hand).

Not stageable: ``game.over`` (the simulated game ends at its last move);
``supply.empty`` (there is no tile to put down); ``card.not-in-variant``, ``card.used``,
``pretresse.no-tile``, ``loung.not-on-line``, ``loung.no-tile`` and
``nugua.not-on-path`` (a card is announced, not seen: the table shows only its effect, and
an effect no card in hand explains reads as the plain entry misplaced, staged under
``table.misplaced``; Loung on an empty square leaves no trace at all; a Yin-Yang swap
without the card leaves the other colour's tile where the entering one stopped, which the
referee reads as ``turn.wrong-player``); ``pass.can-enter`` (the referee's Shendao
``guess`` names no pass, so done on an unchanged table reads ``table.unexplained``, and a
done just after a plain entry makes the referee swap that entry for a card move leaving
the same table, through its bigger-move revision).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from companion.referee.core import RefereeConfig
from companion.simulator.config import TableConfig
from companion.simulator.handling import (
    Attempt,
    Handling,
    SimulatorError,
    Table,
    Touch,
    position_of,
)
from engines import GameState
from engines.observation import Value
from engines.shendao import ShendaoRules, ShendaoState
from engines.shendao.moves import GATE_INDEX, GATES, SQUARES, Enter, Pass
from engines.shendao.observation import CLOSED, EMPTY, OPEN, expected, gate
from engines.shendao.state import BRIGAND, LEAVES, NUGUA

STAGEABLE = (
    "turn.wrong-player",
    "gate.closed",
    "gate.blocked",
    "table.misplaced",
    "table.unexplained",
)


def _near_square(s: int) -> tuple[str, ...]:
    """What a hand over square ``s`` hides: the square and its side neighbours."""
    f, r = s % 8, s // 8
    out = [SQUARES[s]]
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= f + df < 8 and 0 <= r + dr < 8:
            out.append(SQUARES[s + df + 8 * dr])
    return tuple(out)


class ShendaoHandling(Handling):
    game = "shendao"
    stageable_rules: ClassVar[tuple[str, ...]] = STAGEABLE
    rules: ShendaoRules

    def announced(self, state: GameState[Any], move: Any) -> bool:
        """A card whose effect leaves the table as the plain entry does (a Prêtresse or
        a Tigre Blanc with no tile in the way, Loung on an empty square) is spent all
        the same: the player says it, since no reader sees cards."""
        if not isinstance(move, Enter) or not move.card:
            return False
        plain = Enter(move.gate)
        if plain not in state.legal_moves():
            return False  # the card is what made the entry possible: the table tells
        token = state.apply(move)
        with_card = self.table(state)
        state.undo(token)
        token = state.apply(plain)
        without = self.table(state)
        state.undo(token)
        return with_card == without

    def table(self, state: GameState[Any]) -> Table:
        observation = expected(_shendao(state))
        return {e: value for e in observation if (value := observation.value(e)) is not None}

    def readable(self, source: str, config: TableConfig) -> dict[str, float]:
        good = config.confidence
        squares = dict.fromkeys(SQUARES, good)
        gates = dict.fromkeys((gate(name) for name in GATES), good)
        if source == "camera":
            return squares | gates
        if source == "sensors":
            # A sensor board feels a tile and a stick, not colours (unless it reads them).
            if not config.sensor_colours:
                raise SimulatorError(
                    "a Shendao sensor board must read colours "
                    "(sensor_colours): a square's value is its colour"
                )
            return dict.fromkeys(SQUARES, config.sensor_colour_confidence) | gates
        raise SimulatorError(f"no Shendao table reader called {source!r}")

    # ------------------------------------------------------------------ touches

    def _put(self, s: int, was: Value, now: Value) -> Touch:
        return Touch({SQUARES[s]: (was, now)}, _near_square(s))

    def _stick(self, g: int) -> Touch:
        name = gate(GATES[g])
        return Touch({name: (OPEN, CLOSED)}, (name, SQUARES[self.rules.entry[g]]))

    # ------------------------------------------------------------------ legal moves

    def steps(
        self, state: GameState[Any], move: Any, rng: np.random.Generator, config: TableConfig
    ) -> list[Touch]:
        state = _shendao(state)
        if isinstance(move, Pass):
            return []
        if not isinstance(move, Enter):
            raise SimulatorError(f"not a Shendao move: {move!r}")
        before = state.cell[:]
        token = state.apply(move)
        after = state.cell[:]
        state.undo(token)
        p = state.to_move
        players = self.rules.players
        g = GATE_INDEX[move.gate]

        def value(owner: int) -> Value:
            return EMPTY if owner < 0 else players[owner]

        changed = [s for s in range(64) if before[s] != after[s]]
        # The entering tile: on an empty square that ends with the player's tile.
        entered = [s for s in changed if before[s] < 0]
        touches: list[Touch] = []
        if move.card == "yinyang" and len(changed) == 2:
            # The stopping tile is lifted, the entering tile put in its place and the
            # lifted one where the entering tile stops, in either order. (Putting the
            # entering tile down where it stops first shows a table the referee cannot
            # follow: that square ends with the other colour, and only an empty square is
            # allowed on the way.)
            here = next(s for s in changed if before[s] < 0)
            beyond = next(s for s in changed if s != here)
            other = value(before[beyond])
            own = players[p]
            touches = [self._put(beyond, other, EMPTY)]
            if rng.random() < 0.5:
                touches += [self._put(beyond, EMPTY, own), self._put(here, EMPTY, other)]
            else:
                touches += [self._put(here, EMPTY, other), self._put(beyond, EMPTY, own)]
        else:
            for s in entered:
                touches.append(self._put(s, EMPTY, players[p]))
            for s in changed:
                if before[s] < 0:
                    continue
                touches.append(self._put(s, value(before[s]), EMPTY))  # removed or lifted
                if after[s] >= 0:  # the Prêtresse: one of the player's own in its place
                    touches.append(self._put(s, EMPTY, value(after[s])))
        if state.gate_open[g]:
            touches.append(self._stick(g))
        return touches

    # ------------------------------------------------------------------ illegal moves

    def stageable(self, config: TableConfig) -> tuple[str, ...]:
        if "camera" in config.sources or config.sensor_colour_confidence >= RefereeConfig.sure:
            return STAGEABLE
        # Squares read only unsure (a sensor board's colours) never rule a move out.
        return ("gate.blocked",)

    def attempt(
        self, state: GameState[Any], rule: str, rng: np.random.Generator, config: TableConfig
    ) -> Attempt | None:
        state = _shendao(state)
        if state.is_over() or rule not in self.stageable(config):
            return None
        stager = _STAGERS.get(rule)
        if stager is None:
            raise SimulatorError(f"cannot stage {rule!r}")
        choices = stager(self, state)
        if not choices:
            return None
        legal = self._legal_tables(state)
        # The first choice, in random order, that shows no legal move's table at any
        # touch (else the referee rightly accepts that move half-way).
        for i in rng.permutation(len(choices)).tolist():
            touches, description, says_done = choices[i]
            trial = self.table(state)
            for touch in touches:
                touch.apply(trial)
                if tuple(sorted(trial.items())) in legal:
                    break
            else:
                return Attempt(rule, touches, says_done, description)
        return None

    def _legal_tables(self, state: ShendaoState) -> set[tuple[tuple[str, Value], ...]]:
        out = set()
        for move in state.legal_moves():
            token = state.apply(move)
            out.add(tuple(sorted(self.table(state).items())))
            state.undo(token)
        return out

    def _open_gates(self, state: ShendaoState) -> list[int]:
        """The open gates whose entry square is free."""
        entry = self.rules.entry
        return [g for g in range(len(GATES)) if state.gate_open[g] and state.cell[entry[g]] < 0]

    def _wrong_player(self, state: ShendaoState) -> list[_Choice]:
        q = 1 - state.to_move
        colour = self.rules.players[q]
        out: list[_Choice] = []
        for g in self._open_gates(state):
            stop = state._stop(g)
            if stop == LEAVES:
                continue
            s = self.rules.line[g][stop]
            out.append(
                (
                    (self._put(s, EMPTY, colour), self._stick(g)),
                    f"a {colour} tile enters through {GATES[g]}",
                    False,
                )
            )
        return out

    def _closed(self, state: ShendaoState) -> list[_Choice]:
        p = state.to_move
        if state.cards[p] & BRIGAND or state.supply[p] == 0:
            return []
        colour = self.rules.players[p]
        out: list[_Choice] = []
        for g in range(len(GATES)):
            if state.gate_open[g] or state.cell[self.rules.entry[g]] >= 0:
                continue
            trial = state.copy()
            trial._set_gate(g, 1)
            stop = trial._stop(g)
            if stop == LEAVES:
                continue
            s = self.rules.line[g][stop]
            out.append(
                (
                    (self._put(s, EMPTY, colour),),
                    f"a tile slid past the stick of {GATES[g]} to {SQUARES[s]}",
                    False,
                )
            )
        return out

    def _blocked(self, state: ShendaoState) -> list[_Choice]:
        if state.supply[state.to_move] == 0:
            return []
        entry = self.rules.entry
        return [
            (
                (self._stick(g),),
                f"the stick put in on {GATES[g]}, its entry {SQUARES[entry[g]]} taken",
                False,
            )
            for g in range(len(GATES))
            if state.gate_open[g] and state.cell[entry[g]] >= 0
        ]

    def _misplaced(self, state: ShendaoState) -> list[_Choice]:
        """The stick first (so the referee reads the plain entry through that gate),
        then the tile short of its stop, or the tile with a card's effect in one touch
        (tile first, the stick last, and the plain entry would be accepted half-way)."""
        p = state.to_move
        if state.supply[p] == 0:
            return []
        colour = self.rules.players[p]
        players = self.rules.players
        out: list[_Choice] = []
        for g in self._open_gates(state):
            stop = state._stop(g)
            if stop == LEAVES:  # the stick alone would be the plain entry, legal
                continue
            line = self.rules.line[g]
            here = line[stop]
            stick = self._stick(g)
            if not state.cards[p] & NUGUA:  # stopped short
                out.extend(
                    (
                        (stick, self._put(s, EMPTY, colour)),
                        f"a tile through {GATES[g]} stopped short on {SQUARES[s]}",
                        False,
                    )
                    for s in state.path(g)[:-1]
                )
            for s in state.line_tiles(g):  # a tile taken off (Loung, Tigre Blanc)
                if s != here:
                    touch = Touch(
                        {
                            SQUARES[here]: (EMPTY, colour),
                            SQUARES[s]: (players[state.cell[s]], EMPTY),
                        },
                        _near_square(here) + _near_square(s),
                    )
                    out.append(
                        (
                            (stick, touch),
                            f"a tile through {GATES[g]}, and {SQUARES[s]} taken off",
                            False,
                        )
                    )
            if stop + 1 < len(line) and state.cell[line[stop + 1]] == 1 - p:
                s = line[stop + 1]  # the Prêtresse's replacement
                touch = Touch(
                    {SQUARES[here]: (EMPTY, colour), SQUARES[s]: (players[1 - p], colour)},
                    _near_square(here) + _near_square(s),
                )
                out.append(
                    ((stick, touch), f"a tile through {GATES[g]}, {SQUARES[s]} replaced", False)
                )
        return out

    def _unexplained(self, state: ShendaoState) -> list[_Choice]:
        players = self.rules.players
        return [
            (
                (self._put(s, players[state.cell[s]], EMPTY),),
                f"the tile on {SQUARES[s]} taken off",
                False,
            )
            for s in range(64)
            if state.cell[s] >= 0
        ]


_Choice = tuple[tuple[Touch, ...], str, bool]
"""One way to stage an attempt: the touches, the words, whether the player says done."""
_STAGERS: dict[str, Callable[[ShendaoHandling, ShendaoState], list[_Choice]]] = {
    "turn.wrong-player": ShendaoHandling._wrong_player,
    "gate.closed": ShendaoHandling._closed,
    "gate.blocked": ShendaoHandling._blocked,
    "table.misplaced": ShendaoHandling._misplaced,
    "table.unexplained": ShendaoHandling._unexplained,
}


def _shendao(state: GameState[Any]) -> ShendaoState:
    return position_of(state, ShendaoState, "Shendao")


HANDLING = ShendaoHandling
