"""Where a dataset's labels live, independent of where the dataset came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from noisecraft.core.iob import entity_runs


@dataclass(frozen=True)
class LabelLayout:
    """The label layout noise must respect, given for any ``datasets.Dataset`` (not only registered sources).

    * ``span_labels``: text field -> column of character spans inside it, SQuAD-style
      ``{"text": [...], "answer_start": [...]}``; those spans are protected, moved and re-checked.
    * ``token_tags``: ``(tokens column, tags column)`` of a token-tag task; one tag per token is kept,
      and tag ``0`` is outside any entity (IOB2 ``O``).
    * ``pair_fields``: ``(first, second)`` text fields of a pair task, for pair noise (copy-sort).
    * ``class_label``: the column of a classification task's label, for noise that depends on it (an attack
      flips a classifier's correct prediction); negative values mean "no label" (GLUE test splits).
    """

    span_labels: Mapping[str, str] = field(default_factory=dict)
    token_tags: tuple[str, str] | None = None
    pair_fields: tuple[str, str] | None = None
    class_label: str | None = None
    #: Token-tag tasks: a column of ``"TYPE: token token"`` strings derived from the tokens and their IOB2
    #: tags (WikiANN's ``spans``), rebuilt from the noisy tokens, and the tag names it reads.
    entity_strings: str | None = None
    tag_names: tuple[str, ...] | None = None


def entity_strings(tokens: list[str], tags: list[int], tag_names: tuple[str, ...]) -> list[str]:
    """``"PER: Ada Lovelace"`` strings of the IOB2 entities of a tagged sentence."""
    return [f"{kind}: {' '.join(tokens[first:last + 1])}" for kind, first, last in entity_runs([tag_names[t] for t in tags])]
