"""Speech-interface noise (``asr``): the text is spoken by a TTS engine and transcribed by an ASR engine.

NoiseQA's synthetic ASR interface (Ravichander et al. 2021, §3.3): questions voiced by Google's TTS
and transcribed by Google's ASR. Here the voice and the recogniser are parameters:

* TTS (:mod:`.speech_tts`): ``gtts`` (Google; the accent is the Google domain, ``voice=co.uk``) or
  ``espeak`` (offline; ``voice`` is an accent such as ``en-us`` or ``en-gb-scotland``, ``variant``
  the speaker and gender such as ``f3``, ``rate`` words per minute);
* ASR (:mod:`.speech_asr`): ``whisper`` (openai-whisper; the default for real releases),
  ``hf-whisper`` (transformers; any checkpoint id + revision) or ``pocketsphinx`` (offline, English).

The recogniser's casing and punctuation are kept: they are part of what a speech interface does to a
question (the card reports the scores raw and, as NoiseQA reports BLEU, with case and punctuation removed:
:func:`noisecraft.core.stats.normalised_scores`). The edit log is a character alignment of the two
texts (:func:`noisecraft.core.edits.align`).

Builds call :meth:`SpeechInterfaceNoise.prepare` with every text of the split first: each distinct
text is synthesised once (audio cached under the TTS settings), then recognised in length-sorted
batches (transcripts cached under the recogniser's settings and the audio's fingerprint), so another
seed, another config with the same voice, or a re-run computes nothing twice, and a second recogniser
never re-synthesises. :meth:`~SpeechInterfaceNoise.apply` reads the results back.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from noisecraft.core.citations import NOISEQA_CITATION
from noisecraft.core.edits import Noised, align
from noisecraft.core.params import param
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseInput
from noisecraft.noise_models.model_base import ModelSettings
from noisecraft.noise_models.speech_asr import PocketsphinxRecogniser, Recogniser
from noisecraft.noise_models.speech_audio import decode_pcm, encode_pcm
from noisecraft.noise_models.speech_tts import (
    DEFAULT_ESPEAK_RATE,
    ESPEAK_VOICES,
    EspeakSynthesiser,
    GoogleSynthesiser,
    Synthesiser,
)
from noisecraft.runtime import CurrentCache, ResultCache, cache_root, cached_map
from noisecraft.runtime.batching import length_batches, stable_key
from noisecraft.runtime.offload import chunk_runner, gather_chunks, on_model_actor, run_here
from noisecraft.runtime.whisper import OpenAIWhisperRecogniser, TransformersWhisperRecogniser

TTS_ENGINES = ("gtts", "espeak")
ASR_ENGINES = ("whisper", "hf-whisper", "pocketsphinx")
DEFAULT_MODELS = {"whisper": "base", "hf-whisper": "openai/whisper-base"}
#: Characters of text in a batch of the inner loop (only ``batch_size`` binds for questions).
_BATCH_CHARACTERS = 200_000


@dataclass
class SpeechCaches:
    """The audio and transcript caches under one cache root, and the transcripts this process has read."""

    audio: ResultCache
    transcripts: ResultCache
    memo: dict[str, str] = field(default_factory=dict)


class SpeechRuntime:
    """The engines of one spec and their caches (under the current :func:`~noisecraft.runtime.cache_root`,
    read on every use, so ``NOISECRAFT_CACHE`` set after loading still applies)."""

    def __init__(self, synthesiser: Synthesiser, recogniser: Recogniser) -> None:
        self.synthesiser = synthesiser
        self.recogniser = recogniser
        self._audio = CurrentCache("speech-audio", synthesiser.fingerprint)
        # transcripts are keyed by the recogniser and by the audio cache they heard (its voice, rate, engine)
        self._transcripts = CurrentCache("speech-transcripts",
                                         lambda: {**recogniser.fingerprint(), "audio": self._audio.get().digest})
        self._memo: dict[Path, dict[str, str]] = {}  # transcripts read in this process, per transcript cache

    def caches(self) -> SpeechCaches:
        audio, transcripts = self._audio.get(), self._transcripts.get()
        return SpeechCaches(audio, transcripts, self._memo.setdefault(transcripts.path, {}))

    def transcribe(self, texts: Sequence[str], progress: bool) -> list[str]:
        """The transcript of every text (whitespace-only texts are returned as they are: nothing is spoken)."""
        caches = self.caches()
        known = caches.memo
        todo = [text for text in dict.fromkeys(texts) if text not in known]
        spoken = [text for text in todo if text.strip()]
        known.update((text, text) for text in todo if not text.strip())
        if spoken:
            found = cached_map(caches.transcripts, spoken, lambda missing, store: self._recognise(missing, store, progress))
            known.update(zip(spoken, found))
        return [known[text] for text in texts]

    def _recognise(self, texts: list[str], store: Callable[[list[Any], Sequence[Any]], None], progress: bool) -> list[str]:
        """Transcripts of texts no cache holds, in batches of similar length, each stored here as it finishes. In a
        Ray build's ``prepare`` pass every clip is synthesised here first (into the audio cache) and each batch is
        recognised by a model actor (:mod:`noisecraft.runtime.offload`): the same batches, so the same transcripts."""
        from tqdm.auto import tqdm

        batches = length_batches([len(t) for t in texts], _BATCH_CHARACTERS, self.recogniser.batch_size,
                                 [stable_key(t) for t in texts])
        chunks = [[texts[i] for i in batch] for batch in batches]
        runner = chunk_runner()
        if runner is None:
            runner = run_here
        else:
            for chunk in chunks:  # the audio cache then holds every clip the actors read (one batch in memory)
                self.audio(chunk)
        results: list[str] = [""] * len(texts)
        with tqdm(total=len(texts), desc="speech", unit="text", disable=not progress or not texts, leave=False) as bar:
            for size in gather_chunks(runner, partial(_recognise_chunk, self), chunks, batches, store, results, "speech"):
                bar.update(size)
        return results

    def __getstate__(self) -> dict[str, Any]:  # sent to model actors: the transcripts read here stay here
        return {**self.__dict__, "_memo": {}}

    def audio(self, texts: list[str]) -> list[Any]:
        """16 kHz clips of ``texts``, synthesised only when the audio cache does not hold them."""
        synthesise = self.synthesiser.synthesise

        def compute(missing: list[str], store: Callable[[list[Any], Sequence[Any]], None]) -> list[str]:
            if on_model_actor():  # the driver synthesised every clip of the chunk into its audio cache
                raise ConfigError(f"speech: a model actor on {os.uname().nodename} finds {len(missing)} clip(s) of its "
                                  f"batch missing from the audio cache at {cache_root()}: set NOISECRAFT_CACHE to a "
                                  "path shared by the driver and every node of the Ray cluster")
            encoded = [encode_pcm(synthesise(text)) for text in missing]
            store(missing, encoded)
            return encoded

        return [decode_pcm(value) for value in cached_map(self.caches().audio, texts, compute)]


def _recognise_chunk(runtime: SpeechRuntime, texts: list[str]) -> list[str]:
    """One batch's transcripts, where a chunk runner sends it (a model actor loads the recogniser once)."""
    return runtime.recogniser.recognise(runtime.audio(texts))


