"""Shangri-La pieces in the hands of players (elements as in
``engines.shangrila.observation``).

Moves, one piece at a time:

* a placement: one tile put on an empty space;
* a recruit: each student put on its master, in any order;
* a journey: for each student of the origin (in any order) lift it off its master, take
  away the opposing tiles at the destination if they must go, put the student down
  (or back in the supply); the bridge is taken away first or after the last student
  (``TableConfig.bridge_first``); last, a stone on each village left without bridges;
* a pass: nothing on the table (the player says done).

Illegal moves a table can show (``STAGEABLE``), each tried as a player would:

==============================  ===================================================
rule                            the attempt
==============================  ===================================================
``turn.wrong-player``           another player puts one of their tiles on an empty space
``place.no-master-in-village``  a tile in a village where the player has no master
``place.space-occupied``        a tile on top of another player's master
``village.has-stone``           a tile in a village with a stone
``setup.discipline-placed``     a second master of one discipline during placement
``setup.colour-limit``          one master too many of one's colour in a village
``setup.village-limit``         one master too many in a village
``setup.only-placements``       a bridge taken away during placement (a journey)
``journey.no-student``          a bridge taken away between villages where the player
                                has no student
``recruit.no-own-master``       a student on another player's master (only a sensor
                                board without colours sees this as a recruit; a camera
                                sees a tile on top of another: ``place.space-occupied``)
``recruit.two-when-possible``   one student when two are possible (option
                                ``one-when-forced``; needs stack heights), then done
``pass.has-action``             done without touching anything while a move is possible
                                (needs stack heights: from above it could be a recruit)
==============================  ===================================================

Not stageable: ``place.no-supply`` and ``recruit.no-supply`` (there is no tile to put
down), ``recruit.master-has-student`` and ``recruit.same-master-twice`` (a stack of
three tiles; stacks read 0 to 2), ``recruit.count`` (students go down one at a time and
the first two already make a legal recruit, so a third reads as the next player's
act), ``journey.no-path`` and ``journey.bridge-broken`` (no bridge to take away:
students carried between villages read as placements), ``game.over`` (the simulated
game ends at its last move).

Placement rules need colours the referee trusts (a camera, or a sensor board reading
colours surely): a tile of unknown colour is nothing it can name, and an unsure colour
never rules a move out, so another player's tile reads as the mover's.
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
from engines.shangrila import ShangrilaRules, ShangrilaState
from engines.shangrila.moves import LETTERS, NAMES, Journey, Pass, Place, Recruit
from engines.shangrila.observation import EMPTY, bridge, expected, height, space, stone
from engines.shangrila.state import ND, NV, SETUP

STAGEABLE = (
    "turn.wrong-player",
    "place.no-master-in-village",
    "place.space-occupied",
    "village.has-stone",
    "setup.discipline-placed",
    "setup.colour-limit",
    "setup.village-limit",
    "setup.only-placements",
    "journey.no-student",
    "recruit.no-own-master",
    "recruit.two-when-possible",
    "pass.has-action",
)
_NEEDS_COLOURS = {
    "turn.wrong-player",
    "place.no-master-in-village",
    "place.space-occupied",
    "village.has-stone",
    "setup.discipline-placed",
    "setup.colour-limit",
    "setup.village-limit",
}
_NEEDS_HEIGHTS = {"recruit.no-own-master", "recruit.two-when-possible", "pass.has-action"}


def _near(village: int) -> tuple[str, ...]:
    """What a hand over ``village`` hides: its spaces, stacks and stone."""
    return (
        *(space(village, d) for d in range(ND)),
        *(height(village, d) for d in range(ND)),
        stone(village),
    )


class ShangrilaHandling(Handling):
    game = "shangrila"
    stageable_rules: ClassVar[tuple[str, ...]] = STAGEABLE
    rules: ShangrilaRules

    def table(self, state: GameState[Any]) -> Table:
        observation = expected(_shangrila(state))
        return {e: value for e in observation if (value := observation.value(e)) is not None}

    def readable(self, source: str, config: TableConfig) -> dict[str, float]:
        good = config.confidence
        fixed = dict.fromkeys(
            (*(bridge(a, b) for a, b in self.rules.board.bridges), *(stone(v) for v in range(NV))),
            good,
        )
        spaces = [space(v, d) for v in range(NV) for d in range(ND)]
        if source == "camera":
            return dict.fromkeys(spaces, good) | fixed
        if source == "sensors":
            heights = dict.fromkeys((height(v, d) for v in range(NV) for d in range(ND)), good)
            colours = (
                dict.fromkeys(spaces, config.sensor_colour_confidence)
                if config.sensor_colours
                else {}
            )
            return colours | heights | fixed
        raise SimulatorError(f"no Shangri-La table reader called {source!r}")

    def side_elements(self) -> tuple[str, ...]:
        return tuple(height(v, d) for v in range(NV) for d in range(ND))

    # ------------------------------------------------------------------ legal moves

    def steps(
        self, state: GameState[Any], move: Any, rng: np.random.Generator, config: TableConfig
    ) -> list[Touch]:
        state = _shangrila(state)
        colour = self.rules.players[state.to_move]
        match move:
            case Place(d, v):
                return [Touch({space(v, d): (EMPTY, colour), height(v, d): (0, 1)}, _near(v))]
            case Recruit(targets):
                order = rng.permutation(len(targets)).tolist()
                return [
                    Touch({height(v, d): (1, 2)}, _near(v)) for v, d in (targets[i] for i in order)
                ]
            case Journey(origin, destination):
                return self._journey(state, move, origin, destination, rng, config)
            case Pass():
                return []
        raise SimulatorError(f"not a Shangri-La move: {move!r}")

    def _journey(
        self,
        state: ShangrilaState,
        move: Journey,
        origin: int,
        destination: int,
        rng: np.random.Generator,
        config: TableConfig,
    ) -> list[Touch]:
        before = self.table(state)
        token = state.apply(move)
        after = self.table(state)
        state.undo(token)
        touches = []
        students = [d for d in range(ND) if state.student[origin * ND + d]]
        for d in (students[i] for i in rng.permutation(len(students)).tolist()):
            touches.append(Touch({height(origin, d): (2, 1)}, _near(origin)))
            at, up = space(destination, d), height(destination, d)
            if before[at] == after[at] and before[up] == after[up]:
                continue  # the student goes back to the supply
            if before[at] != EMPTY and before[at] != after[at]:
                touches.append(
                    Touch({at: (before[at], EMPTY), up: (before[up], 0)}, _near(destination))
                )
                touches.append(
                    Touch({at: (EMPTY, after[at]), up: (0, after[up])}, _near(destination))
                )
            else:
                touches.append(
                    Touch(
                        {at: (before[at], after[at]), up: (before[up], after[up])},
                        _near(destination),
                    )
                )
        lift = Touch({bridge(origin, destination): (True, False)}, (bridge(origin, destination),))
        if rng.random() < config.bridge_first:
            touches.insert(0, lift)
        else:
            touches.append(lift)
        touches.extend(
            Touch({stone(v): (False, True)}, _near(v))
            for v in range(NV)
            if before[stone(v)] != after[stone(v)]
        )
        return touches

    # ------------------------------------------------------------------ illegal moves

    def stageable(self, config: TableConfig) -> tuple[str, ...]:
        read = {e for source in config.sources for e in self.readable(source, config)}
        heights = height(0, 0) in read
        # Colours the referee trusts: a camera's, or a sensor board's read surely enough
        # (unsure colours never rule a move out, so another's tile reads as one's own).
        colours = "camera" in config.sources or (
            config.sensor_colours and config.sensor_colour_confidence >= RefereeConfig.sure
        )
        out = []
        for rule in STAGEABLE:
            if rule in _NEEDS_COLOURS and not colours:
                continue
            if rule in _NEEDS_HEIGHTS and not heights:
                continue
            if rule == "recruit.no-own-master" and colours:
                continue  # seen from above, a tile on another's master is a placement
            if rule == "recruit.two-when-possible" and self.rules.recruit != "one-when-forced":
                continue
            out.append(rule)
        return tuple(out)

    def attempt(
        self, state: GameState[Any], rule: str, rng: np.random.Generator, config: TableConfig
    ) -> Attempt | None:
        state = _shangrila(state)
        if state.is_over() or rule not in self.stageable(config):
            return None
        stager = _STAGERS.get(rule)
        if stager is None:
            raise SimulatorError(f"cannot stage {rule!r}")
        choices = stager(self, state)
        if not choices:
            return None
        touches, description, says_done = choices[int(rng.integers(len(choices)))]
        return Attempt(rule, touches, says_done, description)

    def _tile(self, state: ShangrilaState, player: int, v: int, d: int) -> Touch:
        """``player``'s tile put on space (v, d), on top of whatever is there."""
        s = v * ND + d
        was: Value = EMPTY if state.owner[s] < 0 else self.rules.players[state.owner[s]]
        stack = 0 if state.owner[s] < 0 else 1 + state.student[s]
        return Touch(
            {space(v, d): (was, self.rules.players[player]), height(v, d): (stack, stack + 1)},
            _near(v),
        )

    def _placements(
        self, state: ShangrilaState, player: int, villages: list[int], disciplines: int = 0x7F
    ) -> list[_Choice]:
        """``player``'s tile on each empty space of ``villages`` whose discipline is in
        the mask ``disciplines`` and in the player's supply."""
        colour = self.rules.players[player]
        return [
            (
                (self._tile(state, player, v, d),),
                f"{colour} puts a {NAMES[d]} tile on {v}{LETTERS[d]}",
                False,
            )
            for v in villages
            for d in range(ND)
            if disciplines >> d & 1
            and state.owner[v * ND + d] < 0
            and state.supply_of(player, d) > 0
        ]

    def _wrong_player(self, state: ShangrilaState) -> list[_Choice]:
        open_villages = [v for v in range(NV) if not state.stones[v]]
        return [
            choice
            for q in range(self.rules.n_players)
            if q != state.to_move
            for choice in self._placements(state, q, open_villages)
        ]

    def _no_master(self, state: ShangrilaState) -> list[_Choice]:
        if state.phase == SETUP:
            return []
        p = state.to_move
        return self._placements(
            state, p, [v for v in range(NV) if not state.stones[v] and not state.pm[p * NV + v]]
        )

    def _occupied(self, state: ShangrilaState) -> list[_Choice]:
        p = state.to_move
        colour = self.rules.players[p]
        return [
            (
                (self._tile(state, p, v, d),),
                f"{colour} puts a tile on the master on {v}{LETTERS[d]}",
                False,
            )
            for v in range(NV)
            if not state.stones[v]
            for d in range(ND)
            if state.owner[v * ND + d] not in (-1, p)
            and not state.student[v * ND + d]
            and state.supply_of(p, d) > 0
        ]

    def _stone(self, state: ShangrilaState) -> list[_Choice]:
        return self._placements(state, state.to_move, [v for v in range(NV) if state.stones[v]])

    def _setup_placements(
        self,
        state: ShangrilaState,
        placed: bool,
        colour_full: bool | None,
        village_full: bool | None,
    ) -> list[_Choice]:
        """Setup-phase placements of a discipline already placed (``placed``) or not, in
        villages whose colour and village limits are reached or not (None: either)."""
        if state.phase != SETUP:
            return []
        p, rules = state.to_move, self.rules
        mask = state.placed[p] if placed else ~state.placed[p] & 0x7F
        villages = [
            v
            for v in range(NV)
            if not state.stones[v]
            and colour_full in (None, state.pm[p * NV + v] >= rules.setup_colour_limit)
            and village_full in (None, state.vt[v] >= rules.setup_village_limit)
        ]
        return self._placements(state, p, villages, mask)

    def _journey_in_setup(self, state: ShangrilaState) -> list[_Choice]:
        if state.phase != SETUP:
            return []
        return [self._bridge(a, b) for a, b in self._standing(state)]

    def _journey_without_student(self, state: ShangrilaState) -> list[_Choice]:
        p = state.to_move
        if state.phase == SETUP:
            return []
        return [
            self._bridge(a, b)
            for a, b in self._standing(state)
            if not state.ps[p * NV + a] and not state.ps[p * NV + b]
        ]

    def _standing(self, state: ShangrilaState) -> list[tuple[int, int]]:
        return [pair for e, pair in enumerate(self.rules.bridges) if state.bridges[e]]

    def _bridge(self, a: int, b: int) -> _Choice:
        name = bridge(a, b)
        return ((Touch({name: (True, False)}, (name,)),), f"the {name} is taken away", False)

    def _student_on_other(self, state: ShangrilaState) -> list[_Choice]:
        p = state.to_move
        if state.phase == SETUP:
            return []
        return [
            (
                (Touch({height(v, d): (1, 2)}, _near(v)),),
                f"a student on the master on {v}{LETTERS[d]}",
                False,
            )
            for v in range(NV)
            if not state.stones[v]
            for d in range(ND)
            if state.owner[v * ND + d] not in (-1, p)
            and not state.student[v * ND + d]
            and state.supply_of(p, d) > 0
        ]

    def _one_student(self, state: ShangrilaState) -> list[_Choice]:
        moves = state.legal_moves()
        if state.phase == SETUP or not any(
            type(m) is Recruit and len(m.targets) == 2 for m in moves
        ):
            return []
        targets = sorted({t for m in moves if type(m) is Recruit for t in m.targets})
        return [
            ((Touch({height(v, d): (1, 2)}, _near(v)),), f"one student on {v}{LETTERS[d]}", True)
            for v, d in targets
        ]

    def _pass(self, state: ShangrilaState) -> list[_Choice]:
        if state.legal_moves() == [Pass()]:
            return []
        return [((), "done without a move", True)]


