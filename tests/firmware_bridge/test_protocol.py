"""The host side of the protocol (BoardLink) on fake transports: handshake, mirror,
sequence gaps, resending, heartbeats, silence, and finding a board among ports."""

from __future__ import annotations

import pytest

from firmware_bridge.codec import Direction, FrameParser, encode_frame
from firmware_bridge.device import DeviceCore
from firmware_bridge.errors import LinkLost, ProtocolError
from firmware_bridge.layouts import layout_for
from firmware_bridge.messages import (
    SNAPSHOT_REFRESH_MS,
    Ack,
    Capability,
    Colour,
    DeviceInfo,
    ErrorCode,
    ErrorReport,
    Event,
    GetSnapshot,
    Heartbeat,
    HostHeartbeat,
    Led,
    SetLeds,
    Snapshot,
    reading_byte,
)
from firmware_bridge.protocol import (
    ACK_TIMEOUT,
    BoardLink,
    DeviceFault,
    DeviceRestarted,
    TableUpdate,
    Transport,
    find_board,
)
from tests.firmware_bridge.fakes import CoreTransport, FakeClock, ScriptedTransport

LAYOUT = layout_for("shangrila")
INFO = DeviceInfo(1, 1, 1, 127, Capability.HEIGHTS | Capability.LEDS, 250, "fake")
RED = reading_byte(1, 1)


def _board(step: float = 0.01) -> tuple[BoardLink, CoreTransport, FakeClock]:
    clock = FakeClock()
    transport = CoreTransport(DeviceCore(LAYOUT, debounce=1), clock, step)
    return BoardLink(transport, LAYOUT, clock), transport, clock


def _poll(link: BoardLink, times: int = 5) -> list[TableUpdate | DeviceFault]:
    out = []
    for _ in range(times):
        out += link.poll()
    return out


def _host_messages(transport: ScriptedTransport | CoreTransport) -> list[object]:
    parser = FrameParser(Direction.FROM_HOST)
    data = (
        b"".join(transport.written)
        if isinstance(transport, ScriptedTransport)
        else bytes(transport.host_bytes)
    )
    return [f.message for f in parser.feed(data)]


def test_handshake_snapshot_and_events() -> None:
    link, board, _ = _board()
    info = link.handshake()
    assert (info.game, info.positions, info.firmware) == (1, 127, "companion-sim 1")
    link.request_snapshot()
    (update,) = _poll(link)
    assert isinstance(update, TableUpdate)
    assert update == TableUpdate(bytes(127), tuple(range(127)), "snapshot", update.seq)
    board.core.sense_one(33, RED)
    (update,) = _poll(link)
    assert isinstance(update, TableUpdate)
    assert (update.cause, update.changed, update.readings[33]) == ("event", (33,), RED)
    assert link.synced and link.stats.gaps == 0


# The C firmware's handshake answer (vectors.txt) and a snapshot (seq 1: position 0
# reads a red master, the 126 others read 0), as hex on the wire.
INFO_HEX = "020101070101017f03fa10636f6d70616e696f6e2d632031ec0200"
SNAPSHOT_HEX = "030201037f41" + "01" * 125 + "03620500"  # a COBS code per zero


def test_a_scripted_snapshot_from_hex() -> None:
    clock = FakeClock()
    chunks = [bytes.fromhex(INFO_HEX), bytes.fromhex(SNAPSHOT_HEX)]
    link = BoardLink(ScriptedTransport(chunks, clock, step=0.01), LAYOUT, clock)
    assert link.handshake().firmware == "companion-c 1"
    (update,) = link.poll()
    assert update == TableUpdate(bytes([RED]) + bytes(126), tuple(range(127)), "snapshot", 1)


