"""The whole sensor chain over a real serial device path: the referee's table simulator
moves the pieces one at a time on a simulated board (a pty); the bridge delivers what
the board reads; the referee recognises every move."""

from __future__ import annotations

import queue
import time

from companion.referee.core import Referee, RefereeConfig
from companion.referee.events import MoveAccepted, MoveTakenBack, Seen
from companion.referee.sensors import to_referee
from companion.simulator import TableConfig, TableSimulator
from engines import Dice
from engines.shangrila import ShangrilaRules
from firmware_bridge.bridge import SensorBridge, TableChanged
from firmware_bridge.layouts import layout_for
from firmware_bridge.simulator import BoardSimulator

SETTLE = 0.1  # seconds: ten scans of the board (100 a second, 3 to debounce), with room


def drain(bridge: SensorBridge, referee: Referee, accepted: list[str]) -> None:
    while True:
        try:
            event = bridge.events.get_nowait()
        except queue.Empty:
            return
        seen = to_referee(event)
        if seen is None:
            continue
        for output in referee.handle(seen):
            if isinstance(output, MoveAccepted):
                accepted.append(output.move)
            elif isinstance(output, MoveTakenBack):  # part of a bigger move, revised
                accepted.pop()


def test_a_game_moved_piece_by_piece_on_the_board_is_refereed() -> None:
    # A 3-player game from the printed starting position: recruits, placements and
    # journeys from the first moves; the board reads colours and stack heights.
    rules = ShangrilaRules(["blue", "red", "yellow"], setup="suggested")
    state = rules.initial_state()
    dice = Dice(4)
    moves = []
    for _ in range(12):
        move = state.random_move(dice)
        moves.append(move)
        state.play(move)
    config = TableConfig(
        sources=("sensors",),
        sensor_colours=True,
        sensor_colour_confidence=0.97,
        frames_per_step=1,
        settle_frames=1,
    )
    simulator = TableSimulator(rules, moves, config, seed=4)
    referee = Referee(rules, config=RefereeConfig(stable_frames=1))  # the board debounces
    accepted: list[str] = []
    layout = layout_for("shangrila")
    with BoardSimulator(layout) as board:
        board.show(referee.expected_table())
        with SensorBridge(
            board.path, layout, schema=referee.schema, first_retry=0.02, last_retry=0.1
        ) as bridge:
            deadline = time.monotonic() + 3
            while not isinstance(bridge.events.get(timeout=3), TableChanged):
                assert time.monotonic() < deadline
            last = None
            for step in simulator:
                if not isinstance(step.event, Seen) or step.event.observation == last:
                    continue
                last = step.event.observation
                board.show(last)
                time.sleep(SETTLE)
                drain(bridge, referee, accepted)
            deadline = time.monotonic() + 3  # a loaded machine may lag behind the board
            while len(accepted) < len(moves) and time.monotonic() < deadline:
                time.sleep(SETTLE)
                drain(bridge, referee, accepted)
    assert accepted == [rules.format_move(m) for m in moves]
    assert referee.state.to_json() == state.to_json()
