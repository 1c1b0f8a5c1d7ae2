"""The device side (DeviceCore): debouncing, answers, errors, overflow, LED timeout."""

from __future__ import annotations

from firmware_bridge.codec import Direction, FrameParser, encode_frame
from firmware_bridge.device import MAX_ANSWERS, DeviceCore
from firmware_bridge.layouts import layout_for
from firmware_bridge.messages import (
    HOST_SILENCE_MS,
    NO_SEQ,
    PROTOCOL_VERSION,
    Ack,
    Colour,
    DeviceInfo,
    ErrorCode,
    ErrorReport,
    Event,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostHeartbeat,
    Led,
    Message,
    MessageType,
    Pattern,
    SetLeds,
    Snapshot,
    reading_byte,
)
from tests.firmware_bridge.fuzz import raw_frame

RED_MASTER = reading_byte(1, 1)


def _core(**kwargs: object) -> DeviceCore:
    return DeviceCore(layout_for("shangrila"), **kwargs)  # type: ignore[arg-type]


def _sent(core: DeviceCore) -> list[Message]:
    parser = FrameParser(Direction.FROM_DEVICE)
    out = []
    while (frame := core.take_frame()) is not None:
        out += [f.message for f in parser.feed(frame)]
    assert parser.dropped == 0
    return out


def test_a_change_is_reported_once_it_held_for_the_debounce() -> None:
    core = _core(debounce=3)
    core.sense_one(33, RED_MASTER)
    core.scan()
    core.scan()
    assert _sent(core) == []
    core.scan()
    assert _sent(core) == [Event(((33, RED_MASTER),))]
    core.scan()
    assert _sent(core) == []


def test_a_flicker_is_never_reported() -> None:
    core = _core(debounce=3)
    core.sense_one(33, RED_MASTER)
    core.scan()
    core.sense_one(33, 0)  # back as it was before the debounce ran out
    for _ in range(5):
        core.scan()
    assert _sent(core) == []


def test_changes_settling_in_one_scan_share_an_event() -> None:
    core = _core(debounce=2)
    readings = bytearray(core.sensors)
    readings[5], readings[100] = RED_MASTER, reading_byte(1)
    core.sense(readings)
    core.scan()
    core.scan()
    assert _sent(core) == [Event(((5, RED_MASTER), (100, reading_byte(1))))]


def test_answers_to_every_command() -> None:
    core = _core()
    core.receive(encode_frame(0, Hello()) + encode_frame(1, GetSnapshot()), 0)
    sent = _sent(core)
    assert sent[0] == Ack(0)
    assert isinstance(sent[1], DeviceInfo) and sent[1].positions == 127
    assert sent[1].protocol == PROTOCOL_VERSION
    assert sent[2:] == [Ack(1), Snapshot(bytes(127))]


def test_another_protocol_version_is_refused_but_told_ours() -> None:
    core = _core()
    core.receive(encode_frame(5, Hello(2)), 0)
    sent = _sent(core)
    assert sent[0] == ErrorReport(5, ErrorCode.UNSUPPORTED_VERSION)
    assert isinstance(sent[1], DeviceInfo)


def test_leds() -> None:
    core = _core()
    core.receive(encode_frame(3, SetLeds((Led(33, Colour.RED, Pattern.BLINK),))), 0)
    core.receive(encode_frame(4, SetLeds((Led(34, Colour.GREEN),), clear_others=False)), 0)
    assert _sent(core) == [Ack(3), Ack(4)]
    lit = {i: led for i, led in enumerate(core.leds) if led[0] != Colour.OFF}
    assert lit == {33: (Colour.RED, Pattern.BLINK), 34: (Colour.GREEN, Pattern.STEADY)}
    core.receive(encode_frame(5, SetLeds((Led(200, Colour.RED),))), 0)
    assert _sent(core) == [ErrorReport(5, ErrorCode.POSITION_OUT_OF_RANGE)]


def test_the_leds_go_off_when_the_host_falls_silent() -> None:
    core = _core()
    core.receive(encode_frame(0, SetLeds((Led(1, Colour.AMBER),))), 0)
    core.tick(HOST_SILENCE_MS - 1)
    assert core.leds[1] == (Colour.AMBER, Pattern.STEADY)
    core.tick(HOST_SILENCE_MS + 1)
    assert core.leds[1] == (Colour.OFF, Pattern.STEADY)