def test_a_lost_event_is_never_reported_as_a_table() -> None:
    link, board, _ = _board()
    link.handshake()
    link.request_snapshot()
    _poll(link)
    board.drop = {board.sent}  # the next device frame is lost on the way
    board.core.sense_one(10, RED)
    assert _poll(link, 1) == []  # the event was lost: nothing to report
    board.core.sense_one(11, RED)
    updates = _poll(link, 1)  # the next event shows the gap: no table until resync
    assert updates == [] and not link.synced and link.stats.gaps == 1
    (update,) = _poll(link)
    assert update.cause == "snapshot" and link.synced  # type: ignore[union-attr]
    assert bytes(link.readings or b"") == bytes(board.core.reported)
    assert GetSnapshot() in _host_messages(board)


def test_a_lost_snapshot_is_asked_for_again() -> None:
    link, board, _ = _board()
    link.handshake()
    board.drop = {board.sent + 1}  # ACK arrives, the snapshot after it does not
    link.request_snapshot()
    assert _poll(link, 2) == []
    board.core.sense_one(3, RED)  # the next frame reveals the gap
    updates = _poll(link, 5)
    assert next(u.cause for u in updates if isinstance(u, TableUpdate)) == "snapshot"
    assert link.synced and bytes(link.readings or b"") == bytes(board.core.reported)


def test_an_unacknowledged_command_is_sent_again() -> None:
    clock = FakeClock()
    transport = ScriptedTransport([encode_frame(0, INFO)], clock, step=0.05)
    link = BoardLink(transport, LAYOUT, clock)
    link.handshake()
    link.set_leds([Led(4, Colour.RED)])
    for _ in range(int(ACK_TIMEOUT / 0.05) + 2):
        transport.chunks.append(encode_frame(1, Ack(999)))  # the board is alive
        link.poll()
    sent = [m for m in _host_messages(transport) if isinstance(m, SetLeds)]
    assert len(sent) == 2 and link.stats.resent == 1


def test_a_newer_light_command_supersedes_an_unacknowledged_one() -> None:
    clock = FakeClock()
    transport = ScriptedTransport([encode_frame(0, INFO)], clock, step=0.05)
    link = BoardLink(transport, LAYOUT, clock)
    link.handshake()
    link.set_leds([Led(4, Colour.RED)])
    link.set_leds([Led(5, Colour.GREEN)])
    for _ in range(int(ACK_TIMEOUT / 0.05) + 2):
        transport.chunks.append(encode_frame(1, Ack(999)))
        link.poll()
    sent = [m for m in _host_messages(transport) if isinstance(m, SetLeds)]
    assert sent[-1] == SetLeds((Led(5, Colour.GREEN),)) and len(sent) == 3


def test_many_lights_are_split_and_only_the_first_frame_clears() -> None:
    transport = ScriptedTransport()
    link = BoardLink(transport, None, FakeClock())
    link.set_leds([Led(i, Colour.BLUE) for i in range(200)])
    frames = [m for m in _host_messages(transport) if isinstance(m, SetLeds)]
    assert [len(f.leds) for f in frames] == [170, 30]
    assert [f.clear_others for f in frames] == [True, False]


def test_heartbeats_go_out_when_the_host_has_nothing_to_say() -> None:
    link, board, _ = _board(step=0.1)
    link.handshake()
    _poll(link, 8)
    assert HostHeartbeat() in _host_messages(board)


def test_a_silent_board_is_a_lost_link() -> None:
    clock = FakeClock()
    transport = ScriptedTransport([encode_frame(0, INFO)], clock, step=0.3)
    link = BoardLink(transport, LAYOUT, clock)
    link.handshake()
    with pytest.raises(LinkLost, match="no frame from the board"):
        for _ in range(10):
            link.poll()


def test_a_pulled_cable_is_a_lost_link() -> None:
    link, board, _ = _board()
    link.handshake()
    board.pulled = True
    with pytest.raises(LinkLost, match="cable pulled"):
        link.poll()


def test_no_answer_to_the_handshake() -> None:
    clock = FakeClock()
    link = BoardLink(ScriptedTransport([], clock, step=0.1), LAYOUT, clock)
    with pytest.raises(ProtocolError, match="no board answered on scripted within 1 s"):
        link.handshake()


