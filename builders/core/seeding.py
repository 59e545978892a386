"""Per-example random streams derived from a stable hash.

Every example gets its own generator, derived from
``(seed, noise name@version, params digest, example id, field)`` with blake2b, never from its
position, batch or process. That is what makes output byte-identical for any ``num_proc``,
batch size or shard order (DESIGN.md, contract 2).

Only :meth:`random.Random.random` is used to draw numbers: Python guarantees that its sequence
for an integer seed stays the same across versions, whereas ``randrange``/``choice``/``shuffle``
have changed between releases. Integers and choices are derived from it here.

Cost. A generator is seeded on its first draw, so an example that draws nothing never pays for it; seeding
``random.Random`` from a 128-bit integer (CPython's ``init_by_array``, ~1,900 dependent steps in C) is most of what a
short text's keyboard noise costs, and is the price of keeping every published stream. :func:`example_rngs`, which
every build uses, hashes the part of the key shared by a batch (seed, model, digest) once and only the example id and
field per example.
"""

from __future__ import annotations

import hashlib
import json
from _random import Random as _CRandom
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_SEP = b"\x1f"  # unit separator: cannot occur in a printed seed or digest, keeps fields apart


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: the same text for the same data, in any process."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def params_digest(params: Mapping[str, Any]) -> str:
    """Short stable digest of a noise model's parameters (canonical JSON, blake2b)."""
    return hashlib.blake2b(canonical_json(params).encode("utf-8"), digest_size=8).hexdigest()


def derive_seed(seed: int, noise_id: str, digest: str, example_id: str, field: str) -> int:
    """128-bit integer seed for one (example, field) under one noise configuration."""
    parts = (str(seed), noise_id, digest, example_id, field)
    material = _SEP.join(p.encode("utf-8") for p in parts)
    return int.from_bytes(hashlib.blake2b(material, digest_size=16).digest(), "big")


class ExampleRng:
    """Random stream of one example; a thin, version-stable layer over ``random.Random.random``, with integers,
    choices and shuffles all derived from ``random()`` alone (see the module's docstring).

    The generator is seeded on the first draw (the ``random`` slot is filled by :meth:`__getattr__`), so an
    example that draws nothing never pays for seeding. ``_CRandom(seed)`` is what ``random.Random(seed)``
    does for an integer seed, minus the Python-level wrapper: the same stream.
    """

    __slots__ = ("random", "_seed")
    random: Callable[[], float]

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def __getattr__(self, name: str) -> Any:
        if name != "random":
            raise AttributeError(name)
        draw = self.random = _CRandom(self._seed).random
        return draw

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``; ``n`` must be positive."""
        return int(self.random() * n)

    def choice(self, items: Sequence[T]) -> T:
        """Uniform element of a non-empty sequence."""
        return items[int(self.random() * len(items))]

    def weighted(self, weights: Sequence[float]) -> int:
        """An index drawn with probability proportional to ``weights`` (non-negative, positive sum)."""
        u = self.random() * sum(weights)
        for index, weight in enumerate(weights):
            u -= weight
            if u < 0:
                return index
        return len(weights) - 1

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = int(self.random() * (i + 1))
            items[i], items[j] = items[j], items[i]


def example_rng(seed: int, noise_id: str, digest: str, example_id: str, field: str) -> ExampleRng:
    """The generator of one (example, field): see :func:`derive_seed`."""
    return ExampleRng(derive_seed(seed, noise_id, digest, example_id, field))


def example_rngs(seed: int, noise_id: str, digest: str, example_ids: Sequence[str], field: str) -> list[ExampleRng]:
    """The generators of many examples of one field, equal to :func:`example_rng` for each id: the hash state
    after the shared prefix ``seed, noise id, digest`` is computed once and copied per example."""
    prefix = hashlib.blake2b(digest_size=16)
    prefix.update(_SEP.join(p.encode("utf-8") for p in (str(seed), noise_id, digest)) + _SEP)
    tail = _SEP + field.encode("utf-8")
    rngs = []
    for example_id in example_ids:
        state = prefix.copy()
        state.update(example_id.encode("utf-8") + tail)
        rngs.append(ExampleRng(int.from_bytes(state.digest(), "big")))  # derive_seed's integer
    return rngs
