"""The rules object of Shendao: players and options (RULINGS 2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

from engines.base import JSON, Rules
from engines.errors import RecordError
from engines.shendao import moves
from engines.shendao.board import TILES as TILES
from engines.shendao.board import Board, load_board
from engines.shendao.moves import CARD_BIT, CARDS, GATES, SQUARES, Enter
from engines.shendao.state import ShendaoState

PLAYERS = ("light", "dark")
"""The two players, named after their tiles; the first in a record begins."""

VARIANTS: dict[str, tuple[str, ...]] = {
    "tigre-blanc": CARDS,
    "tigre": ("nugua", "tigre", "yinyang"),
    "chaton": (),
}
"""The cards of each variant (the rule book's "Variantes")."""

OPTIONS: dict[str, tuple[Any, ...]] = {
    # name: (default, other allowed values...)
    "variant": ("tigre-blanc", "tigre", "chaton"),
    "walls_cut_connections": (False, True),
    "brigand_passes_walls": (True, False),
    "card_without_effect": ("spent", "refused"),
    "tigre_across_wall": ("first-tile", "next-square"),
    "yinyang_across_wall": ("first-tile", "next-square"),
}
"""Each option's allowed values, the default first."""


class ShendaoRules(Rules[moves.Move, ShendaoState]):
    """Players (``light`` and ``dark``, in turn order) and the options of RULINGS 2.

    Options:
      * ``variant`` — ``tigre-blanc`` (default): all six cards; ``tigre``: Tigre Blanc,
        Main de Nugua and Yin-Yang only; ``chaton``: no cards.
      * ``walls_cut_connections`` — ``false`` (default): two tiles side by side are
        connected even with a central wall between them; ``true``: a wall cuts them.
        The board's corner connections hold either way.
      * ``brigand_passes_walls`` — ``true`` (default): the Brigand's tile passes the
        central walls as it passes closed gates (the rule book calls the walls gates
        that are always closed); ``false``: the walls stop it as they stop any tile.
      * ``card_without_effect`` — ``spent`` (default): a card that changes nothing a
        plain entry through the same gate would not (a Tigre Blanc with nothing to
        destroy, ...) is still legal and spent (the rule book is silent); ``refused``:
        such a move is illegal.
      * ``tigre_across_wall`` / ``yinyang_across_wall`` — when a central wall stops the
        tile: ``first-tile`` (default) reaches the first tile past the wall on the line,
        even past empty squares; ``next-square``: only a tile on the square right past
        the wall.

    Besides the options, the rules hold tables worked out once from the board for the
    state's fast paths: each gate's line and reach, and the moves, built once and shared.
    """

    game = "shendao"
    min_players = 2
    max_players = 2

    def __init__(
        self,
        players: Sequence[str] = PLAYERS,
        *,
        variant: str = "tigre-blanc",
        walls_cut_connections: bool = False,
        brigand_passes_walls: bool = True,
        card_without_effect: str = "spent",
        tigre_across_wall: str = "first-tile",
        yinyang_across_wall: str = "first-tile",
        board: Board | None = None,
    ) -> None:
        super().__init__(players)
        self.check_player_count()
        for player in self.players:
            if player not in PLAYERS:
                raise RecordError(
                    f"unknown player {player!r}: Shendao players are light and dark, "
                    "named after their tiles (the first one begins)"
                )
        values = {
            "variant": variant,
            "walls_cut_connections": walls_cut_connections,
            "brigand_passes_walls": brigand_passes_walls,
            "card_without_effect": card_without_effect,
            "tigre_across_wall": tigre_across_wall,
            "yinyang_across_wall": yinyang_across_wall,
        }
        for name, value in values.items():
            allowed_values = OPTIONS[name]
            if value not in allowed_values or type(value) is not type(allowed_values[0]):
                allowed = " or ".join(_spell(v) for v in allowed_values)
                raise RecordError(f"option {name!r} must be {allowed}, not {_spell(value)}")
        self.variant: str = variant
        self.walls_cut_connections: bool = walls_cut_connections
        self.brigand_passes_walls: bool = brigand_passes_walls
        self.card_without_effect: str = card_without_effect
        self.tigre_across_wall: str = tigre_across_wall
        self.yinyang_across_wall: str = yinyang_across_wall
        self.refuse_idle_cards: bool = card_without_effect == "refused"
        self.board = board if board is not None else _default_board()
        self.cards: tuple[str, ...] = VARIANTS[variant]
        self.card_mask: int = sum(CARD_BIT[c] for c in self.cards)

        # Per gate: entry square, line, reach without a card and with the Brigand, far gate.
        gates = self.board.gates
        self.entry: tuple[int, ...] = tuple(g.entry for g in gates)
        self.line: tuple[tuple[int, ...], ...] = tuple(g.line for g in gates)
        self.reach: tuple[int, ...] = tuple(g.reach for g in gates)
        self.walled: tuple[bool, ...] = tuple(g.walled for g in gates)
        self.far: tuple[int, ...] = tuple(-1 if g.far is None else g.far for g in gates)
        self.brigand_reach: tuple[int, ...] = tuple(
            len(g.line) if brigand_passes_walls else g.reach for g in gates
        )
        self.gates_at: tuple[tuple[int, ...], ...] = tuple(
            self.board.gates_at(s) for s in range(64)
        )
        self.links = self.board.connections(walls_cut_connections)

        # Every move, built once: ``plain[g]``, ``with_card[card][g]`` and, for the two
        # cards with a square, one move per square of the gate's line, in line order.
        self.plain: tuple[Enter, ...] = tuple(Enter(name) for name in GATES)
        self.with_card: dict[str, tuple[Enter, ...]] = {
            card: tuple(Enter(name, card) for name in GATES)
            for card in ("brigand", "pretresse", "tigre", "yinyang")
        }
        self.loung: tuple[tuple[Enter, ...], ...] = tuple(
            tuple(Enter(name, "loung", SQUARES[s]) for s in line)
            for name, line in zip(GATES, self.line, strict=True)
        )
        self.nugua: tuple[tuple[Enter, ...], ...] = tuple(
            tuple(Enter(name, "nugua", SQUARES[s]) for s in line)
            for name, line in zip(GATES, self.line, strict=True)
        )

    @classmethod
    def from_record(cls, players: Sequence[str], options: Mapping[str, JSON]) -> Self:
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise RecordError(
                f"unknown Shendao options {sorted(unknown)}; known: {', '.join(OPTIONS)}"
            )
        return cls(players, **dict(options))

    @classmethod
    def default_players(cls, n: int) -> list[str]:
        if n != 2:
            raise RecordError(f"Shendao is played by 2 players, not {n}")
        return list(PLAYERS)

    def options_json(self) -> dict[str, JSON]:
        return {
            "variant": self.variant,
            "walls_cut_connections": self.walls_cut_connections,
            "brigand_passes_walls": self.brigand_passes_walls,
            "card_without_effect": self.card_without_effect,
            "tigre_across_wall": self.tigre_across_wall,
            "yinyang_across_wall": self.yinyang_across_wall,
        }

    def initial_state(self) -> ShendaoState:
        return ShendaoState.initial(self)

    def state_from_json(self, data: JSON) -> ShendaoState:
        return ShendaoState.from_json(self, data)

    def parse_move(self, text: str) -> moves.Move:
        return moves.parse_move(text)

    def format_move(self, move: moves.Move) -> str:
        return moves.format_move(move)

    def player_name(self, player: int) -> str:
        """``"Light"``: the player as a sentence starts it."""
        return self.players[player].capitalize()


def _spell(value: object) -> str:
    """A value as a record spells it (``true``, ``"tigre"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


_BOARD: Board | None = None


def _default_board() -> Board:
    global _BOARD
    if _BOARD is None:
        _BOARD = load_board()
    return _BOARD
