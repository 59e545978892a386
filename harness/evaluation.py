"""``evaluate``: models x configs of a challenge set -> clean vs noisy scores with paired statistics.

For each model: load it once, check its task against each config's, map its labels onto the dataset's,
then run it on the clean and the noisy inputs of **all** its configs in one pass through the prediction
cache. Inputs are deduplicated by content first: the clean side shared by every config of a source, and
the rows a noise left unchanged, are computed once and get identical predictions on both sides (an
unchanged row can never "flip"). A re-run, or a run that adds a config, computes only inputs the cache
has not seen. With several models, every pair is compared on the rows they share (:func:`compare_models`).

Scoring and the record do not depend on what made the predictions: :meth:`ModelRun.add` scores one model's
predictions on one config and :func:`assemble` builds the result, for the runtime's models here and for the
samples lm-evaluation-harness logged (:mod:`noisecraft.harness.lm_eval_samples`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.harness.breakdowns import noise_breakdowns
from noisecraft.harness.challenge_set import ChallengeSet, ConfigData, open_challenge_set
from noisecraft.harness.models import EvalModel, ModelRequest, load_model
from noisecraft.harness.paired_stats import Statistic, clustered_bootstrap, significant
from noisecraft.harness.result import EvaluationResult
from noisecraft.harness.salad import default_label, word_salad_rows
from noisecraft.harness.scoring import (
    ScoredConfig,
    StatsSettings,
    score_classification,
    score_qa,
    score_tokens,
    score_value,
    statistic_of,
)
from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS
from noisecraft.runtime.labels import LabelMapping, class_mapping, tag_mapping
from noisecraft.version import __version__


def evaluate(dataset: str | Path, models: Sequence[str | ModelRequest], configs: Sequence[str] | None = None, *,
             revision: str | None = None, split: str | None = None,
             label_maps: Mapping[str, Mapping[str, str]] | None = None, device: str = "auto", dtype: str = "auto",
             token_budget: int | None = None, max_examples: int | None = None, resamples: int = 1000,
             confidence: float = 0.95, alpha: float = 0.05, seed: int = 0, qa_normalisation: str = "squad",
             out: str | Path | None = None, plots: bool = True, progress: bool = True) -> EvaluationResult:
    """Evaluate ``models`` on the clean and noisy sides of ``configs`` (default: all) of a challenge set.

    ``dataset`` is a folder made by ``noisecraft build`` or a Hub dataset id (at ``revision``). A model is a
    Hub id (``org/name`` or ``org/name@revision``) or a local folder; ``label_maps`` maps a model (as
    named in ``models``) to ``{model label: dataset label}`` where names do not match. ``max_examples``
    evaluates the first rows of each config only. With ``out`` the report (results.json, README.md,
    per-example parquet, plots) is written there. Returns the result (``.to_dict()``, ``.to_json()``).
    """
    from noisecraft.runtime import library_versions, pick_placement

    settings = StatsSettings(resamples, confidence, seed, alpha, qa_normalisation)
    if not models:
        raise ConfigError("give at least one model to evaluate")
    if max_examples is not None and max_examples < 1:
        raise ConfigError("max_examples must be at least 1")
    requests = [m if isinstance(m, ModelRequest) else ModelRequest.parse(m, dict((label_maps or {}).get(m, {})))
                for m in models]
    refs = [request.resolve() for request in requests]  # a model that cannot be had fails now, before any data is read
    require("torch", "eval")
    require("transformers", "eval")
    challenge = open_challenge_set(dataset, revision)
    names = list(dict.fromkeys(configs or challenge.config_names))
    data = [challenge.load(name, split, max_examples) for name in names]
    placement = pick_placement(device, dtype, extra="eval")
    runs = [_run_model(load_model(request, placement, token_budget, ref), data, settings, progress)
            for request, ref in zip(requests, refs)]
    settings_record = {"split": split, "max_examples": max_examples, "device": placement.device, "dtype": placement.dtype}
    versions = library_versions("torch", "transformers", "datasets", "numpy", "tokenizers")
    result = assemble(challenge, names, data, settings, settings_record, versions, runs)
    if out is not None:
        result.save(out, plots=plots)
    return result


def assemble(challenge: ChallengeSet, names: list[str], data: list[ConfigData], settings: StatsSettings,
             settings_record: dict[str, Any], versions: dict[str, Any], runs: Sequence[ModelRun]) -> EvaluationResult:
    """The result of models scored on configs, whatever produced their predictions (the runtime or lm-eval's
    samples): every model's record and results, the per-language summary, the paired comparisons between
    models, the word-salad rows and the notes."""
    record = {
        "noisecraft_version": __version__,
        "dataset": challenge.provenance(names),
        "configs": [d.describe() for d in data],
        "settings": {**settings_record, "bootstrap_resamples": settings.resamples, "confidence": settings.confidence,
                     "alpha": settings.alpha, "seed": settings.seed, "qa_normalisation": settings.qa_normalisation,
                     "scores": "fractions in [0, 1]", "difference": "clean - noisy (positive: the noise costs score)"},
        "versions": versions,
        "models": [run.record for run in runs],
        "results": [entry for run in runs for entry in run.results],
        "by_language": _by_language([item for run in runs for item in run.scored], settings),
        "model_comparisons": compare_models([item for run in runs for item in run.scored], settings),
        "word_salad": word_salad_rows([entry for run in runs for entry in run.results]),
        "notes": [note for run in runs for note in run.notes],
        "warnings": [warning for run in runs for warning in run.warnings],
    }
    return EvaluationResult(record, [item for run in runs for item in run.predictions])


@dataclass
class ModelRun:
    """One model on the configs of its task: its record, one result entry and predictions per config, notes."""

    record: dict[str, Any]
    results: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[tuple[str, str, dict[str, list[Any]]]] = field(default_factory=list)
    scored: list[tuple[str, ConfigData, ScoredConfig]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: What makes a result no measure of robustness (a model that predicts one class for every row).
    warnings: list[str] = field(default_factory=list)

    def add(self, fingerprint: dict[str, Any], data: ConfigData, clean: list[Any], noisy: list[Any],
            mapping: LabelMapping | None, settings: StatsSettings) -> None:
        """Score the model's ``clean`` and ``noisy`` predictions on ``data`` (in its row order): QA answers
        (``{"text": ...}``), class probabilities over the model's labels (``mapping`` makes them the dataset's) or
        per-word label ids. ``fingerprint`` names the model (``model``, ``revision``) in the result entry."""
        scored = _score(data, clean, noisy, mapping, settings)
        self.scored.append((fingerprint["model"], data, scored))
        self.results.append({**fingerprint, "config": data.name, "lang": data.lang, "noise": data.noise,
                             "task": data.task.kind, "n": len(data.ids), "primary_metric": data.task.primary_metric,
                             "metrics": scored.metrics, "noise_id": data.noise_id, "params": data.params,
                             "seed": data.seed, "source": data.source, "fields": list(data.fields),
                             "breakdowns": noise_breakdowns(data.edit_counts, data.cer, scored.clean_parts,
                                                            scored.noisy_parts, data.whole_field, settings)})
        self.predictions.append((fingerprint["model"], data.name, scored.columns))
        if scored.metrics.get("one_class") is not None:
            self.warnings.append(f"{fingerprint['model']} predicts {scored.metrics['one_class']!r} for every row of "
                                 f"{data.name}, clean and noisy: its accuracy is that class's share and its drop 0 "
                                 "whatever the noise did, no measure of robustness (does the model read its input? is "
                                 "it a model for this task?)")


def _run_model(model: EvalModel, data: list[ConfigData], settings: StatsSettings, progress: bool) -> ModelRun:
    """Predict every clean and noisy input of the configs of the model's task (through the cache) and score them."""
    from noisecraft.runtime.cache import input_key

    usable = [d for d in data if d.task.kind == model.task]
    if not usable:
        raise ConfigError(f"model {model.request.name} is a {model.task} model, and no config evaluated here is "
                          f"({', '.join(f'{d.name}: {d.task.kind}' for d in data)})")
    mappings = {d.name: _mapping(model, d) for d in usable}  # every label problem is reported before any compute
    for d in usable:
        if d.task.kind == CLASSIFICATION:
            default_label(d.name, d.noise_id, d.task.label_names)
    task = model.head_task()
    inputs = [item for d in usable for item in (*d.clean, *d.noisy)]
    model.head.progress = progress
    before = model.head.computed
    outputs = model.head.run(task, inputs, desc=model.label)  # through the prediction cache
    computed = model.head.computed - before
    distinct = len({input_key(item) for item in inputs})
    run = ModelRun({
        **model.record(task),
        "label_mappings": {name: m.to_dict() for name, m in mappings.items() if m is not None},
        "inputs": {"total": len(inputs), "distinct": distinct, "computed": computed, "from_cache": distinct - computed},
    })
    run.notes += [f"{model.label} ({model.task}) was not run on {d.name} ({d.task.kind})" for d in data
                  if d.task.kind != model.task]
    run.notes += _mapping_notes(model, mappings)
    position = 0
    for d in usable:  # outputs are in input order: each config's clean rows, then its noisy rows
        n = len(d.ids)
        clean, noisy = outputs[position : position + n], outputs[position + n : position + 2 * n]
        position += 2 * n
        run.add(model.ref.fingerprint(), d, clean, noisy, mappings[d.name], settings)
    return run


