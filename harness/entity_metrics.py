"""Entity-level precision, recall and F1 of IOB2 tag sequences, with seqeval's default conventions.

An entity is a maximal run ``B-X I-X ...`` (its type and token span). As in seqeval's default mode
and CoNLL's ``conlleval``, an ``I-X`` that follows ``O`` or another type starts a new entity (a model's
ill-formed output is read leniently, not dropped). A predicted entity counts when type and span both
match a gold one; scores are micro-averaged over all entities of all sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

from noisecraft.core.iob import entity_runs


def entities(tags: Sequence[str]) -> set[tuple[str, int, int]]:
    """``(type, first token, last token)`` of every entity in one sentence's IOB2 tags (:mod:`noisecraft.core.iob`)."""
    return set(entity_runs(tags))


def entity_counts(gold: Sequence[str], predicted: Sequence[str]) -> tuple[int, int, int]:
    """``(true positives, predicted entities, gold entities)`` of one sentence."""
    gold_entities, predicted_entities = entities(gold), entities(predicted)
    return len(gold_entities & predicted_entities), len(predicted_entities), len(gold_entities)


def precision_recall_f1(true_positives: int, predicted: int, gold: int) -> dict[str, float]:
    """Micro precision, recall and F1 from summed counts (0 where a denominator is 0, as seqeval reports)."""
    precision = true_positives / predicted if predicted else 0.0
    recall = true_positives / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}
