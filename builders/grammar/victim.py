"""The classifier an attack queries: any Hugging Face sequence classifier, batched and cached.

:class:`VictimClassifier` takes classifier inputs (``(text,)`` or ``(first, second)``) and returns class
probabilities in input order. Every distinct input is computed once: first from a per-process memory,
then from the on-disk :class:`~noisecraft.runtime.cache.ResultCache` (keyed by model id and resolved
revision, truncation length, precision and library versions), and only the rest through the model, in
length-bucketed batches under a token budget (:func:`~noisecraft.runtime.batching.run_batched`).
Probabilities are rounded to 6 decimals when computed, so a cached answer equals a fresh one and the
search's comparisons do not turn on the last bits of a batch's arithmetic.

Anything with ``probabilities(inputs)`` and ``identity()`` can stand in for it (:class:`Victim`): the tests
use a toy classifier whose decision depends on one word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from noisecraft.runtime.batching import run_batched, stable_key
from noisecraft.runtime.cache import CurrentCache, ResultCache, cached_map
from noisecraft.runtime.device import Placement
from noisecraft.runtime.loading import ModelRef, library_versions, load_pretrained

#: Decimals kept of each probability (see the module docstring).
DECIMALS = 6

ClassifierInput = tuple[str, ...]


class Victim(Protocol):
    """What an attack needs of a classifier."""

    def probabilities(self, inputs: Sequence[ClassifierInput]) -> list[list[float]]: ...

    def identity(self) -> dict[str, Any]: ...


class VictimClassifier:
    """A Hugging Face sequence classifier with a memory and a disk cache in front of it."""

    def __init__(self, ref: ModelRef, placement: Placement, max_length: int, token_budget: int, max_batch: int = 512,
                 disk_cache: bool = True) -> None:
        self.ref, self.placement, self.max_length = ref, placement, max_length
        self.token_budget, self.max_batch, self.disk_cache = token_budget, max_batch, disk_cache
        self._memory: dict[ClassifierInput, list[float]] = {}
        self._disk = CurrentCache("classifier", self.namespace)
        self.computed = 0  # inputs that went through the model (neither memory nor disk had them)

    def namespace(self) -> dict[str, Any]:
        """What besides the input decides the probabilities (the disk cache's key)."""
        return {"model": self.ref.fingerprint(), "max_length": self.max_length, "dtype": self.placement.dtype,
                "libraries": library_versions("torch", "transformers")}

    def identity(self) -> dict[str, Any]:
        """The namespace plus the device, as the card records it."""
        return {**self.namespace(), "device": self.placement.kind}

    @property
    def _cache(self) -> ResultCache | None:
        return self._disk.get() if self.disk_cache else None

    def probabilities(self, inputs: Sequence[ClassifierInput]) -> list[list[float]]:
        """Class probabilities of every input, in input order; each distinct input computed at most once."""
        missing = list(dict.fromkeys(i for i in inputs if i not in self._memory))
        if missing:
            found = cached_map(self._cache, [list(i) for i in missing], self._compute)
            self._memory.update(zip(missing, found))
        return [self._memory[i] for i in inputs]

    def _compute(self, inputs: list[list[str]], store: Callable[[list[Any], Sequence[Any]], None]) -> list[list[float]]:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        tokenizer = load_pretrained(AutoTokenizer, self.ref)
        model = load_pretrained(AutoModelForSequenceClassification, self.ref, self.placement)
        firsts = [i[0] for i in inputs]
        seconds = [i[1] for i in inputs] if len(inputs[0]) > 1 else None
        encoded = tokenizer(firsts, seconds, truncation=True, max_length=self.max_length)
        features = [{key: encoded[key][n] for key in encoded} for n in range(len(inputs))]

        def run(batch: list[dict[str, list[int]]]) -> list[list[float]]:
            padded = tokenizer.pad(batch, return_tensors="pt").to(self.placement.device)
            with torch.inference_mode():
                logits = model(**padded).logits.float()
            return [[round(p, DECIMALS) for p in row] for row in torch.softmax(logits, dim=-1).tolist()]

        self.computed += len(inputs)
        return run_batched(features, [len(f["input_ids"]) for f in features], run, token_budget=self.token_budget,
                           max_batch=self.max_batch, keys=[stable_key("\x1f".join(i)) for i in inputs],
                           desc="victim", unit="input", progress=False,
                           on_batch=lambda idx, out: store([inputs[k] for k in idx], out))


def load_victim(name: str, revision: str | None, device: str, dtype: str, max_length: int, token_budget: int,
                max_batch: int = 512, disk_cache: bool = True) -> VictimClassifier:
    """A victim classifier by Hub id (and revision) or saved folder, placed on ``device`` in ``dtype``."""
    from noisecraft.extras import require
    from noisecraft.runtime.device import pick_placement
    from noisecraft.runtime.loading import resolve_model

    require("transformers", "grammar")
    ref = resolve_model(name, revision or None)
    return VictimClassifier(ref, pick_placement(device, dtype, extra="grammar"), max_length, token_budget, max_batch,
                            disk_cache)
