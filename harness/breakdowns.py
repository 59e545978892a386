"""Scores by noise level and by language: does the score fall as the noise grows?

Examples are grouped by how many edits the noise made (the length of ``noise_edits``) and by their
character error rate against the original (the card's CER, :class:`noisecraft.core.stats.FieldScores`, over the
perturbed fields). A noise that rewrites the whole field (shuffle, sort, reverse, copy-sort) logs one edit
per changed row whatever it did, so its changed rows form one category, ``whole field``, not "1 edit".
Each group gets its clean and noisy score computed as the whole config's is (means, or micro F1 from
counts), and the bootstrap interval of its noisy score (the error bars of the curves).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from noisecraft.harness.paired_stats import bootstrap_draws, percentile_interval
from noisecraft.harness.scoring import StatsSettings, score_value, statistic_of

#: ``(low, high, label)``: an example with ``low <= value <= high`` (edits) or ``low < value <= high`` (CER).
EDIT_BUCKETS = ((0, 0, "0"), (1, 1, "1"), (2, 2, "2"), (3, 4, "3-4"), (5, 8, "5-8"), (9, math.inf, "9+"))
#: The edit category of the changed rows of a noise that rewrites the whole field.
WHOLE_FIELD = (1, math.inf, "whole field")
CER_BUCKETS = ((-1.0, 0.0, "0%"), (0.0, 0.05, "0-5%"), (0.05, 0.10, "5-10%"), (0.10, 0.20, "10-20%"),
               (0.20, 0.40, "20-40%"), (0.40, math.inf, ">40%"))


def _members(values: np.ndarray, low: float, high: float, closed_low: bool) -> np.ndarray:
    above = values >= low if closed_low else values > low
    return above & (values <= high)


def by_buckets(values: Sequence[float], buckets: Sequence[tuple[float, float, str]], clean_parts: np.ndarray,
               noisy_parts: np.ndarray, closed_low: bool, settings: StatsSettings | None = None) -> list[dict[str, Any]]:
    """Clean and noisy score per non-empty bucket of ``values`` (in bucket order), with the bootstrap interval of
    the noisy score (``noisy_ci``) when ``settings`` are given."""
    array = np.asarray(values, dtype=float)
    rows = []
    for low, high, label in buckets:
        members = _members(array, low, high, closed_low)
        if members.any():
            row = {"bucket": label, "n": int(members.sum()), "clean": score_value(clean_parts[members]),
                   "noisy": score_value(noisy_parts[members])}
            if settings is not None and settings.resamples:
                noisy = noisy_parts[members]
                _, draws = bootstrap_draws(statistic_of(noisy), statistic_of(noisy), len(noisy), settings.resamples,
                                           settings.seed)
                row["noisy_ci"] = list(percentile_interval(draws, settings.confidence))
            rows.append(row)
    return rows


def noise_breakdowns(edit_counts: Sequence[int], cer: Sequence[float], clean_parts: np.ndarray,
                     noisy_parts: np.ndarray, whole_field: bool = False,
                     settings: StatsSettings | None = None) -> dict[str, list[dict[str, Any]]]:
    """Scores by edit count (or, for a whole-field noise, unchanged vs ``whole field``) and by CER bucket."""
    edit_buckets = (EDIT_BUCKETS[0], WHOLE_FIELD) if whole_field else EDIT_BUCKETS
    return {"edits": by_buckets(edit_counts, edit_buckets, clean_parts, noisy_parts, True, settings),
            "cer": by_buckets(cer, CER_BUCKETS, clean_parts, noisy_parts, False, settings)}
