"""The classifier an attack queries: any Hugging Face sequence classifier, through the runtime's head.

:class:`VictimClassifier` takes classifier inputs (``(text,)`` or ``(first, second)``) and returns class
probabilities in input order. Every distinct input is computed once: first from a per-process memory (the
search asks for the same candidates again and again), then through :class:`~noisecraft.runtime.heads.Head`
(its on-disk cache, keyed by the head's fingerprint: model and resolved revision, truncation length,
precision and library versions; then the model, in length-bucketed batches under a token budget).
Probabilities follow the runtime's one rounding policy (:data:`~noisecraft.runtime.postprocess.DECIMALS`),
so the search's comparisons do not turn on the last bits of a batch's arithmetic.

A victim is checked before it is trusted: a checkpoint whose classification head was not in its files
(newly initialised) is refused by the head, and :meth:`VictimClassifier.label_mapping` matches its labels
to the dataset's class names by name (:mod:`noisecraft.runtime.labels`).

Anything with ``probabilities(inputs)``, ``provenance()`` and ``label_mapping(names)`` can stand in for it
(:class:`Victim`): the tests use a toy classifier whose decision depends on one word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from noisecraft.runtime.device import Placement
from noisecraft.runtime.heads import Head, Probabilities
from noisecraft.runtime.labels import LabelMapping, class_mapping
from noisecraft.runtime.loading import ModelRef

ClassifierInput = tuple[str, ...]


class Victim(Protocol):
    """What an attack needs of a classifier."""

    def probabilities(self, inputs: Sequence[ClassifierInput]) -> list[list[float]]: ...

    def provenance(self) -> dict[str, Any]: ...

    def label_mapping(self, dataset_labels: Sequence[str]) -> LabelMapping: ...


class VictimClassifier:
    """A Hugging Face sequence classifier with a memory in front of its head."""

    def __init__(self, ref: ModelRef, placement: Placement, max_length: int, token_budget: int, max_batch: int = 512,
                 disk_cache: bool = True) -> None:
        # inputs cut to max_length tokens, or to the victim's own limit when lower (a longer input would not run)
        self.head = Head(ref, placement, token_budget=token_budget, max_batch=max_batch,
                         cache=disk_cache).truncated(max_length)
        self._task = Probabilities()
        self._memory: dict[ClassifierInput, list[float]] = {}

    @property
    def computed(self) -> int:
        """Inputs that went through the model (neither the memory nor the disk cache had them)."""
        return self.head.computed

    def fingerprint(self) -> dict[str, Any]:
        """What decides the probabilities (the disk cache's key)."""
        return self.head.fingerprint(self._task)

    def provenance(self) -> dict[str, Any]:
        """The fingerprint plus the device, as the card records it."""
        return self.head.provenance(self._task)

    def label_mapping(self, dataset_labels: Sequence[str]) -> LabelMapping:
        """The victim's labels matched to the dataset's class names (by name; see :func:`class_mapping`)."""
        return class_mapping(str(self.fingerprint()["model"]["model"]), self.head.id2label, dataset_labels,
                             remedy="Attack it with a victim trained on this dataset's labels")

    def probabilities(self, inputs: Sequence[ClassifierInput]) -> list[list[float]]:
        """Class probabilities of every input, in input order; each distinct input computed at most once."""
        missing = list(dict.fromkeys(i for i in inputs if i not in self._memory))
        if missing:
            self._memory.update(zip(missing, self.head.run(self._task, missing, desc="victim")))
        return [self._memory[i] for i in inputs]


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
