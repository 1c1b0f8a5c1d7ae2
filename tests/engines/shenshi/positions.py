"""Explicit ShenShi positions for the scenario tests, written as state documents.

``position(rules, blond="c5 d4", monks={"silver": ("c5", None)}, ...)`` fills in what
is left out: no tiles, no cushions, every monk off the board (the neutral ones must be
placed), reserves of 2 blond and 1 orange cushions, 1 path token each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines import IllegalMoveError
from engines.shenshi import ShenshiRules, ShenshiState, movegen, options, parse_square, square_name


def position(
    rules: ShenshiRules,
    *,
    blond: str = "",
    orange: str = "",
    intact: str = "",
    faded: str = "",
    monks: Mapping[str, tuple[str | None, str | None]] | None = None,
    reserves: Mapping[str, tuple[int, int]] | None = None,
    tokens: Mapping[str, int] | None = None,
    **extra: Any,
) -> ShenshiState:
    """A state from a few words per part (squares separated by spaces)."""
    monks = monks or {}
    owners = [*rules.players, *(["neutral"] if rules.has_neutral else [])]
    doc: dict[str, Any] = {
        "tiles": {**{s: "intact" for s in intact.split()}, **{s: "faded" for s in faded.split()}},
        "cushions": {
            **{s: "blond" for s in blond.split()},
            **{s: "orange" for s in orange.split()},
        },
        "monks": {
            owner: dict(zip(("G", "M"), monks.get(owner, (None, None)), strict=True))
            for owner in owners
        },
        "reserves": {
            p: dict(zip(("blond", "orange"), (reserves or {}).get(p, (2, 1)), strict=True))
            for p in rules.players
        },
        "tokens": {p: (tokens or {}).get(p, 1) for p in rules.players},
        **extra,
    }
    return rules.state_from_json(doc)


def legal(state: ShenshiState) -> set[str]:
    """The legal moves in notation."""
    return set(state.legal_texts())


def rule_of(state: ShenshiState, text: str) -> str:
    """The rule id ``check`` gives for ``text`` (which must be illegal). Checks with
    the validator itself, not the list of legal moves."""
    move = state.rules.parse_move(text)
    try:
        state.validate(move)
    except IllegalMoveError as error:
        assert error.message and error.message[-1] in ".)", error.message
        return error.rule
    raise AssertionError(f"{text} is legal")


def is_legal(state: ShenshiState, text: str) -> bool:
    """Whether the validator accepts ``text``; the list of legal moves must agree when
    it is short enough to build quickly."""
    move = state.rules.parse_move(text)
    try:
        state.validate(move)
        accepted = True
    except IllegalMoveError:
        accepted = False
    if movegen.count_turns(state, limit=20_000) <= 20_000:
        assert accepted == (move in state.legal_moves()), text
    return accepted


def hover_ends(state: ShenshiState, square: str) -> set[str]:
    """Where the monk on ``square`` can hover to (lifts left out)."""
    sq = parse_square(square)
    assert sq is not None
    monk = state.occ[sq]
    return {square_name(end) for end, _ in options.hover_ends(state, monk)}


def walk_ends(state: ShenshiState, square: str) -> set[str]:
    """Where the monk on ``square`` can walk to, for the player to move."""
    sq = parse_square(square)
    assert sq is not None
    monk = state.occ[sq]
    return {square_name(path[-1]) for path in options.walk_paths(state, monk)}
