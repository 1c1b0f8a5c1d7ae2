"""ShenShi positions as JSON documents and as text for people.

The document (docs/notation.md, "ShenShi positions")::

    {"phase": "turn", "to_move": 0,
     "tiles": {"b6": "intact", "d6": "faded"},
     "cushions": {"c5": "blond", "d4": "blond", "e3": "blond", "f2": "orange"},
     "monks": {"silver": {"G": "d4", "M": null}, "copper": {"G": null, "M": null},
               "neutral": {"G": "c5", "M": "e3"}},
     "reserves": {"silver": {"blond": 1, "orange": 1}, "copper": {"blond": 2, "orange": 1}},
     "tokens": {"silver": 1, "copper": 1},
     "neutral_from": {"M": "e4"}, "offered": "e5", "quiet": 0, "passes": 0}

``neutral_from`` and ``offered`` are left out when empty. The supply of path tokens,
whether the game is over and who won follow from the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engines.base import JSON
from engines.errors import RecordError
from engines.shenshi.board import (
    BLOND,
    CUSHION_NAMES,
    FADED,
    INTACT,
    NO_CUSHION,
    ORANGE,
    SIZE,
    TILE_NAMES,
    parse_square,
    square_name,
)
from engines.shenshi.plan import GIVE

if TYPE_CHECKING:
    from engines.shenshi.rules import ShenshiRules
    from engines.shenshi.state import ShenshiState

_KEYS = {
    "phase",
    "to_move",
    "tiles",
    "cushions",
    "monks",
    "reserves",
    "tokens",
    "neutral_from",
    "offered",
    "quiet",
    "passes",
}
_PHASES = ("turn", "give")
_SIZES = ("G", "M")


def _name(square: int) -> str | None:
    return square_name(square) if square >= 0 else None


def state_to_json(state: ShenshiState) -> dict[str, JSON]:
    rules = state.rules
    n = rules.n_players
    monks: dict[str, JSON] = {
        player: {"G": _name(state.pos[2 * p]), "M": _name(state.pos[2 * p + 1])}
        for p, player in enumerate(rules.players)
    }
    if rules.has_neutral:
        monks["neutral"] = {"G": _name(state.pos[2 * n]), "M": _name(state.pos[2 * n + 1])}
    data: dict[str, JSON] = {
        "phase": _PHASES[state.phase],
        "to_move": state.to_move,
        "tiles": {square_name(s): TILE_NAMES[t] for s, t in enumerate(state.tile) if t},
        "cushions": {square_name(s): CUSHION_NAMES[c] for s, c in enumerate(state.cushion) if c},
        "monks": monks,
        "reserves": {
            player: {"blond": state.reserve[2 * p], "orange": state.reserve[2 * p + 1]}
            for p, player in enumerate(rules.players)
        },
        "tokens": {player: state.tokens[p] for p, player in enumerate(rules.players)},
        "quiet": state.quiet,
        "passes": state.passes,
    }
    nf = {
        size: square_name(s) for size, s in zip(_SIZES, state.neutral_from, strict=True) if s >= 0
    }
    if nf:
        data["neutral_from"] = nf
    if state.offered >= 0:
        data["offered"] = square_name(state.offered)
    return data


def _square(text: Any, where: str) -> int:
    square = parse_square(text) if isinstance(text, str) else None
    if square is None:
        raise RecordError(f"{where}: {text!r} is not a square a1-g7")
    return square


def _count(value: Any, where: str) -> int:
    if type(value) is not int or value < 0:
        raise RecordError(f"{where} must be a whole number >= 0, not {value!r}")
    return value


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RecordError(f"{where} must be a JSON object")
    return value


def fill_from_json(state: ShenshiState, data: JSON) -> None:
    """Read a state document into ``state``, new from ``ShenshiState(rules)``. Raises
    ``RecordError`` if it is malformed or inconsistent with the rules."""
    try:
        _from_json(state, data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, RecordError):
            raise
        raise RecordError(f"malformed ShenShi position: {error!r}") from None


def _from_json(state: ShenshiState, data: JSON) -> None:
    rules = state.rules
    data = _mapping(data, "a ShenShi position")
    unknown = set(data) - _KEYS
    if unknown:
        raise RecordError(f"unknown keys in the position: {sorted(unknown)}")
    board = rules.board
    n = rules.n_players

    tiles = [0] * 49
    for key, kind in _mapping(data.get("tiles", {}), '"tiles"').items():
        square = _square(key, '"tiles"')
        if square not in board.marked:
            raise RecordError(
                f"{key} is not a marked square: mandala tiles lie only on "
                + " ".join(square_name(s) for s in board.marked)
            )
        if kind not in ("intact", "faded"):
            raise RecordError(f'tile on {key} must be "intact" or "faded", not {kind!r}')
        tiles[square] = INTACT if kind == "intact" else FADED
    for kind, limit in ((INTACT, board.tile_counts[0]), (FADED, board.tile_counts[1])):
        if tiles.count(kind) > limit:
            raise RecordError(f"the set has only {limit} {TILE_NAMES[kind]} mandalas")
    state.tile = tuple(tiles)

    for key, colour in _mapping(data.get("cushions", {}), '"cushions"').items():
        square = _square(key, '"cushions"')
        if colour not in ("blond", "orange"):
            raise RecordError(f'cushion on {key} must be "blond" or "orange", not {colour!r}')
        if tiles[square]:
            raise RecordError(f"{key} holds a mandala tile: no cushion can lie on it")
        state.cushion[square] = CUSHION_NAMES.index(colour)

    reserves = _mapping(data.get("reserves", {}), '"reserves"')
    tokens = _mapping(data.get("tokens", {}), '"tokens"')
    monks = _mapping(data.get("monks", {}), '"monks"')
    expected = set(rules.players) | ({"neutral"} if rules.has_neutral else set())
    for name, mapping in (("reserves", reserves), ("tokens", tokens), ("monks", monks)):
        keys = set(mapping)
        wanted = expected if name == "monks" else set(rules.players)
        if keys != wanted:
            raise RecordError(
                f'"{name}" needs exactly the keys {sorted(wanted)}, not {sorted(keys)}'
            )
    for p, player in enumerate(rules.players):
        reserve = _mapping(reserves[player], f'"reserves" of {player}')
        if set(reserve) != {"blond", "orange"}:
            raise RecordError(f'the reserve of {player} needs "blond" and "orange" counts')
        state.reserve[2 * p] = _count(reserve["blond"], f"{player}'s blond reserve")
        state.reserve[2 * p + 1] = _count(reserve["orange"], f"{player}'s orange reserve")
        state.tokens[p] = _count(tokens[player], f"{player}'s path tokens")
    for colour, total in ((BLOND, board.cushions[0]), (ORANGE, board.cushions[1])):
        used = state.cushion.count(colour) + sum(
            state.reserve[2 * p + colour - 1] for p in range(n)
        )
        if used > total:
            raise RecordError(
                f"{used} {CUSHION_NAMES[colour]} cushions on the board and in "
                f"reserves; the set has {total}"
            )
    held = sum(state.tokens)
    if held > board.tokens_total:
        raise RecordError(f"{held} path tokens held; the set has {board.tokens_total}")
    state.supply = board.tokens_total - held

    owners = [*rules.players, *(["neutral"] if rules.has_neutral else [])]
    for owner_index, owner in enumerate(owners):
        pair = _mapping(monks[owner], f'"monks" of {owner}')
        if set(pair) != set(_SIZES):
            raise RecordError(f'the monks of {owner} need "G" and "M" (a square or null)')
        for size, key in enumerate(_SIZES):
            monk = 2 * owner_index + size
            where = pair[key]
            if where is None:
                if owner == "neutral":
                    raise RecordError("the neutral monks never leave the board")
                continue
            square = _square(where, f"{owner}'s {key}")
            if state.occ[square] >= 0:
                raise RecordError(f"two monks on {where}")
            if state.cushion[square] == NO_CUSHION and tiles[square] != FADED:
                raise RecordError(
                    f"{owner}'s {key} on {where} stands on no cushion and no faded mandala"
                )
            state.occ[square] = monk
            state.pos[monk] = square

    to_move = data.get("to_move", 0)
    if type(to_move) is not int or not 0 <= to_move < n:
        raise RecordError(f'"to_move" must be a player index 0 to {n - 1}')
    phase = data.get("phase", "turn")
    if phase not in _PHASES:
        raise RecordError(f'"phase" must be "turn" or "give", not {phase!r}')
    state.phase = _PHASES.index(phase)
    state.turn = to_move if state.phase != GIVE else (to_move + n - 1) % n
    state.quiet = _count(data.get("quiet", 0), '"quiet"')
    state.passes = _count(data.get("passes", 0), '"passes"')

    nf = _mapping(data.get("neutral_from", {}), '"neutral_from"')
    if nf and not rules.has_neutral:
        raise RecordError('"neutral_from": there are no neutral monks in a 4-player game')
    for key, where in nf.items():
        if key not in _SIZES:
            raise RecordError(f'"neutral_from" keys are "G" and "M", not {key!r}')
        square = _square(where, '"neutral_from"')
        monk = 2 * n + _SIZES.index(key)
        if state.pos[monk] == square:
            raise RecordError(f"the neutral {key} cannot have come from {where}: it stands there")
        state.neutral_from[_SIZES.index(key)] = square

    must_enter = bool(state.own_off_board(state.turn))
    if "offered" in data:
        square = _square(data["offered"], '"offered"')
        if not rules.expert or state.phase == GIVE or not must_enter:
            raise RecordError(
                '"offered" is only for an expert-variant entry chosen by the opponent'
            )
        if not state.cushion[square] or state.occ[square] >= 0:
            raise RecordError(f'"offered": {data["offered"]} holds no free cushion')
        state.offered = square
    if state.phase == GIVE and not state._needs_give():
        raise RecordError(
            '"phase" "give" is only for the expert variant, when the player '
            "whose turn it is must enter a monk and has no cushion in reserve"
        )

    winners = [p for p in range(n) if state.tokens[p] >= board.goal]
    if len(winners) > 1:
        raise RecordError(f"only one player can hold {board.goal} path tokens")
    if winners:
        state.winner = winners[0]
    state.over = (
        bool(winners)
        or state.passes >= n
        or bool(rules.quiet_limit and state.quiet >= rules.quiet_limit)
    )


# ---------------------------------------------------------------------- text

_INITIALS = {"silver": "s", "copper": "c", "gold": "g", "black": "k"}


def _monk_label(rules: ShenshiRules, monk: int) -> str:
    owner = monk >> 1
    initial = "n" if owner == rules.n_players else _INITIALS[rules.players[owner]]
    return initial + ("G" if monk & 1 == 0 else "M")


def describe(state: ShenshiState) -> str:
    """The hall as a grid (rank 7 at the top), then each player's tokens, reserve and
    monks off the board."""
    rules = state.rules
    if state.over:
        status = "game over"
    elif state.phase == 1:
        status = (
            f"{rules.players[state.to_move]} chooses the cushion for "
            f"{rules.players[state.turn]}'s entry"
        )
    else:
        status = f"{rules.players[state.turn]} to move"
    limit = f"/{rules.quiet_limit}" if rules.quiet_limit else ""
    lines = [f"ShenShi ({rules.variant}) · {status} · {state.quiet}{limit} turns without a removal"]
    lines.append(("    " + "".join(f"{f:<6}" for f in "abcdefg")).rstrip())
    for row in range(SIZE):
        cells = []
        for col in range(SIZE):
            s = row * SIZE + col
            base = ".IF"[state.tile[s]] if not state.cushion[s] else " bo"[state.cushion[s]]
            monk = state.occ[s]
            cell = base if monk < 0 else f"{base}:{_monk_label(rules, monk)}"
            if s == state.offered:
                cell += "*"
            cells.append(f"{cell:<6}")
        lines.append(f"{SIZE - row:>2}  " + "".join(cells).rstrip())
    lines.append(
        "(. empty, I intact mandala, F faded mandala, b blond cushion, o orange "
        "cushion; s c g k n: silver copper gold black neutral; G Grand Master, "
        "M master" + ("; * the cushion chosen for the entry)" if state.offered >= 0 else ")")
    )
    for p, player in enumerate(rules.players):
        off = [("Grand Master", "master")[size] for size in range(2) if state.pos[2 * p + size] < 0]
        lines.append(
            f"{player:<7} tokens {state.tokens[p]:>2}  reserve "
            f"{state.reserve[2 * p]} blond {state.reserve[2 * p + 1]} orange"
            + (f"  off the board: {', '.join(off)}" if off else "")
        )
    lines.append(f"supply {state.supply} path tokens")
    for size, square in enumerate(state.neutral_from):
        if square >= 0:
            lines.append(
                f"the neutral {('Grand Master', 'master')[size]} may not go back to "
                f"{square_name(square)} this turn"
            )
    return "\n".join(lines)
