"""Paired statistics of clean vs noisy scores on the same examples.

* :func:`paired_bootstrap`: percentile bootstrap confidence interval of a clean - noisy difference,
  resampling *examples* (the same resample for both sides, so the pairing is kept). Statistics are
  functions of an index matrix, so a corpus-level score (entity F1 from summed counts) is bootstrapped
  as correctly as a mean.
* :func:`mcnemar_exact`: McNemar's exact test of paired binary outcomes (correct clean vs correct noisy):
  under the null the discordant pairs split as Binomial(b + c, 1/2); the two-sided p-value is
  ``min(1, 2 * P(X <= min(b, c)))``. Exact at every sample size, computed in log space with the stdlib.

Both are seeded (a fixed :class:`numpy.random.Generator`), so a report is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

#: A statistic of the examples chosen by each row of an index matrix (one value per row).
Statistic = Callable[[np.ndarray], np.ndarray]


def mean_of(values: np.ndarray) -> Statistic:
    """The mean of ``values`` over each resample."""
    return lambda index: values[index].mean(axis=-1)


def f1_of(true_positives: np.ndarray, predicted: np.ndarray, gold: np.ndarray) -> Statistic:
    """Micro F1 from per-example counts, over each resample (``2 TP / (predicted + gold)``, 0 when empty)."""

    def statistic(index: np.ndarray) -> np.ndarray:
        tp, total = true_positives[index].sum(axis=-1), (predicted[index] + gold[index]).sum(axis=-1)
        return np.divide(2.0 * tp, total, out=np.zeros(tp.shape, dtype=float), where=total > 0)

    return statistic


def paired_bootstrap(clean: Statistic, noisy: Statistic, n: int, resamples: int = 1000, confidence: float = 0.95,
                     seed: int = 0, block: int = 200) -> tuple[float, float]:
    """Percentile interval of ``clean - noisy`` over ``resamples`` resamples of the ``n`` examples
    (``(nan, nan)`` when there are no examples or no resamples)."""
    if n == 0 or resamples == 0:
        return float("nan"), float("nan")
    rng = np.random.Generator(np.random.PCG64(seed))
    differences = []
    for start in range(0, resamples, block):  # bounded memory: block x n indices at a time
        index = rng.integers(0, n, size=(min(block, resamples - start), n))
        differences.append(clean(index) - noisy(index))
    values = np.concatenate(differences)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def _log_binomial_pmf(k: int, n: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)


def mcnemar_exact(clean_correct: np.ndarray, noisy_correct: np.ndarray) -> dict[str, Any]:
    """McNemar's exact test: ``b`` = right clean and wrong noisy, ``c`` = the reverse, and the p-value."""
    clean_correct, noisy_correct = clean_correct.astype(bool), noisy_correct.astype(bool)
    b = int((clean_correct & ~noisy_correct).sum())
    c = int((~clean_correct & noisy_correct).sum())
    discordant = b + c
    if discordant == 0:
        return {"b": b, "c": c, "p_value": 1.0}
    logs = [_log_binomial_pmf(k, discordant) for k in range(min(b, c) + 1)]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(v - top) for v in logs)
    return {"b": b, "c": c, "p_value": min(1.0, 2.0 * tail)}


def compare(clean: Statistic, noisy: Statistic, n: int, *, resamples: int, confidence: float, seed: int, alpha: float,
            clean_correct: np.ndarray | None = None, noisy_correct: np.ndarray | None = None) -> dict[str, Any]:
    """The difference ``clean - noisy`` of a score with its bootstrap interval, McNemar's test when the
    score is a per-example right/wrong, and whether the difference is significant.

    Significance: McNemar's p < ``alpha`` for right/wrong scores (accuracy, EM), else an interval that
    excludes 0.
    """
    everything = np.arange(n)[None, :]
    clean_value, noisy_value = float(clean(everything)[0]), float(noisy(everything)[0])
    low, high = paired_bootstrap(clean, noisy, n, resamples, confidence, seed)
    result: dict[str, Any] = {"clean": clean_value, "noisy": noisy_value, "difference": clean_value - noisy_value,
                              "ci": [low, high]}
    if clean_correct is not None and noisy_correct is not None:
        result["mcnemar"] = mcnemar_exact(clean_correct, noisy_correct)
        result["significant"] = bool(result["mcnemar"]["p_value"] < alpha)
    else:
        result["significant"] = bool(not math.isnan(low) and (low > 0 or high < 0))
    return result
