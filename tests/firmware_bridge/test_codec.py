"""The byte codecs: hex fixtures, every message both ways, partial and concatenated
input, and fuzzed frames (corrupted, truncated, concatenated, random bytes) that must
never crash the parser nor yield a message that was not sent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.codec import (
    MAX_STUFFED,
    Direction,
    FrameParser,
    decode_frame,
    encode_frame,
)
from firmware_bridge.errors import FrameError
from firmware_bridge.messages import (
    NO_SEQ,
    Ack,
    Capability,
    Colour,
    DeviceInfo,
    ErrorCode,
    ErrorReport,
    Event,
    Frame,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostHeartbeat,
    Led,
    Message,
    Pattern,
    SetLeds,
    Snapshot,
)

FUZZ = settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# A one-change event (seq 2: position 33 reads a red master) as it goes on the wire.
EVENT_HEX = "0303020601214171de00"


def test_an_event_from_a_hex_fixture() -> None:
    parser = FrameParser(Direction.FROM_DEVICE)
    assert parser.feed(bytes.fromhex(EVENT_HEX)) == [Frame(2, Event(((33, 0x41),)))]


def test_encoding_the_fixture_gives_its_bytes() -> None:
    assert encode_frame(2, Event(((33, 0x41),))).hex() == EVENT_HEX


EXAMPLES: list[Message] = [
    DeviceInfo(1, 1, 1, 127, Capability.HEIGHTS | Capability.LEDS, 250, "companion-sim 1"),
    DeviceInfo(1, 3, 1, 49, Capability.LEDS, 250, ""),
    Snapshot(bytes(range(127))),
    Snapshot(b""),
    Event(((0, 0), (126, 0xC1))),
    Heartbeat(2**32 - 1, 65535, 0),
    Ack(65535),
    ErrorReport(NO_SEQ, ErrorCode.CRC_MISMATCH),
    Hello(1),
    GetSnapshot(),
    SetLeds((Led(0, Colour.RED, Pattern.BLINK), Led(90, Colour.WHITE, Pattern.PULSE))),
    SetLeds((), clear_others=True),
    HostHeartbeat(),
]


@pytest.mark.parametrize("message", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(message: Message) -> None:
    wire = encode_frame(513, message)
    assert wire.count(0) == 1 and wire.endswith(b"\x00")
    assert decode_frame(wire[:-1]) == Frame(513, message)


def test_a_parser_takes_only_its_direction() -> None:
    host = FrameParser(Direction.FROM_DEVICE)
    assert host.feed(encode_frame(0, Hello())) == []
    assert host.dropped == 1 and host.last_error is not None
    assert host.last_error.code == ErrorCode.UNKNOWN_TYPE and host.last_error.seq == 0
    device = FrameParser(Direction.FROM_HOST)
    assert device.feed(encode_frame(0, Ack(3))) == []
    assert device.feed(encode_frame(1, Hello())) == [Frame(1, Hello())]


def test_byte_by_byte_and_concatenated() -> None:
    frames = [Frame(i, m) for i, m in enumerate(EXAMPLES[:8])]
    wire = b"".join(encode_frame(f.seq, f.message) for f in frames)
    parser = FrameParser(Direction.FROM_DEVICE)
    out = []
    for i in range(len(wire)):
        out += parser.feed(wire[i : i + 1])
    assert out == frames
    assert FrameParser(Direction.FROM_DEVICE).feed(wire) == frames


def test_a_partial_frame_waits_for_the_rest() -> None:
    wire = encode_frame(7, Snapshot(bytes(127)))
    parser = FrameParser(Direction.FROM_DEVICE)
    assert parser.feed(wire[:50]) == []
    assert parser.pending == 50
    assert parser.feed(wire[50:]) == [Frame(7, Snapshot(bytes(127)))]
    assert parser.pending == 0


def test_empty_frames_between_delimiters_are_ignored() -> None:
    parser = FrameParser(Direction.FROM_DEVICE)
    assert parser.feed(b"\x00\x00" + encode_frame(1, Ack(0)) + b"\x00") == [Frame(1, Ack(0))]
    assert parser.dropped == 0


def test_an_overlong_frame_is_dropped_and_the_next_one_read() -> None:
    parser = FrameParser(Direction.FROM_DEVICE)
    out = parser.feed(b"\x01" * (MAX_STUFFED + 10) + b"\x00" + encode_frame(4, Ack(1)))
    assert out == [Frame(4, Ack(1))]
    assert parser.dropped == 1
    assert parser.last_error is not None
    assert parser.last_error.code == ErrorCode.MALFORMED_FRAME


@pytest.mark.parametrize(
    "wire, code",
    [
        ("0303020601214171df", ErrorCode.CRC_MISMATCH),  # last CRC byte changed
        ("030302", ErrorCode.MALFORMED_FRAME),  # too short for a header and a CRC
        ("0503020621", ErrorCode.MALFORMED_FRAME),  # a COBS code past the end
        ("03070006", ErrorCode.MALFORMED_FRAME),  # a zero inside
    ],
)
def test_bad_frames_are_named(wire: str, code: ErrorCode) -> None:
    with pytest.raises(FrameError) as caught:
        decode_frame(bytes.fromhex(wire))
    assert caught.value.code == code


def _frame_with_payload(kind: int, seq: int, payload: bytes) -> bytes:
    from firmware_bridge import cobs
    from firmware_bridge.crc import crc16

    body = bytes([kind, seq & 0xFF, seq >> 8]) + payload
    crc = crc16(body)
    return cobs.encode(body + bytes([crc & 0xFF, crc >> 8]))


@pytest.mark.parametrize(
    "kind, payload, code",
    [
        (0x03, bytes([2, 1, 0x41]), ErrorCode.BAD_LENGTH),  # count 2, one change
        (0x03, bytes([0]), ErrorCode.BAD_LENGTH),  # an event without changes
        (0x03, bytes([2, 5, 1, 5, 2]), ErrorCode.BAD_VALUE),  # the same position twice
        (0x02, bytes([3, 0, 0]), ErrorCode.BAD_LENGTH),  # a snapshot short of its count
        (0x05, bytes([1]), ErrorCode.BAD_LENGTH),
        (0x83, bytes([1, 1, 4, 9, 0]), ErrorCode.BAD_VALUE),  # colour 9
        (0x83, bytes([1, 1, 4, 1, 3]), ErrorCode.BAD_VALUE),  # pattern 3
        (0x83, bytes([2, 0]), ErrorCode.BAD_VALUE),  # an unknown flag
        (0x81, b"", ErrorCode.BAD_LENGTH),
        (0x01, bytes([1, 1, 1, 127, 0x80, 250, 0]), ErrorCode.BAD_VALUE),  # capability bit
        (0x01, bytes([1, 1, 1, 127, 3, 250, 0]) + b"\x07name", ErrorCode.BAD_VALUE),
        (0x7E, b"", ErrorCode.UNKNOWN_TYPE),
    ],
)
def test_bad_payloads_keep_their_sequence(kind: int, payload: bytes, code: ErrorCode) -> None:
    with pytest.raises(FrameError) as caught:
        decode_frame(_frame_with_payload(kind, 0x0102, payload))
    assert (caught.value.code, caught.value.seq) == (code, 0x0102)


def test_messages_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        encode_frame(0, Snapshot(bytes(256)))
    with pytest.raises(ValueError, match="does not fit"):
        encode_frame(0, DeviceInfo(1, 1, 1, 127, Capability(0), 250, "é"))


# ----------------------------------------------------------------------------- fuzzing

readings = st.integers(0, 255)
device_messages = st.one_of(
    st.builds(Snapshot, st.binary(max_size=255)),
    st.builds(
        Event,
        st.lists(
            st.tuples(st.integers(0, 254), readings),
            min_size=1,
            max_size=127,
            unique_by=lambda c: c[0],
        ).map(tuple),
    ),
    st.builds(Heartbeat, st.integers(0, 2**32 - 1), st.integers(0, 65535), st.integers(0, 65535)),
    st.builds(Ack, st.integers(0, 65535)),
    st.builds(ErrorReport, st.integers(0, 65535), st.integers(0, 255)),
    st.builds(
        DeviceInfo,
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 255),
        st.sampled_from(list(Capability)),
        st.integers(1, 65535),
        st.text("abcxyz -1", max_size=32),
    ),
)
frames = st.lists(st.tuples(st.integers(0, 65535), device_messages), min_size=1, max_size=8).map(
    lambda fs: [Frame(seq, m) for seq, m in fs]
)


def _wire(sent: list[Frame]) -> list[bytes]:
    return [encode_frame(f.seq, f.message) for f in sent]


@FUZZ
@given(frames, st.data())
def test_any_chunking_gives_the_same_frames(sent: list[Frame], data: st.DataObject) -> None:
    wire = b"".join(_wire(sent))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=10)))
    parser = FrameParser(Direction.FROM_DEVICE)
    out = []
    for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True):
        out += parser.feed(wire[a:b])
    assert out == sent
    assert parser.dropped == 0


@FUZZ
@given(frames, st.data())
def test_corrupted_frames_are_dropped_never_misread(sent: list[Frame], data: st.DataObject) -> None:
    wires = _wire(sent)
    damaged = set()
    for i in data.draw(st.sets(st.integers(0, len(wires) - 1))):
        wire = bytearray(wires[i])
        how = data.draw(st.sampled_from(["flip", "truncate", "insert", "delete"]))
        at = data.draw(st.integers(0, len(wire) - 2))
        if how == "flip":
            wire[at] ^= data.draw(st.integers(1, 255))
        elif how == "truncate":
            del wire[at:-1]
        elif how == "insert":
            wire[at:at] = data.draw(st.binary(min_size=1, max_size=4))
        else:
            del wire[at]
        wires[i] = bytes(wire)
        damaged.add(i)
    parser = FrameParser(Direction.FROM_DEVICE)
    out = parser.feed(b"".join(wires))
    intact = [f for i, f in enumerate(sent) if i not in damaged]
    for frame in out:
        assert frame in sent  # nothing is made up
    # every delimiter is kept, so each intact frame still arrives, in order
    assert [f for f in out if f in intact] == intact
    assert len(out) <= len(sent)


@FUZZ
@given(frames, st.data())
def test_a_truncated_frame_does_not_take_the_next_one_down(
    sent: list[Frame], data: st.DataObject
) -> None:
    wires = _wire(sent)
    cut = data.draw(st.integers(1, len(wires[0]) - 1))
    parser = FrameParser(Direction.FROM_DEVICE)
    # a partial frame, then the link restarts with a delimiter (as the host sends)
    out = parser.feed(wires[0][:cut] + b"\x00" + b"".join(wires[1:]))
    assert out == sent[1:] or (cut == len(wires[0]) - 1 and out == sent)


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_never_crash_the_parser(noise: bytes) -> None:
    for direction in Direction:
        parser = FrameParser(direction)
        for frame in parser.feed(noise):
            # A frame out of noise would need a matching CRC: if one ever comes, it must
            # at least be a well-formed message that encodes back to the same bytes.
            assert decode_frame(encode_frame(frame.seq, frame.message)[:-1]) == frame
        assert parser.pending <= MAX_STUFFED


@FUZZ
@given(st.binary(max_size=600), frames)
def test_noise_before_frames_costs_at_most_the_first(noise: bytes, sent: list[Frame]) -> None:
    parser = FrameParser(Direction.FROM_DEVICE)
    out = parser.feed(noise + b"\x00" + b"".join(_wire(sent)))
    assert out[-len(sent) :] == sent
