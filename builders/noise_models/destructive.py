"""Word-order destruction, the lexical family of "word salad" (Gupta et al., 2021).

The text is split into word and punctuation tokens (:func:`noisecraft.core.text_units.tokenize`) and
rebuilt, space-separated, in a new order. These models rewrite a whole field, so their edit log
is a single replacement; they refuse fields that carry span labels.

* ``sort``: tokens in case-insensitive alphabetical order.
* ``reverse``: tokens in reverse order.
* ``shuffle``: a random order in which no bigram of the original survives; when no such order
  is found in ``max_tries`` draws (one token, or too many repeats) the example is reported as a
  failure and dropped with that reason.
* ``copysort`` (pair tasks): the second text is replaced by the sorted first text.

Version 2 of each (``sort@2`` ...) changes what a token is, so it is a new version beside version 1:
contractions, hyphenated compounds, abbreviations and numbers stay whole (``doesn't``, ``long-term``,
``U.S.``, ``3.5``: :func:`noisecraft.core.text_units.token_spans`), and Thai, Chinese and Japanese are
segmented into words by a real segmenter and rejoined without spaces, as they are written (a space
only between two Latin or numeric tokens). ``lang`` picks the segmenter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from noisecraft.core.citations import WORD_SALAD_CITATION
from noisecraft.core.edits import Noised, whole_field
from noisecraft.core.params import param
from noisecraft.core.text_units import join_tokens, segmentation_note, tokenize, word_tokens
from noisecraft.noise_models.base import Capabilities, NoiseInput, NoiseModel


def sort_tokens(text: str) -> str:
    """Tokens in case-insensitive order (ties broken by the exact string, so it is total)."""
    return " ".join(sorted(tokenize(text), key=lambda t: (t.casefold(), t)))


class _WholeFieldNoise(NoiseModel):
    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, edit_log="whole-field", deterministic=True)
    citation: ClassVar[str] = WORD_SALAD_CITATION


@dataclass(frozen=True)
class SortWords(_WholeFieldNoise):
    """Sort the tokens of the field."""

    name: ClassVar[str] = "sort"
    version: ClassVar[int] = 1

    def describe(self) -> str:
        return "Word salad (sort): the field's word and punctuation tokens in case-insensitive alphabetical order."

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return [whole_field(text, sort_tokens(text), "sort") for text in batch.texts]


@dataclass(frozen=True)
class ReverseWords(_WholeFieldNoise):
    """Reverse the tokens of the field."""

    name: ClassVar[str] = "reverse"
    version: ClassVar[int] = 1

    def describe(self) -> str:
        return "Word salad (reverse): the field's word and punctuation tokens in reverse order."

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return [whole_field(text, " ".join(tokenize(text)[::-1]), "reverse") for text in batch.texts]


def _keeps_no_bigram(order: list[int]) -> bool:
    """True when no two originally adjacent positions are adjacent, in order, after shuffling."""
    return all(b != a + 1 for a, b in zip(order, order[1:]))


@dataclass(frozen=True)
class ShuffleWords(_WholeFieldNoise):
    """Shuffle tokens until no original bigram survives."""

    max_tries: int = param(100, "random orders tried before the example is dropped", min=1)

    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, edit_log="whole-field")

    name: ClassVar[str] = "shuffle"
    version: ClassVar[int] = 1

    def describe(self) -> str:
        return ("Word salad (shuffle): the field's tokens in a random order in which no bigram of the "
                f"original survives (up to {self.max_tries} draws; examples where none is found are "
                "dropped with that reason).")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs = batch.texts, batch.rngs
        results: list[Noised] = []
        for text, rng in zip(texts, rngs):
            tokens = self._tokens(text)
            bigrams = set(zip(tokens, tokens[1:]))
            shuffled = None
            for _ in range(self.max_tries if len(tokens) > 1 else 0):
                order = list(range(len(tokens)))
                rng.shuffle(order)
                if _keeps_no_bigram(order):
                    candidate = [tokens[i] for i in order]
                    if not bigrams & set(zip(candidate, candidate[1:])):
                        shuffled = candidate
                        break
            if shuffled is None:
                reason = f"shuffle: no order without an original bigram in {self.max_tries} tries"
                results.append(Noised(text, (), reason))
            else:
                results.append(whole_field(text, self._join(shuffled), "shuffle"))
        return results

    def _tokens(self, text: str) -> list[str]:
        """The tokens to shuffle (version 1: :func:`tokenize`)."""
        return tokenize(text)

    def _join(self, tokens: list[str]) -> str:
        """The shuffled tokens as text (version 1: space-separated)."""
        return " ".join(tokens)


@dataclass(frozen=True)
class CopySort(_WholeFieldNoise):
    """Pair tasks: the second text becomes the sorted first text."""

    name: ClassVar[str] = "copysort"
    version: ClassVar[int] = 1
    capabilities: ClassVar[Capabilities] = Capabilities(input="pair", protects_spans=False, edit_log="whole-field",
                                                        deterministic=True)

    def describe(self) -> str:
        return ("Word salad (copy-sort): for a text pair, the second text is replaced by the tokens of the "
                "first text in case-insensitive alphabetical order.")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return [whole_field(second, sort_tokens(first), "copysort") for first, second in batch.texts]


# --- version 2: real words in every script ---------------------------------------------------------------------------

LANG_HELP = "language of the text: picks the word segmenter for th, zh and ja (set by the build)"


def _note(lang: str) -> str:
    """The card's sentence on tokens: compounds kept whole, and the segmenter for th/zh/ja."""
    note = segmentation_note(lang)
    return (" Contractions, hyphenated compounds, abbreviations and numbers (`doesn't`, `long-term`, `U.S.`, `3.5`) "
            "are one token." + (f" {note} The tokens are rejoined without spaces, as the language is written." if note else ""))