def test_a_board_of_another_game() -> None:
    clock = FakeClock()
    other = DeviceInfo(1, 3, 1, 49, Capability.LEDS, 250, "shenshi board")
    link = BoardLink(ScriptedTransport([encode_frame(0, other)], clock, 0.1), LAYOUT, clock)
    with pytest.raises(ProtocolError, match="game 3 layout 1 with 49 positions"):
        link.handshake()


def test_a_board_of_another_protocol_version() -> None:
    clock = FakeClock()
    refusal = encode_frame(0, ErrorReport(0, ErrorCode.UNSUPPORTED_VERSION))
    newer = encode_frame(1, DeviceInfo(2, 1, 1, 127, Capability.HEIGHTS, 250, "v2"))
    link = BoardLink(ScriptedTransport([refusal + newer], clock, 0.1), LAYOUT, clock)
    with pytest.raises(ProtocolError, match="protocol version 2, not 1"):
        link.handshake()


def test_device_errors_are_reported() -> None:
    link, board, _ = _board()
    link.handshake()
    board.write(encode_frame(77, SetLeds((Led(200, Colour.RED),))))
    faults = [u for u in _poll(link) if isinstance(u, DeviceFault)]
    assert faults == [DeviceFault(ErrorCode.POSITION_OUT_OF_RANGE, "position out of range", 77)]


def test_an_event_beyond_the_board_breaks_the_protocol() -> None:
    clock = FakeClock()
    frames = [
        encode_frame(0, INFO),
        encode_frame(1, Snapshot(bytes(127))),
        encode_frame(2, Event(((130, RED),))),
    ]
    link = BoardLink(ScriptedTransport(frames, clock, 0.01), LAYOUT, clock)
    link.handshake()
    link.poll()
    with pytest.raises(ProtocolError, match="position 130"):
        link.poll()


def test_finding_the_board_among_ports() -> None:
    clock = FakeClock()
    board = CoreTransport(DeviceCore(LAYOUT), clock)

    def opener(path: str) -> Transport:
        if path == "/dev/ttyS0":
            raise LinkLost("cannot open /dev/ttyS0: permission denied")
        if path == "/dev/ttyUSB0":
            return ScriptedTransport([b"modem noise\r\n"], clock, 0.1)
        return board

    link = find_board(["/dev/ttyS0", "/dev/ttyUSB0", "/dev/ttyACM0"], LAYOUT, opener)
    assert link.transport is board and link.info is not None
    with pytest.raises(LinkLost, match=r"no board found: tried /dev/ttyS0 \(cannot open"):
        find_board(["/dev/ttyS0", "/dev/ttyUSB0"], LAYOUT, opener)
    with pytest.raises(LinkLost, match="no serial port"):
        find_board([], LAYOUT, opener)


def test_a_board_that_restarts_behind_a_live_link() -> None:
    link, board, clock = _board(step=0.05)
    link.handshake()
    link.request_snapshot()
    _poll(link, 20)  # a few heartbeats: up about 1 s
    fresh = DeviceCore(LAYOUT, debounce=1)
    fresh.sense_one(7, RED)  # the table changed while it was off
    board.core, board.started = fresh, clock.now
    updates = _poll(link, 10)
    assert DeviceRestarted() in updates and link.stats.restarts == 1
    tables = [u for u in updates if isinstance(u, TableUpdate)]
    assert tables[-1].cause == "snapshot" and tables[-1].readings[7] == RED


@pytest.mark.parametrize("positions", [49, 200])
def test_another_board_announced_mid_stream_breaks_the_protocol(positions: int) -> None:
    # A CRC-valid INFO of another board after the handshake, then a snapshot of that
    # size: the mirror and the layout hold 127 readings.
    clock = FakeClock()
    other = DeviceInfo(1, 1, 1, positions, Capability.HEIGHTS | Capability.LEDS, 250, "x")
    frames = [
        encode_frame(0, INFO),
        encode_frame(1, Snapshot(bytes(127))),
        encode_frame(2, other) + encode_frame(3, Snapshot(bytes(positions))),
    ]
    link = BoardLink(ScriptedTransport(frames, clock, 0.01), LAYOUT, clock)
    link.handshake()
    link.poll()
    with pytest.raises(ProtocolError, match=f"{positions} positions mid-stream"):
        link.poll()


