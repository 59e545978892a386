"""Swap typos: two adjacent interior letters of a word trade places.

Follows the ``swap`` noise of Belinkov & Bisk (2018): first and last characters stay, and only
a pair of *different* letters is swapped, so the word always changes. Pairs involving a
combining mark are never swapped (a matra would move to another consonant).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from builders.citations import BELINKOV_BISK_CITATION
from builders.edits import Edit, Noised, Span, noised_from_edits
from builders.noise.base import NoiseModel
from builders.noise.keyboard import check_rate
from builders.seeding import ExampleRng
from builders.text_units import word_pattern


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "L"


@dataclass(frozen=True)
class SwapTypos(NoiseModel):
    """Per-word adjacent swap of two different interior letters, with probability ``rate``."""

    rate: float = 0.25

    name: ClassVar[str] = "swap"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = BELINKOV_BISK_CITATION

    def __post_init__(self) -> None:
        check_rate(self.rate)

    def describe(self) -> str:
        return (f"Swap typos: each word, with probability {self.rate}, has two adjacent interior letters "
                "swapped (first and last characters kept; only different letters, so the word always "
                "changes; words with no such pair are left as they are).")

    def apply(
        self,
        texts: Sequence[str],
        rngs: Sequence[ExampleRng],
        protected: Sequence[Sequence[Span]] | None = None,
    ) -> list[Noised]:
        finditer = word_pattern().finditer
        rate = self.rate
        results: list[Noised] = []
        for index, text in enumerate(texts):
            spans = protected[index] if protected else ()
            random = rngs[index].random
            edits: list[Edit] = []
            for match in finditer(text):
                word = match.group()
                if len(word) < 4:
                    continue
                start = match.start()
                if spans and any(start < e and s < match.end() for s, e in spans):
                    continue
                if random() >= rate:
                    continue
                pairs = [
                    i for i in range(1, len(word) - 2)
                    if word[i] != word[i + 1] and _is_letter(word[i]) and _is_letter(word[i + 1])
                ]
                if not pairs:
                    continue
                i = pairs[int(random() * len(pairs))]
                pair = word[i : i + 2]
                edits.append(Edit(start + i, start + i + 2, pair, pair[::-1], "swap"))
            results.append(noised_from_edits(text, edits))
        return results
