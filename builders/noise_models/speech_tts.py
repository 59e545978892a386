"""Text-to-speech engines of the speech noise: espeak-ng (offline) and gTTS (Google, NoiseQA's).

* **espeak-ng** comes from the ``espeakng-loader`` wheel, which ships ``libespeak-ng`` and every
  voice but no program and no Python API: it is driven through ctypes. A voice is a language or
  accent (``en-us``, ``en-gb-scotland``, ``en-029``); a *variant* (``m3``, ``f2``, ...) changes the
  speaker, gender included; ``rate`` is words per minute.
* **gTTS** asks Google Translate's speech endpoint for an MP3 (decoded with soundfile); the accent
  of a language is picked by the Google domain (``tld``: ``com``, ``co.uk``, ``com.au``, ``co.in``).
  It needs the network: without it the first synthesis fails with a one-line error naming the
  offline engine.

Every engine returns 16 kHz mono float32 clips (:mod:`.speech_audio`) and says, in
:meth:`fingerprint`, everything that decides its audio; that dictionary is the audio cache's
key, so a second recogniser or another seed never synthesises a text twice.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import io
import json
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.noise_models.speech_audio import RESAMPLER, SAMPLE_RATE, numpy, to_16k
from noisecraft.runtime import library_versions

#: The espeak-ng voice of each XQuAD language (``cmn`` is Mandarin).
ESPEAK_VOICES = {"ar": "ar", "de": "de", "el": "el", "en": "en-us", "es": "es", "hi": "hi", "ro": "ro", "ru": "ru",
                 "th": "th", "tr": "tr", "vi": "vi", "zh": "cmn"}
#: gTTS language codes where they differ from the ISO code.
GTTS_LANGUAGES = {"zh": "zh-CN"}
#: The accents NoiseQA-style grids use (any Google domain is accepted).
GTTS_ACCENTS = ("com", "co.uk", "com.au", "co.in")
DEFAULT_ESPEAK_RATE = 175
_TLD = re.compile(r"[a-z]{2,3}(\.[a-z]{2,3})?")


class Synthesiser(Protocol):
    """A TTS engine with fixed settings."""

    def fingerprint(self) -> dict[str, Any]:
        """Everything that decides the audio (engine, versions, voice, settings): the audio cache's key."""

    def synthesise(self, text: str) -> Any:
        """16 kHz mono float32 samples of ``text`` spoken."""


# --- espeak-ng through ctypes ------------------------------------------------------------------------------------

_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000  # report errors instead of calling exit()
_PARAM_RATE = 1
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_NOISE_SEED = 1
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)


class _Voice(ctypes.Structure):
    """``espeak_VOICE`` of speak_lib.h."""

    _fields_ = [("name", ctypes.c_char_p), ("languages", ctypes.c_void_p), ("identifier", ctypes.c_char_p),
                ("gender", ctypes.c_ubyte), ("age", ctypes.c_ubyte), ("variant", ctypes.c_ubyte),
                ("xx1", ctypes.c_ubyte), ("score", ctypes.c_int), ("spare", ctypes.c_void_p)]


