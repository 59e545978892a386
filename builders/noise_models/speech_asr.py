"""Speech recognisers of the speech noise: openai-whisper, transformers Whisper and pocketsphinx.

Each takes 16 kHz mono float32 clips and returns one transcript per clip, in order, with the
recogniser's own casing and punctuation (only surrounding whitespace is stripped). Decoding is
deterministic: greedy, temperature 0, no temperature fallback, no sampling.

* **openai-whisper** (the default for real releases): a model size (``base``; the checkpoint's
  sha256, which its download URL carries, is recorded) or a local ``.pt`` checkpoint. Clips of up to
  30 s are padded to one 30 s window and decoded in batches with ``whisper.decode``; longer clips go
  through ``transcribe`` one at a time. On a GPU it decodes in float16 (openai-whisper has no bf16 path).
* **transformers Whisper**: any checkpoint id and revision (resolved to a commit by
  :func:`noisecraft.runtime.resolve_model`) or a saved folder; batched ``generate`` on padded 30 s
  windows, long-form generation for longer clips.
* **pocketsphinx**: the en-US acoustic model and language model its wheel ships, fully offline. A
  domain language model (ARPA, see :func:`write_domain_lm`) may replace the generic one; its words
  are then looked up in the bundled CMU dictionary, cut down to them (loading the full 134k-word
  dictionary with a text LM takes seconds, the cut-down one milliseconds).

A recogniser says in :meth:`fingerprint` everything that decides its transcripts (model and resolved
revision, decode settings, precision, library versions; never the device or the batch size): the
transcript cache's key. :meth:`provenance` adds the device, as the card records it.
Models load on the first clip, never when a spec is made.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.noise_models.speech_audio import SAMPLE_RATE, pcm_bytes
from noisecraft.runtime import Placement, library_versions, load_pretrained, pick_placement, resolve_model
from noisecraft.text_files import text_lines

#: Samples in one Whisper window (30 s).
WINDOW = 30 * SAMPLE_RATE
EXTRA = "speech"


class Recogniser(Protocol):
    """An ASR engine with a fixed model and decode settings."""

    batch_size: int

    def fingerprint(self) -> dict[str, Any]:
        """Everything that decides the transcripts: the transcript cache's key."""

    def provenance(self) -> dict[str, Any]:
        """The fingerprint plus the device (where there is one), as the card records it."""

    def recognise(self, clips: Sequence[Any]) -> list[str]:
        """One transcript per 16 kHz clip, in order."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def _placement(device: str, dtype: str) -> Placement:
    return pick_placement(device, dtype, extra=EXTRA)


# --- openai-whisper ------------------------------------------------------------------------------------------------


@dataclass
class OpenAIWhisperRecogniser:
    """openai-whisper: a named size (downloaded once to ``~/.cache/whisper``) or a local ``.pt`` checkpoint."""

    model: str
    lang: str
    batch_size: int
    placement: Placement
    revision: str = ""
    _loaded: Any = field(default=None, repr=False)

    @classmethod
    def resolve(cls, model: str, lang: str, batch_size: int, device: str, dtype: str) -> OpenAIWhisperRecogniser:
        whisper = require("whisper", EXTRA)
        path = Path(model).expanduser()
        if model in whisper._MODELS:
            revision = "sha256:" + whisper._MODELS[model].split("/")[-2]  # the URL names the checkpoint's sha256
            if model.endswith(".en") and lang != "en":
                raise ConfigError(f"openai-whisper model {model!r} is English-only; for {lang!r} use a multilingual "
                                  f"size ({model.removesuffix('.en')})")
        elif path.is_file():
            revision = _sha256(path)
        else:
            raise ConfigError(f"openai-whisper model {model!r}: not a model size ({', '.join(whisper.available_models())})"
                              " and no such .pt checkpoint")
        if lang not in whisper.tokenizer.LANGUAGES:
            raise ConfigError(f"openai-whisper does not recognise {lang!r}")
        placement = _placement(device, dtype)
        if placement.dtype == "bfloat16":  # openai-whisper decodes in float16 or float32 only
            placement = Placement(placement.device, "float16")
        return cls(str(path) if path.is_file() else model, lang, batch_size, placement, revision)

    def fingerprint(self) -> dict[str, Any]:
        name = Path(self.model).name if os.sep in self.model else self.model
        return {"engine": "openai-whisper", "model": name, "revision": self.revision, "lang": self.lang,
                "decode": {"task": "transcribe", "temperature": 0.0, "beam_size": None, "fallback": False,
                           "without_timestamps": True, "window_s": 30},
                "dtype": self.placement.dtype, "libraries": library_versions("torch", "openai-whisper")}

    def provenance(self) -> dict[str, Any]:
        return {**self.fingerprint(), "device": self.placement.kind}

    def _model(self) -> Any:
        if self._loaded is None:
            import whisper

            try:
                self._loaded = whisper.load_model(self.model, device=self.placement.device).eval()
            except (OSError, RuntimeError) as exc:  # urllib's URLError is an OSError
                raise ConfigError(f"openai-whisper cannot load model {self.model!r} ({' '.join(str(exc).split())}): "
                                  "download it where there is network (it is kept in ~/.cache/whisper) or pass "
                                  "asr_model=PATH.pt") from exc
            if self.lang != "en" and not self._loaded.is_multilingual:
                raise ConfigError(f"openai-whisper checkpoint {self.model!r} is English-only: it cannot recognise {self.lang!r}")
        return self._loaded

    def recognise(self, clips: Sequence[Any]) -> list[str]:
        import torch
        import whisper

        model = self._model()
        fp16 = self.placement.dtype == "float16"
        texts: list[str | None] = [None] * len(clips)
        short = [i for i, clip in enumerate(clips) if len(clip) <= WINDOW]
        with torch.inference_mode():
            if short:
                mels = torch.stack([whisper.log_mel_spectrogram(whisper.pad_or_trim(torch.from_numpy(clips[i])),
                                                                n_mels=model.dims.n_mels) for i in short])
                options = whisper.DecodingOptions(task="transcribe", language=self.lang, temperature=0.0,
                                                  without_timestamps=True, fp16=fp16)
                for i, result in zip(short, whisper.decode(model, mels.to(self.placement.device), options)):
                    texts[i] = result.text.strip()
            for i, clip in enumerate(clips):
                if texts[i] is None:  # longer than one window: whisper's own sliding windows
                    result = model.transcribe(clip, language=self.lang, task="transcribe", temperature=0.0,
                                              condition_on_previous_text=False, fp16=fp16, verbose=None)
                    texts[i] = result["text"].strip()
        return [text or "" for text in texts]


# --- transformers Whisper ------------------------------------------------------------------------------------------


@dataclass
class TransformersWhisperRecogniser:
    """``WhisperForConditionalGeneration`` of any checkpoint id + revision, or a saved folder."""

    model: str
    revision: str | None
    lang: str
    batch_size: int
    placement: Placement
    ref: Any = None
    _loaded: Any = field(default=None, repr=False)

    @classmethod
    def resolve(cls, model: str, revision: str | None, lang: str, batch_size: int, device: str,
                dtype: str) -> TransformersWhisperRecogniser:
        transformers = require("transformers", EXTRA)
        ref = resolve_model(model, revision)
        generation = transformers.GenerationConfig.from_pretrained(ref.load_from, revision=ref.hub_revision,
                                                                   local_files_only=ref.local)
        languages = getattr(generation, "lang_to_id", None) or {}
        if not getattr(generation, "is_multilingual", False) and lang != "en":
            raise ConfigError(f"Whisper checkpoint {ref.fingerprint()['model']!r} is English-only: it cannot recognise {lang!r}")
        if languages and f"<|{lang}|>" not in languages:
            raise ConfigError(f"Whisper checkpoint {ref.fingerprint()['model']!r} does not recognise {lang!r}")
        return cls(model, revision, lang, batch_size, _placement(device, dtype), ref)

    def fingerprint(self) -> dict[str, Any]:
        return {"engine": "transformers-whisper", **self.ref.fingerprint(), "lang": self.lang,
                "decode": {"task": "transcribe", "num_beams": 1, "do_sample": False, "window_s": 30},
                "dtype": self.placement.dtype, "libraries": library_versions("torch", "transformers")}

    def provenance(self) -> dict[str, Any]:
        return {**self.fingerprint(), "device": self.placement.kind}

    def _parts(self) -> tuple[Any, Any]:
        if self._loaded is None:
            from transformers import WhisperForConditionalGeneration, WhisperProcessor

            processor = load_pretrained(WhisperProcessor, self.ref)
            model = load_pretrained(WhisperForConditionalGeneration, self.ref, self.placement)
            self._loaded = (processor, model)
        return self._loaded

    def recognise(self, clips: Sequence[Any]) -> list[str]:
        import torch

        processor, model = self._parts()
        device, dtype = self.placement.device, self.placement.torch_dtype
        options = {"language": self.lang, "task": "transcribe", "do_sample": False, "num_beams": 1}
        texts: list[str | None] = [None] * len(clips)
        short = [i for i, clip in enumerate(clips) if len(clip) <= WINDOW]
        with torch.inference_mode():
            if short:
                features = processor.feature_extractor([clips[i] for i in short], sampling_rate=SAMPLE_RATE,
                                                       return_tensors="pt").input_features
                tokens = model.generate(features.to(device, dtype), **options)
                for i, text in zip(short, processor.batch_decode(tokens, skip_special_tokens=True)):
                    texts[i] = text.strip()
            for i, clip in enumerate(clips):
                if texts[i] is None:  # long-form: sequential 30 s windows, with timestamps to seek by
                    inputs = processor.feature_extractor(clip, sampling_rate=SAMPLE_RATE, return_tensors="pt",
                                                         truncation=False, padding="longest", return_attention_mask=True)
                    tokens = model.generate(inputs.input_features.to(device, dtype),
                                            attention_mask=inputs.attention_mask.to(device), return_timestamps=True,
                                            condition_on_prev_tokens=False, **options)
                    texts[i] = processor.batch_decode(tokens, skip_special_tokens=True)[0].strip()
        return [text or "" for text in texts]


# --- pocketsphinx --------------------------------------------------------------------------------------------------


@dataclass
class PocketsphinxRecogniser:
    """pocketsphinx with its bundled en-US acoustic model and the bundled or a domain language model."""

    lm: str | None
    lm_digest: str | None
    lang: str = "en"
    batch_size: int = 16  # clips per cache write; pocketsphinx decodes one utterance at a time
    _decoder: Any = field(default=None, repr=False)

    @classmethod
    def resolve(cls, lm: str | None, lang: str) -> PocketsphinxRecogniser:
        require("pocketsphinx", EXTRA)
        if lang != "en":
            raise ConfigError(f"pocketsphinx ships only an English (en-US) model: it cannot recognise {lang!r}; "
                              "use asr=whisper")
        if lm is not None and not Path(lm).is_file():
            raise ConfigError(f"pocketsphinx language model {lm}: no such file")
        return cls(lm, _sha256(Path(lm)) if lm else None, lang)

    def provenance(self) -> dict[str, Any]:
        return self.fingerprint()  # runs on the CPU only

    def fingerprint(self) -> dict[str, Any]:
        return {"engine": "pocketsphinx", "libraries": library_versions("pocketsphinx"), "acoustic_model": "en-us (bundled)",
                "lm": self.lm_digest or "en-us.lm.bin (bundled)",
                "dict": "cmudict-en-us (bundled)" + (", cut down to the LM's words" if self.lm else ""),
                "lang": self.lang, "decode": {"samprate": SAMPLE_RATE, "full_utt": True}}

    def _decoder_for(self) -> Any:
        if self._decoder is None:
            from pocketsphinx import Decoder

            options: dict[str, Any] = {"samprate": SAMPLE_RATE, "loglevel": "FATAL"}
            if self.lm is not None:
                options["lm"] = self.lm
                options["dict"] = str(_cut_dictionary(self.lm))
            self._decoder = Decoder(**options)
        return self._decoder

    def recognise(self, clips: Sequence[Any]) -> list[str]:
        decoder = self._decoder_for()
        texts = []
        for clip in clips:
            decoder.start_utt()
            decoder.process_raw(pcm_bytes(clip), full_utt=True)
            decoder.end_utt()
            hypothesis = decoder.hyp()
            texts.append(hypothesis.hypstr.strip() if hypothesis is not None else "")
        return texts


def arpa_words(path: str | Path) -> set[str]:
    """The unigrams of an ARPA language model (without ``<s>``/``</s>``)."""
    words: set[str] = set()
    inside = False
    for _, line in text_lines(Path(path), what="language model"):
        if line.startswith("\\"):
            inside = line.strip() == "\\1-grams:"
            continue
        parts = line.split()
        if inside and len(parts) >= 2:
            words.add(parts[1])
    return words - {"<s>", "</s>", "<unk>"}


@cache
def _cut_dictionary(lm: str) -> Path:
    """The bundled CMU dictionary restricted to the words of ``lm`` (pronunciation variants kept), in a
    temporary file that lives as long as the process."""
    import pocketsphinx

    words = arpa_words(lm)
    bundled = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    kept = [line for _, line in text_lines(bundled, what="pronunciation dictionary")
            if line.split(" ", 1)[0].split("(", 1)[0] in words]
    if not kept:
        raise ConfigError(f"pocketsphinx language model {Path(lm).name}: none of its words is in the CMU dictionary "
                          "(pocketsphinx models lower-case English words)")
    handle = tempfile.NamedTemporaryFile("w", suffix=".dict", prefix="noisecraft-", delete=False, encoding="utf-8")
    with handle:
        handle.write("\n".join(kept) + "\n")
    return Path(handle.name)


def write_domain_lm(sentences: Sequence[str], path: str | Path) -> Path:
    """A trigram ARPA language model of ``sentences`` (lower-cased, punctuation removed) for pocketsphinx,
    built with pocketsphinx's own ``ArpaBoLM``; say in a card which sentences it was built from."""
    lm = require("pocketsphinx.lm", EXTRA)
    words = re.compile(r"[a-z]+(?:'[a-z]+)*")
    text = "\n".join(" ".join(words.findall(sentence.lower())) for sentence in sentences)
    model = lm.ArpaBoLM(text=text, add_start=True, case="lower")
    model.compute()
    path = Path(path)
    model.write_file(str(path))
    return path