_Choice = tuple[tuple[Touch, ...], str, bool]
"""One way to stage an attempt: the touches, the words, whether the player says done."""
_STAGERS: dict[str, Callable[[ShangrilaHandling, ShangrilaState], list[_Choice]]] = {
    "turn.wrong-player": ShangrilaHandling._wrong_player,
    "place.no-master-in-village": ShangrilaHandling._no_master,
    "place.space-occupied": ShangrilaHandling._occupied,
    "village.has-stone": ShangrilaHandling._stone,
    "setup.discipline-placed": lambda h, s: h._setup_placements(s, True, None, None),
    "setup.colour-limit": lambda h, s: h._setup_placements(s, False, True, None),
    "setup.village-limit": lambda h, s: h._setup_placements(s, False, False, True),
    "setup.only-placements": ShangrilaHandling._journey_in_setup,
    "journey.no-student": ShangrilaHandling._journey_without_student,
    "recruit.no-own-master": ShangrilaHandling._student_on_other,
    "recruit.two-when-possible": ShangrilaHandling._one_student,
    "pass.has-action": ShangrilaHandling._pass,
}


def _shangrila(state: GameState[Any]) -> ShangrilaState:
    return position_of(state, ShangrilaState, "Shangri-La")


HANDLING = ShangrilaHandling
