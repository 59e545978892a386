"""Noise chains: several models applied in sequence to the same field.

NoiseQA names combinations of interfaces (speech recognition of a machine translation, typos on
top of natural misspellings) as the open question; a chain builds them. Each step draws from its
own per-example stream (:func:`noisecraft.noise_models.base.step_rngs`) and the whole input record
(ids, class labels, joined text; protected spans and the pair context carried from the previous step's
output), and the final edit log is against the original text (:func:`noisecraft.core.edits.compose`), so it
replays exactly and labels are checked once, at the end. :func:`noisecraft.noise_models.base.run_steps`
runs the steps.

Refused with a reason: a step that rewrites the second text of a pair from the first (``input="pair"``),
a nested chain, and a step with per-row columns (an attack's status) anywhere but last, because its
columns describe its own output, which a later step would change. A model-based step after the first is
prepared with the previous steps' outputs for the whole split
(:func:`noisecraft.noise_models.base.prepare_steps`): its inner batches depend on the split, never on the
build's batches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from noisecraft.core.edits import Noised
from noisecraft.core.params import ParamSpec
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseInput, NoiseModel


@dataclass(frozen=True)
class NoiseChain(NoiseModel):
    """``models[0]``, then ``models[1]`` on its output, and so on."""

    models: tuple[NoiseModel, ...] = ()

    name: ClassVar[str] = "chain"
    version: ClassVar[int] = 1

    def __post_init__(self) -> None:
        if len(self.models) < 2:
            raise ConfigError("a chain needs at least two noise models")
        for model in self.models:
            if model.capabilities.input == "pair":
                raise ConfigError(f"{model.noise_id} rewrites the second text of a pair from the first: it cannot be chained")
            if isinstance(model, NoiseChain):
                raise ConfigError("chains are flat: list the steps of the inner chain instead")
        for model in self.models[:-1]:
            if model.row_columns:
                raise ConfigError(f"{model.noise_id} reports per-row columns ({', '.join(model.row_columns)}) about its "
                                  "own output: it can only be the last step of a chain")

    @property
    def capabilities(self) -> Capabilities:  # type: ignore[override]
        caps = [m.capabilities for m in self.models]
        whole = any(c.edit_log == "whole-field" for c in caps)
        aligned = any(c.edit_log == "aligned" for c in caps)
        return Capabilities(input="text", protects_spans=all(c.protects_spans for c in caps),
                            edit_log="whole-field" if whole else "aligned" if aligned else "recorded",
                            model_based=any(c.model_based for c in caps),
                            deterministic=all(c.deterministic for c in caps))

    @property
    def row_columns(self) -> Mapping[str, str]:  # type: ignore[override]
        """The last step's (the only step that may declare any)."""
        return self.models[-1].row_columns

    @property
    def noise_id(self) -> str:
        return " | ".join(m.noise_id for m in self.models)

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        return ()

    def params(self) -> dict[str, Any]:
        return {"steps": [{"noise": m.noise_id, "params": m.params()} for m in self.models]}

    def seed_params(self) -> dict[str, Any]:
        return {"steps": [{"noise": m.noise_id, "params": m.seed_params()} for m in self.models]}

    def shareable_params(self) -> dict[str, Any]:
        return {"steps": [{"noise": m.noise_id, "params": m.shareable_params()} for m in self.models]}

    def name_part(self) -> str:
        return "_".join(m.name_part() for m in self.models)

    def steps(self) -> tuple[NoiseModel, ...]:
        return self.models

    def for_labels(self, names: Sequence[str]) -> NoiseModel:
        """The chain with every step given the dataset's class names (an attack step checks its victim)."""
        return replace(self, models=tuple(m.for_labels(names) for m in self.models))

    def without_labels(self, where: str) -> NoiseModel:
        """The chain with every step told the dataset has no class labels (an attack step refuses)."""
        return replace(self, models=tuple(m.without_labels(where) for m in self.models))

    def provenance(self) -> dict[str, Any]:
        steps = [m.provenance() for m in self.models]
        return {"steps": steps} if any(steps) else {}

    @property
    def citation(self) -> str:  # type: ignore[override]
        return "\n\n".join(dict.fromkeys(m.citation for m in self.models if m.citation))

    def describe(self) -> str:
        return "A chain of noise models, each applied to the output of the previous one: " + " Then: ".join(
            f"({i}) {m.describe()}" for i, m in enumerate(self.models, start=1))

    def apply(self, batch: NoiseInput) -> list[Noised]:
        raise ConfigError("a chain draws one stream per step: call it through noisecraft.noise_models.base.run_steps")
