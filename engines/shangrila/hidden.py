"""What a Shangri-La table hides, village by village: which masters carry a student.

A camera straight above sees a master and a master with its student alike (one tile
from above), so a recruit leaves no trace it can see. The referee then keeps, for
each village, the few ways its masters may carry students (``engines.table_model
.HiddenParts``): the villages are the parts, a part's hidden content the spaces whose
master has a student.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from engines.shangrila.moves import LETTERS, Journey, Move, Pass, Place, Recruit
from engines.shangrila.rules import TILES_PER_DISCIPLINE
from engines.shangrila.state import ND, NV, ShangrilaState
from engines.table_model import HiddenParts

HEIGHTS = tuple(f"{s // ND}{LETTERS[s % ND]}^" for s in range(NV * ND))
"""The stack height element of each space."""
SPACES = tuple(tuple(v * ND + d for d in range(ND)) for v in range(NV))
"""The spaces of each village."""


def village_of(element: str) -> int | None:
    """The village an element of the table belongs to (``4H^`` -> 4); None for a
    bridge (it joins two) or a name that is no space."""
    if element.startswith("stone "):
        return int(element[6:])
    if element.startswith("bridge "):
        return None
    name = element.rstrip("^")
    return int(name[:-1]) if name[:-1].isdigit() else None


class ShangrilaHidden(HiddenParts[ShangrilaState, Move]):
    """Shangri-La's students, kept village by village (see the module docstring)."""

    most = 2

    unseen_words = "a student onto a master in"

    def looks_alike(self, state: ShangrilaState, other: ShangrilaState) -> bool:
        """The same masters, stones and bridges, and the same player to move: the
        students may differ (so may the supply they come from)."""
        return (
            state.owner == other.owner
            and state.stones == other.stones
            and state.bridges == other.bridges
            and state.to_move == other.to_move
        )

    def items(self, state: ShangrilaState, part: int) -> frozenset[int]:
        owner = state.owner
        return frozenset(s for s in SPACES[part] if owner[s] >= 0)

    def leaving(self, state: ShangrilaState, part: int) -> list[Move]:
        bridges = state.bridges
        return [Journey(part, w) for e, w in state.rules.links[part] if bridges[e]]

    def parts(self, state: ShangrilaState) -> Sequence[int]:
        return range(NV)

    def unseen_choice(self, state: ShangrilaState, moves: Sequence[Move]) -> bool:
        """Recruits of one or two students that the table cannot tell apart, under the
        default rule (one or two students each time): every village's students are
        free of the others' but for how many each recruit put, and how many tiles of
        a discipline a player has (``limits``)."""
        if state.rules.recruit != "one-or-two" or len(moves) < 2:
            return False
        return all(type(m) is Recruit for m in moves)

    def limits(self, state: ShangrilaState, kept: Collection[int]) -> dict[int, int]:
        """A player's tiles of one discipline are six (key: player * 7 +
        discipline): less their masters and the students outside the ``kept``
        villages, those the ``kept`` villages' masters could outnumber."""
        n = state.rules.n_players
        used = [0] * (n * ND)
        inside = [0] * (n * ND)
        for s, p in enumerate(state.owner):
            if p >= 0:
                key = p * ND + s % ND
                used[key] += 1
                if s // ND in kept:
                    inside[key] += 1
                else:
                    used[key] += state.student[s]
        return {
            key: TILES_PER_DISCIPLINE - u
            for key, u in enumerate(used)
            if inside[key] > TILES_PER_DISCIPLINE - u
        }

    def tally(self, state: ShangrilaState, content: frozenset[int]) -> dict[int, int]:
        owner = state.owner
        out: dict[int, int] = {}
        for s in content:
            key = owner[s] * ND + s % ND
            out[key] = out.get(key, 0) + 1
        return out

    def spread(self, move: Move) -> dict[int, frozenset[int]]:
        if type(move) is not Recruit:
            return {}
        out: dict[int, set[int]] = {}
        for v, d in move.targets:
            out.setdefault(v, set()).add(v * ND + d)
        return {v: frozenset(spaces) for v, spaces in out.items()}

    def free(
        self, state: ShangrilaState, part: int, content: frozenset[int], player: int
    ) -> list[int]:
        if state.stones[part]:
            return []
        owner = state.owner
        return [s for s in SPACES[part] if owner[s] == player and s not in content]

    def content(self, state: ShangrilaState, part: int) -> frozenset[int]:
        student = state.student
        return frozenset(s for s in SPACES[part] if student[s])

    def with_content(
        self, state: ShangrilaState, contents: Mapping[int, frozenset[int]]
    ) -> ShangrilaState:
        world = state.copy()
        owner, student = world.owner, world.student
        for part, content in contents.items():
            for s in SPACES[part]:
                want = int(s in content)
                if owner[s] >= 0 and student[s] != want:
                    world._set(s, owner[s], want)
        return world

    def read_by(self, state: ShangrilaState, move: Move) -> frozenset[int] | None:
        """A journey reads and changes the students of both its villages; a recruit
        seen needs its masters free; a pass needs the player to have nothing to do
        anywhere (None: every village); a placement needs nothing hidden."""
        if type(move) is Journey:
            return frozenset((move.origin, move.destination))
        if type(move) is Recruit:
            return frozenset(v for v, _ in move.targets)
        if type(move) is Pass:
            return None
        assert type(move) is Place
        return frozenset()

    def parts_of(self, element: str) -> frozenset[int]:
        if element.startswith("bridge "):
            a, b = element[7:].split("-")
            return frozenset((int(a), int(b)))
        village = village_of(element)
        return frozenset() if village is None else frozenset((village,))

    def shows(self, state: ShangrilaState, part: int, content: frozenset[int]) -> dict[str, Any]:
        owner = state.owner
        return {HEIGHTS[s]: 1 + (s in content) for s in SPACES[part] if owner[s] >= 0}

    def part_of_item(self, item: int) -> int:
        return item // ND

    def unseen_move(self, items: frozenset[int]) -> Move:
        return Recruit(tuple(divmod(s, ND) for s in sorted(items)))

    def label(self, part: int) -> str:
        return f"village {part}"


HIDDEN = ShangrilaHidden()
"""Shangri-La's hidden parts (``TableModel.hidden_parts``)."""