def test_garbled_frames_are_answered_with_an_error() -> None:
    core = _core()
    wire = bytearray(encode_frame(9, GetSnapshot()))
    wire[1] ^= 0x40  # the type byte: the CRC no longer matches
    core.receive(bytes(wire), 0)
    assert _sent(core) == [ErrorReport(NO_SEQ, ErrorCode.CRC_MISMATCH)]
    assert core.parser.dropped == 1


def test_heartbeats_count_garbled_frames_and_overflows() -> None:
    core = _core(heartbeat_ms=250)
    core.receive(b"\x05\x01\x00", 0)
    _sent(core)
    core.tick(250)
    assert _sent(core) == [Heartbeat(250, 1, 0)]
    core.tick(400)
    assert _sent(core) == []


def test_a_full_queue_turns_its_events_into_one_snapshot() -> None:
    core = _core(debounce=1, queue_limit=4)
    for i in range(6):
        core.sense_one(i, RED_MASTER)
        core.scan()
    sent = _sent(core)
    # the four queued events made way for an error and a snapshot of the table
    assert sent[0] == ErrorReport(NO_SEQ, ErrorCode.OVERFLOW)
    assert isinstance(sent[1], Snapshot)
    assert list(sent[1].readings[:6]) == [RED_MASTER] * 5 + [0]
    assert sent[2:] == [Event(((5, RED_MASTER),))]
    # whatever came after the snapshot, the table the host ends with is the board's
    table = bytearray(127)
    for message in sent:
        if isinstance(message, Snapshot):
            table[:] = message.readings
        elif isinstance(message, Event):
            for index, reading in message.changes:
                table[index] = reading
    assert bytes(table) == bytes(core.reported)
    assert core.overflows == 1


def test_commands_are_answered_in_the_order_they_came() -> None:
    core = _core()
    refused = encode_frame(4, SetLeds((Led(200, Colour.RED),)))
    garbled = bytearray(encode_frame(5, GetSnapshot()))
    garbled[1] ^= 0x40
    core.receive(
        encode_frame(3, HostHeartbeat()) + refused + bytes(garbled) + encode_frame(6, SetLeds(())),
        0,
    )
    assert _sent(core) == [
        ErrorReport(4, ErrorCode.POSITION_OUT_OF_RANGE),
        ErrorReport(NO_SEQ, ErrorCode.CRC_MISMATCH),
        Ack(6),
    ]


def test_a_heartbeat_from_the_host_carries_nothing() -> None:
    core = _core()
    core.receive(raw_frame(MessageType.HOST_HEARTBEAT, 8, b"\x01"), 0)
    assert _sent(core) == [ErrorReport(8, ErrorCode.BAD_LENGTH)]


def test_only_frames_that_cannot_be_read_count_as_rejected() -> None:
    # A refused command was read (its CRC matched): the host is there, and the
    # heartbeat's rejected count is about the line, not about commands.
    core = _core(heartbeat_ms=250)
    core.receive(encode_frame(0, SetLeds((Led(1, Colour.AMBER),))), 0)
    core.receive(raw_frame(MessageType.GET_SNAPSHOT, 1, b"\x00"), 2500)  # bad length
    core.receive(b"\x05\x01\x00", 2500)  # garbled
    _sent(core)
    core.tick(HOST_SILENCE_MS + 100)
    assert _sent(core) == [Heartbeat(HOST_SILENCE_MS + 100, 1, 0)]
    assert core.leds[1] == (Colour.AMBER, Pattern.STEADY)


def test_at_most_eight_commands_are_answered_at_once() -> None:
    core = _core()
    burst = b"".join(
        encode_frame(seq, SetLeds((Led(seq, Colour.RED),), False)) for seq in range(MAX_ANSWERS + 2)
    )
    core.receive(burst, 0)
    assert _sent(core) == [Ack(seq) for seq in range(MAX_ANSWERS)]
    assert all(core.leds[seq][0] == Colour.RED for seq in range(MAX_ANSWERS + 2))
