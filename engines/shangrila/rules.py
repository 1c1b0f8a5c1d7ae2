"""The rules object of The Bridges of Shangri-La: players and options (RULINGS 1.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

from engines.base import JSON, Rules
from engines.errors import RecordError
from engines.shangrila import moves
from engines.shangrila.board import COLOURS, Board, load_board
from engines.shangrila.board import N_DISCIPLINES as N_DISCIPLINES
from engines.shangrila.board import TILES_PER_DISCIPLINE as TILES_PER_DISCIPLINE
from engines.shangrila.state import ShangrilaState

OPTIONS: dict[str, tuple[Any, ...]] = {
    # name: (default, other allowed values...)
    "stones": (11, 12),
    "tie_break": ("destination", "origin"),
    "recruit": ("one-or-two", "one-when-forced"),
    "setup": ("free", "suggested"),
}
"""Each option's allowed values, the default first."""


class ShangrilaRules(Rules[moves.Move, ShangrilaState]):
    """Players (colours, in turn order) and the options of RULINGS 1.3.

    Options:
      * ``stones`` — 11 (default): the game ends when the 11th stone is placed; or 12.
      * ``tie_break`` — when two villages have as many tiles and as many masters, the
        ``destination`` (default) or the ``origin`` is the stronger.
      * ``recruit`` — ``one-or-two`` (default): a recruit puts one or two students;
        ``one-when-forced``: one student only when a second is impossible.
      * ``setup`` — ``free`` (default): players place their seven masters in turn;
        ``suggested``: the printed 3-player starting position (RULINGS 1.4).
    """

    game = "shangrila"
    min_players = 3
    max_players = 4

    def __init__(
        self,
        players: Sequence[str] = ("red", "blue", "yellow", "violet"),
        *,
        stones: int = 11,
        tie_break: str = "destination",
        recruit: str = "one-or-two",
        setup: str = "free",
        board: Board | None = None,
    ) -> None:
        super().__init__(players)
        self.check_player_count()
        for player in self.players:
            if player not in COLOURS:
                raise RecordError(
                    f"unknown colour {player!r}: Shangri-La players are {', '.join(COLOURS)}"
                )
        values = {"stones": stones, "tie_break": tie_break, "recruit": recruit, "setup": setup}
        for name, value in values.items():
            if value not in OPTIONS[name] or isinstance(value, bool):
                allowed = " or ".join(repr(v) for v in OPTIONS[name])
                raise RecordError(f"option {name!r} must be {allowed}, not {value!r}")
        self.stones: int = stones
        self.tie_break: str = tie_break
        self.recruit: str = recruit
        self.setup: str = setup
        self.board = board if board is not None else _default_board()
        if setup == "suggested" and self.n_players not in self.board.suggested:
            raise RecordError(
                f"there is no suggested starting position for {self.n_players} players "
                '(the 4-player card could not be recovered); use "setup": "free"'
            )

        n = self.n_players
        red = self.board.red_village
        self.in_play: tuple[bool, ...] = tuple(not (n == 3 and v.red) for v in self.board.villages)
        # Bridges in play, with each village's (bridge, neighbour) pairs.
        self.bridges: tuple[tuple[int, int], ...] = tuple(
            (a, b) for a, b in self.board.bridges if n == 4 or red not in (a, b)
        )
        links: list[list[tuple[int, int]]] = [[] for _ in self.board.villages]
        for e, (a, b) in enumerate(self.bridges):
            links[a].append((e, b))
            links[b].append((e, a))
        self.links: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(sorted(pairs, key=lambda pair: pair[1])) for pairs in links
        )
        # Placement phase limits (RULINGS 1.3): per colour and per village.
        self.setup_colour_limit = 2 if n == 4 else 1
        self.setup_village_limit = 3 if n == 4 else 2

    @classmethod
    def from_record(cls, players: Sequence[str], options: Mapping[str, JSON]) -> Self:
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise RecordError(
                f"unknown Shangri-La options {sorted(unknown)}; known: {', '.join(OPTIONS)}"
            )
        return cls(players, **dict(options))

    @classmethod
    def default_players(cls, n: int) -> list[str]:
        if not cls.min_players <= n <= cls.max_players:
            raise RecordError(f"Shangri-La is played by 3 or 4 players, not {n}")
        return list(COLOURS[:n])

    def options_json(self) -> dict[str, JSON]:
        return {
            "stones": self.stones,
            "tie_break": self.tie_break,
            "recruit": self.recruit,
            "setup": self.setup,
        }

    def initial_state(self) -> ShangrilaState:
        return ShangrilaState.initial(self)

    def state_from_json(self, data: JSON) -> ShangrilaState:
        return ShangrilaState.from_json(self, data)

    def parse_move(self, text: str) -> moves.Move:
        return moves.parse_move(text)

    def format_move(self, move: moves.Move) -> str:
        return moves.format_move(move)

    def colour_name(self, player: int) -> str:
        """``"Blue"``: the player's colour as a sentence starts it."""
        return self.players[player].capitalize()


_BOARD: Board | None = None


def _default_board() -> Board:
    global _BOARD
    if _BOARD is None:
        _BOARD = load_board()
    return _BOARD
