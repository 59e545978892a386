"""Audio as the speech noise passes it from a synthesiser to a recogniser: 16 kHz mono.

Every recogniser here (Whisper, pocketsphinx's en-US model) expects 16 kHz mono, and every
synthesiser gives something else (espeak-ng 22,050 Hz, gTTS 24 kHz MP3), so audio is resampled
once, when it is made, and cached in that form. Resampling is band-limited (FFT: the spectrum is
cut at the new Nyquist frequency), which needs nothing beyond numpy and leaves no aliasing; a speech
clip starts and ends in silence, so the FFT's implied periodicity adds no edge artefacts.

In the audio cache a clip is the base64 text of its little-endian signed 16-bit samples: the
runtime's cache stores JSON values, and 16-bit PCM is what the synthesisers produce, so nothing is
lost by storing it that way.
"""

from __future__ import annotations

import base64
from typing import Any

from noisecraft.runtime.whisper import SAMPLE_RATE  # every clip handed to a recogniser: Whisper's rate

#: How resampling is done; part of the audio cache's fingerprint, so a change re-synthesises.
RESAMPLER = "fft-bandlimited-v1"


def numpy() -> Any:
    """numpy, or the extra that installs it."""
    from noisecraft.extras import require

    return require("numpy", "speech")


def to_16k(samples: Any, rate: int) -> Any:
    """Mono float32 samples in [-1, 1] at 16 kHz from ``samples`` (int16 or float; ``(n,)`` or
    ``(n, channels)``) at ``rate`` Hz."""
    np = numpy()
    audio = np.asarray(samples)
    if audio.dtype == np.int16:
        audio = audio.astype(np.float32) / 32768.0
    audio = audio.astype(np.float32)
    if audio.ndim == 2:
        audio = audio.mean(axis=1)
    if rate == SAMPLE_RATE or audio.size == 0:
        return audio
    length = round(audio.size * SAMPLE_RATE / rate)
    spectrum = np.fft.rfft(audio.astype(np.float64))[: length // 2 + 1]
    resampled = np.fft.irfft(spectrum, length) * (length / audio.size)
    return np.clip(resampled, -1.0, 1.0).astype(np.float32)


def encode_pcm(audio: Any) -> str:
    """A 16 kHz float32 clip as base64 of little-endian int16 samples (how the audio cache stores it)."""
    return base64.b64encode(pcm_bytes(audio)).decode("ascii")


def decode_pcm(text: str) -> Any:
    """The float32 clip that :func:`encode_pcm` stored."""
    np = numpy()
    return np.frombuffer(base64.b64decode(text), dtype="<i2").astype(np.float32) / 32768.0


def pcm_bytes(audio: Any) -> bytes:
    """Raw little-endian int16 samples (what pocketsphinx reads)."""
    np = numpy()
    return np.clip(np.round(np.asarray(audio, dtype=np.float32) * 32767.0), -32768, 32767).astype("<i2").tobytes()
