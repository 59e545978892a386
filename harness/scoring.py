"""Predictions of one model on one config -> per-example scores, aggregate metrics and paired statistics.

Scores are fractions in [0, 1] (tables show them as percentages). Each task also keeps the per-example
values its main score is made of (``clean_parts``/``noisy_parts``: a score per example, or for entity F1
the counts ``(true positives, predicted, gold)`` per sentence), so breakdowns and pooled per-language
results recompute the score on any subset the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from noisecraft.errors import ConfigError
from noisecraft.harness.challenge_set import ConfigData
from noisecraft.harness.classification_metrics import (
    attack_success_rate,
    confidence,
    entropy,
    expected_calibration_error,
    reliability_bins,
)
from noisecraft.harness.entity_metrics import entity_counts, precision_recall_f1
from noisecraft.harness.paired_stats import Statistic, compare, f1_of, mean_of
from noisecraft.harness.salad import default_label
from noisecraft.harness.squad_metric import NORMALISATIONS, exact_match, f1
from noisecraft.harness.tasks import TOKENS
from noisecraft.runtime.labels import LabelMapping


@dataclass(frozen=True)
class StatsSettings:
    """How differences are tested: bootstrap resamples, interval level, seed, significance level; QA normalisation."""

    resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0
    alpha: float = 0.05
    qa_normalisation: str = "squad"

    def __post_init__(self) -> None:
        if self.qa_normalisation not in NORMALISATIONS:
            raise ConfigError(f"unknown QA normalisation {self.qa_normalisation!r}; use one of {', '.join(NORMALISATIONS)}")
        if self.resamples < 0 or not 0 < self.confidence < 1 or not 0 < self.alpha < 1:
            raise ConfigError("resamples must be >= 0, confidence and alpha in (0, 1)")

    def compare(self, clean: Statistic, noisy: Statistic, n: int, clean_correct: np.ndarray | None = None,
                noisy_correct: np.ndarray | None = None) -> dict[str, Any]:
        return compare(clean, noisy, n, resamples=self.resamples, confidence=self.confidence, seed=self.seed,
                       alpha=self.alpha, clean_correct=clean_correct, noisy_correct=noisy_correct)


@dataclass
class ScoredConfig:
    """One model on one config: metrics (with paired statistics), per-example columns, and the parts of the
    main score (``correct`` is set when the main score is a per-example right/wrong, for McNemar's test)."""

    metrics: dict[str, Any]
    columns: dict[str, list[Any]]
    clean_parts: np.ndarray
    noisy_parts: np.ndarray
    clean_correct: np.ndarray | None = None
    noisy_correct: np.ndarray | None = None


def statistic_of(parts: np.ndarray) -> Statistic:
    """The main score over resamples: the mean of per-example scores, or micro F1 of per-sentence counts."""
    return mean_of(parts) if parts.ndim == 1 else f1_of(parts[:, 0], parts[:, 1], parts[:, 2])


def score_value(parts: np.ndarray) -> float:
    """The main score of all the examples in ``parts``."""
    return float(statistic_of(parts)(np.arange(len(parts))[None, :])[0])


def _input_columns(data: ConfigData) -> dict[str, list[Any]]:
    """Row ids, edit counts, CER and the perturbed inputs (clean and noisy) for the per-example predictions file."""
    columns: dict[str, list[Any]] = {"id": data.ids, "edits": data.edit_counts, "cer": data.cer}
    for position, name in enumerate(data.task.inputs):
        if name in data.fields:
            for side, values in (("clean", data.clean), ("noisy", data.noisy)):
                # a token task's input is the token list itself; other tasks' inputs are lists of fields
                columns[f"{side}_{name}"] = list(values) if data.task.kind == TOKENS else [v[position] for v in values]
    return columns


def score_qa(data: ConfigData, clean: Sequence[dict[str, Any]], noisy: Sequence[dict[str, Any]],
             settings: StatsSettings) -> ScoredConfig:
    """Exact match and F1 (SQuAD v1.1, or MLQA normalisation), clean vs noisy."""
    norm, lang = settings.qa_normalisation, data.lang
    em = {side: np.array([exact_match(o["text"], g, norm, lang) for o, g in zip(out, data.gold)])
          for side, out in (("clean", clean), ("noisy", noisy))}
    f1s = {side: np.array([f1(o["text"], g, norm, lang) for o, g in zip(out, data.gold)])
           for side, out in (("clean", clean), ("noisy", noisy))}
    n = len(data.ids)
    metrics = {
        "exact_match": settings.compare(mean_of(em["clean"]), mean_of(em["noisy"]), n, em["clean"], em["noisy"]),
        "f1": settings.compare(mean_of(f1s["clean"]), mean_of(f1s["noisy"]), n),
    }
    columns = {**_input_columns(data), "gold_answers": data.gold,
               "clean_answer": [o["text"] for o in clean], "noisy_answer": [o["text"] for o in noisy],
               "clean_em": em["clean"].tolist(), "noisy_em": em["noisy"].tolist(),
               "clean_f1": f1s["clean"].tolist(), "noisy_f1": f1s["noisy"].tolist()}
    return ScoredConfig(metrics, columns, f1s["clean"], f1s["noisy"])


def class_probabilities(outputs: Sequence[Sequence[float]], mapping: LabelMapping) -> np.ndarray:
    """Model-label probabilities summed into the dataset's classes (n x classes)."""
    project = np.zeros((len(mapping.model_labels), len(mapping.dataset_labels)))
    for model_label, target in enumerate(mapping.targets):
        if target is not None:
            project[model_label, target] = 1.0
    return np.asarray(outputs, dtype=float).reshape(len(outputs), -1) @ project


def score_classification(data: ConfigData, clean: Sequence[Sequence[float]], noisy: Sequence[Sequence[float]],
                         mapping: LabelMapping, settings: StatsSettings) -> ScoredConfig:
    """Accuracy, confidence, entropy, calibration, agreement, flip rate and attack success rate; the number of
    classes; for a copy transformation (word salad) the share of noisy predictions that are its default label."""
    gold = np.asarray(data.gold)
    probs = {"clean": class_probabilities(clean, mapping), "noisy": class_probabilities(noisy, mapping)}
    predicted = {side: p.argmax(axis=1) for side, p in probs.items()}
    correct = {side: (predicted[side] == gold).astype(float) for side in probs}
    conf = {side: confidence(p) for side, p in probs.items()}
    ent = {side: entropy(p) for side, p in probs.items()}
    n = len(gold)
    agreement = float((predicted["clean"] == predicted["noisy"]).mean())
    ece = {side: expected_calibration_error(conf[side], correct[side]) for side in probs}
    metrics = {
        "accuracy": settings.compare(mean_of(correct["clean"]), mean_of(correct["noisy"]), n,
                                     correct["clean"], correct["noisy"]),
        "confidence": settings.compare(mean_of(conf["clean"]), mean_of(conf["noisy"]), n),
        "entropy": settings.compare(mean_of(ent["clean"]), mean_of(ent["noisy"]), n),
        "ece": {"clean": ece["clean"], "noisy": ece["noisy"], "difference": ece["clean"] - ece["noisy"]},
        "reliability": {side: reliability_bins(conf[side], correct[side]) for side in probs},
        "agreement": agreement,
        "flip_rate": 1.0 - agreement,
        "attack_success_rate": attack_success_rate(correct["clean"], correct["noisy"]),
        "classes": len(mapping.dataset_labels),
        "one_class": one_class(predicted["clean"], predicted["noisy"], mapping.dataset_labels),
    }
    target = default_label(data.name, data.noise_id, data.task.label_names)
    if target is not None:  # a copy transformation: how often the model says what copying makes true
        metrics["default_label"] = {"label": mapping.dataset_labels[target],
                                    "agreement": float((predicted["noisy"] == target).mean())}
    names = mapping.dataset_labels
    columns = {**_input_columns(data), "gold": [names[g] for g in gold],
               **{f"{side}_prediction": [names[p] for p in predicted[side]] for side in probs},
               **{f"{side}_confidence": conf[side].tolist() for side in probs},
               **{f"{side}_correct": correct[side].astype(bool).tolist() for side in probs},
               **{f"{side}_probabilities": probs[side].tolist() for side in probs}}
    return ScoredConfig(metrics, columns, correct["clean"], correct["noisy"], correct["clean"], correct["noisy"])


def one_class(clean: np.ndarray, noisy: np.ndarray, names: Sequence[str]) -> str | None:
    """The class a model predicted for every row, clean and noisy (``None`` when it predicted two or more, or for
    one row): then its accuracy is the share of that class and its drop 0 whatever the noise did, which is no
    measure of robustness (a model that ignores its input, or the wrong model for the task)."""
    seen = np.unique(np.concatenate([clean, noisy]))
    return names[int(seen[0])] if len(seen) == 1 and len(clean) > 1 else None


def word_tags(outputs: Sequence[Sequence[int]], mapping: LabelMapping) -> list[list[str]]:
    """Per-word model label ids -> dataset tags (a word the model did not reach, or an unknown type, is ``O``)."""
    def tag(label: int) -> str:
        target = mapping.targets[label] if label >= 0 else None
        return mapping.dataset_labels[target] if target is not None else "O"

    return [[tag(label) for label in sentence] for sentence in outputs]


def score_tokens(data: ConfigData, clean: Sequence[Sequence[int]], noisy: Sequence[Sequence[int]], mapping: LabelMapping,
                 settings: StatsSettings) -> ScoredConfig:
    """Entity-level precision, recall and F1 (seqeval conventions, IOB2), clean vs noisy."""
    tags = {"clean": word_tags(clean, mapping), "noisy": word_tags(noisy, mapping)}
    counts = {side: np.array([entity_counts(g, p) for g, p in zip(data.gold, tags[side])], dtype=float).reshape(-1, 3)
              for side in tags}
    n = len(data.ids)
    metrics: dict[str, Any] = {"entity_f1": settings.compare(statistic_of(counts["clean"]), statistic_of(counts["noisy"]), n)}
    for name in ("precision", "recall"):
        values = {side: precision_recall_f1(*(int(v) for v in c.sum(axis=0)))[name] for side, c in counts.items()}
        metrics[f"entity_{name}"] = {**values, "difference": values["clean"] - values["noisy"]}
    columns = {**_input_columns(data), "gold_tags": data.gold, "clean_tags": tags["clean"], "noisy_tags": tags["noisy"],
               "gold_entities": counts["clean"][:, 2].astype(int).tolist()}
    for side in tags:
        columns[f"{side}_true_positives"] = counts[side][:, 0].astype(int).tolist()
        columns[f"{side}_predicted_entities"] = counts[side][:, 1].astype(int).tolist()
    return ScoredConfig(metrics, columns, counts["clean"], counts["noisy"])
