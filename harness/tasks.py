"""What a challenge-set config asks of a model, read from the set's own metadata.

Every config in a set's manifest (carried by its card) names the source it was built from; the
source's :class:`~noisecraft.sources.base.SourceInfo` says the task (extractive QA, single-sentence or
pair classification, token classification) and where inputs and labels live. Label names come from the
split's ``ClassLabel`` features, as ``datasets`` loads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from noisecraft.errors import ConfigError

QA = "extractive-qa"
CLASSIFICATION = "text-classification"
TOKENS = "token-classification"
TASKS = (QA, CLASSIFICATION, TOKENS)

#: The model class suffix (``BertForQuestionAnswering``) and ``transformers`` auto class of each task.
MODEL_HEADS = {QA: "ForQuestionAnswering", CLASSIFICATION: "ForSequenceClassification", TOKENS: "ForTokenClassification"}
AUTO_CLASSES = {QA: "AutoModelForQuestionAnswering", CLASSIFICATION: "AutoModelForSequenceClassification",
                TOKENS: "AutoModelForTokenClassification"}
#: The score each task is compared on in tables, breakdowns and plots.
PRIMARY_METRIC = {QA: "f1", CLASSIFICATION: "accuracy", TOKENS: "entity_f1"}


@dataclass(frozen=True)
class TaskSpec:
    """The task of a config and its columns.

    * ``inputs``: the text columns a model reads, in order (QA: question, context; classification: one
      or two sentences; token classification: the tokens column);
    * ``target``: the gold column (QA: the answers struct; otherwise the label or tags column);
    * ``label_names``: class names (classification) or IOB2 tag names (token classification).
    """

    kind: str
    inputs: tuple[str, ...]
    target: str
    label_names: tuple[str, ...] = ()

    @property
    def primary_metric(self) -> str:
        return PRIMARY_METRIC[self.kind]


def _class_names(feature: Any, column: str, config: str) -> tuple[str, ...]:
    names = getattr(feature, "names", None) or getattr(getattr(feature, "feature", None), "names", None)
    if not names:
        raise ConfigError(f"config {config}: column {column!r} has no class names (not a ClassLabel), so predictions "
                          "cannot be matched to its labels")
    return tuple(names)


def task_of(config: str, spec: Mapping[str, Any], features: Any) -> TaskSpec:
    """The task of ``config``, whose manifest entry is ``spec`` (its source, and the layout a table or Hub source was
    declared with) and whose split has ``features``."""
    from noisecraft.sources.registry import source_info
    from noisecraft.sources.table import TableLayout

    source = spec["source"]
    try:
        info = source_info(source, TableLayout.declare(**spec["layout"]) if spec.get("layout") else None)
    except ConfigError:
        raise ConfigError(f"config {config} was built from source {source!r}, which this noisecraft does not know: "
                          "upgrade noisecraft to evaluate it") from None
    if info.task_category == "question-answering":
        (context, answers), = info.span_labels.items()
        return TaskSpec(QA, ("question", context), answers)
    if info.task_category == "token-classification" and info.token_tags:
        tokens, tags = info.token_tags
        return TaskSpec(TOKENS, (tokens,), tags, _class_names(features[tags], tags, config))
    if info.task_category == "text-classification" and info.class_label:
        inputs = info.pair_fields or info.default_fields or spec["fields"]  # a table's: the fields it declared
        label = info.class_label
        return TaskSpec(CLASSIFICATION, tuple(inputs), label, _class_names(features[label], label, config))
    raise ConfigError(f"config {config}: the harness cannot evaluate task {info.task_category!r} of source {source}")
