"""The alarm played with an illegal move: a short falling two-tone chime, made once with
numpy and kept as a WAV file in the app's data folder (no sound files to ship)."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

RATE = 22050
TONES = ((880.0, 0.14), (587.0, 0.22))
"""(frequency in Hz, seconds) of each tone, in order."""
VOLUME = 0.5


def alarm_samples() -> np.ndarray:
    """The chime as 16-bit samples, each tone faded in and out so it does not click."""
    parts = []
    for frequency, seconds in TONES:
        t = np.arange(int(RATE * seconds)) / RATE
        envelope = np.minimum(1.0, np.minimum(t, seconds - t) / 0.01)
        parts.append(np.sin(2 * np.pi * frequency * t) * envelope)
    wave_data = np.concatenate(parts) * VOLUME * 32767
    return wave_data.astype("<i2")


def alarm_file(folder: Path) -> Path:
    """The chime's WAV file in ``folder``, written the first time it is needed."""
    path = folder / "alarm.wav"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(alarm_samples().tobytes())
    return path
