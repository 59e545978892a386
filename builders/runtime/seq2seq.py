"""Batched, cached, deterministic text generation with a sequence-to-sequence model (Marian opus-mt,
NLLB, M2M-100, mBART...), the engine of translation noise.

One :class:`Seq2SeqGenerator` is a model + tokenizer + decode settings. :meth:`~Seq2SeqGenerator.generate`
looks every distinct input up in the on-disk cache, sends only the missing ones through the model in
length-bucketed batches under a token budget (sorted by length, ties broken by a hash of the text),
stores each finished batch, and returns outputs in input order. Decoding is greedy or beam search,
never sampling, under ``torch.inference_mode``; weights load on the first cache miss, so a fully
cached rebuild never touches torch.

The batches are formed where the cache is (lengths come from the tokenizer alone) and each is translated by
:meth:`~Seq2SeqGenerator.translate`, in this process or, in a Ray build's ``prepare`` pass, on a model actor
(:mod:`~noisecraft.runtime.offload`) that loads the weights once: the same batches give the same outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from noisecraft.runtime.batching import length_batches, stable_key
from noisecraft.runtime.cache import CurrentCache, ResultCache, cached_map
from noisecraft.runtime.device import Placement
from noisecraft.runtime.loading import ModelRef, library_versions, load_pretrained
from noisecraft.runtime.offload import chunk_runner, gather_chunks, run_here


@dataclass(frozen=True)
class DecodeSettings:
    """How outputs are decoded: everything here changes them, so all of it is in the cache key."""

    num_beams: int = 4
    max_new_tokens: int = 256
    #: Language codes of multilingual models (NLLB ``eng_Latn``, M2M-100 ``en``); empty for bilingual ones.
    source_code: str = ""
    target_code: str = ""


class Seq2SeqGenerator:
    """A sequence-to-sequence model ready to translate batches (see the module docstring)."""

    def __init__(self, ref: ModelRef, placement: Placement, decode: DecodeSettings, token_budget: int,
                 max_batch: int = 256, extra: str = "mt") -> None:
        self.ref, self.placement, self.decode = ref, placement, decode
        self.token_budget, self.max_batch, self.extra = token_budget, max_batch, extra
        self._cache = CurrentCache("seq2seq", self.fingerprint)

    @property
    def cache(self) -> ResultCache:
        """The output cache under the current cache root."""
        return self._cache.get()

    def fingerprint(self) -> dict[str, Any]:
        """What besides the input decides an output (the cache key): model and revision, decoding, precision,
        libraries; never the device or the token budget."""
        return {"model": self.ref.fingerprint(), "decode": vars(self.decode), "dtype": self.placement.dtype,
                "libraries": library_versions("torch", "transformers")}

    def provenance(self) -> dict[str, Any]:
        """The fingerprint plus the device, as the card records it."""
        return {**self.fingerprint(), "device": self.placement.kind}

    def generate(self, texts: Sequence[str], desc: str = "translating", progress: bool = True) -> list[str | None]:
        """The output of every text, in input order (``None`` for a text longer than the model's input
        limit); each distinct text is computed at most once, ever."""
        return cached_map(self.cache, list(texts), lambda missing, store: self._compute(missing, store, desc, progress))

    def _compute(self, texts: list[str], store: Callable[[list[Any], Sequence[Any]], None], desc: str,
                 progress: bool) -> list[str | None]:
        """Outputs of texts the cache lacks: cut into length-bucketed batches here (tokenizer only, no weights), each
        batch translated here or, in a Ray build's ``prepare`` pass, by a model actor (the chunk runner of
        :mod:`~noisecraft.runtime.offload`); either way the same batches, so the same outputs. Every finished batch
        is stored here, the cache's one writer."""
        from tqdm.auto import tqdm

        tokenizer = self._tokenizer()
        lengths = [len(ids) for ids in tokenizer(texts, add_special_tokens=True)["input_ids"]]
        limit = input_limit(tokenizer, self._config())
        fits = [i for i, n in enumerate(lengths) if n <= limit]
        # a text longer than the model's input is never truncated in silence: its output is None
        outputs: list[str | None] = [None] * len(texts)
        too_long = [texts[i] for i, n in enumerate(lengths) if n > limit]
        if too_long:
            store(too_long, [None] * len(too_long))
        # the budget counts source tokens x beams: memory in generation grows with both
        batches = [[fits[i] for i in batch] for batch in
                   length_batches([lengths[i] for i in fits], max(1, self.token_budget // self.decode.num_beams),
                                  self.max_batch, [stable_key(texts[i]) for i in fits])]
        chunks = [[texts[i] for i in batch] for batch in batches]
        runner = chunk_runner() or run_here
        with tqdm(total=len(fits), desc=desc, unit="sent", disable=not progress or not fits, leave=False) as bar:
            for size in gather_chunks(runner, partial(_translate_chunk, self), chunks, batches, store, outputs, desc):
                bar.update(size)  # counts finished batches (in sentences, for sentences/s)
        return outputs

    def _tokenizer(self) -> Any:
        """The tokenizer (once per process), set to the source language of a multilingual model."""
        from noisecraft.extras import require

        require("transformers", self.extra)
        require("sentencepiece", self.extra)
        from transformers import AutoTokenizer

        tokenizer = load_pretrained(AutoTokenizer, self.ref)
        if self.decode.source_code:
            tokenizer.src_lang = self.decode.source_code
        return tokenizer

    def _config(self) -> Any:
        """The model's configuration (its input limit), read without loading the weights."""
        from transformers import AutoConfig

        return load_pretrained(AutoConfig, self.ref)

    def _model(self) -> Any:
        """The weights on the placement (once per process, by :func:`load_pretrained`)."""
        from transformers import AutoModelForSeq2SeqLM

        model = load_pretrained(AutoModelForSeq2SeqLM, self.ref, self.placement)
        model.generation_config.max_length = None  # max_new_tokens bounds the output (opus-mt configs say 512)
        return model

    def translate(self, batch: list[str]) -> list[str]:
        """One batch through the model (padded together, so the batch decides the shapes): the outputs in order."""
        import torch

        tokenizer, model = self._tokenizer(), self._model()
        options: dict[str, Any] = {"num_beams": self.decode.num_beams, "max_new_tokens": self.decode.max_new_tokens,
                                   "do_sample": False}
        if self.decode.target_code:
            options["forced_bos_token_id"] = language_token_id(tokenizer, self.decode.target_code, self.ref.name)
        encoded = tokenizer(batch, return_tensors="pt", padding=True).to(self.placement.device)
        with torch.inference_mode():
            output = model.generate(**encoded, **options)
        return [" ".join(text.split()) for text in tokenizer.batch_decode(output, skip_special_tokens=True)]


def _translate_chunk(generator: Seq2SeqGenerator, batch: list[str]) -> list[str]:
    """One batch, where a chunk runner sends it (a model actor loads tokenizer and weights once per process)."""
    return generator.translate(batch)


def input_limit(tokenizer: Any, config: Any) -> int:
    """The longest input (in tokens) the model takes: its position table (from its configuration), or the
    tokenizer's limit."""
    positions = getattr(config, "max_position_embeddings", None) or 10**9
    declared = getattr(tokenizer, "model_max_length", None) or 10**9
    return int(min(positions, declared if declared < 10**6 else 10**9))


def language_token_id(tokenizer: Any, code: str, model: str) -> int:
    """The id of target-language code ``code`` (M2M-100 ``get_lang_id``; NLLB/mBART language tokens)."""
    from noisecraft.errors import ConfigError

    if hasattr(tokenizer, "get_lang_id"):
        try:
            return int(tokenizer.get_lang_id(code))
        except KeyError as exc:
            raise ConfigError(f"{model} has no language code {code!r}") from exc
    token_id = tokenizer.convert_tokens_to_ids(code)
    if token_id is None or token_id == tokenizer.unk_token_id:
        raise ConfigError(f"{model} has no language token {code!r}: pass the code its tokenizer uses "
                          f"(NLLB: eng_Latn, deu_Latn; mBART-50: en_XX, de_DE)")
    return int(token_id)
