"""A move's edge: how it compares, by the static evaluation, with the turns random play
draws; found alike by the analysis and for stored games."""

from __future__ import annotations

from statistics import mean

from engines.dice import Dice
from engines.record import new_record
from engines.registry import rules_class
from engines.search.analysis import analyse, analysis_config
from engines.search.calibration import StoredGame, stored_from_analysis, with_edges
from engines.search.edge import move_edge
from engines.search.players import GreedyPlayer, PlayoutRandomPlayer


def _positions(game: str, players: int, moves: int, seed: int) -> list:  # type: ignore[type-arg]
    """The positions of a game of random play by the playout draw."""
    cls = rules_class(game)
    state = cls.from_record(cls.default_players(players), {}).initial_state()
    player = PlayoutRandomPlayer(seed)
    found = []
    for _ in range(moves):
        if state.is_over():
            break
        found.append(state.copy())
        state.play(player.choose(state))
    return found


def test_random_play_has_no_edge_and_greedy_play_has_one() -> None:
    positions = _positions("shangrila", 4, 40, seed=3)
    random_player, greedy = PlayoutRandomPlayer(11), GreedyPlayer(11)
    random_edges = [move_edge(s, random_player.choose(s), i) for i, s in enumerate(positions)]
    greedy_edges = [move_edge(s, greedy.choose(s), i) for i, s in enumerate(positions)]
    assert abs(mean(random_edges) - 0.5) < 0.08
    # the evaluation's best move beats or ties every turn drawn
    assert all(e >= 0.5 for e in greedy_edges)
    assert mean(greedy_edges) > mean(random_edges) + 0.05
    assert all(0.0 <= e <= 1.0 for e in random_edges + greedy_edges)


def test_an_edge_is_the_same_each_time_and_leaves_the_position_as_it_was() -> None:
    state = _positions("shenshi", 2, 5, seed=2)[-1]
    move = state.playout_move(Dice(5))
    before = state.to_json()
    assert move_edge(state, move, 4) == move_edge(state, move, 4)
    assert state.to_json() == before


def test_the_analysis_and_the_stored_games_find_the_same_edges() -> None:
    cls = rules_class("shangrila")
    rules = cls.from_record(cls.default_players(3), {})
    record = new_record(rules)
    state = rules.initial_state()
    player = PlayoutRandomPlayer(4)
    for _ in range(9):
        move = player.choose(state)
        record.moves.append(rules.format_move(move))
        state.play(move)
    analysis = analyse(record, analysis_config(20, 5, seed=1), calibration=None)
    stored = stored_from_analysis(analysis, 1, 0, (0, 0, 0), 0.0, record.moves)
    assert all(m.edge is not None for m in stored.moves if not m.forced)
    bare = StoredGame.from_json(
        {**stored.to_json(), "moves": [m[:5] for m in stored.to_json()["moves"]]}
    )
    assert all(m.edge is None for m in bare.moves)
    assert with_edges(bare) == stored
    assert StoredGame.from_json(stored.to_json()) == stored