def _mapping(model: EvalModel, data: ConfigData) -> LabelMapping | None:
    given = model.request.label_map or None
    if data.task.kind == CLASSIFICATION:
        return class_mapping(model.request.name, model.id2label, data.task.label_names, given)
    if data.task.kind == TOKENS:
        return tag_mapping(model.request.name, model.id2label, data.task.label_names, given)
    return None


def _mapping_notes(model: EvalModel, mappings: Mapping[str, LabelMapping | None]) -> list[str]:
    """A note for each distinct mapping of a model that was not made by name or that reads some tags as ``O``."""
    shown = {m.describe(): m for m in mappings.values() if m is not None}
    return [f"{model.label}: labels mapped {described}" for described, m in shown.items()
            if m.how not in ("by name", "by tag name") or None in m.targets]


def _score(data: ConfigData, clean: list[Any], noisy: list[Any], mapping: LabelMapping | None,
           settings: StatsSettings) -> ScoredConfig:
    if data.task.kind == QA:
        return score_qa(data, clean, noisy, settings)
    assert mapping is not None
    if data.task.kind == CLASSIFICATION:
        return score_classification(data, clean, noisy, mapping, settings)
    return score_tokens(data, clean, noisy, mapping, settings)


def _by_language(scored: list[tuple[str, ConfigData, ScoredConfig]], settings: StatsSettings) -> list[dict[str, Any]]:
    """The main score of each model per language over the rows of all its configs in that language.

    The configs of a folder share their source rows (four noises of the same 872 sentences), so their rows
    are not independent: the interval is a clustered bootstrap with the source example (source, split and
    row id) as the cluster, and significance is that interval excluding 0 (McNemar's test assumes independent
    pairs and is not used here). Per-config tests are in the tables above.
    """
    groups: dict[tuple[str, str], list[tuple[ConfigData, ScoredConfig]]] = {}
    for label, data, result in scored:
        groups.setdefault((label, data.lang), []).append((data, result))
    rows = []
    for (label, lang), members in groups.items():
        clean = np.concatenate([s.clean_parts for _, s in members])
        noisy = np.concatenate([s.noisy_parts for _, s in members])
        clusters = np.array([f"{d.source}\0{d.split}\0{row_id}" for d, _ in members for row_id in d.ids])
        clean_value, noisy_value = score_value(clean), score_value(noisy)
        low, high = clustered_bootstrap(clean, noisy, clusters, settings.resamples, settings.confidence, settings.seed)
        rows.append({"model": label, "lang": lang, "task": members[0][0].task.kind,
                     "primary_metric": members[0][0].task.primary_metric, "configs": [d.name for d, _ in members],
                     "n": len(clean), "examples": len(set(clusters.tolist())), "clean": clean_value, "noisy": noisy_value,
                     "difference": clean_value - noisy_value, "ci": [low, high], "test": "clustered bootstrap",
                     "significant": significant(low, high)})
    return rows


