"""One base for noise driven by a Hugging Face classifier: :class:`ModelNoise`.

A model-based noise model (the word-salad importance family, the grammar attack, a user's own) reads a fine-tuned
classifier through the runtime's :class:`~noisecraft.runtime.heads.Head`. What every such model needs is here,
written once:

* **the parameter group**: ``revision``, ``max_length``, ``device``, ``dtype`` and ``token_budget``. A model declares
  only the parameter naming its classifier, whose name and help say its role (``model``, a grammar attack's
  ``victim``), and says which it is with :attr:`ModelNoise.model_param`. A model changes a default of the group
  with :attr:`ModelNoise.param_defaults` (``{"max_length": 256}``), never by declaring the field again;
* **a head bound to its task** (:attr:`ModelNoise.task`, a task of :mod:`noisecraft.runtime.heads`) with a
  per-process memory in front of the disk cache (:class:`~noisecraft.runtime.heads.BoundHead`), resolved on
  first use: ``self.runtime().head``;
* **one seed-identity rule**: the classifier enters the seed by its resolved identity, ``{"model": ..., "revision":
  ...}`` (a Hub id with the commit it resolved to; a saved folder by its last name and ``sha256:`` of its files),
  under the name of its parameter: the same id at another commit is other weights, so another set, and a folder's
  location never enters;
* **provenance** for the card and manifest: the head's provenance (model, resolved revision, task, precision,
  library versions, device) and how the labels were matched;
* **the label check**: when a build knows the dataset's class names, the classifier's labels are matched to them by
  name (by position only when it names none, ``LABEL_0``...) and a classifier that does not fit is refused with one
  line, before any row (:func:`noisecraft.runtime.labels.class_mapping`). No subclass overrides it (a class that
  tries is refused at definition).

A new model-based noise is then its module (the parameter naming its model, :attr:`~ModelNoise.task`, ``apply``,
``describe``), its golden file and its recipe; ``tests/test_model_noise_base.py`` builds one defined in the test
file itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from noisecraft.core.params import ParamSpec, param
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseModel
from noisecraft.runtime.device import DTYPES

if TYPE_CHECKING:  # the heads need numpy and transformers: loaded on first use
    from noisecraft.runtime.heads import BoundHead
    from noisecraft.runtime.labels import LabelMapping

__all__ = ["ModelNoise", "ModelRuntime", "ModelSettings"]

#: Where a model runs: the settings every model-based noise model takes (listed last).
PLACEMENT = ("device", "dtype")
#: The parameter group of a classifier-driven model, in the order it is listed after the model's own.
GROUP = ("revision", "max_length", "device", "dtype", "token_budget")
#: Methods that make the label check; a subclass that defines one is refused (the check cannot be skipped).
_SEALED = ("for_labels", "label_mapping")


class ModelRuntime:
    """What a model-based noise model loads: its bound head, resolved on first use (a Hub id asks the Hub once;
    weights load on the first query). A model whose runtime holds more subclasses it."""

    def __init__(self, head_loader: Callable[[], BoundHead]) -> None:
        self._head_loader = head_loader

    @cached_property
    def head(self) -> BoundHead:
        return self._head_loader()


@dataclass(frozen=True)
class ModelSettings(NoiseModel):
    """What every model-based noise model takes: where its models run (``device``, ``dtype``; they change how fast,
    and precision is recorded in the provenance and keys the runtime's cache). A model whose model is not a
    classifier head (machine translation, speech recognition, an entity tagger) subclasses this; a
    classifier-driven one subclasses :class:`ModelNoise`."""

    device: str = param("auto", "auto (cuda, then mps, then cpu), cuda, cuda:N, mps or cpu: where the model runs",
                        init_only=True)
    dtype: str = param("auto", "model precision: auto (bfloat16/float16 on GPU, float32 on CPU), float32, bfloat16 or "
                               "float16; recorded in the card", choices=DTYPES, init_only=True)

    capabilities: ClassVar[Capabilities] = Capabilities(model_based=True)

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        """The model's own parameters, then where it runs."""
        specs = super().param_specs()
        return (*(s for s in specs if s.name not in PLACEMENT), *(s for s in specs if s.name in PLACEMENT))


@dataclass(frozen=True)
class ModelNoise(ModelSettings):
    """Base of noise models driven by a Hugging Face classifier (see the module docstring)."""

    revision: str | None = param(None, "Hub revision (branch, tag or commit) of the model; resolved to its commit")
    max_length: int = param(128, "model inputs truncated to this many tokens, or the model's own limit when lower",
                            min=8)
    token_budget: int = param(32768, "padded tokens per model batch (lower it if the GPU runs out of memory)", min=1,
                              init_only=True)
    #: The dataset's class names, by label index (set by :meth:`for_labels`; not a parameter: it shapes no output).
    _label_names: tuple[str, ...] = field(default=(), repr=False, compare=False)

    #: The parameter that names the classifier (declared by the model with ``file="model"``).
    model_param: ClassVar[str] = "model"
    #: The head's task: a class name of :mod:`noisecraft.runtime.heads` (``Probabilities``, ``Importance``).
    task: ClassVar[str] = "Probabilities"
    #: The extra that installs the model runtime, named when transformers is missing.
    extra: ClassVar[str] = "eval"
    #: What the refusal of a classifier whose labels do not fit tells the user to do.
    label_remedy: ClassVar[str] = "Use a classifier fine-tuned on this dataset's task"
    #: Defaults of the parameter group this model changes (``{"max_length": 256}``).
    param_defaults: ClassVar[Mapping[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a subclass that redefines the label check; turn its :attr:`param_defaults` into the group's fields
        with those defaults (same type, help and checks), before the dataclass decorator reads the fields."""
        super().__init_subclass__(**kwargs)
        sealed = [name for name in _SEALED if name in cls.__dict__]
        if sealed:
            raise TypeError(f"{cls.__name__} redefines {', '.join(sealed)}: the label check of ModelNoise cannot be "
                            "replaced or skipped")
        defaults = cls.__dict__.get("param_defaults", {})
        unknown = sorted(set(defaults) - set(GROUP))
        if unknown:
            raise TypeError(f"{cls.__name__}.param_defaults: {', '.join(unknown)} is not in the group {GROUP}")
        group = {f.name: f for f in dataclasses.fields(ModelNoise)}
        annotations = dict(cls.__dict__.get("__annotations__", {}))
        for name, default in defaults.items():
            annotations[name] = group[name].type
            setattr(cls, name, dataclasses.field(default=default, metadata=group[name].metadata))
        cls.__annotations__ = annotations

    def check(self) -> None:
        if not getattr(self, self.model_param):
            raise ConfigError(f"{self.noise_id} needs {self.model_param}=: a Hugging Face classifier id or a saved "
                              "model folder")

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        """The model's own parameters with ``revision`` right after the one naming the model, and the runtime
        settings last (the order of config names, ``noisecraft noises`` and the card's table)."""
        specs = super().param_specs()
        own = [s for s in specs if s.name not in GROUP]
        by_name = {s.name: s for s in specs}
        at = next(i for i, s in enumerate(own) if s.name == cls.model_param) + 1
        return (*own[:at], by_name["revision"], *own[at:], *(by_name[name] for name in GROUP[1:]))

    # --- the head ----------------------------------------------------------------------------------------------

    def load(self) -> Any:
        return ModelRuntime(self.load_head)

    def load_head(self) -> BoundHead:
        """The classifier's head bound to :attr:`task`, inputs truncated to ``max_length`` or the model's own limit,
        whichever is lower (the model is resolved once: a Hub id, one question to the Hub)."""
        from noisecraft.runtime import heads

        head = heads.load_head(getattr(self, self.model_param), self.revision or None, self.device, self.dtype,
                               extra=self.extra, token_budget=self.token_budget)
        return heads.BoundHead(head.truncated(self.max_length), getattr(heads, self.task)(), self.name)

    @property
    def head(self) -> BoundHead:
        """The bound head of this spec's runtime (one per process)."""
        return self.runtime().head  # type: ignore[no-any-return]

    # --- identity, provenance, labels --------------------------------------------------------------------------

    def seed_params(self) -> dict[str, Any]:
        """The parameters, with the model by its resolved identity (Hub commit, or a folder's digest)."""
        return {**super().seed_params(), self.model_param: self.head.provenance()["model"]}

    def provenance(self) -> dict[str, Any]:
        mapping = self.label_mapping()
        labels = mapping.to_dict() if mapping else {"how": "unchecked (the data names no class labels)", "map": None}
        return {**super().provenance(), self.model_param: self.head.provenance(), "labels": labels}

    def for_labels(self, names: Sequence[str]) -> ModelNoise:
        """This model on a dataset whose class label ``i`` is named ``names[i]``: a classifier whose labels do not
        fit (an MNLI model on SST-2, two labels on three-way MNLI) is refused now, before any row or forward pass
        (only its config is read)."""
        model = dataclasses.replace(self, _label_names=tuple(names))
        model.label_mapping()
        return model

    def label_mapping(self) -> LabelMapping | None:
        """The classifier's labels matched to the dataset's class names (``None``: the source named none, so the
        classifier's task is unchecked)."""
        if not self._label_names:
            return None
        try:
            return self.head.label_mapping(self._label_names, remedy=self.label_remedy)
        except ConfigError as exc:
            raise ConfigError(f"{self.noise_id} {self.model_param}={getattr(self, self.model_param)}: {exc}") from exc
