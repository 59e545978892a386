"""The two measurements of the CoLeS probe (Li, Liu & Gao, 2023), per corruption type, on the runtime heads.

* **Similarity** (the paper's Tables 4a-6 and Figure 1): the cosine between the mean-pooled encoder
  outputs of the canonical and the noisy word (:meth:`noisecraft.runtime.heads.Head.embeddings`, the
  attention-mask weighted mean of the last hidden state, special tokens included as the head pools
  them), next to the paper's baseline, the cosine between the canonical word and ``the``: a noisy
  form no closer to its word than ``the`` is has lost the word's meaning for the model.
* **Downstream** (the paper's Table 4b): a sentiment classifier's accuracy on the noisy forms of the
  canonical words it classifies correctly (:meth:`~noisecraft.runtime.heads.Head.probabilities`),
  its labels mapped onto the lexicon's ``negative``/``positive`` as the evaluation harness maps them.

Each pair is typed with the model's own tokenizer (:mod:`noisecraft.harness.probe`). Every word goes through
the model once, batched by the head, and the head's cache keeps the outputs, so a second run, another
seed or another dataset repeats no forward pass for a word already seen.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from noisecraft.errors import ConfigError
from noisecraft.harness.probe.corruption import TYPES
from noisecraft.harness.probe.pairs import WordPair
from noisecraft.harness.probe.segmentation import Segmenter
from noisecraft.harness.probe.typing_table import slug, type_pairs
from noisecraft.runtime.labels import LabelMapping, class_mapping
from noisecraft.sources.wordlist import LABELS

#: The paper's reference word: the similarity a noisy form must beat to still mean its word.
BASELINE_WORD = "the"


@dataclass
class ModelResult:
    """One model's measured rows (similarity and/or downstream) and what identifies it."""

    name: str
    provenance: dict[str, Any]
    similarity: list[dict[str, Any]] = field(default_factory=list)
    downstream: list[dict[str, Any]] = field(default_factory=list)
    label_mapping: str = ""

    @property
    def slug(self) -> str:
        """The model's name in the report's files and sections (a local folder with its content digest)."""
        return slug(self.name, self.provenance["model"]["revision"])


def segmenter_of(head: Any) -> Segmenter:
    """The head's own tokenizer as a probe segmenter (typing uses exactly what the model sees)."""
    return Segmenter(head.tokenizer, head.ref.name, head.ref.revision)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two vectors, in float64 (0 when either is all zeros)."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y / norm) if norm else 0.0


def similarity_rows(head: Any, pairs: Sequence[WordPair], baseline: str = BASELINE_WORD) -> list[dict[str, Any]]:
    """Every pair typed for the head's tokenizer, with ``similarity`` (canonical vs noisy) and ``baseline``
    (canonical vs ``baseline``)."""
    rows = type_pairs(segmenter_of(head), pairs)
    words = sorted({p.canonical for p in pairs} | {p.noisy for p in pairs} | {baseline})
    vectors = dict(zip(words, head.embeddings([(w,) for w in words])))
    for row in rows:
        row["similarity"] = cosine(vectors[row["canonical"]], vectors[row["noisy"]])
        row["baseline"] = cosine(vectors[row["canonical"]], vectors[baseline])
    return rows


def classifier_mapping(head: Any, label_map: Mapping[str, str] | None = None) -> LabelMapping:
    """How the classifier's labels become the lexicon's (by name, by position for unnamed ones, or as given)."""
    return class_mapping(head.ref.name, head.id2label, LABELS, label_map)


def downstream_rows(head: Any, pairs: Sequence[WordPair],
                    label_map: Mapping[str, str] | None = None) -> tuple[list[dict[str, Any]], LabelMapping]:
    """Every pair typed for the classifier's tokenizer, with the predicted label of both words and whether each
    is right; and the label mapping used."""
    mapping = classifier_mapping(head, label_map)
    rows = type_pairs(segmenter_of(head), pairs)
    words = sorted({p.canonical for p in pairs} | {p.noisy for p in pairs})
    predicted = {w: LABELS[_target(mapping, probs)] for w, probs in zip(words, head.probabilities([(w,) for w in words]))}
    for row in rows:
        if row["label"] not in LABELS:
            raise ConfigError(f"pair {row['id']} of config {row['config']}: label {row['label']!r} is not one of "
                              f"{', '.join(LABELS)}")
        row["canonical_predicted"] = predicted[row["canonical"]]
        row["noisy_predicted"] = predicted[row["noisy"]]
        row["canonical_correct"] = row["canonical_predicted"] == row["label"]
        row["noisy_correct"] = row["noisy_predicted"] == row["label"]
    return rows, mapping


def _target(mapping: LabelMapping, probabilities: Sequence[float]) -> int:
    """The lexicon class of the model's most probable label (the first of equal ones)."""
    target = mapping.targets[int(np.argmax(probabilities))]
    if target is None:
        raise ConfigError(f"the label map leaves a model label without a lexicon label: {mapping.describe()}")
    return target


def _groups(rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Rows by corruption type (the six, in the paper's order, then ``unchanged``) and ``all`` changed pairs."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row["type"]].append(row)
        if row["type"] in TYPES:
            groups["all"].append(row)
    return {t: groups[t] for t in (*TYPES, "unchanged", "all") if groups.get(t)}


def similarity_summary(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per type: pairs, mean similarity, mean baseline, and the share of pairs closer to their word than ``the``."""
    return {t: {"pairs": len(group),
                "similarity": float(np.mean([r["similarity"] for r in group])),
                "baseline": float(np.mean([r["baseline"] for r in group])),
                "above_baseline": float(np.mean([r["similarity"] > r["baseline"] for r in group]))}
            for t, group in _groups(rows).items()}


def similarity_curve(rows: Sequence[dict[str, Any]]) -> dict[str, list[tuple[int, float, int]]]:
    """The paper's Figure 1: per noise kind, ``(|A|, mean similarity, pairs)`` for each number of added subwords."""
    by_kind: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["type"] in TYPES:
            by_kind[row["noise"]][row["added"]].append(row["similarity"])
    return {kind: [(added, float(np.mean(values)), len(values)) for added, values in sorted(points.items())]
            for kind, points in sorted(by_kind.items())}


def downstream_summary(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per type: pairs, pairs whose canonical word the classifier gets right, and its accuracy on their noisy forms."""
    out = {}
    for t, group in _groups(rows).items():
        kept = [r for r in group if r["canonical_correct"]]
        out[t] = {"pairs": len(group), "canonical_correct": len(kept),
                  "noisy_accuracy": float(np.mean([r["noisy_correct"] for r in kept])) if kept else float("nan")}
    return out


def measure(pairs: Sequence[WordPair], encoders: Sequence[Any] = (), classifiers: Sequence[tuple[Any, Mapping[str, str]]] = ()
            ) -> list[ModelResult]:
    """Similarity on every encoder head, downstream accuracy on every ``(classifier head, label map)``."""
    from noisecraft.runtime.heads import Embeddings, Probabilities

    results = []
    for head in encoders:
        results.append(ModelResult(head.ref.name, head.provenance(Embeddings()), similarity=similarity_rows(head, pairs)))
    for head, label_map in classifiers:
        rows, mapping = downstream_rows(head, pairs, label_map)
        results.append(ModelResult(head.ref.name, head.provenance(Probabilities()), downstream=rows,
                                   label_mapping=mapping.describe()))
    return results
