"""A position of The Bridges of Shangri-La.

The board is 91 spaces (13 villages x 7 disciplines, space ``s = village * 7 +
discipline``) held in two small int lists, ``owner`` (player index, -1 when empty) and
``student`` (1 when a student sits on the master). Everything else — each player's
supply, tiles and masters per village, scores — is bookkeeping kept in step by one
method, ``_set``, so ``undo`` only has to put the old spaces back through it.

``apply`` is unchecked (for search); ``check`` says why a move is illegal; ``play``
(from ``GameState``) does both. See docs/notation.md for the state's JSON format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, cast

from engines.base import JSON, GameState
from engines.dice import Dice
from engines.errors import IllegalMoveError, RecordError
from engines.shangrila.board import N_DISCIPLINES, TILES_PER_DISCIPLINE
from engines.shangrila.moves import LETTERS, NAMES, Journey, Move, Pass, Place, Recruit

if TYPE_CHECKING:
    # The rules build states (``initial_state``); a state only reads its rules.
    from engines.shangrila.rules import ShangrilaRules

NV = 13
ND = N_DISCIPLINES
SETUP, PLAY = 0, 1
_PHASES = ("setup", "play")
_PASS = Pass()
# _LANES[mask]: the mask spread into 4-bit lanes (bit d -> 1 << 4 d), so that adding
# the lanes of the villages counts, per discipline, how many masks have it (at most 13).
_LANES: tuple[int, ...] = tuple(
    sum(1 << 4 * d for d in range(N_DISCIPLINES) if mask >> d & 1)
    for mask in range(1 << N_DISCIPLINES)
)
# _BITS[mask]: the disciplines (bit indexes) set in a 7-bit mask, ascending.
_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(d for d in range(ND) if mask >> d & 1) for mask in range(1 << ND)
)

# What ``apply`` returns: the saved scalars (to move, phase, passes, over, stones
# placed, the mover's setup placements), the changed spaces with their old contents,
# the bridge broken (-1: none) and the villages that received a stone.
_Undo = tuple[tuple[int, int, int, bool, int, int], list[tuple[int, int, int]], int, list[int]]


class ShangrilaState(GameState[Move]):
    """One position. Construct with ``rules.initial_state()`` or
    ``rules.state_from_json(...)``."""

    __slots__ = (
        "_to_move",
        "bridges",
        "empty",
        "free",
        "nstones",
        "over",
        "owner",
        "passes",
        "phase",
        "placed",
        "pm",
        "ps",
        "rules",
        "score",
        "smask",
        "stones",
        "student",
        "supply",
        "vdeg",
        "vm",
        "vt",
    )

    rules: ShangrilaRules

    def __init__(self, rules: ShangrilaRules) -> None:
        n = rules.n_players
        self.rules = rules
        self.owner = [-1] * (NV * ND)
        self.student = [0] * (NV * ND)
        self.supply = [TILES_PER_DISCIPLINE] * (n * ND)  # [player * 7 + discipline]
        self.vt = [0] * NV  # tiles (masters + students) per village
        self.vm = [0] * NV  # masters per village
        self.pm = [0] * (n * NV)  # masters per [player * 13 + village]
        self.ps = [0] * (n * NV)  # students per [player * 13 + village]
        self.score = [0] * n  # masters on the board per player
        # Bit masks over the 7 disciplines, for fast move generation:
        self.empty = [0x7F] * NV  # empty spaces per village
        self.free = [0] * (n * NV)  # [player * 13 + village]: masters without a student
        self.smask = [0x7F] * n  # disciplines the player has in supply
        self.bridges = [1] * len(rules.bridges)  # 1 while the bridge stands
        self.vdeg = [len(links) for links in rules.links]  # standing bridges per village
        self.stones = [0] * NV
        self.nstones = 0
        self._to_move = 0
        self.phase = SETUP
        self.passes = 0  # consecutive passes in the play phase
        self.placed = [0] * n  # disciplines placed in the setup phase, as bit masks
        self.over = False

    # ------------------------------------------------------------------ construction

    @classmethod
    def initial(cls, rules: ShangrilaRules) -> ShangrilaState:
        """The start of a game: the placement phase, or the suggested position."""
        state = cls(rules)
        for v in range(NV):
            if not rules.in_play[v]:
                state.stones[v] = 1
                state.nstones += 1
        if rules.setup == "suggested":
            card = rules.board.suggested[rules.n_players]
            colour_of = _card_colours(card.colours, rules.players)
            for v, d, colour in card.masters:
                state._set(v * ND + d, colour_of[colour], 0)
            state.phase = PLAY
        return state

    def copy(self) -> Self:
        other = object.__new__(type(self))
        other.rules = self.rules
        other.owner = self.owner[:]
        other.student = self.student[:]
        other.supply = self.supply[:]
        other.vt = self.vt[:]
        other.vm = self.vm[:]
        other.pm = self.pm[:]
        other.ps = self.ps[:]
        other.score = self.score[:]
        other.empty = self.empty[:]
        other.free = self.free[:]
        other.smask = self.smask[:]
        other.bridges = self.bridges[:]
        other.vdeg = self.vdeg[:]
        other.stones = self.stones[:]
        other.nstones = self.nstones
        other._to_move = self._to_move
        other.phase = self.phase
        other.passes = self.passes
        other.placed = self.placed[:]
        other.over = self.over
        return other

    # ------------------------------------------------------------------ bookkeeping

    def _set(self, s: int, player: int, student: int) -> None:
        """Make space ``s`` hold ``player``'s master (-1: empty), with a student if
        ``student``; tiles leaving the board go back to their owner's supply."""
        v, d = divmod(s, ND)
        bit = 1 << d
        supply = self.supply
        old = self.owner[s]
        if old >= 0:
            old_student = self.student[s]
            n_old = 1 + old_student
            supply[old * ND + d] += n_old
            self.smask[old] |= bit
            self.vt[v] -= n_old
            self.vm[v] -= 1
            self.pm[old * NV + v] -= 1
            self.ps[old * NV + v] -= old_student
            self.score[old] -= 1
            self.free[old * NV + v] &= ~bit
            self.empty[v] |= bit
        if player >= 0:
            n_new = 1 + student
            i = player * ND + d
            supply[i] -= n_new
            if not supply[i]:
                self.smask[player] &= ~bit
            self.vt[v] += n_new
            self.vm[v] += 1
            self.pm[player * NV + v] += 1
            self.ps[player * NV + v] += student
            self.score[player] += 1
            if not student:
                self.free[player * NV + v] |= bit
            self.empty[v] &= ~bit
        else:
            student = 0
        self.owner[s] = player
        self.student[s] = student

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int:
        return self._to_move

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        """Masters on the board per player (students do not count)."""
        return self.score[:]

    def heuristic_scores(self) -> list[float]:
        """For search: masters, plus students at 0.4 (each may become a master)."""
        students = [0] * self.rules.n_players
        for s, p in enumerate(self.owner):
            if p >= 0 and self.student[s]:
                students[p] += 1
        return [m + 0.4 * st for m, st in zip(self.score, students, strict=True)]

    def villages_occupied(self) -> list[int]:
        """Per player, the villages where they have at least one master."""
        pm = self.pm
        return [sum(1 for v in range(NV) if pm[p * NV + v]) for p in range(self.rules.n_players)]

    def tiebreak(self) -> list[int]:
        return self.villages_occupied()

    def winners(self) -> list[int]:
        """The players with the most masters; ties broken by villages occupied, then
        shared."""
        keys = list(zip(self.score, self.villages_occupied(), strict=True))
        best = max(keys)
        return [p for p, key in enumerate(keys) if key == best]

    def stronger_origin(self, origin: int, destination: int) -> bool:
        """Whether ``origin`` counts as stronger than ``destination`` for a journey:
        more tiles; then more masters; then the ``tie_break`` option decides."""
        a, b = self.vt[origin], self.vt[destination]
        if a != b:
            return a > b
        a, b = self.vm[origin], self.vm[destination]
        if a != b:
            return a > b
        return self.rules.tie_break == "origin"

    def supply_of(self, player: int, discipline: int) -> int:
        return self.supply[player * ND + discipline]

    def bridge_standing(self, a: int, b: int) -> bool:
        """Whether a bridge in play joins ``a`` and ``b`` and still stands."""
        for e, other in self.rules.links[a]:
            if other == b:
                return bool(self.bridges[e])
        return False

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """Placements (by village, then discipline), recruits (canonical order),
        journeys (by destination); or ``pass`` when nothing else is possible."""
        if self.over:
            return []
        out: list[Move] = self._setup_moves() if self.phase == SETUP else self._play_moves()
        if not out:
            out.append(_PASS)
        return out

    def _setup_village_open(self, p: int, v: int) -> bool:
        rules = self.rules
        return not (
            self.stones[v]
            or self.vt[v] >= rules.setup_village_limit
            or self.pm[p * NV + v] >= rules.setup_colour_limit
        )

    def _setup_moves(self) -> list[Move]:
        p = self._to_move
        wanted = ~self.placed[p] & 0x7F
        out: list[Move] = []
        for v in range(NV):
            if self._setup_village_open(p, v):
                out.extend(Place(d, v) for d in _BITS[self.empty[v] & wanted])
        return out

    def _recruit_targets(self, p: int) -> list[tuple[int, int]]:
        """(village, discipline) of ``p``'s masters without a student that a tile in
        supply can join, in canonical order."""
        sm, free, stones = self.smask[p], self.free, self.stones
        return [(v, d) for v in range(NV) if not stones[v] for d in _BITS[free[p * NV + v] & sm]]

    def _pair_allowed(self, p: int, a: tuple[int, int], b: tuple[int, int]) -> bool:
        return a[1] != b[1] or self.supply[p * ND + a[1]] >= 2

    def _recruits(self, p: int) -> list[Move]:
        targets = self._recruit_targets(p)
        pairs: list[Move] = [
            Recruit((a, b))
            for i, a in enumerate(targets)
            for b in targets[i + 1 :]
            if self._pair_allowed(p, a, b)
        ]
        if pairs and self.rules.recruit == "one-when-forced":
            return pairs
        singles: list[Move] = [Recruit((t,)) for t in targets]
        return singles + pairs

    def _play_moves(self) -> list[Move]:
        p = self._to_move
        sm, empty, pm, ps, stones = self.smask[p], self.empty, self.pm, self.ps, self.stones
        out: list[Move] = []
        for v in range(NV):
            if pm[p * NV + v] and not stones[v]:
                out.extend(Place(d, v) for d in _BITS[empty[v] & sm])
        out.extend(self._recruits(p))
        bridges, links = self.bridges, self.rules.links
        for v in range(NV):
            if ps[p * NV + v]:
                out.extend(Journey(v, w) for e, w in links[v] if bridges[e])
        return out

    def _has_action(self) -> bool:
        """Whether the player to move has anything but ``pass``."""
        moves = self._setup_moves() if self.phase == SETUP else self._play_moves()
        return bool(moves)

    def random_move(self, dice: Dice) -> Move:
        """A move drawn uniformly from ``legal_moves()``, without building that list:
        count the moves of each kind from the bit masks, pick one index, build one move.
        """
        return self._draw(dice, by_kind=False)

    def playout_move(self, dice: Dice) -> Move:
        """A move for search playouts: first a kind of action (place, recruit, journey)
        uniformly among those possible, then a move of that kind uniformly. Uniform
        play recruits far too often (pairs of students outnumber everything else)."""
        return self._draw(dice, by_kind=True)

    def _draw(self, dice: Dice, by_kind: bool) -> Move:
        if self.over:
            raise IndexError("the game is over: there is no move to draw")
        p = self._to_move
        if self.phase == SETUP:
            return self._random_setup_move(p, dice)
        sm, empty, free, pm, ps, stones, vdeg = (
            self.smask[p],
            self.empty,
            self.free,
            self.pm,
            self.ps,
            self.stones,
            self.vdeg,
        )
        places = [0] * NV
        targets = [0] * NV
        n_places = n_targets = n_journeys = lanes = 0
        base = p * NV
        for v in range(NV):
            if stones[v]:
                continue
            if pm[base + v]:
                c = (empty[v] & sm).bit_count()
                places[v] = c
                n_places += c
                t = free[base + v] & sm
                if t:
                    targets[v] = t
                    n_targets += t.bit_count()
                    lanes += _LANES[t]
                if ps[base + v]:
                    n_journeys += vdeg[v]
        n_pairs = n_targets * (n_targets - 1) // 2
        if n_pairs:
            # Two students of one discipline need two tiles of it in supply.
            supply = self.supply
            for d in range(ND):
                if supply[p * ND + d] == 1:
                    c = lanes >> 4 * d & 15  # targets of discipline d
                    n_pairs -= c * (c - 1) // 2
        n_singles = 0 if n_pairs and self.rules.recruit == "one-when-forced" else n_targets
        total = n_places + n_singles + n_pairs + n_journeys
        if not total:
            return _PASS
        if by_kind:
            kinds = [
                (n_places, 0),
                (n_singles + n_pairs, n_places),
                (n_journeys, n_places + n_singles + n_pairs),
            ]
            count, offset = dice.choice([kind for kind in kinds if kind[0]])
            k = offset + dice.below(count)
        else:
            k = dice.below(total)
        if k < n_places:
            for v in range(NV):
                if k < places[v]:
                    return Place(_BITS[empty[v] & sm][k], v)
                k -= places[v]
        k -= n_places
        if k < n_singles + n_pairs:
            cells = [(v, d) for v in range(NV) for d in _BITS[targets[v]]]
            if k < n_singles:
                return Recruit((cells[k],))
            while True:  # uniform over allowed pairs, by rejection
                i, j = dice.below(n_targets), dice.below(n_targets)
                if i != j and self._pair_allowed(p, cells[i], cells[j]):
                    return Recruit((cells[i], cells[j]))
        k -= n_singles + n_pairs
        bridges, links = self.bridges, self.rules.links
        for v in range(NV):
            if ps[base + v] and not stones[v]:
                if k < vdeg[v]:
                    return Journey(v, [w for e, w in links[v] if bridges[e]][k])
                k -= vdeg[v]
        raise AssertionError("move counts out of step with the position")

    def _random_setup_move(self, p: int, dice: Dice) -> Move:
        wanted = ~self.placed[p] & 0x7F
        village_limit = self.rules.setup_village_limit
        colour_limit = self.rules.setup_colour_limit
        empty, stones, vt, pm = self.empty, self.stones, self.vt, self.pm
        counts = [
            0
            if stones[v] or vt[v] >= village_limit or pm[p * NV + v] >= colour_limit
            else (empty[v] & wanted).bit_count()
            for v in range(NV)
        ]
        total = sum(counts)
        if not total:
            return _PASS
        k = dice.below(total)
        for v in range(NV):
            if k < counts[v]:
                return Place(_BITS[self.empty[v] & wanted][k], v)
            k -= counts[v]
        raise AssertionError("move counts out of step with the position")

    # ------------------------------------------------------------------ apply / undo

    def apply(self, move: Move) -> object:
        """Play a legal move without checking it. Returns the token for ``undo``."""
        saved = (
            self._to_move,
            self.phase,
            self.passes,
            self.over,
            self.nstones,
            self.placed[self._to_move],
        )
        changes: list[tuple[int, int, int]] = []
        bridge = -1
        stoned: list[int] = []
        p = self._to_move
        if type(move) is Place:
            s = move.village * ND + move.discipline
            changes.append((s, -1, 0))
            self._set(s, p, 0)
            if self.phase == SETUP:
                self.placed[p] |= 1 << move.discipline
        elif type(move) is Recruit:
            for v, d in move.targets:
                s = v * ND + d
                changes.append((s, p, 0))
                self._set(s, p, 1)
        elif type(move) is Journey:
            bridge, stoned = self._journey(move.origin, move.destination, changes)
        if type(move) is Pass:
            self.passes += 1
            if self.phase == PLAY and self.passes >= self.rules.n_players:
                self.over = True
        else:
            self.passes = 0
        self._to_move = (p + 1) % self.rules.n_players
        # The placement phase ends with the round in which nobody can place any more:
        # those after the last placement in that round pass, as any player who cannot act.
        if self.phase == SETUP and self._to_move == 0 and not self._setup_goes_on():
            self.phase = PLAY
            self._to_move = 0
            self.passes = 0
        return (saved, changes, bridge, stoned)

    def _journey(
        self, origin: int, destination: int, changes: list[tuple[int, int, int]]
    ) -> tuple[int, list[int]]:
        owner, student = self.owner, self.student
        stronger = self.stronger_origin(origin, destination)
        for d in range(ND):
            s = origin * ND + d
            if not student[s]:
                continue
            q = owner[s]
            changes.append((s, q, 1))
            self._set(s, q, 0)  # the student leaves; its master stays
            t = destination * ND + d
            there = owner[t]
            if there < 0:
                changes.append((t, -1, 0))
                self._set(t, q, 0)  # an empty space: the student becomes a master
            elif not stronger or (there == q and student[t]):
                # Weaker origin, or its own master already has a student: the student
                # goes back to supply (``_set`` above already returned it there).
                continue
            elif there == q:
                changes.append((t, q, 0))
                self._set(t, q, 1)  # joins its own master as a student
            else:
                changes.append((t, there, student[t]))
                self._set(t, q, 0)  # opposing tiles go home; the student is master
        bridge = -1
        for e, w in self.rules.links[origin]:
            if w == destination:
                bridge = e
        self.bridges[bridge] = 0
        stoned = []
        for v in (origin, destination):
            self.vdeg[v] -= 1
            if self.vdeg[v] == 0 and not self.stones[v] and self.nstones < self.rules.stones:
                self.stones[v] = 1
                self.nstones += 1
                stoned.append(v)
        if self.nstones >= self.rules.stones:
            self.over = True
        return bridge, stoned

    def _setup_goes_on(self) -> bool:
        """Whether any player can still make a placement of the setup phase."""
        n = self.rules.n_players
        if all(self.placed[p] == 0x7F for p in range(n)):
            return False
        # The next player first: in the common case they can place, and the scan stops.
        order = [(self._to_move + i) % n for i in range(n)]
        return any(self._can_place_in_setup(p) for p in order)

    def _can_place_in_setup(self, p: int) -> bool:
        wanted = ~self.placed[p] & 0x7F
        return bool(wanted) and any(
            self.empty[v] & wanted and self._setup_village_open(p, v) for v in range(NV)
        )

    def undo(self, token: object) -> None:
        saved, changes, bridge, stoned = cast(_Undo, token)
        for s, player, student in reversed(changes):
            self._set(s, player, student)
        if bridge >= 0:
            self.bridges[bridge] = 1
            a, b = self.rules.bridges[bridge]
            self.vdeg[a] += 1
            self.vdeg[b] += 1
        for v in stoned:
            self.stones[v] = 0
        (self._to_move, self.phase, self.passes, self.over, self.nstones, self.placed[saved[0]]) = (
            saved
        )

    # ------------------------------------------------------------------ checking

    def check(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` if ``move`` is illegal; say which rule and why."""
        if self.over:
            raise IllegalMoveError("game.over", "The game is over: no more moves.")
        if type(move) is Place:
            self._check_place(move)
        elif type(move) is Recruit:
            self._check_recruit(move)
        elif type(move) is Journey:
            self._check_journey(move)
        elif type(move) is Pass:
            if self._has_action():
                example = self.rules.format_move(self.legal_moves()[0])
                raise IllegalMoveError(
                    "pass.has-action",
                    f"{self._who()} cannot pass: an action is still possible "
                    f"(for example {example}). A player passes only when nothing else "
                    "is possible.",
                )
        else:
            raise TypeError(f"not a Shangri-La move: {move!r}")

    def _who(self, player: int | None = None) -> str:
        return self.rules.colour_name(self._to_move if player is None else player)

    def _check_stone(self, village: int, doing: str) -> None:
        if self.stones[village]:
            not_in_play = not self.rules.in_play[village]
            why = (
                "it is not used in a 3-player game"
                if not_in_play
                else "it has a Stone of the Wise Men"
            )
            raise IllegalMoveError(
                "village.has-stone",
                f"{self._who()} cannot {doing} in village {village}: {why}, and no "
                "action may take place there.",
            )

    def _check_place(self, move: Place) -> None:
        p, d, v = self._to_move, move.discipline, move.village
        rules = self.rules
        name = NAMES[d]
        self._check_stone(v, f"place a {name}")
        there = self.owner[v * ND + d]
        if there >= 0:
            raise IllegalMoveError(
                "place.space-occupied",
                f"The {name} space of village {v} is already taken by "
                f"{self._who(there)}'s master; {self._who()} may place only on an empty "
                "space.",
            )
        if self.phase == SETUP:
            if self.placed[p] >> d & 1:
                raise IllegalMoveError(
                    "setup.discipline-placed",
                    f"{self._who()} has already placed a {name} in the placement phase: "
                    "the seven starting masters must all be different disciplines.",
                )
            if self.pm[p * NV + v] >= rules.setup_colour_limit:
                limit = rules.setup_colour_limit
                raise IllegalMoveError(
                    "setup.colour-limit",
                    f"{self._who()} already has {limit} master{'s' * (limit > 1)} in "
                    f"village {v}: in the placement phase a village takes at most {limit} "
                    f"of one colour with {rules.n_players} players.",
                )
            if self.vt[v] >= rules.setup_village_limit:
                limit = rules.setup_village_limit
                raise IllegalMoveError(
                    "setup.village-limit",
                    f"Village {v} already holds {limit} masters: in the placement phase a "
                    f"village takes at most {limit} with {rules.n_players} players.",
                )
            return
        if not self.pm[p * NV + v]:
            raise IllegalMoveError(
                "place.no-master-in-village",
                f"{self._who()} cannot place a {name} in village {v}: {self._who()} has no "
                "master there yet. A master may only be placed in a village where its "
                "player already has one.",
            )
        if not self.supply[p * ND + d]:
            raise IllegalMoveError(
                "place.no-supply", f"{self._who()} has no {name} left in supply."
            )

    def _check_recruit(self, move: Recruit) -> None:
        p = self._to_move
        if self.phase == SETUP:
            raise IllegalMoveError(
                "setup.only-placements",
                f"{self._who()} cannot recruit yet: in the placement phase each player only "
                "places masters.",
            )
        if not 1 <= len(move.targets) <= 2:
            raise IllegalMoveError("recruit.count", "A recruit puts one or two students.")
        if len(move.targets) == 2 and move.targets[0] == move.targets[1]:
            v, d = move.targets[0]
            raise IllegalMoveError(
                "recruit.same-master-twice",
                f"A master has at most one student: {self._who()} cannot put two "
                f"{NAMES[d]}s on the master in village {v}.",
            )
        need = [0] * ND
        for v, d in move.targets:
            name = NAMES[d]
            self._check_stone(v, f"recruit a {name}")
            s = v * ND + d
            if self.owner[s] != p:
                held = (
                    f"the {name} space is held by {self._who(self.owner[s])}"
                    if self.owner[s] >= 0
                    else f"the {name} space is empty"
                )
                raise IllegalMoveError(
                    "recruit.no-own-master",
                    f"{self._who()} has no {name} master in village {v} ({held}): a student "
                    "goes only onto its player's own master.",
                )
            if self.student[s]:
                raise IllegalMoveError(
                    "recruit.master-has-student",
                    f"{self._who()}'s {name} in village {v} already has a student: a master "
                    "has at most one.",
                )
            need[d] += 1
        for d, count in enumerate(need):
            if count > self.supply[p * ND + d]:
                have = self.supply[p * ND + d]
                raise IllegalMoveError(
                    "recruit.no-supply",
                    f"{self._who()} has {have} {NAMES[d]}{'s' * (have != 1)} in supply, "
                    f"not enough to recruit {count}.",
                )
        if (
            len(move.targets) == 1
            and self.rules.recruit == "one-when-forced"
            and any(len(m.targets) == 2 for m in self._recruits(p) if type(m) is Recruit)
        ):
            raise IllegalMoveError(
                "recruit.two-when-possible",
                f"{self._who()} must recruit two students when two are possible "
                "(option recruit = one-when-forced).",
            )

    def _check_journey(self, move: Journey) -> None:
        p, a, b = self._to_move, move.origin, move.destination
        if self.phase == SETUP:
            raise IllegalMoveError(
                "setup.only-placements",
                f"{self._who()} cannot start a journey yet: in the placement phase each "
                "player only places masters.",
            )
        self._check_stone(a, "start a journey")
        if a == b or all(w != b for _, w in self.rules.links[a]):
            raise IllegalMoveError(
                "journey.no-path",
                f"No path joins village {a} to village {b}: students journey only to a "
                "neighbouring village.",
            )
        if not self.bridge_standing(a, b):
            raise IllegalMoveError(
                "journey.bridge-broken",
                f"The bridge between villages {a} and {b} is broken: no journey may cross "
                "it again.",
            )
        if not self.ps[p * NV + a]:
            raise IllegalMoveError(
                "journey.no-student",
                f"{self._who()} has no student in village {a}: only a player with a student "
                "there may send its students on a journey.",
            )

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, JSON]:
        """The state document (docs/notation.md, "Shangri-La positions")."""
        players = self.rules.players
        spaces: dict[str, dict[str, str]] = {}
        for v in range(NV):
            cells = {}
            for d in range(ND):
                q = self.owner[v * ND + d]
                if q >= 0:
                    cells[LETTERS[d]] = players[q] + ("+" if self.student[v * ND + d] else "")
            if cells:
                spaces[str(v)] = cells
        data: dict[str, JSON] = {
            "phase": _PHASES[self.phase],
            "to_move": self._to_move,
            "spaces": spaces,
            "bridges": [
                f"{a}-{b}" for e, (a, b) in enumerate(self.rules.bridges) if self.bridges[e]
            ],
            "stones": [v for v in range(NV) if self.stones[v]],
            "passes": self.passes,
        }
        if self.phase == SETUP:
            data["placed"] = [
                "".join(LETTERS[d] for d in range(ND) if self.placed[p] >> d & 1)
                for p in range(self.rules.n_players)
            ]
        return data

    @classmethod
    def from_json(cls, rules: ShangrilaRules, data: JSON) -> ShangrilaState:
        """Read a state document. Raises ``RecordError`` if it is malformed or
        inconsistent with the rules."""
        try:
            return cls._from_json(rules, data)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordError(f"malformed Shangri-La position: {error!r}") from None

    @classmethod
    def _from_json(cls, rules: ShangrilaRules, data: Mapping[str, Any]) -> ShangrilaState:
        known = {"phase", "to_move", "spaces", "bridges", "stones", "passes", "placed"}
        if not isinstance(data, Mapping):
            raise RecordError("a Shangri-La position must be a JSON object")
        if set(data) - known:
            raise RecordError(f"unknown keys in the position: {sorted(set(data) - known)}")
        state = cls(rules)
        n = rules.n_players
        phase = data.get("phase", "play")
        if phase not in _PHASES:
            raise RecordError(f'"phase" must be "setup" or "play", not {phase!r}')
        state.phase = _PHASES.index(phase)
        to_move = data.get("to_move", 0)
        if type(to_move) is not int or not 0 <= to_move < n:
            raise RecordError(f'"to_move" must be a player index 0 to {n - 1}')
        state._to_move = to_move
        spaces = data.get("spaces", {})
        if not isinstance(spaces, Mapping):
            raise RecordError('"spaces" must map villages to {discipline: colour} objects')
        for key, cells in spaces.items():
            if not key.isdigit() or int(key) >= NV:
                raise RecordError(f"unknown village {key!r} in the position")
            v = int(key)
            if not isinstance(cells, Mapping):
                raise RecordError(f"village {v} must be a {{discipline: colour}} object")
            for letter, text in cells.items():
                if len(letter) != 1 or letter not in LETTERS:
                    raise RecordError(f"unknown discipline {letter!r} in village {v}")
                colour, plus = (text[:-1], 1) if text.endswith("+") else (text, 0)
                if colour not in rules.players:
                    raise RecordError(f"{text!r} in village {v} is not a player of this game")
                if plus and state.phase == SETUP:
                    raise RecordError("no students can be on the board in the placement phase")
                state._set(v * ND + LETTERS.index(letter), rules.players.index(colour), plus)
        if min(state.supply) < 0:
            raise RecordError("a player has more than 6 tiles of one discipline on the board")
        listed = data.get("bridges", [])
        if not isinstance(listed, list) or not isinstance(data.get("stones", []), list):
            raise RecordError('"bridges" and "stones" must be lists')
        standing = {(a, b) for a, b in (map(int, str(t).split("-")) for t in listed)}
        standing |= {(b, a) for a, b in standing}
        for e, (a, b) in enumerate(rules.bridges):
            state.bridges[e] = int((a, b) in standing)
        unknown = {
            pair
            for pair in standing
            if pair not in set(rules.bridges) and pair[::-1] not in set(rules.bridges)
        }
        if unknown:
            a, b = sorted(unknown)[0]
            raise RecordError(f"there is no bridge {a}-{b} in a {n}-player game")
        state.vdeg = [sum(state.bridges[e] for e, _ in links) for links in rules.links]
        for v in data.get("stones", []):
            if type(v) is not int or not 0 <= v < NV:
                raise RecordError(f'unknown village {v!r} in "stones"')
            state.stones[v] = 1
        state.nstones = sum(state.stones)
        for v in range(NV):
            if state.stones[v] and state.vdeg[v]:
                raise RecordError(f"village {v} has a stone but a standing bridge")
            if not rules.in_play[v] and (not state.stones[v] or state.vt[v]):
                raise RecordError(f"village {v} is not used with 3 players: it holds only a stone")
            if state.stones[v] == 0 and state.vdeg[v] == 0 and state.nstones < rules.stones:
                raise RecordError(f"village {v} has no bridge left, so it must have a stone")
        if state.nstones > rules.stones:
            raise RecordError(f"{state.nstones} stones, but the game has {rules.stones}")
        passes = data.get("passes", 0)
        if type(passes) is not int or passes < 0:
            raise RecordError('"passes" must be a count of consecutive passes')
        state.passes = passes
        if state.phase == SETUP:
            placed = data.get("placed")
            if placed is None:  # derive: in the placement phase the board is the placements
                placed = [
                    "".join(
                        LETTERS[d]
                        for d in range(ND)
                        if any(state.owner[v * ND + d] == p for v in range(NV))
                    )
                    for p in range(n)
                ]
            if len(placed) != n:
                raise RecordError('"placed" needs one entry per player')
            for p, letters in enumerate(placed):
                state.placed[p] = sum(1 << LETTERS.index(c) for c in letters)
        state.over = state.nstones >= rules.stones or (state.phase == PLAY and state.passes >= n)
        return state

    # ------------------------------------------------------------------ text

    def describe(self) -> str:
        """A table of the villages: one line each, a column per discipline."""
        rules = self.rules
        width = max(len(c) for c in rules.players) + 1
        lines = []
        status = "game over" if self.over else f"{rules.players[self._to_move]} to move"
        lines.append(
            f"{_PHASES[self.phase]} phase · {status} · stones {self.nstones}/{rules.stones}"
        )
        lines.append(
            "village " + " ".join(f"{LETTERS[d]:<{width}}" for d in range(ND)) + "  bridges to"
        )
        for v in range(NV):
            cells = []
            for d in range(ND):
                q = self.owner[v * ND + d]
                cell = (
                    "." if q < 0 else rules.players[q] + ("+" if self.student[v * ND + d] else "")
                )
                cells.append(f"{cell:<{width}}")
            if self.stones[v]:
                tail = "stone" if rules.in_play[v] else "not in play"
            else:
                tail = " ".join(str(w) for e, w in rules.links[v] if self.bridges[e])
            lines.append(f"{v:>7} " + " ".join(cells) + "  " + tail)
        lines.append("(colour+ = a master with its student)")
        for p, colour in enumerate(rules.players):
            supply = " ".join(f"{LETTERS[d]}{self.supply[p * ND + d]}" for d in range(ND))
            lines.append(f"{colour:<7} masters {self.score[p]:>2}  supply {supply}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ShangrilaState {self.to_json()!r}>"


def _card_colours(card: tuple[str, ...], players: tuple[str, ...]) -> dict[str, int]:
    """Map a printed card's colours to player indexes: a player whose colour is on the
    card takes it; the card's other colours go to the remaining players in turn order."""
    mapping = {c: players.index(c) for c in card if c in players}
    rest = [p for p in range(len(players)) if p not in mapping.values()]
    for colour in card:
        if colour not in mapping:
            mapping[colour] = rest.pop(0)
    return mapping