@dataclass(frozen=True)
class SpeechInterfaceNoise(ModelSettings):
    """Text -> speech (a TTS voice) -> recognised text (an ASR engine)."""

    tts: str = param("gtts", "speech synthesiser: gtts (Google, NoiseQA's; needs the network) or espeak "
                             "(espeak-ng, offline)", choices=TTS_ENGINES)
    voice: str | None = param(None, "espeak: voice or accent (en-us, en-gb, en-gb-scotland, en-029, ...; default the "
                                    "language's); gtts: the Google domain that picks the accent (com, co.uk, com.au, "
                                    "co.in; default com)")
    variant: str | None = param(None, "espeak only: voice variant, i.e. speaker and gender (m1-m8, f1-f5, ...; default "
                                      "the voice's own male speaker)")
    rate: int | None = param(None, f"espeak only: speaking rate in words per minute (default {DEFAULT_ESPEAK_RATE})",
                             min=80, max=450)
    asr: str = param("whisper", "speech recogniser: whisper (openai-whisper), hf-whisper (transformers) or "
                                "pocketsphinx (offline, English)", choices=ASR_ENGINES)
    asr_model: str | None = param(None, "whisper: a model size (tiny, base, small, medium, large-v3, ...; default base) "
                                        "or a .pt checkpoint; hf-whisper: a Hub id or saved folder (default "
                                        "openai/whisper-base); pocketsphinx: not used (its bundled en-US model)",
                                  file="model")
    revision: str | None = param(None, "hf-whisper: Hub revision (branch, tag or commit); the resolved commit is recorded")
    lm: str | None = param(None, "pocketsphinx: an ARPA language model (default the bundled generic en-US one); its "
                                 "words are looked up in the bundled CMU dictionary", file="file")
    lang: str = param("en", "language of the text: the TTS voice and the recogniser's language (set by the build)")
    batch_size: int = param(64, "Whisper: clips decoded together, each padded to a 30 s window (recorded with the "
                                "decode settings)", min=1, init_only=True)

    name: ClassVar[str] = "asr"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = NOISEQA_CITATION
    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, edit_log="aligned", deterministic=True,
                                                        model_based=True)

    # --- parameters ----------------------------------------------------------------------------------------------

    def check(self) -> None:
        if self.tts == "gtts":
            if self.variant is not None or self.rate is not None:
                raise ConfigError(f"{self.noise_id}: gTTS has no voice variants or speaking rates; use tts=espeak for them")
        elif self.lang not in ESPEAK_VOICES:
            raise ConfigError(f"{self.noise_id}: no espeak-ng voice is set up for {self.lang!r}; languages: "
                              f"{', '.join(sorted(ESPEAK_VOICES))}")
        if self.asr == "pocketsphinx":
            if self.asr_model is not None or self.revision is not None:
                raise ConfigError(f"{self.noise_id}: pocketsphinx uses its bundled en-US model (no asr_model/revision); "
                                  "a domain language model is lm=FILE")
        elif self.lm is not None:
            raise ConfigError(f"{self.noise_id}: lm is a pocketsphinx language model; asr={self.asr} takes none")
        if self.asr == "whisper" and self.revision is not None:
            raise ConfigError(f"{self.noise_id}: openai-whisper checkpoints have no revision (their sha256 is recorded); "
                              "use asr=hf-whisper for a Hub revision")

    def resolved_voice(self) -> str:
        """The voice actually used (the language's default when none is given)."""
        if self.voice is not None:
            return self.voice
        return "com" if self.tts == "gtts" else ESPEAK_VOICES[self.lang]

    def resolved_model(self) -> str | None:
        """The recogniser's model (the engine's default when none is given; ``None`` for pocketsphinx)."""
        return self.asr_model if self.asr_model is not None else DEFAULT_MODELS.get(self.asr)

    def params(self) -> dict[str, Any]:
        recorded = super().params()
        recorded["voice"] = self.resolved_voice()
        if self.tts == "espeak" and self.rate is None:
            recorded["rate"] = DEFAULT_ESPEAK_RATE
        recorded["asr_model"] = self.resolved_model()
        return recorded

    def seed_params(self) -> dict[str, Any]:
        """The parameters as resolved (the default voice and rate written out, so a spec and its text form agree),
        with the recogniser's model by name and resolved revision (a local model by the digest of its files: a
        path is not its content)."""
        seeded = {**super().seed_params(), "voice": self.resolved_voice(), "rate": self.params()["rate"]}
        seeded.pop("asr_model_digest", None)
        if self.asr != "pocketsphinx":
            fingerprint = self.runtime().recogniser.fingerprint()
            seeded["asr_model"], seeded["asr_revision"] = fingerprint["model"], fingerprint["revision"]
        return seeded

    # --- runtime ---------------------------------------------------------------------------------------------------

    def load(self) -> SpeechRuntime:
        """Resolve both engines (a missing package, voice, model or language fails here); weights load later."""
        synthesiser: Synthesiser
        if self.tts == "espeak":
            synthesiser = EspeakSynthesiser(self.resolved_voice(), self.variant, self.rate or DEFAULT_ESPEAK_RATE)
            synthesiser.check(self.lang)
        else:
            synthesiser = GoogleSynthesiser(self.lang, self.resolved_voice())
            synthesiser.check()
        recogniser: Recogniser
        if self.asr == "pocketsphinx":
            recogniser = PocketsphinxRecogniser.resolve(self.lm, self.lang)
        elif self.asr == "whisper":
            recogniser = OpenAIWhisperRecogniser.resolve(str(self.resolved_model()), self.lang, self.batch_size,
                                                         self.device, self.dtype)
        else:
            recogniser = TransformersWhisperRecogniser.resolve(str(self.resolved_model()), self.revision, self.lang,
                                                               self.batch_size, self.device, self.dtype)
        return SpeechRuntime(synthesiser, recogniser)

    def describe(self) -> str:
        if self.tts == "gtts":
            voice = f"Google TTS (gTTS) with the `{self.resolved_voice()}` accent"
        else:
            speaker = f", variant `{self.variant}`" if self.variant else ""
            voice = (f"espeak-ng voice `{self.resolved_voice()}`{speaker} at {self.rate or DEFAULT_ESPEAK_RATE} "
                     "words per minute")
        recogniser = {"whisper": f"openai-whisper `{self.resolved_model()}`",
                      "hf-whisper": f"transformers Whisper `{self.resolved_model()}`",
                      "pocketsphinx": "pocketsphinx (bundled en-US acoustic model, "
                                      + (f"language model `{self.lm}`)" if self.lm else "bundled generic language model)")}
        return (f"Speech interface (NoiseQA's synthetic ASR): each text is spoken by {voice}, resampled to 16 kHz mono, "
                f"and transcribed by {recogniser[self.asr]} with deterministic decoding (greedy, temperature 0). "
                "The recogniser's casing and punctuation are kept; the edit log is a character alignment of the "
                "transcript with the original. Statistics are given raw (case and punctuation count as errors) and, as "
                "NoiseQA reports them, uncased without punctuation.")

    def provenance(self) -> dict[str, Any]:
        runtime: SpeechRuntime = self.runtime()
        caches = runtime.caches()
        return {"tts": runtime.synthesiser.fingerprint(), "asr": runtime.recogniser.provenance(),
                "caches": {"audio": caches.audio.digest, "transcripts": caches.transcripts.digest}}

    # --- noise -----------------------------------------------------------------------------------------------------

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        self.runtime().transcribe(list(batch.texts), progress)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        transcripts = self.runtime().transcribe(list(batch.texts), progress=False)
        return [Noised(noisy, align(text, noisy, "asr")) for text, noisy in zip(batch.texts, transcripts)]
