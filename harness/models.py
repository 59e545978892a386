"""Models under evaluation: named, resolved, loaded once, and checked against the task they are given.

A model is a Hub id with an optional revision (``org/name@v1.0`` or ``--model-revision``) or a folder
saved with ``save_pretrained``. :mod:`noisecraft.runtime` resolves it (the Hub commit, or a digest of the
folder's files, is what the report records and the prediction cache is keyed by), picks device and
precision, loads it once per process and runs it through its one head path
(:class:`~noisecraft.runtime.heads.Head`: batching, caching, post-processing). The architecture in the
model's ``config.json`` says its task (``...ForQuestionAnswering`` and so on): a model is only run on
configs of that task, so a classifier checkpoint never gets a randomly initialised QA head.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.harness.tasks import CLASSIFICATION, MODEL_HEADS, QA, TOKENS
from noisecraft.runtime import Placement, load_pretrained, resolve_model
from noisecraft.runtime.heads import Answers, Head, Probabilities, Task, WordLabels
from noisecraft.runtime.loading import ModelRef

#: Model families whose byte-level BPE tokenizers mark a word start with a space (RoBERTa's ``Ġ``).
BYTE_LEVEL_BPE = ("roberta", "longformer", "bart", "gpt2", "deberta")


@dataclass(frozen=True)
class ModelRequest:
    """A model as the user named it, with its optional revision and label map (model label -> dataset label)."""

    name: str
    revision: str | None = None
    label_map: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str, label_map: dict[str, str] | None = None) -> ModelRequest:
        """``org/name``, ``org/name@revision`` or a local folder (a folder's own ``@`` is never a revision)."""
        name, at, revision = text.rpartition("@")
        if not at or Path(text).expanduser().exists() or not name:
            return cls(text, None, dict(label_map or {}))
        return cls(name, revision, dict(label_map or {}))

    def resolve(self) -> ModelRef:
        """The model resolved (a Hub commit, or a folder's digest): fails at once when it cannot be had, before
        anything heavy is imported or read."""
        return resolve_model(self.name, self.revision)


@dataclass
class EvalModel:
    """A model under evaluation: its request, task and the runtime head that runs it."""

    request: ModelRequest
    task: str
    head: Head

    @property
    def ref(self) -> ModelRef:
        return self.head.ref

    @property
    def label(self) -> str:
        """How tables name the model (a local folder by its last part)."""
        return self.ref.fingerprint()["model"]

    @property
    def id2label(self) -> dict[int, str]:
        return self.head.id2label

    def head_task(self) -> Task:
        """The head task that predicts for this model's task (outputs are the model's own, before label mapping,
        so a new label map reuses the cache): class probabilities, the best answer span, a label id per word."""
        if self.task == QA:
            return Answers(self.head.max_length)
        return {CLASSIFICATION: Probabilities, TOKENS: WordLabels}[self.task]()

    def record(self, task: Task) -> dict[str, Any]:
        """The model as results.json records it: what decided its predictions (the head's fingerprint, the
        prediction cache's key), the device they were computed on, and apart from those the settings that only
        change speed (the token budget)."""
        return {**self.ref.fingerprint(), "task": self.task, "decided_by": self.head.fingerprint(task),
                "device": self.head.placement.device, "dtype": self.head.placement.dtype,
                "speed_only": {"token_budget": self.head.token_budget, "max_batch": self.head.max_batch}}


def model_task(architectures: list[str] | None, name: str) -> str:
    """The task of a model, from the architectures in its ``config.json``."""
    for task, head in MODEL_HEADS.items():
        if any(a.endswith(head) for a in architectures or []):
            return task
    found = ", ".join(architectures or []) or "no architecture in its config.json"
    raise ConfigError(f"model {name} is {found}: the harness evaluates question answering, sequence classification "
                      "and token classification models (...ForQuestionAnswering, ...ForSequenceClassification, "
                      "...ForTokenClassification)")


def load_model(request: ModelRequest, placement: Placement, token_budget: int | None = None,
               ref: ModelRef | None = None) -> EvalModel:
    """Resolve (unless ``ref`` is given), check and prepare a model; a fast tokenizer is required (offsets, word
    ids). Weights load on the first input the prediction cache does not hold."""
    transformers = require("transformers", "eval")
    ref = ref or request.resolve()
    config = load_pretrained(transformers.AutoConfig, ref)
    task = model_task(getattr(config, "architectures", None), request.name)
    # words given one by one must be read as if a space preceded them, as byte-level BPE models were trained
    spaced = task == TOKENS and getattr(config, "model_type", "") in BYTE_LEVEL_BPE
    head = Head(ref, placement, token_budget=token_budget,
                tokenizer_options={"add_prefix_space": True} if spaced else None)
    if not getattr(head.tokenizer, "is_fast", False):
        raise ConfigError(f"model {request.name}: its tokenizer has no fast (Rust) version, which the harness needs for "
                          "character offsets and word ids")
    return EvalModel(request, task, head)
