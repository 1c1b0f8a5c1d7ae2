"""``companion bench players``: strength of the engine players, measured by play.

For each game: each level against the level below, and the default level against
random and one-ply greedy players. One seat is the player measured, every other seat
the opponent kind; seats rotate game by game. A shared first place counts in part.

The Elo-like figure assumes Bradley-Terry strengths: with ``n`` players of which ``n-1``
are equal opponents, a first-place share ``s`` gives a strength difference of
``ln((n-1) s / (1 - s))``, shown on the Elo scale (x 400 / ln 10). Levels are chained
from level 1 = 0. The 95 % interval maps the Wilson score interval of the share (the
number of games behind it) through the same formula.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from engines import Dice, rules_class
from engines.search.mcts import POLICIES
from engines.search.players import (
    DEFAULT_LEVEL,
    LEVELS,
    GreedyPlayer,
    PlayoutRandomPlayer,
    RandomPlayer,
    SearchPlayer,
    play_match,
)

PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 2}


@dataclass
class Pairing:
    game: str
    players: int
    measured: str
    opponent: str
    games: int
    first_place_share: float
    elo_difference: float | None
    elo_low: float | None
    """Lower end of the 95 % interval (None: unbounded below)."""
    elo_high: float | None
    """Upper end of the 95 % interval (None: unbounded above)."""
    seconds: float


def elo(share: float, players: int) -> float | None:
    """Elo-like difference from a first-place share against equal opponents; None when
    the share is 0 or 1 (unbounded)."""
    if share <= 0.0 or share >= 1.0:
        return None
    return 400.0 / math.log(10) * math.log((players - 1) * share / (1.0 - share))


WILSON_Z = 1.96
"""Normal quantile of a two-sided 95 % interval."""


def share_interval(share: float, games: int) -> tuple[float, float]:
    """Wilson score 95 % interval of a first-place share measured over ``games``: unlike
    the normal approximation it stays inside [0, 1] and is honest at 0 % or 100 %."""
    z2 = WILSON_Z * WILSON_Z
    centre = (share + z2 / (2 * games)) / (1 + z2 / games)
    half = (
        WILSON_Z
        * math.sqrt(share * (1 - share) / games + z2 / (4 * games * games))
        / (1 + z2 / games)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value)


def _opponent(kind: str, seed: int, game: str) -> Any:
    if kind == "random":
        # ShenShi's uniform draw over a million turns takes seconds: its playout draw
        return PlayoutRandomPlayer(seed) if game == "shenshi" else RandomPlayer(seed)
    if kind == "greedy":
        return GreedyPlayer(seed)
    return SearchPlayer(int(kind.split()[1]), seed=seed)


def pairing(game: str, measured: int, opponent: str, games: int, seed: int) -> Pairing:
    cls = rules_class(game)
    n = PLAYERS[game]
    rules = cls.from_record(cls.default_players(n), {})
    share = 0.0
    start = time.perf_counter()
    for g in range(games):
        seat = g % n
        players = [_opponent(opponent, seed + 100 * g + i, game) for i in range(n)]
        players[seat] = SearchPlayer(measured, seed=seed + 100 * g + 50)
        result = play_match(rules, players)
        if seat in result.winners:
            share += 1.0 / len(result.winners)
        print(
            f"\r{game}: level {measured} vs {opponent}: {g + 1}/{games}",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    share /= games
    low, high = share_interval(share, games)
    return Pairing(
        game,
        n,
        f"level {measured}",
        opponent,
        games,
        round(share, 3),
        _rounded(elo(share, n)),
        _rounded(elo(low, n)),
        _rounded(elo(high, n)),
        round(time.perf_counter() - start, 1),
    )


def _elo_text(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:+.0f}"


def row(result: Pairing) -> str:
    """One pairing as a line of the text table (``-inf``/``inf``: unbounded)."""
    diff = _elo_text(result.elo_difference, "inf" if result.first_place_share > 0 else "-inf")
    interval = f"{_elo_text(result.elo_low, '-inf')} to {_elo_text(result.elo_high, 'inf')}"
    return (
        f"{result.game:<10} {result.measured:<9} {result.opponent:<9} "
        f"{result.games:>5} {100 * result.first_place_share:>10.1f}% {diff:>8} "
        f"{interval:>16} {result.seconds:>6.0f}s"
    )


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = bench_sub.add_parser(
        "players",
        help="strength of the engine players: level against level, and "
        "against random and greedy play",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--game",
        action="append",
        choices=sorted(PLAYERS),
        help="only this game (repeatable; default all)",
    )
    parser.add_argument("--games", type=int, default=40, help="games per pairing (40)")
    parser.add_argument(
        "--levels",
        type=int,
        default=DEFAULT_LEVEL,
        help=f"measure levels 2..N against the level below "
        f"(default {DEFAULT_LEVEL}; highest {max(LEVELS)})",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(handler=players_command)

    search = bench_sub.add_parser(
        "search",
        help="search iterations per second, per game",
        description="Run one search at a level from a mid-game position of each game and "
        "print iterations per second (one core).",
    )
    search.add_argument(
        "--game",
        action="append",
        choices=sorted(PLAYERS),
        help="only this game (repeatable; default all)",
    )
    search.add_argument(
        "--level",
        type=int,
        default=DEFAULT_LEVEL,
        choices=sorted(LEVELS),
        help=f"search level (default {DEFAULT_LEVEL})",
    )
    search.add_argument("--seed", type=int, default=3, help="random seed (default 3)")
    search.add_argument("--json", action="store_true", help="print the figures as JSON")
    search.set_defaults(handler=search_command)

    policies = bench_sub.add_parser(
        "policies",
        help="the multiplayer search policies against each other, by play",
        description=POLICIES_DOC,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    policies.add_argument("--game", default="shangrila", choices=sorted(PLAYERS))
    policies.add_argument("--players", type=int, default=3, help="players a game (3)")
    policies.add_argument(
        "--policy",
        default="paranoid",
        choices=POLICIES,
        help="the policy of the measured seat (default paranoid)",
    )
    policies.add_argument(
        "--against",
        default="maxn",
        choices=POLICIES,
        help="the policy of every other seat (default maxn)",
    )
    policies.add_argument(
        "--level",
        type=int,
        default=DEFAULT_LEVEL,
        choices=sorted(LEVELS),
        help=f"the search budget of every seat (default {DEFAULT_LEVEL})",
    )
    policies.add_argument("--games", type=int, default=60, help="games (60)")
    policies.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    policies.add_argument(
        "--log",
        type=Path,
        default=None,
        help="a file of one game a line: a run goes on from the games "
        "it holds, and a run stopped early keeps them",
    )
    policies.add_argument("--json", action="store_true", help="print the figures as JSON")
    policies.set_defaults(handler=policies_command)

    from companion.bench_strength import register as register_strength

    register_strength(bench_sub)


def search_command(args: argparse.Namespace) -> int:
    """Iterations per second of the search at ``--level``, from a mid-game position of
    each game (reached by the game's playout draw from ``--seed``)."""
    from engines.search import MCTS

    figures = []
    for game in args.game or sorted(PLAYERS):
        cls = rules_class(game)
        rules = cls.from_record(cls.default_players(PLAYERS[game]), {})
        state = rules.initial_state()
        dice = Dice(args.seed)
        for _ in range(30 if game == "shangrila" else 8):
            draw = getattr(state, "playout_move", state.random_move)
            state.apply(draw(dice))
        config = LEVELS[args.level]
        result = MCTS(config).search(state)
        rate = result.iterations / result.seconds
        figures.append(
            {
                "game": game,
                "level": args.level,
                "iterations": result.iterations,
                "seconds": round(result.seconds, 3),
                "iterations_per_second": round(rate),
            }
        )
        if not args.json:
            print(
                f"{game:<10} level {args.level}: {rate:>7.0f} iterations/s "
                f"({result.iterations} in {result.seconds:.2f} s, playouts cut at "
                f"{config.rollout_moves} moves)"
            )
    if args.json:
        print(json.dumps({"figures": figures}))
    return 0


def players_command(args: argparse.Namespace) -> int:
    from companion.cli import UsageError

    if args.games < 1 or not 2 <= args.levels <= max(LEVELS):
        raise UsageError(f"--games must be positive and --levels within 2 and {max(LEVELS)}")
    plan = []
    for game in args.game or sorted(PLAYERS):
        plan += [(game, level, f"level {level - 1}") for level in range(2, args.levels + 1)]
        plan += [(game, DEFAULT_LEVEL, kind) for kind in ("random", "greedy")]
    if not args.json:
        print(
            f"{'game':<10} {'measured':<9} {'against':<9} {'games':>5} "
            f"{'first place':>11} {'Elo diff':>8} {'95 % interval':>16} {'time':>7}",
            flush=True,
        )
    results: list[Pairing] = []
    for game, level, opponent in plan:
        results.append(pairing(game, level, opponent, args.games, args.seed))
        if not args.json:
            # each line as soon as it is measured: a long run shows its figures as it goes
            print(row(results[-1]), flush=True)
    if args.json:
        print(json.dumps({"figures": [asdict(r) for r in results]}))
    return 0


POLICIES_DOC = """``companion bench policies``: one seat searches with a policy
(``--policy``), every other seat with another (``--against``), all with the same budget
(``--level``); seats rotate game by game and each game has its own seeds. The figure is
the measured seat's first-place share (a shared first place counts in part) with its
Wilson 95 % interval; with ``n`` players, equal policies take first place ``1/n`` of
the time, and a policy is significantly stronger when the whole interval lies above
``1/n``. The Elo-like figure reads the share as ``companion bench players`` does.

Policies: ``maxn``, every player plays for their own result; ``paranoid``, the
opponents play against the searching player; ``brs``, best-reply search: between two of
the searching player's turns only the opponent with the worst reply for them is
searched, the others play the move their playout policy gives them.

With ``--log``, each game is written as one line with its settings; a run goes on from
the games of a log written with the same settings and refuses one written with others."""

SETTINGS = ("game", "players", "policy", "against", "level", "seed")
"""What a log line must agree on with the run that goes on from it."""


def policy_game(
    game: str, players: int, policy: str, against: str, level: int, seed: int, index: int
) -> dict[str, Any]:
    """Play game ``index`` of a policy match and say who took first place."""
    cls = rules_class(game)
    rules = cls.from_record(cls.default_players(players), {})
    seat = index % players
    base = seed * 1_000_000 + 100 * index
    seats = [
        SearchPlayer(
            seed=base + i, config=replace(LEVELS[level], policy=policy if i == seat else against)
        )
        for i in range(players)
    ]
    began = time.perf_counter()
    result = play_match(rules, seats)
    share = 1.0 / len(result.winners) if seat in result.winners else 0.0
    return {
        "game": game,
        "players": players,
        "policy": policy,
        "against": against,
        "level": level,
        "seed": seed,
        "index": index,
        "seat": seat,
        "share": share,
        "moves": result.moves,
        "seconds": round(time.perf_counter() - began, 1),
    }


def policies_command(args: argparse.Namespace) -> int:
    from companion.cli import UsageError

    if args.games < 1:
        raise UsageError("--games must be positive")
    try:
        rules_class(args.game).default_players(args.players)
    except (KeyError, ValueError) as error:
        raise UsageError(f"{args.game} is not played by {args.players}: {error}") from None
    done: list[dict[str, Any]] = []
    if args.log is not None and args.log.exists():
        done = [
            json.loads(line)
            for line in args.log.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        for found in done:
            # lines written before the settings were kept say nothing: taken as they are
            other = {k: found[k] for k in SETTINGS if k in found and found[k] != vars(args)[k]}
            if other:
                raise UsageError(
                    f"{args.log} holds games played with other settings ({other}): "
                    "use another --log"
                )
    began = time.perf_counter()
    for index in range(len(done), args.games):
        found = policy_game(
            args.game, args.players, args.policy, args.against, args.level, args.seed, index
        )
        done.append(found)
        if args.log is not None:
            with args.log.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(found) + "\n")
        so_far = sum(g["share"] for g in done) / len(done)
        print(
            f"\r{args.game} {args.players}: {args.policy} vs {args.against}: "
            f"{index + 1}/{args.games}, first place so far {100 * so_far:.1f}%",
            end="",
            file=sys.stderr,
            flush=True,
        )
    print(file=sys.stderr)
    games = done[: args.games]
    share = sum(g["share"] for g in games) / len(games)
    low, high = share_interval(share, len(games))
    figures = {
        "game": args.game,
        "players": args.players,
        "policy": args.policy,
        "against": args.against,
        "level": args.level,
        "games": len(games),
        "first_place_share": round(share, 3),
        "interval": [round(low, 3), round(high, 3)],
        "equal_share": round(1 / args.players, 3),
        "elo_difference": _rounded(elo(share, args.players)),
        "elo_interval": [_rounded(elo(low, args.players)), _rounded(elo(high, args.players))],
        "significantly_stronger": low > 1 / args.players,
        "significantly_weaker": high < 1 / args.players,
        "seconds": round(time.perf_counter() - began, 1),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    verdict = (
        "significantly stronger"
        if figures["significantly_stronger"]
        else "significantly weaker"
        if figures["significantly_weaker"]
        else "not told apart"
    )
    print(
        f"{args.game}, {args.players} players, level {args.level} budget: {args.policy} "
        f"against {args.against} in {len(games)} games: first place "
        f"{100 * share:.1f}% (95 % interval {100 * low:.1f}% to {100 * high:.1f}%; "
        f"equal: {100 / args.players:.1f}%): {verdict}"
    )
    return 0
