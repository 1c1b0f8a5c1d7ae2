"""Game records: the JSON file of a game, as a PGN is for chess.

``{"game": "shangrila", "options": {...}, "players": ["red", "blue", ...],
   "moves": ["H@4", ...], "start": {...}}``

``options`` may leave out any option (it takes its default); ``start`` is optional and
holds a state document (the game's state format), so that a record can begin mid-game
as a FEN does in chess. Unknown keys are refused so that typos do not pass silently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.base import JSON, GameState, Rules
from engines.errors import EngineError, IllegalMoveError, NotationError, RecordError
from engines.jsontext import JSONTextError, parse_json, read_json_file
from engines.registry import rules_class

_KEYS = {"game", "options", "players", "moves", "start"}


@dataclass
class GameRecord:
    """A game: which game, options, players in turn order, moves in notation."""

    game: str
    players: list[str]
    options: dict[str, JSON] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    start: dict[str, JSON] | None = None

    @classmethod
    def from_json(cls, data: JSON) -> GameRecord:
        """Read a parsed JSON document. Raises ``RecordError`` when it is malformed."""
        if not isinstance(data, Mapping):
            raise RecordError("a game record must be a JSON object")
        unknown = set(data) - _KEYS
        if unknown:
            raise RecordError(f"unknown record keys: {sorted(unknown)}")
        game = data.get("game")
        if not isinstance(game, str):
            raise RecordError('a game record needs "game": "shangrila", "shendao" or "shenshi"')
        players = data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise RecordError('"players" must be a list of player names in turn order')
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise RecordError('"options" must be a JSON object')
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise RecordError('"moves" must be a list of moves written in notation')
        start = data.get("start")
        if start is not None and not isinstance(start, Mapping):
            raise RecordError('"start" must be a state document (a JSON object)')
        return cls(
            game,
            list(players),
            dict(options),
            list(moves),
            dict(start) if start is not None else None,
        )

    @classmethod
    def loads(cls, text: str | bytes, source: str = "the game record") -> GameRecord:
        """Parse record text. Raises ``RecordError``, also for text that is not JSON,
        nested too deep or holding numbers too long (see ``engines.jsontext``)."""
        try:
            data = parse_json(text, source)
        except JSONTextError as error:
            raise RecordError(str(error)) from None
        return cls.from_json(data)

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record file. Raises ``RecordError`` (also for unreadable files)."""
        try:
            data = read_json_file(path, "the game record")
        except JSONTextError as error:
            raise RecordError(str(error)) from None
        return cls.from_json(data)

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {
            "game": self.game,
            "options": dict(self.options),
            "players": list(self.players),
            "moves": list(self.moves),
        }
        if self.start is not None:
            data["start"] = self.start
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False)

    def rules(self) -> Rules[Any, Any]:
        """The rules object of this record. Raises ``RecordError``."""
        return rules_class(self.game).from_record(self.players, self.options)

    def starting_state(self) -> GameState[Any]:
        """The state the first move is played from. Raises ``RecordError``."""
        rules = self.rules()
        state: GameState[Any] = (
            rules.initial_state() if self.start is None else rules.state_from_json(self.start)
        )
        return state


@dataclass
class Replay:
    """The outcome of replaying a record: the state after the last valid move, and the
    first illegal move if there was one."""

    record: GameRecord
    state: GameState[Any]
    played: int
    error: IllegalMoveError | None = None


def replay(record: GameRecord) -> Replay:
    """Validate and play every move of ``record``.

    Stops at the first illegal move (reported in ``Replay.error``, with ``played`` its
    index). Raises ``RecordError`` for malformed records and ``NotationError`` (with the
    move's index in the message) for unreadable moves.
    """
    state = record.starting_state()
    for index, text in enumerate(record.moves):
        try:
            state.play_text(text)
        except NotationError as error:
            raise NotationError(text, f"move {index}: {error.reason}") from None
        except IllegalMoveError as error:
            return Replay(record, state, index, error)
    return Replay(record, state, len(record.moves))


def new_record(rules: Rules[Any, Any], start: GameState[Any] | None = None) -> GameRecord:
    """An empty record for ``rules`` (optionally from an explicit starting state)."""
    return GameRecord(
        rules.game,
        list(rules.players),
        rules.options_json(),
        [],
        start.to_json() if start is not None else None,
    )


__all__ = ["EngineError", "GameRecord", "Replay", "new_record", "replay"]
