"""An interpolated Kneser-Ney n-gram language model, written as an ARPA file for kenlm to query.

KenLM's estimator (``lmplz``) is a C++ binary that no package registry ships; its Python module, which
does, only *queries* models. So the counts and smoothing are done here and the model is written in the
ARPA text format that kenlm (and every other n-gram toolkit) reads. The smoothing follows lmplz without
its refinements: one absolute discount per order, ``D = n1 / (n1 + 2 n2)`` from the counts of counts
(Chen & Goodman's estimate), continuation counts for every order below the highest (raw counts for
n-grams that start with ``<s>``, which cannot be extended to the left), interpolation down to a uniform
distribution over the vocabulary plus ``<unk>``. An interpolated model is exactly an ARPA back-off model
whose stored probabilities are the interpolated ones and whose back-off weight of a context ``h`` is its
interpolation weight ``gamma(h) = D * N1+(h .) / c(h)``.
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
#: Log10 probability ARPA files give ``<s>`` (never predicted; kenlm expects it listed).
BOS_LOG10 = -99.0


def _discount(counts: Counter[tuple[str, ...]]) -> float:
    """Chen & Goodman's single discount from the counts of counts (0.5 where the data has no singletons or doubletons)."""
    n1 = sum(1 for c in counts.values() if c == 1)
    n2 = sum(1 for c in counts.values() if c == 2)
    return n1 / (n1 + 2 * n2) if n1 and n2 else 0.5


def _adjusted_counts(sentences: Iterable[Sequence[str]], order: int) -> list[Counter[tuple[str, ...]]]:
    """Counts per order (index ``k - 1`` for order ``k``): raw counts at the highest order and for n-grams that
    start with ``<s>``; continuation counts (distinct left neighbours) for the rest."""
    raw: Counter[tuple[str, ...]] = Counter()
    for sentence in sentences:
        padded = (BOS, *sentence, EOS)
        for end in range(1, len(padded) + 1):
            for k in range(1, min(order, end) + 1):
                raw[padded[end - k:end]] += 1
    counts: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(order)]
    for gram, count in raw.items():
        k = len(gram)
        if k == order or gram[0] == BOS:
            counts[k - 1][gram] += count
        if k > 1:  # one more distinct left neighbour for the suffix (each distinct gram is seen once here)
            counts[k - 2][gram[1:]] += 1
    counts[0].pop((BOS,), None)  # never predicted: listed in the file with BOS_LOG10
    return counts


def write_arpa(sentences: Iterable[Sequence[str]], order: int, path: Path) -> None:
    """Estimate an ``order``-gram interpolated Kneser-Ney model of ``sentences`` (token lists) and write it to
    ``path`` as ARPA (atomically: a temporary file renamed into place)."""
    if order < 1:
        raise ValueError(f"order must be at least 1, got {order}")
    counts = _adjusted_counts(sentences, order)
    vocabulary = sorted({gram[0] for gram in counts[0]})
    probs: list[dict[tuple[str, ...], float]] = []
    backoffs: list[dict[tuple[str, ...], float]] = [dict() for _ in range(order)]
    uniform = 1.0 / (len(vocabulary) + 1)  # + <unk>
    for k in range(1, order + 1):
        level = counts[k - 1]
        discount = _discount(level)
        totals: dict[tuple[str, ...], int] = defaultdict(int)
        followers: dict[tuple[str, ...], int] = defaultdict(int)
        for gram, count in level.items():
            totals[gram[:-1]] += count
            followers[gram[:-1]] += 1
        gammas = {h: discount * followers[h] / totals[h] for h in totals}
        current: dict[tuple[str, ...], float] = {}
        for gram, count in level.items():
            lower = uniform if k == 1 else probs[k - 2][gram[1:]]
            current[gram] = max(count - discount, 0.0) / totals[gram[:-1]] + gammas[gram[:-1]] * lower
        if k == 1:
            current[(UNK,)] = gammas[()] * uniform
        else:
            backoffs[k - 2].update(gammas)
        probs.append(current)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write("\\data\\\n")
        sizes = [len(probs[0]) + 1] + [len(p) for p in probs[1:]]  # unigrams + <s>
        out.writelines(f"ngram {k}={size}\n" for k, size in enumerate(sizes, 1))
        for k in range(1, order + 1):
            out.write(f"\n\\{k}-grams:\n")
            entries = sorted(probs[k - 1].items())
            if k == 1:
                entries = sorted([*entries, ((BOS,), 0.0)])
            for gram, prob in entries:
                log_prob = BOS_LOG10 if gram == (BOS,) else math.log10(prob)
                line = f"{log_prob:.6f}\t{' '.join(gram)}"
                if k < order and gram in backoffs[k - 1]:
                    line += f"\t{math.log10(backoffs[k - 1][gram]):.6f}"
                out.write(line + "\n")
        out.write("\n\\end\\\n")
    os.replace(tmp, path)
