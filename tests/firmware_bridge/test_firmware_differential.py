"""The C firmware and the Python device implement one protocol: fed the same records
(host bytes, sensor readings, time passing), they send the same bytes and set the same
LEDs. The C side is the firmware's own ``device.c`` and ``protocol.c`` compiled with gcc
on a scripted hardware layer (``device_harness.c``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from firmware_bridge.device import DeviceCore
from firmware_bridge.layouts import layout_for
from firmware_bridge.messages import SCAN_HZ
from tests.firmware_bridge.fuzz import HOST_TYPES, good_host_frame, mutate, nonsense_frame

FIRMWARE = Path(__file__).parents[2] / "firmware_bridge" / "firmware"
HARNESS = Path(__file__).with_name("device_harness.c")
GAMES = ("shangrila", "shendao", "shenshi")
SCAN_MS = 1000 // SCAN_HZ

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None,
    reason="the differential test compiles the C firmware with "
    "gcc, which is not installed (apt-get install gcc)",
)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    program = tmp_path_factory.mktemp("harness") / "device_harness"
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            f"-I{FIRMWARE}",
            "-o",
            str(program),
            str(HARNESS),
            str(FIRMWARE / "device.c"),
            str(FIRMWARE / "protocol.c"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return program


def records(seed: int, count: int, positions: int) -> list[str]:
    """``count`` seeded records: host frames (nonsense with a right CRC, good ones,
    damaged ones, a few at once, split across records), raw bytes, sensor readings and
    time passing."""
    rng = np.random.default_rng(seed)
    out: list[str] = []
    seq = 0

    def host_frame() -> bytes:
        nonlocal seq
        seq += 1
        roll = rng.random()
        if roll < 0.45:
            return nonsense_frame(rng, HOST_TYPES, host=True)
        if roll < 0.75:
            return good_host_frame(rng, seq, positions)
        return mutate(rng, good_host_frame(rng, seq, positions))

    def arrive(data: bytes) -> None:
        if data:
            out.append("h " + data.hex())

    while len(out) < count:
        roll = rng.random()
        if roll < 0.5:
            arrive(host_frame())
        elif roll < 0.6:
            arrive(b"".join(host_frame() for _ in range(rng.integers(2, 9))))
        elif roll < 0.65:
            data = host_frame()
            cut = int(rng.integers(0, len(data) + 1))
            arrive(data[:cut])
            arrive(data[cut:])
        elif roll < 0.7:
            size = int(rng.choice([int(rng.integers(1, 40)), int(rng.integers(500, 1200))]))
            noise = rng.integers(0, 256, size, dtype=np.uint8)
            if rng.random() < 0.5:
                noise[noise == 0] = 1
            arrive(bytes(noise.tolist()))
        elif roll < 0.85:
            out.append(f"s {rng.integers(0, positions)} {rng.integers(0, 256)}")
        else:
            out.append(f"t {rng.choice([10, 10, 10, 20, 250, 3010])}")
    return out[:count]


def python_answers(game: str, lines: list[str]) -> list[str]:
    """What the Python device sends and lights for each record, as the harness prints.
    Each record is one pass of the firmware's main loop, which scans when a scan is due
    (catching up one scan a pass, unless it fell more than 50 scans behind)."""
    layout = layout_for(game)
    core = DeviceCore(layout)
    shown = [0] * layout.positions
    now = last_scan = 0
    out = []
    for line in lines:
        kind, *fields = line.split()
        if kind == "h":
            core.receive(bytes.fromhex(fields[0]), now)
        elif kind == "s":
            core.sense_one(int(fields[0]), int(fields[1]))
        else:
            now += int(fields[0])
        if now - last_scan >= SCAN_MS:
            last_scan += SCAN_MS
            if now - last_scan > 50 * SCAN_MS:
                last_scan = now
            core.scan()
        core.tick(now)
        sent = b""
        while (frame := core.take_frame()) is not None:
            sent += frame
        changed = []
        for position, (colour, pattern) in enumerate(core.leds):
            value = int(colour) | int(pattern) << 4
            if value != shown[position]:
                changed.append(f"{position}:{value:02x}")
                shown[position] = value
        out.append(f"{sent.hex() or '-'} {','.join(changed) or '-'}")
    return out


def c_answers(harness: Path, game: str, lines: list[str]) -> list[str]:
    result = subprocess.run(
        [str(harness), game],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return result.stdout.splitlines()


def disagreements(harness: Path, game: str, seed: int, count: int) -> list[str]:
    """The records after which the two devices' output first differs (with context),
    and how many records differ in all."""
    lines = records(seed, count, layout_for(game).positions)
    python, c = python_answers(game, lines), c_answers(harness, game, lines)
    assert len(c) == len(lines)
    differing = [i for i, (p, k) in enumerate(zip(python, c, strict=True)) if p != k]
    if not differing:
        return []
    first = differing[0]
    return [
        f"{len(differing)} of {count} records differ; the first, record {first}: "
        f"{lines[first]}\n  python: {python[first]}\n  c:      {c[first]}"
    ]


@pytest.mark.parametrize("game", GAMES)
def test_the_c_firmware_and_the_python_device_agree(harness: Path, game: str) -> None:
    assert disagreements(harness, game, seed=GAMES.index(game), count=4000) == []


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_c_firmware_and_the_python_device_agree_wide(harness: Path, game: str) -> None:
    for seed in range(10, 14):
        assert disagreements(harness, game, seed=seed * 7 + GAMES.index(game), count=50_000) == []