class EspeakLibrary:
    """The process's one libespeak-ng (its state is global: initialised once, used under a lock)."""

    def __init__(self) -> None:
        loader = require("espeakng_loader", "speech")
        self.lib = lib = ctypes.CDLL(loader.get_library_path())
        data_parent = str(Path(loader.get_data_path()).parent).encode()  # the folder *containing* espeak-ng-data
        self.sample_rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_parent, _INITIALIZE_DONT_EXIT)
        if self.sample_rate <= 0:
            raise ConfigError(f"libespeak-ng from espeakng-loader failed to start (code {self.sample_rate})")
        lib.espeak_Info.restype = ctypes.c_char_p
        self.version = lib.espeak_Info(None).decode()
        lib.espeak_ListVoices.restype = ctypes.POINTER(ctypes.POINTER(_Voice))
        lib.espeak_ListVoices.argtypes = [ctypes.POINTER(_Voice)]
        self.lock = threading.Lock()
        self._files: dict[str, str | None] = {}
        self._chunks: list[bytes] = []
        self._callback = _CALLBACK(self._collect)  # kept referenced: the library calls it
        lib.espeak_SetSynthCallback(self._callback)

    def _collect(self, wav: Any, count: int, events: Any) -> int:
        if count > 0:
            self._chunks.append(ctypes.string_at(wav, count * 2))
        return 0

    def _listed(self, spec: _Voice | None) -> list[tuple[str, list[str]]]:
        """(identifier, languages) of the voices ``espeak_ListVoices`` gives for ``spec``."""
        found = self.lib.espeak_ListVoices(ctypes.byref(spec) if spec is not None else None)
        voices = []
        i = 0
        while found[i]:
            voice = found[i].contents
            languages, address = [], voice.languages
            while address and ctypes.c_ubyte.from_address(address).value:  # priority byte, then a C string
                language = ctypes.string_at(address + 1)
                languages.append(language.decode())
                address += 2 + len(language)
            voices.append((voice.identifier.decode(), languages))
            i += 1
        return voices

    def voices(self) -> list[tuple[str, list[str]]]:
        """Every voice: its identifier (``gmw/en-US``) and the language codes it speaks."""
        with self.lock:
            return self._listed(None)

    def variants(self) -> list[str]:
        """Names of the voice variants (``m3``, ``f2``, ``klatt``, ...)."""
        spec = _Voice()
        spec.languages = ctypes.cast(ctypes.c_char_p(b"variant"), ctypes.c_void_p)
        with self.lock:
            return sorted(identifier.split("/", 1)[1] for identifier, _ in self._listed(spec))

    def voice_file(self, voice: str) -> str | None:
        """The voice file ``espeak_SetVoiceByName`` takes for a voice given by its file name or language code
        (``en-gb`` is the file ``gmw/en``), or ``None``."""
        wanted = voice.lower()
        if wanted not in self._files:
            self._files[wanted] = next((identifier.rsplit("/", 1)[-1] for identifier, languages in self.voices()
                                        if identifier.rsplit("/", 1)[-1].lower() == wanted
                                        or (languages and languages[0] == wanted)), None)
        return self._files[wanted]

    def synthesise_here(self, text: str, voice_file: str, variant: str | None, rate: int) -> bytes:
        """int16 samples at :attr:`sample_rate`, synthesised in this process: only a pristine process (a
        fresh child of :func:`_serve`) gives the same audio for the same text, see :class:`EspeakSpeaker`."""
        name = voice_file if variant is None else f"{voice_file}+{variant}"
        data = text.encode("utf-8") + b"\0"
        with self.lock:
            self._chunks = []
            if self.lib.espeak_SetVoiceByName(name.encode()) != 0:
                raise ConfigError(f"espeak-ng cannot load voice {name!r}")
            self.lib.espeak_SetParameter(_PARAM_RATE, rate, 0)
            # voice variants add breath and roughness noise from espeak's generator and libc's rand(), seeded per
            # process (by time): fixed seeds make the noise part of the settings, not of the moment
            self.lib.espeak_ng_SetRandSeed(ctypes.c_long(_NOISE_SEED))
            _libc().srand(_NOISE_SEED)
            code = self.lib.espeak_Synth(data, len(data), 0, _POS_CHARACTER, 0, _CHARS_UTF8, None, None)
            self.lib.espeak_Synchronize()
            chunks, self._chunks = self._chunks, []
        if code != 0:
            raise RuntimeError(f"espeak-ng could not synthesise {text[:40]!r} (code {code})")
        return b"".join(chunks)


@cache
def _libc() -> Any:
    return ctypes.CDLL(ctypes.util.find_library("c"))


@cache
def espeak_library() -> EspeakLibrary:
    """This process's libespeak-ng, for voices, variants and version; it never synthesises (see :class:`EspeakSpeaker`)."""
    return EspeakLibrary()


def _serve() -> None:
    """The speaker process: an initialised libespeak-ng that never synthesises itself; each request is spoken
    by a fresh fork of it, so every clip starts from the same library state."""
    library = EspeakLibrary()
    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    for line in requests:
        text, voice_file, variant, rate = json.loads(line)
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # the child speaks, answers, and exits without running any of the parent's cleanup
            os.close(read)
            try:
                status, payload = b"ok", library.synthesise_here(text, voice_file, variant, rate)
            except Exception as exc:  # noqa: BLE001 - reported to the client as one line
                status, payload = b"er", str(exc).encode()
            with os.fdopen(write, "wb") as out:
                out.write(status + len(payload).to_bytes(8, "little") + payload)
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(child, 0)
        replies.write(answer)
        replies.flush()


