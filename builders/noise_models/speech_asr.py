"""Speech recognisers of the speech noise: the pocketsphinx recogniser lives here; the two Whisper recognisers
run in the model layer (:mod:`noisecraft.runtime.whisper`), like every neural model.

Each takes 16 kHz mono float32 clips and returns one transcript per clip, in order, with the
recogniser's own casing and punctuation (only surrounding whitespace is stripped). Decoding is
deterministic: greedy, temperature 0, no temperature fallback, no sampling; each clip's transcript depends on that
clip alone (pocketsphinx starts a new stream per clip), never on the clips decoded before it.

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

import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from noisecraft.core.text_files import text_lines
from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.noise_models.speech_audio import SAMPLE_RATE, pcm_bytes
from noisecraft.runtime.loading import file_sha256, library_versions

#: Samples in one Whisper window (30 s).
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
        return cls(lm, file_sha256(Path(lm)) if lm else None, lang)

    def provenance(self) -> dict[str, Any]:
        return self.fingerprint()  # runs on the CPU only

    def fingerprint(self) -> dict[str, Any]:
        return {"engine": "pocketsphinx", "libraries": library_versions("pocketsphinx"), "acoustic_model": "en-us (bundled)",
                "lm": self.lm_digest or "en-us.lm.bin (bundled)",
                "dict": "cmudict-en-us (bundled)" + (", cut down to the LM's words" if self.lm else ""),
                "lang": self.lang, "decode": {"samprate": SAMPLE_RATE, "full_utt": True, "stream": "new per clip"}}

    def __getstate__(self) -> dict[str, Any]:  # a decoder cannot be pickled: a model actor makes its own
        return {**self.__dict__, "_decoder": None}

    def _decoder_for(self) -> Any:
        if self._decoder is None:
            from pocketsphinx import Decoder

            options: dict[str, Any] = {"samprate": SAMPLE_RATE, "loglevel": "FATAL"}
            if self.lm is None:
                self._decoder = Decoder(**options)
            else:  # the decoder reads its dictionary when it is made: the file is gone once it is
                with tempfile.TemporaryDirectory(prefix="noisecraft-") as folder:
                    words = Path(folder) / "words.dict"
                    words.write_text(_cut_dictionary(self.lm), encoding="utf-8")
                    self._decoder = Decoder(**options, lm=self.lm, dict=str(words))
        return self._decoder

    def recognise(self, clips: Sequence[Any]) -> list[str]:
        decoder = self._decoder_for()
        texts = []
        for clip in clips:
            # a new stream per clip: the noise filter and feature state would otherwise carry the previous clip's,
            # and a transcript would depend on which clips the process decoded before it (cache state, actors)
            decoder.start_stream()
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
def _cut_dictionary(lm: str) -> str:
    """The text of the bundled CMU dictionary restricted to the words of ``lm`` (pronunciation variants kept)."""
    import pocketsphinx

    words = arpa_words(lm)
    bundled = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    kept = [line for _, line in text_lines(bundled, what="pronunciation dictionary")
            if line.split(" ", 1)[0].split("(", 1)[0] in words]
    if not kept:
        raise ConfigError(f"pocketsphinx language model {Path(lm).name}: none of its words is in the CMU dictionary "
                          "(pocketsphinx models lower-case English words)")
    return "\n".join(kept) + "\n"


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

