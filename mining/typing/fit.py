"""Count the classified edits of aligned pairs into a typing model (the counts of :mod:`~noisecraft.noise_models.typing_format`).

A word is *hit* when a word edit belongs to it. The per-text dispersion of hits is a negative-binomial moment fit:
each word of a text is hit with probability ``m h(len)``, ``h`` the hit rate of its length and ``m`` a per-text
factor with mean 1 and variance ``1/k`` (Gamma). Under that process the hits ``X`` of a text with expected hits
``E = sum h`` satisfy ``E[(X - E)^2 - E + sum h^2] = (E^2 - sum h^2) / k``; summing both sides over the texts
gives ``1/k`` (0 when the texts vary no more than independent words would). The sampler draws ``m`` from
equal-probability quantiles of that Gamma, computed here once by a seeded simulation.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from noisecraft.mining.typing.classify import AlignedText, align_texts
from noisecraft.noise_models.typing_format import (
    DISTANCE_BINS,
    EDITS_PER_WORD,
    LENGTH_BUCKETS,
    POSITION_BINS,
    POSITIONS,
    TEXT_KINDS,
    WORD_KINDS,
    length_bucket,
    word_place,
)

#: Equal-probability quantiles of the per-text rate factor stored in the model.
MULTIPLIER_QUANTILES = 20
_SIMULATED_FACTORS = 100_000


@dataclass
class Counts:
    """Everything the model file counts, filled pair by pair."""

    edit_mix: Counter[str] = field(default_factory=Counter)
    hit_by_length: dict[str, list[int]] = field(default_factory=lambda: {b: [0, 0] for b in LENGTH_BUCKETS})
    hit_by_position: dict[str, list[int]] = field(default_factory=lambda: {p: [0, 0] for p in POSITIONS})
    edits_per_hit_word: Counter[str] = field(default_factory=Counter)
    position_in_word: dict[str, list[int]] = field(default_factory=dict)
    key_distance: Counter[str] = field(default_factory=Counter)
    text_events: dict[str, list[int]] = field(default_factory=lambda: {k: [0, 0] for k in TEXT_KINDS})
    punctuation_added_chars: Counter[str] = field(default_factory=Counter)
    #: Per text: (word lengths, words hit), for the dispersion fit.
    texts: list[tuple[list[int], int]] = field(default_factory=list)
    texts_changed: int = 0
    list_pairs: int = 0

    def add_edits(self, aligned: AlignedText) -> dict[int, int]:
        """Count the edits' kinds, positions and distances; returns the edits per word hit."""
        per_word: Counter[int] = Counter()
        for edit in aligned.edits:
            self.edit_mix[edit.kind] += 1
            if edit.word >= 0:
                per_word[edit.word] += 1
            if edit.position >= 0:
                self.position_in_word.setdefault(edit.kind, [0] * POSITION_BINS)[edit.position] += 1
            if edit.distance is not None:
                self.key_distance[edit.distance] += 1
            if edit.kind == "punctuation-added":
                self.punctuation_added_chars[edit.char] += 1
        for n in per_word.values():
            self.edits_per_hit_word[EDITS_PER_WORD[min(n, 3) - 1]] += 1
        return per_word

    def add_text(self, aligned: AlignedText) -> None:
        """A parallel pair: its edits, its words' hits by length and place, and its text events."""
        per_word = self.add_edits(aligned)
        lengths = [e - s for s, e in aligned.words]
        for w, length in enumerate(lengths):
            hit = int(w in per_word)
            for table, key in ((self.hit_by_length, length_bucket(length)),
                               (self.hit_by_position, word_place(w, len(lengths)))):
                table[key][0] += 1
                table[key][1] += hit
        kinds = Counter(edit.kind for edit in aligned.edits)
        events = self.text_events
        events["final-question-dropped"][0] += int(aligned.final_question)
        events["final-question-dropped"][1] += kinds["final-question-dropped"]
        events["punctuation-dropped"][0] += aligned.punctuation
        events["punctuation-dropped"][1] += kinds["punctuation-dropped"]
        events["punctuation-added"][0] += len(lengths)
        events["punctuation-added"][1] += kinds["punctuation-added"]
        events["whitespace-trim"][0] += int(aligned.surplus_space)
        events["whitespace-trim"][1] += int(aligned.surplus_space and kinds["whitespace-trim"] > 0)
        self.texts.append((lengths, len(per_word)))
        self.texts_changed += int(bool(aligned.edits))