def sort_tokens_v2(text: str, lang: str) -> str:
    """:func:`sort_tokens` on version-2 tokens of ``lang``."""
    return join_tokens(sorted(word_tokens(text, lang), key=lambda t: (t.casefold(), t)), lang)


@dataclass(frozen=True)
class SortWordsV2(SortWords):
    """Sort the tokens of the field (compounds whole, Thai/Chinese/Japanese segmented)."""

    lang: str = param("en", LANG_HELP)

    version: ClassVar[int] = 2

    def describe(self) -> str:
        return "Word salad (sort@2): the field's word and punctuation tokens in case-insensitive alphabetical order." + _note(
            self.lang)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return [whole_field(text, sort_tokens_v2(text, self.lang), "sort") for text in batch.texts]


@dataclass(frozen=True)
class ReverseWordsV2(ReverseWords):
    """Reverse the tokens of the field (compounds whole, Thai/Chinese/Japanese segmented)."""

    lang: str = param("en", LANG_HELP)

    version: ClassVar[int] = 2

    def describe(self) -> str:
        return "Word salad (reverse@2): the field's word and punctuation tokens in reverse order." + _note(self.lang)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return [whole_field(text, join_tokens(word_tokens(text, self.lang)[::-1], self.lang), "reverse") for text in batch.texts]


@dataclass(frozen=True)
class ShuffleWordsV2(ShuffleWords):
    """Shuffle tokens until no original bigram survives (compounds whole, Thai/Chinese/Japanese segmented)."""

    lang: str = param("en", LANG_HELP)

    version: ClassVar[int] = 2

    def describe(self) -> str:
        return ("Word salad (shuffle@2): the field's tokens in a random order in which no bigram of the original "
                f"survives (up to {self.max_tries} draws; examples where none is found are dropped with that reason)."
                + _note(self.lang))

    def _tokens(self, text: str) -> list[str]:
        return word_tokens(text, self.lang)

    def _join(self, tokens: list[str]) -> str:
        return join_tokens(tokens, self.lang)


@dataclass(frozen=True)
class CopySortV2(CopySort):
    """Pair tasks: the second text becomes the sorted first text (compounds whole, Thai/Chinese/Japanese segmented)."""

    lang: str = param("en", LANG_HELP)

    version: ClassVar[int] = 2

    def describe(self) -> str:
        return ("Word salad (copy-sort@2): for a text pair, the second text is replaced by the tokens of the first text "
                "in case-insensitive alphabetical order." + _note(self.lang))

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return [whole_field(second, sort_tokens_v2(first, self.lang), "copysort") for first, second in batch.texts]
