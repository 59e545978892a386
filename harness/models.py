"""Models under evaluation: named, resolved, loaded once, and checked against the task they are given.

A model is a Hub id with an optional revision (``org/name@v1.0`` or ``--model-revision``) or a folder
saved with ``save_pretrained``. :mod:`noisecraft.runtime` resolves it (the Hub commit, or a digest of the
folder's files, is what the report records and the prediction cache is keyed by), picks device and
precision, and loads it once per process. The architecture in the model's ``config.json`` says its task
(``...ForQuestionAnswering`` and so on): a model is only run on configs of that task, so a classifier
checkpoint never gets a randomly initialised QA head.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.harness.tasks import AUTO_CLASSES, MODEL_HEADS, TOKENS
from noisecraft.runtime import ModelRef, Placement, library_versions, load_pretrained, resolve_model

#: Tokens per padded batch (``batch size x longest input``) when none is given. On CPU larger batches stop
#: paying off early (activations leave the caches; measured in benchmarks/eval_throughput.py); a GPU takes far more.
DEFAULT_TOKEN_BUDGET = {"cpu": 4_096, "mps": 32_768, "cuda": 131_072}
MAX_BATCH = 512
#: Model families whose byte-level BPE tokenizers mark a word start with a space (RoBERTa's ``Ġ``).
BYTE_LEVEL_BPE = ("roberta", "longformer", "bart", "gpt2", "deberta")
#: Longest input fed to a model whose tokenizer states no limit.
FALLBACK_MAX_LENGTH = 512


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


@dataclass
class EvalModel:
    """A loaded model and tokenizer with everything that decides its outputs."""

    request: ModelRequest
    ref: ModelRef
    task: str
    placement: Placement
    model: Any
    tokenizer: Any
    id2label: dict[int, str]
    max_length: int
    token_budget: int

    @property
    def label(self) -> str:
        """How tables name the model (a local folder by its last part)."""
        return self.ref.fingerprint()["model"]

    def record(self) -> dict[str, Any]:
        """The model as results.json records it."""
        return {**self.ref.fingerprint(), "task": self.task, "device": self.placement.device, "dtype": self.placement.dtype}

    def namespace(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The prediction cache's namespace: everything besides the input that decides an output."""
        return {**self.ref.fingerprint(), "settings": settings, "dtype": self.placement.dtype, "device": self.placement.kind,
                "versions": library_versions("torch", "transformers")}


def model_task(architectures: list[str] | None, name: str) -> str:
    """The task of a model, from the architectures in its ``config.json``."""
    for task, head in MODEL_HEADS.items():
        if any(a.endswith(head) for a in architectures or []):
            return task
    found = ", ".join(architectures or []) or "no architecture in its config.json"
    raise ConfigError(f"model {name} is {found}: the harness evaluates question answering, sequence classification "
                      "and token classification models (...ForQuestionAnswering, ...ForSequenceClassification, "
                      "...ForTokenClassification)")


def max_input_length(tokenizer: Any, config: Any) -> int:
    """The longest input the model takes: the tokenizer's stated limit, else the position table's (at most 512)."""
    stated = getattr(tokenizer, "model_max_length", None)
    if isinstance(stated, int) and 0 < stated < 1_000_000:
        return stated
    return min(FALLBACK_MAX_LENGTH, getattr(config, "max_position_embeddings", FALLBACK_MAX_LENGTH))


def load_model(request: ModelRequest, placement: Placement, token_budget: int | None = None) -> EvalModel:
    """Resolve, load (once per process) and check a model; a fast tokenizer is required (offsets, word ids)."""
    transformers = require("transformers", "eval")
    ref = resolve_model(request.name, request.revision)
    config = load_pretrained(transformers.AutoConfig, ref)
    task = model_task(getattr(config, "architectures", None), request.name)
    model = load_pretrained(getattr(transformers, AUTO_CLASSES[task]), ref, placement)
    # words given one by one must be read as if a space preceded them, as byte-level BPE models were trained
    spaced = task == TOKENS and getattr(config, "model_type", "") in BYTE_LEVEL_BPE
    tokenizer = load_pretrained(transformers.AutoTokenizer, ref, **({"add_prefix_space": True} if spaced else {}))
    if not getattr(tokenizer, "is_fast", False):
        raise ConfigError(f"model {request.name}: its tokenizer has no fast (Rust) version, which the harness needs for "
                          "character offsets and word ids")
    budget = token_budget or DEFAULT_TOKEN_BUDGET[placement.kind]
    return EvalModel(request, ref, task, placement, model, tokenizer, {int(k): str(v) for k, v in config.id2label.items()},
                     max_input_length(tokenizer, config), budget)
