"""Small pure functions that turn one model output into the JSON value a head returns and caches.

They take arrays (numpy, already on the CPU) and plain lists, never a model, so each is tested on numbers
written by hand. :mod:`noisecraft.runtime.heads` calls them per item after the one forward path.

Rounding policy (one for every head): probabilities are rounded to :data:`DECIMALS` decimals when computed,
so a cached answer equals a fresh one and nothing downstream turns on the last bits of a batch's
arithmetic (padding moves logits by ~1e-7 on CPU). Other outputs (logit scores, embeddings, importance
scores) are kept as computed, in float64 via JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Decimals kept of each probability (see the module docstring).
DECIMALS = 6


def probabilities(row: np.ndarray) -> list[float]:
    """One row of class probabilities (a soft-max computed in float32, as the model's dtype allows), rounded
    to :data:`DECIMALS`."""
    return [round(float(p), DECIMALS) for p in row]


def best_span(start_logits: np.ndarray, end_logits: np.ndarray, offsets: Sequence[tuple[int, int] | None],
              context: str, n_best: int, max_answer_length: int) -> dict[str, Any] | None:
    """The highest-scoring valid answer span of one window, ``{"text", "score"}``, or ``None``.

    The standard SQuAD recipe: the ``n_best`` start and end candidates, both inside the context (``offsets``
    is ``None`` outside it), end not before start, at most ``max_answer_length`` tokens; the score is start +
    end logit, and of equal scores the first in (start rank, end rank) order wins.
    """
    starts = np.argsort(-start_logits, kind="stable")[:n_best]
    ends = np.argsort(-end_logits, kind="stable")[:n_best]
    in_context = np.array([o is not None for o in offsets])
    length = ends[None, :] - starts[:, None] + 1
    valid = in_context[starts][:, None] & in_context[ends][None, :] & (length >= 1) & (length <= max_answer_length)
    if not valid.any():
        return None
    scores = np.where(valid, start_logits[starts][:, None] + end_logits[ends][None, :], -np.inf)
    s, e = np.unravel_index(int(np.argmax(scores)), scores.shape)
    first, last = offsets[starts[s]], offsets[ends[e]]
    assert first is not None and last is not None
    return {"text": context[first[0] : last[1]], "score": float(scores[s, e])}


def best_of_windows(candidates: Sequence[dict[str, Any] | None]) -> dict[str, Any]:
    """The best answer over the windows of one context (the first of equal scores); ``{"text": "", "score":
    None}`` when no window has a valid span."""
    best: dict[str, Any] | None = None
    for candidate in candidates:
        if candidate is not None and (best is None or candidate["score"] > best["score"]):
            best = candidate
    return best or {"text": "", "score": None}


def first_subtoken_labels(label_ids: Sequence[int], word_ids: Sequence[int | None], words: int) -> list[int]:
    """The label id of every word, read at its first sub-token; ``-1`` for a word the length limit cut off."""
    per_word = [-1] * words
    for position, word in enumerate(word_ids):
        if word is not None and per_word[word] == -1:
            per_word[word] = int(label_ids[position])
    return per_word


def _tag(label: str) -> tuple[str, str]:
    """``(B or I, type)`` of a label; a label without a ``B-``/``I-`` prefix continues (``O`` is a type here)."""
    return (label[0], label[2:]) if label[:2] in ("B-", "I-") else ("I", label)


def entity_spans(label_names: Sequence[str], offsets: Sequence[tuple[int, int]],
                 special: Sequence[bool]) -> list[tuple[int, int, str]]:
    """Character spans ``(start, end, type)`` of the entities of one text, from the label of each sub-token.

    Grouped exactly as the ``simple`` aggregation of transformers' token-classification pipeline groups them
    (so a tagger gives the entities it gave through that pipeline): special tokens are skipped; a sub-token
    joins the group before it when it has the same type and is not a ``B-``; groups of type ``O`` are dropped.
    """
    groups: list[list[Any]] = []
    for label, (start, end), is_special in zip(label_names, offsets, special):
        if is_special:
            continue
        bi, kind = _tag(label)
        if groups and groups[-1][3] == kind and bi != "B":
            groups[-1][1] = end
        else:
            groups.append([start, end, label.split("-", 1)[-1], kind])
    return [(start, end, name) for start, end, name, kind in groups if kind != "O"]


def mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> list[float]:
    """The attention-mask weighted mean of one item's last hidden states (``hidden``: tokens x width)."""
    weights = mask.astype(np.float64)[:, None]
    return [float(v) for v in (hidden.astype(np.float64) * weights).sum(axis=0) / max(weights.sum(), 1.0)]


def importance(scores: np.ndarray, mask: np.ndarray, tokens: Sequence[str], word_ids: Sequence[int | None],
               sequence_ids: Sequence[int | None], offsets: Sequence[tuple[int, int] | None],
               label: int) -> dict[str, Any]:
    """One item's input-gradient importance with what is needed to read it per word.

    ``scores[i]`` is ``t_i · ∇_{t_i} L`` for token ``i`` (``L`` the loss of the predicted ``label``); the
    result keeps the item's real tokens (padding cut off) with their ``word_ids``, ``sequence_ids`` (which
    text of a pair) and character ``offsets``, so a caller sums sub-token scores into words
    (:func:`word_scores`).
    """
    n = int(mask.sum())
    return {"label": int(label), "tokens": list(tokens[:n]), "scores": [float(s) for s in scores[:n]],
            "word_ids": list(word_ids[:n]), "sequence_ids": list(sequence_ids[:n]),
            "offsets": [list(o) if o is not None else None for o in offsets[:n]]}


def word_scores(item: dict[str, Any], sequence: int = 0) -> dict[int, float]:
    """Importance per word of one text of an :func:`importance` result: its sub-token scores summed."""
    total: dict[int, float] = {}
    for word, seq, score in zip(item["word_ids"], item["sequence_ids"], item["scores"]):
        if word is not None and seq == sequence:
            total[word] = total.get(word, 0.0) + score
    return total
