"""Swap typos: two adjacent interior letters of a word trade places.

Follows the ``swap`` noise of Belinkov & Bisk (2018): first and last characters stay, and only
a pair of *different* letters is swapped, so the word always changes. Pairs involving a
combining mark are never swapped (a matra would move to another consonant).

``swap@2`` (:class:`SwapTyposV2`) changes what a word is, so it is a new version beside ``swap@1``:
contractions and hyphenated compounds stay one word (``doesn't``, ``long-term``: the first and last
letters of the whole word are kept) and Thai, Chinese and Japanese, written without spaces, are
segmented into words (:mod:`noisecraft.core.text_units`) instead of treating a whole clause as one word;
``lang`` picks the segmenter. It also swaps *letters with their marks*: in ``swap@1`` a swap of two
bare letters could move the mark that followed the second one (decomposed ``ganó`` -> ``gaoń``, Hindi
``सरकार`` -> ``सकरार``); ``swap@2`` swaps a letter together with the combining marks that follow it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import ClassVar

from noisecraft.core.citations import BELINKOV_BISK_CITATION
from noisecraft.core.edits import Noised
from noisecraft.core.params import param
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import segmentation_note
from noisecraft.noise_models.base import NoiseInput, NoiseModel
from noisecraft.noise_models.keyboard import RATE_HELP
from noisecraft.noise_models.per_word import noise_each_word


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "L"


@dataclass(frozen=True)
class SwapTypos(NoiseModel):
    """Per-word adjacent swap of two different interior letters, with probability ``rate``."""

    rate: float = param(0.25, RATE_HELP, min=0.0, max=1.0)

    name: ClassVar[str] = "swap"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = BELINKOV_BISK_CITATION

    def describe(self) -> str:
        return (f"Swap typos: each word, with probability {self.rate}, has two adjacent interior letters "
                "swapped (first and last characters kept; only different letters, so the word always "
                "changes; words with no such pair are left as they are).")

    def _swap(self, word: str, rng: ExampleRng) -> tuple[int, int, str] | None:
        pairs = [i for i in range(1, len(word) - 2)
                 if word[i] != word[i + 1] and _is_letter(word[i]) and _is_letter(word[i + 1])]
        if not pairs:
            return None
        i = pairs[rng.below(len(pairs))]
        return i, i + 2, word[i + 1] + word[i]

    def _word_lang(self) -> str | None:
        """The language whose words the loop visits (``None``: swap@1's regex words)."""
        return None

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return noise_each_word(batch.texts, batch.rngs, batch.protected, self.rate, self._swap, "swap",
                               lang=self._word_lang())


@dataclass(frozen=True)
class SwapTyposV2(SwapTypos):
    """``swap@1`` on real words: contractions and compounds whole, Thai/Chinese/Japanese segmented."""

    lang: str = param("en", "language of the text: picks the word segmenter for th, zh and ja (set by the build)")

    version: ClassVar[int] = 2

    def describe(self) -> str:
        note = segmentation_note(self.lang)
        return (f"Swap typos (swap@2): each word, with probability {self.rate}, has two adjacent interior letters "
                "swapped (first and last characters kept; only different letters, so the word always changes; words "
                "with no such pair are left as they are). A letter moves with its combining marks (accents, vowel "
                "signs). Contractions and hyphenated compounds (`doesn't`, `long-term`) are one word."
                + (f" {note}" if note else ""))

    def _swap(self, word: str, rng: ExampleRng) -> tuple[int, int, str] | None:
        """Swap two adjacent interior letters, each with the combining marks that follow it."""
        units = _letter_units(word)
        pairs = [k for k in range(1, len(units) - 2)
                 if _is_letter(word[units[k][0]]) and _is_letter(word[units[k + 1][0]])
                 and word[units[k][0]:units[k][1]] != word[units[k + 1][0]:units[k + 1][1]]]
        if not pairs:
            return None
        k = pairs[rng.below(len(pairs))]
        (a, b), (_, c) = units[k], units[k + 1]
        return a, c, word[b:c] + word[a:b]

    def _word_lang(self) -> str | None:
        return self.lang


def _letter_units(word: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each character of ``word`` with the combining marks that follow it."""
    units: list[tuple[int, int]] = []
    for i, ch in enumerate(word):
        if units and unicodedata.category(ch)[0] == "M":
            units[-1] = (units[-1][0], i + 1)
        else:
            units.append((i, i + 1))
    return units
