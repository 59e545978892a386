"""Length-bucketed batches under a token budget, results back in input order.

Padding a 5-token question to the length of a 300-token context wastes the GPU (and the CPU), so
items are sorted by length and cut into batches whose padded size ``len(batch) * longest`` stays
under ``token_budget``. Ties in length are broken by a stable key (a hash of the input text, never
its position in a build batch), so the inner batches depend only on the set of inputs: GPU
arithmetic is not bitwise stable across batch shapes, and this is what fixes the shapes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def stable_key(text: str) -> bytes:
    """Tie-breaker between inputs of equal length: a digest of the text (the same in any process)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()


def length_batches(lengths: Sequence[int], token_budget: int, max_batch: int | None = None,
                   keys: Sequence[bytes] | None = None) -> list[list[int]]:
    """Indices of the items, grouped into batches of similar length.

    Each batch holds items sorted by ``(length, key)`` and satisfies
    ``len(batch) * max(lengths in batch) <= token_budget`` (an item longer than the budget gets a batch
    of its own) and ``len(batch) <= max_batch``. Longest batches come first, so an out-of-memory
    error shows on the first batch rather than after an hour.
    """
    if token_budget < 1:
        raise ValueError("token_budget must be at least 1")
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], keys[i] if keys is not None else b"", i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = max(lengths[i], 1)  # sorted ascending: the newcomer is the longest of the batch
        if current and ((len(current) + 1) * longest > token_budget or (max_batch and len(current) >= max_batch)):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    batches.reverse()
    return batches


def run_batched(items: Sequence[T], lengths: Sequence[int], fn: Callable[[list[T]], Sequence[R]], *,
                token_budget: int, max_batch: int | None = None, keys: Sequence[bytes] | None = None,
                desc: str = "", unit: str = "item", progress: bool = True,
                on_batch: Callable[[list[int], Sequence[R]], Any] | None = None) -> list[R]:
    """``fn`` applied to length-bucketed batches of ``items``; one result per item, in input order.

    ``on_batch(indices, results)`` is called after every batch (the cache stores results as they are
    made, so an interrupted run keeps what it computed). The progress bar shows items/s.
    """
    from tqdm.auto import tqdm

    results: list[Any] = [None] * len(items)
    batches = length_batches(lengths, token_budget, max_batch, keys)
    with tqdm(total=len(items), desc=desc, unit=unit, disable=not progress or not items, leave=False) as bar:
        for batch in batches:
            out = fn([items[i] for i in batch])
            if len(out) != len(batch):
                raise RuntimeError(f"{desc or 'batch function'} returned {len(out)} results for {len(batch)} inputs")
            for i, value in zip(batch, out):
                results[i] = value
            if on_batch is not None:
                on_batch(batch, out)
            bar.update(len(batch))
    return results
