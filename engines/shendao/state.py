"""A position of Shendao.

The board is a list of 64 ints, ``cell`` (the index of the player whose tile is on the
square, -1 when empty; ``a1`` = 0, ``h8`` = 63), and the 36 gates a list of ints,
``gate_open`` (1 open, 0 closed). Two counters kept in step by ``_set`` and
``_set_gate`` say at once whether anyone can play: ``usable`` (open gates whose entry
square is free) and ``enterable`` (gates, open or closed, whose entry square is free,
for the Brigand). ``undo`` puts the old squares and gate back through the same methods.

``apply`` is unchecked (for search); ``check`` says why a move is illegal; ``play``
(from ``GameState``) does both. The JSON document is described in docs/notation.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, cast

from engines.base import JSON, GameState
from engines.dice import Dice
from engines.errors import IllegalMoveError, RecordError
from engines.shendao.board import TILES
from engines.shendao.moves import (
    CARD_BIT,
    CARD_NAMES,
    CARDS,
    GATE_INDEX,
    GATES,
    SQUARE_INDEX,
    SQUARES,
    Enter,
    Move,
    Pass,
)

if TYPE_CHECKING:
    # The rules build states (``initial_state``); a state only reads its rules.
    from engines.shendao.rules import ShendaoRules

N_GATES = len(GATES)
BRIGAND, LOUNG, NUGUA, PRETRESSE, TIGRE, YINYANG = (CARD_BIT[c] for c in CARDS)
LEAVES = -1
"""``_stop`` of a tile that slides off the board."""
TIEBREAK = "starter-loses"
"""``tiebreak()`` when the largest groups are equal: the player who began loses."""

_PASS = Pass()
_KEYS = ("to_move", "tiles", "closed_gates", "supply", "cards")

# The most moves one open gate can offer with a hand of cards (bit mask): the plain
# entry, the Brigand, Loung's targets plus Nugua's squares (tiles and free squares of
# one line: at most 8 together, 7 tiles since the entry square is free), then one move
# each for the Prêtresse, Tigre Blanc and Yin-Yang. ``random_move`` draws below it.
_BOUND = tuple(
    1
    + bool(m & BRIGAND)
    + (8 if m & NUGUA else 7 if m & LOUNG else 0)
    + bool(m & PRETRESSE)
    + bool(m & TIGRE)
    + bool(m & YINYANG)
    for m in range(1 << len(CARDS))
)

# What ``apply`` returns: the saved scalars (player who moved, over, that player's
# cards, both supplies), the gate entered (-1: a pass) and whether it was open, and the
# changed squares with their old contents.
_Undo = tuple[tuple[int, bool, int, int, int], int, int, list[tuple[int, int]]]


class ShendaoState(GameState[Move]):
    """One position. Construct with ``rules.initial_state()`` or
    ``rules.state_from_json(...)``."""

    __slots__ = (
        "_to_move",
        "cards",
        "cell",
        "enterable",
        "gate_open",
        "over",
        "rules",
        "supply",
        "usable",
    )

    rules: ShendaoRules

    def __init__(self, rules: ShendaoRules) -> None:
        self.rules = rules
        self.cell = [-1] * 64
        self.gate_open = [1] * N_GATES
        self.supply = [TILES, TILES]
        self.cards = [rules.card_mask, rules.card_mask]  # unused cards, as bit masks
        self.usable = N_GATES  # open gates whose entry square is free
        self.enterable = N_GATES  # gates, open or closed, whose entry square is free
        self._to_move = 0
        self.over = False

    # ------------------------------------------------------------------ construction

    @classmethod
    def initial(cls, rules: ShendaoRules) -> ShendaoState:
        """The start of a game: an empty board, every gate open, every card in hand."""
        return cls(rules)

    def copy(self) -> Self:
        other = object.__new__(type(self))
        other.rules = self.rules
        other.cell = self.cell[:]
        other.gate_open = self.gate_open[:]
        other.supply = self.supply[:]
        other.cards = self.cards[:]
        other.usable = self.usable
        other.enterable = self.enterable
        other._to_move = self._to_move
        other.over = self.over
        return other

    # ------------------------------------------------------------------ bookkeeping

    def _set(self, s: int, player: int, changes: list[tuple[int, int]] | None) -> None:
        """Put ``player``'s tile on square ``s`` (-1: empty it), noting the old contents
        in ``changes`` when given. Supplies are the caller's business."""
        cell = self.cell
        old = cell[s]
        if changes is not None:
            changes.append((s, old))
        cell[s] = player
        if (old < 0) is not (player < 0):
            gates = self.rules.gates_at[s]
            if gates:
                d = 1 if player < 0 else -1
                self.enterable += d * len(gates)
                gate_open = self.gate_open
                for g in gates:
                    if gate_open[g]:
                        self.usable += d

    def _set_gate(self, g: int, is_open: int) -> None:
        if self.gate_open[g] != is_open:
            self.gate_open[g] = is_open
            if self.cell[self.rules.entry[g]] < 0:
                self.usable += 1 if is_open else -1

    def _can_play(self, p: int) -> bool:
        """Whether player ``p`` could enter a tile now (with the Brigand if need be)."""
        return self.supply[p] > 0 and (
            self.usable > 0 or (self.cards[p] & BRIGAND != 0 and self.enterable > 0)
        )

    # ------------------------------------------------------------------ sliding

    def _stop(self, g: int) -> int:
        """Where a tile entering through gate ``g`` without a card stops: its index on
        the gate's line, or ``LEAVES``. The entry square must be free."""
        rules = self.rules
        cell = self.cell
        line = rules.line[g]
        reach = rules.reach[g]
        for i in range(1, reach):
            if cell[line[i]] >= 0:
                return i - 1
        if rules.walled[g]:
            return reach - 1
        far = rules.far[g]
        if far >= 0 and not self.gate_open[far]:
            return reach - 1
        return LEAVES

    def _brigand_stop(self, g: int) -> int:
        """Where the Brigand's tile stops: against the first tile, passing closed gates
        (and the walls, with ``brigand_passes_walls``); or ``LEAVES``."""
        rules = self.rules
        cell = self.cell
        line = rules.line[g]
        reach = rules.brigand_reach[g]
        for i in range(1, reach):
            if cell[line[i]] >= 0:
                return i - 1
        return reach - 1 if reach < len(line) else LEAVES

    def _beyond(self, g: int, stop: int, card: str) -> int:
        """The tile that the Tigre Blanc or the Yin-Yang (``card``) reaches from index
        ``stop`` of gate ``g``'s line: the first tile past it, walls or not; or, with
        the card's ``*_across_wall`` option ``next-square``, only a tile on the very next
        square. Its square, or -1."""
        if stop == LEAVES:
            return -1
        cell = self.cell
        line = self.rules.line[g]
        rules = self.rules
        across = rules.tigre_across_wall if card == "tigre" else rules.yinyang_across_wall
        end = min(stop + 2, len(line)) if across == "next-square" else len(line)
        for i in range(stop + 1, end):
            if cell[line[i]] >= 0:
                return line[i]
        return -1

    def _card_acts(self, g: int, card: str, target: str | None) -> bool:
        """Whether ``card`` played through open gate ``g`` (entry square free) leaves the
        board otherwise than a plain entry through that gate would."""
        if card == "loung":
            return True  # it always removes a tile
        stop = self._stop(g)
        if card == "brigand":
            return self._brigand_stop(g) != stop
        if card == "nugua":
            return stop == LEAVES or SQUARE_INDEX[cast(str, target)] != self.rules.line[g][stop]
        if stop == LEAVES:
            return False
        p = self._to_move
        if card == "pretresse":
            return (
                stop + 1 < self.rules.reach[g] and self.cell[self.rules.line[g][stop + 1]] == 1 - p
            )
        beyond = self._beyond(g, stop, card)
        return beyond >= 0 and (card == "tigre" or self.cell[beyond] != p)

    def path(self, g: int) -> list[int]:
        """The squares a tile entering through gate ``g`` passes without a card, up to
        where it stops (the whole line if it leaves the board): the Main de Nugua's
        choice. Empty when the entry square is taken."""
        line = self.rules.line[g]
        if self.cell[line[0]] >= 0:
            return []
        stop = self._stop(g)
        return list(line if stop == LEAVES else line[: stop + 1])

    def line_tiles(self, g: int) -> list[int]:
        """The squares holding a tile on gate ``g``'s line, in sliding order: Loung's
        choice."""
        cell = self.cell
        return [s for s in self.rules.line[g] if cell[s] >= 0]

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int:
        return self._to_move

    def is_over(self) -> bool:
        return self.over

    def largest_groups(self) -> list[int]:
        """Per player, the number of tiles in their largest connected group."""
        cell = self.cell
        links = self.rules.links
        best = [0, 0]
        seen = [False] * 64
        for s in range(64):
            player = cell[s]
            if player < 0 or seen[s]:
                continue
            seen[s] = True
            stack = [s]
            size = 0
            while stack:
                x = stack.pop()
                size += 1
                for y in links[x]:
                    if not seen[y] and cell[y] == player:
                        seen[y] = True
                        stack.append(y)
            best[player] = max(best[player], size)
        return best

    def scores(self) -> list[int]:
        """Per player, the size of the largest connected group of their tiles."""
        return self.largest_groups()

    def tiebreak(self) -> JSON:
        """``"starter-loses"`` while the largest groups are equal (the player who began,
        ``players[0]``, loses the tie); otherwise ``None``."""
        light, dark = self.largest_groups()
        return TIEBREAK if light == dark else None

    def winners(self) -> list[int]:
        """The player with the larger largest group; on a tie, the player who did not
        begin."""
        first, second = self.largest_groups()
        return [0] if first > second else [1]

    def cards_left(self, player: int) -> list[str]:
        """The cards ``player`` has not used yet, in ``CARDS`` order."""
        return [c for c in CARDS if self.cards[player] & CARD_BIT[c]]

    def tiles_on_board(self, player: int) -> int:
        return self.cell.count(player)

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self) -> list[Move]:
        """By gate in ``GATES`` order: the plain entry, then the Brigand, Loung's targets
        and Nugua's squares (in line order), the Prêtresse, Tigre Blanc, Yin-Yang; the
        Brigand alone through a closed gate. ``pass`` when no tile can enter."""
        if self.over:
            return []
        p = self._to_move
        if not self._can_play(p):
            return [_PASS]
        rules = self.rules
        cell, gate_open, entry = self.cell, self.gate_open, rules.entry
        cards = self.cards[p]
        brigand = rules.with_card["brigand"]
        out: list[Move] = []
        for g in range(N_GATES):
            if cell[entry[g]] >= 0:
                continue
            if not gate_open[g]:
                if cards & BRIGAND:
                    out.append(brigand[g])
                continue
            out.append(rules.plain[g])
            if cards:
                out.extend(self._card_moves(g, p, cards))
        return out

    def _card_moves(self, g: int, p: int, cards: int) -> list[Move]:
        """The moves with a card through open gate ``g`` (entry square free)."""
        rules = self.rules
        with_card = rules.with_card
        idle = not rules.refuse_idle_cards  # a card without effect is legal
        out: list[Move] = []
        if cards & BRIGAND and (idle or self._card_acts(g, "brigand", None)):
            out.append(with_card["brigand"][g])
        if cards & (LOUNG | NUGUA):
            cell = self.cell
            line = rules.line[g]
            if cards & LOUNG:
                loung = rules.loung[g]
                out.extend(loung[i] for i in range(1, len(line)) if cell[line[i]] >= 0)
            if cards & NUGUA:
                out.extend(rules.nugua[g][: self._nugua_count(g)])
        if (
            cards & PRETRESSE
            and self.supply[p] >= 2
            and (idle or self._card_acts(g, "pretresse", None))
        ):
            out.append(with_card["pretresse"][g])
        if cards & TIGRE and (idle or self._card_acts(g, "tigre", None)):
            out.append(with_card["tigre"][g])
        if cards & YINYANG and (idle or self._card_acts(g, "yinyang", None)):
            out.append(with_card["yinyang"][g])
        return out

    def _nugua_count(self, g: int) -> int:
        """How many of ``rules.nugua[g]`` (in line order) are legal: the squares of the
        way, less the square a plain entry stops on when cards without effect are
        refused."""
        stop = self._stop(g)
        if stop == LEAVES:
            return len(self.rules.line[g])
        return stop if self.rules.refuse_idle_cards else stop + 1

    def _gate_move(self, g: int, k: int) -> Move | None:
        """The ``k``-th legal move through gate ``g`` in ``legal_moves`` order, or None
        when the gate offers ``k`` moves or fewer. Assumes the player to move can play."""
        rules = self.rules
        if self.cell[rules.entry[g]] >= 0:
            return None
        p = self._to_move
        cards = self.cards[p]
        if not self.gate_open[g]:
            return rules.with_card["brigand"][g] if k == 0 and cards & BRIGAND else None
        if k == 0:
            return rules.plain[g]
        k -= 1
        idle = not rules.refuse_idle_cards
        if cards & BRIGAND and (idle or self._card_acts(g, "brigand", None)):
            if k == 0:
                return rules.with_card["brigand"][g]
            k -= 1
        if cards & (LOUNG | NUGUA):
            cell = self.cell
            line = rules.line[g]
            if cards & LOUNG:
                for i in range(1, len(line)):
                    if cell[line[i]] >= 0:
                        if k == 0:
                            return rules.loung[g][i]
                        k -= 1
            if cards & NUGUA:
                n = self._nugua_count(g)
                if k < n:
                    return rules.nugua[g][k]
                k -= n
        if (
            cards & PRETRESSE
            and self.supply[p] >= 2
            and (idle or self._card_acts(g, "pretresse", None))
        ):
            if k == 0:
                return rules.with_card["pretresse"][g]
            k -= 1
        if cards & TIGRE and (idle or self._card_acts(g, "tigre", None)):
            if k == 0:
                return rules.with_card["tigre"][g]
            k -= 1
        if cards & YINYANG and k == 0 and (idle or self._card_acts(g, "yinyang", None)):
            return rules.with_card["yinyang"][g]
        return None

    def random_move(self, dice: Dice) -> Move:
        """A move drawn uniformly from ``legal_moves()``, without listing them: draw a
        gate and a rank below a bound on the moves any gate offers, until the rank names
        a legal move (rejection keeps the draw uniform). Without cards the moves are one
        per usable gate: draw a gate, or count to one when few are left. Raises
        ``IndexError`` when the game is over."""
        if self.over:
            raise IndexError("choice from an empty sequence: the game is over")
        if not self._can_play(self._to_move):
            return _PASS
        cards = self.cards[self._to_move]
        rules = self.rules
        cell, gate_open, entry, plain = self.cell, self.gate_open, rules.entry, rules.plain
        random = dice.random
        if not cards:  # the plain entries through usable gates, and nothing else
            if self.usable * 4 < N_GATES:  # few left: count to one rather than retry
                k = int(random() * self.usable)
                for g in range(N_GATES):
                    if gate_open[g] and cell[entry[g]] < 0:
                        if k == 0:
                            return plain[g]
                        k -= 1
            while True:
                g = int(random() * N_GATES)
                if gate_open[g] and cell[entry[g]] < 0:
                    return plain[g]
        bound = _BOUND[cards]
        span = N_GATES * bound
        brigand = rules.with_card["brigand"] if cards & BRIGAND else None
        while True:
            g, k = divmod(int(random() * span), bound)
            if cell[entry[g]] >= 0:
                continue
            if not gate_open[g]:
                if k == 0 and brigand is not None:
                    return brigand[g]
                continue
            if k == 0:
                return plain[g]
            move = self._gate_move(g, k)
            if move is not None:
                return move

    # ------------------------------------------------------------------ apply / undo

    def apply(self, move: Move) -> object:
        """Play a legal move without checking it. Returns the token for ``undo``."""
        p = self._to_move
        supply = self.supply
        saved = (p, self.over, self.cards[p], supply[0], supply[1])
        if move.__class__ is Pass:
            self._to_move = 1 - p
            return (saved, -1, 0, [])
        move = cast(Enter, move)
        g = GATE_INDEX[move.gate]
        was_open = self.gate_open[g]
        changes: list[tuple[int, int]] = []
        card = move.card
        line = self.rules.line[g]
        if card is None:
            stop = self._stop(g)
            if stop != LEAVES:
                self._set(line[stop], p, changes)
                supply[p] -= 1
        else:
            self.cards[p] &= ~CARD_BIT[card]
            self._apply_card(g, card, move.target, p, changes)
        if was_open:
            self._set_gate(g, 0)
        q = 1 - p
        self._to_move = q
        # Usually a gate is usable and both have tiles: skip the full test.
        if (not self.usable or not (supply[0] and supply[1])) and not (
            self._can_play(q) or self._can_play(p)
        ):
            self.over = True
        return (saved, g, was_open, changes)

    def _apply_card(
        self, g: int, card: str, target: str | None, p: int, changes: list[tuple[int, int]]
    ) -> None:
        line = self.rules.line[g]
        supply = self.supply
        if card == "nugua":
            self._set(SQUARE_INDEX[cast(str, target)], p, changes)
            supply[p] -= 1
            return
        stop = self._brigand_stop(g) if card == "brigand" else self._stop(g)
        if stop == LEAVES:
            return  # the tile slid off the board, back to its owner; the card is spent
        here = line[stop]
        beyond = self._beyond(g, stop, card) if card in ("tigre", "yinyang") else -1
        self._set(here, p, changes)
        supply[p] -= 1
        if card == "loung":
            self._set(SQUARE_INDEX[cast(str, target)], -1, changes)
        elif card == "pretresse":
            if stop + 1 < self.rules.reach[g]:  # a tile stopped it, not a wall or gate
                stopper = line[stop + 1]
                if self.cell[stopper] == 1 - p:
                    self._set(stopper, p, changes)
                    supply[p] -= 1
        elif card == "tigre":
            if beyond >= 0:
                self._set(beyond, -1, changes)
        elif card == "yinyang" and beyond >= 0:
            other = self.cell[beyond]
            if other != p:
                self._set(here, other, changes)
                self._set(beyond, p, changes)

    def undo(self, token: object) -> None:
        saved, g, was_open, changes = cast(_Undo, token)
        for s, old in reversed(changes):
            self._set(s, old, None)
        if g >= 0 and was_open:
            self._set_gate(g, 1)
        p = saved[0]
        self._to_move = p
        self.over = saved[1]
        self.cards[p] = saved[2]
        self.supply[0] = saved[3]
        self.supply[1] = saved[4]

    # ------------------------------------------------------------------ checking

    def check(self, move: Move) -> None:
        """Raise ``IllegalMoveError`` if ``move`` is illegal; say which rule and why."""
        if self.over:
            raise IllegalMoveError(
                "game.over", "The game is over: neither player can enter a tile."
            )
        p = self._to_move
        if type(move) is Pass:
            if self._can_play(p):
                example = self.rules.format_move(self.legal_moves()[0])
                raise IllegalMoveError(
                    "pass.can-enter",
                    f"{self._who()} cannot pass: a tile can still enter (for example "
                    f"{example}). A player passes only when no tile can enter.",
                )
            return
        if type(move) is not Enter:
            raise TypeError(f"not a Shendao move: {move!r}")
        card = move.card
        if card is not None:
            self._check_card(card)
        if self.supply[p] == 0:
            raise IllegalMoveError(
                "supply.empty", f"{self._who()} has no tile left to enter and must pass."
            )
        rules = self.rules
        g = GATE_INDEX[move.gate]
        if not self.gate_open[g] and card != "brigand":
            hint = (
                " or play the Brigand to enter through a closed one"
                if self.cards[p] & BRIGAND
                else ""
            )
            raise IllegalMoveError(
                "gate.closed",
                f"Gate {move.gate} is closed: a tile enters only through an open gate. "
                f"Choose an open gate{hint}.",
            )
        entry = rules.entry[g]
        if self.cell[entry] >= 0:
            raise IllegalMoveError(
                "gate.blocked",
                f"No tile can enter through gate {move.gate}: {SQUARES[entry]}, just inside "
                f"it, holds a {self.rules.players[self.cell[entry]]} tile. Choose another "
                "gate.",
            )
        if card == "loung":
            self._check_loung(g, cast(str, move.target))
        elif card == "nugua":
            self._check_nugua(g, cast(str, move.target))
        elif card == "pretresse" and self.supply[p] < 2:
            raise IllegalMoveError(
                "pretresse.no-tile",
                f"{self._who()} has only one tile left: the {CARD_NAMES[card]} needs a "
                "second one to replace the tile it takes. Play another card or none.",
            )
        if (
            card is not None
            and self.gate_open[g]
            and rules.refuse_idle_cards
            and not self._card_acts(g, card, move.target)
        ):
            raise IllegalMoveError(
                "card.no-effect",
                f"The {CARD_NAMES[card]} would change nothing through gate {move.gate}: "
                "the board would be the same as after a plain entry, and with the option "
                "card_without_effect = refused a card is played only where it acts. Enter "
                "the tile without it, or play it elsewhere.",
            )

    def _check_card(self, card: str) -> None:
        rules = self.rules
        name = CARD_NAMES[card]
        if card not in rules.cards:
            held = ", ".join(CARD_NAMES[c] for c in rules.cards) or "no cards"
            raise IllegalMoveError(
                "card.not-in-variant",
                f"The {name} is not played in the {rules.variant} variant ({held}). "
                "Enter the tile without it.",
            )
        if not self.cards[self._to_move] & CARD_BIT[card]:
            left = ", ".join(CARD_NAMES[c] for c in self.cards_left(self._to_move))
            raise IllegalMoveError(
                "card.used",
                f"{self._who()} has already used the {name}: each card is played once. "
                + (
                    f"Cards left: {left}."
                    if left
                    else "No cards are left: enter the tile without one."
                ),
            )

    def _check_loung(self, g: int, target: str) -> None:
        line = self.rules.line[g]
        s = SQUARE_INDEX[target]
        gate = GATES[g]
        if s not in line:
            raise IllegalMoveError(
                "loung.not-on-line",
                f"{target} is not on the line behind gate {gate} "
                f"({SQUARES[line[0]]}-{SQUARES[line[-1]]}): Loung removes a tile on the "
                f"line the tile entered by. {self._loung_choice(g)}",
            )
        if self.cell[s] < 0:
            raise IllegalMoveError(
                "loung.no-tile",
                f"There is no tile on {target} for Loung to remove. {self._loung_choice(g)}",
            )

    def _loung_choice(self, g: int) -> str:
        tiles = self.line_tiles(g)
        if not tiles:
            return f"The line behind gate {GATES[g]} holds no tile: play Loung elsewhere."
        return "Choose one of " + " ".join(SQUARES[s] for s in tiles) + "."

    def _check_nugua(self, g: int, target: str) -> None:
        path = self.path(g)
        if SQUARE_INDEX[target] not in path:
            raise IllegalMoveError(
                "nugua.not-on-path",
                f"A tile entering through gate {GATES[g]} cannot stop on {target}: with the "
                "Main de Nugua it stops on a free square of the way it slides, one of "
                + " ".join(SQUARES[s] for s in path)
                + ".",
            )

    def _who(self, player: int | None = None) -> str:
        return self.rules.player_name(self._to_move if player is None else player)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, JSON]:
        """The state document (docs/notation.md, "Shendao positions")."""
        players = self.rules.players
        return {
            "to_move": self._to_move,
            "tiles": {
                name: [SQUARES[s] for s in range(64) if self.cell[s] == p]
                for p, name in enumerate(players)
            },
            "closed_gates": [GATES[g] for g in range(N_GATES) if not self.gate_open[g]],
            "supply": {name: self.supply[p] for p, name in enumerate(players)},
            "cards": {name: self.cards_left(p) for p, name in enumerate(players)},
        }

    @classmethod
    def from_json(cls, rules: ShendaoRules, data: JSON) -> ShendaoState:
        """Read a state document; keys left out take their values at the start of a
        game (the supply: 30 less the tiles on the board). Raises ``RecordError`` if it
        is malformed or inconsistent with the rules."""
        try:
            return cls._from_json(rules, data)
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordError(f"malformed Shendao position: {error!r}") from None

    @classmethod
    def _from_json(cls, rules: ShendaoRules, data: Any) -> ShendaoState:
        if not isinstance(data, Mapping):
            raise RecordError("a Shendao position must be a JSON object")
        unknown = set(data) - set(_KEYS)
        if unknown:
            raise RecordError(
                f"unknown keys in the position: {sorted(unknown)}; known: {', '.join(_KEYS)}"
            )
        state = cls(rules)
        players = rules.players
        to_move = data.get("to_move", 0)
        if type(to_move) is not int or to_move not in (0, 1):
            raise RecordError('"to_move" must be a player index, 0 or 1')
        state._to_move = to_move
        tiles = _per_player(data.get("tiles", {}), players, "tiles")
        for name, squares in tiles.items():
            if not isinstance(squares, list):
                raise RecordError(f'"tiles" of {name} must be a list of squares')
            for square in squares:
                if square not in SQUARE_INDEX:
                    raise RecordError(f"unknown square {square!r} in the tiles of {name}")
                s = SQUARE_INDEX[square]
                if state.cell[s] >= 0:
                    raise RecordError(f"square {square} holds two tiles")
                state._set(s, players.index(name), None)
        closed = data.get("closed_gates", [])
        if not isinstance(closed, list):
            raise RecordError('"closed_gates" must be a list of gate names')
        for gate in closed:
            if gate not in GATE_INDEX:
                raise RecordError(f'unknown gate {gate!r} in "closed_gates"')
            if not state.gate_open[GATE_INDEX[gate]]:
                raise RecordError(f'gate {gate} listed twice in "closed_gates"')
            state._set_gate(GATE_INDEX[gate], 0)
        supply = _per_player(data.get("supply", {}), players, "supply")
        for p, name in enumerate(players):
            on_board = state.tiles_on_board(p)
            count = supply.get(name, TILES - on_board)
            if type(count) is not int or count < 0 or count + on_board > TILES:
                raise RecordError(
                    f"the supply of {name} must be a count from 0 to {TILES - on_board} "
                    f"({TILES} tiles, {on_board} on the board), not {count!r}"
                )
            state.supply[p] = count
        cards = _per_player(data.get("cards", {}), players, "cards")
        for p, name in enumerate(players):
            held = cards.get(name, list(rules.cards))
            if not isinstance(held, list):
                raise RecordError(f'"cards" of {name} must be a list of card names')
            mask = 0
            for card in held:
                if card not in rules.cards:
                    raise RecordError(
                        f"{name} cannot hold {card!r}: the cards of the {rules.variant} "
                        f"variant are {', '.join(rules.cards) or 'none'}"
                    )
                if mask & CARD_BIT[card]:
                    raise RecordError(f"{name} holds {card} twice")
                mask |= CARD_BIT[card]
            state.cards[p] = mask
        state.over = not state._can_play(0) and not state._can_play(1)
        return state

    # ------------------------------------------------------------------ text

    def describe(self) -> str:
        """The board with its gates and walls, then each player's supply and cards."""
        rules = self.rules
        board = rules.board
        symbol = {-1: ".", 0: rules.players[0][0].upper(), 1: rules.players[1][0].upper()}

        def gate(name: str) -> str:
            return "+" if self.gate_open[GATE_INDEX[name]] else "#"

        files = "      " + " ".join("abcdefgh")
        lines = [
            files,
            f"   {gate('NW')}  " + " ".join(gate("N" + f) for f in "abcdefgh") + f"  {gate('NE')}",
        ]
        for r in range(7, -1, -1):
            row = ""
            for f in range(8):
                s = f + 8 * r
                row += symbol[self.cell[s]]
                if f < 7:
                    row += "|" if (s, s + 1) in board.wall_edges else " "
            lines.append(f"{r + 1:>2} {gate(f'W{r + 1}')}  {row}  {gate(f'E{r + 1}')} {r + 1}")
            if r > 0:
                under = ""
                for f in range(8):
                    s = f + 8 * (r - 1)
                    under += "-" if (s, s + 8) in board.wall_edges else " "
                    if f < 7:
                        under += "+" if s in board.wall_points else " "
                if under.strip():
                    lines.append(("      " + under).rstrip())
        lines.append(
            f"   {gate('SW')}  " + " ".join(gate("S" + f) for f in "abcdefgh") + f"  {gate('SE')}"
        )
        lines.append(files)
        status = "game over" if self.over else f"{rules.players[self._to_move]} to move"
        lines.append(f"{status} · gates: + open, # closed; walls: | - +")
        groups = self.largest_groups()
        for p, name in enumerate(rules.players):
            cards = " ".join(self.cards_left(p)) or "none"
            lines.append(
                f"{name:<5} ({symbol[p]}) largest group {groups[p]:>2}  supply "
                f"{self.supply[p]:>2}  cards {cards}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ShendaoState {self.to_json()!r}>"


def _per_player(value: Any, players: tuple[str, ...], key: str) -> dict[str, Any]:
    """A ``{player: ...}`` object of the state document, checked for unknown players."""
    if not isinstance(value, Mapping):
        raise RecordError(f'"{key}" must be an object keyed by player (light, dark)')
    for name in value:
        if name not in players:
            raise RecordError(f'"{key}" names {name!r}, not a player of this game')
    return dict(value)
