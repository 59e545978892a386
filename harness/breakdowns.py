"""Scores by noise level and by language: does the score fall as the noise grows?

Examples are grouped by how many edits the noise made (the length of ``noise_edits``) and by their
character error rate against the original (Levenshtein over the perturbed fields). Each group gets its
clean and noisy score computed as the whole config's is (means, or micro F1 from counts). Languages pool
the examples of every config in that language, with the same paired statistics as a single config.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from noisecraft.harness.scoring import score_value

#: ``(low, high, label)``: an example with ``low <= value <= high`` (edits) or ``low < value <= high`` (CER).
EDIT_BUCKETS = ((0, 0, "0"), (1, 1, "1"), (2, 2, "2"), (3, 4, "3-4"), (5, 8, "5-8"), (9, math.inf, "9+"))
CER_BUCKETS = ((-1.0, 0.0, "0%"), (0.0, 0.05, "0-5%"), (0.05, 0.10, "5-10%"), (0.10, 0.20, "10-20%"),
               (0.20, 0.40, "20-40%"), (0.40, math.inf, ">40%"))


def _members(values: np.ndarray, low: float, high: float, closed_low: bool) -> np.ndarray:
    above = values >= low if closed_low else values > low
    return above & (values <= high)


def by_buckets(values: Sequence[float], buckets: Sequence[tuple[float, float, str]], clean_parts: np.ndarray,
               noisy_parts: np.ndarray, closed_low: bool) -> list[dict[str, Any]]:
    """Clean and noisy score per non-empty bucket of ``values`` (in bucket order)."""
    array = np.asarray(values, dtype=float)
    rows = []
    for low, high, label in buckets:
        members = _members(array, low, high, closed_low)
        if members.any():
            rows.append({"bucket": label, "n": int(members.sum()), "clean": score_value(clean_parts[members]),
                         "noisy": score_value(noisy_parts[members])})
    return rows


def noise_breakdowns(edit_counts: Sequence[int], cer: Sequence[float], clean_parts: np.ndarray,
                     noisy_parts: np.ndarray) -> dict[str, list[dict[str, Any]]]:
    """Scores by edit count and by CER bucket."""
    return {"edits": by_buckets(edit_counts, EDIT_BUCKETS, clean_parts, noisy_parts, closed_low=True),
            "cer": by_buckets(cer, CER_BUCKETS, clean_parts, noisy_parts, closed_low=False)}