def compare_models(scored: list[tuple[str, ConfigData, ScoredConfig]], settings: StatsSettings) -> list[dict[str, Any]]:
    """Every pair of models on every config both ran on (the same rows): the main score of the first minus the
    second's on the clean side and on the noisy side, each with its paired bootstrap interval and, for a
    right/wrong score, McNemar's exact test; and the difference of their drops (clean - noisy)."""
    by_config: dict[str, list[tuple[str, ConfigData, ScoredConfig]]] = {}
    for item in scored:
        by_config.setdefault(item[1].name, []).append(item)
    comparisons = []
    for config, members in by_config.items():
        for i, (first, data, a) in enumerate(members):
            for second, other, b in members[i + 1 :]:
                if data.ids != other.ids:
                    continue
                entry: dict[str, Any] = {"config": config, "lang": data.lang, "first": first, "second": second,
                                         "primary_metric": data.task.primary_metric, "n": len(data.ids)}
                for side in ("clean", "noisy"):
                    mine, theirs = getattr(a, f"{side}_parts"), getattr(b, f"{side}_parts")
                    binary = a.clean_correct is not None and b.clean_correct is not None
                    entry[side] = _relabel(settings.compare(statistic_of(mine), statistic_of(theirs), len(data.ids),
                                                            mine if binary else None, theirs if binary else None))
                entry["drop"] = _relabel(settings.compare(_drop_of(a), _drop_of(b), len(data.ids)))
                comparisons.append(entry)
    return comparisons


def _drop_of(scored: ScoredConfig) -> Statistic:
    """A model's clean - noisy main score over each resample (to compare two models' drops)."""
    clean, noisy = statistic_of(scored.clean_parts), statistic_of(scored.noisy_parts)
    return lambda index: clean(index) - noisy(index)


def _relabel(comparison: dict[str, Any]) -> dict[str, Any]:
    """A comparison of two models: ``first`` and ``second`` for what :func:`compare` calls clean and noisy."""
    renamed = {"clean": "first", "noisy": "second", "clean_ci": "first_ci", "noisy_ci": "second_ci"}
    return {renamed.get(key, key): value for key, value in comparison.items()}