def _hit_rates(hit_by_length: dict[str, list[int]]) -> dict[str, float]:
    return {bucket: hits / words for bucket, (words, hits) in hit_by_length.items() if words}


def inverse_k(texts: Iterable[tuple[list[int], int]], hit_by_length: dict[str, list[int]]) -> float:
    """The moment estimate of ``1/k`` (see the module docstring); 0 when there is no extra dispersion."""
    rates = _hit_rates(hit_by_length)
    numerator = denominator = 0.0
    for lengths, hits in texts:
        h = [rates[length_bucket(n)] for n in lengths]
        expected, squares = sum(h), sum(p * p for p in h)
        numerator += (hits - expected) ** 2 - expected + squares
        denominator += expected * expected - squares
    return max(0.0, numerator / denominator) if denominator > 0 else 0.0


def rate_multipliers(inv_k: float) -> list[float]:
    """Means of :data:`MULTIPLIER_QUANTILES` equal-probability slices of Gamma(k, 1/k), normalised to mean 1."""
    if inv_k <= 0:
        return [1.0]
    draw = random.Random(0)
    k = 1 / inv_k
    values = sorted(draw.gammavariate(k, 1 / k) for _ in range(_SIMULATED_FACTORS))
    size = _SIMULATED_FACTORS // MULTIPLIER_QUANTILES
    means = [sum(values[i:i + size]) / size for i in range(0, _SIMULATED_FACTORS, size)]
    total = sum(means) / len(means)
    return [round(m / total, 4) for m in means]


def count_pairs(texts: Iterable[tuple[str, str]], words: Iterable[tuple[str, str]],
                positions: dict[str, tuple[int, float]], lang: str = "en") -> Counts:
    """Counts of aligned parallel ``texts`` and of misspelt ``words`` (per-word statistics only) in ``lang``."""
    counts = Counts()
    for clean, noisy in texts:
        counts.add_text(align_texts(clean, noisy, positions, lang))
    for correct, wrong in words:
        aligned = align_texts(correct, wrong, positions, lang)
        counts.add_edits(aligned)
        counts.list_pairs += 1
    return counts


def model_counts(counts: Counts) -> dict[str, Any]:
    """The counting part of the model file (see :mod:`noisecraft.noise_models.typing_format`)."""
    has_texts = bool(counts.texts)
    inv_k = inverse_k(counts.texts, counts.hit_by_length) if has_texts else 0.0
    return {
        "edit_mix": {kind: counts.edit_mix[kind] for kind in WORD_KINDS + TEXT_KINDS},
        "hit_by_length": counts.hit_by_length if has_texts else None,
        "hit_by_position": counts.hit_by_position if has_texts else None,
        "edits_per_hit_word": {key: counts.edits_per_hit_word[key] for key in EDITS_PER_WORD},
        "position_in_word": {kind: counts.position_in_word[kind] for kind in WORD_KINDS
                             if kind in counts.position_in_word},
        "key_distance": {key: counts.key_distance[key] for key in DISTANCE_BINS},
        "text_events": counts.text_events if has_texts else None,
        "punctuation_added_chars": dict(sorted(counts.punctuation_added_chars.items())),
        "dispersion": {"model": "negative binomial: per-text factor Gamma(k, 1/k) on every word's hit rate",
                       "inverse_k": round(inv_k, 6), "texts": len(counts.texts),
                       "rate_multipliers": rate_multipliers(inv_k)},
    }