class EspeakSpeaker:
    """Synthesis in a helper process (:func:`_serve`). libespeak-ng keeps state from one utterance to the next
    that no API call resets (reseeding and re-initialising do not), so the same text spoken twice in one process
    gives different samples, even different lengths; and voice variants draw noise from generators seeded per
    process. A fresh fork of an initialised library per clip, with fixed seeds, makes a clip a function of its
    text and settings alone (about 5 ms per fork). Needs ``os.fork`` (Linux, macOS)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "noisecraft.noise_models.speech_tts"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()
        atexit.register(self.close)

    def close(self) -> None:
        """End the helper process (its input closed, it exits): at interpreter exit, never left running."""
        if self.process.poll() is None:
            assert self.process.stdin is not None and self.process.stdout is not None
            self.process.stdin.close()
            self.process.wait(timeout=10)
            self.process.stdout.close()

    def speak(self, text: str, voice: str, variant: str | None, rate: int) -> Any:
        """int16 samples at the library's sample rate of ``text`` in ``voice`` (a file name or language code)."""
        np = numpy()
        voice_file = espeak_library().voice_file(voice)
        if voice_file is None:
            raise ConfigError(f"espeak-ng has no voice {voice!r}")
        request = json.dumps([text, voice_file, variant, rate], ensure_ascii=True).encode() + b"\n"
        with self.lock:
            stdin, stdout = self.process.stdin, self.process.stdout
            assert stdin is not None and stdout is not None
            stdin.write(request)
            stdin.flush()
            head = stdout.read(10)
            if len(head) < 10:
                raise RuntimeError("the espeak-ng speaker process stopped")
            payload = stdout.read(int.from_bytes(head[2:], "little"))
        if head[:2] != b"ok":
            raise RuntimeError(f"espeak-ng could not synthesise {text[:40]!r}: {payload.decode(errors='replace')}")
        return np.frombuffer(payload, dtype=np.int16)


@cache
def espeak_speaker() -> EspeakSpeaker:
    """This process's espeak-ng speaker process, started on first use."""
    return EspeakSpeaker()


@dataclass(frozen=True)
class EspeakSynthesiser:
    """espeak-ng with a voice, an optional variant and a rate (words per minute)."""

    voice: str
    variant: str | None
    rate: int

    def check(self, lang: str) -> None:
        """Fail now, naming what exists, when the voice or variant is unknown."""
        library = espeak_library()
        if not self.voice.lower().startswith(ESPEAK_VOICES[lang].split("-")[0]):
            raise ConfigError(f"espeak-ng voice {self.voice!r} does not speak {lang!r}; its voices for {lang}: "
                              f"{', '.join(voices_for(lang))}")
        if library.voice_file(self.voice) is None:
            raise ConfigError(f"espeak-ng has no voice {self.voice!r}; voices for {lang}: {', '.join(voices_for(lang))}")
        if self.variant is not None and self.variant not in library.variants():
            raise ConfigError(f"espeak-ng has no variant {self.variant!r}; variants: {', '.join(library.variants())}")

    def fingerprint(self) -> dict[str, Any]:
        return {"engine": "espeak-ng", "libespeak-ng": espeak_library().version,
                "libraries": library_versions("espeakng-loader"), "voice": self.voice, "variant": self.variant,
                "rate": self.rate, "sample_rate": SAMPLE_RATE, "resampler": RESAMPLER}

    def synthesise(self, text: str) -> Any:
        samples = espeak_speaker().speak(text, self.voice, self.variant, self.rate)
        return to_16k(samples, espeak_library().sample_rate)


def voices_for(lang: str) -> list[str]:
    """The espeak-ng language codes of ``lang``'s voices (accents), e.g. ``en-us``, ``en-gb-scotland``."""
    family = ESPEAK_VOICES[lang].split("-")[0]
    return sorted({code for _, codes in espeak_library().voices() for code in codes[:1]
                   if code.split("-")[0] == family})


# --- gTTS ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GoogleSynthesiser:
    """gTTS (Google Translate's speech) in a language, with the accent of a Google domain."""

    lang: str
    tld: str

    def check(self) -> None:
        require("gtts", "speech")
        require("soundfile", "speech")
        from gtts.lang import tts_langs

        if GTTS_LANGUAGES.get(self.lang, self.lang) not in tts_langs():
            raise ConfigError(f"gTTS does not speak {self.lang!r}")
        if not _TLD.fullmatch(self.tld):
            raise ConfigError(f"gTTS accent {self.tld!r} is not a Google domain such as {', '.join(GTTS_ACCENTS)}")

    def fingerprint(self) -> dict[str, Any]:
        return {"engine": "gtts", "libraries": library_versions("gTTS"), "lang": GTTS_LANGUAGES.get(self.lang, self.lang),
                "tld": self.tld, "sample_rate": SAMPLE_RATE, "resampler": RESAMPLER}

    def synthesise(self, text: str) -> Any:
        import soundfile
        from gtts import gTTS
        from gtts.tts import gTTSError

        mp3 = io.BytesIO()
        try:
            gTTS(text, lang=GTTS_LANGUAGES.get(self.lang, self.lang), tld=self.tld).write_to_fp(mp3)
        except gTTSError as exc:
            raise ConfigError(f"gTTS could not synthesise speech ({exc}); it needs translate.google.{self.tld}: "
                              "build where there is network, or use tts=espeak (offline)") from exc
        mp3.seek(0)
        samples, rate = soundfile.read(mp3, dtype="float32")
        return to_16k(samples, rate)


if __name__ == "__main__":
    _serve()