def test_a_repeated_handshake_answer_is_harmless() -> None:
    clock = FakeClock()
    frames = [
        encode_frame(0, INFO),
        encode_frame(1, Snapshot(bytes(127))),
        encode_frame(2, INFO) + encode_frame(3, Event(((5, RED),))),
    ]
    link = BoardLink(ScriptedTransport(frames, clock, 0.01), LAYOUT, clock)
    link.handshake()
    link.poll()
    (update,) = link.poll()
    assert isinstance(update, TableUpdate) and update.changed == (5,)


def test_a_snapshot_of_another_size_than_the_layout_breaks_the_protocol() -> None:
    clock = FakeClock()
    frames = [encode_frame(0, INFO), encode_frame(1, Snapshot(bytes(49)))]
    link = BoardLink(ScriptedTransport(frames, clock, 0.01), LAYOUT, clock)
    link.handshake()
    with pytest.raises(ProtocolError, match="snapshot of 49 readings"):
        link.poll()


def test_a_wrong_reading_lives_no_longer_than_a_refresh() -> None:
    # A scrambled event that passed the CRC: position 9 reads red on the host, not on
    # the board. The periodic snapshot puts it right; a refresh that changes nothing
    # reports nothing.
    link, board, clock = _board(step=0.05)
    link.handshake()
    link.request_snapshot()
    _poll(link, 2)
    assert link.readings is not None
    link.readings[9] = RED
    started = clock.now
    updates: list[TableUpdate | DeviceFault] = []
    while link.readings[9] == RED:
        assert clock.now - started < SNAPSHOT_REFRESH_MS / 1000 + 0.2
        updates += link.poll()
    assert updates == [TableUpdate(bytes(127), (9,), "snapshot", updates[0].seq)]  # type: ignore[union-attr]
    asked = sum(isinstance(m, GetSnapshot) for m in _host_messages(board))
    assert _poll(link, int(SNAPSHOT_REFRESH_MS / 50) + 5) == []
    assert sum(isinstance(m, GetSnapshot) for m in _host_messages(board)) == asked + 1


def test_a_refused_snapshot_request_is_made_again() -> None:
    # An ERROR naming the pending GET_SNAPSHOT (a board's refusal, or a scrambled frame
    # that passed the CRC) must not leave the host waiting for a snapshot for ever.
    clock = FakeClock()
    transport = ScriptedTransport([encode_frame(0, INFO)], clock, step=0.05)
    link = BoardLink(transport, LAYOUT, clock)
    link.handshake()
    link.request_snapshot()
    (asked,) = [seq for seq, (m, _) in link._pending.items() if isinstance(m, GetSnapshot)]
    transport.chunks.append(encode_frame(1, ErrorReport(asked, ErrorCode.BAD_LENGTH)))
    link.poll()
    for seq in range(2, 2 + int(SNAPSHOT_REFRESH_MS / 50) + 2):
        transport.chunks.append(encode_frame(seq, Heartbeat(seq * 50, 0, 0)))
        link.poll()
    assert sum(isinstance(m, GetSnapshot) for m in _host_messages(transport)) == 2


def test_an_event_beyond_the_board_before_any_snapshot_breaks_the_protocol() -> None:
    clock = FakeClock()
    frames = [encode_frame(0, INFO), encode_frame(1, Event(((200, RED),)))]
    link = BoardLink(ScriptedTransport(frames, clock, 0.01), LAYOUT, clock)
    link.handshake()
    with pytest.raises(ProtocolError, match="position 200 of a 127-position board"):
        link.poll()
