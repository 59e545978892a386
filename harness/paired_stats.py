"""Paired statistics of clean vs noisy scores on the same examples.

* :func:`paired_bootstrap`: percentile bootstrap confidence interval of a clean - noisy difference,
  resampling *examples* (the same resample for both sides, so the pairing is kept). Statistics are
  functions of an index matrix, so a corpus-level score (entity F1 from summed counts) is bootstrapped
  as correctly as a mean.
* :func:`clustered_bootstrap`: the same for rows that are not independent, e.g. the configs of a folder
  that share one source row (four noises of the same 872 SST-2 sentences): whole clusters (the source
  example) are resampled, so a pooled test never counts one example as four.
* :func:`significant`: the one significance rule of a bootstrapped difference (per config and pooled): its
  interval excludes 0.
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


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The central ``confidence`` interval of ``values`` (percentiles ``(1 - c) / 2`` and ``(1 + c) / 2``)."""
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_draws(clean: Statistic, noisy: Statistic, n: int, resamples: int = 1000, seed: int = 0,
                    block: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Clean and noisy statistic over ``resamples`` resamples of the ``n`` examples, the same resample for both."""
    rng = np.random.Generator(np.random.PCG64(seed))
    cleans, noisies = [], []
    for start in range(0, resamples, block):  # bounded memory: block x n indices at a time
        index = rng.integers(0, n, size=(min(block, resamples - start), n))
        cleans.append(clean(index))
        noisies.append(noisy(index))
    return np.concatenate(cleans), np.concatenate(noisies)


def paired_bootstrap(clean: Statistic, noisy: Statistic, n: int, resamples: int = 1000, confidence: float = 0.95,
                     seed: int = 0, block: int = 200) -> tuple[float, float]:
    """Percentile interval of ``clean - noisy`` over ``resamples`` resamples of the ``n`` examples
    (``(nan, nan)`` when there are no examples or no resamples)."""
    if n == 0 or resamples == 0:
        return float("nan"), float("nan")
    cleans, noisies = bootstrap_draws(clean, noisy, n, resamples, seed, block)
    return percentile_interval(cleans - noisies, confidence)


def clustered_bootstrap(clean_parts: np.ndarray, noisy_parts: np.ndarray, clusters: np.ndarray, resamples: int = 1000,
                        confidence: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile interval of ``clean - noisy`` resampling whole clusters (rows with the same ``clusters`` value).

    ``*_parts`` are per-row scores (n) or per-row F1 counts (n x 3: true positives, predicted, gold); a
    resample draws clusters with replacement and pools all their rows: a mean is summed scores over summed
    rows, F1 ``2 TP / (predicted + gold)`` over summed counts.
    """
    if len(clusters) == 0 or resamples == 0:
        return float("nan"), float("nan")
    _, which = np.unique(clusters, return_inverse=True)
    k = int(which.max()) + 1

    def sums(parts: np.ndarray) -> np.ndarray:  # per cluster: summed parts (and the row count for means)
        columns = parts[:, None] if parts.ndim == 1 else parts
        totals = np.zeros((k, columns.shape[1] + 1))
        np.add.at(totals, which, np.column_stack([columns, np.ones(len(columns))]))
        return totals

    def score(totals: np.ndarray, counts: np.ndarray, f1: bool) -> np.ndarray:
        pooled = counts @ totals  # resamples x columns
        if f1:
            denominator = pooled[:, 1] + pooled[:, 2]
            return np.divide(2.0 * pooled[:, 0], denominator, out=np.zeros(len(pooled)), where=denominator > 0)
        return pooled[:, 0] / pooled[:, -1]

    clean_totals, noisy_totals = sums(clean_parts), sums(noisy_parts)
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = np.stack([np.bincount(rng.integers(0, k, size=k), minlength=k) for _ in range(resamples)]).astype(float)
    f1 = clean_parts.ndim == 2
    return percentile_interval(score(clean_totals, counts, f1) - score(noisy_totals, counts, f1), confidence)


def significant(low: float, high: float) -> bool:
    """Whether a difference is significant by its interval ``[low, high]``: the interval excludes 0 (an interval
    that touches 0 does not; ``nan``, no interval, never is). The one rule of every bootstrap-tested row."""
    return bool(low > 0 or high < 0)


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
    excludes 0. ``clean_ci``/``noisy_ci`` are the intervals of each side's score from the same resamples
    (for curves with bands).
    """
    everything = np.arange(n)[None, :]
    clean_value, noisy_value = float(clean(everything)[0]), float(noisy(everything)[0])
    nan = (float("nan"), float("nan"))
    cleans, noisies = bootstrap_draws(clean, noisy, n, resamples, seed) if n and resamples else (None, None)
    low, high = percentile_interval(cleans - noisies, confidence) if cleans is not None else nan
    result: dict[str, Any] = {"clean": clean_value, "noisy": noisy_value, "difference": clean_value - noisy_value,
                              "ci": [low, high], "n": n,
                              "clean_ci": list(percentile_interval(cleans, confidence) if cleans is not None else nan),
                              "noisy_ci": list(percentile_interval(noisies, confidence) if noisies is not None else nan)}
    if clean_correct is not None and noisy_correct is not None:
        result["mcnemar"] = mcnemar_exact(clean_correct, noisy_correct)
        result["significant"] = bool(result["mcnemar"]["p_value"] < alpha)
    else:
        result["significant"] = significant(low, high)
    return result
