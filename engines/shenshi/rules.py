"""The rules object of ShenShi: players and options (RULINGS 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Self

from engines.base import JSON, Rules
from engines.errors import RecordError
from engines.shenshi import moves
from engines.shenshi.board import Board, load_board
from engines.shenshi.state import ShenshiState

METALS = ("silver", "copper", "gold", "black")
"""Player colours. Black is a player only in a 4-player game; otherwise its two monks
are neutral."""

CHOICES: dict[str, tuple[str, ...]] = {
    # name: (default, other allowed values...)
    "variant": ("basic", "expert"),
    "monks_per_turn": ("one-of-each", "any"),
    "walk": ("may-turn", "straight"),
    "neutral_return": ("action", "turn"),
    "black_start": ("reserve", "board"),
    "lift_put_down": ("free", "also-orange-square"),
}
"""The options whose value is a word: allowed values, the default first."""

DEFAULTS: dict[str, JSON] = {
    "seed": 0,
    "layout": None,
    **{name: values[0] for name, values in CHOICES.items()},
    "orange_lifts": 2,
    "quiet_rounds": 10,
}
"""Every option with its default (``layout`` None: drawn with ``seed``)."""

OPTIONS = tuple(DEFAULTS)


class ShenshiRules(Rules[moves.Move, ShenshiState]):
    """Players (metals, in turn order; ``players[0]`` begins) and the options of
    RULINGS 3. See docs/shenshi.md for what each option means for players.

    Options:
      * ``seed`` — the random setup: the tiles drawn onto the marked squares (default 0
        when no ``layout`` is given).
      * ``layout`` — the drawn tiles given explicitly, one letter per marked square
        (I, F, B, O); when both are given they must agree. ``options_json`` records both
        (``seed`` null for a layout given by hand).
      * ``variant`` — ``basic`` (default) or ``expert`` ("le maître véritable", 2 players).
      * ``monks_per_turn`` — ``one-of-each`` (default: a turn uses one Grand Master and one
        master, picture 9) or ``any`` (a third monk may act; the pair is still required).
      * ``walk`` — ``may-turn`` (default: each of the two steps is orthogonal, the second
        may turn or come back, pictures 3 and 10) or ``straight``.
      * ``orange_lifts`` — how many free blond cushions one orange hover may lift
        (default 2: picture 6 of the rule book lifts one and "Il lui serait possible de
        retirer le coussin n°2 et de refaire une boucle"; 0 to the 14 blond cushions).
      * ``lift_put_down`` — where a blond cushion lifted by an orange hover may be put
        down: on an empty square ``free`` at that moment (default: not the square the
        orange cushion stands on as it lifts it, "aussitôt replacé sur une case libre"),
        or ``also-orange-square``, that square too.
      * ``neutral_return`` — the next player may not put a neutral monk back on the square
        it came from: at the end of any ``action`` (default) or only at the end of the
        ``turn``.
      * ``black_start`` — 4 players: black's monks start in ``reserve`` like the others
        (default) or on the ``board`` where the neutral monks stand.
      * ``quiet_rounds`` — the game ends after this many rounds of turns in a row without a
        monk removed (default 10; 0: never). The most path tokens then wins; ties share.
    """

    game = "shenshi"
    min_players = 2
    max_players = 4

    def __init__(
        self,
        players: Sequence[str] = ("silver", "copper"),
        *,
        seed: int | None = None,
        layout: str | None = None,
        variant: str = "basic",
        monks_per_turn: str = "one-of-each",
        walk: str = "may-turn",
        orange_lifts: int = 2,
        neutral_return: str = "action",
        black_start: str = "reserve",
        lift_put_down: str = "free",
        quiet_rounds: int = 10,
        board: Board | None = None,
    ) -> None:
        super().__init__(players)
        self.check_player_count()
        n = self.n_players
        for player in self.players:
            if player not in METALS:
                raise RecordError(
                    f"unknown colour {player!r}: ShenShi players are {', '.join(METALS)}"
                )
        if n < 4 and "black" in self.players:
            raise RecordError(
                "black plays only in a 4-player game: with 2 or 3 players its monks are "
                "neutral (players: silver, copper, gold)"
            )
        words = {
            "variant": variant,
            "monks_per_turn": monks_per_turn,
            "walk": walk,
            "neutral_return": neutral_return,
            "black_start": black_start,
            "lift_put_down": lift_put_down,
        }
        for name, value in words.items():
            if value not in CHOICES[name]:
                allowed = " or ".join(repr(v) for v in CHOICES[name])
                raise RecordError(f"option {name!r} must be {allowed}, not {value!r}")
        if variant == "expert" and n != 2:
            raise RecordError(f"the expert variant is for 2 players, not {n}")
        self.board = board if board is not None else _default_board()
        blond = self.board.cushions[0]
        if type(orange_lifts) is not int or not 0 <= orange_lifts <= blond:
            raise RecordError(
                f"option 'orange_lifts' must be a whole number 0 to {blond}, not {orange_lifts!r}"
            )
        if type(quiet_rounds) is not int or quiet_rounds < 0:
            raise RecordError(
                f"option 'quiet_rounds' must be a whole number of rounds (0: no limit), "
                f"not {quiet_rounds!r}"
            )
        if seed is not None and (type(seed) is not int or seed < 0):
            raise RecordError(f"option 'seed' must be a whole number >= 0, not {seed!r}")
        if layout is None:
            if seed is None:
                seed = 0
            layout = self.board.draw_layout(seed)
        else:
            if not isinstance(layout, str):
                raise RecordError(f"option 'layout' must be a string, not {layout!r}")
            layout = layout.upper()
            self.board.check_layout(layout)
            if seed is not None and self.board.draw_layout(seed) != layout:
                raise RecordError(
                    f"layout {layout!r} is not the one seed {seed} draws "
                    f"({self.board.draw_layout(seed)!r}); give one of them, or seed null"
                )
        self.seed: int | None = seed
        self.layout: str = layout
        self.variant: str = variant
        self.monks_per_turn: str = monks_per_turn
        self.walk: str = walk
        self.orange_lifts: int = orange_lifts
        self.neutral_return: str = neutral_return
        self.black_start: str = black_start
        self.lift_put_down: str = lift_put_down
        self.quiet_rounds: int = quiet_rounds

        self.expert: bool = variant == "expert"
        self.has_neutral: bool = n < 4
        self.n_monks: int = 2 * n + (2 if self.has_neutral else 0)
        self.quiet_limit: int = quiet_rounds * n

    @classmethod
    def from_record(cls, players: Sequence[str], options: Mapping[str, JSON]) -> Self:
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise RecordError(
                f"unknown ShenShi options {sorted(unknown)}; known: {', '.join(OPTIONS)}"
            )
        return cls(players, **dict(options))

    @classmethod
    def default_players(cls, n: int) -> list[str]:
        if not cls.min_players <= n <= cls.max_players:
            raise RecordError(f"ShenShi is played by 2 to 4 players, not {n}")
        return list(METALS[:n])

    def options_json(self) -> dict[str, JSON]:
        return {
            "seed": self.seed,
            "layout": self.layout,
            "variant": self.variant,
            "monks_per_turn": self.monks_per_turn,
            "walk": self.walk,
            "orange_lifts": self.orange_lifts,
            "neutral_return": self.neutral_return,
            "black_start": self.black_start,
            "lift_put_down": self.lift_put_down,
            "quiet_rounds": self.quiet_rounds,
        }

    def initial_state(self) -> ShenshiState:
        return ShenshiState.initial(self)

    def state_from_json(self, data: JSON) -> ShenshiState:
        return ShenshiState.from_json(self, data)

    def parse_move(self, text: str) -> moves.Move:
        return moves.parse_move(text)

    def format_move(self, move: moves.Move) -> str:
        return moves.format_move(move)

    # ------------------------------------------------------------------ monks

    def owner(self, monk: int) -> int:
        """The player owning ``monk``, or ``n_players`` for a neutral monk."""
        return monk >> 1

    def monk_id(self, player: int, code: int) -> int:
        """The monk that ``code`` (``moves.OWN_G`` ... ``NEUTRAL_M``) names for
        ``player``; -1 for a neutral code in a 4-player game."""
        if code < 2:
            return 2 * player + code
        return 2 * self.n_players + code - 2 if self.has_neutral else -1

    def monk_code(self, player: int, monk: int) -> int:
        """The notation code of ``monk`` for ``player``; -1 if not theirs to move."""
        owner = monk >> 1
        if owner == player:
            return monk & 1
        if owner == self.n_players:
            return 2 + (monk & 1)
        return -1

    def monk_name(self, monk: int) -> str:
        """``"silver's Grand Master"``, ``"the neutral master"``."""
        size = "Grand Master" if monk & 1 == 0 else "master"
        owner = monk >> 1
        if owner == self.n_players:
            return f"the neutral {size}"
        return f"{self.players[owner]}'s {size}"

    def colour_name(self, player: int) -> str:
        """``"Silver"``: the player's colour as a sentence starts it."""
        return self.players[player].capitalize()


_BOARD: Board | None = None


def _default_board() -> Board:
    global _BOARD
    if _BOARD is None:
        _BOARD = load_board()
    return _BOARD
