"""Whisper in the model layer: openai-whisper and transformers Whisper recognisers (the speech noise's neural ASR).

Each takes 16 kHz mono float32 clips (:data:`SAMPLE_RATE`, the rate Whisper's features are computed at; the speech
noise resamples every clip to it) and returns one transcript per clip, in order, with the recogniser's own casing and
punctuation. Decoding is deterministic: greedy, temperature 0, no fallback, no sampling. :meth:`fingerprint` is what
decides the transcripts (model and resolved revision, decode settings, precision, library versions; never the device
or the batch size), :meth:`provenance` adds the device. Models load on the first clip, never when a spec is made.
See :mod:`noisecraft.noise_models.speech_asr` for what each engine does with long clips.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.runtime.device import Placement, pick_placement
from noisecraft.runtime.loading import file_sha256, library_versions, load_pretrained, resolve_model

#: Clip sampling rate (Hz) every recogniser takes.
SAMPLE_RATE = 16_000
#: One Whisper window: clips up to 30 s are decoded in batches, longer ones through long-form decoding.
WINDOW = 30 * SAMPLE_RATE
EXTRA = "speech"


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
            revision = file_sha256(path)
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

    def __getstate__(self) -> dict[str, Any]:  # sent to model actors without the weights: each loads its own
        return {**self.__dict__, "_loaded": None}

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

    def __getstate__(self) -> dict[str, Any]:  # sent to model actors without the weights: each loads its own
        return {**self.__dict__, "_loaded": None}

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
