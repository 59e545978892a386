"""The CoLeS typology of segmentation corruption (Li, Liu & Gao, 2023), on two subword sequences.

A canonical word segments into the subwords ``S`` and its noisy form into ``S~`` (multisets, compared
as strings once the tokenizer's word-boundary marks are stripped). With ``O = S ∩ S~`` (what the noise
left), ``M = S - O`` (what it took) and ``A = S~ - O`` (what it added), a pair is:

* ``intact``: ``O = ∅`` and ``|S| = 1``: a word the vocabulary held whole is broken into other pieces;
* ``complete``: ``O = ∅`` and ``|S| > 1``: none of the canonical subwords survives;
* ``partial``: ``M``, ``O`` and ``A`` all non-empty (so ``|S| > 1``): some subwords kept, some replaced;
* ``additive``: ``M = ∅``, ``A ≠ ∅``: every canonical subword kept, others added; split by where they go:
  ``additive-affix`` when the canonical subwords stay one run in their order inside the noisy sequence
  (additions only before or after it), ``additive-infix`` otherwise (an addition between two of them);
* ``missing``: ``A = ∅``, ``M ≠ ∅``: subwords only taken away;
* ``unchanged``: ``M = A = ∅``: the same subwords (a case change under an uncased vocabulary); no
  corruption, reported apart and never counted in the shares of the six types.

The infix/affix test is our reading of the paper's "queue" comparison (its text was not at hand):
the canonical subwords are a queue; the noisy subwords are read left to right and one equal to the
head of the queue pops it; any other is an addition, *infix* when it comes after the first pop and
before the queue is empty. A queue left non-empty at the end (the kept subwords reordered) is infix too.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass

#: The six corruption types, in the paper's order, and the seventh outcome that is no corruption.
TYPES = ("intact", "complete", "partial", "additive-infix", "additive-affix", "missing")
UNCHANGED = "unchanged"


@dataclass(frozen=True)
class Corruption:
    """The type of one pair and the sizes of its multisets."""

    type: str
    added: int    # |A|
    missing: int  # |M|
    overlap: int  # |O|


def additive_place(canonical: Sequence[str], noisy: Sequence[str]) -> str:
    """``additive-infix`` or ``additive-affix`` by the queue comparison (module docstring)."""
    queue = deque(canonical)
    popped = False
    for piece in noisy:
        if queue and piece == queue[0]:
            queue.popleft()
            popped = True
        elif popped and queue:
            return "additive-infix"
    return "additive-infix" if queue else "additive-affix"


def _overlap(canonical: Sequence[str], noisy: Sequence[str]) -> int:
    """``|S ∩ S~|`` as multisets; plain sets when neither sequence repeats a subword (the common case)."""
    s, t = set(canonical), set(noisy)
    common = s & t
    if not common or (len(s) == len(canonical) and len(t) == len(noisy)):
        return len(common)
    counts, other = Counter(canonical), Counter(noisy)
    return sum(min(counts[piece], other[piece]) for piece in common)


def corruption(canonical: Sequence[str], noisy: Sequence[str]) -> Corruption:
    """Type the segmentation of a noisy word against its canonical one."""
    if not canonical or not noisy:
        raise ValueError("a word segments into at least one subword")
    o = _overlap(canonical, noisy)
    m, a = len(canonical) - o, len(noisy) - o
    if o == 0:
        kind = "intact" if len(canonical) == 1 else "complete"
    elif m == 0 and a == 0:
        kind = UNCHANGED
    elif m == 0:
        kind = additive_place(canonical, noisy)
    elif a == 0:
        kind = "missing"
    else:
        kind = "partial"
    return Corruption(kind, a, m, o)
