"""The app's link to the simulated sensor board: it reads the game's table from its
first reading (a game set up mid-way included), and a table put on it can be waited
for until the board has told it."""

from __future__ import annotations

from dataclasses import replace

from companion.app.gamesetup import GameSetup
from companion.app.sensors import SensorLink
from companion.referee.events import Input, Seen
from companion.simulator import random_game
from engines.registry import table_model
from firmware_bridge.layouts import TableConverter, layout_for


def test_the_simulated_board_reads_a_mid_game_table_from_its_first_reading() -> None:
    setup = replace(GameSetup.default("shangrila"), sensors="simulator")
    rules = setup.rules()
    state = rules.initial_state()
    moves = random_game(rules, 7)
    for move in moves[: len(moves) - 14]:
        state.apply(move)
    model = table_model("shangrila")
    table = model.expected(state)
    seen: list[Input] = []
    link = SensorLink(setup, table.schema, seen.append, lambda key, detail: None, initial=table)
    try:
        converter = TableConverter(layout_for("shangrila"), table.schema)
        assert link.wait_for(table, 10.0)
        first = seen[0]
        assert isinstance(first, Seen) and first.source == "sensors"
        assert converter.readings(first.observation) == converter.readings(table)
        assert converter.readings(table) != converter.readings(
            model.expected(rules.initial_state())
        )

        after = state.copy()
        after.apply(moves[len(moves) - 14])
        moved = model.expected(after)
        assert not link.wait_for(moved, 0.2)  # not put on the board yet
        told = len(seen)
        link.place(moved)
        assert link.wait_for(moved, 10.0)
        assert len(seen) > told  # given on before the wait ends
        last = seen[-1]
        assert isinstance(last, Seen)
        assert converter.readings(last.observation) == converter.readings(moved)
    finally:
        link.close()


def test_a_table_the_sensors_cannot_read_is_told_in_a_notice() -> None:
    from firmware_bridge.errors import BridgeError

    class Unreadable:
        def readings(self, observation: object) -> bytes:
            raise BridgeError("no sensor under the Astrologer space")

    notices: list[tuple[str, str]] = []
    link = SensorLink.__new__(SensorLink)
    link.notice = lambda key, detail: notices.append((key, detail))
    link._converter = Unreadable()
    table = table_model("shangrila").expected(
        GameSetup.default("shangrila").rules().initial_state()
    )
    assert not link.wait_for(table, 0.01)
    assert notices == [("notice.sensors_failed", "no sensor under the Astrologer space")]
