"""Where ``replace-entity`` finds named entities: the source's own tags, or a named-entity tagger.

* **Tags** (:class:`TaggedSentences`): a WikiANN (``lang:token<TAB>tag``) or CoNLL (``token ... tag``,
  space-separated, tag last, IOB1 or IOB2) file. Each sentence is known by its text, its tokens joined
  by single spaces, which is exactly what a build hands a noise model for a token field (and what a
  question field holds when the file was made from those questions). Looking entities up by text
  keeps the model a pure function of its input (no example ids), and the file enters the seed by its
  content digest. A text the file does not hold is reported, never guessed.
* **Tagger** (:class:`EntityTagger`): a transformers token-classification checkpoint (id + revision,
  or a saved folder; e.g. a multilingual PER/ORG/LOC model for the XQuAD languages) run through the
  runtime's head: batched by tokens, cached by the head's fingerprint and the text, sub-tokens grouped
  as the ``simple`` aggregation of transformers' pipeline groups them. Its labels are mapped to
  PER/ORG/LOC (PERSON -> PER, GPE -> LOC); other types (MISC, DATE, ...) are not entities here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noisecraft.core.iob import entity_runs
from noisecraft.errors import ConfigError
from noisecraft.runtime import ModelRef, Placement, pick_placement, resolve_model
from noisecraft.runtime.heads import BoundHead, Entities, Head
from noisecraft.sources.wikiann import tagged_sentences

ENTITY_TYPES = ("LOC", "ORG", "PER")
#: A named entity: character offsets in its text and its type.
Entity = tuple[int, int, str]
_TYPE_NAMES = {"PER": "PER", "PERSON": "PER", "ORG": "ORG", "ORGANIZATION": "ORG", "LOC": "LOC", "GPE": "LOC",
               "LOCATION": "LOC"}


def entity_type(label: str) -> str | None:
    """``PER``, ``ORG`` or ``LOC`` for a tagger's or a file's label (``B-PER``, ``PERSON``, ``GPE``), else ``None``."""
    name = label.split("-", 1)[1] if label[:2] in ("B-", "I-", "E-", "S-") else label
    return _TYPE_NAMES.get(name.upper())


def sentence_entities(tokens: Sequence[str], tags: Sequence[str]) -> list[Entity]:
    """Character spans (in the space-joined tokens) and types of the PER/ORG/LOC entities (IOB1 or IOB2, read by
    :func:`noisecraft.core.iob.entity_runs` once each tag's type is mapped: other types are outside an entity)."""
    mapped = []
    for tag in tags:
        kind = entity_type(tag) if tag != "O" else None
        mapped.append("O" if kind is None else f"I-{kind}" if tag.startswith("I-") else f"B-{kind}")
    starts = []
    offset = 0
    for token in tokens:
        starts.append(offset)
        offset += len(token) + 1
    return [(starts[first], starts[last] + len(tokens[last]), kind) for kind, first, last in entity_runs(mapped)]


class TaggedSentences:
    """The entities of every sentence of a tags file, by the sentence's text (tokens joined by spaces)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.by_text: dict[str, list[Entity]] = {}
        for sentence in tagged_sentences(self.path):
            tokens = [token for _, token, _ in sentence]
            self.by_text.setdefault(" ".join(tokens), sentence_entities(tokens, [tag for _, _, tag in sentence]))
        if not self.by_text:
            raise ConfigError(f"{self.path}: no tagged sentence in the entity tags file")

    def entities(self, texts: Sequence[str]) -> list[list[Entity] | None]:
        """The entities of each text; ``None`` for a text the file does not hold."""
        return [self.by_text.get(text) for text in texts]


class EntityTagger:
    """A transformers token-classification model: the runtime's head bound to :class:`Entities` (batched by tokens,
    cached by the head's fingerprint and the text), its labels read as PER/ORG/LOC."""

    def __init__(self, ref: ModelRef, placement: Placement) -> None:
        self.head = BoundHead(Head(ref, placement), Entities(), "entities")

    @classmethod
    def resolve(cls, model: str, revision: str | None, device: str, dtype: str) -> EntityTagger:
        return cls(resolve_model(model, revision), pick_placement(device, dtype, extra="speech"))

    @property
    def ref(self) -> ModelRef:
        return self.head.head.ref

    def provenance(self) -> dict[str, Any]:
        """The head's fingerprint plus the device, as the card records it."""
        return self.head.provenance()

    def entities(self, texts: Sequence[str], progress: bool = False) -> list[list[Entity]]:
        """The PER/ORG/LOC entities of each text (computed once per distinct text, then cached)."""
        found = self.head.run(list(texts), progress)
        return [[(start, end, kind) for start, end, label in spans if (kind := entity_type(label))] for spans in found]
