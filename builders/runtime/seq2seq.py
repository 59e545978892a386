"""Batched, cached, deterministic text generation with a sequence-to-sequence model (Marian opus-mt,
NLLB, M2M-100, mBART...), the engine of translation noise.

One :class:`Seq2SeqGenerator` is a model + tokenizer + decode settings. :meth:`~Seq2SeqGenerator.generate`
looks every distinct input up in the on-disk cache, sends only the missing ones through the model in
length-bucketed batches under a token budget (sorted by length, ties broken by a hash of the text),
stores each finished batch, and returns outputs in input order. Decoding is greedy or beam search,
never sampling, under ``torch.inference_mode``; weights load on the first cache miss, so a fully
cached rebuild never touches torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from noisecraft.runtime.batching import run_batched, stable_key
from noisecraft.runtime.cache import CurrentCache, ResultCache, cached_map
from noisecraft.runtime.device import Placement
from noisecraft.runtime.loading import ModelRef, library_versions, load_pretrained


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
        from noisecraft.extras import require

        require("transformers", self.extra)
        require("sentencepiece", self.extra)
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        tokenizer = load_pretrained(AutoTokenizer, self.ref)
        model = load_pretrained(AutoModelForSeq2SeqLM, self.ref, self.placement)
        model.generation_config.max_length = None  # max_new_tokens bounds the output (opus-mt configs say 512)
        if self.decode.source_code:
            tokenizer.src_lang = self.decode.source_code
        options: dict[str, Any] = {"num_beams": self.decode.num_beams, "max_new_tokens": self.decode.max_new_tokens,
                                   "do_sample": False}
        if self.decode.target_code:
            options["forced_bos_token_id"] = language_token_id(tokenizer, self.decode.target_code, self.ref.name)
        lengths = [len(ids) for ids in tokenizer(texts, add_special_tokens=True)["input_ids"]]
        limit = input_limit(tokenizer, model)
        fits = [i for i, n in enumerate(lengths) if n <= limit]

        def run(batch: list[str]) -> list[str]:
            encoded = tokenizer(batch, return_tensors="pt", padding=True).to(self.placement.device)
            with torch.inference_mode():
                output = model.generate(**encoded, **options)
            return [" ".join(text.split()) for text in tokenizer.batch_decode(output, skip_special_tokens=True)]

        # a text longer than the model's input is never truncated in silence: its output is None
        outputs: list[str | None] = [None] * len(texts)
        too_long = [texts[i] for i, n in enumerate(lengths) if n > limit]
        if too_long:
            store(too_long, [None] * len(too_long))
        # the budget counts source tokens x beams: memory in generation grows with both
        done = run_batched([texts[i] for i in fits], [lengths[i] for i in fits], run,
                           token_budget=max(1, self.token_budget // self.decode.num_beams), max_batch=self.max_batch,
                           keys=[stable_key(texts[i]) for i in fits], desc=desc, unit="sent", progress=progress,
                           on_batch=lambda idx, out: store([texts[fits[i]] for i in idx], out))
        for i, text in zip(fits, done):
            outputs[i] = text
        return outputs


def input_limit(tokenizer: Any, model: Any) -> int:
    """The longest input (in tokens) the model takes: its position table, or the tokenizer's limit."""
    positions = getattr(model.config, "max_position_embeddings", None) or 10**9
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
