"""Machine-translation noise (NoiseQA §3.2): what a question looks like after a translator.

* ``translation``: a round trip, source language -> pivot -> back, with Marian opus-mt models by
  default (``Helsinki-NLP/opus-mt-en-de`` and ``opus-mt-de-en``, as NoiseQA) or any sequence-to-
  sequence model per direction (NLLB, M2M-100 with their language codes).
* ``natural-translation``: NoiseQA's natural MT set. An XQuAD question written in language xx is
  machine-translated into the build's language and replaces that row's question (XQuAD ids are
  parallel across languages), so an English QA model sees the question as a speaker of xx sends it.

Both are deterministic (greedy or beam search) and model-based: a build first runs every distinct
input of the split through :class:`~noisecraft.runtime.seq2seq.Seq2SeqGenerator` (batched, cached on
disk by model revision, decoding and input), then rows read their outputs back. The edit log comes
from aligning the output with the original text; labelled answers survive only when they come out
verbatim (other rows are dropped with the reason counted).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from noisecraft.core.citations import NOISEQA_CITATION, OPUS_MT_CITATION
from noisecraft.core.edits import Noised, align
from noisecraft.core.params import param
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseInput
from noisecraft.noise_models.model_base import ModelSettings
from noisecraft.sources.join import Join

OPUS_MT = "Helsinki-NLP/opus-mt-{source}-{target}"
TOO_LONG = "longer than the translation model's input limit"
BUDGET_HELP = "padded source tokens x beams per batch (lower it if the GPU runs out of memory); output does not depend on it"


@dataclass(frozen=True)
class _TranslationNoise(ModelSettings):
    """Decode and runtime settings shared by the translation models (where they run: :class:`ModelSettings`)."""

    num_beams: int = param(4, "beam width (1 = greedy decoding); decoding never samples", min=1, max=32)
    max_new_tokens: int = param(256, "longest output, in tokens", min=1, max=4096)
    token_budget: int = param(16384, BUDGET_HELP, min=1, init_only=True)

    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, edit_log="aligned", deterministic=True,
                                                        model_based=True)

    def _generator(self, model: str, revision: str, source_code: str = "", target_code: str = "") -> Any:
        from noisecraft.runtime.device import pick_placement
        from noisecraft.runtime.loading import resolve_model
        from noisecraft.runtime.seq2seq import DecodeSettings, Seq2SeqGenerator

        ref = resolve_model(model, revision or None)
        decode = DecodeSettings(self.num_beams, self.max_new_tokens, source_code, target_code)
        return Seq2SeqGenerator(ref, pick_placement(self.device, self.dtype, extra="mt"), decode, self.token_budget)

    def _noised(self, originals: Sequence[str], outputs: Sequence[str | None]) -> list[Noised]:
        return [Noised(original, (), TOO_LONG) if out is None else Noised(out, align(original, out, "translation"))
                for original, out in zip(originals, outputs)]


@dataclass(frozen=True)
class RoundTripTranslation(_TranslationNoise):
    """A round trip through machine translation: source language -> pivot -> source language (NoiseQA §3.2)."""

    lang: str = param("en", "language of the text (set by the build)")
    pivot: str = param("de", "pivot language; picks the opus-mt pair lang-pivot and pivot-lang unless models are given")
    forward_model: str = param("", "model id or saved folder translating lang -> pivot (default: "
                                   "Helsinki-NLP/opus-mt-<lang>-<pivot>)", file="model")
    forward_revision: str = param("", "branch, tag or commit of forward_model (default: main, resolved to a commit)")
    backward_model: str = param("", "model id or saved folder translating pivot -> lang (default: "
                                    "Helsinki-NLP/opus-mt-<pivot>-<lang>)", file="model")
    backward_revision: str = param("", "branch, tag or commit of backward_model")
    lang_code: str = param("", "code of lang for multilingual models (NLLB eng_Latn, M2M-100 en); empty for opus-mt")
    pivot_code: str = param("", "code of pivot for multilingual models (NLLB deu_Latn, M2M-100 de)")

    name: ClassVar[str] = "translation"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = f"{NOISEQA_CITATION}\n\n{OPUS_MT_CITATION}"

    def check(self) -> None:
        if self.pivot == self.lang:
            raise ConfigError(f"translation: the pivot must differ from the language ({self.lang})")
        if bool(self.lang_code) != bool(self.pivot_code):
            raise ConfigError("translation: multilingual models need both lang_code and pivot_code")

    def models(self) -> tuple[str, str]:
        """The forward and backward model names (opus-mt defaults filled in)."""
        return (self.forward_model or OPUS_MT.format(source=self.lang, target=self.pivot),
                self.backward_model or OPUS_MT.format(source=self.pivot, target=self.lang))

    def load(self) -> tuple[Any, Any]:
        forward, backward = self.models()
        return (self._generator(forward, self.forward_revision, self.lang_code, self.pivot_code),
                self._generator(backward, self.backward_revision, self.pivot_code, self.lang_code))

    def describe(self) -> str:
        forward, backward = self.models()
        beams = "greedy decoding" if self.num_beams == 1 else f"beam search of width {self.num_beams}"
        return (f"Machine-translation round trip (NoiseQA's MT interface): each text is translated from `{self.lang}` "
                f"into `{self.pivot}` with `{Path(forward).name if Path(forward).is_dir() else forward}` and back with "
                f"`{Path(backward).name if Path(backward).is_dir() else backward}` ({beams}). The edit log is an "
                "alignment of the result with the original; labelled answers survive only when they come back verbatim.")

    def provenance(self) -> dict[str, Any]:
        forward, backward = self.runtime()
        return {"forward": forward.provenance(), "backward": backward.provenance()}

    def round_trip(self, texts: Sequence[str], progress: bool = False) -> list[str | None]:
        """Each text through the pivot and back (cached; only missing translations are computed)."""
        forward, backward = self.runtime()
        pivots = forward.generate(texts, desc=f"{self.lang}->{self.pivot}", progress=progress)
        known = [p for p in pivots if p is not None]
        back = dict(zip(known, backward.generate(known, desc=f"{self.pivot}->{self.lang}", progress=progress)))
        return [None if p is None else back[p] for p in pivots]

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        self.round_trip(batch.texts, progress)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return self._noised(batch.texts, self.round_trip(batch.texts))


@dataclass(frozen=True)
class NaturalTranslation(_TranslationNoise):
    """The parallel XQuAD question in ``from_lang``, machine-translated into the build's language."""

    lang: str = param("en", "language of the build, into which the questions are translated (set by the build)")
    from_lang: str = param("de", "language the questions were written in: an XQuAD language other than lang")
    data_file: str = param("", "the XQuAD file of from_lang in the SQuAD JSON format (xquad.<from_lang>.json); "
                               "default: google/xquad from the Hugging Face Hub", file="source")
    model: str = param("", "model id or saved folder translating from_lang -> lang (default: "
                           "Helsinki-NLP/opus-mt-<from_lang>-<lang>)", file="model")
    revision: str = param("", "branch, tag or commit of the model (default: main, resolved to a commit)")
    from_code: str = param("", "code of from_lang for multilingual models (NLLB deu_Latn, M2M-100 de)")
    lang_code: str = param("", "code of lang for multilingual models (NLLB eng_Latn, M2M-100 en)")

    name: ClassVar[str] = "natural-translation"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = f"{NOISEQA_CITATION}\n\n{OPUS_MT_CITATION}"

    def check(self) -> None:
        if self.from_lang == self.lang:
            raise ConfigError(f"natural-translation: from_lang must differ from the build's language ({self.lang})")
        if bool(self.from_code) != bool(self.lang_code):
            raise ConfigError("natural-translation: multilingual models need both from_code and lang_code")

    def model_name(self) -> str:
        return self.model or OPUS_MT.format(source=self.from_lang, target=self.lang)

    def load(self) -> Any:
        return self._generator(self.model_name(), self.revision, self.from_code, self.lang_code)

    def join(self) -> Join:
        """The question with the same id in XQuAD's ``from_lang`` file (the source layer joins it)."""
        return Join("xquad", self.from_lang, "validation", "question", self.data_file)

    def describe(self) -> str:
        name = self.model_name()
        return (f"Natural machine-translation noise (NoiseQA): each question is replaced by the XQuAD question with the "
                f"same id written in `{self.from_lang}`, machine-translated into `{self.lang}` with "
                f"`{Path(name).name if Path(name).is_dir() else name}`. The edit log is an alignment with the original "
                "question.")

    def provenance(self) -> dict[str, Any]:
        return {"model": self.runtime().provenance(), "questions": f"xquad.{self.from_lang}"}

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        self.runtime().generate(self._questions(batch), desc=f"{self.from_lang}->{self.lang}", progress=progress)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return self._noised(batch.texts, self.runtime().generate(self._questions(batch), progress=False))

    def _questions(self, batch: NoiseInput) -> Sequence[str]:
        if batch.joined is None:
            raise ConfigError(f"{self.noise_id} needs the parallel questions of its join (run it through "
                              "noisecraft.noise_models.base.run_steps, which resolves joins)")
        return batch.joined
