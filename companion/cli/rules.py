"""``companion rules replay`` and ``companion rules demo``: work for every game."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.referee.words import tiebreak_words
from engines import Dice, GameRecord, GameState, new_record, replay, rules_class
from engines.errors import RecordError
from engines.registry import GAMES

ORDER = 10
"""Where the group is listed in ``companion --help``."""


def _read_record(path: str) -> GameRecord:
    if path == "-":
        return GameRecord.loads(sys.stdin.read())
    return GameRecord.load(path)


LEGAL_SHOWN = 200
"""Legal moves listed after a replay (the count is always given)."""
LEGAL_IN_JSON = 10_000
"""Legal moves listed by ``replay --json``: all of them, unless there are more
(``legal_count`` says how many there are)."""


def summary(state: GameState[Any]) -> dict[str, Any]:
    """The figures ``replay --json`` reports for a position."""
    return {
        "ok": True,
        "over": state.is_over(),
        "to_move": None if state.is_over() else state.to_move,
        "scores": state.scores(),
        "tiebreak": state.tiebreak(),
        "winners": state.winners(),
        **dict(
            zip(("legal_moves", "legal_count"), state.legal_preview(LEGAL_IN_JSON), strict=True)
        ),
    }


def replay_command(args: argparse.Namespace) -> int:
    record = _read_record(args.file)
    result = replay(record)
    state = result.state
    players = state.rules.players
    if result.error is not None:
        error = result.error
        if args.json:
            print(
                json.dumps(
                    {
                        "ok": False,
                        "index": result.played,
                        "move": record.moves[result.played],
                        "rule": error.rule,
                        "message": error.message,
                    }
                )
            )
        else:
            print(state.describe())
            print(
                f"\nmove {result.played} ({record.moves[result.played]}) is illegal: "
                f"{error.message} [{error.rule}]"
            )
        return 1
    if args.json:
        print(json.dumps(summary(state)))
        return 0
    print(state.describe())
    print()
    print(f"moves played: {result.played}")
    if state.is_over():
        print("the game is over")
    else:
        print(f"to move: {players[state.to_move]}")
    scores = state.scores()
    print("scores: " + ", ".join(f"{p} {s}" for p, s in zip(players, scores, strict=True)))
    print("tie-break: " + tiebreak_words(state.rules.game, state.tiebreak(), players))
    leaders = ", ".join(players[i] for i in state.winners())
    print(("winners: " if state.is_over() else "leading: ") + leaders)
    for line in legal_lines(state):
        print(line)
    return 0


TURNS_SHOWN = 12
"""Legal moves listed after a replay when a move is written with spaces (a ShenShi turn
of several actions, a Shendao move with its card)."""


def legal_lines(state: GameState[Any]) -> list[str]:
    """The legal moves after a replay: counted, and listed on one line; when a move is
    written with spaces (a ShenShi turn, a Shendao move with its card), a few are
    listed, one a line, so that no two can be read as one."""
    shown, count = state.legal_preview(LEGAL_SHOWN)
    if not any(" " in move for move in shown):
        more = f" ... and {count - len(shown):,} more" if count > len(shown) else ""
        return [f"legal moves ({count:,}): {' '.join(shown)}{more}"]
    lines = [
        f"legal moves: {count:,}" + (f", the first {TURNS_SHOWN}:" if count > TURNS_SHOWN else ":")
    ]
    lines += [f"  {n:>2}. {move}" for n, move in enumerate(shown[:TURNS_SHOWN], 1)]
    if count > TURNS_SHOWN:
        lines.append(f"  ... and {count - TURNS_SHOWN:,} more")
    return lines


def demo_command(args: argparse.Namespace) -> int:
    cls = rules_class(args.game)
    n = (
        args.players
        if args.players is not None
        else cls.min_players
        if cls.game != "shangrila"
        else 4
    )
    rules = cls.from_record(cls.default_players(n), {})
    state = rules.initial_state()
    record = new_record(rules)
    dice = Dice(args.seed)
    players = rules.players
    print(f"A random game of {rules.game} for {n} players: {', '.join(players)} (seed {args.seed})")
    print(state.describe())
    print()
    turn = 0
    limit = 100_000
    while not state.is_over():
        if turn >= limit:
            raise RecordError(f"the demo game did not end within {limit} moves")
        player = players[state.to_move]
        move = state.random_move(dice)
        text = rules.format_move(move)
        state.play(move)
        record.moves.append(text)
        turn += 1
        print(f"{turn:>4}. {player:<8} {text}")
    print()
    print(state.describe())
    print()
    scores = state.scores()
    print("final scores: " + ", ".join(f"{p} {s}" for p, s in zip(players, scores, strict=True)))
    print("tie-break: " + tiebreak_words(state.rules.game, state.tiebreak(), players))
    print(
        "winner"
        + ("s" if len(state.winners()) > 1 else "")
        + ": "
        + ", ".join(players[i] for i in state.winners())
    )
    if args.record:
        with open(args.record, "w", encoding="utf-8") as out:
            out.write(record.dumps() + "\n")
        print(f"record written to {args.record}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion rules`` and its commands."""
    rules = sub.add_parser(
        "rules",
        help="replay and check game records, play random demo games",
        description="The rules engines: replay a game record or watch a random game.",
    )
    rules_sub = rules.add_subparsers(dest="rules_command", required=True, metavar="COMMAND")

    replay = rules_sub.add_parser(
        "replay",
        help="validate every move of a game record and show the final position",
        description="Validate every move of a game record (JSON) and print the final "
        "position, the player to move, the scores, the winners, whether the game is over "
        "and the legal moves. Exit status: 0 when every move is legal, 1 at the first "
        "illegal move, 2 when the file or a move cannot be read.",
    )
    replay.add_argument("file", help="the game record (JSON), or - for standard input")
    replay.add_argument(
        "--json", action="store_true", help="print exactly one JSON object instead of text"
    )
    replay.set_defaults(handler=replay_command)

    demo = rules_sub.add_parser(
        "demo",
        help="play a random legal game and print it move by move",
        description="Play a game of random legal moves and print each move and the final "
        "scores. The same seed always gives the same game.",
    )
    demo.add_argument(
        "--game",
        default="shangrila",
        choices=GAMES,
        help="the game: %(choices)s (default shangrila)",
    )
    demo.add_argument(
        "--players",
        type=int,
        default=None,
        help="number of players (default: 4 for Shangri-La, 2 otherwise)",
    )
    demo.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    demo.add_argument("--record", metavar="FILE", help="also write the game record (JSON) to FILE")
    demo.set_defaults(handler=demo_command)
