"""The classifier an attack queries: any Hugging Face sequence classifier, through the runtime's bound head.

The victim is a :class:`~noisecraft.runtime.heads.BoundHead` on the
:class:`~noisecraft.runtime.heads.Probabilities` task (what every model-based noise model gets from
:class:`~noisecraft.noise_models.model_base.ModelNoise`, made there): it takes classifier inputs (``(text,)`` or
``(first, second)``) and returns class probabilities in input order. Every distinct input is computed once:
first from a per-process memory (the search asks for the same candidates again and again), then through the
head (its on-disk cache, keyed by the head's fingerprint: model and resolved revision, truncation length,
precision and library versions; then the model, in length-bucketed batches under a token budget).
Probabilities follow the runtime's one rounding policy (:data:`~noisecraft.runtime.postprocess.DECIMALS`),
so the search's comparisons do not turn on the last bits of a batch's arithmetic.

A victim is checked before it is trusted: a checkpoint whose classification head was not in its files
(newly initialised) is refused by the head, and its labels are matched to the dataset's class names by name
(:mod:`noisecraft.runtime.labels`).

Anything with ``run(inputs)``, ``provenance()`` and ``label_mapping(names, remedy)`` can stand in for it
(:class:`Victim`): the tests use a toy classifier whose decision depends on one word.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from noisecraft.runtime.labels import LabelMapping

ClassifierInput = tuple[str, ...]


class Victim(Protocol):
    """What an attack needs of a classifier."""

    def run(self, inputs: Sequence[ClassifierInput]) -> list[list[float]]: ...

    def provenance(self) -> dict[str, Any]: ...

    def label_mapping(self, dataset_labels: Sequence[str], remedy: str | None = None) -> LabelMapping: ...

