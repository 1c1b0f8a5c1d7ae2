"""``companion referee``: referee a game from typed input, with a crash-safe journal.

Input lines (one per line on standard input):

* ``seen {"4H": "red", ...}`` — a reading of the table (JSON: element -> value or
  [value, confidence]; elements left out are unknown);
* ``done`` — the player says the move is complete;
* ``answer MOVE`` — answer the referee's question;
* ``move MOVE`` — type in the move that was played (correction or override);
* ``takeback`` — take back the last move;
* ``record FILE`` — write the game record so far;
* ``quit``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from companion.cli import Subparsers, UsageError
from companion.referee.core import Referee
from companion.referee.events import Answer, Input, Seen, Takeback, TurnDone, TypedMove
from companion.referee.journal import Journal, JournaledReferee, resume
from companion.referee.words import say
from engines import GameRecord, RecordError, replay, rules_class
from engines.jsontext import JSONTextError, parse_json
from engines.observation import Observation
from engines.registry import GAMES

ORDER = 30
"""Where the group is listed in ``companion --help``."""


def register(sub: Subparsers) -> None:
    parser = sub.add_parser(
        "referee",
        help="referee a game from readings of the table, with a journal",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        default="shangrila",
        choices=GAMES,
        help="the game: %(choices)s (default shangrila)",
    )
    parser.add_argument(
        "--players",
        nargs="+",
        metavar="NAME",
        help="players in turn order (default: the game's usual colours)",
    )
    parser.add_argument("--start", metavar="RECORD", help="begin from the end of this game record")
    parser.add_argument(
        "--journal", metavar="FILE", help="journal every input and verdict to FILE (a new file)"
    )
    parser.add_argument(
        "--resume", metavar="JOURNAL", help="rebuild the game in JOURNAL and go on appending to it"
    )
    parser.set_defaults(handler=referee_command)


def _new_referee(args: argparse.Namespace) -> Referee:
    if args.start:
        record = GameRecord.load(args.start)

        result = replay(record)
        if result.error is not None:
            raise UsageError(
                f"{args.start}: move {result.played} is illegal: {result.error.message}"
            )
        return Referee(result.state.rules, result.state)
    cls = rules_class(args.game)
    players = args.players or cls.default_players(
        4 if args.game == "shangrila" else cls.min_players
    )
    return Referee(cls.from_record(players, {}))


def parse_line(line: str, referee: Referee) -> Input | str | None:
    """An input, a command name (``quit``, ``record FILE``), or None for a blank line.
    Raises ``UsageError`` for a line that cannot be read."""
    word, _, rest = line.strip().partition(" ")
    rest = rest.strip()
    if not word:
        return None
    if word == "seen":
        try:
            readings: Any = parse_json(rest, "the reading")
            observation = Observation.from_json(referee.schema, {"readings": readings})
        except (JSONTextError, RecordError) as error:
            raise UsageError(f"seen: {error}") from None
        return Seen(observation, "typed")
    if word == "done":
        return TurnDone()
    if word == "answer" and rest:
        return Answer(rest)
    if word == "move" and rest:
        return TypedMove(rest)
    if word == "takeback":
        return Takeback()
    if word in ("quit", "record"):
        return line.strip()
    raise UsageError(
        f"unknown input {line.strip()!r} (seen, done, answer, move, takeback, record, quit)"
    )


def referee_command(args: argparse.Namespace) -> int:
    runner: JournaledReferee | None
    if args.resume:
        resumed = resume(args.resume)
        runner = resumed.referee
        referee = runner.referee
        for warning in resumed.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print(
            f"Resumed {args.resume}: {resumed.inputs} inputs, {len(referee.history)} moves played."
        )
    else:
        referee = _new_referee(args)
        runner = (
            JournaledReferee(referee, Journal.create(args.journal, referee))
            if args.journal
            else None
        )
    players = referee.rules.players
    print(referee.state.describe())
    for line in sys.stdin:
        try:
            event = parse_line(line, referee)
        except UsageError as error:
            print(f"companion: {error}", file=sys.stderr)
            continue
        if event is None:
            continue
        if isinstance(event, str):
            if event == "quit":
                break
            path = event.partition(" ")[2].strip()
            if not path:
                print("companion: record needs a file name", file=sys.stderr)
                continue
            try:
                with open(path, "w", encoding="utf-8") as out:
                    out.write(referee.record().dumps() + "\n")
            except OSError as error:
                print(f"companion: cannot write {path}: {error.strerror or error}", file=sys.stderr)
                continue
            print(f"record written to {path}")
            continue
        outputs = runner.handle(event) if runner is not None else referee.handle(event)
        for output in outputs:
            text = say(output, players, referee.rules.game)
            if text:
                print(text, flush=True)
    return 0
