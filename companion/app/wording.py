"""Moves and referee verdicts in the players' language.

The frames around a verdict come from the app's string tables; the referee's own
sentences (who did what, the rule, the steps to put the table right, the tie-break)
are ``companion.referee.messages``'s, in the app's language, worded as the console and
the demo's report word them. A rule sentence the catalogue does not know yet is shown
in English, its id in brackets (a player looks the rule up by it in any language).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.app.i18n import Translator
from companion.referee import messages
from companion.referee.events import (
    BoardMismatch,
    GameOver,
    IllegalMove,
    InputRejected,
    MoveAccepted,
    MoveInProgress,
    MoveTakenBack,
    Output,
    Question,
    TableRestored,
)
from engines import EngineError, Rules
from engines.shangrila.moves import Journey, Place, Recruit
from engines.shendao.moves import CARD_NAMES
from engines.shendao.moves import Enter as ShendaoEnter
from engines.shenshi.board import square_name
from engines.shenshi.moves import MONK_LETTERS, Give, Hover, Swap, Turn, Walk
from engines.shenshi.moves import Enter as ShenshiEnter


def player_name(tr: Translator, players: Sequence[str], names: Sequence[str], index: int) -> str:
    """The name shown for seat ``index``: the name typed at the start, else its colour."""
    if 0 <= index < len(names) and names[index]:
        return names[index]
    return tr.name("colour", players[index]).capitalize()


def move_words(tr: Translator, rules: Rules[Any, Any], player: str, text: str) -> str:
    """``text`` (a move in notation) as a sentence. A move the engine cannot read is
    given back as it is, quoted."""
    try:
        move = rules.parse_move(text)
    except EngineError:
        return f"{player}: {text!r}"
    game = rules.game
    if game == "shangrila":
        return _shangrila(tr, player, move)
    if game == "shendao":
        return _shendao(tr, player, move)
    if game == "shenshi":
        return _shenshi(tr, rules, player, move)
    return f"{player}: {text}"


def _shangrila(tr: Translator, player: str, move: Any) -> str:
    def discipline(d: int) -> str:
        return tr.name("discipline", d)

    if isinstance(move, Place):
        return tr.text(
            "words.place",
            player=player,
            discipline=discipline(move.discipline),
            village=move.village,
        )
    if isinstance(move, Recruit):
        targets = tr.text("words.and").join(
            tr.text("words.target", discipline=discipline(d), village=v) for v, d in move.targets
        )
        return tr.text("words.recruit", player=player, targets=targets)
    if isinstance(move, Journey):
        return tr.text(
            "words.journey", player=player, origin=move.origin, destination=move.destination
        )
    return tr.text("words.pass", player=player)


def _shendao(tr: Translator, player: str, move: Any) -> str:
    if not isinstance(move, ShendaoEnter):
        return tr.text("words.pass", player=player)
    text = tr.text("words.enter_gate", player=player, gate=move.gate)
    card = getattr(move, "card", None)
    if card:
        text += tr.text("words.with_card", card=CARD_NAMES.get(card, card))
        square = move.target
        if square:
            text += f" ({square})"
    return text + "."


def _shenshi(tr: Translator, rules: Rules[Any, Any], player: str, move: Any) -> str:
    if isinstance(move, Give):
        return tr.text("words.give", player=player, square=square_name(move.square))
    if not isinstance(move, Turn):
        return tr.text("words.pass", player=player)
    parts = []
    for action in move.actions:
        monk = tr.name("monk", MONK_LETTERS[action.monk])
        if isinstance(action, Walk):
            squares = [square_name(s) for s in action.path]
            if len(squares) > 2:  # in words, not arrows: spoken, and in the app's font
                parts.append(
                    tr.text(
                        "words.walk_by",
                        monk=monk,
                        start=squares[0],
                        via=", ".join(squares[1:-1]),
                        end=squares[-1],
                    )
                )
            else:
                parts.append(tr.text("words.walk", monk=monk, start=squares[0], end=squares[-1]))
        elif isinstance(action, Hover):
            parts.append(
                tr.text(
                    "words.hover",
                    monk=monk,
                    start=square_name(action.start),
                    end=square_name(action.end),
                )
            )
        elif isinstance(action, ShenshiEnter):
            parts.append(
                tr.text("words.enter_square", monk=monk, square=square_name(action.square))
            )
        elif isinstance(action, Swap):
            parts.append(
                tr.text(
                    "words.swap",
                    monk=monk,
                    start=square_name(action.start),
                    other=square_name(action.other),
                )
            )
    return f"{player}: " + "; ".join(parts) + "."


def verdict_words(tr: Translator, output: Output, who: Any, colours: Sequence[str] = ()) -> str:
    """One output as players read it (empty for outputs meant for the lights only).
    ``who(index)`` names a seat; ``colours``: each seat's colour, to name who moved
    out of turn."""
    match output:
        case MoveAccepted(number, player, move, by, corrected):
            how = {
                "table": "",
                "answer": tr.text("verdict.by_answer"),
                "typed": tr.text("verdict.by_typed"),
            }.get(by, "")
            text = tr.text("verdict.accepted", number=number, player=who(player), move=move) + how
            if corrected:
                text += " " + tr.text("verdict.overruled", elements=", ".join(corrected))
            return text
        case MoveInProgress(player, candidates):
            if not candidates:  # a turn under way that no move explains yet
                return tr.text("verdict.in_progress_bare", player=who(player))
            shown = ", ".join(candidates[:5]) + (" …" if len(candidates) > 5 else "")
            return tr.text("verdict.in_progress", player=who(player), moves=shown)
        case IllegalMove(player, attempt, rule, message, _, _):
            heading = messages.illegal_headline(
                player, attempt, rule, message, who, colours, tr.language
            )
            return f"{heading}\n{messages.reason(rule, message, tr.language)}"
        case TableRestored(player):
            return tr.text("verdict.restored", player=who(player))
        case Question(player, _, _):
            return tr.text("verdict.question", player=who(player))
        case BoardMismatch(message, fix, _):
            return "\n".join(
                [tr.text("verdict.mismatch"), message, *messages.steps(fix, tr.language)]
            )
        case MoveTakenBack(number, move):
            return tr.text("verdict.taken_back", number=number, move=move)
        case InputRejected(text, reason):
            return tr.text("verdict.rejected", input=text, reason=reason)
        case GameOver(scores, _, _, _):
            table = ", ".join(f"{who(p)} {s}" for p, s in enumerate(scores))
            return tr.text("verdict.game_over", scores=table)
    return ""


def tiebreak_words(tr: Translator, game: str, over: GameOver, who: Any) -> str:
    """The result in a sentence, with the tie-break spelled out when it decided (the
    referee's wording, ``companion.referee.messages``, in the app's language)."""
    return messages.result(game, over.scores, over.winners, over.tiebreak, who, tr.language)
