"""Moves and referee verdicts in the players' language.

The referee speaks English (``companion.referee.words``); the app says the same things
through its string tables, so every frame around a verdict follows the language chosen.
The rule's own sentence (``IllegalMove.message``) and the steps to put the table right
come from the engines in English and are shown as they are, after the translated
heading (the rule id in brackets lets a player look the rule up in any language).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.app.i18n import Translator
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
    from engines.shangrila.moves import Journey, Place, Recruit

    def discipline(d: int) -> str:
        return tr.name("discipline", d)

    if isinstance(move, Place):
        return tr.text("words.place", player=player, discipline=discipline(move.discipline),
                       village=move.village)
    if isinstance(move, Recruit):
        targets = tr.text("words.and").join(
            tr.text("words.target", discipline=discipline(d), village=v)
            for v, d in move.targets)
        return tr.text("words.recruit", player=player, targets=targets)
    if isinstance(move, Journey):
        return tr.text("words.journey", player=player, origin=move.origin,
                       destination=move.destination)
    return tr.text("words.pass", player=player)


def _shendao(tr: Translator, player: str, move: Any) -> str:
    from engines.shendao.moves import CARD_NAMES, Enter

    if not isinstance(move, Enter):
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
    from engines.shenshi.board import square_name
    from engines.shenshi.moves import MONK_LETTERS, Enter, Give, Hover, Swap, Turn, Walk

    if isinstance(move, Give):
        return tr.text("words.give", player=player, square=square_name(move.square))
    if not isinstance(move, Turn):
        return tr.text("words.pass", player=player)
    parts = []
    for action in move.actions:
        monk = tr.name("monk", MONK_LETTERS[action.monk])
        if isinstance(action, Walk):
            parts.append(tr.text("words.walk", monk=monk,
                                 path=" → ".join(square_name(s) for s in action.path)))
        elif isinstance(action, Hover):
            parts.append(tr.text("words.hover", monk=monk, start=square_name(action.start),
                                 end=square_name(action.end)))
        elif isinstance(action, Enter):
            parts.append(tr.text("words.enter_square", monk=monk,
                                 square=square_name(action.square)))
        elif isinstance(action, Swap):
            parts.append(tr.text("words.swap", monk=monk, start=square_name(action.start),
                                 other=square_name(action.other)))
    return f"{player}: " + "; ".join(parts) + "."


def verdict_words(tr: Translator, output: Output, who: Any) -> str:
    """One output as players read it (empty for outputs meant for the lights only).
    ``who(index)`` names a seat."""
    match output:
        case MoveAccepted(number, player, move, by, corrected):
            how = {"table": "", "answer": tr.text("verdict.by_answer"),
                   "typed": tr.text("verdict.by_typed")}.get(by, "")
            text = tr.text("verdict.accepted", number=number, player=who(player), move=move) + how
            if corrected:
                text += " " + tr.text("verdict.overruled", elements=", ".join(corrected))
            return text
        case MoveInProgress(player, candidates):
            shown = ", ".join(candidates[:5]) + (" …" if len(candidates) > 5 else "")
            return tr.text("verdict.in_progress", player=who(player), moves=shown)
        case IllegalMove(player, attempt, rule, message, _, _):
            heading = tr.text("verdict.illegal", player=who(player))
            if attempt:
                heading += f" — {attempt}"
            return f"{heading}\n{message} [{rule}]"
        case TableRestored(player):
            return tr.text("verdict.restored", player=who(player))
        case Question(player, _, _):
            return tr.text("verdict.question", player=who(player))
        case BoardMismatch(message, fix, _):
            return "\n".join([tr.text("verdict.mismatch"), message, *fix])
        case MoveTakenBack(number, move):
            return tr.text("verdict.taken_back", number=number, move=move)
        case InputRejected(text, reason):
            return tr.text("verdict.rejected", input=text, reason=reason)
        case GameOver(scores, _, _, _):
            table = ", ".join(f"{who(p)} {s}" for p, s in enumerate(scores))
            return tr.text("verdict.game_over", scores=table)
    return ""


def tiebreak_words(tr: Translator, game: str, over: GameOver, who: Any) -> str:
    """The result in a sentence, with the tie-break spelled out when it decided."""
    scores, winners = over.scores, over.winners
    best = max(scores) if scores else 0
    leaders = [p for p, s in enumerate(scores) if s == best]
    names = tr.text("words.and").join(who(p) for p in winners)
    if len(leaders) == 1:
        return tr.text("result.wins", names=names, score=best)
    rule = spell_tiebreak(tr, game, over.tiebreak, who)
    if len(winners) == 1:
        tied = tr.text("words.and").join(who(p) for p in leaders)
        return tr.text("result.tiebreak", tied=tied, score=best, names=names, rule=rule)
    return tr.text("result.shared", names=names, score=best, rule=rule)


def spell_tiebreak(tr: Translator, game: str, tiebreak: Any, who: Any) -> str:
    """What breaks ties in ``game``, with this game's figures."""
    if game == "shangrila" and isinstance(tiebreak, list):
        detail = ", ".join(f"{who(p)} {n}" for p, n in enumerate(tiebreak))
        return tr.text("tiebreak.shangrila", detail=detail)
    if game == "shendao":
        return tr.text("tiebreak.shendao")
    return tr.text("tiebreak.none")
