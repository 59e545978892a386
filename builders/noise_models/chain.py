"""Noise chains: several models applied in sequence to the same field.

NoiseQA names combinations of interfaces (speech recognition of a machine translation, typos on
top of natural misspellings) as the open question; a chain builds them. Each step draws from its
own per-example stream (:func:`noisecraft.noise_models.base.step_rngs`), protected spans are carried
through every step, and the final edit log is against the original text
(:func:`noisecraft.edits.compose`), so it replays exactly and labels are checked once, at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from noisecraft.edits import Noised, Span, compose, remap_span
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseModel, step_rngs
from noisecraft.params import ParamSpec
from noisecraft.seeding import ExampleRng


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

    @property
    def capabilities(self) -> Capabilities:  # type: ignore[override]
        caps = [m.capabilities for m in self.models]
        whole = any(c.edit_log == "whole-field" for c in caps)
        aligned = any(c.edit_log == "aligned" for c in caps)
        return Capabilities(input="text", protects_spans=all(c.protects_spans for c in caps),
                            edit_log="whole-field" if whole else "aligned" if aligned else "recorded",
                            deterministic=all(c.deterministic for c in caps), by_id=any(c.by_id for c in caps),
                            model_based=any(c.model_based for c in caps))

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

    def provenance(self) -> dict[str, Any]:
        steps = [m.provenance() for m in self.models]
        return {"steps": steps} if any(steps) else {}

    def prepare(self, texts: Sequence[Any], ids: Sequence[str] | None = None, progress: bool = True) -> None:
        """Only the first step's inputs are known before the build runs; later model-based steps fill
        their caches batch by batch (their inner batches then follow the build's batches)."""
        self.models[0].prepare(texts, ids, progress)

    @property
    def citation(self) -> str:  # type: ignore[override]
        return "\n\n".join(dict.fromkeys(m.citation for m in self.models if m.citation))

    def describe(self) -> str:
        return "A chain of noise models, each applied to the output of the previous one: " + " Then: ".join(
            f"({i}) {m.describe()}" for i, m in enumerate(self.models, start=1))

    def apply(self, texts: Sequence[Any], rngs: Sequence[ExampleRng],
              protected: Sequence[Sequence[Span]] | None = None, ids: Sequence[str] | None = None) -> list[Noised]:
        raise ConfigError("a chain draws one stream per step: call it through NoiseChain.run_steps")

    def run_steps(self, texts: list[Any], seed: int, ids: Sequence[str], field: str,
                  protected: Sequence[Sequence[Span]] | None, labels: Sequence[Any] | None = None) -> list[Noised]:
        """Run each step on the previous step's output; edits composed against the original text."""
        current = list(texts)
        logs: list[tuple] = [() for _ in texts]
        spans = [list(p) for p in protected] if protected else [[] for _ in texts]
        failures: list[str | None] = [None] * len(texts)
        for index, model in enumerate(self.models):
            rngs = step_rngs(model, seed, ids, field, index)
            extra = {"ids": ids} if model.capabilities.by_id else {}
            results = model.apply(current, rngs, spans if any(spans) else None, **extra)
            for i, noised in enumerate(results):
                if failures[i] is not None:
                    continue
                if noised.failure is not None:
                    failures[i] = noised.failure
                    continue
                logs[i] = compose(texts[i], logs[i], noised.edits)
                # spans move with the text; one an edit went through is no longer protected by later steps
                spans[i] = [moved for s, e in spans[i] if (moved := remap_span(s, e, noised.edits)) is not None]
                current[i] = noised.text
        return [Noised(texts[i], (), failures[i]) if failures[i] is not None else Noised(current[i], tuple(logs[i]))
                for i in range(len(texts))]
