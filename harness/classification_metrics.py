"""Per-example and aggregate measures of a classifier on clean vs noisy inputs (numpy arrays in, floats out).

Probabilities are over the *dataset's* classes (after :mod:`noisecraft.runtime.labels`).
Confidence is the probability of the predicted class; entropy is in nats. Expected calibration error
uses Guo et al. (2017)'s 15 equal-width confidence bins ``((m-1)/15, m/15]``.

Robustness measures follow Gupta et al. (2021) and the adversarial-attack literature:

* agreement: share of examples whose noisy prediction equals the clean one; flip rate = 1 - agreement;
* attack success rate: among the examples the model gets right on the clean side, the share it gets
  wrong on the noisy side (TextAttack and ProbeGrammar count it so: examples already wrong are
  "skipped", not successes).
"""

from __future__ import annotations

import numpy as np

ECE_BINS = 15


def confidence(probs: np.ndarray) -> np.ndarray:
    """Probability of the predicted class, per example."""
    return probs.max(axis=1)


def entropy(probs: np.ndarray) -> np.ndarray:
    """Entropy of each predicted distribution, in nats (0 log 0 = 0)."""
    safe = np.where(probs > 0, probs, 1.0)
    return -(probs * np.log(safe)).sum(axis=1)


def reliability_bins(conf: np.ndarray, correct: np.ndarray, bins: int = ECE_BINS) -> list[dict[str, float]]:
    """The non-empty equal-width confidence bins ``((m-1)/M, m/M]`` (the first also takes 0): per bin its range,
    rows, accuracy and mean confidence (a reliability diagram's points)."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.digitize(conf, edges[1:-1], right=True)
    found = []
    for m in range(bins):
        members = which == m
        if members.any():
            found.append({"low": float(edges[m]), "high": float(edges[m + 1]), "n": int(members.sum()),
                          "accuracy": float(correct[members].mean()), "confidence": float(conf[members].mean())})
    return found


def expected_calibration_error(conf: np.ndarray, correct: np.ndarray, bins: int = ECE_BINS) -> float:
    """``sum_m |B_m|/n * |accuracy(B_m) - confidence(B_m)|`` over equal-width bins ``((m-1)/M, m/M]``."""
    if len(conf) == 0:
        return float("nan")
    total = 0.0
    for b in reliability_bins(conf, correct, bins):
        total += b["n"] / len(conf) * abs(b["accuracy"] - b["confidence"])
    return float(total)


def attack_success_rate(clean_correct: np.ndarray, noisy_correct: np.ndarray) -> float:
    """Share of clean-correct examples that the noisy input makes wrong (nan when none is clean-correct)."""
    attacked = clean_correct.astype(bool)
    if not attacked.any():
        return float("nan")
    return float((~noisy_correct.astype(bool))[attacked].mean())

