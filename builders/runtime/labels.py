"""Mapping a model's output labels (its ``config.id2label``) onto a dataset's label names (the harness's
evaluation and the grammar attack's victim both match labels this one way).

Checkpoints of the same task order their labels differently (MNLI models disagree on where
*contradiction* goes), so labels are matched **by name**, case and separators ignored
(``NOT_ENTAILMENT`` = ``not entailment``). A model that names no labels (``LABEL_0``, ``LABEL_1``, ...)
with as many labels as the dataset is mapped **by position** and the report says so, since that is only
right when the model was trained with the dataset's own label order. Anything else needs an explicit
map (``--label-map 'LABEL_0=contradiction,...'``), which may send several model labels to one dataset
label (an MNLI model on a two-way entailment set: ``neutral=not_entailment,contradiction=not_entailment``).

Token-tag models are mapped per entity type: ``B-PER``/``I-PER`` onto the dataset's tags of that type,
``O`` onto ``O``; entity types the dataset does not annotate (CoNLL's ``MISC`` on WikiANN) become ``O``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from noisecraft.errors import ConfigError

_GENERIC = re.compile(r"(label_?)?\d+")
#: Entity type spellings of common NER checkpoints, onto WikiANN/CoNLL's.
_ENTITY_ALIASES = {"person": "per", "organization": "org", "organisation": "org", "location": "loc"}


def normalise(name: str) -> str:
    """A label name with case, spaces, dashes and underscores made uniform."""
    return re.sub(r"[\s_\-]+", "_", name.strip().lower())


@dataclass(frozen=True)
class LabelMapping:
    """Model label id -> dataset label index (``None``: the model label has no counterpart, read as ``O``)."""

    model_labels: tuple[str, ...]
    dataset_labels: tuple[str, ...]
    targets: tuple[int | None, ...]
    how: str

    def describe(self) -> str:
        """``LABEL_0->entailment, ...`` and how the mapping was made, for the report."""
        pairs = ", ".join(f"{m}->{self.dataset_labels[t] if t is not None else 'O (not in the dataset)'}"
                          for m, t in zip(self.model_labels, self.targets))
        return f"{self.how}: {pairs}"

    def to_dict(self) -> dict[str, object]:
        return {"how": self.how, "map": {m: (self.dataset_labels[t] if t is not None else None)
                                        for m, t in zip(self.model_labels, self.targets)}}


def parse_label_map(text: str) -> dict[str, str]:
    """``'LABEL_0=contradiction, LABEL_1=entailment'`` -> ``{"LABEL_0": "contradiction", ...}``."""
    pairs: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        model_label, sep, dataset_label = part.partition("=")
        if not sep or not model_label.strip() or not dataset_label.strip():
            raise ConfigError(f"label map entry {part!r}: expected MODEL_LABEL=DATASET_LABEL")
        pairs[model_label.strip()] = dataset_label.strip()
    if not pairs:
        raise ConfigError("empty label map: expected 'MODEL_LABEL=DATASET_LABEL,...'")
    return pairs


def _model_labels(id2label: Mapping[int, str]) -> tuple[str, ...]:
    return tuple(str(id2label[i]) for i in sorted(id2label))


def _given(model: str, labels: tuple[str, ...], dataset: tuple[str, ...], given: Mapping[str, str]) -> LabelMapping:
    by_model = {normalise(m): m for m in labels}
    by_dataset = {normalise(d): i for i, d in enumerate(dataset)}
    targets: dict[str, int] = {}
    for model_label, dataset_label in given.items():
        if normalise(model_label) not in by_model:
            raise ConfigError(f"label map of {model}: the model has no label {model_label!r}; its labels: {', '.join(labels)}")
        if normalise(dataset_label) not in by_dataset:
            raise ConfigError(f"label map of {model}: the dataset has no label {dataset_label!r}; "
                              f"its labels: {', '.join(dataset)}")
        targets[by_model[normalise(model_label)]] = by_dataset[normalise(dataset_label)]
    missing = [m for m in labels if m not in targets]
    if missing:
        raise ConfigError(f"label map of {model} leaves model label(s) {', '.join(missing)} unmapped: map every "
                          f"label of the model ({', '.join(labels)})")
    return LabelMapping(labels, dataset, tuple(targets[m] for m in labels), "given")


def class_mapping(model: str, id2label: Mapping[int, str], dataset_labels: Sequence[str],
                  given: Mapping[str, str] | None = None, remedy: str | None = None) -> LabelMapping:
    """How a sequence classifier's labels become the dataset's classes (every model label must map).

    ``remedy`` ends the error when they do not fit (default: how to give ``--label-map``)."""
    labels, dataset = _model_labels(id2label), tuple(dataset_labels)
    if given:
        return _given(model, labels, dataset, given)
    by_dataset = {normalise(d): i for i, d in enumerate(dataset)}
    if all(normalise(m) in by_dataset for m in labels) and len(labels) == len(dataset):
        return LabelMapping(labels, dataset, tuple(by_dataset[normalise(m)] for m in labels), "by name")
    if all(_GENERIC.fullmatch(normalise(m)) for m in labels) and len(labels) == len(dataset):
        return LabelMapping(labels, dataset, tuple(range(len(dataset))),
                            "by position (the model names no labels: right only if it was trained with the "
                            "dataset's label order; check its model card)")
    unmatched = [m for m in labels if normalise(m) not in by_dataset]
    example = ",".join(f"{m}={dataset[by_dataset[normalise(m)]] if normalise(m) in by_dataset else '...'}" for m in labels)
    generic = all(_GENERIC.fullmatch(normalise(m)) for m in labels)  # unnamed: only the count could have fit
    why = (f"cannot match {', '.join(unmatched)} by name" if unmatched and not generic
           else f"it has {len(labels)} labels and the dataset {len(dataset)}")
    remedy = remedy or (f"Say which is which with --label-map '{example}' (model label=dataset label; several "
                        "model labels may share one dataset label)")
    raise ConfigError(f"labels of model {model} ({', '.join(labels)}) do not fit the dataset's "
                      f"({', '.join(dataset)}): {why}. {remedy}")


def _entity_type(tag: str) -> tuple[str, str]:
    prefix, _, kind = normalise(tag).partition("_")
    return prefix, _ENTITY_ALIASES.get(kind, kind)


def tag_mapping(model: str, id2label: Mapping[int, str], dataset_tags: Sequence[str],
                given: Mapping[str, str] | None = None) -> LabelMapping:
    """How a token classifier's tags become the dataset's IOB2 tags (unknown entity types become ``O``)."""
    labels, dataset = _model_labels(id2label), tuple(dataset_tags)
    if given:
        return _given(model, labels, dataset, given)
    if all(_GENERIC.fullmatch(normalise(m)) for m in labels):
        if len(labels) != len(dataset):
            raise ConfigError(f"model {model} names no tags ({', '.join(labels)}) and has {len(labels)} of them, the "
                              f"dataset {len(dataset)} ({', '.join(dataset)}): give --label-map 'LABEL_0=O,...'")
        return LabelMapping(labels, dataset, tuple(range(len(dataset))),
                            "by position (the model names no tags: right only if it was trained with the dataset's "
                            "tag order; check its model card)")
    by_dataset = {_entity_type(d): i for i, d in enumerate(dataset)}
    outside = by_dataset.get(("o", ""))
    targets: list[int | None] = []
    for tag in labels:
        prefix, kind = _entity_type(tag)
        if prefix == "o" and not kind:
            targets.append(outside)
        elif prefix in ("b", "i") and kind:
            targets.append(by_dataset.get((prefix, kind)))
        else:
            raise ConfigError(f"model {model} has tag {tag!r}, which is not IOB2 (B-X, I-X or O): give --label-map "
                              f"'{tag}=O,...' to say what each of its tags ({', '.join(labels)}) means")
    if not any(t is not None and dataset[t] != "O" for t in targets):
        raise ConfigError(f"model {model} tags no entity type of the dataset ({', '.join(labels)} vs "
                          f"{', '.join(dataset)}): give --label-map")
    return LabelMapping(labels, dataset, tuple(targets), "by tag name")
