"""Word alignment, phrase extraction and phrase scoring: the training half of Moses, from NLTK's parts.

Alignment is NLTK's IBM Model 1 (EM, deterministic) run in both directions and symmetrised with
grow-diag-final-and, Moses's default heuristic. eflomal (faster) was measured and rejected: its Gibbs sampler
seeds itself from ``/dev/urandom`` with no seed option, so the same training data would give different
generators on different machines. Phrases are NLTK's :func:`phrase_extraction` (every phrase pair consistent
with the alignment, up to ``max_length`` source tokens); each target phrase is scored by its relative
frequencies in both directions, ``log p(e|f) + log p(f|e)`` with ``p(e|f) = c(f, e) / c(f)``: Moses's two
phrase translation probabilities at equal weight (its lexical weights, phrase penalty and tuned weights have no
counterpart in NLTK's decoder, which takes one score per phrase pair). The inverse direction matters: alone,
``p(e|f)`` is 1 for every long source phrase seen once, and the decoder would cover a sentence with a few of them
and their short targets. Only the ``limit`` best targets of each source phrase are kept (Moses's ``ttable-limit``).
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

Pair = tuple[Sequence[str], Sequence[str]]
#: source phrase -> [(target phrase, natural-log score)], best first
Table = dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]]


def symmetrised_alignments(pairs: Sequence[Pair], iterations: int) -> list[list[tuple[int, int]]]:
    """Word alignment ``(source index, target index)`` of every pair: IBM Model 1 trained with ``iterations`` EM
    rounds in each direction, symmetrised by grow-diag-final-and."""
    from nltk.translate import AlignedSent, IBMModel1
    from nltk.translate.gdfa import grow_diag_final_and

    forward = [AlignedSent(list(source), list(target)) for source, target in pairs]  # source word -> target word
    backward = [AlignedSent(list(target), list(source)) for source, target in pairs]
    IBMModel1(forward, iterations)
    IBMModel1(backward, iterations)
    out = []
    for (source, target), fwd, bwd in zip(pairs, forward, backward):
        f2e = " ".join(f"{i}-{j}" for i, j in fwd.alignment if j is not None)
        e2f = " ".join(f"{i}-{j}" for j, i in bwd.alignment if i is not None)
        out.append(sorted(grow_diag_final_and(len(source), len(target), e2f, f2e)))
    return out


def score_phrases(pairs: Sequence[Pair], alignments: Sequence[Sequence[tuple[int, int]]], max_length: int,
                  limit: int) -> Table:
    """The phrase table of aligned pairs: every consistent phrase pair up to ``max_length`` source tokens, scored
    by ``log p(e|f) + log p(f|e)``; per source phrase the ``limit`` best targets (ties: the target's tokens in order)."""
    from nltk.translate.phrase_based import phrase_extraction

    joint: Counter[tuple[tuple[str, ...], tuple[str, ...]]] = Counter()
    for (source, target), alignment in zip(pairs, alignments):
        if not alignment:
            continue
        for (fs, fe), (es, ee), _, _ in phrase_extraction(" ".join(source), " ".join(target), alignment, max_length):
            joint[tuple(source[fs:fe]), tuple(target[es:ee])] += 1
    by_source: dict[tuple[str, ...], list[tuple[tuple[str, ...], int]]] = defaultdict(list)
    target_totals: Counter[tuple[str, ...]] = Counter()
    for (src, trg), count in joint.items():
        by_source[src].append((trg, count))
        target_totals[trg] += count
    table: Table = {}
    for src, options in by_source.items():
        total = sum(count for _, count in options)
        scored = [(trg, math.log(count / total) + math.log(count / target_totals[trg])) for trg, count in options]
        table[src] = sorted(scored, key=lambda option: (-option[1], option[0]))[:limit]
    return table


def write_table(table: Table, path: Path) -> None:
    """The table as TSV (``source<TAB>target<TAB>log p``, tokens space-separated), sorted, written atomically."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for src in sorted(table):
            for trg, log_prob in table[src]:
                out.write(f"{' '.join(src)}\t{' '.join(trg)}\t{log_prob!r}\n")
    os.replace(tmp, path)


def read_table(path: Path) -> Table:
    """A table written by :func:`write_table` (targets in the stored order: most likely first)."""
    table: Table = defaultdict(list)
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            src, trg, log_prob = line.rstrip("\n").split("\t")
            table[tuple(src.split(" "))].append((tuple(trg.split(" ")), float(log_prob)))
    return dict(table)
