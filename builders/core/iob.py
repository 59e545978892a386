"""IOB tags: the one place that reads entities out of a tag sequence and checks a sequence is valid IOB2.

Sources (WikiANN's ``spans`` column), ``replace-entity``'s tags files, the harness's entity scores and the
build's label check all read tags here, so they agree on what an entity is:

* an entity is a maximal run ``B-X I-X ...``; an ``I-X`` that does not continue an ``X`` entity starts one
  (IOB1, as CoNLL-2003 writes it, and seqeval's default reading of a model's ill-formed output);
* any tag that is neither ``B-`` nor ``I-`` (``O``, or another scheme's ``E-``/``S-``) is outside an entity.

:func:`is_valid_bio` reads tag *names*, the form an output row's tags and a model's predictions take, so the
label contract (DESIGN.md, contract 4: one tag per token, valid IOB2) is checked on what a build writes.
"""

from __future__ import annotations

from collections.abc import Sequence

#: One entity: ``(type, first token, last token)``, both ends included.
TokenEntity = tuple[str, int, int]


def entity_runs(tags: Sequence[str]) -> list[TokenEntity]:
    """The entities of one sentence's tags, in order."""
    found: list[TokenEntity] = []
    kind, start = "", -1
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, tag_type = tag.partition("-")
        continues = prefix == "I" and start >= 0 and tag_type == kind
        if start >= 0 and not continues:
            found.append((kind, start, i - 1))
            start = -1
        if prefix in ("B", "I") and not continues:
            kind, start = tag_type, i
    return found


def is_valid_bio(tags: Sequence[str]) -> bool:
    """IOB2: every ``I-X`` follows a ``B-X`` or an ``I-X``."""
    previous = "O"
    for tag in tags:
        if tag.startswith("I-") and previous[2:] != tag[2:]:
            return False
        previous = tag
    return True
