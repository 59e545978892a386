"""What a speech interface does to a question, one artefact at a time (NoiseQA §4.2).

NoiseQA isolates the artefacts of its ASR interface with rule-based perturbations; each is a model here,
with recorded edits (exact character spans; everything else byte-identical) and protected spans honoured:

* ``drop-punctuation``: every punctuation mark goes (Unicode category P), except inside words, where a
  transcript keeps it too (``doesn't``, ``long-term``, ``U.S.``, ``3.5``);
* ``drop-question-mark``: only the final question mark (``?``, Arabic ``؟``, full-width ``？``, Greek ``;``),
  with the Spanish opening ``¿`` of that question;
* ``drop-function-words`` / ``drop-content-words``: each function word (closed class, from the
  language's shipped list ``builders/wordlists/<lang>.txt``) or each other word, with probability ``rate``
  (1: all of them, as NoiseQA does);
* ``lowercase-start``: the first letter of the text lower-cased (a recogniser does not capitalise a
  sentence: 97 % of NoiseQA's ASR questions start lower-case), except ``I`` and words written in
  capitals (``NFL``, ``iPhone``: case inside the word is the word's own);
* ``replace-entity``: one named entity (PER/ORG/LOC, drawn at random among those present) becomes a
  placeholder; entities come from the source's tags or a named-entity tagger (:mod:`.entity_spans`).

A deleted item takes one neighbouring run of whitespace with it, so no double or stray spaces are left
(``it ?`` -> ``it``, ``What is the city`` -> ``What is city``, ``in "Doctor Who"`` -> ``in Doctor Who``),
but never the space after a mark attached to a word (``Paris, France`` -> ``Paris France``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from noisecraft.core.citations import NOISEQA_CITATION
from noisecraft.core.edits import Edit, Noised, Span, noised_from_edits, overlaps
from noisecraft.core.params import param
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import segmentation_note, word_spans
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseInput, NoiseModel
from noisecraft.noise_models.entity_spans import ENTITY_TYPES, Entity, EntityTagger, TaggedSentences
from noisecraft.noise_models.model_base import ModelSettings
from noisecraft.noise_models.natural import function_words

LANG_HELP = "language of the text: its words (Thai, Chinese, Japanese segmented) and word list (set by the build)"
QUESTION_MARKS = frozenset("?\u061f\uff1f\u2e2e\u037e")  # ? ؟ ？ ⸮ and the Greek question mark ;
GREEK_QUESTION_MARK = ";"  # Greek text writes its question mark as the semicolon character


def _wordlike(ch: str) -> bool:
    """A letter, digit or combining mark (what a deletion must not glue to a neighbour)."""
    return unicodedata.category(ch)[0] in "LNM"


def deletions(text: str, spans: Sequence[Span], protected: Sequence[Span], kind: str) -> list[Edit]:
    """Edits deleting each span (sorted, non-overlapping), each with one neighbouring whitespace run.

    A span takes the whitespace before it unless a word follows it directly (the ``"`` of ``in "Doctor``);
    otherwise, when nothing word-like precedes it (text start, an earlier deletion, a mark such as ``¿``),
    the whitespace after it. A mark attached to a word on its left (``,`` in ``Paris, France``) takes none.
    Whitespace is never taken from inside a protected span or from an earlier edit.
    """
    edits: list[Edit] = []
    floor = 0  # end of the last edit
    for start, end in spans:
        before, after = start, end
        while before > floor and text[before - 1].isspace():
            before -= 1
        while after < len(text) and text[after].isspace():
            after += 1
        word_follows = end < len(text) and _wordlike(text[end])
        nothing_before = start == floor or not _wordlike(text[start - 1])
        begin, finish = start, end
        if before < start and not word_follows and not overlaps(before, start, protected):
            begin = before
        elif after > end and nothing_before and not overlaps(end, after, protected):
            finish = after
        edits.append(Edit(begin, finish, text[begin:finish], "", kind))
        floor = finish
    return edits


class _InterfaceArtefact(NoiseModel):
    """Deletes the spans :meth:`targets` picks, outside protected spans."""

    citation: ClassVar[str] = NOISEQA_CITATION
    capabilities: ClassVar[Capabilities] = Capabilities(deterministic=True)
    edit_kind: ClassVar[str]

    def targets(self, text: str, rng: ExampleRng) -> list[Span]:
        """The sorted, non-overlapping spans of ``text`` to delete."""
        raise NotImplementedError

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        results = []
        for index, (text, rng) in enumerate(zip(texts, rngs)):
            keep = protected[index] if protected else ()
            spans = [(start, end) for start, end in self.targets(text, rng) if not overlaps(start, end, keep)]
            results.append(noised_from_edits(text, deletions(text, spans, keep, self.edit_kind)))
        return results


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


@dataclass(frozen=True)
class DropPunctuation(_InterfaceArtefact):
    """Delete every punctuation mark outside words."""

    lang: str = param("en", LANG_HELP)

    name: ClassVar[str] = "drop-punctuation"
    version: ClassVar[int] = 1
    edit_kind: ClassVar[str] = "drop-punctuation"

    def describe(self) -> str:
        return ("Speech-interface artefact (NoiseQA): every punctuation mark (Unicode category P) is deleted, except "
                "inside words (`doesn't`, `long-term`, `U.S.`, `3.5`), as an ASR transcript writes them; a mark "
                "standing between spaces takes one of them along. " + segmentation_note(self.lang)).strip()

    def targets(self, text: str, rng: ExampleRng) -> list[Span]:
        inside = bytearray(len(text))
        for start, end in word_spans(text, self.lang):
            inside[start:end] = b"\1" * (end - start)
        spans: list[Span] = []
        for i, ch in enumerate(text):
            if inside[i] or not _is_punctuation(ch):
                continue
            if spans and spans[-1][1] == i:
                spans[-1] = (spans[-1][0], i + 1)
            else:
                spans.append((i, i + 1))
        return spans


@dataclass(frozen=True)
class DropQuestionMark(_InterfaceArtefact):
    """Delete the final question mark (and a Spanish question's opening ``¿``)."""

    lang: str = param("en", "language of the text: Greek ends a question with ';', Spanish opens it with '¿' "
                            "(set by the build)")

    name: ClassVar[str] = "drop-question-mark"
    version: ClassVar[int] = 1
    edit_kind: ClassVar[str] = "drop-question-mark"

    def describe(self) -> str:
        return ("Speech-interface artefact (NoiseQA): the final question mark is deleted (`?`, `؟`, `？`, the Greek "
                "`;`), with the `¿` that opens the same question; texts without one are left as they are.")

    def targets(self, text: str, rng: ExampleRng) -> list[Span]:
        end = len(text.rstrip())
        if not end or not (text[end - 1] in QUESTION_MARKS or (self.lang == "el" and text[end - 1] == GREEK_QUESTION_MARK)):
            return []
        opening = text.rfind("\u00bf", 0, end - 1)
        return ([(opening, opening + 1)] if opening >= 0 else []) + [(end - 1, end)]


@dataclass(frozen=True)
class _WordDropping(_InterfaceArtefact):
    """Delete, with probability ``rate``, each word of one class (function or content)."""

    rate: float = param(1.0, "probability that each word of the class is deleted (NoiseQA: 1, all of them)",
                        min=0.0, max=1.0)
    lang: str = param("en", LANG_HELP)

    capabilities: ClassVar[Capabilities] = Capabilities()
    drops_function_words: ClassVar[bool]

    def load(self) -> frozenset[str]:
        return function_words(self.lang)

    def is_function_word(self, word: str) -> bool:
        """In the language's list, or a contraction of a listed word (``doesn't``, ``it's``)."""
        listed: frozenset[str] = self.runtime()
        word = word.casefold().replace("\u2019", "'")
        if word in listed:
            return True
        if word.endswith("n't") and word[:-3] in listed:
            return True
        head, _, clitic = word.partition("'")
        return bool(clitic) and head in listed and clitic in ("s", "ll", "re", "ve", "d", "m")

    def targets(self, text: str, rng: ExampleRng) -> list[Span]:
        return [(start, end) for start, end in word_spans(text, self.lang)
                if self.is_function_word(text[start:end]) == self.drops_function_words and rng.random() < self.rate]

    def describe(self) -> str:
        which = "function word (closed class" if self.drops_function_words else "content word (any word not closed class"
        share = "every" if self.rate == 1 else f"with probability {self.rate}, each"
        return (f"Speech-interface artefact (NoiseQA): {share} {which}, from the shipped `{self.lang}` word list) is "
                "deleted, with one neighbouring space. " + segmentation_note(self.lang)).strip()


@dataclass(frozen=True)
class DropFunctionWords(_WordDropping):
    """Delete function words."""

    name: ClassVar[str] = "drop-function-words"
    version: ClassVar[int] = 1
    edit_kind: ClassVar[str] = "drop-function-word"
    drops_function_words: ClassVar[bool] = True


@dataclass(frozen=True)
class DropContentWords(_WordDropping):
    """Delete content words."""

    name: ClassVar[str] = "drop-content-words"
    version: ClassVar[int] = 1
    edit_kind: ClassVar[str] = "drop-content-word"
    drops_function_words: ClassVar[bool] = False


@dataclass(frozen=True)
class LowercaseStart(NoiseModel):
    """Lower-case the first letter of the text, as a speech recogniser writes a sentence."""

    rate: float = param(1.0, "probability that a text's first letter is lower-cased (NoiseQA's ASR questions: 97 % "
                             "start lower-case)", min=0.0, max=1.0)
    lang: str = param("en", "language of the text (scripts without case are left as they are; set by the build)")

    name: ClassVar[str] = "lowercase-start"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = NOISEQA_CITATION
    capabilities: ClassVar[Capabilities] = Capabilities()

    def describe(self) -> str:
        share = "The" if self.rate == 1 else f"With probability {self.rate}, the"
        return (f"Speech-interface artefact (NoiseQA): {share} first letter of the text is lower-cased, as a recogniser "
                "writes a sentence (97 % of NoiseQA's ASR questions start lower-case); `I` and words with another "
                "capital (`NFL`, `iPhone`) keep their case, and so does a name (no tagger is used).")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        results = []
        for index, (text, rng) in enumerate(zip(texts, rngs)):
            keep = protected[index] if protected else ()
            draw = rng.random() < self.rate if self.rate < 1 else True
            edit = _lower_first_letter(text) if draw else None
            results.append(noised_from_edits(text, [edit] if edit and not overlaps(edit.start, edit.end, keep) else []))
        return results


def _lower_first_letter(text: str) -> Edit | None:
    """The edit lower-casing the text's first letter, unless its word keeps its case (``I``, ``NFL``, ``iPhone``)."""
    start = next((i for i, ch in enumerate(text) if ch.isalpha()), None)
    if start is None or not text[start].isupper():
        return None
    end = start
    while end < len(text) and (text[end].isalnum() or text[end] in "'’-"):
        end += 1
    word = text[start:end]
    if word == "I" or word.startswith("I'") or any(ch.isupper() for ch in word[1:]):
        return None
    return Edit(start, start + 1, text[start], text[start].lower(), "lowercase-start")


NOT_TAGGED = "replace-entity: the text is not a sentence of the entity tags file"


@dataclass(frozen=True)
class ReplaceEntity(ModelSettings):
    """Replace one named entity by a placeholder."""

    tags: str | None = param(None, "a WikiANN (lang:token<TAB>tag) or CoNLL file holding the texts' entity tags (a "
                                   "text is looked up as its tokens joined by spaces)", file="file")
    tagger: str | None = param(None, "or: a transformers token-classification model (Hub id or saved folder) that "
                                     "tags PER/ORG/LOC", file="model")
    revision: str | None = param(None, "tagger: Hub revision (branch, tag or commit); the resolved commit is recorded")
    types: str = param("LOC,ORG,PER", "entity types that may be replaced, comma-separated")
    placeholder: str = param("[{type}]", "what replaces the entity; {type} becomes PER, ORG or LOC")
    lang: str = param("en", "language of the text (set by the build)")

    name: ClassVar[str] = "replace-entity"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = NOISEQA_CITATION
    capabilities: ClassVar[Capabilities] = Capabilities(model_based=True)
    edit_kind: ClassVar[str] = "replace-entity"

    def check(self) -> None:
        if (self.tags is None) == (self.tagger is None):
            raise ConfigError(f"{self.noise_id} needs entity spans from exactly one place: tags=FILE (the source's "
                              "WikiANN/CoNLL tags) or tagger=MODEL (a token-classification model)")
        if self.revision is not None and self.tagger is None:
            raise ConfigError(f"{self.noise_id}: revision is the tagger's; tags files have none")
        unknown = sorted(set(self.allowed_types()) - set(ENTITY_TYPES))
        if unknown or not self.allowed_types():
            raise ConfigError(f"{self.noise_id}: types must be among {', '.join(ENTITY_TYPES)}, got {self.types!r}")

    def allowed_types(self) -> tuple[str, ...]:
        return tuple(part.strip().upper() for part in self.types.split(",") if part.strip())

    def load(self) -> TaggedSentences | EntityTagger:
        if self.tags is not None:
            return TaggedSentences(self.tags)
        from noisecraft.extras import require

        require("transformers", "speech")
        return EntityTagger.resolve(str(self.tagger), self.revision, self.device, self.dtype)

    def describe(self) -> str:
        source = (f"the entity tags of `{self.tags}`" if self.tags else
                  f"the named-entity tagger `{self.runtime().ref.fingerprint()['model']}`")
        return (f"Speech-interface artefact (NoiseQA): one named entity of type {', '.join(self.allowed_types())}, drawn "
                f"at random among those in the text, is replaced by `{self.placeholder}` ({{type}} is the entity's "
                f"type). Entities come from {source}. Texts without such an entity are left as they are"
                + ("; texts the tags file does not hold are dropped with that reason." if self.tags else "."))

    def provenance(self) -> dict[str, Any]:
        runtime = self.runtime()
        return {"entities": runtime.provenance()} if isinstance(runtime, EntityTagger) else {}

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        runtime = self.runtime()
        if isinstance(runtime, EntityTagger):
            runtime.entities(list(dict.fromkeys(batch.texts)), progress)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        found: list[list[Entity] | None] = self.runtime().entities(texts)
        allowed = self.allowed_types()
        results = []
        for index, (text, rng, entities) in enumerate(zip(texts, rngs, found)):
            if entities is None:
                results.append(Noised(text, (), NOT_TAGGED))
                continue
            keep = protected[index] if protected else ()
            candidates = [(s, e, kind) for s, e, kind in entities if kind in allowed and not overlaps(s, e, keep)]
            if not candidates:
                results.append(Noised(text, ()))
                continue
            start, end, kind = rng.choice(candidates)
            replacement = self.placeholder.replace("{type}", kind)
            results.append(noised_from_edits(text, [Edit(start, end, text[start:end], replacement, self.edit_kind)]))
        return results
